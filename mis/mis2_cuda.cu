/* MIS-2 on the GPU: papers/KokkosKernels-MIS2-aggregation-clusterGS-2022.txt
 * Alg. 1 with its four optimisations (§V): xorshift* priorities re-drawn each
 * round, two worklists, packed 64-bit tuples, and a warp per vertex when the
 * average degree is >= 16. Two kernels per round (column, decide); each
 * compacts its own worklist while it runs (warp-private buffers,
 * mispc_warp_append, so no block barrier per tile; list order never changes
 * results because both phases only read state written by the previous
 * phase). Refresh-row is folded into decide. By default all
 * rounds run in one cooperative kernel with grid-wide barriers between the
 * phases (see mis1_cuda.cu); otherwise two launches per round are queued and
 * the host reads the worklist length one round late. On small graphs, where
 * every vertex gets a thread (a group of 8 lanes) of its own, the persistent kernel
 * keeps each vertex's words and row with its owner instead of worklists
 * (kept_body). */
#include <cooperative_groups.h>
#include <stdint.h>

#include "mis_backend.h"
#include "mis_common.h"
#include "mis_cuda.cuh"

namespace cg = cooperative_groups;

namespace {

using mis_cuda::kBlock;
using mis_cuda::kPersistentPerSm;
using mis_cuda::kWarps;
using mis_cuda::List;
using mis_cuda::Steps;
using mis_cuda::w_in;
using mis_cuda::w_out;
typedef mis_cuda::ListSmem Smem;
constexpr int kThreadMappingPerSm = kPersistentPerSm < 6 ? kPersistentPerSm : 6;

/* Everything a run needs; cnt[2r] / cnt[2r+1]: worklist 1 / 2 lengths for round r.
 * The persistent kernel zeroes the counters itself (before its first grid
 * barrier, then each round those of the round after next), with no memset
 * before it; the two-launches-a-round path has them zeroed by the host. */
template <typename W> struct Plan {
  const int64_t *rowptr;
  const int32_t *colidx;
  W *T, *M;
  int64_t n;
  int no_worklist, per_round, idbits, max_rounds;
  uint64_t seed;
  int32_t *wl1[2], *wl2[2];
  unsigned *cnt;
  unsigned long long *result;      /* [0] members, [1] rounds */
  unsigned *done;                  /* blocks past their result (publish_result) */
  unsigned long long *result_host; /* mapped host copy of result, or NULL */
  uint8_t *in_set;
  const uint8_t *subset;
  mis_cuda::Heavy<W> heavy; /* hub rows in chunks (mis_cuda.cuh); chunk NULL: none */
};

/* One phase's view of the plan. The plan stays a reference to the kernel
 * parameter (constant memory), so its fields cost no registers; the lists of
 * the phase are selected where they are used. */
template <typename W> struct Phase {
  const Plan<W> &p;
  int r;   /* round index; decide draws priorities for r + 1 */
  int w;   /* 1: column (worklist 2), 0: decide (worklist 1) */
  int all; /* iterate every vertex instead of a worklist */
  __device__ Phase(const Plan<W> &plan, int round, bool column)
      : p(plan), r(round), w(column ? 1 : 0), all(round == 0 || plan.no_worklist) {}
  /* selects, not wl[r & 1]: a dynamic index would put the plan in local memory */
  __device__ int32_t *list(int which) const {
    return w ? (which ? p.wl2[1] : p.wl2[0]) : (which ? p.wl1[1] : p.wl1[0]);
  }
  __device__ const int32_t *in() const {
    return list(r & 1);
  }
  __device__ const unsigned *in_n() const {
    return p.cnt + 2 * r + w;
  }
  __device__ int32_t *out() const {
    return list(!(r & 1));
  }
  __device__ unsigned *out_n() const {
    return p.cnt + 2 * (r + 1) + w;
  }
};

/* Column: M[v] = min T over the closed neighbourhood; IN minimum -> OUT.
 * Hub rows first, in chunks over the grid (heavy_column); they are passed
 * over in the list. */
template <typename W, bool Warp>
__device__ __forceinline__ void column_body(const Phase<W> &a, Smem &sm) {
  const Plan<W> &p = a.p;
  mis_cuda::heavy_column(
      p.heavy, [&](int32_t v, int) { return (!p.subset || p.subset[v]) && p.M[v] != w_out<W>(); },
      [&](int32_t v, int k, int lane, W m) {
        const int64_t b = p.rowptr[v] + k * p.heavy.size;
        const int64_t e = min(p.rowptr[v + 1], b + p.heavy.size);
        return mis_cuda::row_min<W, true>(p.colidx, b, e, p.T, lane, k || lane ? m : p.T[v]);
      },
      [&](int32_t v, W m) { p.M[v] = m == w_in<W>() ? w_out<W>() : m; });
  List out(sm.slots[threadIdx.x >> 5], a.out(), a.out_n());
  const int lane = Warp ? (int)(threadIdx.x & 31) : 0;
  const int64_t len = a.all ? a.p.n : (int64_t)*a.in_n();
  for (int64_t step = Steps<Warp>::first(); step < len; step += Steps<Warp>::stride()) {
    int64_t i = step + Steps<Warp>::slot();
    bool keep = false;
    int32_t v = -1;
    if (i < len) v = a.all ? (int32_t)i : a.in()[i];
    if (i < len && (!a.p.subset || a.p.subset[v])) { /* outside the subset: never a column */
      int64_t b = a.p.rowptr[v], e = a.p.rowptr[v + 1];
      if (!mis_cuda::heavy_row(p.heavy, e - b)) { /* a hub's chunks did it */
        W m =
            mis_cuda::row_min<W, Warp>(a.p.colidx, b, e, a.p.T, lane, lane ? w_out<W>() : a.p.T[v]);
        if (Warp) m = mis_cuda::warp_min(m);
        m = m == w_in<W>() ? w_out<W>() : m;
        keep = m != w_out<W>();
        if (lane == 0) a.p.M[v] = m;
      }
    }
    out.push(lane == 0 && keep, v);
  }
  out.finish<kWarps>(sm.counts);
}

/* Decide: OUT if an M in N[v] is OUT, IN if every M in N[v] is T[v]. */
template <typename W, bool Warp>
__device__ __forceinline__ void decide_body(const Phase<W> &a, Smem &sm) {
  List out(sm.slots[threadIdx.x >> 5], a.out(), a.out_n());
  const int lane = Warp ? (int)(threadIdx.x & 31) : 0;
  const int64_t len = a.all ? a.p.n : (int64_t)*a.in_n();
  for (int64_t step = Steps<Warp>::first(); step < len; step += Steps<Warp>::stride()) {
    int64_t i = step + Steps<Warp>::slot();
    bool undecided = false;
    int32_t v = -1;
    if (i < len) {
      v = a.all ? (int32_t)i : a.in()[i];
      W t = a.p.T[v];
      if (t != w_in<W>() && t != w_out<W>()) {
        int64_t b = a.p.rowptr[v], e = a.p.rowptr[v + 1];
        W mv = a.p.M[v];
        bool out_ = mv == w_out<W>(), all_min = mv == t;
        /* Round 0 has no IN vertex, so no column is OUT yet: the first
         * mismatch settles "undecided" and the scan can stop there. */
        const bool first_round = a.r == 0;
        mis_cuda::row_decide<W, Warp>(a.p.colidx, b, e, a.p.M, a.p.subset, t, first_round, lane,
                                      &out_, &all_min);
        if (Warp) {
          out_ = __any_sync(0xffffffffu, out_);
          all_min = __all_sync(0xffffffffu, all_min);
        }
        undecided = !out_ && !all_min;
        if (lane == 0)
          a.p.T[v] = out_      ? w_out<W>()
                     : all_min ? w_in<W>()
                               : (W)mis2_tuple(a.p.per_round, a.p.seed, a.r + 1, v, a.p.idbits,
                                               8 * (int)sizeof(W));
      }
    }
    out.push(lane == 0 && undecided, v);
  }
  out.finish<kWarps>(sm.counts);
}

template <typename W> __device__ __forceinline__ void init_body(const Plan<W> &p) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < p.n;
       v += (int64_t)gridDim.x * blockDim.x) {
    bool inside = !p.subset || p.subset[v];
    /* Outside the subset: OUT for good, and never a column (no relay). */
    p.T[v] = inside ? (W)mis2_tuple(p.per_round, p.seed, 0, v, p.idbits, 8 * (int)sizeof(W))
                    : w_out<W>();
    p.M[v] = inside ? w_in<W>() : w_out<W>(); /* IN here: anything but OUT */
    if (p.heavy.chunk) {
      const int64_t len = p.rowptr[v + 1] - p.rowptr[v];
      if (mis_cuda::heavy_row(p.heavy, len)) mis_cuda::heavy_register(p.heavy, (int32_t)v, len);
    }
  }
}

