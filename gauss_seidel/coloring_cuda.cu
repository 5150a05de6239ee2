/* GPU step of mispc_color (MISPC_COLORING_MIS): greedy coloring in MIS-1 key
 * order, each vertex colored as soon as its earlier neighbours are
 * (Jones-Plassmann; why that equals one MIS-1 per color: coloring.c).
 *
 * Each vertex counts its earlier neighbours (pred). A vertex whose count is 0
 * takes the smallest color its earlier neighbours do not have, then
 * decrements the count of each later neighbour (a reduction nothing waits
 * for). So a row is read three times in all (count, color, release), however
 * long the chains of earlier neighbours are; a rescan of every waiting row on
 * every visit, measured first, made Elasticity3D_60 slower than one MIS-1 per
 * color (docs/results/gauss-seidel-notebook.md).
 *
 * One cooperative (persistent) launch: keys, a grid barrier, counts, a grid
 * barrier, then each warp polls the counts of its vertices (32 at a time, one
 * load each) and colors those at 0, again and again until all have a color,
 * without barriers (as the sync-free MIS-1 pass, ECL-MIS §3). Every block is
 * resident, so the uncolored vertex that comes first is always at 0. Colors
 * move only from -1 to their final value and are read only once final, so the
 * result does not depend on timing. Without cooperative launch (or with
 * no_persistent) each pass is one launch and the host stops when a pass
 * leaves none.
 *
 * Ordering: a vertex stores its color, fences, then decrements; the owner
 * that reads a count of 0 fences before it reads colors (relaxed device-scope
 * loads, never a stale L1 line). A count that never reaches 0 means the
 * pattern is not symmetric (skip_validation on a bad graph): a warp that
 * colors nothing for kStallNs gives up and the call fails instead of hanging;
 * a count released too often is caught by a last pass (every count must end
 * at kDone).
 *
 * Work mapping: a group of L lanes per vertex being colored (1 for short
 * rows, 8 where the mean row exceeds 12 entries, as MIS-1; the whole warp
 * for rows above kLongRow entries, hubs); each lane loads
 * kChunk neighbours' ids, then their keys and colors, before it tests them.
 *
 * Graphs with no row above kPollRow = 31 entries take the polled pass
 * instead (a cooperative launch of its own, jp_polled<false>: ECL-GC's
 * kernel for short rows with its shortcut; each vertex re-reads the
 * possible colors of its earlier neighbours not colored yet, no atomics or
 * fences; mask_body, poll_body below): 1.5-3.6x faster on meshes, road and
 * random graphs (H200: Laplace3D_100 0.49 -> 0.145 ms, Laplace3D_150 1.75
 * -> 0.54, ECL-GC 0.88; grid3d27:60 0.37 -> 0.25). Graphs averaging more
 * than 31 entries a row take the counted pass. Every pass gives the greedy
 * colors in key order.
 *
 * Graphs with hubs (a degree above mis1_hub_degree, as for the sync-free
 * MIS-1 pass) or, averaging at most 31 entries, with a longer row: the
 * polled pass with wide rows (jp_polled<true>, after the pass above stops
 * at the keys: one host round trip): a warp visits each row of more than 31
 * entries, listed so that the hubs spread over the warps (wide_start,
 * wide_visit). In the counted pass a hub's row was read by one warp at each
 * step of a chain of hubs (Kronecker 2^20 2x slower than one MIS-1 per
 * color, docs/results/gauss-seidel-notebook.md); the wide pass re-reads a
 * hub's earlier neighbours still masked at each visit, so it gives up where
 * a row has more than kWideEarlyMax of them (hash order on gen:kron:18), and
 * one MIS-1 per color runs (coloring.c). H200 (docs/BENCHMARKS.md "Hubs in
 * the polled pass"): gen:kron:12 1.61 -> 0.75 ms, gen:kron:14 5.8 -> 2.5,
 * gen:kron:16 16.3 -> 13.5-14.5; largest degree first, gen:kron:16 1.25 ms
 * against ECL-GC's 1.41.
 *
 * Small graphs (up to 49,152 entries, or 131,072 where the wide pass gave
 * up; at most 65,536 vertices) are colored by one thread block cluster in
 * shared memory instead (mis/mis_smem_cuda.cu color_smem: the same colors,
 * 1.8-3.7x faster there; docs/BENCHMARKS.md). */
#include <cooperative_groups.h>

#include "color_backend.h"
#include "mis_common.h"
#include "mis_cuda.cuh"

namespace cg = cooperative_groups;

