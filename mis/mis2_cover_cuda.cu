/* MIS-2 with the coverage priority on the GPU (MISPC_PRIORITY_COVER): the
 * steps of mis2_cover_host.c, a thread a vertex, a launch a step and a read
 * of the undecided count a round. The definition (mis_common.h,
 * mis2_cover_tuple) gives fewer, larger distance-2 neighbourhoods than the
 * hash priorities; it is for aggregation on long rows, where the smaller
 * Galerkin product pays for the extra sweeps (docs/MIS.md), so it has none
 * of the default priority's worklists or persistent kernels. */
#include <stdint.h>

#include "mis_backend.h"
#include "mis_common.h"
#include "mis_cuda.cuh"

namespace {

constexpr int kBlock = 256;

struct Cover {
  const int64_t *rp;
  const int32_t *ci;
  const uint8_t *subset;
  uint64_t *T, *M;
  uint32_t *C;
  int64_t n;
  uint64_t seed;
  int idbits;
};

__device__ __forceinline__ bool undecided(uint64_t t) {
  return t != MIS2_IN && t != MIS2_OUT;
}
__device__ __forceinline__ bool inside(const Cover &c, int32_t u) {
  return !c.subset || c.subset[u];
}

#define FOR_V(c)                                                                                   \
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < (c).n;                      \
       v += (int64_t)gridDim.x * blockDim.x)

__global__ void __launch_bounds__(kBlock) init(Cover c, unsigned long long *left) {
  unsigned long long mine = 0;
  FOR_V(c) {
    const bool in = inside(c, (int32_t)v);
    c.T[v] = in ? (uint64_t)(v + 1) : MIS2_OUT;
    c.M[v] = in ? MIS2_IN : MIS2_OUT;
    mine += in;
  }
  mispc_block_add<kBlock>(mine, left);
}

/* OUT within distance 2 of the set, first C[v] = "an IN vertex in N[v]" */
__global__ void __launch_bounds__(kBlock) near_set(Cover c) {
  FOR_V(c) {
    uint32_t in = 0;
    for (int64_t p = c.rp[v]; p < c.rp[v + 1] && !in; ++p) in = c.T[c.ci[p]] == MIS2_IN;
    c.C[v] = in;
  }
}
__global__ void __launch_bounds__(kBlock) mark_out(Cover c) {
  FOR_V(c) {
    if (!undecided(c.T[v])) continue;
    uint32_t out = c.C[v];
    for (int64_t p = c.rp[v]; p < c.rp[v + 1] && !out; ++p)
      out = inside(c, c.ci[p]) && c.C[c.ci[p]];
    if (out) c.T[v] = MIS2_OUT;
  }
}

__global__ void __launch_bounds__(kBlock) count1(Cover c) {
  FOR_V(c) {
    uint32_t k = undecided(c.T[v]);
    for (int64_t p = c.rp[v]; p < c.rp[v + 1]; ++p) k += c.ci[p] != v && undecided(c.T[c.ci[p]]);
    c.C[v] = k;
  }
}

__global__ void __launch_bounds__(kBlock) tuples(Cover c, int iter) {
  FOR_V(c) {
    if (!undecided(c.T[v])) continue;
    uint64_t k = c.C[v];
    for (int64_t p = c.rp[v]; p < c.rp[v + 1]; ++p)
      if (c.ci[p] != v && inside(c, c.ci[p])) k += c.C[c.ci[p]];
    c.T[v] = mis2_cover_tuple(c.seed, iter, v, k, c.idbits);
  }
}

__global__ void __launch_bounds__(kBlock) column(Cover c) {
  FOR_V(c) {
    if (c.M[v] == MIS2_OUT) continue;
    uint64_t m = c.T[v];
    for (int64_t p = c.rp[v]; p < c.rp[v + 1]; ++p) m = min(m, c.T[c.ci[p]]);
    c.M[v] = m == MIS2_IN ? MIS2_OUT : m;
  }
}