template <typename W> __global__ void mis2_init(Plan<W> p) {
  init_body(p);
}

template <typename W> __device__ __forceinline__ void finish_body(const Plan<W> &p) {
  unsigned long long mine = 0;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < p.n;
       v += (int64_t)gridDim.x * blockDim.x) {
    uint8_t in = p.T[v] == w_in<W>();
    p.in_set[v] = in;
    mine += in;
  }
  mispc_block_add<kBlock>(mine, &p.result[0]);
}

template <typename W, bool Warp>
__global__ void __launch_bounds__(kBlock) mis2_column(Plan<W> p, int r) {
  __shared__ Smem sm;
  column_body<W, Warp>(Phase<W>(p, r, true), sm);
}

template <typename W, bool Warp>
__global__ void __launch_bounds__(kBlock) mis2_decide(Plan<W> p, int r) {
  __shared__ Smem sm;
  decide_body<W, Warp>(Phase<W>(p, r, false), sm);
}

template <typename W> __global__ void mis2_finish(Plan<W> p) {
  finish_body(p);
}

/* ---- Small graphs: one vertex a thread (or a lane group) for all rounds --
 * Where every vertex has a thread (thread mapping) or a group of 8 lanes
 * (warp mapping) of its own (n, or 8 n, at most the launched threads), a
 * round of the worklist kernel is a chain of dependent L2 round trips: the
 * list length, the list entry, the row offsets (and T[v], M[v]), the
 * columns, the neighbours' words, then the compaction's atomic; twice a
 * round, with a grid barrier after each phase, and the length of worklist 1
 * read after the second. Here the owner keeps what only it writes: T[v] and
 * M[v] in registers (so the lists are not needed: v is in worklist 2 while
 * its M is not OUT, in worklist 1 while its T is undecided), and its row in
 * shared memory, read once before round 0 (entries of v itself and outside
 * the subset dropped: neither changes a minimum that starts at T[v], and
 * decide passes over the latter). A phase is then one round trip (the
 * neighbours' words, all kept slots' loads issued at once) and a barrier.
 * Round 0's column reads no T at all: the start tuples are the hash of the
 * id, so the barrier after init goes too. "Undecided after round r" is a
 * flag in the counter of worklist 1, read at the start of the next round
 * while that round's column loads are in flight (a column past the last
 * round changes only M, which nothing reads after the rounds). Same rules
 * over the same words: the same set and round count. Not yet measured. */

