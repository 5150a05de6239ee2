/* MIS-1, MIS-2 and the coloring of small graphs in shared memory (issue 31
 * item 6).
 *
 * On small graphs a call is latency: a launch and its wait cost about 12 us
 * on an H200 (bench/experiments/launch_floor.cu), a grid barrier 0.8-2.4
 * us and a dependent global load 0.4-0.6 us, and the persistent kernels
 * (mis1_cuda.cu, mis2_cuda.cu) chain both. Here one thread block cluster of
 * 1 to 16 blocks of 1024 threads (a block an SM) holds the whole state in
 * shared memory: block b owns vertices [b 2^s, (b+1) 2^s), their row
 * offsets, status words and, where they fit, their column indices (16 bits,
 * so at most 65,536 vertices). A neighbour's word is read from its owner's
 * shared memory (distributed shared memory when b differs), a round's phases
 * are separated by block or cluster barriers (0.05 / 0.3 us), and a group of
 * lanes takes a vertex (one, or 8 where rows average more than 12 entries;
 * rows over 32 / 128 entries the whole warp). No global atomics, no
 * worklists, one launch, the result words in mapped pinned memory.
 *
 * MIS-1 runs the sync-free pass (mis1_sync_free) unless a round limit or
 * tuning mis_no_sync_free asks for rounds. The rounds are those of the host
 * backends, phase for phase, so the set and the round count equal the
 * host's for any cluster size:
 * - MIS-1 (mis1_host.c): A) an undecided vertex joins when no undecided
 *   neighbour comes before it; B) joiners are IN, their neighbours OUT.
 * - MIS-2 (mis2_host.c): column minima of T over closed neighbourhoods, then
 *   the decide scan over M.
 * The coloring (mispc_color's one pass, gauss_seidel/coloring_cuda.cu) runs
 * a sync-free pass too: greedy in key order, as color_jp_host (color_smem).
 *
 * It pays only on the smallest graphs (kSmallEntries): 16 SMs issue too few
 * instructions for a round that visits every row of larger ones, where the
 * persistent kernels, with the whole GPU and shrinking worklists, win
 * (measurements: docs/BENCHMARKS.md, "Small graphs"). Clusters of more than
 * one block need compute capability 9.0, 16 blocks a device that allows
 * them (H100, H200). */
#include <cooperative_groups.h>
#include <atomic>
#include <type_traits>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mis_backend.h"
#include "mis_common.h"
#include "mis_cuda.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 1024;
constexpr int kMaxCluster = 16;         /* 8 is portable; 16 where the device allows it */
constexpr int kMaxVertices = 65536;     /* 16-bit column indices */
constexpr uint32_t kOut2 = 0xFFFFFFFFu; /* MIS-2 words: IN = 0, OUT = all ones */
constexpr int kColoring = 3;            /* part_bytes' k for the coloring's words */
/* The automatic choice (H200, docs/BENCHMARKS.md "Small graphs"): this
 * kernel up to kSmallEntries entries (MIS-1, whose sync-free pass runs here
 * on graphs with hubs too: kSmallEntries1), one block up to
 * kOneBlockEntries, else 16 blocks where the device allows (8 otherwise).
 * One SM issues too few instructions for more: a round visits every row of
 * the block, and the persistent kernels, with the whole GPU and worklists,
 * won MIS-2 from 38k entries (grid3d27:12) on, by 2x at 54k (laplace3d:20);
 * MIS-1's sync-free pass lost to them from 54k entries on meshes, and won
 * by 1.3-1.8x on graphs with hubs (where they take rounds). */
constexpr int64_t kSmallEntries = 24576;
constexpr int64_t kSmallEntries1 = 49152;
constexpr int64_t kOneBlockEntries = 6144;
/* The coloring of graphs with hubs, where the alternative is one MIS-1
 * call a color, takes this kernel up to kHubEntries entries (H200,
 * 2026-12-01, docs/BENCHMARKS.md: gen:kron:12, 97k entries, 2.1 -> 1.6 ms;
 * kron:13, 205k, 3.6 either way; kron:14, 427k, 5.9 -> 8.5; kron:16 16 ->
 * 50). */
constexpr int64_t kHubEntries = 131072;

struct SmemPlan {
  const int64_t *rowptr;
  const int32_t *colidx;
  const uint8_t *subset;
  uint8_t *in_set;
  unsigned long long *result; /* [0] set size, [1] undecided after max_rounds (0 when
                                 done), [2] rounds, [3] done (mapped pinned or device words) */
  uint64_t seed;
  int n;
  int shift;        /* block b owns [b << shift, (b + 1) << shift) */
  unsigned col_cap; /* 16-bit column slots a block has */
  int mode;         /* MIS-1 key mode, or MIS-2 per-round priorities */
  int idbits;       /* MIS-2 */
  int max_rounds;
  int sync_free;  /* MIS-1: the sync-free pass instead of rounds */
  int replicas;   /* MIS-2 in a cluster: vertices in each block's copies of T, M and the
                     subset flags (0: none) */
  int32_t *color; /* coloring: the colors (device), and whether to check symmetry */
  int check;
};

/* A block's shared memory: per owned vertex one or two words, the row
 * offset, (MIS-1) a join flag or resume place (2 bytes) or (MIS-2 with a
 * subset) a subset flag (1 byte); then (MIS-2 in a cluster, where they fit)
 * the copies of every vertex's T, M and subset flag; the column slots last. */
struct Layout {
  uint32_t *w0;      /* MIS-1 status, MIS-2 T (16-byte aligned: replicas copy it by uint4) */
  uint32_t *w1;      /* MIS-2 M */
  uint32_t *off;     /* nv + 1 offsets into the block's entries */
  uint8_t *flag;     /* MIS-1 rounds: joins this round; MIS-2: inside the subset */
  uint16_t *resume;  /* MIS-1 sync-free pass: where v's next scan starts (flag's bytes) */
  uint32_t *rT, *rM; /* MIS-2 in a cluster: every vertex's T and M (SmemPlan::replicas) */
  uint8_t *rIn;      /* and, with a subset, every vertex's subset flag */
  uint16_t *col;     /* the block's column indices where they fit */
  __host__ __device__ static size_t fixed_bytes(int per_block, int words, int flag_bytes) {
    const size_t v = (size_t)per_block;
    return ((v + 1) * 4 + v * 4 * words + v * (size_t)flag_bytes + 15) & ~(size_t)15;
  }
  __device__ Layout(unsigned char *base, int per_block, int words, int flag_bytes,
                    int replicas = 0) {
    w0 = (uint32_t *)base;
    w1 = w0 + per_block;
    off = w0 + per_block * words;
    flag = (uint8_t *)(off + per_block + 1);
    resume = (uint16_t *)flag;
    rT = (uint32_t *)(base + fixed_bytes(per_block, words, flag_bytes));
    rM = rT + replicas;
    rIn = (uint8_t *)(rT + 2 * replicas);
    col = (uint16_t *)(rIn + (flag_bytes ? replicas : 0)); /* replicas: a multiple of 4 */
  }
};

/* The shared state a cluster agrees on: the round flags and the tallies. */
struct Shared {
  unsigned flag[2]; /* rank 0's: work left, by round parity */
  unsigned long long set_size, undecided;
  Shared *rank0; /* rank 0's copy (generic address) */
};

/* Clusters exist from compute capability 9.0 on; for older targets
 * (CMAKE_CUDA_ARCHITECTURES below 90) the clustered kernels compile to the
 * one-block code and are never launched (cluster_ok says no there). */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define MISPC_SMEM_CLUSTERS 1
#else
#define MISPC_SMEM_CLUSTERS 0
#endif

