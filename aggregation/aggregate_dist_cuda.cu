/* Distributed MIS-2 aggregation on the GPU (device graphs on several ranks):
 * the phases of aggregate_dist.c with one thread a vertex, ghost labels by
 * the device halo exchange; the aggregate sizes phase 3 reads are counted
 * by each root over its star (root_sizes), exchanged once, and looked up by
 * label where this rank holds the root. The MIS-2 calls are
 * mispc_dist_mis2 on the device graph. Root numbering: an exclusive scan of
 * the root flags on the device (local id order = global id order); a
 * rank's roots are numbered from its first row while the phases run and
 * renumbered once at the end (work.prov), so no host wait or MPI call sits
 * between the phases. Phases 1 and 2 label `tent`; phase 3 writes every
 * label into the caller's array. Every kernel writes only its own vertex's
 * entries and reads arrays no launch of it writes (the counters are integer
 * atomics), so the labels equal the host's bit for bit. Labels are in
 * device memory. The kernels that scan N[v] give a row of more than
 * LONG_ROW entries to the whole warp (for_rows): a power-law graph's hubs
 * have 10^5 entries, too long a chain of loads for one thread (a thread a
 * row, gen:kron:22 on 2 ranks took 3x one GPU). The warp keeps the row
 * order, so the results are unchanged. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "dist_cuda.cuh"
#include "agg_backend.h"
#include "agg_dist.h"

namespace {

/* The scan's input: is_root[v] as 0/1 for v < n, 0 at n (pos[n] = the
 * roots), read by the scan itself (no flag array written first). */
struct root_flag_at {
  const uint8_t *is_root;
  int64_t n;
  __device__ int32_t operator()(int64_t v) const {
    return v < n && is_root[v] != 0;
  }
};
typedef thrust::transform_iterator<root_flag_at, thrust::counting_iterator<int64_t>> root_flag_iter;

root_flag_iter root_flags(const uint8_t *is_root, int64_t n) {
  return root_flag_iter(thrust::counting_iterator<int64_t>(0), root_flag_at{is_root, n});
}

/* rootid[v] = first + local rank of root v; the other vertices keep
 * theirs (phase 2) or get -1 (phase 1, clear); *count = the roots. */
__global__ void root_ids(int64_t n, const uint8_t *is_root, const int32_t *pos, int64_t first,
                         int clear, int32_t *rootid, unsigned long long *count) {
  FOR_VERTEX(v, n) {
    if (is_root[v])
      rootid[v] = (int32_t)(first + pos[v]);
    else if (clear)
      rootid[v] = -1;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) *count = (unsigned long long)pos[n];
}

/* Provisional labels to final ones: label l of phase p = l >= nglobal,
 * numbered from ranges[r] (+ nglobal in phase 2) by the rank r whose range
 * holds l - p nglobal, moves by delta[p P + r] (run). */
__global__ void relabel(int64_t n, int64_t nglobal, int P, const int64_t *ranges,
                        const int64_t *delta, int32_t *agg) {
  FOR_VERTEX(v, n) {
    const int64_t l = agg[v];
    const int p = l >= nglobal;
    const int64_t x = l - (p ? nglobal : 0);
    int lo = 0, hi = P - 1; /* the last r with ranges[r] <= x */
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (ranges[mid] <= x)
        lo = mid;
      else
        hi = mid - 1;
    }
    agg[v] = (int32_t)(l + delta[p * P + lo]);
  }
}

#define LONG_ROW 32 /* rows (diagonal + ghost entries) longer than this: the warp's */

/* op(v, lane, warp) for each owned v with want(v). The warp takes its
 * vertices with rows of more than LONG_ROW entries one at a time, op in
 * every lane (warp = true, lane = its lane); each other vertex runs in its
 * own thread (warp = false, lane = 0). The loop bound is the same in every
 * lane (blockDim.x a multiple of 32), so op's warp votes see all 32 lanes.
 * want(v) runs once for each owned v and may write v's own entries for a
 * vertex it turns away (so that only the others load their row offsets). */
template <typename Want, typename Op>
__device__ __forceinline__ void for_rows(const dev_graph &g, Want want, Op op) {
  const int lane = (int)(threadIdx.x & 31);
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t base = blockIdx.x * (int64_t)blockDim.x + (threadIdx.x & ~31u); base < g.nloc;
       base += stride) {
    const int64_t v = base + lane;
    const bool mine = v < g.nloc && want(v);
    const bool wide = mine && g.arp[v + 1] - g.arp[v] + g.brp[v + 1] - g.brp[v] > (int64_t)LONG_ROW;
    for (unsigned m = __ballot_sync(0xffffffffu, wide); m; m &= m - 1)
      op((int64_t)__shfl_sync(0xffffffffu, v, __ffs(m) - 1), lane, true);
    if (mine && !wide) op(v, 0, false);
  }
}

/* f(q) of the first q in [b, e) (row order) with f(q) >= 0, else -1. Warp:
 * 32 Depth consecutive entries a step, Depth per lane loaded before the
 * first vote (3: a row of up to 96 entries costs one chain of dependent
 * loads; an Elasticity3D row has 81, and a step of 32 a chain made the
 * joins latency-bound); the lowest lane with a hit in the first 32 with one
 * gives its value to all lanes. */
template <int Depth, typename F>
__device__ __forceinline__ int64_t first_hit_steps(int lane, int64_t b, int64_t e, F f) {
  for (int64_t q = b; q < e; q += 32 * Depth) {
    int64_t x[Depth];
#pragma unroll
    for (int k = 0; k < Depth; ++k) x[k] = q + 32 * k + lane < e ? f(q + 32 * k + lane) : -1;
#pragma unroll
    for (int k = 0; k < Depth; ++k) {
      const unsigned m = __ballot_sync(0xffffffffu, x[k] >= 0);
      if (m) return __shfl_sync(0xffffffffu, x[k], __ffs(m) - 1);
    }
  }
  return -1;
}

/* Rows longer than this take 256 entries a step (8 loads a lane in flight):
 * a hub's scan for its root is the critical path of a join (gen:kron:21 on
 * 2 GPUs: joins 512 us, member sizes 290 us, at 96 a step). */
#define HUB_ROW 768

template <typename F>
__device__ __forceinline__ int64_t first_hit(bool warp, int lane, int64_t b, int64_t e, F f) {
  if (!warp) {
    for (int64_t q = b; q < e; ++q) {
      const int64_t x = f(q);
      if (x >= 0) return x;
    }
    return -1;
  }
  return e - b > HUB_ROW ? first_hit_steps<8>(lane, b, e, f) : first_hit_steps<3>(lane, b, e, f);
}

