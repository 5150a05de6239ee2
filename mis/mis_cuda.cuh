/* Pieces shared by the MIS CUDA backends (not installed): block shape, the
 * cooperative launch of a persistent kernel and its result words, and the
 * host loop of the one-launch-per-round fallback. */
#ifndef MISPC_MIS_CUDA_CUH
#define MISPC_MIS_CUDA_CUH

#include <string.h>

#include "cuda_util.cuh"
#include "mis_common.h"

#ifndef MISPC_PERSISTENT_PER_SM
#define MISPC_PERSISTENT_PER_SM 8 /* CMake's MISPC_PERSISTENT_PER_SM overrides it */
#endif

/* Small graphs in shared memory (mis_smem_cuda.cu): the blocks of the
 * cluster that takes MIS-k of g (subset: whether one is given), 0 where the
 * persistent kernels do; and the call itself with that many blocks (mode: the
 * MIS-1 key mode, or MIS-2's per-round priorities), *ran = 0 (and nothing
 * done) where the device refused the cluster. Same sets and rounds as the
 * host. */
extern "C" int mispc_mis_smem_blocks(mispc_context *ctx, const mispc_csr *g, int k, int subset);
extern "C" mispc_status mispc_mis_smem_cuda(mispc_context *ctx, const mispc_csr *g, int k,
                                            const mispc_mis_options *opt, int mode, int blocks,
                                            const uint8_t *subset, uint8_t *in_set,
                                            mispc_mis_result *res, int *ran);

/* Coloring of small graphs in the same kernel family: the blocks of the
 * cluster for g (0: the persistent kernel; hubs: g has hubs, so the
 * alternative is one MIS-1 a color and the kernel takes more entries), and
 * the call (color_jp_cuda's colors; check: test the pattern's symmetry,
 * for callers that skipped validation); *ran = 0 where the device refused
 * the cluster. */
extern "C" int mispc_color_smem_blocks(mispc_context *ctx, const mispc_csr *g, int hubs);
extern "C" mispc_status mispc_color_smem_cuda(mispc_context *ctx, const mispc_csr *g, int key_mode,
                                              uint64_t seed, int blocks, int check, int32_t *color,
                                              int32_t *ncolors, int *ran);

