/* The automatic strength threshold (mispc_strength_auto in aggregation.h):
 * one pass for the diagonal scales r_i, one for each row's strongest
 * coupling (theta), one for the strongest coupling at or below theta
 * (weak_max). Minima and maxima only, so any thread count gives the same
 * bits; the CUDA backend (graphs_cuda.cu) and the distributed version
 * (strength_auto_dist.c) use agg_backend.h's arithmetic. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "agg_backend.h"

mispc_status agg_strength_auto_host(mispc_context *ctx, const mispc_csr *A, double *theta,
                                    double *weak_max) {
  const int64_t n = A->nrows;
  const int nt = mispc_host_threads(ctx);
  double *r = (double *)malloc(sizeof(double) * (size_t)(n + 1));
  if (!r) return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for the diagonal scales");
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t i = 0; i < n; ++i) r[i] = agg_strength_scale(agg_diag_sum(A, i));
  double mn = INFINITY;
#pragma omp parallel for schedule(static) num_threads(nt) reduction(min : mn)
  for (int64_t i = 0; i < n; ++i) {
    double m = 0, w = -1;
    agg_strength_row(A->colidx, A->values, A->rowptr[i], A->rowptr[i + 1], 1, i, r, r[i], -INFINITY,
                     &m, &w);
    if (m > 0 && m < mn) mn = m;
  }
  const double th = agg_strength_theta(mn);
  double w = -1;
#pragma omp parallel for schedule(static) num_threads(nt) reduction(max : w)
  for (int64_t i = 0; i < n; ++i) {
    double m = 0;
    agg_strength_row(A->colidx, A->values, A->rowptr[i], A->rowptr[i + 1], 1, i, r, r[i], th, &m,
                     &w);
  }
  free(r);
  *theta = th;
  *weak_max = w;
  return MISPC_SUCCESS;
}

mispc_status mispc_strength_auto(mispc_context *ctx, const mispc_csr *A, double *theta,
                                 double *weak_max) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!theta || !weak_max)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_strength_auto: output is NULL");
  *theta = 0;
  *weak_max = -1;
  MISPC_TRY(mispc_check_square_matrix(ctx, A, "automatic strength threshold"));
  MISPC_TRY(mispc_csr_check(ctx, A, MISPC_CHECK_SQUARE | MISPC_CHECK_INDICES));
  if (!A->values || A->nrows == 0) return MISPC_SUCCESS;
  return MISPC_ON(A->mem == MISPC_MEM_DEVICE, agg_strength_auto, ctx, A, theta, weak_max);
}