/* Barrier over the block (C: one block) or the cluster, with the ordering
 * of shared memory writes. */
template <bool C> __device__ __forceinline__ void sync_all() {
#if MISPC_SMEM_CLUSTERS
  if constexpr (C) {
    cg::this_cluster().sync();
    return;
  }
#endif
  __syncthreads();
}

/* Vertex u's entry of a per-vertex array: its owner's (local when C is
 * false; else the owner's shared memory, mapped by one mapa instruction). */
template <bool C, typename T> struct Words {
  T *local;
  int shift;
  unsigned mask;
  __device__ __forceinline__ T &operator[](int u) const {
#if MISPC_SMEM_CLUSTERS
    if constexpr (C)
      return *cg::this_cluster().map_shared_rank(local + (u & mask), (unsigned)(u >> shift));
#endif
    return local[u];
  }
};

/* The column of the block's entry q. */
struct Cols {
  const uint16_t *s;
  const int32_t *g;
  bool local;
  __device__ __forceinline__ int operator()(uint32_t q) const {
    return local ? (int)s[q] : g[q];
  }
};

/* A block's rows: its first vertex, their count, and its columns. */
struct Rows {
  int v0, nv;
  Cols col;
};

/* Loads the block's rows: offsets, and the columns as 16-bit ids where they
 * fit (else they are read from colidx), UNROLL independent loads a thread
 * (one SM keeps few loads in flight otherwise: a thread's load-store pairs
 * one after another made a 54k-entry graph take 50 us). The caller's block
 * barrier orders them before their use. */
constexpr int kUnroll = 8;
__device__ Rows load_rows(const SmemPlan &p, const Layout &L, int rank) {
  const int first = min(rank << p.shift, p.n); /* a last block may own nothing */
  const int cnt = max(0, min(1 << p.shift, p.n - first));
  const int64_t b = p.rowptr[first];
  const int64_t ne = p.rowptr[first + cnt] - b;
  const int64_t *rp = p.rowptr + first;
  for (int i0 = threadIdx.x; i0 <= cnt; i0 += kUnroll * kThreads) {
    int64_t x[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) x[k] = i0 + k * kThreads <= cnt ? rp[i0 + k * kThreads] : 0;
#pragma unroll
    for (int k = 0; k < kUnroll; ++k)
      if (i0 + k * kThreads <= cnt) L.off[i0 + k * kThreads] = (uint32_t)(x[k] - b);
  }
  const bool fits = (uint64_t)ne <= p.col_cap;
  const int32_t *cp = p.colidx + b;
  if (fits)
    for (int64_t q0 = threadIdx.x; q0 < ne; q0 += kUnroll * kThreads) {
      int32_t x[kUnroll];
#pragma unroll
      for (int k = 0; k < kUnroll; ++k) x[k] = q0 + k * kThreads < ne ? cp[q0 + k * kThreads] : 0;
#pragma unroll
      for (int k = 0; k < kUnroll; ++k)
        if (q0 + k * kThreads < ne) L.col[q0 + k * kThreads] = (uint16_t)x[k];
    }
  return {first, cnt, {L.col, p.colidx + b, fits}};
}

/* mis1_line_class_row (mis_common.h) over the block's entries [b, b + m)
 * of vertex v, read through col (shared memory where the columns are).
 * Rows of at most kBatch entries (2D and 3D stencils) in one scan, as
 * mis1_line_class_sorted: their columns loaded at once, then tested (any
 * v +- 2, no v +- 1, or a run that breaks the rule gives class 1, the same
 * in any order); the row-by-row form, each load waiting on the last, took
 * about 2 us of a call on gen:laplace2d:32 (H200, globaltimer,
 * 2026-11-30). Longer rows keep it: its binary search for v - 2 turns most
 * rows of irregular graphs away after a few loads (one scan of whole rows
 * made PGPgiantcompo 39 -> 47 us). */
