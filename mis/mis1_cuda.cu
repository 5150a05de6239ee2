/* MIS-1 on the GPU: the rounds of mis1_host.c.
 *
 * Work mapping (papers/cuMIS-2026.txt §4): vertices of degree <= 32 get a
 * group of L lanes (lanes_for: one thread for sparse meshes, 8 lanes where
 * rows are long enough that one thread's chain of dependent loads would be
 * the round's critical path); higher degrees a warp that scans 32 neighbours
 * at a time. The caller's graph is not
 * renumbered. Worklists of still-undecided vertices (one per mapping) shrink
 * every round; round 0 reads every vertex directly. Early exit: a vertex stops
 * at its first blocking neighbour, so in round 0 most vertices read only a few
 * neighbours (ECL-MIS §3).
 *
 * An init pass stores each vertex's key (mis_common.h) and clears in_set;
 * the rounds start from a list of the high-degree vertices. Members are
 * written to in_set as they are decided and the counts are summed as the
 * rounds go, so there is no closing pass. Worklists are appended through
 * warp-private buffers (mispc_warp_append): no block barrier inside a round.
 *
 * By default all rounds run inside one cooperative (persistent) kernel with a
 * grid-wide barrier between rounds, so a round costs its memory traffic plus
 * one barrier rather than a launch and a host round trip (DESIGN.md: launch
 * count matters as much as bandwidth). Where cooperative launch is not
 * available, one kernel per round is queued and the host reads the worklist
 * lengths one round late. Both paths compute identical rounds.
 *
 * Graphs without hubs skip the rounds: after init, the persistent kernel runs
 * a sync-free pass instead (ECL-MIS §3; see sync_free_body), which gives the
 * same set without a barrier per round.
 *
 * On small graphs a call is latency (docs/results/benchmarks-log.md, "Small
 * graphs"), so the persistent path keeps host work to one pool allocation,
 * the launch and a stream sync: the kernel zeroes its own counters and
 * writes the result words into mapped pinned memory, and the occupancy is
 * looked up once per context. */
#include <cooperative_groups.h>
#include <stdint.h>
#include <stdlib.h>

#include "mis_backend.h"
#include "mis_common.h"
#include "mis_cuda.cuh"

namespace cg = cooperative_groups;