/* Lanes a vertex: one (thread mapping), or 8 where the rounds give it a warp:
 * a quarter of the blocks, and a grid barrier costs an atomic on one word a
 * block (kron:12 would launch 512 blocks of warps, 128 of 8-lane groups). */
template <bool Warp> __host__ __device__ constexpr int kept_lanes() {
  return Warp ? 8 : 1;
}
/* Kept slots a lane: one thread holds the first 16 entries of its row
 * (compacted); lane l of a group of 8 entries l, l + 8, ..., l + 56. */
template <bool Warp> __host__ __device__ constexpr int kept_slots() {
  return Warp ? 8 : 16;
}
/* Slots loaded together (one round trip a group of them). */
template <bool Warp> __host__ __device__ constexpr int kept_group() {
  return Warp ? 4 : 8;
}

/* [slot][thread] so that a warp reads consecutive words; -1: no entry. */
template <bool Warp> struct KeptRows { int32_t slot[kept_slots<Warp>()][kBlock]; };

/* What the owner of v keeps: its words, its row's used slots and where the
 * rest of the row (read from global memory each phase) starts. */
template <typename W> struct Own {
  int32_t v; /* -1: no vertex here */
  W t, m;    /* T[v], M[v] */
  int kn;    /* slots used */
  int64_t tail, e;
};

/* Setup before round 0: v's start words (stored for the later phases, as
 * init_body) and its row into the slots. Thread: entries eight at a time,
 * so that their loads (and the subset's) are in flight together. */
template <typename W, bool Warp>
__device__ __forceinline__ Own<W> kept_setup(const Plan<W> &p, KeptRows<Warp> &kr, int gl) {
  constexpr int K = kept_slots<Warp>(), L = kept_lanes<Warp>();
  Own<W> o;
  const int64_t i = ((int64_t)blockIdx.x * kBlock + threadIdx.x) / L;
  o.v = i < p.n ? (int32_t)i : -1;
  o.t = o.m = w_out<W>();
  o.kn = 0;
  o.tail = o.e = 0;
  if (o.v < 0) return o;
  const int32_t v = o.v;
  const bool inside = !p.subset || p.subset[v];
  if (inside) {
    o.t = (W)mis2_tuple(p.per_round, p.seed, 0, v, p.idbits, 8 * (int)sizeof(W));
    o.m = w_in<W>(); /* anything but OUT */
  }
  if (gl == 0) {
    p.T[v] = o.t;
    p.M[v] = o.m;
  }
  if (!inside) return o; /* never a column, never undecided */
  const int64_t b = p.rowptr[v];
  o.e = p.rowptr[v + 1];
  if constexpr (L > 1) {
    int32_t c[K];
#pragma unroll
    for (int k = 0; k < K; ++k) c[k] = b + gl + L * k < o.e ? p.colidx[b + gl + L * k] : v;
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if (c[k] != v && p.subset && !p.subset[c[k]]) c[k] = v;
      kr.slot[k][threadIdx.x] = c[k] != v ? c[k] : -1;
    }
    o.kn = K;
    o.tail = b + L * K;
  } else {
    o.tail = o.e;
    for (int64_t q0 = b; q0 < o.e && o.tail == o.e; q0 += 8) {
      int32_t c[8];
      bool ok[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) c[j] = q0 + j < o.e ? p.colidx[q0 + j] : v;
#pragma unroll
      for (int j = 0; j < 8; ++j) ok[j] = c[j] != v && (!p.subset || p.subset[c[j]]);
#pragma unroll
      for (int j = 0; j < 8; ++j)
        if (ok[j] && o.tail == o.e) {
          if (o.kn < K)
            kr.slot[o.kn++][threadIdx.x] = c[j];
          else
            o.tail = q0 + j; /* the first entry that did not fit */
        }
    }
  }
  return o;
}

