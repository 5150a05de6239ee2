/* GPU Gauss-Seidel numeric setup: the values of the sweep-ordered copy,
 * omega over its diagonal and the chains' values, gathered from A where the
 * symbolic setup found them, checking the diagonal (gs_cuda.cuh). */
#include <algorithm>

#include "gs_cuda.cuh"

namespace {

/* What copy_values writes and reads besides A. */
struct ValuesOut {
  const int64_t *prow, *fptr, *bptr;
  const int32_t *psrc, *pdiag_at, *fsrc, *bsrc, *fcol, *bcol;
  double *pval, *pwdiag, *fval, *bval;
  double omega;
  bool abs; /* fsrc / bsrc hold entries of A (CopyOut) */
};

/* Entries a lane of copy_values gathers at once (its loads of one level
 * issued together, not one entry's chain of loads after another). */
constexpr int kGatherBatch = 4;

/* The chain values of one row of the copy, forward (fptr ..) and backward
 * (bptr ..) together, kGatherBatch entries of each direction at once: from
 * their entries of A (v.abs; two dependent loads an entry), else from the
 * rows of A that the entries name (perm of their sweep positions, rowptr,
 * the offset: four dependent loads an entry). */
__device__ __forceinline__ void chain_values(int64_t q, int g, int W, const ValuesOut &v,
                                             const int32_t *perm, const int64_t *rowptr,
                                             const double *val) {
  constexpr int B = kGatherBatch;
  const int64_t fb = v.fptr[q], fe = v.fptr[q + 1], bb = v.bptr[q], be = v.bptr[q + 1];
  for (int64_t o = g; o < fe - fb || o < be - bb; o += (int64_t)W * B) {
    /* entry u: forward (u < B) or backward, its position, and whether it
     * is in the row's chain */
    const auto pos = [&](int u) { return (u < B ? fb : bb) + o + (int64_t)(u % B) * W; };
    const auto in = [&](int u) { return pos(u) < (u < B ? fe : be); };
    int64_t src[2 * B];
    if (v.abs) {
#pragma unroll
      for (int u = 0; u < 2 * B; ++u) src[u] = in(u) ? (u < B ? v.fsrc : v.bsrc)[pos(u)] : -1;
    } else {
#pragma unroll
      for (int u = 0; u < 2 * B; ++u) /* the rows, then perm, then rowptr */
        src[u] = in(u) ? (u < B ? v.fcol : v.bcol)[pos(u)] : -1;
#pragma unroll
      for (int u = 0; u < 2 * B; ++u) src[u] = src[u] >= 0 ? perm[src[u]] : -1;
#pragma unroll
      for (int u = 0; u < 2 * B; ++u)
        src[u] = src[u] >= 0 ? rowptr[src[u]] + (u < B ? v.fsrc : v.bsrc)[pos(u)] : -1;
    }
#pragma unroll
    for (int u = 0; u < 2 * B; ++u)
      if (src[u] >= 0) (u < B ? v.fval : v.bval)[pos(u)] = val[src[u]];
  }
}

/* The numeric setup: a group per row q gathers the values of row perm[q]
 * of A into the copy (cluster GS: by psrc; point GS: the row unchanged),
 * omega over its diagonal into pwdiag and its chains' values, checking the
 * diagonal (gs_diag_kind): *first_bad = the least (row << 3 | kind) of the
 * rows whose a_ii is not usable. A lane's entries go kGatherBatch at a
 * time, their loads issued together. */
template <int W>
__global__ void __launch_bounds__(kBlock, kCopyBlocks)
    copy_values(int64_t n, const int32_t *perm, const int64_t *rowptr, const double *val,
                ValuesOut v, int require_positive, unsigned long long *first_bad) {
  constexpr int B = kGatherBatch;
  mispc_for_each_row<W>(n, [&](int64_t q, int g, unsigned) {
    const int32_t i = perm[q];
    const int64_t base = rowptr[i], b = v.prow[q], e = v.prow[q + 1];
    for (int64_t d0 = b + g; d0 < e; d0 += (int64_t)W * B) {
      int64_t src[B];
#pragma unroll
      for (int u = 0; u < B; ++u) {
        const int64_t d = d0 + (int64_t)u * W;
        src[u] = d < e ? base + (v.psrc ? v.psrc[d] : d - b) : -1;
      }
      double x[B];
#pragma unroll
      for (int u = 0; u < B; ++u) x[u] = src[u] >= 0 ? val[src[u]] : 0.0;
#pragma unroll
      for (int u = 0; u < B; ++u)
        if (src[u] >= 0) v.pval[d0 + (int64_t)u * W] = x[u];
    }
    if (v.fptr) chain_values(q, g, W, v, perm, rowptr, val);
    if (g == 0) {
      const int32_t at = v.pdiag_at[q];
      double w;
      const int kind =
          gs_diag_kind(at >= 0, at >= 0 ? val[base + at] : 0.0, require_positive, v.omega, &w);
      v.pwdiag[q] = w;
      if (kind) atomicMin(first_bad, ((unsigned long long)i << 3) | (unsigned long long)kind);
    }
  });
}
} // namespace

