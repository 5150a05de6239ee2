/* mispc_dist_csr_check: column ranges and a symmetric pattern across ranks.
 * Each rank lists its entries (i, j), i != j, by global ids, sends the
 * expected mirror (j, i) of every entry to the rank of j, and looks each
 * received mirror up among its own entries (both lists sorted): memory
 * follows the rank's entries, nothing is gathered. */
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

mispc_status mispc_dist_csr_check(mispc_context *ctx, const mispc_dist_csr *g) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!g || !g->halo || !g->ranges)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_csr_check: graph not built");
  int P = 0;
  MPI_Comm_size(g->comm, &P);
  const int64_t nloc = g->rend - g->rstart, ne = g->diag.nnz + g->offd.nnz;
  mispc_status s = MISPC_SUCCESS;
  if (g->diag.mem != MISPC_MEM_HOST)
    s = mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "mispc_dist_csr_check: host graphs only");
  int64_t *own = s ? NULL : (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * ne + 2));
  int64_t *mir = s ? NULL : (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * ne + 2));
  int *dest = s ? NULL : (int *)malloc(sizeof(int) * (size_t)(ne + 1));
  if (!s && (!own || !mir || !dest))
    s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory checking the graph");
  int64_t m = 0;
  for (int64_t i = 0; !s && i < nloc; ++i)
    for (int b = 0; b < 2 && !s; ++b) {
      const mispc_csr *B = b ? &g->offd : &g->diag;
      const int64_t ncols = b ? g->nghost : nloc;
      for (int64_t p = B->rowptr[i]; p < B->rowptr[i + 1]; ++p) {
        const int32_t c = B->colidx[p];
        if (c < 0 || c >= ncols) {
          s = mispc_seterr(ctx, MISPC_ERR_INDEX_RANGE, "row %lld: %s column %d outside [0, %lld)",
                           (long long)(g->rstart + i), b ? "off-diagonal" : "diagonal", c,
                           (long long)ncols);
          break;
        }
        const int64_t gi = g->rstart + i, gj = b ? g->garray[c] : g->rstart + c;
        if (gi == gj) continue; /* self loops need no mirror */
        own[2 * m] = gi, own[2 * m + 1] = gj;
        mir[2 * m] = gj, mir[2 * m + 1] = gi;
        dest[m] = mispc_dist_owner(g->ranges, P, gj);
        ++m;
      }
    }
  s = mispc_dist_agree(ctx, g->comm, s);
  int64_t *got = NULL, ngot = 0;
  if (!s) s = mispc_dist_route(ctx, g->comm, 2, m, mir, dest, &got, &ngot);
  free(mir);
  free(dest);
  if (!s) {
    const int64_t nown = mispc_sort_unique_pairs(own, m);
    ngot = mispc_sort_unique_pairs(got, ngot);
    /* every expected mirror among the own entries (both sorted) */
    int64_t a = 0;
    for (int64_t k = 0; k < ngot && !s; ++k) {
      while (a < nown && (own[2 * a] < got[2 * k] ||
                          (own[2 * a] == got[2 * k] && own[2 * a + 1] < got[2 * k + 1])))
        ++a;
      if (a == nown || own[2 * a] != got[2 * k] || own[2 * a + 1] != got[2 * k + 1])
        s = mispc_seterr(ctx, MISPC_ERR_UNSYMMETRIC,
                         "pattern not symmetric: entry (%lld, %lld) has no entry (%lld, %lld)",
                         (long long)got[2 * k + 1], (long long)got[2 * k], (long long)got[2 * k],
                         (long long)got[2 * k + 1]);
    }
  }
  free(own);
  free(got);
  return mispc_dist_agree(ctx, g->comm, s);
}