/* The tuple of u in round 0 (init_body's T[u]). */
template <typename W> __device__ __forceinline__ W start_tuple(const Plan<W> &p, int32_t u) {
  return !p.subset || p.subset[u]
             ? (W)mis2_tuple(p.per_round, p.seed, 0, u, p.idbits, 8 * (int)sizeof(W))
             : w_out<W>();
}

/* The entries q = b + gl, b + gl + L, ... < e of a row past its kept
 * slots, four a lane at a time: f(u) for each column u, all four gathers in
 * flight before any is used. A hub's row is long (kron:12: degrees in the
 * hundreds), and one gather after another had made the kept kernel slower
 * than the rounds there (H100: kron:12 MIS-2 0.108 -> 0.177 ms). f returns
 * false to stop after a step. */
template <int L, typename F>
__device__ __forceinline__ void strided_row(const int32_t *colidx, int64_t b, int64_t e, int gl,
                                            F f) {
  for (int64_t q = b + gl; q < e; q += 4 * L) {
    int32_t c[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) c[k] = q + k * L < e ? colidx[q + k * L] : -1;
    if (!f(c)) break;
  }
}

/* The rows of a warp's groups past their kept slots (Warp: groups of
 * kept_lanes lanes), one such row after another with all 32 lanes, four
 * entries a lane a step: a hub's tail in 8 lanes had made kron:12's MIS-2
 * slower than the rounds, which give each hub a warp (H100: 0.108 -> 0.154
 * ms). tail(src, b, e) runs on every lane for the row of the group led by
 * lane src, whose flag is set in `rows`. */
/* Tails up to this long stay with their group: where most rows have a short
 * tail (bcsstk13, rows of 42 entries on average), groups one after another
 * had cost 0.054 -> 0.069 ms. */
constexpr int64_t kLongTail = 128;
/* A thread a vertex reads its own tail four entries a round trip, so a
 * shorter tail already pays for the warp: PGPgiantcompo (rows of 4.6 entries
 * on average, hubs of hundreds) took 0.11 ms with 128 here, 0.066 with 8
 * lanes a vertex. */
constexpr int64_t kThreadLongTail = 32;
template <bool Warp> __device__ __forceinline__ constexpr int64_t long_tail_min() {
  return Warp ? kLongTail : kThreadLongTail;
}

template <typename F> __device__ __forceinline__ void warp_tails(unsigned rows, F tail) {
  while (rows) {
    const int src = __ffs(rows) - 1;
    rows &= rows - 1;
    tail(src);
  }
}

/* Column of the owner: o.m = min T over N[v] (IN -> OUT). Round 0 hashes
 * the neighbours' start tuples instead of loading them. Only where
 * `active`; every lane of a warp calls it when Warp (the tails). */
