/* Tentative prolongator (per-aggregate QR of the near-null space by modified
 * Gram-Schmidt, twice; dependent columns completed by unit vectors) and
 * rigid-body modes, on the host. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "agg_backend.h"
#include "csr_build.h"

/* Columns whose norm after orthogonalisation falls to this fraction of
 * their original norm are linearly dependent on the previous ones. */
#define DROP_TOL 1e-12

/* Orthogonalises q (m entries) against the first j columns of Q, modified
 * Gram-Schmidt twice; the coefficients are added to r[0..j) when r is not
 * NULL. Returns the norm left. */
static double orthogonalise(const double *Q, int64_t m, int j, double *q, double *r) {
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

void agg_block_qr(double *Q, int64_t m, int k, double *R) {
  memset(R, 0, sizeof(double) * (size_t)(k * k));
  for (int j = 0; j < k; ++j) {
    double *q = Q + j * m, orig = 0;
    for (int64_t r = 0; r < m; ++r) orig += q[r] * q[r];
    double nrm = orthogonalise(Q, m, j, q, R + j * k); /* R[i][j], column-major */
    if (nrm > DROP_TOL * sqrt(orig)) {
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
      for (int64_t r = 0; r < m; ++r) q[r] = r == t ? 1.0 : 0.0;
      const double left = orthogonalise(Q, m, j, q, NULL);
      if (left > best_nrm) {
        best_nrm = left;
        best = t;
      }
    }
    if (best < 0) {
      for (int64_t r = 0; r < m; ++r) q[r] = 0;
      continue;
    }
    for (int64_t r = 0; r < m; ++r) q[r] = r == best ? 1.0 : 0.0;
    nrm = orthogonalise(Q, m, j, q, NULL);
    for (int64_t r = 0; r < m; ++r) q[r] /= nrm;
  }
}

mispc_status mispc_tentative_prolongator(mispc_context *ctx, const mispc_aggregates *a,
                                         int block_size, int k, const double *B, mispc_csr *P,
                                         double *Bc) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!P) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "tentative prolongator: P is NULL");
  memset(P, 0, sizeof *P);
  if (!a || a->n < 0 || a->naggs < 0 || (a->n > 0 && !a->agg))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "tentative prolongator: bad aggregates");
  if (a->mem != MISPC_MEM_HOST && a->mem != MISPC_MEM_DEVICE)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "tentative prolongator: unknown memory space");
  if (block_size < 1 || k < 1)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "tentative prolongator: block size %d and %d vectors must be >= 1",
                        block_size, k);
  if (!B && k != 1)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "tentative prolongator: B = NULL is the constant vector, k must be 1 "
                        "(got %d)",
                        k);
  const int64_t n = a->n, na = a->naggs, ndof = n * block_size, nc = na * k;
  if (nc > INT32_MAX || ndof > INT64_MAX / k)
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW,
                        "tentative prolongator: %lld coarse columns do not fit 32-bit indices",
                        (long long)nc);
  /* Labels on the host. */
  int32_t *agg = a->agg, *own = NULL;
  if (a->mem == MISPC_MEM_DEVICE) {
    own = (int32_t *)mispc_host_alloc_n(ctx, n, sizeof(int32_t), "aggregate ids");
    if (!own) return MISPC_ERR_ALLOC;
    mispc_status s = mispc_mem_copy_n(ctx, own, MISPC_MEM_HOST, a->agg, a->mem, n, sizeof(int32_t));
    if (s) {
      free(own);
      return s;
    }
    agg = own;
  }
  /* Members per aggregate in increasing node id. */
  int64_t *off = (int64_t *)calloc((size_t)na + 2, sizeof(int64_t));
  int32_t *mem = (int32_t *)mispc_host_alloc_n(ctx, n, sizeof(int32_t), "members");
  mispc_status s = (!off || !mem) ? MISPC_ERR_ALLOC : MISPC_SUCCESS;
  for (int64_t v = 0; v < n && !s; ++v)
    if (agg[v] < 0 || agg[v] >= na)
      s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                       "tentative prolongator: vertex %lld has aggregate id %d, outside [0, %lld)",
                       (long long)v, agg[v], (long long)na);
  if (!s) s = mispc_order_by_key_host(ctx, n, agg, (int32_t)na, mem, off);
  int64_t maxsize = 0;
  for (int64_t c = 0; !s && c < na; ++c)
    if (off[c + 1] - off[c] > maxsize) maxsize = off[c + 1] - off[c];
  if (!s) s = mispc_csr_alloc(ctx, MISPC_MEM_HOST, ndof, nc, ndof * k, 1, P);
  if (s) {
    if (s == MISPC_ERR_ALLOC) mispc_seterr(ctx, s, "out of host memory in tentative prolongator");
    free(off);
    free(mem);
    free(own);
    return s;
  }
  for (int64_t i = 0; i <= ndof; ++i) P->rowptr[i] = i * k;
  const int bs = block_size;
  int nt = mispc_host_threads(ctx);
  int failed = 0;
#pragma omp parallel reduction(| : failed) num_threads(nt)
  {
    /* Q: the aggregate's block of B, column-major (m dofs x k), then Q. */
    double *Q = (double *)malloc(sizeof(double) * (size_t)(maxsize * bs * k + 1));
    double *R = (double *)malloc(sizeof(double) * (size_t)(k * k));
    if (!Q || !R) failed = 1;
#pragma omp for schedule(dynamic, 64)
    for (int64_t c = 0; c < na; ++c) {
      if (!Q || !R) continue;
      const int64_t m = (off[c + 1] - off[c]) * bs;
      for (int j = 0; j < k; ++j)
        for (int64_t p = off[c], r = 0; p < off[c + 1]; ++p)
          for (int d = 0; d < bs; ++d, ++r)
            Q[j * m + r] = B ? B[(int64_t)j * ndof + (int64_t)mem[p] * bs + d] : 1.0;
      agg_block_qr(Q, m, k, R);
      for (int64_t p = off[c], r = 0; p < off[c + 1]; ++p)
        for (int d = 0; d < bs; ++d, ++r) {
          int64_t row = (int64_t)mem[p] * bs + d;
          for (int j = 0; j < k; ++j) {
            P->colidx[row * k + j] = (int32_t)(c * k + j);
            P->values[row * k + j] = Q[j * m + r];
          }
        }
      if (Bc)
        for (int j = 0; j < k; ++j)
          for (int i = 0; i < k; ++i) Bc[(int64_t)j * nc + c * k + i] = R[j * k + i];
    }
    free(Q);
    free(R);
  }
  free(off);
  free(mem);
  free(own);
  if (failed) {
    mispc_csr_free(ctx, P);
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in tentative prolongator");
  }
  return MISPC_SUCCESS;
}

mispc_status mispc_rigid_body_modes(mispc_context *ctx, int64_t nnodes, const double *xyz,
                                    double *B) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (nnodes < 0 || (nnodes > 0 && (!xyz || !B)))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_rigid_body_modes: negative size or NULL array");
  const int64_t ndof = 3 * nnodes;
  for (int64_t i = 0; i < nnodes; ++i) {
    double x = xyz[3 * i], y = xyz[3 * i + 1], z = xyz[3 * i + 2];
    /* translations e_x, e_y, e_z; rotations about x, y, z */
    const double mode[6][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, -z, y}, {z, 0, -x}, {-y, x, 0}};
    for (int j = 0; j < 6; ++j)
      for (int d = 0; d < 3; ++d) B[j * ndof + 3 * i + d] = mode[j][d];
  }
  return MISPC_SUCCESS;
}