namespace {

using mis_cuda::kBlock;
using mis_cuda::kPersistentPerSm;
constexpr int kWarpDegree = 32; /* degree above which a warp handles the vertex */
constexpr int kWarps = kBlock / 32;
constexpr int kListSlots = 128; /* per warp and worklist */
typedef mispc_warp_append<kListSlots> List;

/* Everything a run needs; counters hold, per round r, [3r+1] / [3r+2] the low /
 * high worklist lengths ([0], [3r] unused). The run ends when both lists for
 * the next round are empty. The persistent kernel zeroes the counters itself
 * (init_body, then each round those of the round after next), with no memset
 * before it; the one-launch-a-round path has them zeroed by the host. */
struct Plan {
  const int64_t *rowptr;
  const int32_t *colidx;
  uint32_t *status;
  uint32_t *key; /* start keys, written by init and then only read */
  int64_t n;
  int early_exit, no_worklist, warp_degree, max_rounds, key_mode;
  const uint8_t *subset;
  uint64_t seed;
  int32_t *low[2], *high[2];
  unsigned *cnt;
  unsigned long long *result;      /* [0] members, [1] undecided, [2] rounds (last IN round + 1) */
  unsigned *done;                  /* blocks past their tally (publish_result) */
  unsigned long long *result_host; /* mapped host copy of result, or NULL */
  unsigned *hub;                   /* per block of the persistent kernel: a hub seen in init */
  uint8_t *in_set;
  /* Sync-free pass instead of rounds when every degree is at most this (0: never). */
  int64_t sync_free_max_degree;
};

/* One round's view of the plan. The plan stays a reference to the kernel
 * parameter (constant memory), so its fields cost no registers; the list
 * pointers of the round are selected where they are used. */
struct Round {
  const Plan &p;
  int r, all;
  __device__ Round(const Plan &plan, int round)
      : p(plan), r(round), all(round == 0 || plan.no_worklist) {}
  /* selects, not p.low[r & 1]: a dynamic index would put the plan in local memory */
  __device__ bool odd() const {
    return r & 1;
  }
  __device__ const int32_t *low_in() const {
    return odd() ? p.low[1] : p.low[0];
  }
  __device__ const unsigned *low_n() const {
    return p.cnt + 3 * r + 1;
  }
  __device__ int32_t *low_out() const {
    return odd() ? p.low[0] : p.low[1];
  }
  __device__ unsigned *low_out_n() const {
    return p.cnt + 3 * (r + 1) + 1;
  }
  /* no-worklist ablation: the high list from init is read every round */
  __device__ const int32_t *high_in() const {
    return p.no_worklist || !odd() ? p.high[0] : p.high[1];
  }
  __device__ const unsigned *high_n() const {
    return p.no_worklist ? p.cnt + 2 : p.cnt + 3 * r + 2;
  }
  __device__ int32_t *high_out() const {
    return p.no_worklist || !odd() ? p.high[1] : p.high[0];
  }
  __device__ unsigned *high_out_n() const {
    return p.cnt + 3 * (r + 1) + 2;
  }
};

/* What a thread counts over the rounds: members it decided, the last round +1. */
struct Tally {
  unsigned long long in;
  unsigned last;
};

/* Neighbour u blocks v if it was undecided at the round's start and comes first. */
__device__ __forceinline__ bool blocks(const Round &a, int32_t u, int64_t v, uint32_t kv) {
  if (u == v) return false;
  /* Round 0: every neighbour was undecided at the start (or is outside the
   * subset, key MIS1_KEY_NONE), so its key decides: one load, no status check. */
  if (a.r == 0) return mis1_before(a.p.key[u], u, kv, v);
  uint32_t s = a.p.status[u];
  uint32_t ku = s;
  if (mis1_is_decided(s)) {
    if (mis1_stamp_round(s) < a.r) return false; /* OUT since an earlier round (or outside) */
    if (!(s & 1u)) return true;                  /* IN this round: it came first */
    ku = a.p.key[u];                             /* OUT this round: its start state */
  }
  return mis1_before(ku, u, kv, v);
}

/* v joins the set: lane 0 of its group stamps it, the group marks its
 * undecided neighbours OUT. atomicMin does the "if undecided" test: this
 * round's OUT stamp is below every key and above every earlier stamp, so it
 * replaces exactly the undecided words. Without a return value it compiles to
 * a reduction that nothing waits for, where a load, test and store per
 * neighbour would be a chain of dependent loads (a store may alias the next
 * load). */
__device__ __forceinline__ void join(const Round &a, int64_t b, int64_t e, int64_t v, int gl,
                                     int step, Tally &t) {
  uint32_t *status = a.p.status;
  if (gl == 0) {
    status[v] = mis1_stamp(a.r, 0);
    a.p.in_set[v] = 1;
    ++t.in;
    t.last = (unsigned)a.r + 1u;
  }
  const uint32_t out = mis1_stamp(a.r, 1);
  for (int64_t p = b + gl; p < e; p += step) {
    int32_t u = a.p.colidx[p];
    if (u != v) atomicMin(&status[u], out);
  }
}

/* Group of L lanes (mask gmask, lane gl in it) visits v; returns whether v
 * stays undecided. */
template <int L>
__device__ __forceinline__ bool visit(const Round &a, int32_t v, int64_t b, int64_t e, uint32_t kv,
                                      int gl, unsigned gmask, Tally &t) {
  bool blocked = false;
  for (int64_t base = b; base < e; base += L) {
    const int64_t p = base + gl;
    const bool mine = p < e && blocks(a, a.p.colidx[p], v, kv);
    const bool any = L == 1 ? mine : (__ballot_sync(gmask, mine) & gmask) != 0;
    if (any) {
      blocked = true;
      if (a.p.early_exit) break;
    }
  }
  if (!blocked) join(a, b, e, v, gl, L, t);
  return blocked;
}

/* One round over the grid's share of both worklists. */
/* Shared memory of a block: the warps' list buffers and the finish counts. */
struct Smem {
  int32_t slots[2 * kWarps][kListSlots];
  unsigned counts[kWarps + 1];
};

template <int L> __device__ __forceinline__ void round_body(const Round &a, Smem &sm, Tally &t) {
  constexpr int G = 32 / L; /* vertices per warp step */
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane / L, gl = lane % L;
  const unsigned gmask = mispc_group_mask<L>();
  const int64_t gwarp = (int64_t)blockIdx.x * kWarps + warp;
  const int64_t nwarps = (int64_t)gridDim.x * kWarps;
  List low(sm.slots[warp], a.low_out(), a.low_out_n());
  List high(sm.slots[kWarps + warp], a.high_out(), a.high_out_n());
  const int64_t nlow = a.all ? a.p.n : (int64_t)*a.low_n();
  for (int64_t base = gwarp * G; base < nlow; base += nwarps * G) {
    const int64_t i = base + g;
    int32_t v = -1;
    int64_t b = 0, e = 0;
    uint32_t kv = 0;
    bool blocked = false;
    if (i < nlow) {
      v = a.all ? (int32_t)i : a.low_in()[i];
      b = a.p.rowptr[v];
      e = a.p.rowptr[v + 1];
      kv = a.p.status[v];
      /* reading every vertex: the high-degree ones are on the high list */
      if (!mis1_is_decided(kv) && (!a.all || e - b <= a.p.warp_degree))
        blocked = visit<L>(a, v, b, e, kv, gl, gmask, t);
    }
    low.push(gl == 0 && blocked, v);
  }
  { /* warp per high-degree vertex */
    const int64_t nhigh = *a.high_n();
    for (int64_t w = gwarp; w < nhigh; w += nwarps) {
      const int32_t v = a.high_in()[w];
      /* One lane reads the status so the whole warp agrees on it. */
      const uint32_t kv = __shfl_sync(0xffffffffu, lane == 0 ? a.p.status[v] : 0u, 0);
      bool blocked = false;
      if (!mis1_is_decided(kv))
        blocked = visit<32>(a, v, a.p.rowptr[v], a.p.rowptr[v + 1], kv, lane, 0xffffffffu, t);
      high.push(lane == 0 && blocked, v);
    }
  }
  low.finish<kWarps>(sm.counts);
  high.finish<kWarps>(sm.counts);
}

/* The high-degree vertices (of the subset) into the list of round 0. */
__device__ __forceinline__ bool listed_high(const Plan &p, int64_t v, int64_t deg) {
  return (!p.subset || p.subset[v]) && deg > p.warp_degree;
}

/* Keys and status words, in_set cleared. ListHigh (one launch a round): the
 * high-degree vertices listed too, in counters the host zeroed. Otherwise
 * (the persistent kernel): each block's hub flag into p.hub, and block 0
 * zeroes the words used before the rounds zero their own; the list waits
 * for list_high_body, after the barrier, as only the rounds read it. */
template <bool ListHigh> __device__ __forceinline__ void init_body(const Plan &p, Smem &sm) {
  List high(sm.slots[threadIdx.x >> 5], p.high[0], p.cnt + 2);
  int hub = 0;
  for (int64_t base = blockIdx.x * (int64_t)kBlock; base < p.n;
       base += (int64_t)gridDim.x * kBlock) {
    const int64_t v = base + threadIdx.x;
    bool is_high = false;
    if (v < p.n) {
      const int64_t deg = p.rowptr[v + 1] - p.rowptr[v];
      const bool inside = !p.subset || p.subset[v];
      /* outside the subset: decided before round 0 and never blocks */
      const uint32_t cls = inside && p.key_mode == MIS1_KEY_LINES
                               ? mis1_line_class_row(p.colidx + p.rowptr[v], deg, v)
                               : 1u;
      const uint32_t k = inside ? mis1_key_of(p.key_mode, p.seed, v, deg, cls) : MIS1_KEY_NONE;
      p.status[v] = inside ? k : MIS1_STAMP_EXCLUDED;
      p.key[v] = k;
      p.in_set[v] = 0;
      is_high = ListHigh && listed_high(p, v, deg);
      hub |= deg > p.sync_free_max_degree;
    }
    if (ListHigh) high.push(is_high, (int32_t)v);
  }
  if (ListHigh) {
    high.finish<kWarps>(sm.counts);
    return;
  }
  hub = __syncthreads_or(hub);
  if (threadIdx.x == 0) p.hub[blockIdx.x] = (unsigned)hub;
  /* Zeroed before the grid barrier that ends init, so race-free: the high
   * list's length (list_high_body), round 1's lengths (written in round 0),
   * the result and the arrivals of publish_result. */
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    p.cnt[2] = p.cnt[4] = p.cnt[5] = 0;
    p.result[0] = p.result[1] = p.result[2] = 0;
    *p.done = 0;
  }
}