template <typename W, bool Warp>
__device__ __forceinline__ void kept_column(const Plan<W> &p, const KeptRows<Warp> &kr, Own<W> &o,
                                            int gl, unsigned gmask, bool first, bool active) {
  constexpr int K = kept_slots<Warp>(), G = kept_group<Warp>(), L = kept_lanes<Warp>();
  W m = gl || !active ? w_out<W>() : o.t;
#pragma unroll
  for (int k0 = 0; k0 < K; k0 += G) {
    if (!active || k0 >= o.kn) break;
    int32_t c[G];
    W x[G];
#pragma unroll
    for (int j = 0; j < G; ++j) c[j] = k0 + j < o.kn ? kr.slot[k0 + j][threadIdx.x] : -1;
#pragma unroll
    for (int j = 0; j < G; ++j)
      x[j] = c[j] < 0 ? w_out<W>()
             : first  ? (W)mis2_tuple(p.per_round, p.seed, 0, c[j], p.idbits, 8 * (int)sizeof(W))
                      : p.T[c[j]];
#pragma unroll
    for (int j = 0; j < G; ++j) m = x[j] < m ? x[j] : m;
  }
  /* the min of T over entries b + lane, b + lane + S, ... < e */
  const auto tail_min = [&](auto S, int64_t b, int64_t e, int lane, W acc) {
    strided_row<decltype(S)::value>(p.colidx, b, e, lane, [&](const int32_t *c) {
      W x[4];
#pragma unroll
      for (int k = 0; k < 4; ++k)
        x[k] = c[k] < 0 ? w_out<W>() : first ? start_tuple(p, c[k]) : p.T[c[k]];
#pragma unroll
      for (int k = 0; k < 4; ++k) acc = x[k] < acc ? x[k] : acc;
      return true;
    });
    return acc;
  };
  /* A tail up to long_tail_min entries: its group's lanes (a thread's own:
   * the loads of T after round 0 four at a time, row_min); a longer one (a
   * hub) with the whole warp, one group's after another: gathers one after
   * another in one thread had made PGPgiantcompo's MIS-2 2x the 8-lane
   * kernel's time, kron:12's 6x. */
  const int lane = (int)(threadIdx.x & 31);
  const bool long_tail = active && o.e - o.tail > long_tail_min<Warp>();
  if (active && !long_tail)
    m = Warp || first ? tail_min(std::integral_constant<int, L>{}, o.tail, o.e, gl, m)
                      : mis_cuda::row_min<W, false>(p.colidx, o.tail, o.e, p.T, 0, m);
  warp_tails(__ballot_sync(~0u, long_tail && gl == 0), [&](int src) {
    const int64_t tb = __shfl_sync(~0u, o.tail, src), te = __shfl_sync(~0u, o.e, src);
    W mm = tail_min(std::integral_constant<int, 32>{}, tb, te, lane, w_out<W>());
#pragma unroll
    for (int off = 16; off; off >>= 1) {
      const W y = __shfl_xor_sync(~0u, mm, off);
      mm = y < mm ? y : mm;
    }
    if (lane / L == src / L) m = mm < m ? mm : m;
  });
#pragma unroll
  for (int off = L / 2; off; off >>= 1) {
    const W y = __shfl_xor_sync(gmask, m, off);
    m = y < m ? y : m;
  }
  if (!active) return;
  o.m = m == w_in<W>() ? w_out<W>() : m;
  if (gl == 0) p.M[o.v] = o.m;
}

/* Decide of the owner (decide_body's rules) where `active`; returns whether
 * v stays undecided. Every lane of a warp calls it when Warp (the tails). */
template <typename W, bool Warp>
__device__ __forceinline__ bool kept_decide(const Plan<W> &p, const KeptRows<Warp> &kr, Own<W> &o,
                                            int gl, unsigned gmask, int r, bool active) {
  constexpr int K = kept_slots<Warp>(), G = kept_group<Warp>(), L = kept_lanes<Warp>();
  const W t = o.t;
  bool out_ = active && o.m == w_out<W>(), all_min = !active || o.m == t;
  const bool first = r == 0; /* no OUT column yet: the first mismatch settles it */
#pragma unroll
  for (int k0 = 0; k0 < K; k0 += G) {
    if (!active || k0 >= o.kn || out_ || (first && !all_min)) break;
    int32_t c[G];
    W x[G];
#pragma unroll
    for (int j = 0; j < G; ++j) c[j] = k0 + j < o.kn ? kr.slot[k0 + j][threadIdx.x] : -1;
#pragma unroll
    for (int j = 0; j < G; ++j) x[j] = c[j] < 0 ? t : p.M[c[j]];
#pragma unroll
    for (int j = 0; j < G; ++j) {
      out_ = out_ || x[j] == w_out<W>();
      all_min = all_min && x[j] == t;
    }
  }
  /* an OUT found in a step settles v whatever else the step saw; in round
   * 0 (no OUT column yet) a mismatch does. ts: the group's t */
  const auto tail_scan = [&](auto S, int64_t b, int64_t e, int lane, W ts, bool *o2, bool *a2) {
    strided_row<decltype(S)::value>(p.colidx, b, e, lane, [&](const int32_t *c) {
      W x[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) x[k] = c[k] < 0 || (p.subset && !p.subset[c[k]]) ? ts : p.M[c[k]];
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        *o2 = *o2 || x[k] == w_out<W>();
        *a2 = *a2 && x[k] == ts;
      }
      return !*o2 && (*a2 || !first);
    });
  };
  /* tails as in kept_column */
  const int lane = (int)(threadIdx.x & 31);
  const bool long_tail = active && o.e - o.tail > long_tail_min<Warp>();
  if constexpr (Warp) {
    if (active && !long_tail && !out_ && (all_min || !first))
      tail_scan(std::integral_constant<int, L>{}, o.tail, o.e, gl, t, &out_, &all_min);
    out_ = (__ballot_sync(gmask, out_) & gmask) != 0;
    all_min = (__ballot_sync(gmask, !all_min) & gmask) == 0;
  } else if (active && !long_tail) {
    mis_cuda::row_decide<W, false>(p.colidx, o.tail, o.e, p.M, p.subset, t, first, 0, &out_,
                                   &all_min);
  }
  const bool more = long_tail && gl == 0 && !out_ && (all_min || !first);
  warp_tails(__ballot_sync(~0u, more), [&](int src) {
    const int64_t tb = __shfl_sync(~0u, o.tail, src), te = __shfl_sync(~0u, o.e, src);
    const W ts = __shfl_sync(~0u, t, src);
    bool o2 = false, a2 = true;
    tail_scan(std::integral_constant<int, 32>{}, tb, te, lane, ts, &o2, &a2);
    o2 = __any_sync(~0u, o2);
    a2 = __all_sync(~0u, a2);
    if (lane / L == src / L) out_ = out_ || o2, all_min = all_min && a2;
  });
  if (!active) return false;
  o.t = out_      ? w_out<W>()
        : all_min ? w_in<W>()
                  : (W)mis2_tuple(p.per_round, p.seed, r + 1, o.v, p.idbits, 8 * (int)sizeof(W));
  if (gl == 0) p.T[o.v] = o.t;
  return !out_ && !all_min;
}

