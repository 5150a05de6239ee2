/* MIS-1 on the GPU: the rounds of mis1_host.c, one kernel launch per round.
 *
 * Work mapping (papers/cuMIS-2026.txt §4): vertices of degree <= 32 get a
 * thread, higher degrees a warp that scans 32 neighbours at a time; the
 * caller's graph is not renumbered. Worklists of still-undecided vertices
 * (one per mapping) shrink every round; round 0 reads every vertex directly.
 * Early exit: a vertex stops at its first blocking neighbour, so in round 0
 * most vertices read only a few neighbours (ECL-MIS §3). The host reads the
 * per-round activity counter one round late, so it never waits for the GPU
 * before queueing the next round. */
#include <stdint.h>

#include "cuda_util.cuh"
#include "mis_backend.h"
#include "mis_common.h"

namespace {

constexpr int kBlock = 256;
constexpr int kWarpDegree = 32; /* degree above which a warp handles the vertex */

struct Round {
  const int64_t *rowptr;
  const int32_t *colidx;
  uint32_t *status;
  const uint32_t *key;
  int64_t n;
  int r;
  int early_exit;
  int all;                 /* round 0 / no-worklist ablation: scan all vertices */
  int warp_degree;         /* > this: warp mapping */
  const int32_t *low_in, *high_in;
  const unsigned *low_n, *high_n; /* list lengths (device) */
  int32_t *low_out, *high_out;
  unsigned *low_out_n, *high_out_n;
  unsigned *active; /* undecided at the start of this round */
};

/* Neighbour u blocks v if it was undecided at the round's start and comes first. */
__device__ __forceinline__ bool blocks(const Round &a, int32_t u, int64_t v, uint32_t kv) {
  if (u == v) return false;
  uint32_t s = a.status[u];
  uint32_t ku = s;
  if (mis1_is_decided(s)) {
    if ((int)(s >> 1) < a.r) return false; /* OUT since an earlier round */
    if (!(s & 1u)) return true;            /* IN this round: it came first */
    ku = __ldg(&a.key[u]);                 /* OUT this round: its start state */
  }
  return mis1_before(ku, u, kv, v);
}

__device__ __forceinline__ void push_out(const Round &a, int64_t b, int64_t e, int64_t v, int lane,
                                         int step) {
  for (int64_t p = b + lane; p < e; p += step) {
    int32_t u = a.colidx[p];
    if (u != v && !mis1_is_decided(a.status[u])) a.status[u] = mis1_stamp(a.r, 1);
  }
}

typedef mispc_block_append<kBlock, 2048> Append;

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

__global__ void __launch_bounds__(kBlock) mis1_round(Round a) {
  __shared__ Append::Smem smem;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned active = 0;
  /* Thread-per-vertex part, block tiles of kBlock vertices. */
  {
    Append out(smem, a.low_out, a.low_out_n);
    const int64_t nlow = a.all ? a.n : (int64_t)*a.low_n;
    for (int64_t tile = blockIdx.x * (int64_t)kBlock; tile < nlow;
         tile += (int64_t)gridDim.x * kBlock) {
      int64_t i = tile + threadIdx.x;
      bool blocked = false;
      int32_t v = -1;
      if (i < nlow) {
        v = a.all ? (int32_t)i : a.low_in[i];
        int64_t b = a.rowptr[v], e = a.rowptr[v + 1];
        uint32_t kv = a.status[v];
        if (!mis1_is_decided(kv) && (!a.all || e - b <= a.warp_degree)) {
          ++active;
          blocked = visit_thread(a, v, b, e, kv);
        }
      }
      out.push(blocked, v);
    }
    out.finish();
  }
  /* Warp-per-vertex part for high-degree vertices, tiles of one vertex per warp. */
  {
    Append out(smem, a.high_out, a.high_out_n);
    const int64_t nhigh = *a.high_n;
    constexpr int kWarps = kBlock / 32;
    for (int64_t tile = blockIdx.x * (int64_t)kWarps; tile < nhigh;
         tile += (int64_t)gridDim.x * kWarps) {
      int64_t w = tile + warp;
      bool blocked = false;
      int32_t v = -1;
      if (w < nhigh) {
        v = a.high_in[w];
        /* One lane reads the status so the whole warp agrees on it. */
        uint32_t kv = __shfl_sync(0xffffffffu, lane == 0 ? a.status[v] : 0u, 0);
        if (!mis1_is_decided(kv)) {
          active += lane == 0;
          blocked = visit_warp(a, v, a.rowptr[v], a.rowptr[v + 1], kv, lane);
        }
      }
      out.push(lane == 0 && blocked, v);
    }
    out.finish();
  }
  mispc_block_count<kBlock>(active, a.active);
}

__global__ void __launch_bounds__(kBlock)
    mis1_init(int64_t n, const int64_t *rowptr, int degree_aware, uint64_t seed, uint32_t *status,
              uint32_t *key, int warp_degree, int32_t *high, unsigned *high_n) {
  __shared__ Append::Smem smem;
  Append out(smem, high, high_n);
  for (int64_t tile = blockIdx.x * (int64_t)kBlock; tile < n; tile += (int64_t)gridDim.x * kBlock) {
    int64_t v = tile + threadIdx.x;
    bool is_high = false;
    if (v < n) {
      int64_t deg = rowptr[v + 1] - rowptr[v];
      status[v] = key[v] = mis1_key(degree_aware, seed, v, deg);
      is_high = deg > warp_degree;
    }
    out.push(is_high, (int32_t)v);
  }
  out.finish();
}

/* Writes the membership; counts[0] += members, counts[1] += undecided. */
__global__ void mis1_finish(int64_t n, const uint32_t *status, uint8_t *in_set,
                            unsigned long long *counts) {
  unsigned long long in_count = 0, open_count = 0;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x) {
    uint32_t st = status[v];
    uint8_t in = (uint8_t)mis1_in_set(st);
    in_set[v] = in;
    in_count += in;
    open_count += !mis1_is_decided(st);
  }
  for (int off = 16; off; off >>= 1) {
    in_count += __shfl_down_sync(0xffffffffu, in_count, off);
    open_count += __shfl_down_sync(0xffffffffu, open_count, off);
  }
  if ((threadIdx.x & 31) == 0) {
    if (in_count) atomicAdd(&counts[0], in_count);
    if (open_count) atomicAdd(&counts[1], open_count);
  }
}

} // namespace