namespace {

using mis_cuda::kBlock;
constexpr int kWarps = kBlock / 32;
/* Blocks per SM of the persistent kernel: 5 leave 48 registers, where 8 (32)
 * and 6 (40) spill the chunk's loads and the rows kept across a step. */
constexpr int kPersistentBlocks = 5;
constexpr int kPolledBlocks = 6; /* the polled pass: 40 registers, none spilled (8: 32, spilled) */
constexpr int kLongRow = 128;    /* rows above this get a whole warp */
constexpr int kChunk = 4;        /* neighbours a lane loads before it tests them */
constexpr int kMaxRounds = MIS1_MAX_ROUNDS; /* passes of the one-launch-per-pass fallback */
constexpr int32_t kDone = INT32_MIN / 2; /* pred of a colored vertex (room below: see check_body) */
constexpr unsigned long long kStallNs = MISPC_COLOR_STALL_NS;
constexpr int kPollRow = 31; /* rows up to this length: the polled pass (a mask a row) */
constexpr uint32_t kPolled = 0xFFFFFFFFu; /* mask of a colored vertex (no row of 32 entries) */
/* words: largest color + 1, flags, the symmetry sum (2 words), the wide
 * rows listed, the most earlier neighbours of a wide row, left per pass */
enum { kTop = 0, kFlags = 1, kSum = 2, kWides = 4, kEarly = 5, kLeft = 6 };
enum { kFlagMissing = 1u, kFlagStalled = 2u, kFlagHub = 4u, kFlagLong = 8u, kFlagDeep = 16u };
/* The wide pass gives up (kFlagDeep: one MIS-1 a color instead) where a row
 * has more earlier neighbours than this: its warp re-reads those still
 * masked at each visit, along chains through the hubs. H200, hash order,
 * against the MIS-1 calls: gen:kron:16 (largest degree 9,635) 13.5-14.5
 * against 16.3-16.9 ms, gen:kron:17 (15,709) 28.7-28.8 against 28.1-28.6,
 * gen:kron:18 (25,328) 91-106 without giving up, 57-58 with it against 56
 * (docs/BENCHMARKS.md). */
constexpr unsigned kWideEarlyMax = 8192;

struct Plan {
  const int64_t *rowptr;
  const int32_t *colidx;
  uint32_t *key;
  int32_t *color;
  int32_t *pred;  /* earlier neighbours not colored yet; + kDone once colored (polled
                    pass: the mask of the row's uncolored earlier neighbours) */
  uint32_t *poss; /* polled pass: the colors v may still take (bit c: color c); 0 for a
                     wide vertex (a row above kPollRow entries), which publishes span */
  int32_t *early; /* wide rows: the earlier neighbours still masked, compacted from rowptr[v] */
  uint32_t *bits; /* wide rows: the colors v may take, words [rowptr[v] / 32 + v,
                     rowptr[v + 1] / 32 + v + 1), read and written by v's warp only */
  unsigned long long *span; /* wide rows: the lowest (low half) and highest possible color */
  int32_t *wide;            /* the wide rows (p.word[kWides] of them), in any order */
  int32_t *wkept;           /* wide[i]'s earlier neighbours still masked (kWideDone: colored) */
  int64_t n, hub_degree;
  uint64_t seed;
  int key_mode;
  int check; /* polled pass: sum the pattern's entries (symmetry) */
  unsigned *word;
};

__device__ __forceinline__ bool hub_seen(const Plan &p) {
  return mispc_load_relaxed(p.word + kFlags) & kFlagHub;
}

/* Keys and empty colors; flags a hub (then nothing else runs) and rows
 * longer than kPollRow (then the counted pass runs). */
__device__ __forceinline__ void init_body(const Plan &p) {
  bool hub = false, lng = false;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < p.n;
       v += (int64_t)gridDim.x * blockDim.x) {
    const int64_t deg = p.rowptr[v + 1] - p.rowptr[v];
    p.key[v] = mis1_key(p.key_mode, p.seed, v, deg);
    p.color[v] = -1;
    hub |= deg > p.hub_degree;
    lng |= deg > kPollRow;
  }
  if (__syncthreads_or(hub) && threadIdx.x == 0) atomicOr(p.word + kFlags, kFlagHub);
  if (__syncthreads_or(lng) && threadIdx.x == 0) atomicOr(p.word + kFlags, kFlagLong);
}

/* Loads kChunk neighbours of the lane (entries q0 + k L + gl below e; v
 * where none) and their keys; with Colors, their colors too. */
template <int L, bool Colors> struct Chunk {
  int32_t u[kChunk];
  uint32_t ku[kChunk], cu[kChunk];
  __device__ __forceinline__ Chunk(const Plan &p, int32_t v, int64_t q0, int64_t e, int gl) {
#pragma unroll
    for (int k = 0; k < kChunk; ++k) {
      const int64_t q = q0 + (int64_t)k * L + gl;
      u[k] = q < e ? p.colidx[q] : v; /* v itself never counts */
    }
#pragma unroll
    for (int k = 0; k < kChunk; ++k) {
      ku[k] = p.key[u[k]];
      if (Colors) cu[k] = mispc_load_relaxed((const uint32_t *)p.color + u[k]);
    }
  }
};

/* The number of v's neighbours before v, seen by its group of L lanes. */
template <int L>
__device__ __forceinline__ int32_t count_earlier(const Plan &p, int32_t v, int64_t b, int64_t e,
                                                 int gl, unsigned gmask) {
  const uint32_t kv = p.key[v];
  int32_t cnt = 0;
  for (int64_t q0 = b; q0 < e; q0 += (int64_t)L * kChunk) {
    const Chunk<L, false> c(p, v, q0, e, gl);
#pragma unroll
    for (int k = 0; k < kChunk; ++k) cnt += c.u[k] != v && mis1_before(c.ku[k], c.u[k], kv, v);
  }
  return L > 1 ? (int32_t)__reduce_add_sync(gmask, (unsigned)cnt) : cnt;
}

/* pred[v] of every vertex: groups of L lanes, the whole warp for rows above
 * kLongRow entries. */
template <int L> __device__ __forceinline__ void count_body(const Plan &p) {
  constexpr int G = 32 / L;
  const int lane = threadIdx.x & 31, g = lane / L, gl = lane % L;
  const unsigned gmask = mispc_group_mask<L>();
  const int64_t gwarp = (int64_t)blockIdx.x * kWarps + (threadIdx.x >> 5);
  const int64_t nwarps = (int64_t)gridDim.x * kWarps;
  for (int64_t base = gwarp * G; base < p.n; base += nwarps * G) { /* warp-uniform */
    const int64_t v = base + g;
    int64_t b = 0, e = 0;
    if (v < p.n) b = p.rowptr[v], e = p.rowptr[v + 1];
    const bool lng = L < 32 && e - b > kLongRow;
    if (v < p.n && !lng) {
      const int32_t c = count_earlier<L>(p, (int32_t)v, b, e, gl, gmask);
      if (gl == 0) p.pred[v] = c;
    }
    for (unsigned m = __ballot_sync(0xffffffffu, lng && gl == 0); m; m &= m - 1) {
      const int src = __ffs(m) - 1;
      const int32_t hv = (int32_t)__shfl_sync(0xffffffffu, v, src);
      const int32_t c = count_earlier<32>(p, hv, __shfl_sync(0xffffffffu, b, src),
                                          __shfl_sync(0xffffffffu, e, src), lane, 0xffffffffu);
      if (lane == 0) p.pred[hv] = c;
    }
  }
}