/* The number of q in [b, e) with f(q), counted until it reaches `stop`
 * (warp: 96 entries a step, as first_hit, may pass it; every lane gets the
 * count). */
template <typename F>
__device__ __forceinline__ int count_hits(bool warp, int lane, int64_t b, int64_t e, int stop,
                                          F f) {
  int cnt = 0;
  if (!warp) {
    for (int64_t q = b; q < e && cnt < stop; ++q) cnt += f(q) ? 1 : 0;
    return cnt;
  }
  for (int64_t q = b; q < e && cnt < stop; q += 96) {
    bool hit[3];
#pragma unroll
    for (int k = 0; k < 3; ++k) hit[k] = q + 32 * k + lane < e && f(q + 32 * k + lane);
#pragma unroll
    for (int k = 0; k < 3; ++k) cnt += __popc(__ballot_sync(0xffffffffu, hit[k]));
  }
  return cnt;
}

/* A vertex (phase 1: every vertex; phase 2: those free on entry, flag[v])
 * takes the id of the root in N[v] (itself first, then the diagonal, then
 * the ghosts); *left += the vertices it leaves unaggregated. Phase 1 writes
 * every agg[v] (-1: none) and flag[v] = free after it. */
__global__ void join_roots(dev_graph g, int phase2, uint8_t *flag, const int32_t *rootid,
                           const int32_t *grootid, int32_t *agg, unsigned long long *left) {
  unsigned long long mine = 0;
  for_rows(
      g, [&](int64_t v) { return !phase2 || flag[v] != 0; },
      [&](int64_t v, int lane, bool warp) {
        int64_t id = rootid[v];
        if (id < 0)
          id = first_hit(warp, lane, g.arp[v], g.arp[v + 1],
                         [&](int64_t q) { return rootid[g.acol[q]]; });
        if (id < 0)
          id = first_hit(warp, lane, g.brp[v], g.brp[v + 1],
                         [&](int64_t q) { return grootid[g.bcol[q]]; });
        if (lane == 0) {
          mine += id < 0;
          if (!phase2) flag[v] = (uint8_t)(id < 0);
          if (!phase2 || id >= 0) agg[v] = (int32_t)id;
        }
      });
  mispc_block_add<DIST_BLOCK>(mine, left);
}

/* Phase-2 roots: members free on entry with >= min_free free neighbours
 * (self loops not counted). */
__global__ void phase2_roots(dev_graph g, const uint8_t *set, const uint8_t *flag,
                             const uint8_t *gflag, int min_free, uint8_t *is_root) {
  for_rows(
      g, /* only candidates read their rows */
      [&](int64_t v) {
        const bool candidate = set[v] && flag[v];
        if (!candidate) is_root[v] = 0;
        return candidate;
      },
      [&](int64_t v, int lane, bool warp) {
        int cnt = count_hits(warp, lane, g.arp[v], g.arp[v + 1], min_free, [&](int64_t q) {
          const int32_t c = g.acol[q];
          return c != v && flag[c];
        });
        if (cnt < min_free)
          cnt += count_hits(warp, lane, g.brp[v], g.brp[v + 1], min_free - cnt,
                            [&](int64_t q) { return gflag[g.bcol[q]] != 0; });
        if (lane == 0) is_root[v] = cnt >= min_free;
      });
}

/* The root of v's aggregate among N[v]: *own (local id) or *gh (ghost
 * index); the first in row order (v, the diagonal, the ghosts). */
__device__ __forceinline__ int find_root(const dev_graph &g, const int32_t *rootid,
                                         const int32_t *grootid, const int32_t *agg, int64_t v,
                                         bool warp, int lane, int64_t *own, int64_t *gh) {
  *own = *gh = -1;
  const int64_t a = agg[v];
  if (rootid[v] == a) return *own = v, 1;
  *own = first_hit(warp, lane, g.arp[v], g.arp[v + 1], [&](int64_t q) {
    const int32_t c = g.acol[q];
    return rootid[c] == a ? (int64_t)c : (int64_t)-1;
  });
  if (*own >= 0) return 1;
  *gh = first_hit(warp, lane, g.brp[v], g.brp[v + 1], [&](int64_t q) {
    const int32_t j = g.bcol[q];
    return grootid[j] == a ? (int64_t)j : (int64_t)-1;
  });
  return *gh >= 0;
}

/* Where provisional label l has its size when this rank's root holds it:
 * phase 1's labels are rstart + k, phase 2's nglobal + rstart + k (k < nloc,
 * the root's rank in the phase): slot k, or nloc + k; else -1. */
__device__ __forceinline__ int64_t own_slot(const dev_graph &g, int64_t nglobal, int64_t l) {
  const int p = l >= nglobal;
  const int64_t k = l - (p ? nglobal : 0) - g.rstart;
  return k >= 0 && k < g.nloc ? k + (p ? g.nloc : 0) : -1;
}

/* cnt[v] = the size after phase 2 of the aggregate rooted at v (0 where v
 * is no root): v and its neighbours with its label, ghosts included. The
 * aggregates of phases 1 and 2 are stars (every member joined the root in
 * its N[v]), so the root sees all its members and no count travels back
 * to it: this replaced an atomic a member at its root and a reverse sum
 * over the halo. lsize (provisional labels): the count also at the root's
 * label slot (own_slot). */
__global__ void root_sizes(dev_graph g, int64_t nglobal, const int32_t *rootid, const int32_t *tent,
                           const int32_t *gagg, int64_t *cnt, int64_t *lsize) {
  for_rows(
      g, /* only roots read their rows */
      [&](int64_t v) {
        const int32_t a = tent[v];
        const bool root = a >= 0 && rootid[v] == a;
        if (!root) cnt[v] = 0;
        return root;
      },
      [&](int64_t v, int lane, bool warp) {
        const int32_t a = tent[v];
        const int hits = count_hits(warp, lane, g.arp[v], g.arp[v + 1], INT_MAX, [&](int64_t q) {
          const int32_t u = g.acol[q];
          return u != v && tent[u] == a;
        });
        const int64_t c = 1 + hits +
                          count_hits(warp, lane, g.brp[v], g.brp[v + 1], INT_MAX,
                                     [&](int64_t q) { return gagg[g.bcol[q]] == a; });
        if (lane == 0) {
          cnt[v] = c;
          if (lsize) lsize[own_slot(g, nglobal, a)] = c;
        }
      });
}

