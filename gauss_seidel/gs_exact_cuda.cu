/* GPU exact cluster solves (gs_exact.h) on the sweep-ordered copy
 * (gs->perm, gs->pcl; vectors in sweep order, bp / xp): a thread a cluster
 * for the pattern and factors; a color's solve is its outside sums a thread
 * a row, then the chains a thread a cluster (a warp where the factors are
 * dense), or, where the factors are sparse, both in one launch (exact_fused
 * for clusters of at most 32 rows, exact_line_staged for longer ones). An
 * apply's launches are one CUDA graph (gs_cuda_sweep.cu, enqueue_apply).
 * Built with --fmad=false (CMakeLists.txt), as gs_exact_host.c is with
 * -ffp-contract=off: the same bits on both. A cluster's rows wait on each
 * other; the clusters of a color run in parallel. */
#include "gs_cuda.cuh"

namespace {

__global__ void exact_count(int64_t nc, const int64_t *pcl, const int64_t *rowptr,
                            const int32_t *colidx, int64_t nrows, const int32_t *row_cluster,
                            const int32_t *perm, const int32_t *iperm, int64_t *ocount,
                            int32_t *first, int64_t *ecount) {
  const int64_t m = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (m == 0) ocount[nrows] = ecount[nrows] = 0;
  if (m < nc)
    gs_exact_count(rowptr, colidx, nrows, row_cluster, perm, iperm, pcl[m], pcl[m + 1], ocount,
                   first, ecount);
}

__global__ void exact_fill(int64_t nc, const int64_t *pcl, const int64_t *rowptr,
                           const int32_t *colidx, int64_t nrows, const int32_t *row_cluster,
                           const int32_t *perm, const int32_t *iperm, const int64_t *optr,
                           int32_t *ocol, int32_t *osrc) {
  const int64_t m = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (m < nc)
    gs_exact_fill(rowptr, colidx, nrows, row_cluster, perm, iperm, pcl[m], pcl[m + 1], optr, ocol,
                  osrc);
}

/* *bad: the least (row << 3 | kind) of a failed factor */
__global__ void exact_factor(int64_t nc, const int64_t *pcl, const int64_t *rowptr,
                             const int32_t *colidx, const double *values, int64_t nrows,
                             const int32_t *row_cluster, const int32_t *perm, const int32_t *iperm,
                             struct gs_exact_lu e, int require_positive, unsigned long long *bad) {
  const int64_t m = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (m >= nc) return;
  const uint64_t r =
      gs_exact_factor(rowptr, colidx, values, nrows, row_cluster, perm, iperm, pcl[m], pcl[m + 1],
                      e.first, e.eptr, e.optr, e.osrc, e.oval, e.lu, require_positive);
  if (r) atomicMin(bad, (unsigned long long)perm[(r - 1) / 8] << 3 | (r - 1) % 8);
}

/* Step 1 over the rows q0 .. q1 - 1 of one color: a thread a row. */
__global__ void exact_outside(int64_t q0, int64_t q1, struct gs_exact_lu e, const double *bp,
                              double *xp) {
  const int64_t q = q0 + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (q < q1) xp[q] = gs_exact_outside(q, NULL, e.optr, e.ocol, e.oval, bp, xp);
}

/* Step 2 over the clusters order[k0 .. k1) of one color: a thread a cluster. */
__global__ void exact_chain(int64_t k0, int64_t k1, const int64_t *pcl, const int32_t *perm,
                            struct gs_exact_lu e, double *xp, ApplyIO io) {
  const int64_t m = k0 + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (m < k1)
    gs_exact_chain(pcl[m], pcl[m + 1], perm, e.first, e.eptr, e.lu, xp + pcl[m], io.get_x());
}

/* Steps 1 and 2 in one launch, for small clusters (kFusedRows rows at
 * most): a group of G lanes a cluster forms its rows' outside sums (a lane
 * a row), then the group's first lane walks the chain. A color's outside
 * sums read only other colors' rows and the chains write only their own,
 * so one launch gives the two launches' bits, with half the launches of an
 * apply (each a drain of the GPU between colors). */
template <int G>
__global__ void exact_fused(int64_t k0, int64_t k1, const int64_t *pcl, const int32_t *perm,
                            struct gs_exact_lu e, const double *bp, double *xp, ApplyIO io) {
  const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  const int64_t m = k0 + t / G;
  const int lane = (int)(t % G);
  int64_t q0 = 0, q1 = 0;
  if (m < k1) q0 = pcl[m], q1 = pcl[m + 1];
  for (int64_t q = q0 + lane; q < q1; q += G)
    xp[q] = gs_exact_outside(q, NULL, e.optr, e.ocol, e.oval, bp, xp);
  __syncwarp(); /* every lane of the warp (groups do not straddle warps) */
  if (lane == 0 && m < k1) gs_exact_chain(q0, q1, perm, e.first, e.eptr, e.lu, xp + q0, io.get_x());
}

/* Shared bytes a cluster of s rows and nv factor values takes in
 * exact_line_staged: the values, the rows' values in the chain, their
 * places in the values (64-bit, as gs_exact_chain reads them) and first
 * columns. */
__host__ __device__ inline int64_t line_bytes_of(int64_t s, int64_t nv) {
  return nv * 8 + s * 8 + s * 8 + s * 4;
}

/* Long chains with sparse factors (lines), one launch a color: a warp a
 * cluster forms its rows' outside sums (a lane a row) into shared memory
 * and stages its factor, places and first columns there, then its first
 * lane walks the chain with gs_exact_chain on the staged copy (the same
 * function on the same values: the same bits), each row's loads from
 * shared memory instead of global memory (a thread walking a 300-row line
 * in global memory took about 0.7 us a row on an H200: the loads it
 * issues a row ahead do not cover a global load's latency). */
__global__ void exact_line_staged(int64_t k0, const int64_t *pcl, const int32_t *perm,
                                  struct gs_exact_lu e, const double *bp, double *xp, ApplyIO io) {
  extern __shared__ double sm[];
  const int64_t m = k0 + blockIdx.x;
  const int lane = threadIdx.x;
  const int64_t q0 = pcl[m], s = pcl[m + 1] - q0;
  const int64_t e0 = e.eptr[q0], nv = e.eptr[q0 + s] - e0;
  double *lu = sm, *xc = sm + nv;
  int64_t *es = (int64_t *)(xc + s);
  int32_t *fs = (int32_t *)(es + s);
  for (int64_t t = lane; t < nv; t += 32) lu[t] = e.lu[e0 + t];
  for (int64_t t = lane; t < s; t += 32) {
    xc[t] = gs_exact_outside(q0 + t, NULL, e.optr, e.ocol, e.oval, bp, xp);
    es[t] = e.eptr[q0 + t] - e0;
    fs[t] = e.first[q0 + t];
  }
  __syncwarp();
  if (lane == 0) gs_exact_chain(0, s, perm + q0, fs, es, lu, xc, NULL);
  __syncwarp();
  double *x_rows = io.get_x();
  for (int64_t t = lane; t < s; t += 32) {
    xp[q0 + t] = xc[t];
    if (x_rows) x_rows[perm[q0 + t]] = xc[t];
  }
}

/* Shared bytes a staged cluster of s rows and nv factor values takes (the
 * chain and the factor): the values, the rows' values in the chain, their
 * first columns and places in the values (StagedCluster). */
__host__ __device__ inline int64_t stage_bytes_of(int64_t s, int64_t nv) {
  return nv * 8 + s * 8 + s * 8;
}

/* Cluster q0 .. q0 + s - 1 in shared memory sm (stage_bytes_of), loaded by
 * the warp: its factor values (lu, from its first value e0), first columns
 * (fs) and places in lu (es); with xp, also its values in the chain (xc). */
struct StagedCluster {
  double *lu, *xc;
  int32_t *fs, *es;
};
__device__ StagedCluster stage_cluster(double *sm, const struct gs_exact_lu &e, int64_t q0,
                                       int64_t s, const double *xp, int lane) {
  const int64_t e0 = e.eptr[q0], nv = e.eptr[q0 + s] - e0;
  StagedCluster c;
  c.lu = sm, c.xc = sm + nv;
  c.fs = (int32_t *)(c.xc + s), c.es = c.fs + s;
  for (int64_t t = lane; t < nv; t += 32) c.lu[t] = e.lu[e0 + t];
  for (int64_t t = lane; t < s; t += 32) {
    if (xp) c.xc[t] = xp[q0 + t];
    c.fs[t] = e.first[q0 + t];
    c.es[t] = (int32_t)(e.eptr[q0 + t] - e0);
  }
  return c;
}

/* Step 2 with a warp a cluster, for large clusters (a thread would walk
 * s^2 / 2 values one after another): the same subtractions in the same
 * order as gs_exact_chain, by columns. Forward, for k = 0, 1, ...: y_k is
 * final once the columns before k are applied, then every later row m of
 * the envelope (first[m] <= k) subtracts L_mk y_k, each row by its lane, so
 * row m still subtracts L_mj y_j for increasing j from first[m] (the
 * row-oriented loop's order). Backward as the thread's: z_k, then the rows
 * of column k by lanes. Staged (the default where the largest cluster
 * fits, ex.stage_bytes): a block of one warp a cluster, which first loads
 * its factor, first columns, places and values into shared memory, so a
 * column's step waits on shared memory instead of a global load (H200,
 * Elasticity3D_40 on nodes, one SGS 5.21 -> 2.35 ms); else 4 clusters a
 * block of 128, read from global memory. The values go to xp and x_rows
 * at the end. */
template <bool Staged>
__global__ void exact_chain_warp(int64_t k0, int64_t k1, const int64_t *pcl, const int32_t *perm,
                                 struct gs_exact_lu e, double *xp, ApplyIO io) {
  extern __shared__ double sm[];
  const int64_t m = k0 + (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (m >= k1) return; /* a whole warp a cluster */
  const int64_t q0 = pcl[m], s = pcl[m + 1] - q0;
  const int64_t e0 = e.eptr[q0];
  /* the cluster's factor (from its first value), values, first columns
   * and places (from e0) */
  const double *lu = e.lu + e0;
  double *xc = xp + q0;
  const int32_t *fs = e.first + q0;
  const int64_t *eg = e.eptr + q0;
  int32_t *es = NULL;
  if (Staged) {
    const StagedCluster c = stage_cluster(sm, e, q0, s, xp, lane);
    lu = c.lu, xc = c.xc, fs = c.fs, es = c.es;
  }
  const auto place = [&](int64_t r) { return Staged ? (int64_t)es[r] : eg[r] - e0; };
  for (int64_t k = 0; k < s; ++k) {
    __syncwarp();
    const double y = xc[k];
    for (int64_t r = k + 1 + lane; r < s; r += 32) {
      const int64_t fr = fs[r];
      if (fr <= k) xc[r] = __dsub_rn(xc[r], __dmul_rn(lu[place(r) + (k - fr)], y));
    }
  }
  for (int64_t k = s - 1; k >= 0; --k) {
    __syncwarp();
    const int64_t fk = fs[k];
    const double *Uk = lu + place(k) + (k - fk);
    const double z = __dmul_rn(xc[k], Uk[k - fk]);
    __syncwarp();
    if (lane == 0) xc[k] = z;
    for (int64_t r = fk + lane; r < k; r += 32) xc[r] = __dsub_rn(xc[r], __dmul_rn(Uk[r - fk], z));
  }
  __syncwarp();
  double *x_rows = io.get_x();
  for (int64_t t = lane; t < s; t += 32) {
    if (Staged) xp[q0 + t] = xc[t];
    if (x_rows) x_rows[perm[q0 + t]] = xc[t];
  }
}

/* The numeric setup's first part for the staged factors: the values
 * gathered, a thread a cluster; failed[m] = 1 where cluster m's pattern
 * is not symmetric (reported in *bad as exact_factor does). */
__global__ void exact_gather(int64_t nc, const int64_t *pcl, const int64_t *rowptr,
                             const int32_t *colidx, const double *values, int64_t nrows,
                             const int32_t *row_cluster, const int32_t *perm, const int32_t *iperm,
                             struct gs_exact_lu e, uint8_t *failed, unsigned long long *bad) {
  const int64_t m = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (m >= nc) return;
  const uint64_t r =
      gs_exact_fill_values(rowptr, colidx, values, nrows, row_cluster, perm, iperm, pcl[m],
                           pcl[m + 1], e.first, e.eptr, e.optr, e.osrc, e.oval, e.lu);
  failed[m] = r != 0;
  if (r) atomicMin(bad, (unsigned long long)perm[(r - 1) / 8] << 3 | (r - 1) % 8);
}

/* gs_exact_lu_rows of cluster blockIdx.x by a warp, staged in shared
 * memory (stage_cluster, without the chain's values): right-looking, pivot m by pivot
 * m: its pivot inverted, then the rows below it finalise their L_km, then
 * every row k below subtracts L_km U_mi from its L_ki and L_im U_mk from its
 * U_ik (i between m and k) and L_km U_mk from its pivot, a lane a row. Each
 * entry gets the subtractions of the row-at-a-time loop in the same
 * (increasing m) order and the same multiply by the inverted pivot, so the
 * same bits; the first bad pivot of the cluster is reported in *bad. */
__global__ void exact_factor_staged(const int64_t *pcl, const int32_t *perm, struct gs_exact_lu e,
                                    const uint8_t *failed, int require_positive,
                                    unsigned long long *bad) {
  extern __shared__ double sm[];
  const int lane = threadIdx.x;
  const int64_t c = blockIdx.x;
  if (failed[c]) return; /* the whole block */
  const int64_t q0 = pcl[c], s = pcl[c + 1] - q0;
  const int64_t e0 = e.eptr[q0], nv = e.eptr[q0 + s] - e0;
  const StagedCluster sc = stage_cluster(sm, e, q0, s, NULL, lane);
  double *lu = sc.lu;
  const int32_t *fs = sc.fs, *es = sc.es;
  bool reported = false;
  for (int64_t m = 0; m < s; ++m) {
    __syncwarp();
    const int64_t fm = fs[m];
    double *pm = lu + es[m] + 2 * (m - fm);
    if (lane == 0) {
      const double d = *pm, dinv = 1.0 / d;
      *pm = dinv;
      if (!reported && gs_exact_bad_pivot(d, dinv, require_positive)) {
        reported = true;
        atomicMin(bad, (unsigned long long)perm[q0 + m] << 3 | GS_EXACT_BAD_PIVOT);
      }
    }
    __syncwarp();
    const double inv = *pm;
    for (int64_t k = m + 1 + lane; k < s; k += 32) {
      const int64_t fk = fs[k];
      if (fk <= m) lu[es[k] + (m - fk)] = __dmul_rn(lu[es[k] + (m - fk)], inv);
    }
    __syncwarp();
    for (int64_t k = m + 1 + lane; k < s; k += 32) {
      const int64_t fk = fs[k];
      if (fk > m) continue;
      double *Lk = lu + es[k], *Uk = Lk + (k - fk);
      const double lkm = Lk[m - fk], umk = Uk[m - fk];
      for (int64_t i = m + 1; i < k; ++i) {
        const int64_t fi = fs[i];
        if (fi > m) continue;
        const double *Li = lu + es[i], *Ui = Li + (i - fi);
        Lk[i - fk] = __dsub_rn(Lk[i - fk], __dmul_rn(lkm, Ui[m - fi]));
        Uk[i - fk] = __dsub_rn(Uk[i - fk], __dmul_rn(Li[m - fi], umk));
      }
      Uk[k - fk] = __dsub_rn(Uk[k - fk], __dmul_rn(lkm, umk));
    }
  }
  __syncwarp();
  for (int64_t t = lane; t < nv; t += 32) e.lu[e0 + t] = lu[t];
}

/* *out = the largest stage_bytes_of (Line: line_bytes_of) over the clusters */
template <bool Line>
__global__ void exact_stage_size(int64_t nc, const int64_t *pcl, const int64_t *eptr,
                                 unsigned long long *out) {
  const int64_t m = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (m >= nc) return;
  const int64_t q0 = pcl[m], q1 = pcl[m + 1];
  const int64_t s = q1 - q0, nv = eptr[q1] - eptr[q0];
  atomicMax(out, (unsigned long long)(Line ? line_bytes_of(s, nv) : stage_bytes_of(s, nv)));
}

/* Clusters of a color a block: few threads, each a long dependent walk. */
constexpr int kSolveBlock = 64;
/* Clusters of at most this many rows (the largest of the handle) whose
 * chains take a thread each take exact_fused with groups of kFusedLanes
 * lanes (ex.fused), unless tuning gs_exact_unfused at the setup. */
constexpr int64_t kFusedRows = 32;
constexpr int kFusedLanes = 8;
/* Factors of more values a row than this (mean envelope width over 7.5:
 * dense blocks, elasticity's node clusters) take a warp a cluster
 * (exact_chain_warp); lines (3 a row) and MIS-2 clusters of a Laplacian
 * (4.4) keep a thread a cluster, whose chain has little to share. */
constexpr int64_t kWarpChainValuesPerRow = 16;

} // namespace

/* The largest shared bytes a cluster of gs takes staged (Line:
 * exact_line_staged, else the dense warp chains) into *bytes, 0 where that
 * is over the device's opt-in limit or a kernel refuses it. */
template <bool Line>
static mispc_status stage_size(mispc_context *ctx, const mispc_gs *gs, cudaStream_t s,
                               int64_t *bytes) {
  *bytes = 0;
  const int64_t nc = gs->nclusters;
  unsigned long long *d = NULL, h = 0;
  MISPC_TRY(mispc_scratch_alloc(ctx, sizeof h, (void **)&d, "exact solves: stage size"));
  cudaMemsetAsync(d, 0, sizeof h, s);
  exact_stage_size<Line>
      <<<(unsigned)((nc + kBlock - 1) / kBlock), kBlock, 0, s>>>(nc, gs->pcl, gs->ex.eptr, d);
  cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s);
  mispc_status st = mispc_sync(ctx, s, "exact solves: stage size");
  mispc_scratch_free(ctx, d);
  MISPC_TRY(st);
  int dev = 0, optin = 0;
  const auto allow = [&](const void *kernel) {
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)h) ==
           cudaSuccess;
  };
  if (cudaGetDevice(&dev) == cudaSuccess &&
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess &&
      h > 0 && h <= (unsigned long long)optin &&
      (Line ? allow((const void *)exact_line_staged)
            : allow((const void *)exact_chain_warp<true>) &&
                  allow((const void *)exact_factor_staged)))
    *bytes = (int64_t)h;
  cudaGetLastError(); /* a refused size leaves the unstaged chains */
  return MISPC_SUCCESS;
}