/* Persistent kernel, rounds only, after init's barrier: the high list of
 * round 0 (counted in cnt[2]). */
__device__ __forceinline__ void list_high_body(const Plan &p, Smem &sm) {
  List high(sm.slots[threadIdx.x >> 5], p.high[0], p.cnt + 2);
  for (int64_t base = blockIdx.x * (int64_t)kBlock; base < p.n;
       base += (int64_t)gridDim.x * kBlock) {
    const int64_t v = base + threadIdx.x;
    high.push(v < p.n && listed_high(p, v, p.rowptr[v + 1] - p.rowptr[v]), (int32_t)v);
  }
  high.finish<kWarps>(sm.counts);
}

/* Whether any block of the persistent kernel saw a hub in init (every thread
 * of a block, after init's barrier; the same in every block). */
__device__ __forceinline__ bool hub_seen(const Plan &p) {
  unsigned h = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += kBlock) h |= p.hub[b];
  return __syncthreads_or(h != 0);
}

__global__ void __launch_bounds__(kBlock) mis1_init(Plan p) {
  __shared__ Smem sm;
  init_body<true>(p, sm);
}

/* Vertices still undecided (only when the round limit ran out). */
__device__ __forceinline__ unsigned long long count_open(const Plan &p) {
  unsigned long long open = 0;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < p.n;
       v += (int64_t)gridDim.x * blockDim.x)
    open += !mis1_is_decided(p.status[v]);
  return open;
}