/* The group colors v (all its earlier neighbours are colored) and releases
 * its later neighbours. Colors are taken 64 at a time, as on the host
 * (coloring.c jp_visit). */
template <int L>
__device__ __forceinline__ void color_vertex(const Plan &p, int32_t v, int64_t b, int64_t e, int gl,
                                             unsigned gmask, int32_t &top) {
  const uint32_t kv = p.key[v];
  bool missing = false;
  int32_t c = -1;
  for (int32_t base = 0; c < 0; base += 64) {
    uint32_t lo = 0, hi = 0;
    for (int64_t q0 = b; q0 < e; q0 += (int64_t)L * kChunk) {
      const Chunk<L, true> ch(p, v, q0, e, gl);
#pragma unroll
      for (int k = 0; k < kChunk; ++k)
        if (ch.u[k] != v && mis1_before(ch.ku[k], ch.u[k], kv, v)) {
          const int32_t cu = (int32_t)ch.cu[k];
          missing |= cu < 0;
          const uint32_t d = (uint32_t)(cu - base); /* wraps above 63 below base */
          if (cu >= 0 && d < 32u) lo |= 1u << d;
          if (cu >= 0 && d - 32u < 32u) hi |= 1u << (d - 32u);
        }
    }
    if (L > 1) {
      lo = __reduce_or_sync(gmask, lo);
      hi = __reduce_or_sync(gmask, hi);
    }
    if (~lo)
      c = base + __ffs(~lo) - 1;
    else if (~hi)
      c = base + 32 + __ffs(~hi) - 1;
  }
  if (missing) atomicOr(p.word + kFlags, kFlagMissing);
  if (gl == 0) {
    mispc_store_relaxed((uint32_t *)p.color + v, (uint32_t)c);
    top = c > top ? c : top;
  }
  __syncwarp(gmask);
  __threadfence(); /* the color before the decrements */
  /* the release: kChunk entries' ids, then their keys, then the decrements
   * (one load after another a step made a step of a chain cost two round trips
   * an entry) */
  for (int64_t q0 = b; q0 < e; q0 += (int64_t)L * kChunk) {
    const Chunk<L, false> ch(p, v, q0, e, gl);
#pragma unroll
    for (int k = 0; k < kChunk; ++k)
      if (ch.u[k] != v && mis1_before(kv, v, ch.ku[k], ch.u[k])) atomicSub(p.pred + ch.u[k], 1);
  }
  /* done: 0 + kDone, or less where a neighbour released v too often */
  if (gl == 0) atomicAdd(p.pred + v, kDone);
}

/* One pass over the warp's vertices, 32 a step: lane j polls the count of
 * vertex j, and the ready ones (count 0) are colored by the groups of L
 * lanes, the k-th by group k mod G. Returns how many of the warp's vertices
 * still wait (warp-uniform); *did = whether it colored any. */
template <int L> __device__ __forceinline__ unsigned pass(const Plan &p, int32_t &top, int &did) {
  constexpr int G = 32 / L;
  const int lane = threadIdx.x & 31, g = lane / L, gl = lane % L;
  const unsigned gmask = mispc_group_mask<L>();
  const int64_t gwarp = (int64_t)blockIdx.x * kWarps + (threadIdx.x >> 5);
  const int64_t nwarps = (int64_t)gridDim.x * kWarps;
  unsigned waiting = 0;
  for (int64_t base = gwarp * 32; base < p.n; base += nwarps * 32) {
    const int64_t i = base + lane;
    int32_t s = kDone;
    int64_t b = 0, e = 0;
    if (i < p.n) { /* three independent loads */
      s = (int32_t)mispc_load_relaxed((const uint32_t *)p.pred + i);
      b = p.rowptr[i];
      e = p.rowptr[i + 1];
    }
    unsigned ready = __ballot_sync(0xffffffffu, s == 0);
    waiting += __popc(__ballot_sync(0xffffffffu, s > 0));
    if (s < 0 && s != kDone) atomicOr(p.word + kFlags, kFlagMissing); /* released too often */
    if (!ready) continue;
    did = 1;
    __threadfence(); /* the zero counts before the colors they stand for */
    const unsigned lng = L < 32 ? __ballot_sync(0xffffffffu, s == 0 && e - b > kLongRow) : 0u;
    ready &= ~lng;
    while (ready) { /* warp-uniform */
      unsigned mine = ready;
      for (int j = 0; j < g && mine; ++j) mine &= mine - 1;
      for (int j = 0; j < G && ready; ++j) ready &= ready - 1;
      const int src = mine ? __ffs(mine) - 1 : 0; /* group-uniform */
      const int64_t vb = __shfl_sync(0xffffffffu, b, src), ve = __shfl_sync(0xffffffffu, e, src);
      if (mine) color_vertex<L>(p, (int32_t)(base + src), vb, ve, gl, gmask, top);
    }
    for (unsigned m = lng; m; m &= m - 1) { /* the whole warp for each long row */
      const int src = __ffs(m) - 1;
      const int64_t vb = __shfl_sync(0xffffffffu, b, src), ve = __shfl_sync(0xffffffffu, e, src);
      color_vertex<32>(p, (int32_t)(base + src), vb, ve, lane, 0xffffffffu, top);
    }
  }
  return waiting;
}

