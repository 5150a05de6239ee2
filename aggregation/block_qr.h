/* Q R of one aggregate's block of the near-null space, written once for the
 * host (prolongator.c, coarse_dist.c through agg_block_qr) and the GPU
 * (prolongator_cuda.cu, one thread an aggregate): the same source, compiled
 * without contracted multiply-adds (-ffp-contract=off, --fmad=false), so P0
 * and the coarse near-null space are the same bits on both. sqrt and the
 * division are correctly rounded in C and in CUDA. */
#ifndef MISPC_BLOCK_QR_H
#define MISPC_BLOCK_QR_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define BLOCK_QR_FN __host__ __device__ static inline
#else
#define BLOCK_QR_FN static inline
#endif

/* Columns whose norm after orthogonalisation falls to this fraction of
 * their original norm are linearly dependent on the previous ones. */
#define BLOCK_QR_DROP_TOL 1e-12

/* Orthogonalises q (m entries) against the first j columns of Q, modified
 * Gram-Schmidt twice; the coefficients are added to r[0..j) when r is not
 * NULL. Returns the norm left. */
BLOCK_QR_FN double block_qr_orthogonalise(const double *Q, int64_t m, int j, double *q, double *r) {
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < j; ++i) {
      const double *qi = Q + i * m;
      double dot = 0;
      for (int64_t t = 0; t < m; ++t) dot += qi[t] * q[t];
      for (int64_t t = 0; t < m; ++t) q[t] -= dot * qi[t];
      if (r) r[i] += dot;
    }
  double nrm = 0;
  for (int64_t t = 0; t < m; ++t) nrm += q[t] * q[t];
  return sqrt(nrm);
}

/* q = e_t (m entries). */
BLOCK_QR_FN void block_qr_unit(double *q, int64_t m, int64_t t) {
  for (int64_t r = 0; r < m; ++r) q[r] = r == t ? 1.0 : 0.0;
}

/* Q (m x k, column-major, Q[j * m + r]) becomes Q of its Q R; R (k x k,
 * column-major, R[j * k + i]) receives R. */
BLOCK_QR_FN void block_qr(double *Q, int64_t m, int k, double *R) {
  for (int t = 0; t < k * k; ++t) R[t] = 0;
  for (int j = 0; j < k; ++j) {
    double *q = Q + j * m, orig = 0;
    for (int64_t r = 0; r < m; ++r) orig += q[r] * q[r];
    double nrm = block_qr_orthogonalise(Q, m, j, q, R + j * k); /* R[i][j] */
    if (nrm > BLOCK_QR_DROP_TOL * sqrt(orig)) {
      for (int64_t r = 0; r < m; ++r) q[r] /= nrm;
      R[j * k + j] = nrm;
      continue;
    }
    /* Dependent on the previous columns (B q_j = sum R_ij q_i already):
     * R_jj = 0, and q_j completes the basis with the unit vector e_t that
     * keeps the most norm after orthogonalisation (smallest t on ties), so
     * that P0 has no zero column (which would leave a zero row and column,
     * and a zero diagonal, in the coarse operator) as long as the aggregate
     * has more dofs than earlier columns. Else the column stays zero. */
    R[j * k + j] = 0;
    int64_t best = -1;
    double best_nrm = 1e-6; /* some e_t keeps at least sqrt((m - j) / m) */
    for (int64_t t = 0; t < m && j < m; ++t) {
      block_qr_unit(q, m, t);
      const double left = block_qr_orthogonalise(Q, m, j, q, (double *)0);
      if (left > best_nrm) {
        best_nrm = left;
        best = t;
      }
    }
    if (best < 0) {
      for (int64_t r = 0; r < m; ++r) q[r] = 0;
      continue;
    }
    block_qr_unit(q, m, best);
    nrm = block_qr_orthogonalise(Q, m, j, q, (double *)0);
    for (int64_t r = 0; r < m; ++r) q[r] /= nrm;
  }
}

/* Aggregate c of the tentative prolongator, members mem[0..nm) (node ids,
 * increasing): Q (scratch of nm * bs * k) gets their rows of B (k columns of
 * ndof entries, column-major; NULL: the constant), is factored, and becomes
 * P0's rows (k entries each, columns c*k .. c*k+k-1); R (k x k) receives R,
 * and Bc (nc x k column-major), if not NULL, its rows c*k .. c*k+k-1. */
BLOCK_QR_FN void block_qr_aggregate(int64_t c, const int32_t *mem, int64_t nm, int bs, int k,
                                    const double *B, int64_t ndof, double *Q, double *R,
                                    int32_t *colidx, double *values, double *Bc, int64_t nc) {
  const int64_t m = nm * bs;
  for (int j = 0; j < k; ++j)
    for (int64_t p = 0, r = 0; p < nm; ++p)
      for (int d = 0; d < bs; ++d, ++r)
        Q[j * m + r] = B ? B[(int64_t)j * ndof + (int64_t)mem[p] * bs + d] : 1.0;
  block_qr(Q, m, k, R);
  for (int64_t p = 0, r = 0; p < nm; ++p)
    for (int d = 0; d < bs; ++d, ++r) {
      const int64_t row = (int64_t)mem[p] * bs + d;
      for (int j = 0; j < k; ++j) {
        colidx[row * k + j] = (int32_t)(c * k + j);
        values[row * k + j] = Q[j * m + r];
      }
    }
  if (Bc)
    for (int j = 0; j < k; ++j)
      for (int i = 0; i < k; ++i) Bc[(int64_t)j * nc + c * k + i] = R[j * k + i];
}

#endif