/* Adds the block's tallies to the result (one atomic each per block). */
__device__ __forceinline__ void add_tally(const Plan &p, Tally t, unsigned long long open) {
  unsigned long long in = mispc_block_sum<kBlock>(t.in);
  unsigned last = mispc_block_max<kBlock>(t.last);
  open = mispc_block_sum<kBlock>(open);
  if (threadIdx.x == 0) {
    if (last) atomicMax(&p.result[2], (unsigned long long)last);
    if (in) atomicAdd(&p.result[0], in);
    if (open) atomicAdd(&p.result[1], open);
  }
}

template <int L> __global__ void __launch_bounds__(kBlock) mis1_round(Plan p, int r) {
  __shared__ Smem sm;
  Tally t = {0, 0};
  round_body<L>(Round(p, r), sm, t);
  add_tally(p, t, 0);
}

__global__ void __launch_bounds__(kBlock) mis1_count_open(Plan p) {
  add_tally(p, Tally{0, 0}, count_open(p));
}

/* ---- Sync-free pass (ECL-MIS §3) -------------------------------------------
 * No rounds and no barriers: each warp visits its vertices again and again
 * until all are decided. A vertex joins once every neighbour that comes
 * before it is OUT, and goes OUT once a neighbour is IN. States only move
 * from undecided to IN or OUT and each decision reads only decided states,
 * so the result is the greedy MIS in key order (the lexicographically first
 * MIS) whatever the timing: exactly the set of the rounds, but without their
 * round count (res->rounds = 0). Every block is resident (cooperative
 * launch), so the undecided vertex that comes first can always decide and no
 * warp waits forever. Status words are read and written with relaxed
 * device-scope operations (mispc_load_relaxed / mispc_store_relaxed).
 *
 * Measured on an H100 (docs/results/benchmarks-log.md): about 25% faster than the rounds
 * on meshes and the random graph, 2.8x slower on Kronecker, where most
 * vertices join and each reads all of its neighbours' words from L2 (round 0
 * of the rounds reads start keys through L1); hence the hub rule in
 * sync_free_max_degree. */

/* Group of L lanes tries to decide v (key kv, row b..e). Returns whether v
 * must wait: a neighbour that comes first is still undecided. An IN
 * neighbour sends v OUT (a neighbour that comes after v cannot be IN while v
 * is undecided). */
template <int L>
__device__ __forceinline__ bool try_decide(const Plan &p, int32_t v, int64_t b, int64_t e,
                                           uint32_t kv, int gl, unsigned gmask, Tally &t) {
  bool blocked = false, knocked = false;
  for (int64_t base = b; base < e; base += L) {
    const int64_t q = base + gl;
    bool hit = false, blk = false;
    if (q < e) {
      const int32_t u = p.colidx[q];
      if (u != v) {
        const uint32_t su = mispc_load_relaxed(p.status + u);
        hit = mis1_in_set(su);
        blk = !mis1_is_decided(su) && mis1_before(su, u, kv, v);
      }
    }
    if (L > 1) {
      hit = (__ballot_sync(gmask, hit) & gmask) != 0;
      blk = (__ballot_sync(gmask, blk) & gmask) != 0;
    }
    if (hit) {
      knocked = true;
      break;
    }
    if (blk) {
      blocked = true;
      if (p.early_exit) break;
    }
  }
  if (knocked) {
    if (gl == 0) mispc_store_relaxed(p.status + v, mis1_stamp(0, 1)); /* OUT */
    return false;
  }
  if (blocked) return true;
  if (gl == 0) {
    mispc_store_relaxed(p.status + v, mis1_stamp(0, 0)); /* IN */
    p.in_set[v] = 1;
    ++t.in;
  }
  /* Every neighbour is OUT already or comes after v: a plain OUT store. */
  for (int64_t q = b + gl; q < e; q += L) {
    const int32_t u = p.colidx[q];
    if (u != v) mispc_store_relaxed(p.status + u, mis1_stamp(0, 1));
  }
  return false;
}

/* ---- Sync-free pass on small graphs: rows kept across passes ---------------
 * When every vertex has a lane group of its own (n <= the launched groups),
 * a pass of try_decide costs four dependent L2 round trips (v's status, its
 * row offsets, its columns, the neighbours' status words), and the number of
 * passes is the longest chain of dependencies in key order. Instead the group
 * reads v's row once and keeps it in shared memory (lane gl: entries gl,
 * gl + L, ...; at most row_slots<L>() each), sorted by one read of the
 * neighbours' status words into those before v (slots from the front, bits
 * `before`) and those after (from the back, bits `after`). v's fate depends
 * only on the neighbours before it: IN once all are OUT, OUT once one is IN
 * (one after v cannot be IN while v is undecided). So a later pass reloads
 * only the status words of the earlier neighbours still undecided:
 * independent loads, one round trip. Same rules, same set. Rows that fit are
 * kept whatever their degree (a group of 8 lanes keeps up to 64 entries,
 * where the rounds give a warp to rows past 32); longer ones go through
 * try_decide as before. */