/* asize[v] = the size of v's aggregate (0: none yet): by its label where
 * this rank's root holds it (lsize, provisional labels), else from the root
 * found in N[v], a ghost's count exchanged (gcnt). */
__global__ void member_sizes(dev_graph g, int64_t nglobal, const int32_t *rootid,
                             const int32_t *grootid, const int32_t *agg, const int64_t *cnt,
                             const int64_t *gcnt, const int64_t *lsize, int64_t *asize) {
  for_rows(
      g, /* only members of other ranks' roots look for the root */
      [&](int64_t v) {
        const int32_t a = agg[v];
        const int64_t slot = a >= 0 && lsize ? own_slot(g, nglobal, a) : -1;
        if (a < 0 || slot >= 0) asize[v] = a < 0 ? 0 : lsize[slot];
        return a >= 0 && slot < 0;
      },
      [&](int64_t v, int lane, bool warp) {
        int64_t o, j, sz = 0;
        if (find_root(g, rootid, grootid, agg, v, warp, lane, &o, &j))
          sz = o >= 0 ? cnt[o] : gcnt[j];
        if (lane == 0) asize[v] = sz;
      });
}

/* Candidate (cnt, size, label) 1 before 2: more of v's neighbours, then the
 * smaller aggregate, then the smaller id (no candidate: label -1). A strict
 * order on distinct labels, so the pick does not depend on which lane saw
 * which candidate. */
__device__ __forceinline__ bool better(int64_t c1, int64_t s1, int32_t l1, int64_t c2, int64_t s2,
                                       int32_t l2) {
  if (l1 < 0) return false;
  if (l2 < 0) return true;
  return c1 > c2 || (c1 == c2 && (s1 < s2 || (s1 == s2 && l1 < l2)));
}

/* Phase 3's pick for a row of at most LONG_ROW entries in one thread: the
 * neighbours' labels are loaded once (independent loads) and each
 * candidate's count is taken from that copy; reloading the row for every
 * candidate had made a chain of dependent loads (the pick took 134 us on
 * Laplace3D_150 on 2 GPUs so). Same candidates, counts and order as the
 * warp's path in phase3_pick. */
__device__ __forceinline__ int32_t pick_short(const dev_graph &g, int64_t v, const int32_t *tent,
                                              const int32_t *gagg, const int64_t *asize,
                                              const int64_t *gsize) {
  int32_t lab[LONG_ROW], who[LONG_ROW]; /* label; owned column, or ~ghost index */
  int m = 0;
  for (int64_t q = g.arp[v], e = g.arp[v + 1]; q < e; ++q) {
    const int32_t c = g.acol[q];
    if (c == v) continue;
    lab[m] = tent[c];
    who[m++] = c;
  }
  for (int64_t q = g.brp[v], e = g.brp[v + 1]; q < e; ++q) {
    const int32_t c = g.bcol[q];
    lab[m] = gagg[c];
    who[m++] = ~c;
  }
  int32_t best = -1;
  int64_t best_cnt = 0, best_size = 0;
  for (int i = 0; i < m; ++i) {
    const int32_t l = lab[i];
    if (l < 0) continue;
    int64_t cnt = 0;
    for (int j = 0; j < m; ++j) cnt += lab[j] == l;
    const int64_t sz = who[i] >= 0 ? asize[who[i]] : gsize[~who[i]];
    if (better(cnt, sz, l, best_cnt, best_size, best)) best = l, best_cnt = cnt, best_size = sz;
  }
  return best;
}

/* Phase 3 for a leftover v (tent[v] < 0), a thread a vertex, or the warp
 * for rows of more than LONG_ROW entries (a hub's count is its degree
 * squared: the lanes split the candidates): the aggregate holding most of
 * its neighbours (ties: smaller size, then smaller id, as the host), or for
 * mis2basic the aggregate of its smallest-global-id aggregated neighbour.
 * *orphan: smallest global id left without a candidate. A warp a leftover
 * (one after another) took 235 us of Laplace3D_150's 1.8 ms on 2 GPUs: a
 * chain of dependent loads and shuffles for every leftover of the warp;
 * one process runs a thread a vertex. */
#define PICK_STAGE 256 /* a warp's row of at most this many entries: labels in shared memory */