/* The rounds and the finish of the kept path; cnt[2 (r + 1)] is a flag:
 * some vertex undecided after round r. */
template <typename W, bool Warp>
__device__ __forceinline__ void kept_body(const Plan<W> &p, KeptRows<Warp> &kr,
                                          cg::grid_group &grid) {
  constexpr int L = kept_lanes<Warp>();
  const int gl = (int)(threadIdx.x % L);
  const unsigned gmask = mispc_group_mask<L>();
  Own<W> o = kept_setup<W, Warp>(p, kr, gl);
  /* before the first barrier, so race-free: round 0's flag, the member
   * count and the arrivals of publish_result */
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    p.cnt[2] = 0;
    p.result[0] = 0;
    *p.done = 0;
  }
  int rounds = -1;
  for (int r = 0;; ++r) {
    /* read here, used after the column: the load overlaps the column's */
    const unsigned left = r ? *(volatile const unsigned *)(p.cnt + 2 * r) : 1u;
    kept_column<W, Warp>(p, kr, o, gl, gmask, r == 0, r < p.max_rounds && o.m != w_out<W>());
    if (!left) { /* no vertex undecided after round r - 1 */
      rounds = r;
      break;
    }
    if (r == p.max_rounds) break;
    /* round r+1's flag, set after the barriers below */
    if (blockIdx.x == 0 && threadIdx.x == 0) p.cnt[2 * (r + 2)] = 0;
    grid.sync();
    const bool open = kept_decide<W, Warp>(p, kr, o, gl, gmask, r,
                                           o.v >= 0 && o.t != w_in<W>() && o.t != w_out<W>());
    if (__any_sync(0xffffffffu, open) && (threadIdx.x & 31) == 0) p.cnt[2 * (r + 1)] = 1u;
    grid.sync();
  }
  const bool in = o.v >= 0 && o.t == w_in<W>();
  if (o.v >= 0 && gl == 0) p.in_set[o.v] = in;
  mispc_block_add<kBlock>((unsigned long long)(in && gl == 0), &p.result[0]);
  if (blockIdx.x == 0 && threadIdx.x == 0) p.result[1] = (unsigned long long)(long long)rounds;
  mis_cuda::publish_result<2>(p.result, p.result_host, p.done);
}

/* All rounds and the finish in one cooperative launch. Kept: every vertex
 * has a thread (a group of 8 lanes) of its own, and the rounds run
 * kept_body. */
template <typename W, bool Warp, int MinBlocks, bool Kept>
__global__ void __launch_bounds__(kBlock, MinBlocks) mis2_persistent(Plan<W> p) {
  cg::grid_group grid = cg::this_grid();
  if constexpr (Kept) {
    __shared__ KeptRows<Warp> kr;
    kept_body<W, Warp>(p, kr, grid);
    return;
  } else {
    __shared__ Smem sm;
    init_body(p);
    /* before the barrier, so race-free: round 1's lengths (written in round
     * 0), the member count and the arrivals of publish_result */
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      p.cnt[2] = p.cnt[3] = 0;
      p.result[0] = 0;
      *p.done = 0;
    }
    grid.sync();
    int rounds = -1;
    for (int r = 0; r < p.max_rounds; ++r) {
      /* round r+1 appends to these, after the barriers below */
      if (blockIdx.x == 0 && threadIdx.x < 2) p.cnt[2 * (r + 2) + threadIdx.x] = 0;
      column_body<W, Warp>(Phase<W>(p, r, true), sm);
      grid.sync();
      decide_body<W, Warp>(Phase<W>(p, r, false), sm);
      grid.sync();
      if (p.cnt[2 * (r + 1)] == 0) { /* no vertex left undecided */
        rounds = r + 1;
        break;
      }
    }
    finish_body(p);
    if (blockIdx.x == 0 && threadIdx.x == 0) p.result[1] = (unsigned long long)(long long)rounds;
    mis_cuda::publish_result<2>(p.result, p.result_host, p.done);
  }
}

} // namespace

