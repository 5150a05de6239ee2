/* Internal to the GPU Gauss-Seidel files (not installed): what more than one
 * of them needs. gs_cuda_sweep.cu: the sweep kernels and the launches of one
 * apply; gs_cuda_tuning.cu: lanes, clusters a block and shared memory of the
 * sweeps; gs_cuda_symbolic.cu: the sweep-ordered pattern; gs_cuda_numeric.cu:
 * its values; gs_cuda_apply.cu: an apply as a CUDA graph.
 * Products and sums use __dmul_rn / __dsub_rn / __dadd_rn (no fused
 * multiply-add), the same arithmetic as gs_host.c, so x is bit-identical. */
#ifndef MISPC_GS_CUDA_CUH
#define MISPC_GS_CUDA_CUH

#include "cuda_util.cuh"
#include "gs_internal.h"

/* The caller's b and x of an apply (gs_cuda_sweep.cu, gs_exact_cuda.cu): by value, or (launches
 * inside the apply's CUDA graph, built once) from a device slot that the apply's first launch
 * fills, so one graph serves every b and x. */
struct ApplyIO {
  const double *b;
  double *x;
  double *const *slot; /* non-NULL: slot[0] = b, slot[1] = x */
  double **publish;    /* non-NULL: block 0 stores b and x there */
  __device__ const double *get_b() const {
    return slot ? slot[0] : b;
  }
  __device__ double *get_x() const {
    return slot ? slot[1] : x;
  }
  __device__ void store() const {
    if (publish && blockIdx.x == 0 && threadIdx.x == 0) publish[0] = (double *)b, publish[1] = x;
  }
};

namespace {

constexpr int kBlock = 256;

/* How cluster GS runs a color (gs->cluster_mode). */
enum {
  GS_CHAIN_STAGED = 0, /* each block's clusters staged in shared memory */
  GS_CHAIN_GLOBAL = 1, /* read from global memory (a cluster too large to stream) */
  GS_CHAIN_STREAM = 2, /* a block a cluster: its rows in shared memory, its chains
                          streamed through two tiles (a cluster's chains too large to stage) */
};

/* Shared bytes of a block of sweep_clusters staging `rows` rows and
 * `entries` chain entries: per row the sum, old x, omega / a_ii and a
 * 16-bit chain offset (one more offset), per entry a 16-bit row and the
 * value. 16 bits suffice: a block that fits in shared memory (227 KiB at
 * most) has fewer than 2^16 rows and entries. They take Elasticity3D_60's
 * largest block from 41.3 to 34.8 KB, so 6 blocks fit an SM instead of 5. */
__host__ __device__ inline size_t cluster_block_bytes(int64_t rows, int64_t entries) {
  return ((size_t)rows * 26 + 2 + (size_t)entries * 10 + 7) / 8 * 8;
}

/* Shared bytes of a block of sweep_clusters_streamed: per row the sum, old
 * x, omega / a_ii and a 32-bit chain offset (one more offset), and two
 * tiles of `tile` chain entries, each a value and a 16-bit row. */
constexpr int64_t kStreamRowBytes = 3 * 8 + 4, kStreamEntryBytes = 2 * (8 + 2);
__host__ __device__ inline size_t cluster_stream_bytes(int64_t rows, int64_t tile) {
  return ((size_t)(rows * kStreamRowBytes) + 4 + (size_t)(tile * kStreamEntryBytes) + 7) / 8 * 8;
}

/* The most chain entries a tile of a streamed block of `rows` rows may hold
 * within `bytes` of shared memory (cluster_stream_bytes <= bytes; 64 bytes
 * spare for its offset slot and rounding). */
inline int64_t cluster_stream_tile_fit(int64_t rows, int64_t bytes) {
  return (bytes - rows * kStreamRowBytes - 64) / kStreamEntryBytes;
}

/* Blocks an SM that copy_rows and copy_values are compiled for: 5 (48
 * registers) instead of the 4 that 52-56 registers allowed; both are
 * latency-bound (ncu, H100, Elasticity3D_60 on nodes: copy_rows 66 % of
 * stalls on L1TEX loads at 50 % occupancy). H100, two runs, ms, 4 / 5 / 6
 * blocks: Elasticity3D_60 copy 1.07 / 1.00 / 1.10, numeric 0.66 / 0.61 /
 * 0.72 (on nodes 0.66 / 0.61 / 0.71); Laplace3D_100 unchanged. */
constexpr int kCopyBlocks = 5;

constexpr size_t kDefaultSmem = 48 * 1024;

} // namespace

/* gs_cuda_symbolic.cu: in-place exclusive sum of v[0..n) (CUB) */
mispc_status gs_exclusive_sum(mispc_context *ctx, cudaStream_t s, int64_t *v, int64_t n);

/* gs_cuda_tuning.cu */
int gs_lanes_per_row(const mispc_context *ctx, const mispc_gs *gs, double mean);
mispc_status gs_choose_cluster_mode(mispc_context *ctx, mispc_gs *gs, cudaStream_t s,
                                    int64_t chain);

/* gs_cuda_sweep.cu */
/* The launches of one apply, in order: the gather (if any), then one or two
 * per color per pass. kDirect: b and x by value in every launch. kGraph
 * (captured into the apply's CUDA graph): the first launch takes them by
 * value and publishes them in gs->io_slot, the others read them there, so
 * each apply only updates the first node's parameters (set_root_vectors). */
enum Part { kDirect, kGraph };
mispc_status gs_enqueue_apply(mispc_context *ctx, const mispc_gs *gs, cudaStream_t s,
                              const double *b, double *x, int zero_guess, Part part);
mispc_status gs_set_root_vectors(mispc_context *ctx, mispc_gs *gs, int k, const double *b,
                                 double *x);

/* gs_exact_cuda.cu: exact cluster solves, one pass over color c (its
 * clusters in parallel) on bp / xp, each new x also written to io's x
 * where it has one (the last pass of an apply). */
void gs_exact_launch_color(mispc_context *ctx, const mispc_gs *gs, cudaStream_t s, int32_t c,
                           ApplyIO io);

#endif
