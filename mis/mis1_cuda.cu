/* MIS-1 on the GPU: the rounds of mis1_host.c.
 *
 * Work mapping (papers/cuMIS-2026.txt §4): vertices of degree <= 32 get a
 * thread, higher degrees a warp that scans 32 neighbours at a time; the
 * caller's graph is not renumbered. Worklists of still-undecided vertices
 * (one per mapping) shrink every round; round 0 reads every vertex directly.
 * Early exit: a vertex stops at its first blocking neighbour, so in round 0
 * most vertices read only a few neighbours (ECL-MIS §3).
 *
 * By default all rounds run inside one cooperative (persistent) kernel with a
 * grid-wide barrier between rounds, so a round costs its memory traffic plus
 * one barrier rather than a launch and a host round trip (DESIGN.md: launch
 * count matters as much as bandwidth). Where cooperative launch is not
 * available, one kernel per round is queued and the host reads the worklist
 * lengths one round late. Both paths compute identical rounds. */
#include <cooperative_groups.h>
#include <stdint.h>

#include "mis_backend.h"
#include "mis_common.h"
#include "mis_cuda.cuh"

namespace cg = cooperative_groups;

namespace {

using mis_cuda::Append;
using mis_cuda::kBlock;
using mis_cuda::kPersistentPerSm;
constexpr int kWarpDegree = 32; /* degree above which a warp handles the vertex */

/* Everything a run needs; counters hold, per round r, [3r+1] / [3r+2] the low /
 * high worklist lengths ([3r] unused). The run ends when both lists for the
 * next round are empty; the round count is read from the decision stamps. */
struct Plan {
  const int64_t *rowptr;
  const int32_t *colidx;
  uint32_t *status;
  uint32_t *key;
  int64_t n;
  int early_exit, no_worklist, warp_degree, max_rounds, key_mode;
  const uint8_t *subset;
  uint64_t seed;
  int32_t *low[2], *high[2];
  unsigned *cnt;
  unsigned long long *result; /* [0] members, [1] undecided, [2] highest decision round */
  uint8_t *in_set;
};

/* One round's view of the plan, by value so that it lives in registers. */
struct Round {
  const int64_t *rowptr;
  const int32_t *colidx;
  uint32_t *status;
  const uint32_t *key;
  int64_t n;
  int early_exit, warp_degree;
  int r, all;
  const int32_t *low_in, *high_in;
  const unsigned *low_n, *high_n;
  int32_t *low_out, *high_out;
  unsigned *low_out_n, *high_out_n;
};

__host__ __device__ Round round_of(const Plan &p, int r) {
  Round a;
  a.rowptr = p.rowptr;
  a.colidx = p.colidx;
  a.status = p.status;
  a.key = p.key;
  a.n = p.n;
  a.early_exit = p.early_exit;
  a.warp_degree = p.warp_degree;
  a.r = r;
  a.all = r == 0 || p.no_worklist;
  /* selects, not p.low[r & 1]: a dynamic index would put the plan in local memory */
  const bool odd = r & 1;
  a.low_in = odd ? p.low[1] : p.low[0];
  a.low_n = p.cnt + 3 * r + 1;
  a.low_out = odd ? p.low[0] : p.low[1];
  a.low_out_n = p.cnt + 3 * (r + 1) + 1;
  /* no-worklist ablation: the high list from mis1_init is read every round */
  a.high_in = p.no_worklist || !odd ? p.high[0] : p.high[1];
  a.high_n = p.no_worklist ? p.cnt + 2 : p.cnt + 3 * r + 2;
  a.high_out = p.no_worklist || !odd ? p.high[1] : p.high[0];
  a.high_out_n = p.cnt + 3 * (r + 1) + 2;
  return a;
}

/* Neighbour u blocks v if it was undecided at the round's start and comes first. */
__device__ __forceinline__ bool blocks(const Round &a, int32_t u, int64_t v, uint32_t kv) {
  if (u == v) return false;
  /* Round 0: every neighbour was undecided at the start, so its key decides;
   * the key array (never written after init) needs one load and no status check. */
  if (a.r == 0) return mis1_before(a.key[u], u, kv, v);
  uint32_t s = a.status[u];
  uint32_t ku = s;
  if (mis1_is_decided(s)) {
    if (mis1_stamp_round(s) < a.r) return false; /* OUT since an earlier round (or outside) */
    if (!(s & 1u)) return true;                  /* IN this round: it came first */
    ku = a.key[u]; /* OUT this round: its start state (written by init in this kernel) */
  }
  return mis1_before(ku, u, kv, v);
}

__device__ __forceinline__ void push_out(const Round &a, int64_t b, int64_t e, int64_t v, int lane,
                                         int step) {
  uint32_t *status = a.status;
  for (int64_t p = b + lane; p < e; p += step) {
    int32_t u = a.colidx[p];
    if (u != v && !mis1_is_decided(status[u])) status[u] = mis1_stamp(a.r, 1);
  }
}

/* Thread-per-vertex visit of v; returns whether v stays undecided. */
__device__ __forceinline__ bool visit_thread(const Round &a, int32_t v, int64_t b, int64_t e,
                                             uint32_t kv) {
  bool blocked = false;
  for (int64_t p = b; p < e; ++p)
    if (blocks(a, a.colidx[p], v, kv)) {
      blocked = true;
      if (a.early_exit) break;
    }
  if (!blocked) {
    a.status[v] = mis1_stamp(a.r, 0);
    push_out(a, b, e, v, 0, 1);
  }
  return blocked;
}

/* Warp-per-vertex visit (all 32 lanes); returns whether v stays undecided. */
__device__ __forceinline__ bool visit_warp(const Round &a, int32_t v, int64_t b, int64_t e,
                                           uint32_t kv, int lane) {
  bool blocked = false;
  for (int64_t base = b; base < e; base += 32) {
    int64_t p = base + lane;
    bool mine = p < e && blocks(a, a.colidx[p], v, kv);
    if (__any_sync(0xffffffffu, mine)) {
      blocked = true;
      if (a.early_exit) break;
    }
  }
  if (!blocked) {
    if (lane == 0) a.status[v] = mis1_stamp(a.r, 0);
    push_out(a, b, e, v, lane, 32);
  }
  return blocked;
}

/* One round over the block's share of both worklists. */
__device__ __forceinline__ void round_body(const Round &a, Append::Smem &smem) {
  const int64_t block = blockIdx.x, nblocks = gridDim.x;
  const Round &p = a;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  { /* thread per vertex, block tiles of kBlock vertices */
    Append out(smem, a.low_out, a.low_out_n);
    const int64_t nlow = a.all ? p.n : (int64_t)*a.low_n;
    for (int64_t tile = block * kBlock; tile < nlow; tile += nblocks * kBlock) {
      int64_t i = tile + threadIdx.x;
      bool blocked = false;
      int32_t v = -1;
      if (i < nlow) {
        v = a.all ? (int32_t)i : a.low_in[i];
        int64_t b = p.rowptr[v], e = p.rowptr[v + 1];
        uint32_t kv = p.status[v];
        if (!mis1_is_decided(kv) && (!a.all || e - b <= p.warp_degree)) {
          blocked = visit_thread(a, v, b, e, kv);
        }
      }
      out.push(blocked, v);
    }
    out.finish();
  }
  const int64_t nhigh = *a.high_n; /* same value in every thread */
  if (nhigh > 0) {                 /* warp per high-degree vertex, tiles of one vertex per warp */
    Append out(smem, a.high_out, a.high_out_n);
    constexpr int kWarps = kBlock / 32;
    for (int64_t tile = block * kWarps; tile < nhigh; tile += nblocks * kWarps) {
      int64_t w = tile + warp;
      bool blocked = false;
      int32_t v = -1;
      if (w < nhigh) {
        v = a.high_in[w];
        /* One lane reads the status so the whole warp agrees on it. */
        uint32_t kv = __shfl_sync(0xffffffffu, lane == 0 ? p.status[v] : 0u, 0);
        if (!mis1_is_decided(kv)) {
          blocked = visit_warp(a, v, p.rowptr[v], p.rowptr[v + 1], kv, lane);
        }
      }
      out.push(lane == 0 && blocked, v);
    }
    out.finish();
  }
}

/* Membership and counts from the final status words (one atomic per block). */
__device__ __forceinline__ void finish_body(const Plan &p) {
  unsigned long long in_count = 0, open_count = 0;
  unsigned last = 0; /* highest decision round + 1 */
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < p.n;
       v += (int64_t)gridDim.x * blockDim.x) {
    uint32_t st = p.status[v];
    uint8_t in = (uint8_t)mis1_in_set(st);
    p.in_set[v] = in;
    in_count += in;
    if (mis1_is_decided(st))
      last = max(last, (unsigned)(mis1_stamp_round(st) + 1));
    else
      ++open_count;
  }
  in_count = mispc_block_sum<kBlock>(in_count);
  open_count = mispc_block_sum<kBlock>(open_count);
  last = mispc_block_max<kBlock>(last);
  if (threadIdx.x == 0) {
    if (last) atomicMax(&p.result[2], (unsigned long long)last);
    if (in_count) atomicAdd(&p.result[0], in_count);
    if (open_count) atomicAdd(&p.result[1], open_count);
  }
}