template <typename W>
static mispc_status run_mis2(mispc_context *ctx, const mispc_csr *g, const mispc_mis_options *opt,
                             int per_round, const uint8_t *subset, uint8_t *in_set,
                             mispc_mis_result *res) {
  const int64_t n = g->nrows;
  cudaStream_t s;
  int sms = 0, max_rounds = 0;
  MISPC_TRY(mis_cuda::start(ctx, n, opt, res, &s, &sms, &max_rounds));
  if (n == 0) return MISPC_SUCCESS;
  /* Small graphs: one launch of a cluster that keeps everything in shared memory */
  if (const int blocks = mispc_mis_smem_blocks(ctx, g, 2, subset != NULL)) {
    int ran = 0;
    MISPC_TRY(mispc_mis_smem_cuda(ctx, g, 2, opt, per_round, blocks, subset, in_set, res, &ran));
    if (ran) return MISPC_SUCCESS;
  }
  /* Warp per vertex when the average degree is >= 16 (§V-D), unless forced. */
  const mispc_tuning *tu = &ctx->tuning; /* ablations (tuning.h) */
  const bool warp = tu->mis_force_warp_mapping || (!tu->mis_no_warp_mapping && g->nnz >= 16 * n);
  const size_t ncnt = 2 * (size_t)(max_rounds + 2); /* even: keeps result 8-aligned */
  const int persistent = !tu->mis_no_persistent;
  /* One allocation: counters, then the result words and the arrivals of
   * publish_result; tuples T and M; worklists. */
  mis_cuda::Parts parts;
  const size_t at_cnt = parts.take(ncnt * 4 + 2 * 8 + 4);
  const size_t at_tuples = parts.take((size_t)n * 2 * sizeof(W));
  const size_t at_lists = parts.take((size_t)n * 16);
  /* hub rows in chunks (mis_cuda.cuh), for the worklist rounds */
  mis_cuda::Heavy<W> heavy;
  memset(&heavy, 0, sizeof heavy);
  mis_cuda::heavy_sizes(&heavy, ctx->tuning.mis2_hub_row);
  const size_t hv = mis_cuda::heavy_max_vertices(heavy, g->nnz);
  const size_t hc = mis_cuda::heavy_max_chunks(heavy, g->nnz);
  const size_t at_heavy = parts.take(8 + hv * (sizeof(W) + 4));
  const size_t at_chunks = parts.take(hc * sizeof(mis_cuda::HeavyChunk));
  char *scratch = NULL;
  MISPC_TRY(mispc_scratch_alloc(ctx, parts.bytes, (void **)&scratch,
                                "MIS-2 tuples, worklists and counters"));
  unsigned long long *h_mapped, *d_mapped; /* the persistent kernel's result words */
  mispc_status st = mis_cuda::mapped_result<2>(ctx, persistent, &h_mapped, &d_mapped);
  unsigned long long h_result[2] = {0, 0};
  if (!st) {
    Plan<W> p;
    memset(&p, 0, sizeof p);
    int32_t *lists = (int32_t *)(scratch + at_lists);
    p.rowptr = g->rowptr;
    p.colidx = g->colidx;
    p.T = (W *)(scratch + at_tuples);
    p.M = p.T + n;
    p.n = n;
    p.no_worklist = tu->mis_no_worklist;
    p.per_round = per_round;
    p.idbits = mis2_id_bits(n);
    p.max_rounds = max_rounds;
    p.seed = opt->seed;
    p.wl1[0] = lists;
    p.wl1[1] = lists + n;
    p.wl2[0] = lists + 2 * n;
    p.wl2[1] = lists + 3 * n;
    p.cnt = (unsigned *)(scratch + at_cnt);
    p.result = (unsigned long long *)(p.cnt + ncnt);
    p.done = (unsigned *)(p.result + 2);
    p.result_host = d_mapped;
    p.in_set = in_set;
    p.subset = subset;
    const unsigned grid = mispc_grid_for(warp ? 32 * n : n, kBlock, (unsigned)sms * 8u);
    /* Blocks per SM, measured on an H100 (docs/results/benchmarks-log.md): 8 for the warp
     * mapping; the thread mapping spills at 8 and runs faster at 6. */
    const void *pk = warp ? (const void *)mis2_persistent<W, true, kPersistentPerSm, false>
                          : (const void *)mis2_persistent<W, false, kThreadMappingPerSm, false>;
    /* Small graphs: the kept kernel where every vertex gets a thread (a group
     * of 8 lanes) of its own; the no-worklist ablation keeps the rounds it
     * measures. 8 lanes a vertex where rows average 16 entries or more and
     * the groups fit; else a thread a vertex where the threads fit, also for
     * rows of 16 to 32 entries on average (its long tails go to the warp).
     * H100, ms: gen:grid3d27:40 (25 a row, 8 n does not fit) 0.20 with the
     * warp rounds, 0.10 a thread; gen:kron:16 0.42 / 0.35; but kron:12 (24 a
     * row, hubs) 0.08 with 8 lanes, 0.17 a thread (docs/BENCHMARKS.md). */
    long long work = warp ? 32 * n : n;
    bool kept = false;
    if (persistent && !tu->mis_no_worklist) {
      const void *kept8 = (const void *)mis2_persistent<W, true, kPersistentPerSm, true>;
      const void *kept1 = (const void *)mis2_persistent<W, false, kThreadMappingPerSm, true>;
      long long fit = 0;
      if (warp) {
        st = mis_cuda::persistent_threads(ctx, kept8, &fit);
        if (!st && kept_lanes<true>() * n <= fit) {
          pk = kept8, work = kept_lanes<true>() * n, kept = true;
        }
      }
      if (!st && !kept && (!warp || (!tu->mis_force_warp_mapping && g->nnz < 32 * n))) {
        st = mis_cuda::persistent_threads(ctx, kept1, &fit);
        if (!st && n <= fit) pk = kept1, work = n, kept = true;
      }
    }
    if (!kept && hv > 0) { /* the worklist rounds: init registers the hub rows */
      unsigned *hw = (unsigned *)(scratch + at_heavy);
      p.heavy = heavy;
      p.heavy.count = hw;
      p.heavy.acc = (W *)(scratch + at_heavy + 8); /* 8-aligned; then the counters */
      p.heavy.arrived = (unsigned *)(p.heavy.acc + hv);
      p.heavy.chunk = (mis_cuda::HeavyChunk *)(scratch + at_chunks);
      if (cudaMemsetAsync(hw, 0, 8, s) != cudaSuccess)
        st = mispc_seterr(ctx, MISPC_ERR_CUDA, "MIS-2: cudaMemsetAsync of the hub counts");
    }
    int launched = 0;
    if (!st) st = mis_cuda::launch_persistent(ctx, s, pk, &p, work, persistent, &launched);
    if (!st && !launched) { /* two launches per round */
      p.result_host = NULL; /* these kernels leave the result on the device */
      cudaMemsetAsync(p.cnt, 0, (size_t)((char *)(p.done + 1) - (char *)p.cnt), s);
      mis2_init<W><<<mispc_grid_for(n, kBlock, (unsigned)sms * 8u), kBlock, 0, s>>>(p);
      int stop = -1;
      st = mis_cuda::run_rounds_lagged(
          ctx, s, max_rounds,
          [&](int r, unsigned *left) {
            if (warp) {
              mis2_column<W, true><<<grid, kBlock, 0, s>>>(p, r);
              mis2_decide<W, true><<<grid, kBlock, 0, s>>>(p, r);
            } else {
              mis2_column<W, false><<<grid, kBlock, 0, s>>>(p, r);
              mis2_decide<W, false><<<grid, kBlock, 0, s>>>(p, r);
            }
            cudaMemcpyAsync(left, p.cnt + 2 * (r + 1), 4, cudaMemcpyDeviceToHost, s);
          },
          &stop);
      if (!st) {
        mis2_finish<W><<<mispc_grid_for(n, kBlock, (unsigned)sms * 8u), kBlock, 0, s>>>(p);
        unsigned long long rr = (unsigned long long)(long long)stop; /* -1: out of rounds */
        cudaMemcpyAsync(p.result + 1, &rr, 8, cudaMemcpyHostToDevice, s);
        cudaStreamSynchronize(s); /* rr lives on this stack frame */
      }
    }
    if (!st) {
      st = mis_cuda::fetch_result(ctx, s, h_result, p.result,
                                  launched && d_mapped ? h_mapped : NULL, sizeof h_result, "MIS-2");
      if (!st && (long long)h_result[1] < 0)
        st = mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_mis2: vertices still undecided after %d rounds", max_rounds);
      res->set_size = (int64_t)h_result[0];
      res->rounds = (int)(long long)h_result[1];
    }
  }
  mispc_scratch_free(ctx, scratch);
  return st;
}

extern "C" mispc_status mispc_mis2_cuda(mispc_context *ctx, const mispc_csr *g,
                                        const mispc_mis_options *opt, int per_round,
                                        const uint8_t *subset, uint8_t *in_set,
                                        mispc_mis_result *res) {
  if (per_round == mis2_cover_key) return mispc_mis2_cover_cuda(ctx, g, opt, subset, in_set, res);
  if (mis2_word_bits(mis2_id_bits(g->nrows)) == 32)
    return run_mis2<uint32_t>(ctx, g, opt, per_round, subset, in_set, res);
  return run_mis2<uint64_t>(ctx, g, opt, per_round, subset, in_set, res);
}
