/* Smoothed-aggregation operators from sparse products: the smoothed
 * prolongator P = P0 - omega D^-1 A P0 and the Galerkin coarse operator
 * Ac = P^T (A P). Built with -ffp-contract=off (the row update's product is
 * rounded, as galerkin_cuda.cu's __dmul_rn), so host and GPU agree bit for
 * bit. */
#include <math.h>
#include <string.h>

#include "agg_backend.h"
#include "csr_build.h"

static mispc_status same_space(mispc_context *ctx, const mispc_csr *A, const mispc_csr *P,
                               const char *what) {
  if (!A || !P) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: NULL matrix", what);
  if (A->nrows != A->ncols)
    return mispc_seterr(ctx, MISPC_ERR_NOT_SQUARE, "%s: A is %lld x %lld, not square", what,
                        (long long)A->nrows, (long long)A->ncols);
  if (A->ncols != P->nrows)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: A has %lld columns, P %lld rows", what,
                        (long long)A->ncols, (long long)P->nrows);
  return MISPC_SUCCESS;
}

mispc_status mispc_galerkin_product(mispc_context *ctx, const mispc_csr *A, const mispc_csr *P,
                                    mispc_csr *Ac) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!Ac) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "Galerkin product: output is NULL");
  memset(Ac, 0, sizeof *Ac);
  MISPC_TRY(same_space(ctx, A, P, "Galerkin product"));
  mispc_csr Pt = {0}, AP = {0};
  double t = mispc_wtime();
  /* A and P's indices are checked by the first product; P^T and A P are
   * made here, so the other calls skip that pass */
  mispc_status s = mispc_csr_multiply(ctx, A, P, &AP);
  mispc_log_phase(ctx, P->mem, &t, "Galerkin product: A P");
  if (!s) s = mispc_csr_transpose_trusted(ctx, P, &Pt);
  mispc_log_phase(ctx, P->mem, &t, "Galerkin product: P^T");
  if (!s) s = mispc_csr_multiply_trusted(ctx, &Pt, &AP, Ac);
  mispc_log_phase(ctx, P->mem, &t, "Galerkin product: P^T (A P)");
  mispc_csr_free(ctx, &Pt);
  mispc_csr_free(ctx, &AP);
  return s;
}

/* W (= A P0, sorted rows) becomes P: row i scaled by -omega / a_ii, then P0's
 * entries added (each is in W's row: A has its diagonal). *bad: the first row
 * whose diagonal is missing, zero or not finite (-1: none). */
static void smooth_rows_host(const mispc_csr *A, const mispc_csr *P0, double omega, mispc_csr *W,
                             int64_t *bad) {
  int64_t first = A->nrows;
#pragma omp parallel for schedule(static) reduction(min : first)
  for (int64_t i = 0; i < A->nrows; ++i) {
    double d = 0;
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e)
      if (A->colidx[e] == i) {
        d = A->values[e];
        break;
      }
    if (!(d != 0) || !isfinite(d)) {
      if (i < first) first = i;
      continue;
    }
    const double s = omega / d;
    const int64_t b = W->rowptr[i], e = W->rowptr[i + 1];
    for (int64_t q = b; q < e; ++q) W->values[q] = -(s * W->values[q]);
    for (int64_t p = P0->rowptr[i]; p < P0->rowptr[i + 1]; ++p) {
      const int64_t at = mispc_lower_bound_i32(W->colidx, b, e, P0->colidx[p]);
      W->values[at] = P0->values[p] + W->values[at];
    }
  }
  *bad = first < A->nrows ? first : -1;
}

mispc_status mispc_smooth_prolongator(mispc_context *ctx, const mispc_csr *A, const mispc_csr *P0,
                                      double omega, mispc_csr *P) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!P) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "prolongator smoothing: output is NULL");
  memset(P, 0, sizeof *P);
  MISPC_TRY(same_space(ctx, A, P0, "prolongator smoothing"));
  if (!isfinite(omega))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "prolongator smoothing: omega %g", omega);
  mispc_csr W = {0};
  MISPC_TRY(mispc_csr_multiply(ctx, A, P0, &W));
  int64_t bad = -1;
  mispc_status s = MISPC_SUCCESS;
  if (W.mem == MISPC_MEM_DEVICE)
    s = agg_smooth_rows_cuda(ctx, A, P0, omega, &W, &bad);
  else
    smooth_rows_host(A, P0, omega, &W, &bad);
  if (!s && bad >= 0)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "prolongator smoothing: diagonal entry of row %lld is missing, zero or not "
                     "finite (D^-1 is needed)",
                     (long long)bad);
  if (s) {
    mispc_csr_free(ctx, &W);
    return s;
  }
  *P = W;
  return MISPC_SUCCESS;
}