__device__ __forceinline__ void init_body(const Plan &p, Append::Smem &smem) {
  Append out(smem, p.high[0], p.cnt + 2);
  for (int64_t tile = blockIdx.x * (int64_t)kBlock; tile < p.n;
       tile += (int64_t)gridDim.x * kBlock) {
    int64_t v = tile + threadIdx.x;
    bool is_high = false;
    if (v < p.n) {
      int64_t deg = p.rowptr[v + 1] - p.rowptr[v];
      const bool inside = !p.subset || p.subset[v];
      /* outside the subset: decided before round 0 and never blocks */
      p.status[v] = inside ? mis1_key(p.key_mode, p.seed, v, deg) : MIS1_STAMP_EXCLUDED;
      p.key[v] = inside ? p.status[v] : MIS1_KEY_NONE;
      is_high = deg > p.warp_degree;
    }
    out.push(is_high, (int32_t)v);
  }
  out.finish();
}

__global__ void __launch_bounds__(kBlock) mis1_init(Plan p) {
  __shared__ Append::Smem smem;
  init_body(p, smem);
}

__global__ void __launch_bounds__(kBlock) mis1_round(Plan p, int r) {
  __shared__ Append::Smem smem;
  round_body(round_of(p, r), smem);
}

__global__ void mis1_finish(Plan p) {
  finish_body(p);
}

