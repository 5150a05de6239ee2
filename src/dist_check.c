/* mispc_dist_csr_check: column ranges and a symmetric pattern across ranks.
 * The diagonal block (both ends owned) is checked against its transpose in
 * place (O(nnz), no sort). For the off-diagonal block each rank sends the
 * expected mirror (j, i) of every entry (i, j) to the rank of j, which
 * finds each among its own off-diagonal entries (both lists sorted): every
 * entry has its mirror exactly when every received mirror is found. Memory
 * follows the rank's boundary entries, one word an entry where every global
 * id is below 2^31 (a radix sort of packed keys; two words otherwise), and
 * a rank's own list is made only after the mirrors have gone; nothing is
 * gathered. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

/* The diagonal block A (n rows, columns checked in range) against its
 * transpose: every (j, i) of A has (i, j), and the reverse; self loops need
 * no mirror, repeated entries are allowed. 0, or 1 with (*bi, *bj) an entry
 * (local ids) without its mirror; -1 out of memory. */
static int diag_mirrors(const mispc_csr *A, int64_t n, int64_t *bi, int64_t *bj) {
  int64_t *tptr = (int64_t *)calloc((size_t)n + 2, sizeof(int64_t));
  int64_t *mark = (int64_t *)malloc(sizeof(int64_t) * ((size_t)n + 1));
  int32_t *trow = (int32_t *)malloc(sizeof(int32_t) * ((size_t)A->nnz + 1));
  int bad = -1;
  if (tptr && mark && trow) {
    bad = 0;
    for (int64_t p = 0; p < A->nnz; ++p) ++tptr[A->colidx[p] + 2];
    for (int64_t c = 0; c < n; ++c) tptr[c + 2] += tptr[c + 1];
    for (int64_t i = 0; i < n; ++i)
      for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
        trow[tptr[A->colidx[p] + 1]++] = (int32_t)i; /* tptr[c + 1] ends at c's end */
    for (int64_t v = 0; v < n; ++v) mark[v] = -1;
    /* stamp 2i: row i of A; stamp 2i + 1: row i of A^T (rows j with (j, i)) */
    for (int64_t i = 0; i < n && !bad; ++i) {
      for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) mark[A->colidx[p]] = 2 * i;
      for (int64_t q = tptr[i]; q < tptr[i + 1] && !bad; ++q)
        if (trow[q] != i && mark[trow[q]] != 2 * i) bad = 1, *bi = trow[q], *bj = i;
      for (int64_t q = tptr[i]; q < tptr[i + 1]; ++q) mark[trow[q]] = 2 * i + 1;
      for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1] && !bad; ++p)
        if (A->colidx[p] != i && mark[A->colidx[p]] != 2 * i + 1)
          bad = 1, *bi = i, *bj = A->colidx[p];
    }
  }
  free(tptr), free(mark), free(trow);
  return bad;
}

/* Whether the received mirrors (w words each: (row, column) of this rank's
 * rows) are all among this rank's off-diagonal entries, both lists sorted
 * and merged: 0 yes; 1 with (*bi, *bj) the sender's entry whose mirror is
 * missing (the first in (row, column) order); -1 out of memory. */