/* Slots a lane: one thread holds rows of up to 16 (a random graph of mean
 * degree 8 has rows past 8), a group of L lanes rows of up to 8 L. */
template <int L> __host__ __device__ constexpr int row_slots() {
  return L == 1 ? 16 : 8;
}

/* The kept rows of a block, [slot][thread] so that a warp reads consecutive
 * words, and each thread's state: the slot bits `before` with kOpen and
 * kKept, and the slot bits `after`. In shared memory, not registers: the
 * persistent kernel is at its 32-register cap and would spill them. */
constexpr unsigned kOpen = 1u << 31; /* v kept here and undecided */
constexpr unsigned kKept = 1u << 30; /* v handled here (row kept, or v outside the subset) */
template <int L> struct OwnRows {
  int32_t slot[row_slots<L>()][kBlock];
  unsigned state[kBlock];
  unsigned after[kBlock];
};

/* Shared memory of the persistent kernel: the rounds' list buffers, and
 * where rows are kept (Own) the sync-free pass's rows in the same bytes (a
 * run uses one of the two). Own is a kernel of its own, so that larger
 * graphs keep the kernel they had: the kept rows' code and shared memory
 * cost Elasticity-like grids of 8-lane groups 6 % (grid3d27:100 MIS-1,
 * H100, 2026-11-26). */
template <int L, bool Own> union PersistentSmem { Smem rounds; };
template <int L> union PersistentSmem<L, true> {
  Smem rounds;
  OwnRows<L> own;
};

/* Status words of this thread's slots k0 .. k0 + 7 that are in *before (one
 * round trip: every load is issued before any is used): an IN one sets the
 * result, a decided OUT one leaves *before. */
template <int L>
__device__ __forceinline__ bool reload_slots(const uint32_t *status, const OwnRows<L> &own, int k0,
                                             unsigned *before) {
  int32_t c[8];
  uint32_t su[8];
#pragma unroll
  for (int j = 0; j < 8; ++j)
    c[j] = (*before >> (k0 + j)) & 1u ? own.slot[k0 + j][threadIdx.x] : -1;
#pragma unroll
  for (int j = 0; j < 8; ++j) su[j] = c[j] >= 0 ? mispc_load_relaxed(status + c[j]) : 0u;
  bool hit = false;
#pragma unroll
  for (int j = 0; j < 8; ++j)
    if (c[j] >= 0) {
      if (mis1_in_set(su[j]))
        hit = true;
      else if (mis1_is_decided(su[j]))
        *before &= ~(1u << (k0 + j));
    }
  return hit;
}

/* Reads the row of vertex i (this thread's entries of it) into its slots and
 * sorts the undecided neighbours into before (slots from the front) and
 * after (from the back); returns whether one is IN already. i past n, or
 * outside the subset: kept, not open; rows that do not fit: neither
 * (try_decide takes them). Entries eight at a time, so that at most eight
 * loads of each kind are in flight. */
template <int L>
__device__ __noinline__ bool own_row_start(uint32_t *status, const int64_t *rowptr,
                                           const int32_t *colidx, const uint32_t *key, int64_t n,
                                           OwnRows<L> &own, int64_t i, int gl) {
  constexpr int K = row_slots<L>();
  unsigned before = kKept, after = 0;
  bool hit = false;
  if (i < n) {
    const int32_t v = (int32_t)i;
    const int64_t b = rowptr[v];
    const int64_t len = rowptr[v + 1] - b;
    const uint32_t kv = key[v];
    if (kv == MIS1_KEY_NONE) /* outside the subset: decided before the pass */
      before = kKept;
    else if (len > (int64_t)K * L)
      before = 0; /* try_decide takes it (a warp above warp_degree) */
    else {
      before = kKept | kOpen;
      const int32_t *row = colidx + b;
      const int deg = (int)len;
      int nb = 0, na = 0; /* slots taken from the front / the back */
#pragma unroll
      for (int k0 = 0; k0 < K; k0 += 8) {
        if (gl + k0 * L >= deg) break;
        int32_t c[8];
        uint32_t su[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) c[j] = gl + (k0 + j) * L < deg ? row[gl + (k0 + j) * L] : v;
#pragma unroll
        for (int j = 0; j < 8; ++j)
          su[j] = c[j] != v ? mispc_load_relaxed(status + c[j]) : MIS1_STAMP_EXCLUDED;
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          if (mis1_in_set(su[j])) hit = true;
          if (mis1_is_decided(su[j])) continue; /* OUT (or no entry, or v itself) */
          /* undecided: its status word is its start key */
          if (mis1_before(su[j], c[j], kv, v)) {
            own.slot[nb][threadIdx.x] = c[j];
            before |= 1u << nb++;
          } else {
            ++na;
            own.slot[K - na][threadIdx.x] = c[j];
            after |= 1u << (K - na);
          }
        }
      }
    }
  }
  own.state[threadIdx.x] = before;
  own.after[threadIdx.x] = after;
  return hit;
}