namespace mis_cuda {

constexpr int kBlock = 256;
/* Blocks per SM of the persistent kernels (capped by occupancy). */
constexpr int kPersistentPerSm = MISPC_PERSISTENT_PER_SM;

/* ---- MIS-2 words and warp steps (mis2_cuda.cu, mis2_dist_cuda.cu) ---- */

constexpr int kWarps = kBlock / 32;
constexpr int kListSlots = 128; /* worklist slots a warp */
typedef mispc_warp_append<kListSlots> List;

/* Shared memory of a kernel that compacts one worklist. */
struct ListSmem {
  int32_t slots[kWarps][kListSlots];
  unsigned counts[kWarps + 1];
};

/* IN and OUT in a MIS-2 word of type W (32 or 64 bits). */
template <typename W> __device__ __forceinline__ W w_in() {
  return (W)0;
}
template <typename W> __device__ __forceinline__ W w_out() {
  return (W) ~(W)0;
}

/* The smallest of a full warp's words, in every lane (a butterfly of shuffles). */
template <typename W> __device__ __forceinline__ W warp_min(W m) {
  for (int off = 16; off; off >>= 1) {
    const W o = __shfl_xor_sync(0xffffffffu, m, off);
    m = o < m ? o : m;
  }
  return m;
}

/* min(m, T[colidx[q]]) over q in [b, e), from this lane's share. Warp: the
 * lanes split the row with the plain loop (four loads a lane made MIS-2 of
 * Elasticity3D_60's node graph, 27 entries a row, 11% slower, and a split by
 * row length cost the gain on its 81-entry rows: docs/results/
 * benchmarks-log.md). Thread: four column indices are loaded before their T
 * words, so four gathers are in flight instead of one chain per entry
 * (H100: Laplace3D_100 MIS-2 -3 to -9%). */
template <typename W, bool Warp>
__device__ __forceinline__ W row_min(const int32_t *colidx, int64_t b, int64_t e, const W *T,
                                     int lane, W m) {
  if constexpr (Warp) {
    for (int64_t q = b + lane; q < e; q += 32) {
      const W t = T[colidx[q]];
      m = t < m ? t : m;
    }
  } else {
    for (int64_t q = b; q < e; q += 4) {
      int32_t c[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) c[k] = q + k < e ? colidx[q + k] : -1;
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (c[k] >= 0) {
          const W t = T[c[k]];
          m = t < m ? t : m;
        }
    }
  }
  return m;
}

/* The decide scan of MIS-2 over M[colidx[q]], q in [b, e), from this lane's
 * share (vertices outside subset, when given, are passed over): *out when
 * one is OUT, *all_min cleared when one differs from t. Stops once *out, or
 * in the first round (no IN vertex yet, so no OUT column) at the first
 * mismatch. Thread: four entries a step, as row_min; an OUT found in a step
 * settles v whatever else the step saw. */
template <typename W, bool Warp>
__device__ __forceinline__ void row_decide(const int32_t *colidx, int64_t b, int64_t e, const W *M,
                                           const uint8_t *subset, W t, bool first_round, int lane,
                                           bool *out, bool *all_min) {
  bool o = *out, a = *all_min;
  if constexpr (Warp) {
    for (int64_t q = b + lane; q < e && !o && (a || !first_round); q += 32) {
      const int32_t u = colidx[q];
      /* the flag and the word side by side: each step waits for its loads */
      const bool in_subset = !subset || subset[u];
      const W m = M[u];
      if (!in_subset) continue; /* not part of the subgraph */
      o = m == w_out<W>();
      a = a && m == t;
    }
  } else {
    for (int64_t q = b; q < e && !o && (a || !first_round); q += 4) {
      int32_t c[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) c[k] = q + k < e ? colidx[q + k] : -1;
      /* the flags and the words side by side (column 0 stands in past e) */
      bool in[4];
      W m[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        in[k] = c[k] >= 0 && (!subset || subset[c[k] >= 0 ? c[k] : 0]);
        m[k] = M[c[k] >= 0 ? c[k] : 0];
      }
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (in[k]) {
          o = o || m[k] == w_out<W>();
          a = a && m[k] == t;
        }
    }
  }
  *out = o, *all_min = a;
}

/* Warp steps: 32 vertices (thread mapping) or one (warp mapping) per warp
 * and step; the loop bounds are the same in all lanes (for the appender). */
template <bool Warp> struct Steps {
  static constexpr int kPerStep = Warp ? 1 : 32;
  __device__ static int64_t first() {
    return ((int64_t)blockIdx.x * kWarps + (threadIdx.x >> 5)) * kPerStep;
  }
  __device__ static int64_t stride() {
    return (int64_t)gridDim.x * kWarps * kPerStep;
  }
  __device__ static int slot() {
    return Warp ? 0 : (int)(threadIdx.x & 31);
  }
};

/* ---- Hub rows of MIS-2's column pass (mis2_cuda.cu, mis2_dist_kernels.cuh) ----
 * A warp a vertex leaves a hub's column minimum to one warp, which the whole
 * pass then waits for: on gen:kron:21 (H200, ncu, a launch a round) the
 * busiest SM of the column passes ran 1.3 to 2.1 times the mean SM's cycles
 * in rounds 0 to 7 and 3 to 9 times in rounds 8 to 11, while the decide
 * passes (which stop at the first OUT) were even. So a row of more than
 * kHeavyRow entries is cut into chunks of half that many, which warps of the
 * whole grid take: each folds the minimum of its
 * chunk into the vertex's word with atomicMin, and the chunk that arrives last
 * (a counter) writes M. A minimum does not depend on the order it is taken
 * in, so M, the set and the rounds are those of one warp's scan. Such a
 * vertex is never on a column worklist: its chunks run while its M is not
 * OUT. The chunks are registered by the pass before the rounds (init).
 * kHeavyRow: the default (tuning mis2_hub_row; the tests take rows of 32).
 * One H200, one process, mispc bench mis2 (docs/MIS.md): gen:kron:21 5.83 ms
 * at 1024 against 5.96 at 512, 6.17 at 4096 and 7.66 at 16384; kron:22 11.78
 * against 12.57 at 4096; two GPUs alike (kron:21 5.12 / 5.07 ms). */
constexpr int64_t kHeavyRow = 1024;

struct HeavyChunk {
  int32_t v, slot, k, n; /* vertex, its word, chunk k of n */
  int32_t tag;           /* the caller's (the distributed passes: v's class) */
};

template <typename W> struct Heavy {
  int64_t row, size; /* rows of more than `row` entries, in chunks of `size` */
  HeavyChunk *chunk; /* NULL: no chunks (rows are scanned whole) */
  unsigned *count;   /* [0] chunks, [1] vertices: zeroed before the registration */
  W *acc;            /* a vertex's running minimum, OUT between passes */
  unsigned *arrived; /* its chunks done in this pass, 0 between passes */
};

/* The row and chunk sizes of tuning value knob (mis2_hub_row), and bounds of
 * the registration's arrays for a graph of nnz entries. */
template <typename W> inline void heavy_sizes(Heavy<W> *h, int knob) {
  h->row = knob <= 0 ? kHeavyRow : knob < 32 ? 32 : knob;
  h->size = h->row / 2;
}
template <typename W> inline size_t heavy_max_vertices(const Heavy<W> &h, int64_t nnz) {
  return (size_t)(nnz / (h.row + 1));
}
template <typename W> inline size_t heavy_max_chunks(const Heavy<W> &h, int64_t nnz) {
  return (size_t)(nnz / h.size) + heavy_max_vertices(h, nnz);
}

/* Whether a row of len entries is cut into chunks. */
template <typename W> __device__ __forceinline__ bool heavy_row(const Heavy<W> &h, int64_t len) {
  return h.chunk && len > h.row;
}

/* Registers v's row of len entries (heavy_row true), from any thread. */
template <typename W>
__device__ __forceinline__ void heavy_register(const Heavy<W> &h, int32_t v, int64_t len,
                                               int32_t tag = 0) {
  const int n = (int)((len + h.size - 1) / h.size);
  const unsigned slot = atomicAdd(h.count + 1, 1u);
  const unsigned base = atomicAdd(h.count, (unsigned)n);
  for (int k = 0; k < n; ++k) h.chunk[base + k] = HeavyChunk{v, (int32_t)slot, k, n, tag};
  h.acc[slot] = w_out<W>();
  h.arrived[slot] = 0;
}

template <typename W> __device__ __forceinline__ void atomic_min_word(W *a, W x) {
  if constexpr (sizeof(W) == 8)
    atomicMin((unsigned long long *)a, (unsigned long long)x);
  else
    atomicMin((unsigned *)a, (unsigned)x);
}
template <typename W> __device__ __forceinline__ W atomic_exch_word(W *a, W x) {
  if constexpr (sizeof(W) == 8)
    return (W)atomicExch((unsigned long long *)a, (unsigned long long)x);
  else
    return (W)atomicExch((unsigned *)a, (unsigned)x);
}

/* The column pass's chunks, a warp a chunk over the grid's warps (every lane
 * of the block calls it): active(v, tag) whether v's column runs in this pass (the
 * same for all of v's chunks: nothing changes it before the last one is
 * done); chunk_min(v, k, lane, m) folds lane's share of chunk k of v's closed
 * row into m (chunk 0 holds T[v] too); done(v, m), on the last chunk's lane 0,
 * gets v's closed minimum. */
template <typename W, typename Active, typename ChunkMin, typename Done>
__device__ __forceinline__ void heavy_column(const Heavy<W> &h, Active active, ChunkMin chunk_min,
                                             Done done) {
  if (!h.chunk) return;
  const unsigned n = h.count[0];
  const int lane = (int)(threadIdx.x & 31);
  const unsigned warps = gridDim.x * (blockDim.x >> 5);
  for (unsigned i = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); i < n; i += warps) {
    const HeavyChunk c = h.chunk[i];
    if (!active(c.v, c.tag)) continue;
    const W m = warp_min(chunk_min(c.v, c.k, lane, w_out<W>()));
    if (lane == 0) {
      atomic_min_word(h.acc + c.slot, m);
      __threadfence();
      if (atomicAdd(h.arrived + c.slot, 1u) == (unsigned)c.n - 1) {
        __threadfence();
        const W all = atomic_exch_word(h.acc + c.slot, w_out<W>());
        h.arrived[c.slot] = 0;
        done(c.v, all);
      }
    }
  }
}