static int find_mirrors(const mispc_dist_csr *g, int64_t *got, int w, int64_t ngot, int64_t *bi,
                        int64_t *bj) {
  const int64_t nloc = g->rend - g->rstart;
  int64_t *own = (int64_t *)malloc(sizeof(int64_t) * (size_t)(w * g->offd.nnz + 1));
  if (!own) return -1;
  int64_t m = 0;
  for (int64_t i = 0; i < nloc; ++i)
    for (int64_t p = g->offd.rowptr[i]; p < g->offd.rowptr[i + 1]; ++p) {
      const int64_t gi = g->rstart + i, gj = g->garray[g->offd.colidx[p]];
      if (w == 1)
        own[m++] = gi << 32 | gj;
      else
        own[2 * m] = gi, own[2 * m + 1] = gj, ++m;
    }
  int bad = 0;
  if (w == 1) {
    uint64_t *t1 = NULL, *t2 = NULL;
    const uint64_t *o = mispc_sorted_u64((uint64_t *)own, m, &t1);
    const uint64_t *r = mispc_sorted_u64((uint64_t *)got, ngot, &t2);
    int64_t a = 0;
    for (int64_t k = 0; k < ngot && !bad; ++k) {
      while (a < m && o[a] < r[k]) ++a;
      if (a == m || o[a] != r[k])
        bad = 1, *bi = (int64_t)(r[k] & 0xFFFFFFFFu), *bj = (int64_t)(r[k] >> 32);
    }
    free(t1), free(t2);
  } else {
    const int64_t nown = mispc_sort_unique_pairs(own, m);
    ngot = mispc_sort_unique_pairs(got, ngot);
    int64_t a = 0;
    for (int64_t k = 0; k < ngot && !bad; ++k) {
      while (a < nown && (own[2 * a] < got[2 * k] ||
                          (own[2 * a] == got[2 * k] && own[2 * a + 1] < got[2 * k + 1])))
        ++a;
      if (a == nown || own[2 * a] != got[2 * k] || own[2 * a + 1] != got[2 * k + 1])
        bad = 1, *bi = got[2 * k + 1], *bj = got[2 * k];
    }
  }
  free(own);
  return bad;
}

mispc_status mispc_dist_csr_check(mispc_context *ctx, const mispc_dist_csr *g) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!g || !g->halo || !g->ranges)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_csr_check: graph not built");
  int P = 0;
  MPI_Comm_size(g->comm, &P);
  const int64_t nloc = g->rend - g->rstart, ne = g->offd.nnz;
  mispc_status s = MISPC_SUCCESS;
  if (g->diag.mem != MISPC_MEM_HOST)
    s = mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "mispc_dist_csr_check: host graphs only");
  /* one word a record where every global id is below 2^31 (tuning
   * dist_check_pairs: two, as above that, for the tests) */
  const int w = g->nglobal <= INT32_MAX && !ctx->tuning.dist_check_pairs ? 1 : 2;
  int64_t *mir = s ? NULL : (int64_t *)malloc(sizeof(int64_t) * (size_t)(w * ne + 2));
  int *dest = s ? NULL : (int *)malloc(sizeof(int) * (size_t)(ne + 1));
  if (!s && (!mir || !dest))
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
        if (!b) continue; /* the diagonal block: diag_mirrors below */
        const int64_t gi = g->rstart + i, gj = g->garray[c];
        if (gi == gj) continue; /* self loops need no mirror */
        if (w == 1)
          mir[m] = gj << 32 | gi;
        else
          mir[2 * m] = gj, mir[2 * m + 1] = gi;
        dest[m] = mispc_dist_owner(g->ranges, P, gj);
        ++m;
      }
    }
  if (!s) {
    int64_t bi = 0, bj = 0;
    const int bad = diag_mirrors(&g->diag, nloc, &bi, &bj);
    if (bad < 0)
      s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory checking the graph");
    else if (bad)
      s = mispc_seterr(ctx, MISPC_ERR_UNSYMMETRIC,
                       "pattern not symmetric: entry (%lld, %lld) has no entry (%lld, %lld)",
                       (long long)(g->rstart + bi), (long long)(g->rstart + bj),
                       (long long)(g->rstart + bj), (long long)(g->rstart + bi));
  }
  s = mispc_dist_agree(ctx, g->comm, s);
  int64_t *got = NULL, ngot = 0;
  if (!s) s = mispc_dist_route(ctx, g->comm, w, m, mir, dest, &got, &ngot);
  free(mir);
  free(dest);
  if (!s) {
    int64_t bi = 0, bj = 0;
    const int bad = find_mirrors(g, got, w, ngot, &bi, &bj);
    if (bad < 0)
      s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory checking the graph");
    else if (bad)
      s = mispc_seterr(ctx, MISPC_ERR_UNSYMMETRIC,
                       "pattern not symmetric: entry (%lld, %lld) has no entry (%lld, %lld)",
                       (long long)bi, (long long)bj, (long long)bj, (long long)bi);
  }
  free(got);
  return mispc_dist_agree(ctx, g->comm, s);
}