/* A later pass: the status words of the earlier neighbours still undecided
 * (slots 0 .. 7, and 8 .. 15 only for the few threads with more); returns
 * whether one is IN. */
template <int L>
__device__ __noinline__ bool own_row_reload(const uint32_t *status, OwnRows<L> &own) {
  unsigned w = own.state[threadIdx.x];
  if (!(w & kOpen) || !(w & ~(kOpen | kKept))) return false;
  bool hit = reload_slots<L>(status, own, 0, &w);
  if constexpr (row_slots<L>() > 8)
    if (!hit && ((w & ~(kOpen | kKept)) >> 8)) hit = reload_slots<L>(status, own, 8, &w);
  own.state[threadIdx.x] = w;
  return hit;
}

/* Decides the group's own vertex i where it can, from `hit` (a neighbour IN)
 * and the before bits; all 32 lanes call it. Returns whether i waits. */
template <int L>
__device__ __forceinline__ bool own_row_decide(const Plan &p, OwnRows<L> &own, int64_t i, bool hit,
                                               int gl, unsigned gmask, Tally &t) {
  const unsigned w = own.state[threadIdx.x];
  const bool any_hit = (__ballot_sync(0xffffffffu, hit) & gmask) != 0;
  const bool any_before = (__ballot_sync(0xffffffffu, (w & ~(kOpen | kKept)) != 0) & gmask) != 0;
  if (!(w & kOpen)) return false;
  if (!any_hit && any_before) return true;
  own.state[threadIdx.x] = kKept; /* decided */
  if (any_hit) {                  /* OUT */
    if (gl == 0) mispc_store_relaxed(p.status + i, mis1_stamp(0, 1));
    return false;
  }
  if (gl == 0) { /* IN: every earlier neighbour is OUT */
    mispc_store_relaxed(p.status + i, mis1_stamp(0, 0));
    p.in_set[i] = 1;
    ++t.in;
  }
  for (unsigned m = own.after[threadIdx.x]; m; m &= m - 1)
    mispc_store_relaxed(p.status + own.slot[__ffs(m) - 1][threadIdx.x], mis1_stamp(0, 1));
  return false;
}

/* The warps' vertices as in round 0 (groups of L lanes; a warp for each
 * vertex above warp_degree), visited until all are decided. */
template <int L, bool Own>
__device__ __forceinline__ void sync_free_body(const Plan &p, Tally &t, OwnRows<L> *rows) {
  constexpr int G = 32 / L;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane / L, gl = lane % L;
  const unsigned gmask = mispc_group_mask<L>();
  const int64_t gwarp = (int64_t)blockIdx.x * kWarps + warp;
  const int64_t nwarps = (int64_t)gridDim.x * kWarps;
  /* every vertex a group of its own (the same in every thread): rows kept */
  const bool own = Own && p.early_exit && nwarps * G >= p.n;
  for (int pass = 0;; ++pass) {
    bool waiting = false;
    if (own) {
      const int64_t i = gwarp * G + g;
      const bool hit =
          pass ? own_row_reload<L>(p.status, *rows)
               : own_row_start<L>(p.status, p.rowptr, p.colidx, p.key, p.n, *rows, i, gl);
      waiting = own_row_decide<L>(p, *rows, i, hit, gl, gmask, t);
    }
    for (int64_t base = gwarp * G; base < p.n; base += nwarps * G) {
      const int64_t i = base + g;
      uint32_t kv = MIS1_STAMP_EXCLUDED;
      /* one lane reads the status so the group agrees on it */
      if (i < p.n && gl == 0 && !(own && (rows->state[threadIdx.x] & kKept)))
        kv = mispc_load_relaxed(p.status + i);
      if (L > 1) kv = __shfl_sync(0xffffffffu, kv, g * L);
      const bool open = i < p.n && !mis1_is_decided(kv);
      int64_t b = 0, e = 0;
      if (open) b = p.rowptr[i], e = p.rowptr[i + 1];
      const bool high = open && L < 32 && e - b > p.warp_degree;
      bool wait = open && !high && try_decide<L>(p, (int32_t)i, b, e, kv, gl, gmask, t);
      if (L < 32) { /* the whole warp for each high-degree vertex of this step */
        unsigned hm = __ballot_sync(0xffffffffu, high && gl == 0);
        while (hm) {
          const int src = __ffs(hm) - 1;
          hm &= hm - 1;
          const int32_t hv = (int32_t)__shfl_sync(0xffffffffu, i, src);
          const uint32_t hk = __shfl_sync(0xffffffffu, kv, src);
          const int64_t hb = __shfl_sync(0xffffffffu, b, src);
          const int64_t he = __shfl_sync(0xffffffffu, e, src);
          const bool w = try_decide<32>(p, hv, hb, he, hk, lane, 0xffffffffu, t);
          if (lane == src) wait = w;
        }
      }
      waiting |= wait;
    }
    if (!__any_sync(0xffffffffu, waiting)) break;
  }
}