__device__ uint32_t line_class(const Cols &col, uint32_t b, uint32_t m, int v) {
  if (!col.local) return mis1_line_class_row(col.g + b, m, v);
  if (m > MIS1_LINE_MAX_DEG + 1) return 1u;
  constexpr uint32_t kBatch = 8;
  mis1_runs r = {0, -3};
  int near1 = 0;
  if (m <= kBatch) {
    int u[kBatch];
#pragma unroll
    for (uint32_t k = 0; k < kBatch; ++k) u[k] = k < m ? col(b + k) : v;
#pragma unroll
    for (uint32_t k = 0; k < kBatch; ++k) {
      if (u[k] == v) continue; /* the self loop, and the slots past m */
      if (u[k] == v - 2 || u[k] == v + 2 || mis1_runs_step(&r, u[k], v)) return 1u;
      near1 |= u[k] == v - 1 || u[k] == v + 1;
    }
    return !near1 || mis1_runs_end(&r, v) ? 1u : 2u * (uint32_t)(v & 1);
  }
  uint32_t lo = 0, hi = m;
  while (lo < hi) { /* first entry >= v - 2 */
    const uint32_t mid = (lo + hi) >> 1;
    if (col(b + mid) < v - 2)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (uint32_t q = lo; q < m && col(b + q) <= v + 2; ++q) {
    const int u = col(b + q);
    if (u == v - 2 || u == v + 2) return 1u;
    near1 |= u == v - 1 || u == v + 1;
  }
  if (!near1) return 1u;
  for (uint32_t q = 0; q < m; ++q) {
    const int u = col(b + q);
    if (u != v && mis1_runs_step(&r, u, v)) return 1u;
  }
  return mis1_runs_end(&r, v) ? 1u : 2u * (uint32_t)(v & 1);
}

/* A status word another thread may be writing (the sync-free pass), read
 * and written by shared-memory atomics (through the generic address: local,
 * or from Words another block's shared memory): the words are polled
 * without barriers, and racecheck orders atomics, not plain loads. */
__device__ __forceinline__ uint32_t load_word(uint32_t *w) {
  return atomicOr(w, 0u);
}
__device__ __forceinline__ void store_word(uint32_t *w, uint32_t x) {
  atomicExch(w, x);
}

/* Resets sh and points it at rank 0's copy (before the first cluster barrier). */
template <bool C> __device__ void init_shared(Shared *sh) {
  if (threadIdx.x != 0) return;
  sh->rank0 = sh;
#if MISPC_SMEM_CLUSTERS
  if constexpr (C) sh->rank0 = cg::this_cluster().map_shared_rank(sh, 0);
#endif
  sh->flag[0] = sh->flag[1] = 0;
  sh->set_size = sh->undecided = 0;
}

template <bool C> __device__ __forceinline__ int block_rank() {
#if MISPC_SMEM_CLUSTERS
  if constexpr (C) return (int)cg::this_cluster().block_rank();
#endif
  return 0;
}

/* Rank 0 writes the result words after the last barrier. */
__device__ void write_result(const SmemPlan &p, const Shared *sh, unsigned long long w1,
                             int rounds) {
  p.result[0] = sh->set_size;
  p.result[1] = w1;
  p.result[2] = (unsigned long long)rounds;
  __threadfence_system(); /* the words and the set before the done word */
  *(volatile unsigned long long *)(p.result + 3) = 1ull;
}

/* A group of L lanes a vertex: the warp's steps over the block's vertices
 * (32 / L vertices a warp and step, the same bound in every lane), and rows
 * longer than long_row() scanned by the whole warp (hubs). */
template <int L> struct Group {
  static constexpr int kGroups = kThreads / L;
  const int gl = threadIdx.x & (L - 1);
  const unsigned gmask = mispc_group_mask<L>();
  __device__ static int first() {
    return (threadIdx.x >> 5) * (32 / L);
  }
  __device__ static int offset() {
    return (threadIdx.x & 31) / L;
  }
  __device__ static constexpr uint32_t long_row() {
    return L >= 8 ? 128u : 32u;
  }
};

/* Sum over the warp, then one atomic a warp into rank 0's tally. */
__device__ __forceinline__ void add_to(unsigned long long *tally, unsigned long long x) {
  for (int o = 16; o; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  if ((threadIdx.x & 31) == 0 && x) atomicAdd(tally, x);
}

/* ---- MIS-1 ---------------------------------------------------------------- */

/* Lanes gl of a group of W (mask gmask) scan v's entries [b, e) for an IN
 * neighbour (*hit) and an undecided one before v (*blk), U entries a lane
 * at a time, up to the first window with either; *at (where given) is
 * that window's start. Polled (the sync-free pass) reads the words with
 * load_word, the rounds read them plainly (the words of the round's start,
 * where an undecided vertex has no IN neighbour). */
template <int W, bool Polled, bool C, int U = 1>
__device__ __forceinline__ void
scan_earlier(const Cols &col, const Words<C, uint32_t> &Wd, uint32_t b, uint32_t e, int v,
             uint32_t kv, int gl, unsigned gmask, bool *hit, bool *blk, uint32_t *at = nullptr) {
  bool h = false, k = false;
  uint32_t q0 = b;
  for (; q0 < e; q0 += W * U) {
    bool x = false, y = false;
#pragma unroll
    for (int j = 0; j < U; ++j) /* U loads in flight a lane */
      if (q0 + gl + j * W < e) {
        const int u = col(q0 + gl + j * W);
        if (u != v) {
          const uint32_t ku = Polled ? load_word(&Wd[u]) : Wd[u];
          x |= mis1_in_set(ku);
          y |= !mis1_is_decided(ku) && mis1_before(ku, u, kv, v);
        }
      }
    if (W > 1) x = __any_sync(gmask, x), y = __any_sync(gmask, y);
    h = x, k = y;
    if (h || k) break;
  }
  *hit = h, *blk = k;
  if (at) *at = q0;
}

/* Entries first, first + step, ... of v's [b, e): its neighbours OUT. */
template <bool Polled, bool C>
__device__ __forceinline__ void mark_out(const Cols &col, const Words<C, uint32_t> &Wd, uint32_t b,
                                         uint32_t e, int v, int first, int step, uint32_t out) {
  for (uint32_t q = b + first; q < e; q += step) {
    const int u = col(q);
    if (u == v) continue;
    if (Polled)
      store_word(&Wd[u], out);
    else
      Wd[u] = out;
  }
}

/* The whole warp takes each long row (hub) of its groups in turn: f(src),
 * src the lane of the row's group that has it (mine). */
template <typename F> __device__ __forceinline__ void each_long_row(bool mine, F f) {
  for (unsigned hm = __ballot_sync(0xffffffffu, mine); hm; hm &= hm - 1) f(__ffs(hm) - 1);
}

/* MIS-1 without rounds (ECL-MIS section 3, as mis1_cuda.cu's sync_free_body
 * on global memory): the keys never change, so the host's rounds give the
 * greedy set in key order, and a vertex can be decided as soon as its
 * earlier neighbours are: OUT once one is IN, IN once all are OUT (then
 * its neighbours are marked OUT). Each group visits its vertices until
 * all are decided, reading the words as they are written (load_word,
 * store_word), so a decision waits on the chain of earlier neighbours (a
 * shared-memory atomic a link) instead of two cluster barriers a round.
 * A vertex's scan goes on from the window where its last one stopped
 * (Layout::resume), so a waiting vertex polls its blocker, not its row
 * again, and a one-lane group keeps two loads in flight (H200: 1-2 us
 * off meshes, docs/BENCHMARKS.md). The blocks of a cluster run at once,
 * so the earliest undecided vertex always progresses. The same set; no
 * rounds. */
template <int L, bool C>
__device__ void mis1_sync_free(const Layout &Lo, const Cols &col, const Words<C, uint32_t> &W,
                               int v0, int nv) {
  const int lane = threadIdx.x & 31;
  const Group<L> G;
  const uint32_t in = mis1_stamp(0, 0), out = mis1_stamp(0, 1);
  for (;;) {
    bool waiting = false;
    for (int base = G.first(); base < nv; base += G.kGroups) {
      const int i = base + G.offset();
      uint32_t kv = 0u, rs = 0u;
      if (i < nv && G.gl == 0) { /* the group agrees on one read */
        kv = load_word(Lo.w0 + i);
        rs = Lo.resume[i];
      }
      if (L > 1) {
        kv = __shfl_sync(0xffffffffu, kv, lane & ~(L - 1));
        rs = __shfl_sync(0xffffffffu, rs, lane & ~(L - 1));
      }
      const bool open = i < nv && !mis1_is_decided(kv);
      const uint32_t b = open ? Lo.off[i] : 0u, e = open ? Lo.off[i + 1] : 0u;
      const bool lng = open && e - b > G.long_row();
      const int v = v0 + i;
      /* hit: an IN neighbour; blk: an undecided one before v. The scan
       * starts where the last one stopped: the entries before it are
       * neighbours decided OUT, which stay OUT, or later ones, which cannot
       * join before v is decided. */
      const uint32_t from = b + rs;
      bool hit = false, blk = false;
      uint32_t at = from;
      if (open && !lng)
        scan_earlier<L, true, C, L == 1 ? 2 : 1>(col, W, from, e, v, kv, G.gl, G.gmask, &hit, &blk,
                                                 &at);
      each_long_row(lng && G.gl == 0, [&](int src) {
        bool hh, hb2;
        uint32_t a2;
        scan_earlier<32, true>(col, W, __shfl_sync(0xffffffffu, from, src),
                               __shfl_sync(0xffffffffu, e, src), __shfl_sync(0xffffffffu, v, src),
                               __shfl_sync(0xffffffffu, kv, src), lane, 0xffffffffu, &hh, &hb2,
                               &a2);
        if ((lane & ~(L - 1)) == src) hit = hh, blk = hb2, at = a2; /* the whole group */
      });
      if (open && blk && !hit && G.gl == 0 && at - b <= 0xFFFFu) Lo.resume[i] = (uint16_t)(at - b);
      const bool join = open && !hit && !blk;
      if (open && G.gl == 0 && (hit || join)) store_word(Lo.w0 + i, hit ? out : in);
      if (join && !lng) mark_out<true>(col, W, b, e, v, G.gl, L, out);
      each_long_row(join && lng && G.gl == 0, [&](int src) {
        mark_out<true>(col, W, __shfl_sync(0xffffffffu, b, src), __shfl_sync(0xffffffffu, e, src),
                       __shfl_sync(0xffffffffu, v, src), lane, 32, out);
      });
      waiting |= open && blk && !hit;
    }
    if (!__any_sync(0xffffffffu, waiting)) return;
  }
}

template <int L, bool C> __global__ void __launch_bounds__(kThreads, 1) mis1_smem(SmemPlan p) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ Shared sh;
  const int per_block = 1 << p.shift;
  const Layout Lo(smem, per_block, 1, 2);
  const int rank = block_rank<C>();
  const Rows R = load_rows(p, Lo, rank);
  const int v0 = R.v0, nv = R.nv;
  const Cols col = R.col;
  __syncthreads(); /* offsets and columns before the keys */
  for (int i = threadIdx.x; i < nv; i += kThreads) {
    const int v = v0 + i;
    uint32_t w = MIS1_STAMP_EXCLUDED;
    if (!p.subset || p.subset[v]) {
      const uint32_t b = Lo.off[i], m = Lo.off[i + 1] - b;
      const uint32_t cls = p.mode == MIS1_KEY_LINES ? line_class(col, b, m, v) : 1u;
      w = mis1_key_of(p.mode, p.seed, v, m, cls);
    }
    Lo.w0[i] = w;
    Lo.resume[i] = 0;
  }
  init_shared<C>(&sh);
  sync_all<C>();
  const Words<C, uint32_t> W = {Lo.w0, p.shift, (unsigned)per_block - 1u};
  const int lane = threadIdx.x & 31;
  const Group<L> G;
  Shared *const r0 = sh.rank0;
  int r = 0;
  bool failed = false;
  if (p.sync_free) {
    mis1_sync_free<L, C>(Lo, col, W, v0, nv);
    sync_all<C>(); /* every word written before the tally reads them */
  }
  for (; !p.sync_free; ++r) {
    /* A: who joins (state at the start of the round: nobody writes a word in A) */
    bool left = false;
    for (int base = G.first(); base < nv; base += G.kGroups) {
      const int i = base + G.offset();
      const uint32_t kv = i < nv ? Lo.w0[i] : 0u;
      const bool open = i < nv && !mis1_is_decided(kv);
      const uint32_t b = open ? Lo.off[i] : 0u, e = open ? Lo.off[i + 1] : 0u;
      const bool lng = open && e - b > G.long_row();
      const int v = v0 + i;
      bool hit = false, blocked = false; /* no hit at a round's start */
      if (open && !lng) scan_earlier<L, false>(col, W, b, e, v, kv, G.gl, G.gmask, &hit, &blocked);
      each_long_row(lng && G.gl == 0, [&](int src) {
        bool hh, hb2;
        scan_earlier<32, false>(col, W, __shfl_sync(0xffffffffu, b, src),
                                __shfl_sync(0xffffffffu, e, src), __shfl_sync(0xffffffffu, v, src),
                                __shfl_sync(0xffffffffu, kv, src), lane, 0xffffffffu, &hh, &hb2);
        if ((lane & ~(L - 1)) == src) blocked = hb2; /* the whole group */
      });
      left |= open;
      if (i < nv && G.gl == 0) Lo.flag[i] = open && !blocked;
    }
    if (__any_sync(0xffffffffu, left) && lane == 0) atomicOr(&r0->flag[r & 1], 1u);
    sync_all<C>();
    if (!r0->flag[r & 1]) break;
    if (r >= p.max_rounds) {
      failed = true;
      break;
    }
    if (rank == 0 && threadIdx.x == 0) r0->flag[(r + 1) & 1] = 0; /* read before this barrier */
    /* B: joiners IN, their neighbours OUT (no joiner is a neighbour of another) */
    const uint32_t in = mis1_stamp(r, 0), out = mis1_stamp(r, 1);
    for (int base = G.first(); base < nv; base += G.kGroups) {
      const int i = base + G.offset();
      const bool j = i < nv && Lo.flag[i]; /* not w0[i]: a joiner may be writing it */
      const uint32_t b = j ? Lo.off[i] : 0u, e = j ? Lo.off[i + 1] : 0u;
      const bool lng = j && e - b > G.long_row();
      const int v = v0 + i;
      if (j && G.gl == 0) Lo.w0[i] = in;
      if (j && !lng) mark_out<false>(col, W, b, e, v, G.gl, L, out);
      each_long_row(lng && G.gl == 0, [&](int src) {
        mark_out<false>(col, W, __shfl_sync(0xffffffffu, b, src), __shfl_sync(0xffffffffu, e, src),
                        __shfl_sync(0xffffffffu, v, src), lane, 32, out);
      });
    }
    sync_all<C>();
  }
  /* the set, its size and (after too many rounds) what is left undecided */
  unsigned long long size = 0, und = 0;
  for (int i = threadIdx.x; i < nv; i += kThreads) {
    const uint32_t s = Lo.w0[i];
    const bool inset = mis1_in_set(s);
    p.in_set[v0 + i] = inset;
    size += inset;
    und += !mis1_is_decided(s);
  }
  add_to(&r0->set_size, size);
  add_to(&r0->undecided, und);
  sync_all<C>();
  if (rank == 0 && threadIdx.x == 0) write_result(p, &sh, failed ? sh.undecided : 0ull, r);
}

/* ---- Coloring ------------------------------------------------------------- */

constexpr uint32_t kNoColor = 0xFFFFFFFFu;

/* The color v takes once every neighbour before it (key order) has one:
 * the smallest that none of them has (64 at a time, as the host's
 * jp_visit), or kNoColor while one of them has none (the scan stops at the
 * first such window). Lanes gl of a group of W (mask gmask) scan v's
 * entries [b, e); keys K are read plainly (set before the pass's barrier),
 * colors Cw by load_word (being written). */
template <int W, bool C>
__device__ __forceinline__ uint32_t mex_earlier(const Cols &col, const Words<C, uint32_t> &K,
                                                const Words<C, uint32_t> &Cw, uint32_t b,
                                                uint32_t e, int v, uint32_t kv, int gl,
                                                unsigned gmask) {
  for (uint32_t base = 0;; base += 64) {
    unsigned long long taken = 0;
    for (uint32_t q0 = b; q0 < e; q0 += W) {
      bool blk = false;
      if (q0 + gl < e) {
        const int u = col(q0 + gl);
        if (u != v && mis1_before(K[u], u, kv, v)) {
          const uint32_t cu = load_word(&Cw[u]);
          blk = cu == kNoColor;
          if (cu - base < 64u) taken |= 1ull << (cu - base);
        }
      }
      if (W > 1) blk = __any_sync(gmask, blk);
      if (blk) return kNoColor;
    }
    if (W > 1) {
      const unsigned lo = __reduce_or_sync(gmask, (unsigned)taken);
      const unsigned hi = __reduce_or_sync(gmask, (unsigned)(taken >> 32));
      taken = (unsigned long long)hi << 32 | lo;
    }
    if (~taken) return base + (uint32_t)__ffsll((long long)~taken) - 1u;
  }
}

/* Greedy coloring in key order without rounds (Jones-Plassmann, as
 * mis1_sync_free: the keys never change, so a vertex is colored as soon as
 * its earlier neighbours are, reading their colors as they are written;
 * the earliest uncolored vertex always goes on). Each visit scans the row
 * from its start. Tried and slower on the meshes (docs/BENCHMARKS.md,
 * "Coloring small graphs in shared memory"): a resume place and the colors
 * seen so far a vertex, and ECL-GC's shortcut (each vertex's set of colors
 * still possible, a vertex colored once no earlier uncolored neighbour's
 * set holds its lowest), for all rows or for hubs only. The colors are
 * those of the host's color_jp_host. */
template <int L, bool C>
__device__ void color_sync_free(const Layout &Lo, const Cols &col, const Words<C, uint32_t> &K,
                                const Words<C, uint32_t> &Cw, int v0, int nv) {
  const int lane = threadIdx.x & 31;
  const Group<L> G;
  for (;;) {
    bool waiting = false;
    for (int base = G.first(); base < nv; base += G.kGroups) {
      const int i = base + G.offset();
      uint32_t c = 0u;
      if (i < nv && G.gl == 0) c = load_word(Lo.w1 + i); /* the group agrees on one read */
      if (L > 1) c = __shfl_sync(0xffffffffu, c, lane & ~(L - 1));
      const bool open = i < nv && c == kNoColor;
      const uint32_t b = open ? Lo.off[i] : 0u, e = open ? Lo.off[i + 1] : 0u;
      const bool lng = open && e - b > G.long_row();
      const int v = v0 + i;
      const uint32_t kv = open ? Lo.w0[i] : 0u;
      uint32_t got = kNoColor;
      if (open && !lng) got = mex_earlier<L, C>(col, K, Cw, b, e, v, kv, G.gl, G.gmask);
      each_long_row(lng && G.gl == 0, [&](int src) {
        const uint32_t g2 = mex_earlier<32, C>(
            col, K, Cw, __shfl_sync(0xffffffffu, b, src), __shfl_sync(0xffffffffu, e, src),
            __shfl_sync(0xffffffffu, v, src), __shfl_sync(0xffffffffu, kv, src), lane, 0xffffffffu);
        if ((lane & ~(L - 1)) == src) got = g2; /* the whole group */
      });
      if (open && got != kNoColor && G.gl == 0) store_word(Lo.w1 + i, got);
      waiting |= open && got == kNoColor;
    }
    if (!__any_sync(0xffffffffu, waiting)) return;
  }
}

/* Coloring in shared memory: keys (w0), colors (w1), the sync-free pass,
 * then the colors to global memory and their count (result[0]). With
 * p.check (the caller skipped validation) the pattern's symmetry is checked
 * as the global kernel's counts do: each vertex adds 1 to the word of every
 * later neighbour in its row and subtracts the number of earlier ones in
 * its own, so a word not 0 is a pair listed on one side (result[1]). */
template <int L, bool C> __global__ void __launch_bounds__(kThreads, 1) color_smem(SmemPlan p) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ Shared sh;
  const int per_block = 1 << p.shift;
  const Layout Lo(smem, per_block, 2, 0);
  const int rank = block_rank<C>();
  const Rows R = load_rows(p, Lo, rank);
  const int v0 = R.v0, nv = R.nv;
  const Cols col = R.col;
  __syncthreads(); /* offsets before the keys */
  for (int i = threadIdx.x; i < nv; i += kThreads) {
    Lo.w0[i] = mis1_key(p.mode, p.seed, v0 + i, (int64_t)(Lo.off[i + 1] - Lo.off[i]));
    Lo.w1[i] = kNoColor;
  }
  init_shared<C>(&sh);
  sync_all<C>();
  const Words<C, uint32_t> K = {Lo.w0, p.shift, (unsigned)per_block - 1u};
  const Words<C, uint32_t> Cw = {Lo.w1, p.shift, (unsigned)per_block - 1u};
  color_sync_free<L, C>(Lo, col, K, Cw, v0, nv);
  sync_all<C>(); /* every color written */
  unsigned top = 0;
  for (int i = threadIdx.x; i < nv; i += kThreads) {
    const uint32_t c = Lo.w1[i];
    p.color[v0 + i] = (int32_t)c;
    top = max(top, c + 1u);
  }
  /* a warp's maximum, one 32-bit atomic a warp into rank 0's flag[0] (no
   * block reduction: its static shared memory would not fit beside the
   * dynamic part; the first form, a 64-bit atomicMax into rank 0's
   * set_size, returned too few colors on clusters in the H200 runs) */
  for (int o = 16; o; o >>= 1) top = max(top, __shfl_xor_sync(0xffffffffu, top, o));
  if ((threadIdx.x & 31) == 0 && top) atomicMax(&sh.rank0->flag[0], top);
  if (p.check) {
    sync_all<C>(); /* the colors read before w1 becomes the counts */
    for (int i = threadIdx.x; i < nv; i += kThreads) Lo.w1[i] = 0u;
    sync_all<C>();
    for (int i = threadIdx.x; i < nv; i += kThreads) {
      const int v = v0 + i;
      const uint32_t kv = Lo.w0[i], b = Lo.off[i], e = Lo.off[i + 1];
      uint32_t earlier = 0;
      for (uint32_t q = b; q < e; ++q) {
        const int u = col(q);
        if (u == v) continue;
        if (mis1_before(K[u], u, kv, v))
          ++earlier;
        else
          atomicAdd(&Cw[u], 1u);
      }
      atomicSub(Lo.w1 + i, earlier);
    }
    sync_all<C>();
    unsigned long long bad = 0;
    for (int i = threadIdx.x; i < nv; i += kThreads) bad += Lo.w1[i] != 0u;
    add_to(&sh.rank0->undecided, bad);
  }
  sync_all<C>();
  if (rank == 0 && threadIdx.x == 0) {
    sh.set_size = sh.flag[0];
    write_result(p, &sh, sh.undecided, 0);
  }
}