/* ---- The polled pass (rows of at most kPollRow entries) ------------------
 * ECL-GC's kernel for short rows (Alabandi, Powers and Burtscher, PPoPP
 * 2020; its CUDA source, runSmall) in key order: a thread a vertex keeps the
 * mask of the row's earlier neighbours (key order) not colored yet and
 * publishes the set of colors still possible for it (a bit a color, below
 * 32: at most 31 earlier neighbours), and on each visit re-reads only the
 * masked neighbours' sets (poll_visit) until it can take its color. A set
 * only shrinks, and holds one color once final; nothing else is shared, so
 * there are no counts, atomics or fences, and the colors are the greedy ones
 * in key order for any timing. The uncolored vertex first in key order can
 * always take its color, so the pass ends on any pattern (an unsymmetric
 * one, passed with skip_validation, is caught by a sum over the entries
 * instead: mask_body). H200 (docs/BENCHMARKS.md), against the counted pass:
 * Laplace3D_100 0.49 -> 0.145 ms, roadgrid:1000 0.21 -> 0.095, grid3d27:60
 * 0.37 -> 0.24; without the shortcut 0.17, 0.10 and 0.37. */

/* +h(v, u) or -h(u, v): an entry's term of the symmetry sum. */
__device__ __forceinline__ unsigned long long pair_term(int32_t v, int32_t u) {
  const uint64_t lo = u < v ? (uint64_t)u : (uint64_t)v, hi = u < v ? (uint64_t)v : (uint64_t)u;
  const unsigned long long h = mispc_hash3(0x5e11, lo, hi);
  return u > v ? h : 0ull - h;
}

/* A wide row's start, by its warp: the earlier neighbours compacted at
 * early[b ...] in row order, the set 0 .. k in its words, span (0, k).
 * Returns the lane's part of the symmetry sum. */
__device__ unsigned long long wide_start(const Plan &p, int32_t v, int64_t b, int64_t e, int64_t i,
                                         int lane) {
  const uint32_t kv = p.key[v];
  unsigned long long sum = 0;
  int32_t k = 0;
  for (int64_t q0 = b; q0 < e; q0 += 32) {
    const int64_t q = q0 + lane;
    const int32_t u = q < e ? p.colidx[q] : v;
    const bool earlier = u != v && mis1_before(p.key[u], u, kv, v);
    if (p.check && u != v) sum += pair_term(v, u);
    const unsigned bal = __ballot_sync(0xffffffffu, earlier);
    if (earlier) p.early[b + k + __popc(bal & ((1u << lane) - 1u))] = u;
    k += __popc(bal);
  }
  const int64_t w0 = b / 32 + v, nw = e / 32 + v + 1 - w0; /* the region's words */
  for (int64_t w = lane; w < nw; w += 32) {
    const int64_t nb = k + 1 - 32 * w; /* bits of this word in 0 .. k (the rest 0) */
    p.bits[w0 + w] = nb >= 32 ? 0xFFFFFFFFu : nb > 0 ? (1u << nb) - 1u : 0u;
  }
  if (lane == 0) {
    if (k > 0) atomicMax(p.word + kEarly, (unsigned)k);
    p.wkept[i] = k;
    p.pred[v] = (int32_t)kPolled; /* poll_visit passes it by */
    p.poss[v] = 0;
    p.span[v] = (unsigned long long)k << 32;
  }
  return sum;
}

/* v's short row [b, e): pred[v] = the mask of its earlier neighbours
 * (entry positions), poss[v] = colors 0 .. (their number); adds the row's
 * terms of the symmetry sum to sum. */
__device__ __forceinline__ void short_start(const Plan &p, int64_t v, int64_t b, int64_t e,
                                            unsigned long long &sum) {
  const uint32_t kv = p.key[v];
  uint32_t m = 0;
  for (int64_t q0 = b; q0 < e; q0 += kChunk) {
    const Chunk<1, false> c(p, (int32_t)v, q0, e, 0);
#pragma unroll
    for (int k = 0; k < kChunk; ++k) {
      if (c.u[k] != v && mis1_before(c.ku[k], c.u[k], kv, (int32_t)v)) m |= 1u << (q0 + k - b);
      if (p.check && c.u[k] != v) sum += pair_term((int32_t)v, c.u[k]); /* past e: v */
    }
  }
  p.pred[v] = (int32_t)m;
  p.poss[v] = 0xFFFFFFFFu >> (31 - __popc(m));
}

/* Every row's start (short_start; with Wide, rows above kPollRow entries
 * by their warps: wide_start, listed in p.wide); with p.check, the sum over
 * the entries (v, u) of +h(v, u) where v < u and -h(u, v) where v > u (h a
 * hash of the pair), which is 0 on a symmetric pattern and on an unsymmetric
 * one only where the unmatched entries' hashes cancel. */
template <bool Wide> __device__ __forceinline__ void mask_body(const Plan &p) {
  unsigned long long sum = 0;
  if (!Wide)
    for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < p.n;
         v += (int64_t)gridDim.x * blockDim.x)
      short_start(p, v, p.rowptr[v], p.rowptr[v + 1], sum);
  const int lane = threadIdx.x & 31;
  for (int64_t base = blockIdx.x * (int64_t)blockDim.x + (threadIdx.x & ~31); Wide && base < p.n;
       base += (int64_t)gridDim.x * blockDim.x) { /* warp-uniform */
    const int64_t v = base + lane;
    int64_t b = 0, e = 0;
    if (v < p.n) b = p.rowptr[v], e = p.rowptr[v + 1];
    const bool wide = v < p.n && e - b > kPollRow;
    if (v < p.n && !wide) short_start(p, v, b, e, sum);
    const unsigned wm0 = __ballot_sync(0xffffffffu, wide);
    unsigned at = 0; /* listed so that poll_body spreads them over all warps */
    if (wm0 && lane == 0) at = atomicAdd(p.word + kWides, (unsigned)__popc(wm0));
    at = __shfl_sync(0xffffffffu, at, 0);
    at += __popc(wm0 & ((1u << lane) - 1u));
    if (wide) p.wide[at] = (int32_t)v;
    for (unsigned wm = wm0; wm; wm &= wm - 1) {
      const int src = __ffs(wm) - 1;
      sum +=
          wide_start(p, (int32_t)__shfl_sync(0xffffffffu, v, src), __shfl_sync(0xffffffffu, b, src),
                     __shfl_sync(0xffffffffu, e, src), __shfl_sync(0xffffffffu, at, src), lane);
    }
  }
  if (p.check) mispc_block_add<kBlock>(sum, (unsigned long long *)(p.word + kSum));
}

