/* Internal: the Gauss-Seidel row updates of gs_host.c as host/device inline
 * functions, for the distributed sweep on the GPU (gs_dist_cuda.cu). The
 * same operations in the same order as gs_host.c's update_row and
 * update_cluster_row (read their comments); files that use them are built
 * without contraction (-ffp-contract=off, nvcc --fmad=false), so every
 * product is rounded before it is subtracted and the results agree bit for
 * bit with the host. */
#ifndef MISPC_GS_ROW_UPDATE_H
#define MISPC_GS_ROW_UPDATE_H

#include <stdint.h>

#include "mispc/hash.h" /* MISPC_HD */

/* 32 values summed as a fixed pairwise tree (gs_host.c, chunk_tree). */
MISPC_HD double gs_chunk_tree(double a[32]) {
  for (int h = 16; h >= 1; h /= 2)
    for (int l = 0; l < h; ++l) a[l] = a[l] + a[l + h];
  return a[0];
}

/* Point GS row i over a CSR (rowptr, colidx, values) whose columns index x:
 * x_i += (b_i - sum_p a_ip x_colp) w_i, storage order, rows longer than 32
 * entries in chunks of 32 summed as gs_chunk_tree. */
MISPC_HD void gs_update_row(const int64_t *rowptr, const int32_t *colidx, const double *values,
                            const double *wdiag, const double *b, double *x, int64_t i) {
  double s = b[i];
  const int64_t rb = rowptr[i], re = rowptr[i + 1];
  if (re - rb <= 32) {
    for (int64_t p = rb; p < re; ++p) {
      const double prod = values[p] * x[colidx[p]];
      s = s - prod;
    }
  } else {
    double a[32];
    int m = 0;
    for (int64_t p = rb; p < re; ++p) {
      a[m++] = values[p] * x[colidx[p]];
      if (m == 32) s = s - gs_chunk_tree(a), m = 0;
    }
    if (m) {
      for (int l = m; l < 32; ++l) a[l] = 0.0;
      s = s - gs_chunk_tree(a);
    }
  }
  const double t = s * wdiag[i];
  x[i] = x[i] + t;
}

/* Cluster GS row i of cluster row_cluster[i] (gs_host.c, update_cluster_row):
 * first the entries whose x stays fixed during the cluster's pass, in
 * storage order, then the cluster's rows already updated, in update order. */
MISPC_HD void gs_update_cluster_row(const int64_t *rowptr, const int32_t *colidx,
                                    const double *values, const int32_t *row_cluster,
                                    const double *wdiag, const double *b, double *x, int64_t i,
                                    int backward) {
  const int32_t c = row_cluster[i];
  const int64_t rb = rowptr[i], re = rowptr[i + 1];
  double s = b[i];
  /* part 0: lower (j < i inside), 1: outside or diagonal, 2: upper (j > i inside) */
  const int fixed0 = backward ? 0 : 1, fixed1 = backward ? 1 : 2;
  for (int f = 0; f < 2; ++f)
    for (int64_t p = rb; p < re; ++p) {
      const int32_t j = colidx[p];
      const int part = row_cluster[j] != c || j == i ? 1 : j < i ? 0 : 2;
      if (part != (f ? fixed1 : fixed0)) continue;
      const double prod = values[p] * x[j];
      s = s - prod;
    }
  for (int64_t k = 0; k < re - rb; ++k) {
    const int64_t p = backward ? re - 1 - k : rb + k;
    const int32_t j = colidx[p];
    if (row_cluster[j] != c || (backward ? j <= i : j >= i)) continue;
    const double prod = values[p] * x[j];
    s = s - prod;
  }
  const double t = s * wdiag[i];
  x[i] = x[i] + t;
}

#endif