/* ---- MIS-2 ---------------------------------------------------------------- */

/* rep[u] = the word of vertex u for every vertex of the cluster: block b's
 * words [0, 2^shift) from its shared memory, 16 bytes a load (the words
 * are 16-byte aligned and 2^shift a multiple of 4), then a block barrier.
 * The column and decide scans then read their neighbours' words locally:
 * one distributed shared memory load a neighbour made them bound by the
 * cluster's scattered 4-byte traffic (kron:10, 16 blocks: 3.3-3.7 us a
 * column phase in warps with or without hubs, docs/BENCHMARKS.md). */
template <bool C>
__device__ void gather_words(uint32_t *rep, uint32_t *local, int shift, int blocks) {
#if MISPC_SMEM_CLUSTERS
  if constexpr (C) {
    const int per4 = (1 << shift) >> 2;
    for (int k = threadIdx.x; k < blocks * per4; k += kThreads) {
      const int b = k / per4;
      const uint4 *src = (const uint4 *)cg::this_cluster().map_shared_rank(local, (unsigned)b);
      ((uint4 *)rep)[k] = src[k - b * per4];
    }
  }
#endif
  __syncthreads();
}

/* A block of a cluster reads its copies of every T and M word (Layout::rT,
 * rM; refreshed before each phase by gather_words) where one of its rows has
 * more than kHubRow entries: a hub, whose warp makes more than 6 loads a
 * lane, most of them of other blocks' words. A copy costs every phase a
 * wave of remote loads and a barrier, which pays only against such chains.
 * H200, 2026-11-30 (docs/BENCHMARKS.md, "Replicas of T and M"): copies in
 * every block took kron:10 from 52.6 to 45.3 us but laplace3d:12 from 31.7
 * to 38.6 and laplace2d:45 from 28.4 to 34.2; where hubs are, kron:10
 * 53.5 -> 45.5 and the others unchanged. The rounds are compiled with and
 * without copies: a test at every load cost 1-1.5 us on every graph. */
