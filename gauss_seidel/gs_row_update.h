/* Internal: the Gauss-Seidel row updates, the definition of the arithmetic
 * every backend reproduces bit for bit: the host sweeps (gs_host.c, over a
 * sweep-ordered copy) and the GPU kernels (gs_cuda_sweep.cu, by lanes and
 * push chains; the distributed GPU sweep runs them color by color). Files
 * that use them are built without contraction
 * (-ffp-contract=off, nvcc --fmad=false): every product is rounded before it
 * is subtracted, as the GPU kernels' __dmul_rn / __dsub_rn do. */
#ifndef MISPC_GS_ROW_UPDATE_H
#define MISPC_GS_ROW_UPDATE_H

#include <stdint.h>

#include "mispc/hash.h" /* MISPC_HD */

/* The sum of 32 values as a fixed pairwise tree: a[l] + a[l + h] for h = 16,
 * 8, 4, 2, 1. A GPU group of any width forms the same tree (partners h >= W
 * apart inside a lane, closer ones by xor shuffles; a + b == b + a). */
MISPC_HD double gs_chunk_tree(double a[32]) {
  for (int h = 16; h >= 1; h /= 2)
    for (int l = 0; l < h; ++l) a[l] = a[l] + a[l + h];
  return a[0];
}

/* s minus the products of entries p .. e-1 in chunks of 32 (storage
 * order), each summed as gs_chunk_tree with zeros after e. */
MISPC_HD double gs_sub_chunks(double s, const int32_t *colidx, const double *values,
                              const double *x, int64_t p, int64_t e) {
  for (; p < e; p += 32) {
    double a[32];
    for (int l = 0; l < 32; ++l) a[l] = p + l < e ? values[p + l] * x[colidx[p + l]] : 0.0;
    s = s - gs_chunk_tree(a);
  }
  return s;
}

/* Point GS row i over a CSR (rowptr, colidx, values) whose columns index x
 * and whose rows hold first the entries of columns of earlier colors (the
 * lower part, rowptr[i] .. rowmid[i]-1), then the others (the diagonal
 * and later colors), each part in A's storage order: x_i = x_i + (b_i -
 * sum_p a_ip x_colp) w_i, w_i = omega / a_ii formed at the numeric setup
 * (as PETSc's MatSOR keeps omega / a_ii). The sum runs in that order, one
 * entry after another, for rows of at most 32 entries; longer rows
 * subtract each part in chunks of 32 entries (gs_sub_chunks), so a GPU
 * group forms a long row's sum in a few dependent steps instead of one
 * per entry. Lower part first: a forward pass from x = 0 reads only it
 * (the others' x are 0) and its sum s_i is where the backward pass right
 * after goes on (the lower neighbours' x have not changed in between), so
 * a symmetric sweep from x = 0 reads each entry once, as PETSc's MatSOR
 * with SOR_ZERO_INITIAL_GUESS does. */
MISPC_HD void gs_update_row(const int64_t *rowptr, const int64_t *rowmid, const int32_t *colidx,
                            const double *values, const double *wdiag, const double *b, double *x,
                            int64_t i) {
  double s = b[i];
  const int64_t rb = rowptr[i], rm = rowmid[i], re = rowptr[i + 1];
  if (re - rb <= 32) {
    for (int64_t p = rb; p < re; ++p) {
      const double prod = values[p] * x[colidx[p]];
      s = s - prod;
    }
  } else {
    s = gs_sub_chunks(s, colidx, values, x, rb, rm);
    s = gs_sub_chunks(s, colidx, values, x, rm, re);
  }
  const double t = s * wdiag[i];
  x[i] = x[i] + t;
}

/* Cluster GS, row i of cluster row_cluster[i] in a forward (backward = 0)
 * or backward sweep. s = b_i minus, one entry after another: first the
 * entries whose x stays fixed while the cluster is swept, then the
 * cluster's rows already updated in this pass, in the order they were
 * updated (forward: j < i increasing; backward: j > i decreasing). The
 * fixed entries, each part in storage order: forward, those outside the
 * cluster of earlier colors than i's (E), the diagonal and those outside
 * of later colors (D), the cluster's later rows j > i; backward, E, the
 * cluster's earlier rows j < i, then D. Rows are sorted, so storage order
 * is column order, and the earlier rows' order is the order they are
 * updated forward. A forward pass from x = 0 thus subtracts E and the
 * earlier rows (the others' x are still 0), which is how a backward pass
 * begins: a symmetric sweep from x = 0 may go on in its backward pass from
 * each row's forward sum with D and the later rows only, and get the same
 * bits (neighbouring clusters have different colors, and those of earlier
 * colors, like the earlier rows, have not changed in between). Columns
 * that are no row's (the distributed sweep's ghosts) have a row_cluster of
 * their own (-1) and their owner's color. The one-process GPU forms the
 * fixed part for all rows of a color at once and the rest by pushing each
 * new x_j into the later rows' sums (gs_cuda_sweep.cu, sweep_clusters):
 * the same subtractions in the same order. */
MISPC_HD void gs_update_cluster_row(const int64_t *rowptr, const int32_t *colidx,
                                    const double *values, const int32_t *row_cluster,
                                    const int32_t *color, const double *wdiag, const double *b,
                                    double *x, int64_t i, int backward) {
  const int32_t c = row_cluster[i];
  const int64_t rb = rowptr[i], re = rowptr[i + 1];
  double s = b[i];
  /* 0 earlier rows, 1 D, 2 later rows, 3 E; the fixed parts in order */
  const int fwd[3] = {3, 1, 2}, bwd[3] = {3, 0, 1};
  for (int f = 0; f < 3; ++f)
    for (int64_t p = rb; p < re; ++p) {
      const int32_t j = colidx[p];
      int part = row_cluster[j] != c || j == i ? 1 : j < i ? 0 : 2;
      if (part == 1 && j != i && color[j] < color[i]) part = 3;
      if (part != (backward ? bwd[f] : fwd[f])) continue;
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
