/* Tentative prolongator (per-aggregate QR of the near-null space by modified
 * Gram-Schmidt, twice; dependent columns completed by unit vectors) and
 * rigid-body modes, on the host. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "agg_backend.h"
#include "block_qr.h"
#include "csr_build.h"

void agg_block_qr(double *Q, int64_t m, int k, double *R) {
  block_qr(Q, m, k, R);
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
  if (a->mem == MISPC_MEM_DEVICE) {
    int64_t bad = -1;
    mispc_status s = agg_tentative_cuda(ctx, a, block_size, k, B, P, Bc, &bad);
    if (s || bad < 0) return s;
    int32_t label = 0;
    s = mispc_memcpy(ctx, &label, MISPC_MEM_HOST, a->agg + bad, MISPC_MEM_DEVICE, sizeof label);
    if (s) return s;
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "tentative prolongator: vertex %lld has aggregate id %d, outside [0, %lld)",
                        (long long)bad, label, (long long)na);
  }
  const int32_t *agg = a->agg;
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
      block_qr_aggregate(c, mem + off[c], off[c + 1] - off[c], bs, k, B, ndof, Q, R, P->colidx,
                         P->values, Bc, nc);
    }
    free(Q);
    free(R);
  }
  free(off);
  free(mem);
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
