/* Distributed strength graph (host): the node graph of mispc_strength_graph
 * (strength_host.c) over a row-partitioned matrix. Entry a_ij (i != j) is
 * strong when |a_ij| > theta sqrt(|a_ii a_jj|), decided on the rank of row i
 * with a_jj from the halo; strong blocks (I, J) and their transposes (J, I)
 * go to the ranks of I and J, which merge them into sorted rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist_internal.h"

mispc_status mispc_dist_strength_graph(mispc_context *ctx, const mispc_dist_csr *A, double theta,
                                       int block_size, mispc_dist_csr *S) {
  if (!ctx || !A || !S) return MISPC_ERR_INVALID_ARG;
  memset(S, 0, sizeof *S);
  const int bs = block_size;
  mispc_status s = MISPC_SUCCESS;
  if (!A->halo || !A->ranges)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_strength_graph: matrix not built");
  else if (A->diag.mem != MISPC_MEM_HOST)
    s = mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "mispc_dist_strength_graph: host matrices only");
  else if (bs < 1 || A->nglobal % bs || A->rstart % bs || A->rend % bs)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "block size %d must be >= 1 and divide the %lld rows and this rank's range "
                     "[%lld, %lld)",
                     bs, (long long)A->nglobal, (long long)A->rstart, (long long)A->rend);
  else if (!(theta >= 0))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "strength threshold must be >= 0, got %g", theta);
  s = mispc_dist_agree(ctx, A->comm, s);
  if (s) return s;
  int P = 0, rank = 0;
  MPI_Comm_size(A->comm, &P);
  MPI_Comm_rank(A->comm, &rank);
  const int64_t nloc = A->rend - A->rstart, ne = A->diag.nnz + A->offd.nnz;
  const int keep_all = theta == 0 || !A->diag.values || (A->offd.nnz && !A->offd.values);
  double *d = (double *)calloc((size_t)nloc + 1, sizeof(double));
  double *gd = (double *)calloc((size_t)A->nghost + 1, sizeof(double));
  int64_t *pairs = (int64_t *)malloc(sizeof(int64_t) * (size_t)(4 * ne + 2));
  int *dest = (int *)malloc(sizeof(int) * (size_t)(2 * ne + 1));
  if (!d || !gd || !pairs || !dest)
    s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in the strength graph");
  s = mispc_dist_agree(ctx, A->comm, s);
  if (!s && !keep_all) {
    /* a_ii: stored diagonal entries summed; 0 when the row stores none */
    for (int64_t i = 0; i < nloc; ++i)
      for (int64_t p = A->diag.rowptr[i]; p < A->diag.rowptr[i + 1]; ++p)
        if (A->diag.colidx[p] == i) d[i] += A->diag.values[p];
    s = mispc_halo_exchange(ctx, A->halo, d, gd, sizeof(double));
  }
  int64_t m = 0;
  for (int64_t i = 0; !s && i < nloc; ++i) {
    const int64_t I = (A->rstart + i) / bs;
    for (int b = 0; b < 2; ++b) {
      const mispc_csr *X = b ? &A->offd : &A->diag;
      for (int64_t p = X->rowptr[i]; p < X->rowptr[i + 1]; ++p) {
        const int32_t c = X->colidx[p];
        const int64_t j = b ? A->garray[c] : A->rstart + c, J = j / bs;
        if (J == I) continue;
        if (!keep_all && !(fabs(X->values[p]) > theta * sqrt(fabs(d[i] * (b ? gd[c] : d[c])))))
          continue;
        pairs[2 * m] = I, pairs[2 * m + 1] = J, ++m;
        pairs[2 * m] = J, pairs[2 * m + 1] = I, ++m;
      }
    }
  }
  if (!s) m = mispc_sort_unique_pairs(pairs, m);
  for (int64_t k = 0; !s && k < m; ++k) dest[k] = mispc_dist_owner(A->ranges, P, pairs[2 * k] * bs);
  if (!s)
    s = mispc_dist_csr_from_pairs(ctx, A->comm, A->nglobal / bs, A->rstart / bs, A->rend / bs,
                                  pairs, m, dest, S);
  free(d), free(gd), free(pairs), free(dest);
  return s;
}