constexpr uint32_t kHubRow = 192;

template <int L, bool C> __global__ void __launch_bounds__(kThreads, 1) mis2_smem(SmemPlan p) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ Shared sh;
  const int per_block = 1 << p.shift;
  const Layout Lo(smem, per_block, 2, p.subset != nullptr ? 1 : 0, C ? p.replicas : 0);
  const bool can_rep = C && p.replicas > 0;
  bool reps = false; /* this block reads its copies of T and M */
  const int rank = block_rank<C>();
  const Rows R = load_rows(p, Lo, rank);
  const int v0 = R.v0, nv = R.nv;
  const Cols col = R.col;
  bool any = false;
  for (int i = threadIdx.x; i < nv; i += kThreads) {
    const int v = v0 + i;
    const bool inside = !p.subset || p.subset[v];
    Lo.w0[i] = inside ? (uint32_t)mis2_tuple(p.mode, p.seed, 0, v, p.idbits, 32) : kOut2;
    Lo.w1[i] = inside ? 0u : kOut2;
    if (p.subset) Lo.flag[i] = inside;
    any |= inside;
  }
  init_shared<C>(&sh);
  sync_all<C>(); /* the table and the flags before anybody's atomics */
  const int lane = threadIdx.x & 31;
  const Group<L> G;
  if (can_rep) {
    bool hub = false;
    for (int i = threadIdx.x; i < nv; i += kThreads) hub |= Lo.off[i + 1] - Lo.off[i] > kHubRow;
    reps = __syncthreads_or(hub);
    /* the subset flags do not change during the call: copied once, from
     * global memory (the sync_all below orders them before round 0) */
    if (reps && p.subset)
      for (int u = threadIdx.x; u < p.replicas; u += kThreads) Lo.rIn[u] = u < p.n && p.subset[u];
  }
  Shared *const r0 = sh.rank0;
  if (__any_sync(0xffffffffu, any) && lane == 0) atomicOr(&r0->flag[1], 1u);
  sync_all<C>();
  const unsigned mask = (unsigned)per_block - 1u;
  const Words<C, uint32_t> T = {Lo.w0, p.shift, mask}, M = {Lo.w1, p.shift, mask};
  const int nblocks = p.replicas >> p.shift;
  const Words<C, uint8_t> In = {Lo.flag, p.shift, mask};
  const bool sub = p.subset != nullptr;
  int r = 0;
  bool failed = false;
  /* the rounds, compiled with and without copies (no test a load); nvcc 13.0
   * rejected `if constexpr` on L inside this generic lambda ("hm is
   * undefined"), so that test is a plain if on a constant */
  auto rounds = [&](auto with_replicas) {
    constexpr bool copies = decltype(with_replicas)::value;
    /* a neighbour's T or M: the block's replica where it has them */
    auto Tw = [&](int u) {
      if constexpr (copies)
        return Lo.rT[u];
      else
        return T[u];
    };
    auto Mw = [&](int u) {
      if constexpr (copies)
        return Lo.rM[u];
      else
        return M[u];
    };
    auto Inw = [&](int u) -> bool {
      if constexpr (copies)
        return Lo.rIn[u];
      else
        return In[u];
    };
    for (bool go = r0->flag[1]; go;) {
      if (r >= p.max_rounds) {
        failed = true;
        break;
      }
      /* column: M = min of T over N[v]; an IN minimum makes it OUT */
      if constexpr (copies) gather_words<C>(Lo.rT, Lo.w0, p.shift, nblocks);
      for (int base = G.first(); base < nv; base += G.kGroups) {
        const int i = base + G.offset();
        const bool open = i < nv && Lo.w1[i] != kOut2;
        const uint32_t b = open ? Lo.off[i] : 0u, e = open ? Lo.off[i + 1] : 0u;
        const bool lng = open && e - b > G.long_row();
        uint32_t m = open ? Lo.w0[i] : 0u;
        if (open && !lng) {
          for (uint32_t q = b + G.gl; q < e; q += L) m = min(m, Tw(col(q)));
          for (int o = L / 2; o; o >>= 1) m = min(m, __shfl_xor_sync(G.gmask, m, o));
        }
        unsigned hm = __ballot_sync(0xffffffffu, lng && G.gl == 0);
        while (hm) {
          const int src = __ffs(hm) - 1;
          hm &= hm - 1;
          const uint32_t hb = __shfl_sync(0xffffffffu, b, src),
                         he = __shfl_sync(0xffffffffu, e, src);
          uint32_t hmin = __shfl_sync(0xffffffffu, m, src);
          for (uint32_t q = hb + lane; q < he; q += 32) hmin = min(hmin, Tw(col(q)));
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
          hmin = __reduce_min_sync(0xffffffffu, hmin);
#else
          for (int o = 16; o; o >>= 1) hmin = min(hmin, __shfl_xor_sync(0xffffffffu, hmin, o));
#endif
          if ((lane & ~(L - 1)) == src) m = hmin;
        }
        __syncwarp(); /* the group read w1[i] before lane 0 writes it */
        if (open && G.gl == 0) Lo.w1[i] = m == 0u ? kOut2 : m;
      }
      sync_all<C>();
      /* decide: OUT next to an OUT column, IN where every column is T[v] */
      if constexpr (copies) gather_words<C>(Lo.rM, Lo.w1, p.shift, nblocks);
      bool left = false;
      for (int base = G.first(); base < nv; base += G.kGroups) {
        const int i = base + G.offset();
        const uint32_t t = i < nv ? Lo.w0[i] : 0u;
        const bool open = i < nv && t != 0u && t != kOut2;
        const uint32_t b = open ? Lo.off[i] : 0u, e = open ? Lo.off[i + 1] : 0u;
        const bool lng = open && e - b > G.long_row();
        bool out = open && Lo.w1[i] == kOut2, all = open && Lo.w1[i] == t;
        /* any OUT column, every column t: the host scan's result without its early exit */
        if (L == 1) {
          if (open && !lng)
            for (uint32_t q = b; q < e && !out && (all || r > 0); ++q) {
              const int u = col(q);
              if (sub && !Inw(u)) continue;
              const uint32_t m = Mw(u);
              out = m == kOut2;
              all = all && m == t;
            }
        } else if (open && !lng)
          for (uint32_t q0 = b; q0 < e && !out && (all || r > 0); q0 += L) {
            bool o = false, a = true;
            if (q0 + G.gl < e) {
              const int u = col(q0 + G.gl);
              if (!sub || Inw(u)) {
                const uint32_t m = Mw(u);
                o = m == kOut2;
                a = m == t;
              }
            }
            out = __any_sync(G.gmask, o);
            all = all && __all_sync(G.gmask, a);
          }
        unsigned hm = __ballot_sync(0xffffffffu, lng && G.gl == 0);
        while (hm) {
          const int src = __ffs(hm) - 1;
          hm &= hm - 1;
          const uint32_t ht = __shfl_sync(0xffffffffu, t, src);
          const uint32_t hb = __shfl_sync(0xffffffffu, b, src),
                         he = __shfl_sync(0xffffffffu, e, src);
          bool ho = __shfl_sync(0xffffffffu, out, src), ha = __shfl_sync(0xffffffffu, all, src);
          for (uint32_t q0 = hb; q0 < he && !ho && (ha || r > 0); q0 += 32) {
            bool o = false, a = true;
            if (q0 + lane < he) {
              const int u = col(q0 + lane);
              if (!sub || Inw(u)) {
                const uint32_t m = Mw(u);
                o = m == kOut2;
                a = m == ht;
              }
            }
            ho = __any_sync(0xffffffffu, o);
            ha = ha && __all_sync(0xffffffffu, a);
          }
          if ((lane & ~(L - 1)) == src) out = ho, all = ha;
        }
        if (open) {
          __syncwarp(G.gmask); /* the group read t before lane 0 writes */
          if (G.gl == 0)
            Lo.w0[i] = out   ? kOut2
                       : all ? 0u
                             : (uint32_t)mis2_tuple(p.mode, p.seed, r + 1, v0 + i, p.idbits, 32);
          left |= !out && !all;
        }
      }
      if (__any_sync(0xffffffffu, left) && lane == 0) atomicOr(&r0->flag[r & 1], 1u);
      sync_all<C>();
      go = r0->flag[r & 1];
      ++r;
      if (rank == 0 && threadIdx.x == 0) r0->flag[r & 1] = 0; /* last read before this barrier */
    }
  };
  if (reps)
    rounds(std::true_type{});
  else
    rounds(std::false_type{});
  unsigned long long size = 0, und = 0;
  for (int i = threadIdx.x; i < nv; i += kThreads) {
    const uint32_t t = Lo.w0[i];
    p.in_set[v0 + i] = t == 0u;
    size += t == 0u;
    und += t != 0u && t != kOut2; /* the host's count after its last round */
  }
  add_to(&r0->set_size, size);
  add_to(&r0->undecided, und);
  sync_all<C>();
  if (rank == 0 && threadIdx.x == 0) write_result(p, &sh, failed ? sh.undecided : 0ull, r);
}