/* One visit of v: reads the possible colors of its masked neighbours
 * (kChunk ids, then their sets) and narrows its own (ECL-GC's shortcut,
 * runSmall): a neighbour whose set misses v's takes v's highest possible
 * color with it, a colored one (a set of one) its color; v takes its lowest
 * possible color once no masked neighbour could take it, or once none is
 * left. |set| = masked + 1 throughout, and v's greedy color stays in it. */
enum { kWasColored = 0, kColored = 1, kWaits = 2 };
template <bool Wide>
__device__ __forceinline__ int poll_visit(const Plan &p, int32_t v, int32_t &top) {
  const uint32_t m0 = (uint32_t)p.pred[v];
  if (m0 == kPolled) return kWasColored;
  const int64_t b = p.rowptr[v];
  uint32_t m = m0, pc = p.poss[v], left = m, all = 0;
  while (left) {
    int32_t u[kChunk];
    uint32_t bit[kChunk];
#pragma unroll
    for (int k = 0; k < kChunk; ++k) {
      bit[k] = left & (0u - left);
      left &= left - 1;
      u[k] = bit[k] ? p.colidx[b + __ffs(bit[k]) - 1] : v;
    }
    uint32_t np[kChunk];
#pragma unroll
    for (int k = 0; k < kChunk; ++k) np[k] = bit[k] ? mispc_load_relaxed(p.poss + u[k]) : 0u;
#pragma unroll
    for (int k = 0; k < kChunk; ++k)
      if (bit[k]) {
        bool dec = __popc(np[k]) == 1;
        if (Wide && !np[k]) { /* a wide neighbour: its span, as a set of colors below 32 */
          const unsigned long long sp = mispc_load_word(p.span + u[k]);
          const uint32_t lo = (uint32_t)sp, hi = (uint32_t)(sp >> 32);
          dec = lo == hi;
          np[k] = lo > 31 ? 0u : (hi >= 31 ? 0xFFFFFFFFu : (2u << hi) - 1u) & (0xFFFFFFFFu << lo);
        }
        all |= np[k];
        if (!(pc & np[k])) {
          pc &= ~(0x80000000u >> __clz(pc)); /* its highest */
          m &= ~bit[k];
        } else if (dec) {
          pc &= ~np[k];
          m &= ~bit[k];
        }
      }
  }
  if (m && !(pc & (0u - pc) & all)) m = 0, pc &= 0u - pc; /* the shortcut */
  if (m) {
    if (m != m0) { /* a neighbour left the mask, a color the set */
      p.pred[v] = (int32_t)m;
      mispc_store_relaxed(p.poss + v, pc);
    }
    return kWaits;
  }
  const int32_t c = __ffs(pc) - 1; /* pc has one bit */
  mispc_store_relaxed(p.poss + v, pc);
  mispc_store_relaxed((uint32_t *)p.color + v, (uint32_t)c);
  p.pred[v] = (int32_t)kPolled;
  top = c > top ? c : top;
  return kColored;
}

/* ---- Wide rows (more than kPollRow entries): a warp a visit --------------
 * (The set's words are read and written with relaxed device-scope
 * operations: the decided colors leave by atomics, which L1 does not see.)
 * The same rule with the set in the vertex's own words (bits) and
 * [lowest, highest] published (span): the warp reads 32 masked neighbours
 * at once, tests each against the set as it was before those 32, then takes
 * the decided ones' colors and, for each neighbour whose set missed, the
 * highest color out (bench/experiments/color_depth.c checks that this
 * batched, interval-published form still gives the greedy colors). */
constexpr int32_t kWideDone = -1; /* wkept of a colored wide vertex */

/* Whether v's set (words [w0, w1)) holds a color in [lo, hi]. */
__device__ __forceinline__ bool any_in(const Plan &p, int64_t w0, int64_t w1, uint32_t lo,
                                       uint32_t hi) {
  for (int64_t w = w0 + lo / 32; w < w1 && (w - w0) * 32 <= (int64_t)hi; ++w) {
    uint32_t x = mispc_load_relaxed(p.bits + w);
    const int64_t c0 = (w - w0) * 32;
    if (c0 < (int64_t)lo) x &= 0xFFFFFFFFu << (lo - c0);
    if (c0 + 31 > (int64_t)hi) x &= 0xFFFFFFFFu >> (c0 + 31 - hi);
    if (x) return true;
  }
  return false;
}

/* The lowest (low) or highest color of v's set, by the warp. */
__device__ __forceinline__ int32_t set_end(const Plan &p, int64_t w0, int64_t w1, int lane,
                                           bool low) {
  const int64_t nw = w1 - w0;
  for (int64_t k0 = 0; k0 < nw; k0 += 32) {
    const int64_t k = low ? k0 + lane : nw - 1 - k0 - lane;
    const uint32_t x = k >= 0 && k < nw ? mispc_load_relaxed(p.bits + w0 + k) : 0u;
    const unsigned bal = __ballot_sync(0xffffffffu, x != 0);
    if (bal) {
      const int src = __ffs(bal) - 1; /* the lowest lane: lowest (low) or highest word */
      const uint32_t xs = __shfl_sync(0xffffffffu, x, src);
      const int64_t ks = __shfl_sync(0xffffffffu, k, src);
      return (int32_t)(32 * ks + (low ? __ffs(xs) - 1 : 31 - __clz(xs)));
    }
  }
  return -1; /* never: the set is never empty */
}