extern "C" mispc_status mispc_mis1_cuda(mispc_context *ctx, const mispc_csr *g,
                                        const mispc_mis_options *opt, int degree_aware,
                                        uint8_t *in_set, mispc_mis_result *res) {
  const int64_t n = g->nrows;
  res->set_size = 0;
  res->rounds = 0;
  if (n == 0) return MISPC_SUCCESS;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  int dev = 0, sms = 0;
  MISPC_CUDA_TRY(ctx, cudaGetDevice(&dev));
  MISPC_CUDA_TRY(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  /* counters: per round r, [3r] active, [3r+1] low list length, [3r+2] high list length */
  const size_t ncnt = (3 * (size_t)(max_rounds + 2) + 1) & ~(size_t)1; /* keep d_size 8-aligned */
  uint32_t *status = NULL, *key = NULL;
  int32_t *lists = NULL;
  unsigned *cnt = NULL;
  unsigned long long *d_size = NULL;
  unsigned *h_active = NULL;
  mispc_status st = mispc_scratch_alloc(ctx, (size_t)n * 8, (void **)&status, "MIS-1 status/keys");
  if (!st) st = mispc_scratch_alloc(ctx, (size_t)n * 16, (void **)&lists, "MIS-1 worklists");
  if (!st) st = mispc_scratch_alloc(ctx, ncnt * 4 + 16, (void **)&cnt, "MIS-1 counters");
  if (!st) st = mispc_pinned_scratch(ctx, (size_t)(max_rounds + 2) * 4, (void **)&h_active);
  cudaEvent_t ev[2] = {NULL, NULL};
  if (!st && (cudaEventCreateWithFlags(&ev[0], cudaEventDisableTiming) != cudaSuccess ||
              cudaEventCreateWithFlags(&ev[1], cudaEventDisableTiming) != cudaSuccess))
    st = mispc_seterr(ctx, MISPC_ERR_CUDA, "cudaEventCreate failed");
  int rounds = -1;
  if (!st) {
    key = status + n;
    d_size = (unsigned long long *)(cnt + ncnt);
    int32_t *low[2] = {lists, lists + n}, *high[2] = {lists + 2 * n, lists + 3 * n};
    const int warp_degree = opt->no_warp_mapping ? INT32_MAX : kWarpDegree;
    const unsigned grid = mispc_grid_for(n, kBlock, (unsigned)sms * 8u);
    cudaMemsetAsync(cnt, 0, ncnt * 4 + 16, s);
    mis1_init<<<grid, kBlock, 0, s>>>(n, g->rowptr, degree_aware, opt->seed, status, key,
                                      warp_degree, high[0], cnt + 2);
    for (int r = 0; r <= max_rounds; ++r) {
      Round a;
      a.rowptr = g->rowptr;
      a.colidx = g->colidx;
      a.status = status;
      a.key = key;
      a.n = n;
      a.r = r;
      a.early_exit = !opt->no_early_exit;
      a.all = r == 0 || opt->no_worklist;
      a.warp_degree = warp_degree;
      a.low_in = low[r & 1];
      a.high_in = high[opt->no_worklist ? 0 : (r & 1)];
      a.low_n = cnt + 3 * r + 1;
      a.high_n = opt->no_worklist ? cnt + 2 : cnt + 3 * r + 2;
      a.low_out = low[(r + 1) & 1];
      a.high_out = high[opt->no_worklist ? 1 : ((r + 1) & 1)];
      a.low_out_n = cnt + 3 * (r + 1) + 1;
      a.high_out_n = cnt + 3 * (r + 1) + 2;
      a.active = cnt + 3 * r;
      if (r < max_rounds) {
        mis1_round<<<grid, kBlock, 0, s>>>(a);
        cudaMemcpyAsync(h_active + r, cnt + 3 * r, 4, cudaMemcpyDeviceToHost, s);
        cudaEventRecord(ev[r & 1], s);
      }
      if (r >= 1) {
        cudaError_t e = cudaEventSynchronize(ev[(r - 1) & 1]);
        if (e != cudaSuccess) {
          st = mispc_seterr(ctx, MISPC_ERR_CUDA, "MIS-1 round %d failed: %s", r - 1,
                            cudaGetErrorString(e));
          break;
        }
        if (h_active[r - 1] == 0) {
          rounds = r - 1;
          break;
        }
        mispc_logf(ctx, 2, "mis1 round %d: %u undecided at start", r - 1, h_active[r - 1]);
      }
    }
    if (!st) {
      mis1_finish<<<grid, kBlock, 0, s>>>(n, status, in_set, d_size);
      unsigned long long counts[2] = {0, 0};
      cudaMemcpyAsync(counts, d_size, 16, cudaMemcpyDeviceToHost, s);
      cudaError_t e = cudaStreamSynchronize(s);
      if (e == cudaSuccess) e = cudaGetLastError();
      if (e != cudaSuccess)
        st = mispc_seterr(ctx, MISPC_ERR_CUDA, "MIS-1 kernels failed: %s", cudaGetErrorString(e));
      else if (counts[1] != 0)
        st = mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_mis1: %llu vertices undecided after %d rounds", counts[1],
                          max_rounds);
      res->set_size = (int64_t)counts[0];
      res->rounds = rounds < 0 ? max_rounds : rounds;
    }
  }
  if (ev[0]) cudaEventDestroy(ev[0]);
  if (ev[1]) cudaEventDestroy(ev[1]);
  mispc_scratch_free(ctx, status);
  mispc_scratch_free(ctx, lists);
  mispc_scratch_free(ctx, cnt);
  return st;
}