/* Lanes per vertex of the MIS-1 and coloring passes: one thread while the
 * mean row has at most 12 entries, else a group of 8 (measured: mis1_cuda.cu
 * lanes_for). */
inline int lanes_by_mean_degree(const mispc_csr *g) {
  return g->nnz <= 12 * g->nrows ? 1 : 8;
}

/* The start of a one-process MIS of n vertices on the device: *res zeroed;
 * unless n is 0, the context's stream, the SM count (it sizes the
 * non-persistent grids) and the round limit (opt's, or MIS1_MAX_ROUNDS). */
inline mispc_status start(mispc_context *ctx, int64_t n, const mispc_mis_options *opt,
                          mispc_mis_result *res, cudaStream_t *s, int *sms, int *max_rounds) {
  res->set_size = 0;
  res->rounds = 0;
  if (n == 0) return MISPC_SUCCESS;
  MISPC_TRY(mispc_stream(ctx, s));
  int coop = 0;
  MISPC_TRY(mispc_device_caps(ctx, sms, &coop));
  *max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  return MISPC_SUCCESS;
}

/* One scratch allocation cut into parts, each 256-byte aligned as
 * cudaMalloc's: one pool allocation and one free a call instead of one a
 * buffer (host time that counts on small graphs). */
struct Parts {
  size_t bytes = 0;
  /* The offset of a new part of `size` bytes. */
  size_t take(size_t size) {
    const size_t at = bytes;
    bytes += (size + 255) & ~(size_t)255;
    return at;
  }
};

