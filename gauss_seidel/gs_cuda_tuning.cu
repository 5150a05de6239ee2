/* GPU Gauss-Seidel tuning: lanes a row or cluster, clusters a block and
 * the shared memory of the cluster sweeps (gs_cuda.cuh). */
#include <algorithm>

#include "gs_cuda.cuh"

/* Lanes per row of the SpMV-like kernels (point GS, sweep_clusters' sums): a lane
 * per 16 entries, at least 2, at most 8. Measured on an H100
 * (docs/results/gauss-seidel-notebook.md): the rows of one color are many, and few lanes a
 * row keep the most rows in flight, but 2 beat 1 on short rows. SGS ms with
 * 1 / 2 / 4 / 8 lanes (2026-11-24): point Laplace3D_100 0.158 / 0.147 /
 * 0.185 / -, laplace2d:1000 0.131 / 0.129 / 0.175 / -; cluster sums
 * Laplace3D_100 0.302 / 0.306 / 0.314 / 0.418, laplace2d:1000 0.272 / 0.256
 * / 0.271 / 0.400, Elasticity3D_60 1.78 (1), 1.55 (4 and 8). */
static int lanes_for_row_sums(double mean) {
  int w = 2;
  while (w < 8 && 16 * w <= mean) w *= 2;
  return w;
}

/* Lanes per row (point) or per cluster (1 .. 32, a power of two): point GS
 * lanes_for_row_sums of the mean row; cluster GS the power of two at or
 * above `mean`, twice the mean entries of a row's push chain (a lane one or
 * two of them), at least 4. The context's tuning.gs_lanes (1, 2, 4, 8, 16,
 * 32; tuning.h) overrides it. Same arithmetic for every choice. */
int gs_lanes_per_row(const mispc_context *ctx, const mispc_gs *gs, double mean) {
  const int v = ctx->tuning.gs_lanes;
  if (v == 1 || v == 2 || v == 4 || v == 8 || v == 16 || v == 32) return v;
  /* cluster chains: at least 4 lanes (8 clusters a warp in lockstep); SGS
   * ms with 2 / 4 / 8 lanes, H100 2026-11-24: laplace2d:1000 0.256 / 0.224
   * / 0.236, Laplace3D_100 0.341 / 0.310 / 0.310 */
  /* ... and at least 8 where rows hold 64 entries or more on average (the
   * chains then load a row ahead, and a warp runs 4 clusters, not 8, in
   * lockstep): H200 SGS ms with 4 / 8 lanes (2026-11-29), small clusters
   * of rows at theta auto, Elasticity3D_30 0.576 / 0.440, _40 0.664 /
   * 0.535, _60 1.53 / 1.20; aniso3d:60:0.01 (7 entries a row) 0.089 /
   * 0.095, aniso2d:300:0.1 0.053 / 0.060 */
  if (gs->opt.kind == MISPC_GS_CLUSTER)
    return std::max(gs->nnz >= 64 * gs->n ? 8 : 4, mispc_lanes_for_mean(mean));
  return lanes_for_row_sums(mean);
}

namespace {
/* Blocks of sweep_clusters hold at most 2^kMaxBlockClustersLog clusters
 * (8 warps of 32 one-lane groups). */
constexpr int kMaxBlockClustersLog = 8;

/* Chain entries a tile of a streamed cluster pass holds at most (two tiles
 * of 160 KiB in all): fewer tiles, fewer barriers */
constexpr int64_t kStreamTile = 8192;

/* r[k] = the most shared bytes (cluster_block_bytes) of a block of 2^k
 * clusters, over the blocks as the apply forms them: each color's clusters
 * from its first (color_ptr, device), 2^k a block. */
__global__ void block_bytes(int64_t nc, int32_t ncolors, const int64_t *color_ptr,
                            const int64_t *pcl, const int64_t *fptr, const int64_t *bptr,
                            unsigned long long *r) {
  constexpr int K = kMaxBlockClustersLog + 1;
  unsigned long long m[K];
#pragma unroll
  for (int k = 0; k < K; ++k) m[k] = 0;
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < nc;
       q += (int64_t)gridDim.x * blockDim.x) {
    /* q's color: the last one starting at or before q */
    const int64_t c = mispc_lower_bound(color_ptr, 0, (int64_t)ncolors + 1, q + 1) - 1;
    const int64_t lo = color_ptr[c], hi = color_ptr[c + 1];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (((q - lo) & (((int64_t)1 << k) - 1)) != 0) continue;
      const int64_t r0 = pcl[q], r1 = pcl[min(q + ((int64_t)1 << k), hi)];
      const int64_t ent = max(fptr[r1] - fptr[r0], bptr[r1] - bptr[r0]);
      const unsigned long long z = cluster_block_bytes(r1 - r0, ent);
      m[k] = z > m[k] ? z : m[k];
    }
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const unsigned long long z = mispc_block_max<kBlock>(m[k]);
    if (threadIdx.x == 0 && z) atomicMax(r + k, z);
  }
}
} // namespace