/* All rounds in one cooperative launch. */
template <int L, bool Own>
__global__ void __launch_bounds__(kBlock, kPersistentPerSm) mis1_persistent(Plan p) {
  __shared__ PersistentSmem<L, Own> shared;
  Smem &sm = shared.rounds;
  cg::grid_group grid = cg::this_grid();
  Tally t = {0, 0};
  init_body<false>(p, sm);
  grid.sync();
  if (p.sync_free_max_degree && !hub_seen(p)) { /* same in every thread */
    OwnRows<L> *rows = nullptr;
    if constexpr (Own) rows = &shared.own;
    sync_free_body<L, Own>(p, t, rows);
    add_tally(p, t, 0);
    mis_cuda::publish_result<3>(p.result, p.result_host, p.done);
    return;
  }
  list_high_body(p, sm);
  grid.sync();
  unsigned left = 1;
  for (int r = 0; r < p.max_rounds && left; ++r) {
    /* round r+1 appends to these, after the barrier below */
    if (blockIdx.x == 0 && threadIdx.x < 2) p.cnt[3 * (r + 2) + 1 + threadIdx.x] = 0;
    round_body<L>(Round(p, r), sm, t);
    grid.sync();
    left = p.cnt[3 * (r + 1) + 1] + p.cnt[3 * (r + 1) + 2]; /* same in every thread */
  }
  add_tally(p, t, left ? count_open(p) : 0);
  mis_cuda::publish_result<3>(p.result, p.result_host, p.done);
}

/* Lanes per low-degree vertex: one thread while rows are short; for longer
 * rows a group of 8, so that a round is not one thread's chain of dependent
 * loads. Measured on an H100 (docs/results/benchmarks-log.md): 8 lanes take the 27-point
 * grid from 0.21 to 0.15 ms and Kronecker from 0.31 to 0.29 ms; 16 lanes are
 * faster on the grid (0.13) but slower on Kronecker (0.35), and any group is
 * slower on 7-point and 2D grids and on the random graph of degree 8.
 * The context's tuning.mis1_lanes (1, 2, 4, 8, 16, 32; tuning.h) overrides it,
 * for measurements and tests. */
int lanes_for(const mispc_context *ctx, const mispc_csr *g) {
  const int l = ctx->tuning.mis1_lanes;
  if (l == 1 || l == 2 || l == 4 || l == 8 || l == 16 || l == 32) return l;
  return mis_cuda::lanes_by_mean_degree(g);
}

/* The sync-free pass is used when no degree exceeds mis1_hub_degree: meshes,
 * random and road-like graphs. A hub makes it slower than the rounds (see
 * sync_free_body); the mean + 32 keeps small graphs of uneven degree in. */
int64_t sync_free_max_degree(const mispc_csr *g) {
  return mis1_hub_degree(g->nnz, g->nrows);
}

template <int L>
mispc_status run(mispc_context *ctx, cudaStream_t s, const Plan &p, int persistent, unsigned grid,
                 int *launched) {
  Plan q = p;
  /* A group of L lanes a vertex where all fit at once and the sync-free
   * pass may run: the kernel that keeps rows (sync_free_body); else a group
   * takes n / (the groups) vertices in turn. */
  long long fit = 0;
  const void *own_kernel = (const void *)mis1_persistent<L, true>;
  if (persistent && p.sync_free_max_degree && p.early_exit)
    MISPC_TRY(mis_cuda::persistent_threads(ctx, own_kernel, &fit));
  const bool own = p.n * L <= fit;
  const void *kernel = own ? own_kernel : (const void *)mis1_persistent<L, false>;
  MISPC_TRY(
      mis_cuda::launch_persistent(ctx, s, kernel, &q, own ? p.n * L : p.n, persistent, launched));
  if (*launched) return MISPC_SUCCESS;
  q.result_host = NULL; /* these kernels leave the result on the device */
  cudaMemsetAsync(q.cnt, 0, (size_t)((char *)(q.done + 1) - (char *)q.cnt), s);
  mis1_init<<<grid, kBlock, 0, s>>>(q);
  int stop = -1; /* one launch per round */
  MISPC_TRY(mis_cuda::run_rounds_lagged(
      ctx, s, q.max_rounds,
      [&](int r, unsigned *left) {
        mis1_round<L><<<grid, kBlock, 0, s>>>(q, r);
        cudaMemcpyAsync(left, q.cnt + 3 * (r + 1) + 1, 8, cudaMemcpyDeviceToHost, s);
      },
      &stop));
  if (stop < 0) mis1_count_open<<<grid, kBlock, 0, s>>>(q);
  return MISPC_SUCCESS;
}

} // namespace