template <typename T>
static mispc_status dalloc(mispc_context *ctx, T **p, int64_t count, const char *what) {
  return mispc_pool_alloc(ctx, MISPC_MEM_DEVICE, (size_t)(count + 1) * sizeof(T), (void **)p, what);
}

extern "C" mispc_status gs_exact_pattern_cuda(mispc_context *ctx, mispc_gs *gs,
                                              const mispc_csr *A) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  struct gs_exact_lu *e = &gs->ex;
  const int64_t n = gs->n, nc = gs->nclusters;
  gs_exact_free(ctx, gs, MISPC_MEM_DEVICE);
  MISPC_TRY(dalloc(ctx, &e->first, n, "exact solves: envelopes"));
  MISPC_TRY(dalloc(ctx, &e->optr, n, "exact solves: outside entries"));
  MISPC_TRY(dalloc(ctx, &e->eptr, n, "exact solves: envelopes"));
  const unsigned grid = (unsigned)((nc + kBlock - 1) / kBlock);
  exact_count<<<grid ? grid : 1, kBlock, 0, s>>>(nc, gs->pcl, A->rowptr, A->colidx, n,
                                                 gs->row_cluster, gs->perm, gs->iperm, e->optr,
                                                 e->first, e->eptr);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_TRY(gs_exclusive_sum(ctx, s, e->optr, n + 1));
  MISPC_TRY(gs_exclusive_sum(ctx, s, e->eptr, n + 1));
  int64_t tot[2] = {0, 0};
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(&tot[0], e->optr + n, 8, cudaMemcpyDeviceToHost, s));
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(&tot[1], e->eptr + n, 8, cudaMemcpyDeviceToHost, s));
  MISPC_TRY(mispc_sync(ctx, s, "exact solves: sizes"));
  e->nout = tot[0];
  e->nfactor = tot[1];
  MISPC_TRY(dalloc(ctx, &e->ocol, tot[0], "exact solves: outside columns"));
  MISPC_TRY(dalloc(ctx, &e->osrc, tot[0], "exact solves: outside entries"));
  MISPC_TRY(dalloc(ctx, &e->oval, tot[0], "exact solves: outside values"));
  MISPC_TRY(dalloc(ctx, &e->lu, tot[1], "exact solves: factors"));
  if (nc > 0)
    exact_fill<<<grid, kBlock, 0, s>>>(nc, gs->pcl, A->rowptr, A->colidx, n, gs->row_cluster,
                                       gs->perm, gs->iperm, e->optr, e->ocol, e->osrc);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  mispc_logf(ctx, 2, "gs exact clusters: %lld outside entries, %lld factor values",
             (long long)tot[0], (long long)tot[1]);
  /* dense factors (the warp chains): stage each cluster in shared memory
   * where the largest fits the device's opt-in limit */
  e->stage_bytes = e->line_bytes = 0;
  e->fused = 0;
  if (nc > 0 && tot[1] > kWarpChainValuesPerRow * n && !ctx->tuning.gs_exact_unstaged) {
    MISPC_TRY(stage_size<false>(ctx, gs, s, &e->stage_bytes));
    mispc_logf(ctx, 2, "gs exact clusters: chains staged in %lld shared bytes a cluster",
               (long long)e->stage_bytes);
  }
  /* sparse factors, a thread a chain: one launch a color, small clusters
   * by exact_fused, long ones (lines) by exact_line_staged where the
   * largest fits in shared memory */
  if (nc > 0 && tot[1] <= kWarpChainValuesPerRow * n && !ctx->tuning.gs_exact_unfused) {
    e->fused = gs->max_cluster <= kFusedRows;
    if (!e->fused) MISPC_TRY(stage_size<true>(ctx, gs, s, &e->line_bytes));
    mispc_logf(ctx, 2, "gs exact clusters: one launch a color (%s)",
               e->fused        ? "small clusters"
               : e->line_bytes ? "long clusters staged"
                               : "no: two");
  }
  return MISPC_SUCCESS;
}