constexpr int kMaxDevices = 64;

/* The device's shared memory a block may opt into, looked up once a device. */
int max_smem_optin() {
  static std::atomic<int> bytes[kMaxDevices];
  int dev = 0, b = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) return 0;
  if ((b = bytes[dev].load()) > 0) return b;
  if (cudaDeviceGetAttribute(&b, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
    b = 0;
  cudaGetLastError();
  bytes[dev] = b;
  return b;
}

/* Raises the kernel's limits, once a device and kernel (attributes are per
 * device): dynamic shared memory to `bytes` (the same every time: the
 * device's limit less the static part), and clusters of 16 blocks allowed.
 * The CUDA error of the first, cleared. */
cudaError_t allow_smem(const void *kernel, int bytes) {
  static std::atomic<const void *> done[kMaxDevices][32];
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess || dev < 0 || dev >= kMaxDevices)
    return e != cudaSuccess ? (cudaGetLastError(), e) : cudaErrorInvalidDevice;
  for (auto &d : done[dev]) {
    const void *k = d.load(std::memory_order_acquire);
    if (k == kernel) return cudaSuccess;
    if (!k) break;
  }
  e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return e;
  }
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) !=
      cudaSuccess)
    cudaGetLastError(); /* portable sizes only: cluster_ok says so */
  for (auto &d : done[dev]) {
    const void *expect = nullptr;
    if (d.compare_exchange_strong(expect, kernel) || expect == kernel) break;
  }
  return cudaSuccess;
}