__global__ void phase3_pick(dev_graph g, int basic, const int32_t *tent, const int32_t *gagg,
                            const int64_t *asize, const int64_t *gsize, int32_t *agg,
                            unsigned long long *orphan, int64_t sort_rows, int32_t *defer,
                            unsigned long long *ndefer) {
  /* A warp's row of up to PICK_STAGE entries: its labels (-1 for v itself)
   * loaded once, each lane's candidates counted from them; reloading the
   * row for every candidate took 0.95 ms of Elasticity3D_80's aggregation
   * on 2 GPUs (81-entry rows). */
  __shared__ int32_t staged[DIST_BLOCK / 32][PICK_STAGE];
  int32_t *lab = staged[threadIdx.x >> 5];
  for_rows(
      g, /* agg = tent; the leftovers pick */
      [&](int64_t v) {
        const int32_t a = tent[v];
        if (a >= 0) agg[v] = a;
        return a < 0;
      },
      [&](int64_t v, int lane, bool warp) {
        if (!warp && !basic) {
          const int32_t best = pick_short(g, v, tent, gagg, asize, gsize);
          agg[v] = best; /* -1: an orphan, the call fails */
          if (best < 0) atomicMin(orphan, (unsigned long long)(g.rstart + v));
          return;
        }
        const int64_t a0 = g.arp[v], na = g.arp[v + 1] - a0, b0 = g.brp[v], nb = g.brp[v + 1] - b0;
        if (defer && !basic && na + nb > sort_rows) { /* pick_sorted's (a warp's row) */
          if (lane == 0) {
            defer[atomicAdd(ndefer, 1ull)] = (int32_t)v;
            atomicAdd(ndefer + 1, (unsigned long long)(na + nb));
          }
          return;
        }
        const bool stage = warp && !basic && na + nb <= PICK_STAGE;
        if (stage) {
          __syncwarp(); /* the previous vertex's counts are done with lab */
          for (int64_t k = lane; k < na + nb; k += 32) {
            const int b = k >= na;
            const int32_t c = b ? g.bcol[b0 + k - na] : g.acol[a0 + k];
            lab[k] = b ? gagg[c] : c == v ? -1 : tent[c];
          }
          __syncwarp();
        }
        int32_t best = -1;
        int64_t best_cnt = 0, best_size = 0, umin = -1;
        for (int64_t k = warp ? lane : 0; k < na + nb; k += warp ? 32 : 1) {
          if (stage) {
            const int32_t l = lab[k];
            if (l < 0) continue;
            int64_t cnt = 0;
            for (int j = 0; j < (int)(na + nb); ++j) cnt += lab[j] == l;
            const int64_t sz = k >= na ? gsize[g.bcol[b0 + k - na]] : asize[g.acol[a0 + k]];
            if (better(cnt, sz, l, best_cnt, best_size, best))
              best = l, best_cnt = cnt, best_size = sz;
            continue;
          }
          const int b = k >= na;
          const int32_t c = b ? g.bcol[b0 + k - na] : g.acol[a0 + k];
          if (!b && c == v) continue;
          const int32_t l = b ? gagg[c] : tent[c];
          if (l < 0) continue;
          if (basic) {
            const int64_t gu = b ? g.garray[c] : g.rstart + c;
            if (umin < 0 || gu < umin) umin = gu, best = l;
            continue;
          }
          const int64_t sz = b ? gsize[c] : asize[c];
          int64_t cnt = 0;
          for (int64_t q = a0; q < a0 + na; ++q) {
            const int32_t c2 = g.acol[q];
            if (c2 != v) cnt += tent[c2] == l;
          }
          for (int64_t q = b0; q < b0 + nb; ++q) cnt += gagg[g.bcol[q]] == l;
          if (better(cnt, sz, l, best_cnt, best_size, best))
            best = l, best_cnt = cnt, best_size = sz;
        }
        if (warp)
          for (int off = 16; off; off >>= 1) {
            const int32_t ob = __shfl_xor_sync(0xffffffffu, best, off);
            const int64_t oc = __shfl_xor_sync(0xffffffffu, best_cnt, off);
            const int64_t os = __shfl_xor_sync(0xffffffffu, best_size, off);
            const int64_t ou = __shfl_xor_sync(0xffffffffu, umin, off);
            if (basic ? ou >= 0 && (umin < 0 || ou < umin)
                      : better(oc, os, ob, best_cnt, best_size, best))
              best = ob, best_cnt = oc, best_size = os, umin = ou;
          }
        if (lane == 0) {
          agg[v] = best;
          if (best < 0) atomicMin(orphan, (unsigned long long)(g.rstart + v));
        }
      });
}

/* Phase 3 for the leftovers of long rows (phase3_pick's deferred list, in
 * any order: each row is picked on its own). Counting every candidate over
 * the row is the degree squared, and a power-law graph's leftover hubs made
 * that the largest step of its aggregation (gen:kron:21 on 2 GPUs: the pick
 * 2.3 ms of 12.7). Here each row's neighbours become keys (label << 32 |
 * aggregate size; no label: all ones, sorted last), a CUB segmented sort
 * orders each row's keys, and a warp a row takes each run of one label: its
 * length is the count, so the candidates, counts, sizes and the order
 * (better) are phase3_pick's and the labels the same bits, at O(d log d) a
 * row. As the one-process phase3_high_degree, with the rows' count read
 * back (one wait) since CUB takes the segments' number from the host. */
__device__ __forceinline__ int64_t row_len(const dev_graph &g, int64_t v) {
  return g.arp[v + 1] - g.arp[v] + g.brp[v + 1] - g.brp[v];
}

struct row_len_at {
  dev_graph g;
  __device__ int64_t operator()(int64_t v) const {
    return row_len(g, v);
  }
};

/* off[i] = the row length of defer[i], off[h] = 0 (the scan makes them the
 * segments' offsets and off[h] the keys' number). */
__global__ void defer_sizes(dev_graph g, int64_t h, const int32_t *defer, int64_t *off) {
  FOR_VERTEX(i, h + 1) off[i] = i < h ? row_len(g, defer[i]) : 0;
}

__device__ __forceinline__ unsigned long long pick_key(int32_t label, int64_t size) {
  return label < 0 ? ~0ull : (unsigned long long)(uint32_t)label << 32 | (uint32_t)size;
}

/* A warp a deferred row: its neighbours' keys at off[i] (v itself: none). */
__global__ void defer_keys(dev_graph g, int64_t h, const int32_t *defer, const int64_t *off,
                           const int32_t *tent, const int32_t *gagg, const int64_t *asize,
                           const int64_t *gsize, unsigned long long *keys) {
  const int lane = (int)(threadIdx.x & 31);
  const int64_t nwarps = (int64_t)gridDim.x * (blockDim.x >> 5);
  for (int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; i < h; i += nwarps) {
    const int64_t v = defer[i], a0 = g.arp[v], na = g.arp[v + 1] - a0, b0 = g.brp[v];
    const int64_t n = row_len(g, v);
    unsigned long long *out = keys + off[i];
    for (int64_t k = lane; k < n; k += 32) {
      if (k < na) {
        const int32_t c = g.acol[a0 + k];
        out[k] = c == v ? ~0ull : pick_key(tent[c], asize[c]);
      } else {
        const int32_t c = g.bcol[b0 + k - na];
        out[k] = pick_key(gagg[c], gsize[c]);
      }
    }
  }
}

/* A warp a deferred row over its sorted keys: each lane takes the runs that
 * start at its positions (a run's end by binary search), then the warp's
 * best by `better`, as phase3_pick's reduction. */
__global__ void pick_sorted(int64_t h, const int32_t *defer, const int64_t *off,
                            const unsigned long long *sorted, int64_t rstart, int32_t *agg,
                            unsigned long long *orphan) {
  const int lane = (int)(threadIdx.x & 31);
  const int64_t nwarps = (int64_t)gridDim.x * (blockDim.x >> 5);
  for (int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; i < h; i += nwarps) {
    const int64_t b = off[i], e = off[i + 1];
    int32_t best = -1;
    int64_t best_cnt = 0, best_size = 0;
    for (int64_t k = b + lane; k < e; k += 32) {
      const unsigned long long key = sorted[k];
      const uint32_t l = (uint32_t)(key >> 32);
      if (l == 0xffffffffu || (k > b && (uint32_t)(sorted[k - 1] >> 32) == l)) continue;
      const int64_t end = mispc_lower_bound(sorted, k + 1, e, (unsigned long long)(l + 1ull) << 32);
      const int64_t sz = (int64_t)(key & 0xffffffffu);
      if (better(end - k, sz, (int32_t)l, best_cnt, best_size, best))
        best = (int32_t)l, best_cnt = end - k, best_size = sz;
    }
    for (int o = 16; o; o >>= 1) {
      const int32_t ob = __shfl_xor_sync(0xffffffffu, best, o);
      const int64_t oc = __shfl_xor_sync(0xffffffffu, best_cnt, o);
      const int64_t os = __shfl_xor_sync(0xffffffffu, best_size, o);
      if (better(oc, os, ob, best_cnt, best_size, best)) best = ob, best_cnt = oc, best_size = os;
    }
    if (lane == 0) {
      const int64_t v = defer[i];
      agg[v] = best;
      if (best < 0) atomicMin(orphan, (unsigned long long)(rstart + v));
    }
  }
}