extern "C" mispc_status mispc_mis1_cuda(mispc_context *ctx, const mispc_csr *g,
                                        const mispc_mis_options *opt, int mode,
                                        const uint8_t *subset, uint8_t *in_set,
                                        mispc_mis_result *res) {
  const int64_t n = g->nrows;
  cudaStream_t s;
  int sms = 0, max_rounds = 0;
  MISPC_TRY(mis_cuda::start(ctx, n, opt, res, &s, &sms, &max_rounds));
  if (n == 0) return MISPC_SUCCESS;
  /* Small graphs: one launch of a cluster that keeps everything in shared
   * memory (rounds = the host's; no sync-free pass there) */
  if (const int blocks = mispc_mis_smem_blocks(ctx, g, 1, subset != NULL)) {
    int ran = 0;
    MISPC_TRY(mispc_mis_smem_cuda(ctx, g, 1, opt, mode, blocks, subset, in_set, res, &ran));
    if (ran) return MISPC_SUCCESS;
  }
  const mispc_tuning *tu = &ctx->tuning; /* ablations (tuning.h) */
  const int persistent = !tu->mis_no_persistent;
  const size_t ncnt = (3 * (size_t)(max_rounds + 2) + 1) & ~(size_t)1; /* keep result 8-aligned */
  /* One allocation: counters, then the result words and the arrivals of
   * publish_result; a hub flag a block (kPersistentPerSm blocks an SM at
   * most); status and keys; worklists. */
  mis_cuda::Parts parts;
  const size_t at_cnt = parts.take(ncnt * 4 + 3 * 8 + 4);
  const size_t at_hub = parts.take((size_t)sms * kPersistentPerSm * 4);
  const size_t at_status = parts.take((size_t)n * 8);
  const size_t at_lists = parts.take((size_t)n * 16);
  char *scratch = NULL;
  MISPC_TRY(mispc_scratch_alloc(ctx, parts.bytes, (void **)&scratch,
                                "MIS-1 status, keys, worklists and counters"));
  unsigned long long *h_mapped, *d_mapped; /* the persistent kernel's result words */
  mispc_status st = mis_cuda::mapped_result<3>(ctx, persistent, &h_mapped, &d_mapped);
  unsigned long long h_result[3] = {0, 0, 0};
  if (!st) {
    Plan p;
    memset(&p, 0, sizeof p);
    int32_t *lists = (int32_t *)(scratch + at_lists);
    p.rowptr = g->rowptr;
    p.colidx = g->colidx;
    p.status = (uint32_t *)(scratch + at_status);
    p.key = p.status + n;
    p.n = n;
    p.early_exit = !tu->mis_no_early_exit;
    p.no_worklist = tu->mis_no_worklist;
    p.warp_degree = tu->mis_no_warp_mapping ? INT32_MAX : kWarpDegree;
    p.max_rounds = max_rounds;
    p.key_mode = mode;
    p.subset = subset;
    p.seed = opt->seed;
    p.low[0] = lists;
    p.low[1] = lists + n;
    p.high[0] = lists + 2 * n;
    p.high[1] = lists + 3 * n;
    p.cnt = (unsigned *)(scratch + at_cnt);
    p.result = (unsigned long long *)(p.cnt + ncnt);
    p.done = (unsigned *)(p.result + 3);
    p.result_host = d_mapped;
    p.hub = (unsigned *)(scratch + at_hub);
    p.in_set = in_set;
    /* the rounds' own switches and a round limit ask for the rounds */
    p.sync_free_max_degree = tu->mis_no_sync_free || tu->mis_no_worklist || opt->max_rounds
                                 ? 0
                                 : sync_free_max_degree(g);
    const unsigned grid = mispc_grid_for(n, kBlock, (unsigned)sms * 8u);
    int launched = 0;
    st = mispc_with_lanes(tu->mis_no_warp_mapping ? 1 : lanes_for(ctx, g), [&](auto lanes) {
      return run<decltype(lanes)::value>(ctx, s, p, persistent, grid, &launched);
    });
    if (!st) {
      st = mis_cuda::fetch_result(ctx, s, h_result, p.result,
                                  launched && d_mapped ? h_mapped : NULL, sizeof h_result, "MIS-1");
      if (!st && h_result[1] != 0)
        st = mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_mis1: %llu vertices undecided after %d rounds", h_result[1],
                          max_rounds);
      res->set_size = (int64_t)h_result[0];
      res->rounds = (int)h_result[2];
    }
  }
  mispc_scratch_free(ctx, scratch);
  return st;
}