/* Cluster sizes known to run (1) or not (2) on a device, by log2 of the size. */
std::atomic<int> cluster_known[kMaxDevices][5];

/* Whether a cluster of `blocks` blocks of this kernel's shape runs on the
 * device (compute capability 9.0; 16 blocks only where the device allows),
 * looked up once a device and size. */
bool cluster_ok(int blocks) {
  if (blocks == 1) return true;
  std::atomic<int>(&ok)[kMaxDevices][5] = cluster_known; /* 0 unknown, 1 yes, 2 no */
  int dev = 0, lg = 0;
  while ((1 << lg) < blocks) ++lg;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices || lg > 4) {
    cudaGetLastError();
    return false;
  }
  const int known = ok[dev][lg].load();
  if (known) return known == 1;
  int v = 0, clusters = 0;
  const void *kern = (const void *)mis2_smem<1, true>;
  const int smem = max_smem_optin() - (int)sizeof(Shared) - 64;
  bool yes = cudaDeviceGetAttribute(&v, cudaDevAttrClusterLaunch, dev) == cudaSuccess && v &&
             smem > 0 && allow_smem(kern, smem) == cudaSuccess;
  if (yes) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1] = {};
    cfg.gridDim = dim3((unsigned)blocks);
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = (size_t)smem;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)blocks;
    attr[0].val.clusterDim.y = attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    yes = cudaOccupancyMaxActiveClusters(&clusters, kern, &cfg) == cudaSuccess && clusters > 0;
  }
  cudaGetLastError();
  ok[dev][lg] = yes ? 1 : 2;
  return yes;
}

/* log2 of the vertices a block of `blocks` owns: the least s with
 * blocks 2^s >= n. */
int owner_shift(int64_t n, int blocks) {
  int s = 0;
  while (((int64_t)blocks << s) < n) ++s;
  return s;
}

/* A block's shared memory before its columns, for MIS-k (k = 1 keeps join
 * flags, MIS-2 subset flags where a subset is given). */
size_t part_bytes(int shift, int k, bool subset) {
  if (k == kColoring) return Layout::fixed_bytes(1 << shift, 2, 0); /* key and color */
  return Layout::fixed_bytes(1 << shift, k == 1 ? 1 : 2, k == 1 ? 2 : subset ? 1 : 0);
}

} // namespace

namespace {
/* mispc_mis_smem_blocks for at most max_entries entries by default and a
 * block's words as MIS-k's (k = 2: two words a vertex). */
int blocks_for(mispc_context *ctx, const mispc_csr *g, int64_t max_entries, int k, int subset) {
  const mispc_tuning *tu = &ctx->tuning;
  if (tu->mis_no_smem || tu->mis_no_persistent || tu->mis_no_worklist || tu->mis_no_early_exit ||
      tu->mis_no_warp_mapping || tu->mis_force_warp_mapping || tu->mis1_lanes)
    return 0;
  const int64_t n = g->nrows;
  if (n < 1 || n > kMaxVertices || g->ncols > kMaxVertices) return 0;
  const int optin = max_smem_optin();
  int cs = tu->mis_smem_blocks;
  if (!cs) {
    if (g->nnz > max_entries) return 0;
    cs = g->nnz <= kOneBlockEntries ? 1 : cluster_ok(16) ? 16 : 8;
  }
  for (;; cs *= 2) { /* the words must fit */
    if (cs > kMaxCluster || !cluster_ok(cs)) return 0;
    if (part_bytes(owner_shift(n, cs), k, subset) + 1024 <= (size_t)optin) return cs;
    if (tu->mis_smem_blocks) return 0;
  }
}

/* Launches kern on `blocks` blocks (a cluster where more than one) of
 * kThreads with `use` bytes of shared memory (smem: the kernel's limit,
 * raised once) and plan p. Returns 1 where the device refused the cluster
 * (other work holds its SMs: MPS, a partitioned GPU; remembered, so that
 * size is not tried again on this device, and nothing ran), else 0, with
 * *st set where the launch failed otherwise. */
int launch_smem(mispc_context *ctx, cudaStream_t s, const void *kern, int blocks, int use, int smem,
                SmemPlan *p, const char *what, mispc_status *st) {
  cudaError_t ce = allow_smem(kern, smem);
  if (ce == cudaSuccess) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1] = {};
    cfg.gridDim = dim3((unsigned)blocks);
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = (size_t)use;
    cfg.stream = s;
    if (blocks > 1) {
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim.x = (unsigned)blocks;
      attr[0].val.clusterDim.y = 1;
      attr[0].val.clusterDim.z = 1;
      cfg.attrs = attr;
      cfg.numAttrs = 1;
    }
    void *args[] = {p};
    ce = cudaLaunchKernelExC(&cfg, kern, args);
    if (ce != cudaSuccess) cudaGetLastError();
  }
  if (ce != cudaSuccess && blocks > 1) {
    int dev = 0, lg = 0;
    while ((1 << lg) < blocks) ++lg;
    if (cudaGetDevice(&dev) == cudaSuccess && dev >= 0 && dev < kMaxDevices && lg <= 4)
      cluster_known[dev][lg] = 2;
    cudaGetLastError();
    mispc_logf(ctx, 2, "%s: a cluster of %d blocks was refused (%s): persistent kernels", what,
               blocks, cudaGetErrorString(ce));
    return 1;
  }
  if (ce != cudaSuccess)
    *st = mispc_seterr(ctx, MISPC_ERR_CUDA, "%s: shared-memory kernel launch failed: %s", what,
                       cudaGetErrorString(ce));
  return 0;
}

/* Lanes a vertex: 8 where rows average more than 12 entries (as the
 * persistent kernels), and more where that still leaves threads idle. */
int smem_lanes(mispc_context *ctx, const mispc_csr *g, int blocks) {
  int lanes = ctx->tuning.mis_smem_lanes;
  if (!lanes) {
    lanes = g->nnz <= 12 * g->nrows ? 1 : 8;
    while (lanes < 32 && (int64_t)lanes * 2 * g->nrows <= (int64_t)blocks * kThreads) lanes *= 2;
  }
  return lanes;
}

/* The shared memory a kernel may take (the opt-in less the static part). */
int smem_limit() {
  return max_smem_optin() - (int)sizeof(Shared) - 64;
}