/* How sweep_clusters runs: chain lanes (gs_lanes_per_row), sum lanes
 * (lanes_for_row_sums), and clusters a block: as many as half the block's
 * warps have groups (4 * 32 / lanes), halved while a color's mean count of
 * clusters would fill fewer than two blocks an SM, then until every block's staging fits in
 * the default 48 KiB of shared memory (several blocks an SM); a single
 * cluster may opt in to more. Staged in shared memory unless one cluster
 * does not fit; then streamed (a block a cluster, its chains through two
 * tiles: sweep_clusters_streamed) where its rows and two tiles of its
 * longest possible chain fit, else from global memory. The context's
 * tuning.gs_chain_global and gs_chain_stream force a mode (tests and
 * measurements; the arithmetic is the same). tuning.gs_block_clusters = 2^k
 * sets the clusters a block (at most 8 * 32 / lanes, the groups of
 * a block, and still halved to fit). chain: the
 * entries of the forward chains. */
mispc_status gs_choose_cluster_mode(mispc_context *ctx, mispc_gs *gs, cudaStream_t s,
                                    int64_t chain) {
  constexpr int K = kMaxBlockClustersLog + 1;
  const int64_t n = gs->n, nc = gs->nclusters;
  unsigned long long *dm = NULL, *hm = NULL; /* K maxima */
  MISPC_TRY(mispc_pinned_scratch(ctx, K * 8, (void **)&hm));
  mispc_status st = mispc_scratch_alloc(ctx, K * 8, (void **)&dm, "cluster blocks");
  if (!st) {
    cudaMemsetAsync(dm, 0, K * 8, s);
    block_bytes<<<mispc_device_grid(ctx, nc, kBlock), kBlock, 0, s>>>(
        nc, gs->ncolors, gs->dcolor_ptr, gs->pcl, gs->fptr, gs->bptr, dm);
    cudaMemcpyAsync(hm, dm, K * 8, cudaMemcpyDeviceToHost, s);
    st = mispc_sync(ctx, s, "cluster blocks");
  }
  mispc_scratch_free(ctx, dm);
  MISPC_TRY(st);
  const mispc_tuning *tu = &ctx->tuning; /* tuning.h */
  gs->lanes = gs_lanes_per_row(ctx, gs, 2.0 * (double)chain / (double)n);
  gs->sum_lanes = lanes_for_row_sums((double)gs->nnz / (double)n);
  if (tu->gs_sum_lanes == 2 || tu->gs_sum_lanes == 4 || tu->gs_sum_lanes == 8)
    gs->sum_lanes = tu->gs_sum_lanes;
  int dev = 0, optin = 0;
  MISPC_CUDA_TRY(ctx, cudaGetDevice(&dev));
  MISPC_CUDA_TRY(ctx, cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  /* log2 of the clusters a block: as many as half the block's warps have
   * groups, so a color has twice the blocks and those of an SM overlap
   * their phases (H100, SGS ms with 16 / 32 / 64 clusters a block of 4
   * lanes, 2026-11-24: Laplace3D_100 0.293 / 0.288 / 0.401, laplace2d:1000
   * 0.233 / 0.217 / 0.230) */
  int k_default = 0;
  while ((kBlock / 64) * (32 / gs->lanes) > (1 << k_default)) ++k_default;
  /* ... but fewer where a color's clusters would then fill fewer than two
   * blocks an SM (a block's clusters go one after another through the
   * block's few warps: small clusters of long rows, Elasticity3D with the
   * threshold on rows, 725 clusters a color, took 23 blocks a color). H200
   * SGS ms, clusters a block 1 / 2 / 4 / 8 / 16 / 32 (2026-11-29):
   * Elasticity3D_30 rows at theta auto (725 a color) 0.58 / 0.56 / 0.57 /
   * 0.76 / 0.94 / 1.55, aniso3d:60:0.01 rows (4783) 0.34 / 0.21 / 0.14 /
   * 0.089 / 0.089 / 0.11, aniso2d:300:0.1 (2626) 0.13 / 0.083 / 0.059 /
   * 0.057 / 0.057 / 0.069, Laplace3D_100 (18452) 1.44 / 0.80 / 0.47 / 0.30 /
   * 0.26 / 0.26; node clusters of Elasticity3D (32 lanes) the same at
   * every count. */
  int sms = 0, coop = 0;
  mispc_device_caps(ctx, &sms, &coop);
  const int64_t per_color = nc / std::max<int64_t>(1, gs->ncolors);
  while (k_default > 0 && (per_color >> k_default) < 2 * (int64_t)std::max(1, sms)) --k_default;
  int k = k_default;
  const int eb = tu->gs_block_clusters; /* at most the block's groups */
  if (eb > 0)
    for (k = 0; (2 << k) <= eb && (2 << k) <= (kBlock / 32) * (32 / gs->lanes);) ++k;
  while (k > 0 && hm[k] > kDefaultSmem) --k;
  /* streamed (a cluster too large to stage): tiles of at most kStreamTile
   * entries, as many as shared memory holds, and at least the longest
   * chain a row can have (the cluster's other rows); tuning.gs_chain_stream
   * = N streams with tiles of N entries (raised to that) */
  const int64_t rows = gs->max_cluster;
  const int64_t fit = cluster_stream_tile_fit(rows, optin);
  const int64_t want = tu->gs_chain_stream > 0 ? tu->gs_chain_stream : kStreamTile;
  const int64_t tile = std::max(rows, std::min(want, fit));
  const bool streams = tile <= fit;
  if (tu->gs_chain_global)
    gs->cluster_mode = GS_CHAIN_GLOBAL;
  else if (streams && (tu->gs_chain_stream > 0 || hm[k] > (unsigned long long)optin))
    gs->cluster_mode = GS_CHAIN_STREAM;
  else
    gs->cluster_mode = hm[k] > (unsigned long long)optin ? GS_CHAIN_GLOBAL : GS_CHAIN_STAGED;
  gs->chain_tile = 0;
  gs->smem_block = 0;
  if (gs->cluster_mode == GS_CHAIN_STAGED) {
    gs->smem_block = (int)hm[k];
  } else if (gs->cluster_mode == GS_CHAIN_STREAM) { /* a cluster a block */
    k = 0;
    gs->chain_tile = (int)tile;
    gs->smem_block = (int)cluster_stream_bytes(rows, tile);
  } else { /* no shared memory to fit */
    k = k_default;
  }
  /* the fixed sums go through tp (but where staged), and a symmetric sweep
   * from x = 0 keeps its forward pass's sums there */
  if (!gs->tp)
    MISPC_TRY(
        mispc_pool_alloc(ctx, MISPC_MEM_DEVICE, (size_t)n * 8 + 8, (void **)&gs->tp, "fixed sums"));
  gs->block_clusters = 1 << k;
  mispc_logf(ctx, 2,
             "gs cluster sweeps: %d lanes a cluster's chain, %d a row's sum, %d clusters a "
             "block, mode %s, %d shared bytes a block%s, clusters of up to %lld rows, %.2f chain "
             "entries a row",
             gs->lanes, gs->sum_lanes, gs->block_clusters,
             gs->cluster_mode == GS_CHAIN_STAGED   ? "staged"
             : gs->cluster_mode == GS_CHAIN_STREAM ? "streamed"
                                                   : "global",
             gs->smem_block, gs->cluster_mode == GS_CHAIN_STREAM ? " (tiles of chain entries)" : "",
             (long long)gs->max_cluster, (double)chain / (double)n);
  return MISPC_SUCCESS;
}