static ValuesOut values_out(const mispc_gs *gs) {
  const bool cluster = gs->opt.kind == MISPC_GS_CLUSTER;
  ValuesOut v = {gs->prow, cluster ? gs->fptr : NULL, gs->bptr};
  v.psrc = gs->psrc, v.pdiag_at = gs->pdiag_at, v.fsrc = gs->fsrc, v.bsrc = gs->bsrc;
  v.fcol = gs->fcol, v.bcol = gs->bcol;
  v.pval = gs->pval, v.pwdiag = gs->pwdiag, v.omega = gs->opt.omega, v.fval = gs->fval,
  v.bval = gs->bval, v.abs = gs->chain_abs;
  return v;
}

extern "C" mispc_status gs_permute_values_cuda(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A,
                                               int64_t *bad_row, int *bad_kind) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  unsigned long long *d = NULL, *h = NULL;
  MISPC_TRY(mispc_pinned_scratch(ctx, sizeof *h, (void **)&h));
  MISPC_TRY(mispc_scratch_alloc(ctx, sizeof *d, (void **)&d, "diagonal check"));
  cudaMemsetAsync(d, 0xff, sizeof *d, s);
  if (gs->n > 0) {
    const ValuesOut v = values_out(gs);
    /* a lane per kGatherBatch entries of the mean row, at most 16 (H100,
     * numeric ms with 2 / 4 / 8 / 16 / 32 lanes after the batching,
     * 2026-11-24: Laplace3D_100 cluster 0.14 / 0.19 / 0.29 / 0.49 / 0.88,
     * point 0.10 / 0.12 / 0.16 / 0.26 / 0.45; Elasticity3D_60 cluster 2.58
     * / 1.45 / 0.77 / 0.72 / 0.84, point 1.59 / 1.02 / 0.40 / 0.39 / 0.43).
     * Before the batching: half the mean row (Laplace3D_100 point 0.15 ->
     * 0.13 ms, cluster 0.26 -> 0.19 with 4 lanes instead of 8;
     * Elasticity3D_60 cluster 1.00 -> 0.90 with 16 instead of 32) */
    const double mean = gs->n ? (double)A->nnz / (double)gs->n : 0.0;
    const int w = std::min(16, mispc_lanes_for_mean(mean / kGatherBatch));
    mispc_with_lanes(w, [&](auto lanes) {
      constexpr int W = decltype(lanes)::value;
      copy_values<W><<<mispc_device_grid(ctx, (long long)W * gs->n, kBlock), kBlock, 0, s>>>(
          gs->n, gs->perm, A->rowptr, A->values, v, gs->opt.require_positive_diagonal, d);
      return 0;
    });
  }
  cudaMemcpyAsync(h, d, sizeof *h, cudaMemcpyDeviceToHost, s);
  /* synchronous: a caller may change the context's stream before the first
   * apply (the PETSc plugin follows PETSc's current stream), and a copy left
   * in flight on the old stream would race with it */
  mispc_status st = mispc_sync(ctx, s, "Gauss-Seidel values");
  mispc_scratch_free(ctx, d);
  MISPC_TRY(st);
  *bad_row = *h == ~0ull ? -1 : (int64_t)(*h >> 3);
  *bad_kind = *h == ~0ull ? 0 : (int)(*h & 7);
  if (gs_exact(gs)) return gs_exact_values_cuda(ctx, gs, A, bad_row, bad_kind);
  return MISPC_SUCCESS;
}