typedef mispc_scratch_list dev_buffers;

mispc_status scratch(mispc_context *ctx, dev_buffers *b, size_t bytes, void **out) {
  return mispc_scratch_list_alloc(ctx, b, bytes, "distributed aggregation scratch", out);
}

/* counter words */
enum {
  kLeft1,
  kOrphan,
  kLeft2,
  kRoots1,
  kRoots2,
  kMisRounds1,
  kMisRounds2,
  kDefer,        /* phase 3's leftovers of long rows (pick_sorted) */
  kDeferEntries, /* and their entries */
  kCounters = 10
};
enum { kMarks = 32 };
/* the words a rank contributes to finish's all-gather */
enum { kGathered = 6 };

struct work {
  const mispc_dist_csr *g;
  dev_graph d;
  cudaStream_t st;
  unsigned grid;
  int64_t nloc, ng;
  uint8_t *set, *is_root, *flag, *gflag;
  int32_t *rootid, *grootid; /* labels fit int32 (the caller's array) */
  int32_t *pos, *gagg, *tent;
  int64_t *cnt, *gcnt, *asize, *gsize;
  int64_t *lsize; /* 2 nloc: sizes by provisional label of this rank's roots (own_slot) */
  unsigned long long *counter; /* kCounters words: vertices left after phases 1 and 2, the
                                  phase 3 orphan, the roots of phases 1 and 2, the round
                                  counts of queued MIS-2 calls */
  int mis_queued[2];           /* the MIS-2 call of phase 1 / 2 left its rounds in counter */
  void *scan_temp;
  size_t scan_bytes;
  /* phase 3: leftovers of rows longer than sort_rows pick from sorted keys
   * (pick_sorted); defer = NULL where this rank has no such row */
  int64_t sort_rows;
  int32_t *defer;
  /* Provisional labels (prov): a root numbered from its rank's first row
   * (+ nglobal in phase 2) needs no scan over the ranks while the phases
   * run: no host wait, no MPI call between them. The order of labels is
   * the final one (phase, rank, position), which phase 3's ties read; one
   * relabel at the end (the counts all ranks' roots give). Labels must fit
   * 2 nglobal in int32 for this; else each phase scans its root counts. */
  bool prov;
  int P;
  int64_t *d_table; /* device: ranges (P + 1), then delta (2 P) */
  int64_t *h_table; /* its host copy */
  long long *h_all; /* host, kGathered P: each rank's counts (finish) */
  int64_t naggs;    /* labels handed out so far (prov false) */
  /* -vv: events on the stream after each step (mark), their gaps logged at
   * the end: where the time goes without a wait between the steps */
  cudaEvent_t ev[kMarks];
  const char *ev_name[kMarks];
  int nev, ev_made;
};

/* Records the end of step `what` (-vv only). */
void mark(work *w, const char *what) {
  if (w->nev < w->ev_made && cudaEventRecord(w->ev[w->nev], w->st) == cudaSuccess)
    w->ev_name[w->nev++] = what;
}

/* Logs the steps' times from the marks (after the call's last wait). */
void log_marks(mispc_context *ctx, work *w) {
  for (int k = 1; k < w->nev; ++k) {
    float ms = 0;
    if (cudaEventElapsedTime(&ms, w->ev[k - 1], w->ev[k]) == cudaSuccess)
      mispc_logf(ctx, 2, "  dist aggregation step %s: %.1f us", w->ev_name[k], 1e3 * ms);
  }
}

void free_marks(work *w) {
  for (int k = 0; k < w->ev_made; ++k) cudaEventDestroy(w->ev[k]);
  w->ev_made = 0;
}