/* The fields every shared-memory kernel's plan takes from the call (the
 * rest zero). */
SmemPlan base_plan(const mispc_csr *g, int shift, uint64_t seed, int mode) {
  SmemPlan p;
  memset(&p, 0, sizeof p);
  p.rowptr = g->rowptr;
  p.colidx = g->colidx;
  p.seed = seed;
  p.n = (int)g->nrows;
  p.shift = shift;
  p.mode = mode;
  return p;
}

/* Runs kern on `blocks` blocks with plan p: asks for before_cols bytes and
 * room for every column (a block's are at most the graph's), so small
 * graphs take little shared memory and the SMs need not switch their L1 /
 * shared split for them, up to smem_limit; sets p's column slots and result
 * words, and returns the kernel's three result words in h. *ran = 0 (and
 * nothing ran) where the device refused the cluster. */
mispc_status run_smem(mispc_context *ctx, cudaStream_t s, const mispc_csr *g, const void *kern,
                      int blocks, int64_t before_cols, SmemPlan *p, const char *what,
                      unsigned long long h[3], int *ran) {
  *ran = 0;
  const int smem = smem_limit();
  const int64_t want = before_cols + ((2 * g->nnz + 15) & ~(int64_t)15);
  const int use = want < smem ? (int)want : smem;
  p->col_cap = use > before_cols ? (unsigned)((use - before_cols) / 2) : 0u;
  unsigned long long *h_mapped = NULL, *d_mapped = NULL, *d_words = NULL;
  MISPC_TRY(mis_cuda::mapped_result<3>(ctx, 1, &h_mapped, &d_mapped)); /* and a done word */
  if (!d_mapped) /* the device cannot write host memory: device words and a copy */
    MISPC_TRY(mispc_scratch_alloc(ctx, 4 * sizeof(unsigned long long), (void **)&d_words,
                                  "shared-memory kernel's result words"));
  p->result = d_mapped ? d_mapped : d_words;
  mispc_status st = MISPC_SUCCESS;
  if (!launch_smem(ctx, s, kern, blocks, use, smem, p, what, &st)) {
    *ran = 1;
    if (!st)
      st = mis_cuda::fetch_result(ctx, s, h, d_words, d_mapped ? h_mapped : NULL,
                                  3 * sizeof(unsigned long long), what);
  }
  if (d_words) mispc_scratch_free(ctx, d_words);
  return st;
}
} // namespace

/* Blocks of the cluster for graph g (k = 1, 2; with a subset for MIS-2), or
 * 0 where the shared-memory kernel does not run: more than 65,536
 * vertices, more entries than the automatic choice takes (forced sizes take
 * any graph whose words fit), or ablations of the other kernels. */
extern "C" int mispc_mis_smem_blocks(mispc_context *ctx, const mispc_csr *g, int k, int subset) {
  return blocks_for(ctx, g, k == 1 ? kSmallEntries1 : kSmallEntries, k, subset);
}

extern "C" mispc_status mispc_mis_smem_cuda(mispc_context *ctx, const mispc_csr *g, int k,
                                            const mispc_mis_options *opt, int mode, int blocks,
                                            const uint8_t *subset, uint8_t *in_set,
                                            mispc_mis_result *res, int *ran) {
  *ran = 0;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int n = (int)g->nrows;
  const int shift = owner_shift(n, blocks);
  const size_t fixed = part_bytes(shift, k, subset != NULL);
  const int64_t cols = (2 * g->nnz + 15) & ~(int64_t)15;
  /* MIS-2 on a cluster: each block's copies of every T and M word (and
   * subset flag) where they fit beside the columns */
  const int64_t total = (int64_t)blocks << shift;
  int replicas = 0;
  const int64_t per_copy = subset ? 9 : 8; /* T, M (and the subset flag) a vertex */
  if (k == 2 && blocks > 1 && shift >= 2 &&
      (int64_t)fixed + per_copy * total + cols <= smem_limit())
    replicas = (int)total;
  SmemPlan p = base_plan(g, shift, opt->seed, mode);
  p.subset = subset;
  p.in_set = in_set;
  p.replicas = replicas;
  p.idbits = mis2_id_bits(n);
  p.max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  /* MIS-1 without rounds unless asked for them (a round limit, or tuning
   * mis_no_sync_free: the host's round count) */
  p.sync_free = k == 1 && !opt->max_rounds && !ctx->tuning.mis_no_sync_free;
  const int lanes = smem_lanes(ctx, g, blocks);
  const void *kern = mispc_with_lanes(lanes, [&](auto l) {
    constexpr int L = decltype(l)::value;
    return k == 1
               ? (blocks > 1 ? (const void *)mis1_smem<L, true> : (const void *)mis1_smem<L, false>)
               : (blocks > 1 ? (const void *)mis2_smem<L, true>
                             : (const void *)mis2_smem<L, false>);
  });
  char what[16];
  snprintf(what, sizeof what, "mispc_mis%d", k);
  unsigned long long h[3] = {0, 0, 0};
  MISPC_TRY(
      run_smem(ctx, s, g, kern, blocks, (int64_t)fixed + per_copy * replicas, &p, what, h, ran));
  if (!*ran) return MISPC_SUCCESS; /* the persistent kernels */
  mispc_logf(ctx, 2, "mispc_mis%d: shared-memory kernel, %d block%s, %d lane%s a vertex%s", k,
             blocks, blocks > 1 ? "s" : "", lanes, lanes > 1 ? "s" : "",
             p.sync_free ? ", sync-free pass" : "");
  res->set_size = (int64_t)h[0];
  res->rounds = (int)h[2];
  if (h[1] != 0) /* the host backends' words */
    return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                        "mispc_mis%d: %llu vertices undecided after %d rounds", k, h[1],
                        p.max_rounds);
  return MISPC_SUCCESS;
}

extern "C" int mispc_color_smem_blocks(mispc_context *ctx, const mispc_csr *g, int hubs) {
  return blocks_for(ctx, g, hubs ? kHubEntries : kSmallEntries1, kColoring, 0);
}

extern "C" mispc_status mispc_color_smem_cuda(mispc_context *ctx, const mispc_csr *g, int key_mode,
                                              uint64_t seed, int blocks, int check, int32_t *color,
                                              int32_t *ncolors, int *ran) {
  *ran = 0;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const int n = (int)g->nrows;
  const int shift = owner_shift(n, blocks);
  SmemPlan p = base_plan(g, shift, seed, key_mode);
  p.color = color;
  p.check = check;
  const int lanes = smem_lanes(ctx, g, blocks);
  const void *kern = mispc_with_lanes(lanes, [&](auto l) {
    constexpr int L = decltype(l)::value;
    return blocks > 1 ? (const void *)color_smem<L, true> : (const void *)color_smem<L, false>;
  });
  unsigned long long h[3] = {0, 0, 0};
  MISPC_TRY(run_smem(ctx, s, g, kern, blocks, (int64_t)part_bytes(shift, kColoring, false), &p,
                     "mispc_color", h, ran));
  if (!*ran) return MISPC_SUCCESS; /* the persistent kernel */
  mispc_logf(ctx, 2, "mispc_color: shared-memory kernel, %d block%s, %d lane%s a vertex", blocks,
             blocks > 1 ? "s" : "", lanes, lanes > 1 ? "s" : "");
  if (h[1])
    return mispc_seterr(ctx, MISPC_ERR_UNSYMMETRIC,
                        "mispc_color: %llu vertices listed by neighbours they do not list (the "
                        "pattern must be symmetric without repeated entries; was skip_validation "
                        "set?)",
                        h[1]);
  *ncolors = (int32_t)h[0];
  return MISPC_SUCCESS;
}