extern "C" mispc_status gs_exact_values_cuda(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A,
                                             int64_t *bad_row, int *bad_kind) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int64_t nc = gs->nclusters;
  unsigned long long *d = NULL, *h = NULL;
  MISPC_TRY(mispc_pinned_scratch(ctx, sizeof *h, (void **)&h));
  MISPC_TRY(mispc_scratch_alloc(ctx, sizeof *d, (void **)&d, "exact factor check"));
  cudaMemsetAsync(d, 0xff, sizeof *d, s);
  uint8_t *failed = NULL;
  const int rp = gs->opt.require_positive_diagonal;
  const unsigned tgrid = (unsigned)((nc + kSolveBlock - 1) / kSolveBlock);
  mispc_status st = MISPC_SUCCESS;
  if (nc > 0 && gs->ex.stage_bytes > 0) { /* dense factors: gathered, then a warp a cluster */
    st = mispc_scratch_alloc(ctx, (size_t)nc, (void **)&failed, "exact factor check");
    if (!st) {
      exact_gather<<<tgrid, kSolveBlock, 0, s>>>(nc, gs->pcl, A->rowptr, A->colidx, A->values,
                                                 gs->n, gs->row_cluster, gs->perm, gs->iperm,
                                                 gs->ex, failed, d);
      exact_factor_staged<<<(unsigned)nc, 32, (size_t)gs->ex.stage_bytes, s>>>(
          gs->pcl, gs->perm, gs->ex, failed, rp, d);
    }
  } else if (nc > 0) {
    exact_factor<<<tgrid, kSolveBlock, 0, s>>>(nc, gs->pcl, A->rowptr, A->colidx, A->values, gs->n,
                                               gs->row_cluster, gs->perm, gs->iperm, gs->ex, rp, d);
  }
  cudaMemcpyAsync(h, d, sizeof *h, cudaMemcpyDeviceToHost, s);
  if (!st) st = mispc_sync(ctx, s, "exact cluster factors");
  if (failed) mispc_scratch_free(ctx, failed);
  mispc_scratch_free(ctx, d);
  MISPC_TRY(st);
  if (*bad_row < 0 && *h != ~0ull) {
    *bad_row = (int64_t)(*h >> 3);
    *bad_kind = (int)(*h & 7);
  }
  return MISPC_SUCCESS;
}