mispc_status setup(mispc_context *ctx, const mispc_dist_csr *g, work *w, dev_buffers *b) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  w->g = g;
  w->nloc = nloc;
  w->ng = ng;
  MISPC_TRY(mispc_stream(ctx, &w->st));
  MISPC_TRY(dist_device_view(ctx, g, &w->d));
  const size_t nl = (size_t)nloc, gn = (size_t)ng;
  MISPC_TRY(scratch(ctx, b, nl, (void **)&w->set));
  MISPC_TRY(scratch(ctx, b, nl, (void **)&w->is_root));
  MISPC_TRY(scratch(ctx, b, nl, (void **)&w->flag));
  MISPC_TRY(scratch(ctx, b, gn, (void **)&w->gflag));
  MISPC_TRY(scratch(ctx, b, nl * 4, (void **)&w->rootid));
  MISPC_TRY(scratch(ctx, b, gn * 4, (void **)&w->grootid));
  MISPC_TRY(scratch(ctx, b, (nl + 1) * 4, (void **)&w->pos));
  MISPC_TRY(scratch(ctx, b, gn * 4, (void **)&w->gagg));
  MISPC_TRY(scratch(ctx, b, nl * 4, (void **)&w->tent));
  MISPC_TRY(scratch(ctx, b, nl * 8, (void **)&w->cnt));
  MISPC_TRY(scratch(ctx, b, gn * 8, (void **)&w->gcnt));
  MISPC_TRY(scratch(ctx, b, nl * 8, (void **)&w->asize));
  MISPC_TRY(scratch(ctx, b, gn * 8, (void **)&w->gsize));
  MISPC_TRY(scratch(ctx, b, 2 * nl * 8, (void **)&w->lsize));
  MISPC_TRY(scratch(ctx, b, kCounters * 8, (void **)&w->counter));
  MPI_Comm_size(g->comm, &w->P);
  w->prov = !ctx->tuning.dist_agg_scan_labels && 2 * g->nglobal <= (int64_t)INT32_MAX;
  MISPC_TRY(scratch(ctx, b, (3 * (size_t)w->P + 1) * 8, (void **)&w->d_table));
  /* host arrays here, where a failure is agreed on before any exchange */
  w->h_table = (int64_t *)mispc_host_alloc(ctx, (3 * (size_t)w->P + 1) * 8, "label table");
  w->h_all =
      (long long *)mispc_host_alloc(ctx, kGathered * (size_t)w->P * sizeof(long long), "counts");
  if (!w->h_table || !w->h_all) return MISPC_ERR_ALLOC;
  w->naggs = 0;
  w->scan_bytes = 0;
  MISPC_CUDA_TRY(ctx, cub::DeviceScan::ExclusiveSum(NULL, w->scan_bytes, root_flags(w->set, nloc),
                                                    w->pos, (int)(nloc + 1), w->st));
  MISPC_TRY(scratch(ctx, b, w->scan_bytes, &w->scan_temp));
  w->grid = mispc_device_grid(ctx, nloc, DIST_BLOCK);
  /* phase 3's sorted picks: the rank's longest row, measured once a graph
   * (kept with its halo plan); the deferred list where a row is longer */
  const int knob = ctx->tuning.dist_pick_sort_rows;
  w->sort_rows = knob ? (knob < LONG_ROW ? LONG_ROW : knob) : PICK_STAGE;
  mispc_halo *h = g->halo;
  if (!h->max_row1 && nloc > 0) {
    int64_t *d_max = NULL, max_row = 0;
    void *temp = NULL;
    size_t bytes = 0;
    const auto lens =
        thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), row_len_at{w->d});
    MISPC_CUDA_TRY(ctx, cub::DeviceReduce::Max(NULL, bytes, lens, d_max, nloc, w->st));
    MISPC_TRY(scratch(ctx, b, bytes + 16, &temp));
    MISPC_TRY(scratch(ctx, b, 8, (void **)&d_max));
    MISPC_CUDA_TRY(ctx, cub::DeviceReduce::Max(temp, bytes, lens, d_max, nloc, w->st));
    MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(&max_row, d_max, 8, cudaMemcpyDeviceToHost, w->st));
    MISPC_TRY(mispc_sync(ctx, w->st, "distributed aggregation: longest row"));
    h->max_row1 = 1 + max_row;
  }
  if (h->max_row1 - 1 > w->sort_rows) {
    const int64_t nnz = g->diag.nnz + g->offd.nnz, most = nnz / (w->sort_rows + 1) + 1;
    MISPC_TRY(scratch(ctx, b, (size_t)(most < nloc ? most : nloc) * 4, (void **)&w->defer));
  }
  if (ctx->verbosity >= 2)
    while (w->ev_made < kMarks && cudaEventCreate(&w->ev[w->ev_made]) == cudaSuccess) ++w->ev_made;
  return MISPC_SUCCESS;
}

/* Roots (is_root) of phase `phase` (0, 1) get ids in local id order: from
 * this rank's first row (+ nglobal in phase 2) where labels are provisional,
 * else after the labels of the lower ranks (a wait for the count and an MPI
 * scan); the vertices that phase may label join the root in N[v] (w->tent:
 * phases 1 and 2 label it, phase 3 writes the caller's array). */
mispc_status label_roots(mispc_context *ctx, work *w, const uint8_t *is_root, int phase) {
  const mispc_dist_csr *g = w->g;
  const cudaStream_t st = w->st;
  size_t bytes = w->scan_bytes;
  MISPC_CUDA_TRY(ctx,
                 cub::DeviceScan::ExclusiveSum(w->scan_temp, bytes, root_flags(is_root, w->nloc),
                                               w->pos, (int)(w->nloc + 1), st));
  mark(w, "root flags and scan");
  int64_t first = g->rstart + (phase ? g->nglobal : 0);
  if (!w->prov) {
    int32_t count = 0;
    MISPC_CUDA_TRY(
        ctx, cudaMemcpyAsync(&count, w->pos + w->nloc, sizeof count, cudaMemcpyDeviceToHost, st));
    /* agreed: a failure of the queued MIS-2 kernel surfaces at this wait,
     * on its rank only, just before the scan's collectives */
    MISPC_TRY(
        mispc_dist_agree(ctx, g->comm, mispc_sync(ctx, st, "distributed aggregation root scan")));
    int64_t before = 0, total = 0;
    MISPC_TRY(agg_dist_scan_count(ctx, g->comm, count, &before, &total));
    first = w->naggs + before;
    w->naggs += total;
  }
  root_ids<<<w->grid, DIST_BLOCK, 0, st>>>(w->nloc, is_root, w->pos, first, !phase, w->rootid,
                                           w->counter + (phase ? kRoots2 : kRoots1));
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  mark(w, "root ids");
  MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, w->rootid, w->grootid, sizeof(int32_t)));
  mark(w, "root id exchange");
  join_roots<<<w->grid, DIST_BLOCK, 0, st>>>(w->d, phase, w->flag, w->rootid, w->grootid, w->tent,
                                             w->counter + (phase ? kLeft2 : kLeft1));
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  mark(w, "join roots, count left");
  return MISPC_SUCCESS;
}

/* Size after phase 2 of the aggregate of every aggregated owned vertex and
 * ghost: each root counts its star (root_sizes; gagg holds the ghosts'
 * labels), the roots' sizes go to the ghosts' copies, each member takes its
 * root's, and the members' sizes go to the ghosts. */
mispc_status aggregate_sizes(mispc_context *ctx, work *w) {
  const mispc_dist_csr *g = w->g;
  const cudaStream_t st = w->st;
  int64_t *lsize = w->prov ? w->lsize : NULL;
  root_sizes<<<w->grid, DIST_BLOCK, 0, st>>>(w->d, g->nglobal, w->rootid, w->tent, w->gagg, w->cnt,
                                             lsize);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  mark(w, "root sizes");
  MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, w->cnt, w->gcnt, sizeof(int64_t)));
  mark(w, "root size exchange");
  member_sizes<<<w->grid, DIST_BLOCK, 0, st>>>(w->d, g->nglobal, w->rootid, w->grootid, w->tent,
                                               w->cnt, w->gcnt, lsize, w->asize);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  mark(w, "member sizes");
  MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, w->asize, w->gsize, sizeof(int64_t)));
  mark(w, "member size exchange");
  return MISPC_SUCCESS;
}