/* One visit of wide vertex v by its warp (every lane calls it). */
__device__ int wide_visit(const Plan &p, int32_t wi, int lane, int32_t &top) {
  const int32_t kept = p.wkept[wi];
  if (kept == kWideDone) return kWasColored;
  const int32_t v = p.wide[wi];
  const int64_t b = p.rowptr[v], e = p.rowptr[v + 1];
  const int64_t w0 = b / 32 + v, w1 = e / 32 + v + 1;
  int32_t out = 0;
  for (int32_t i0 = 0; i0 < kept; i0 += 32) {
    const int32_t i = i0 + lane;
    const bool has = i < kept;
    const int32_t u = has ? p.early[b + i] : v;
    bool dec = false, meet = false;
    int32_t dc = 0;
    if (has) {
      const uint32_t st = mispc_load_relaxed(p.poss + u);
      if (st) { /* a short row: its exact set, below 32 */
        dec = __popc(st) == 1;
        dc = __ffs(st) - 1;
        meet = (st & mispc_load_relaxed(p.bits + w0)) != 0;
      } else {
        const unsigned long long sp = mispc_load_word(p.span + u);
        const uint32_t lo = (uint32_t)sp, hi = (uint32_t)(sp >> 32);
        dec = lo == hi;
        dc = (int32_t)lo;
        meet = any_in(p, w0, w1, lo, hi);
      }
    }
    const bool keep = has && meet && !dec;
    const unsigned km = __ballot_sync(0xffffffffu, keep);
    const int drops = __popc(__ballot_sync(0xffffffffu, has && !meet));
    __syncwarp(); /* every lane read its u and the set before the writes below */
    if (keep) p.early[b + out + __popc(km & ((1u << lane) - 1u))] = u;
    out += __popc(km);
    if (has && meet && dec) atomicAnd(p.bits + w0 + dc / 32, ~(1u << (dc % 32)));
    __syncwarp();
    if (lane == 0) /* the highest colors leave, one a neighbour whose set missed */
      for (int64_t w = w1 - 1, d = drops; d > 0 && w >= w0; --w) {
        uint32_t x = mispc_load_relaxed(p.bits + w);
        while (d > 0 && x) x &= ~(0x80000000u >> __clz(x)), --d;
        mispc_store_relaxed(p.bits + w, x);
      }
    __syncwarp();
  }
  const int32_t lo = set_end(p, w0, w1, lane, true);
  bool taken = false; /* the shortcut: may a masked neighbour still take lo? */
  for (int32_t i0 = 0; i0 < out && !taken; i0 += 32) {
    const int32_t i = i0 + lane;
    bool t = false;
    if (i < out) {
      const int32_t u = p.early[b + i];
      const uint32_t st = mispc_load_relaxed(p.poss + u);
      if (st)
        t = lo < 32 && ((st >> lo) & 1u);
      else {
        const unsigned long long sp = mispc_load_word(p.span + u);
        t = (uint32_t)sp <= (uint32_t)lo && (uint32_t)lo <= (uint32_t)(sp >> 32);
      }
    }
    taken = __any_sync(0xffffffffu, t);
  }
  if (out && taken) {
    const int32_t hi = set_end(p, w0, w1, lane, false);
    if (lane == 0) {
      p.wkept[wi] = out;
      *(volatile unsigned long long *)(p.span + v) =
          ((unsigned long long)(uint32_t)hi << 32) | (uint32_t)lo;
    }
    __syncwarp();
    return kWaits;
  }
  if (lane == 0) {
    *(volatile unsigned long long *)(p.span + v) =
        ((unsigned long long)(uint32_t)lo << 32) | (uint32_t)lo;
    mispc_store_relaxed((uint32_t *)p.color + v, (uint32_t)lo);
    p.wkept[wi] = kWideDone;
    top = lo > top ? lo : top;
  }
  __syncwarp();
  return kColored;
}

/* Threads visit their short rows (v = thread, thread + threads, ...) and,
 * with Wide, warps the wide rows of the list (i = warp, warp + warps, ...:
 * hubs, which cluster at low ids in a Kronecker graph, spread over the
 * warps) until all are colored. */
template <bool Wide> __device__ __forceinline__ void poll_body(const Plan &p, int32_t &top) {
  const int64_t first = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  const int32_t nwide = Wide ? (int32_t)mispc_load_relaxed(p.word + kWides) : 0;
  unsigned long long last = mispc_global_ns();
  for (bool left = true; __any_sync(0xffffffffu, left);) {
    bool progress = false;
    left = false;
    for (int64_t v = first; v < p.n; v += step) { /* wide rows: as if colored */
      const int r = poll_visit<Wide>(p, (int32_t)v, top);
      left |= r == kWaits;
      progress |= r == kColored;
    }
    for (int32_t i = (int32_t)(first / 32); Wide && i < nwide; i += (int32_t)(step / 32)) {
      const int r = wide_visit(p, i, threadIdx.x & 31, top); /* the warp's */
      left |= r == kWaits;
      progress |= r == kColored;
    }
    const unsigned long long now = mispc_global_ns();
    if (Wide ? __any_sync(0xffffffffu, progress) : progress) last = now;
    if (__any_sync(0xffffffffu, now - last > kStallNs)) { /* a safety net, never expected */
      if ((threadIdx.x & 31) == 0) atomicOr(p.word + kFlags, kFlagStalled);
      break;
    }
  }
}

/* Every count must end at kDone: a vertex released more often than it has
 * earlier neighbours (unsymmetric pattern) shows here. */
__device__ __forceinline__ void check_body(const Plan &p) {
  bool bad = false;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < p.n;
       v += (int64_t)gridDim.x * blockDim.x)
    bad |= mispc_load_relaxed((const uint32_t *)p.pred + v) != (uint32_t)kDone;
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr(p.word + kFlags, kFlagMissing);
}