__global__ void __launch_bounds__(kBlock) decide(Cover c, int iter, unsigned long long *left) {
  unsigned long long mine = 0;
  FOR_V(c) {
    const uint64_t t = c.T[v];
    if (!undecided(t)) continue;
    bool out = c.M[v] == MIS2_OUT, all = c.M[v] == t;
    for (int64_t p = c.rp[v]; p < c.rp[v + 1] && !out && (all || iter > 0); ++p) {
      const int32_t u = c.ci[p];
      if (!inside(c, u)) continue;
      out = c.M[u] == MIS2_OUT;
      all = all && c.M[u] == t;
    }
    if (out)
      c.T[v] = MIS2_OUT;
    else if (all)
      c.T[v] = MIS2_IN;
    else
      ++mine;
  }
  mispc_block_add<kBlock>(mine, left);
}

__global__ void __launch_bounds__(kBlock)
    members(Cover c, uint8_t *in_set, unsigned long long *size) {
  unsigned long long mine = 0;
  FOR_V(c) {
    const bool in = c.T[v] == MIS2_IN;
    in_set[v] = in;
    mine += in;
  }
  mispc_block_add<kBlock>(mine, size);
}

#undef FOR_V

} // namespace

extern "C" mispc_status mispc_mis2_cover_cuda(mispc_context *ctx, const mispc_csr *g,
                                              const mispc_mis_options *opt, const uint8_t *subset,
                                              uint8_t *in_set, mispc_mis_result *res) {
  const int64_t n = g->nrows;
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  res->set_size = 0;
  res->rounds = 0;
  if (n == 0) return MISPC_SUCCESS;
  char *scratch = NULL;
  MISPC_TRY(mispc_scratch_alloc(ctx, 16 + (size_t)n * 20 + 8, (void **)&scratch,
                                "MIS-2 (cover) words and counts"));
  unsigned long long *cnt = (unsigned long long *)scratch; /* [0] undecided, [1] members */
  Cover c;
  c.rp = g->rowptr;
  c.ci = g->colidx;
  c.subset = subset;
  c.T = (uint64_t *)(scratch + 16);
  c.M = c.T + n;
  c.C = (uint32_t *)(c.M + n);
  c.n = n;
  c.seed = opt->seed;
  c.idbits = mis2_id_bits(n);
  const unsigned grid = mispc_device_grid(ctx, n, kBlock);
  unsigned long long left = 0;
  cudaMemsetAsync(cnt, 0, 16, s);
  init<<<grid, kBlock, 0, s>>>(c, cnt);
  cudaMemcpyAsync(&left, cnt, 8, cudaMemcpyDeviceToHost, s);
  mispc_status st = mispc_sync(ctx, s, "MIS-2 (cover) start");
  int iter = 0;
  while (!st && left > 0) {
    if (iter >= max_rounds) {
      st = mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                        "mispc_mis2: %llu vertices undecided after %d rounds", left, iter);
      break;
    }
    if (iter > 0) {
      near_set<<<grid, kBlock, 0, s>>>(c);
      mark_out<<<grid, kBlock, 0, s>>>(c);
    }
    count1<<<grid, kBlock, 0, s>>>(c);
    tuples<<<grid, kBlock, 0, s>>>(c, iter);
    column<<<grid, kBlock, 0, s>>>(c);
    cudaMemsetAsync(cnt, 0, 8, s);
    decide<<<grid, kBlock, 0, s>>>(c, iter, cnt);
    cudaMemcpyAsync(&left, cnt, 8, cudaMemcpyDeviceToHost, s);
    st = mispc_sync(ctx, s, "MIS-2 (cover) round");
    ++iter;
    mispc_logf(ctx, 2, "mis2 (cover) round %d: %llu undecided", iter, left);
  }
  if (!st) {
    unsigned long long size = 0;
    members<<<grid, kBlock, 0, s>>>(c, in_set, cnt + 1);
    cudaMemcpyAsync(&size, cnt + 1, 8, cudaMemcpyDeviceToHost, s);
    st = mispc_sync(ctx, s, "MIS-2 (cover) members");
    res->set_size = (int64_t)size;
    res->rounds = iter;
  }
  mispc_scratch_free(ctx, scratch);
  return st;
}