mispc_status phase3(mispc_context *ctx, work *w, int basic, int32_t *agg) {
  const mispc_dist_csr *g = w->g;
  const cudaStream_t st = w->st;
  MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, w->tent, w->gagg, sizeof(int32_t)));
  mark(w, "label exchange");
  if (!basic) MISPC_TRY(aggregate_sizes(ctx, w));
  phase3_pick<<<w->grid, DIST_BLOCK, 0, st>>>(w->d, basic, w->tent, w->gagg, w->asize, w->gsize,
                                              agg, w->counter + kOrphan, w->sort_rows,
                                              basic ? NULL : w->defer, w->counter + kDefer);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  mark(w, "phase 3 pick");
  return MISPC_SUCCESS;
}

/* Phase 3's deferred leftovers (pick_sorted): their number and entries read
 * back (a wait), then scan, keys, segmented sort and the picks. Local: no
 * exchange, so a failure here goes to finish's all-gather. */
mispc_status pick_long_rows(mispc_context *ctx, work *w, dev_buffers *b, int32_t *agg) {
  const cudaStream_t st = w->st;
  unsigned long long c[2] = {0, 0};
  MISPC_CUDA_TRY(ctx,
                 cudaMemcpyAsync(c, w->counter + kDefer, sizeof c, cudaMemcpyDeviceToHost, st));
  MISPC_TRY(mispc_sync(ctx, st, "distributed aggregation: long rows of phase 3"));
  const int64_t h = (int64_t)c[0], total = (int64_t)c[1];
  mispc_logf(ctx, 2,
             "  dist aggregation phase 3: %lld leftovers of rows over %lld entries "
             "(%lld entries) pick from sorted labels",
             (long long)h, (long long)w->sort_rows, (long long)total);
  if (h == 0) return MISPC_SUCCESS;
  int64_t *off = NULL;
  unsigned long long *keys = NULL;
  void *temp = NULL;
  size_t scan_bytes = 0, sort_bytes = 0;
  MISPC_CUDA_TRY(ctx, cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, off, off, (int)(h + 1), st));
  MISPC_CUDA_TRY(ctx, cub::DeviceSegmentedSort::SortKeys(NULL, sort_bytes, keys, keys, total, h,
                                                         off, off + 1, st));
  MISPC_TRY(scratch(ctx, b, (size_t)(h + 1) * 8, (void **)&off));
  MISPC_TRY(scratch(ctx, b, (size_t)total * 16, (void **)&keys));
  MISPC_TRY(scratch(ctx, b, (scan_bytes > sort_bytes ? scan_bytes : sort_bytes) + 16, &temp));
  const unsigned grid = mispc_device_grid(ctx, h + 1, DIST_BLOCK);
  const unsigned wgrid = mispc_device_grid(ctx, 32 * h, DIST_BLOCK);
  defer_sizes<<<grid, DIST_BLOCK, 0, st>>>(w->d, h, w->defer, off);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_CUDA_TRY(ctx, cub::DeviceScan::ExclusiveSum(temp, scan_bytes, off, off, (int)(h + 1), st));
  defer_keys<<<wgrid, DIST_BLOCK, 0, st>>>(w->d, h, w->defer, off, w->tent, w->gagg, w->asize,
                                           w->gsize, keys);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_CUDA_TRY(ctx, cub::DeviceSegmentedSort::SortKeys(temp, sort_bytes, keys, keys + total,
                                                         total, h, off, off + 1, st));
  pick_sorted<<<wgrid, DIST_BLOCK, 0, st>>>(h, w->defer, off, keys + total, w->g->rstart, agg,
                                            w->counter + kOrphan);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  mark(w, "phase 3 sorted picks");
  return MISPC_SUCCESS;
}

/* After the phases: the counters read (the call's one wait, with queued
 * MIS-2 calls; their round counts come with the counters), then one all-gather of each rank's
 * counts (vertices left after phases 1 and 2, roots of phases 1 and 2, phase 3's orphan, the status
 * of that read): every rank makes the same phase 3 check and sums, and, with provisional labels,
 * the final ones (delta of a rank's phase-p labels = its final first label - its provisional first
 * label). */
mispc_status finish(mispc_context *ctx, work *w, bool phase2, int32_t *agg, mispc_dist_agg_info *in,
                    mispc_status local) {
  const mispc_dist_csr *g = w->g;
  const int P = w->P;
  unsigned long long c[kCounters];
  memset(c, 0, sizeof c);
  /* a failed copy or wait is gathered too: every rank leaves the
   * all-gather, and all fail together */
  mispc_status ls = local ? local
                          : MISPC_CUDA_CALL(ctx, cudaMemcpyAsync(c, w->counter, sizeof c,
                                                                 cudaMemcpyDeviceToHost, w->st));
  if (!ls) ls = mispc_sync(ctx, w->st, "distributed aggregation counts");
  const long long mine[kGathered] = {(long long)c[kLeft1],
                                     (long long)c[phase2 ? kLeft2 : kLeft1],
                                     (long long)c[kRoots1],
                                     (long long)c[kRoots2],
                                     ls || c[kOrphan] == ~0ull ? -1 : (long long)c[kOrphan],
                                     (long long)ls};
  long long *all = w->h_all;
  if (MPI_Allgather(mine, kGathered, MPI_LONG_LONG, all, kGathered, MPI_LONG_LONG, g->comm) !=
      MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "MPI all-gather of the aggregation counts failed");
  long long left[2] = {0, 0}, orphan = -1;
  int failed = -1;
  for (int r = 0; r < P; ++r) {
    const long long *a = all + kGathered * r;
    left[0] += a[0];
    left[1] += a[1];
    if (a[4] >= 0 && (orphan < 0 || a[4] < orphan)) orphan = a[4];
    if (a[5] && failed < 0) failed = r;
  }
  if (ls) return ls;
  if (failed >= 0)
    return mispc_seterr(ctx, (mispc_status)all[kGathered * failed + 5],
                        "distributed aggregation failed on rank %d", failed);
  /* queued MIS-2 calls: their round counts, the same on every rank (each
   * rank's kernel sums every rank's counts) */
  for (int k = 0; k < 2; ++k) {
    if (!w->mis_queued[k]) continue;
    const long long rounds = (long long)c[kMisRounds1 + k];
    if (rounds < 0)
      return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_dist_mis2 (aggregation phase %d): vertices undecided after the "
                          "last round allowed",
                          k + 1);
    in->mis_rounds[k] = (int)rounds;
    mispc_dist_mis2_account(g, (int)rounds);
  }
  if (orphan >= 0)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "aggregation phase 3: vertex %lld has no aggregated neighbour (the root "
                        "set is not a maximal distance-2 independent set)",
                        orphan);
  in->phase_done[0] = g->nglobal - left[0];
  in->phase_done[1] = g->nglobal - left[1];
  in->phase_done[2] = g->nglobal;
  if (!w->prov) {
    in->naggs = in->phase_aggs[1] = in->phase_aggs[2] = w->naggs;
    return MISPC_SUCCESS; /* phase_aggs[0]: run */
  }
  int64_t *table = w->h_table;
  mispc_status s = MISPC_SUCCESS;
  { /* exclusive scans of the root counts by rank; phase 2's after all of phase 1 */
    for (int r = 0; r <= P; ++r) table[r] = g->ranges[r];
    int64_t run1 = 0, run2 = 0, n1 = 0;
    for (int r = 0; r < P; ++r) n1 += all[kGathered * r + 2];
    for (int r = 0; r < P; ++r) {
      table[P + 1 + r] = run1 - g->ranges[r];
      table[P + 1 + P + r] = n1 + run2 - (g->ranges[r] + g->nglobal);
      run1 += all[kGathered * r + 2];
      run2 += all[kGathered * r + 3];
    }
    in->phase_aggs[0] = n1;
    in->naggs = in->phase_aggs[1] = in->phase_aggs[2] = n1 + run2;
    /* pageable source: the copy has taken it when the call returns */
    if (cudaMemcpyAsync(w->d_table, table, (3 * (size_t)P + 1) * 8, cudaMemcpyHostToDevice,
                        w->st) != cudaSuccess)
      s = mispc_seterr(ctx, MISPC_ERR_CUDA, "copying the aggregation label table");
  }
  if (!s && w->nloc > 0) {
    relabel<<<w->grid, DIST_BLOCK, 0, w->st>>>(w->nloc, g->nglobal, P, w->d_table,
                                               w->d_table + P + 1, agg);
    if (cudaGetLastError() != cudaSuccess)
      s = mispc_seterr(ctx, MISPC_ERR_CUDA, "relabel launch failed");
  }
  return s;
}