__device__ __forceinline__ void add_top(const Plan &p, int32_t top) {
  const unsigned t = mispc_block_max<kBlock>((unsigned)(top + 1));
  if (threadIdx.x == 0 && t) atomicMax(p.word + kTop, t);
}

template <int L>
__global__ void __launch_bounds__(kBlock, kPersistentBlocks) jp_persistent(Plan p) {
  cg::grid_group grid = cg::this_grid();
  init_body(p);
  grid.sync();
  if (hub_seen(p)) return; /* same in every thread: the caller takes the MIS-1 loop */
  count_body<L>(p);
  grid.sync();
  int32_t top = -1;
  unsigned long long last = mispc_global_ns();
  for (;;) {
    int did = 0;
    if (!pass<L>(p, top, did)) break;
    const unsigned long long now = mispc_global_ns();
    if (did) last = now;
    if (now - last > kStallNs && (threadIdx.x & 31) == 0) atomicOr(p.word + kFlags, kFlagStalled);
    if (__shfl_sync(0xffffffffu, mispc_load_relaxed(p.word + kFlags), 0) & kFlagStalled) break;
  }
  add_top(p, top);
  grid.sync();
  check_body(p);
}

/* The polled pass in a cooperative launch of its own (its registers apart
 * from the counted pass's: 6 blocks an SM). Without Wide (short rows only:
 * no spills) it returns after the keys where it finds a long row or a hub;
 * with Wide (run only after that, or after the counted pass found a hub,
 * whose keys it takes) it colors every graph, or gives up (kFlagDeep) where
 * a row has more than kWideEarlyMax earlier neighbours. */
template <bool Wide> __global__ void __launch_bounds__(kBlock, kPolledBlocks) jp_polled(Plan p) {
  cg::grid_group grid = cg::this_grid();
  if (!Wide) { /* with Wide: the keys and empty colors of the pass before it */
    init_body(p);
    grid.sync();
    if (mispc_load_relaxed(p.word + kFlags) & (kFlagHub | kFlagLong)) return; /* every thread */
  }
  mask_body<Wide>(p);
  grid.sync();
  if (Wide && mispc_load_relaxed(p.word + kEarly) > kWideEarlyMax) { /* the same in every thread */
    if (blockIdx.x == 0 && threadIdx.x == 0) atomicOr(p.word + kFlags, kFlagDeep);
    return;
  }
  int32_t top = -1;
  poll_body<Wide>(p, top);
  add_top(p, top);
}

__global__ void __launch_bounds__(kBlock) jp_init(Plan p) {
  init_body(p);
}

__global__ void __launch_bounds__(kBlock) jp_check(Plan p) {
  if (!hub_seen(p)) check_body(p);
}

template <int L> __global__ void __launch_bounds__(kBlock) jp_count(Plan p) {
  if (!hub_seen(p)) count_body<L>(p);
}

template <int L> __global__ void __launch_bounds__(kBlock) jp_pass(Plan p, int r) {
  if (hub_seen(p)) return; /* nothing left: the rounds stop */
  int32_t top = -1;
  int did = 0;
  const unsigned w = pass<L>(p, top, did);
  mispc_block_add<kBlock>((threadIdx.x & 31) == 0 ? w : 0u, p.word + kLeft + r);
  add_top(p, top);
}

/* The first kLeft words, after the kernels. */
mispc_status fetch_words(mispc_context *ctx, cudaStream_t s, const Plan &p, unsigned *h) {
  cudaMemcpyAsync(h, p.word, kLeft * 4, cudaMemcpyDeviceToHost, s);
  return mispc_sync(ctx, s, "coloring kernels");
}

/* Colors the graph and fetches the words into h. Rows averaging at most
 * kPollRow entries (polled): the polled pass for short rows; where it finds
 * a long row or a hub, the one with wide rows after it (a host round trip).
 * Longer rows: the counted pass; where it finds a hub, the polled pass with
 * wide rows after it. That one gives up on chains through deep hubs (then
 * h says kFlagHub: one MIS-1 a color). */
template <int L>
mispc_status run(mispc_context *ctx, cudaStream_t s, const Plan &p, int64_t nnz, int persistent,
                 int polled, unsigned *h) {
  Plan q = p;
  int launched = 0;
  MISPC_TRY(mis_cuda::launch_persistent(
      ctx, s, polled ? (const void *)jp_polled<false> : (const void *)jp_persistent<L>, &q,
      polled ? p.n : p.n * L, persistent, &launched));
  if (launched) {
    MISPC_TRY(fetch_words(ctx, s, p, h));
    if (!(h[kFlags] & (polled ? kFlagHub | kFlagLong : kFlagHub))) return MISPC_SUCCESS;
    cudaMemsetAsync(p.word, 0, kLeft * 4, s); /* the polled pass with wide rows instead */
    /* its scratch: spans, the sets' words, the earlier lists, the list of wide rows */
    const size_t nbits = (size_t)(nnz / 32 + p.n + 2);
    MISPC_TRY(mispc_scratch_alloc(ctx, (size_t)nnz * 4 + nbits * 4 + (size_t)p.n * 16 + 8,
                                  (void **)&q.span, "coloring sets of wide rows"));
    q.bits = (uint32_t *)(q.span + p.n);
    q.early = (int32_t *)(q.bits + nbits);
    q.wide = q.early + nnz;
    q.wkept = q.wide + p.n;
    mispc_status st = mis_cuda::launch_persistent(ctx, s, (const void *)jp_polled<true>, &q, p.n,
                                                  persistent, &launched);
    if (!st && launched) st = fetch_words(ctx, s, p, h);
    mispc_scratch_free(ctx, q.span);
    if (!st) /* not launched (not expected: the first launch was) or deep: one MIS-1 a color */
      h[kFlags] =
          !launched || (h[kFlags] & kFlagDeep) ? kFlagHub : h[kFlags] & ~(kFlagHub | kFlagLong);
    return st;
  }
  const unsigned grid = mispc_device_grid(ctx, p.n, kBlock);
  jp_init<<<grid, kBlock, 0, s>>>(p);
  jp_count<L><<<grid, kBlock, 0, s>>>(p);
  int stop = -1;
  MISPC_TRY(mis_cuda::run_rounds_lagged(
      ctx, s, kMaxRounds,
      [&](int r, unsigned *left) {
        jp_pass<L><<<grid, kBlock, 0, s>>>(p, r);
        cudaMemcpyAsync(left, p.word + kLeft + r, 4, cudaMemcpyDeviceToHost, s);
      },
      &stop));
  if (stop < 0)
    return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                        "mispc_color: vertices left uncolored after %d passes", kMaxRounds);
  jp_check<<<grid, kBlock, 0, s>>>(p);
  return fetch_words(ctx, s, p, h);
}