/* Waits for the kernels and reads their result words into h: from `mapped`
 * (pinned host words of mispc_pinned_mapped that the kernel wrote,
 * publish_result) when not NULL, else by a copy of `bytes` from d.
 * MISPC_ERR_CUDA naming `what` when a kernel failed. With mapped words the
 * host spins on the word after them, which the kernel sets last, instead of
 * a stream sync (1.8 us less a call on an H200: launch_floor.cu), and asks
 * the stream every 256 spins, so a failed kernel is reported, not waited
 * for; after about 100 us it syncs the stream instead. Later work on the
 * stream is ordered after the kernel anyway. */
inline mispc_status fetch_result(mispc_context *ctx, cudaStream_t s, void *h, const void *d,
                                 const void *mapped, size_t bytes, const char *what) {
  if (mapped) {
    /* acquire: the words are read after the flag on any host (a plain mov on x86) */
    const unsigned long long *flag = (const unsigned long long *)mapped + bytes / 8;
    double t0 = 0;
    for (unsigned spin = 1; !__atomic_load_n(flag, __ATOMIC_ACQUIRE); ++spin)
      if (!(spin & 255)) {
        if (cudaStreamQuery(s) != cudaErrorNotReady) break;
        /* long kernels: the stream sync below (which honours the device's
         * blocking-sync flag) rather than a core kept busy */
        if (!t0)
          t0 = mispc_wtime();
        else if (mispc_wtime() - t0 > 100e-6)
          break;
      }
    if (__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
      memcpy(h, mapped, bytes);
      return MISPC_SUCCESS;
    }
  } else
    cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, s);
  cudaError_t e = cudaStreamSynchronize(s);
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess)
    return mispc_seterr(ctx, MISPC_ERR_CUDA, "%s kernels failed: %s", what, cudaGetErrorString(e));
  if (mapped) memcpy(h, mapped, bytes);
  return MISPC_SUCCESS;
}

/* The K result words of a persistent kernel and its done word after them
 * (zeroed here, before the launch) in mapped pinned memory
 * (mispc_pinned_mapped; publish_result writes them): *h_mapped and *d_mapped
 * where the device can, *d_mapped NULL otherwise; both NULL and nothing
 * allocated when `persistent` is 0. */
template <int K>
inline mispc_status mapped_result(mispc_context *ctx, int persistent, unsigned long long **h_mapped,
                                  unsigned long long **d_mapped) {
  *h_mapped = NULL, *d_mapped = NULL;
  if (!persistent) return MISPC_SUCCESS;
  MISPC_TRY(mispc_pinned_mapped(ctx, (K + 1) * sizeof(unsigned long long), (void **)h_mapped,
                                (void **)d_mapped));
  ((volatile unsigned long long *)*h_mapped)[K] = 0;
  return MISPC_SUCCESS;
}

/* The last step of a persistent kernel, by thread 0 of every block after its
 * last update of words[0..K): the last block to arrive (counted in *done,
 * zeroed before the kernel's first grid barrier) copies the totals to host
 * (mapped pinned memory; nothing when NULL), then sets host[K], the word
 * fetch_result waits for. A fence and one atomic a block instead of a
 * closing grid barrier. */