/* The phases, with no host wait between them (the MIS-2 calls too where
 * their rounds run in one kernel; else they wait for their rounds) (phase
 * 2 and 3 run on every call; a phase with nothing left to label
 * labels nothing). -v -v logs each phase's time (waiting for the GPU). */
mispc_status run(mispc_context *ctx, work *w, dev_buffers *b, const mispc_agg_options *o,
                 int32_t *agg, mispc_dist_agg_info *in) {
  const mispc_dist_csr *g = w->g;
  const cudaStream_t st = w->st;
  const bool phase2 = o->algo == MISPC_AGG_MIS2AGG;
  mispc_mis_result r = {0, 0};
  double t = mispc_wtime();
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(w->counter, 0, kCounters * 8, st));
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(w->counter + kOrphan, 0xff, 8, st));
  mark(w, "start");
  /* Phase 1. */
  /* The MIS-2 calls queue their kernel and return without waiting where
   * they can (mispc_dist_mis2_extra): their round counts are read with the
   * counters in finish, the call's one wait. */
  mispc_dist_mis2_extra x1 = {NULL, w->counter + kMisRounds1, 0};
  MISPC_TRY(mispc_dist_mis2_ex(ctx, g, &o->mis, NULL, w->set, &r, &x1));
  w->mis_queued[0] = x1.queued;
  mark(w, "phase 1 MIS-2");
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "dist aggregation: phase 1 MIS-2");
  MISPC_TRY(label_roots(ctx, w, w->set, 0));
  in->mis_rounds[0] = r.rounds;
  in->phase_aggs[0] = w->naggs; /* prov: set by finish */
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "dist aggregation: phase 1 labels");
  /* Phase 2. */
  if (phase2) {
    /* the ghosts' free flags are the subset flags the MIS-2 rounds exchanged */
    mispc_dist_mis2_extra x2 = {w->gflag, w->counter + kMisRounds2, 0};
    MISPC_TRY(mispc_dist_mis2_ex(ctx, g, &o->mis, w->flag, w->set, &r, &x2));
    w->mis_queued[1] = x2.queued;
    mark(w, "phase 2 MIS-2");
    mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "dist aggregation: phase 2 MIS-2");
    phase2_roots<<<w->grid, DIST_BLOCK, 0, st>>>(w->d, w->set, w->flag, w->gflag,
                                                 agg_phase2_min_free(o), w->is_root);
    MISPC_CUDA_LAUNCH_CHECK(ctx);
    mark(w, "phase 2 roots");
    /* The phase-2 roots' ids are written over the phase-1 ids (root_ids
     * keeps the others), and the exchange gives the ghosts both: a vertex
     * free on entry has no phase-1 root in N[v] (it would have joined it),
     * so phase 2's joins see only phase-2 roots, and phase 3 finds the
     * roots of both phases in the one array. */
    MISPC_TRY(label_roots(ctx, w, w->is_root, 1));
    in->mis_rounds[1] = r.rounds;
    mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "dist aggregation: phase 2 labels");
  }
  /* Phase 3. */
  const bool basic = o->algo == MISPC_AGG_MIS2BASIC;
  MISPC_TRY(phase3(ctx, w, basic, agg));
  const mispc_status local = w->defer && !basic ? pick_long_rows(ctx, w, b, agg) : MISPC_SUCCESS;
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "dist aggregation: phase 3");
  MISPC_TRY(finish(ctx, w, phase2, agg, in, local));
  mark(w, "counts and relabel");
  mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "dist aggregation: counts and labels");
  if (w->nev) {
    MISPC_TRY(mispc_sync(ctx, st, "distributed aggregation marks"));
    log_marks(ctx, w);
  }
  return MISPC_SUCCESS;
}

} // namespace

extern "C" mispc_status mispc_dist_aggregate_cuda(mispc_context *ctx, const mispc_dist_csr *g,
                                                  const mispc_agg_options *opt, int32_t *agg,
                                                  mispc_dist_agg_info *info) {
  dev_buffers b;
  b.n = 0;
  work w;
  memset(&w, 0, sizeof w);
  /* Scratch first, agreed: a rank short of memory fails before any exchange. */
  mispc_status s = mispc_dist_agree(ctx, g->comm, setup(ctx, g, &w, &b));
  mispc_dist_agg_info in;
  memset(&in, 0, sizeof in);
  if (!s) s = run(ctx, &w, &b, opt, agg, &in);
  mispc_scratch_list_free(ctx, &b); /* stream-ordered frees, after the queued work */
  free_marks(&w);
  free(w.h_table);
  free(w.h_all);
  s = mispc_dist_agree(ctx, g->comm, s);
  if (!s && info) *info = in;
  return s;
}