/* The MIS-1 loop (coloring.c, graphs with hubs): label one MIS-1's members. */
__global__ void assign(int64_t n, const uint8_t *in_set, int32_t c, int32_t *color, uint8_t *left) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x)
    if (in_set[v]) {
      color[v] = c;
      left[v] = 0;
    }
}

/* The graph colored by one thread block cluster in shared memory where
 * mispc_color_smem_blocks takes it (hubs: the larger bound of graphs with
 * hubs); *ran = 0 where it did not run. */
mispc_status color_in_cluster(mispc_context *ctx, const mispc_csr *g, int hubs, int key_mode,
                              uint64_t seed, int validated, int32_t *color, int32_t *ncolors,
                              int *ran) {
  *ran = 0;
  const int blocks = mispc_color_smem_blocks(ctx, g, hubs);
  return blocks ? mispc_color_smem_cuda(ctx, g, key_mode, seed, blocks, !validated, color, ncolors,
                                        ran)
                : MISPC_SUCCESS;
}

} // namespace

extern "C" mispc_status color_assign_cuda(mispc_context *ctx, int64_t n, const uint8_t *in_set,
                                          int32_t c, int32_t *color, uint8_t *left) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  if (n > 0) assign<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(n, in_set, c, color, left);
  MISPC_CUDA_LAUNCH_CHECK(ctx); /* asynchronous: the next MIS-1 waits for it on the stream */
  return MISPC_SUCCESS;
}

extern "C" mispc_status color_jp_cuda(mispc_context *ctx, const mispc_csr *g, int key_mode,
                                      uint64_t seed, int no_persistent, int validated,
                                      int32_t *color, int32_t *ncolors) {
  *ncolors = 0;
  if (g->nrows == 0) return MISPC_SUCCESS;
  int ran = 0; /* small graphs, hubs or not */
  MISPC_TRY(color_in_cluster(ctx, g, 0, key_mode, seed, validated, color, ncolors, &ran));
  if (ran) return MISPC_SUCCESS;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  Plan p = {};
  p.rowptr = g->rowptr;
  p.colidx = g->colidx;
  p.color = color;
  p.n = g->nrows;
  p.hub_degree = mis1_hub_degree(g->nnz, g->nrows);
  p.seed = seed;
  p.key_mode = key_mode;
  p.check = !validated;
  /* keys, counts (or masks) and the possible colors */
  mispc_status st = mispc_scratch_alloc(ctx, (size_t)g->nrows * 12, (void **)&p.key,
                                        "coloring keys, counts and possible colors");
  const size_t nword = kLeft + (size_t)kMaxRounds + 2;
  if (!st) st = mispc_scratch_alloc(ctx, nword * 4, (void **)&p.word, "coloring counters");
  unsigned h[kLeft] = {0, 0, 0, 0, 0, 0};
  if (!st) {
    p.pred = (int32_t *)(p.key + g->nrows);
    p.poss = p.key + 2 * g->nrows;
    int sms = 0, coop = 0;
    st = mispc_device_caps(ctx, &sms, &coop);
    /* the per-pass words only for the fallback (no_persistent, or no cooperative launch) */
    if (!st) cudaMemsetAsync(p.word, 0, (no_persistent || !coop ? nword : kLeft) * 4, s);
    const int lanes = mis_cuda::lanes_by_mean_degree(g);
    const int polled = g->nnz <= (int64_t)kPollRow * g->nrows;
    if (!st)
      st = lanes == 1 ? run<1>(ctx, s, p, g->nnz, !no_persistent, polled, h)
                      : run<8>(ctx, s, p, g->nnz, !no_persistent, polled, h);
  }
  mispc_scratch_free(ctx, p.key);
  mispc_scratch_free(ctx, p.word);
  if (!st && (h[kFlags] & kFlagHub)) {
    /* hubs: one cluster in shared memory up to 131,072 entries and 65,536
     * vertices (mis_smem_cuda.cu kHubEntries), else one MIS-1 per color */
    MISPC_TRY(color_in_cluster(ctx, g, 1, key_mode, seed, validated, color, ncolors, &ran));
    if (ran) return MISPC_SUCCESS;
    *ncolors = -1;
    return MISPC_SUCCESS;
  }
  if (!st && !(h[kFlags] & ~kFlagLong) && (h[kSum] | h[kSum + 1]))
    st = mispc_seterr(ctx, MISPC_ERR_UNSYMMETRIC,
                      "mispc_color: the pattern's entries do not pair up (it must be symmetric "
                      "without repeated entries; was skip_validation set?)");
  if (!st && (h[kFlags] & ~kFlagLong))
    st =
        mispc_seterr(ctx, MISPC_ERR_UNSYMMETRIC,
                     "mispc_color: %s (the pattern must be symmetric without repeated entries; "
                     "was skip_validation set?)",
                     h[kFlags] & kFlagStalled ? "no vertex colored for 5 s"
                                              : "a vertex was ready before its earlier neighbours");
  if (!st) *ncolors = (int32_t)h[kTop];
  return st;
}