template <int K>
__device__ __forceinline__ void publish_result(unsigned long long *words, unsigned long long *host,
                                               unsigned *done) {
  if (!host || threadIdx.x != 0) return;
  __threadfence(); /* this block's updates before its arrival */
  if (atomicAdd(done, 1u) != gridDim.x - 1) return;
  __threadfence(); /* every block's updates before the reads */
#pragma unroll
  for (int k = 0; k < K; ++k) host[k] = atomicAdd(words + k, 0ull);
  __threadfence_system(); /* the words (and every block's output) before the done word */
  *(volatile unsigned long long *)(host + K) = 1ull;
}

/* *threads: the most threads launch_persistent gives kernel (0 where the
 * device has no cooperative launch). */
inline mispc_status persistent_threads(mispc_context *ctx, const void *kernel, long long *threads) {
  *threads = 0;
  int sms = 0, coop = 0, per_sm = 0;
  MISPC_TRY(mispc_device_caps(ctx, &sms, &coop));
  if (!coop) return MISPC_SUCCESS;
  MISPC_TRY(mispc_kernel_occupancy(ctx, kernel, kBlock, &per_sm));
  if (per_sm > kPersistentPerSm) per_sm = kPersistentPerSm;
  *threads = (long long)sms * (per_sm > 0 ? per_sm : 0) * kBlock;
  return MISPC_SUCCESS;
}

/* Launches kernel(plan) cooperatively with enough blocks for `work` threads,
 * capped at kPersistentPerSm resident blocks per SM. *launched = 0 (and
 * nothing is queued) when the device cannot, or `allowed` is 0. */
template <typename Plan>
mispc_status launch_persistent(mispc_context *ctx, cudaStream_t s, const void *kernel, Plan *plan,
                               long long work, int allowed, int *launched) {
  *launched = 0;
  long long threads = 0;
  if (allowed) MISPC_TRY(persistent_threads(ctx, kernel, &threads));
  if (threads <= 0) return MISPC_SUCCESS;
  void *args[] = {plan};
  MISPC_CUDA_TRY(ctx, cudaLaunchCooperativeKernel(
                          kernel, mispc_grid_for(work, kBlock, (unsigned)(threads / kBlock)),
                          kBlock, args, 0, s));
  *launched = 1;
  return MISPC_SUCCESS;
}

/* The fallback: for r = 0, 1, ... enqueue(r, left) queues round r and a copy
 * of the work left after it into the pinned words left[0..1]; the host
 * checks round r-1 while round r runs and stops once both words are 0.
 * *stop is the round after the last one that had work, or -1 when
 * max_rounds ran out. */
template <typename Enqueue>
mispc_status run_rounds_lagged(mispc_context *ctx, cudaStream_t s, int max_rounds, Enqueue enqueue,
                               int *stop) {
  *stop = -1;
  unsigned *h_left = NULL; /* [2r], [2r+1]: work left after round r */
  MISPC_TRY(mispc_pinned_scratch(ctx, (size_t)(max_rounds + 2) * 8, (void **)&h_left));
  cudaEvent_t ev[2] = {NULL, NULL};
  mispc_status st = MISPC_SUCCESS;
  if (cudaEventCreateWithFlags(&ev[0], cudaEventDisableTiming) != cudaSuccess ||
      cudaEventCreateWithFlags(&ev[1], cudaEventDisableTiming) != cudaSuccess)
    st = mispc_seterr(ctx, MISPC_ERR_CUDA, "cudaEventCreate failed");
  for (int r = 0; !st && r <= max_rounds; ++r) {
    if (r < max_rounds) {
      h_left[2 * r] = h_left[2 * r + 1] = 0;
      enqueue(r, h_left + 2 * r);
      cudaEventRecord(ev[r & 1], s);
    }
    if (r >= 1) {
      cudaError_t e = cudaEventSynchronize(ev[(r - 1) & 1]);
      if (e != cudaSuccess)
        st = mispc_seterr(ctx, MISPC_ERR_CUDA, "round %d failed: %s", r - 1, cudaGetErrorString(e));
      else if (h_left[2 * (r - 1)] + h_left[2 * (r - 1) + 1] == 0) {
        *stop = r; /* rounds 0 .. r-1 ran; round r (queued) changes nothing */
        break;
      }
    }
  }
  if (ev[0]) cudaEventDestroy(ev[0]);
  if (ev[1]) cudaEventDestroy(ev[1]);
  return st;
}

} // namespace mis_cuda

#endif