/* All rounds and the finish in one cooperative launch. */
__global__ void __launch_bounds__(kBlock, kPersistentPerSm) mis1_persistent(Plan p) {
  __shared__ Append::Smem smem;
  cg::grid_group grid = cg::this_grid();
  init_body(p, smem);
  grid.sync();
  for (int r = 0; r < p.max_rounds; ++r) {
    round_body(round_of(p, r), smem);
    grid.sync();
    const unsigned left = p.cnt[3 * (r + 1) + 1] + p.cnt[3 * (r + 1) + 2];
    if (left == 0) break; /* nothing left */
  }
  finish_body(p);
}

} // namespace

extern "C" mispc_status mispc_mis1_cuda(mispc_context *ctx, const mispc_csr *g,
                                        const mispc_mis_options *opt, int mode,
                                        const uint8_t *subset, uint8_t *in_set,
                                        mispc_mis_result *res) {
  const int64_t n = g->nrows;
  res->set_size = 0;
  res->rounds = 0;
  if (n == 0) return MISPC_SUCCESS;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  int sms = 0, coop = 0;
  MISPC_TRY(mispc_device_caps(ctx, &sms, &coop)); /* sms sizes the non-persistent grids */
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  const size_t ncnt = (3 * (size_t)(max_rounds + 2) + 1) & ~(size_t)1; /* keep result 8-aligned */
  Plan p;
  memset(&p, 0, sizeof p);
  int32_t *lists = NULL;
  mispc_status st =
      mispc_scratch_alloc(ctx, (size_t)n * 8, (void **)&p.status, "MIS-1 status/keys");
  if (!st) st = mispc_scratch_alloc(ctx, (size_t)n * 16, (void **)&lists, "MIS-1 worklists");
  if (!st) st = mispc_scratch_alloc(ctx, ncnt * 4 + 24, (void **)&p.cnt, "MIS-1 counters");
  unsigned long long h_result[3] = {0, 0, 0};
  if (!st) {
    p.rowptr = g->rowptr;
    p.colidx = g->colidx;
    p.key = p.status + n;
    p.n = n;
    p.early_exit = !opt->no_early_exit;
    p.no_worklist = opt->no_worklist;
    p.warp_degree = opt->no_warp_mapping ? INT32_MAX : kWarpDegree;
    p.max_rounds = max_rounds;
    p.key_mode = mode;
    p.subset = subset;
    p.seed = opt->seed;
    p.low[0] = lists;
    p.low[1] = lists + n;
    p.high[0] = lists + 2 * n;
    p.high[1] = lists + 3 * n;
    p.result = (unsigned long long *)(p.cnt + ncnt);
    p.in_set = in_set;
    const unsigned grid = mispc_grid_for(n, kBlock, (unsigned)sms * 8u);
    cudaMemsetAsync(p.cnt, 0, ncnt * 4 + 24, s);
    int launched = 0;
    st = mis_cuda::launch_persistent(ctx, s, (const void *)mis1_persistent, &p, n,
                                     !opt->no_persistent, &launched);
    if (!st && !launched) { /* one launch per round */
      mis1_init<<<grid, kBlock, 0, s>>>(p);
      int stop = -1;
      st = mis_cuda::run_rounds_lagged(
          ctx, s, max_rounds,
          [&](int r, unsigned *left) {
            mis1_round<<<grid, kBlock, 0, s>>>(p, r);
            cudaMemcpyAsync(left, p.cnt + 3 * (r + 1) + 1, 8, cudaMemcpyDeviceToHost, s);
          },
          &stop);
      if (!st) mis1_finish<<<grid, kBlock, 0, s>>>(p);
    }
    if (!st) {
      cudaMemcpyAsync(h_result, p.result, sizeof h_result, cudaMemcpyDeviceToHost, s);
      cudaError_t e = cudaStreamSynchronize(s);
      if (e == cudaSuccess) e = cudaGetLastError();
      if (e != cudaSuccess)
        st = mispc_seterr(ctx, MISPC_ERR_CUDA, "MIS-1 kernels failed: %s", cudaGetErrorString(e));
      else if (h_result[1] != 0)
        st = mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_mis1: %llu vertices undecided after %d rounds", h_result[1],
                          max_rounds);
      res->set_size = (int64_t)h_result[0];
      res->rounds = (int)h_result[2];
    }
  }
  mispc_scratch_free(ctx, p.status);
  mispc_scratch_free(ctx, lists);
  mispc_scratch_free(ctx, p.cnt);
  return st;
}