void gs_exact_launch_color(mispc_context *ctx, const mispc_gs *gs, cudaStream_t s, int32_t c,
                           ApplyIO io) {
  const int64_t k0 = gs->color_ptr[c], k1 = gs->color_ptr[c + 1];
  if (k1 <= k0) return;
  if (gs->ex.line_bytes > 0) {
    exact_line_staged<<<(unsigned)(k1 - k0), 32, (size_t)gs->ex.line_bytes, s>>>(
        k0, gs->pcl, gs->perm, gs->ex, gs->bp, gs->xp, io);
    return;
  }
  if (gs->ex.fused) {
    const int64_t threads = (k1 - k0) * kFusedLanes;
    exact_fused<kFusedLanes><<<(unsigned)((threads + kBlock - 1) / kBlock), kBlock, 0, s>>>(
        k0, k1, gs->pcl, gs->perm, gs->ex, gs->bp, gs->xp, io);
    return;
  }
  /* the color's rows are contiguous in sweep order (color_rows) */
  const int64_t q0 = gs->color_rows[c], q1 = gs->color_rows[c + 1];
  exact_outside<<<(unsigned)((q1 - q0 + kBlock - 1) / kBlock), kBlock, 0, s>>>(q0, q1, gs->ex,
                                                                               gs->bp, gs->xp);
  if (gs->ex.stage_bytes > 0) /* set only for dense factors */
    exact_chain_warp<true><<<(unsigned)(k1 - k0), 32, (size_t)gs->ex.stage_bytes, s>>>(
        k0, k1, gs->pcl, gs->perm, gs->ex, gs->xp, io);
  else if (gs->ex.nfactor > kWarpChainValuesPerRow * gs->n)
    exact_chain_warp<false><<<(unsigned)((k1 - k0 + 3) / 4), 128, 0, s>>>(k0, k1, gs->pcl, gs->perm,
                                                                          gs->ex, gs->xp, io);
  else
    exact_chain<<<(unsigned)((k1 - k0 + kSolveBlock - 1) / kSolveBlock), kSolveBlock, 0, s>>>(
        k0, k1, gs->pcl, gs->perm, gs->ex, gs->xp, io);
}

extern "C" mispc_status gs_exact_sweep_color_cuda(mispc_context *ctx, const mispc_gs *gs, int32_t c,
                                                  int backward, double *x_rows) {
  (void)backward; /* a cluster's exact solve is the same either way */
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  gs_exact_launch_color(ctx, gs, s, c, ApplyIO{NULL, x_rows, NULL, NULL});
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  return MISPC_SUCCESS;
}
