/* MIS-2 with the coverage priority on the GPU (MISPC_PRIORITY_COVER): the
 * steps of mis2_cover_host.c, a group of lanes a vertex (cover_lanes), a
 * launch a step and a read of the undecided count a round. The definition
 * (mis_common.h, mis2_cover_tuple) gives fewer, larger distance-2
 * neighbourhoods than the hash priorities; it is for aggregation on long
 * rows, where the smaller Galerkin product pays for the extra sweeps
 * (docs/MIS.md), so it has none of the default priority's worklists or
 * persistent kernels. */
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

__device__ __forceinline__ bool inside(const Cover &c, int32_t u) {
  return !c.subset || c.subset[u];
}

/* A group of L lanes a vertex (L = 1: a thread): the group's first vertex,
 * its stride over the grid, this lane's place in it, and the group's mask
 * for the shuffles that combine the lanes' shares of a row. */
template <int L> struct Group {
  __device__ static int64_t first() {
    return (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / L;
  }
  __device__ static int64_t stride() {
    return (int64_t)gridDim.x * blockDim.x / L;
  }
  __device__ static int lane() {
    return (int)(threadIdx.x & (L - 1));
  }
  __device__ static unsigned mask() {
    return L == 32 ? 0xffffffffu : ((1u << L) - 1u) << ((threadIdx.x & 31u) & ~(unsigned)(L - 1));
  }
  template <typename T> __device__ static T sum(T x) {
#pragma unroll
    for (int o = L / 2; o; o >>= 1) x += __shfl_xor_sync(mask(), x, o);
    return x;
  }
  template <typename T> __device__ static T min(T x) {
#pragma unroll
    for (int o = L / 2; o; o >>= 1) {
      const T y = __shfl_xor_sync(mask(), x, o);
      x = y < x ? y : x;
    }
    return x;
  }
  __device__ static bool any(bool x) {
    return L == 1 ? x : __any_sync(mask(), x);
  }
  __device__ static bool all(bool x) {
    return L == 1 ? x : __all_sync(mask(), x);
  }
};

/* every vertex, a group each (all lanes of a group see the same v) */
#define FOR_V(c) for (int64_t v = Group<L>::first(); v < (c).n; v += Group<L>::stride())
/* this lane's share of v's row */
#define FOR_ROW(c, v, p) for (int64_t p = (c).rp[v] + Group<L>::lane(); p < (c).rp[(v) + 1]; p += L)

template <int L> __global__ void __launch_bounds__(kBlock) init(Cover c, unsigned long long *left) {
  unsigned long long mine = 0;
  FOR_V(c) {
    if (Group<L>::lane()) continue;
    const bool in = inside(c, (int32_t)v);
    c.T[v] = in ? (uint64_t)(v + 1) : MIS2_OUT;
    c.M[v] = in ? MIS2_IN : MIS2_OUT;
    mine += in;
  }
  mispc_block_add<kBlock>(mine, left);
}

/* OUT within distance 2 of the set, first C[v] = "an IN vertex in N[v]" */
template <int L> __global__ void __launch_bounds__(kBlock) near_set(Cover c) {
  FOR_V(c) {
    /* a column OUT of an earlier round saw an IN vertex, and IN stays
     * (outside the subset C is never read) */
    bool in = c.M[v] == MIS2_OUT;
    if (!in) FOR_ROW(c, v, p) {
        if (c.T[c.ci[p]] == MIS2_IN) {
          in = true;
          break;
        }
      }
    in = Group<L>::any(in);
    if (!Group<L>::lane()) c.C[v] = in;
  }
}
template <int L> __global__ void __launch_bounds__(kBlock) mark_out(Cover c) {
  FOR_V(c) {
    if (!mis2_undecided(c.T[v])) continue;
    bool out = c.C[v];
    if (!out) FOR_ROW(c, v, p) {
        const int32_t u = c.ci[p];
        if (inside(c, u) && c.C[u]) {
          out = true;
          break;
        }
      }
    out = Group<L>::any(out);
    if (out && !Group<L>::lane()) c.T[v] = MIS2_OUT;
  }
}

template <int L> __global__ void __launch_bounds__(kBlock) count1(Cover c, int iter) {
  FOR_V(c) {
    /* near the set: all of N[v] has just turned OUT; the lanes read the
     * flag before the sum, lane 0 writes after it */
    const bool near = iter > 0 && c.C[v];
    uint32_t k = 0;
    if (!near) FOR_ROW(c, v, p) k += c.ci[p] != v && mis2_undecided(c.T[c.ci[p]]);
    k = Group<L>::sum(k);
    if (!Group<L>::lane()) c.C[v] = near ? 0 : k + mis2_undecided(c.T[v]);
  }
}

template <int L> __global__ void __launch_bounds__(kBlock) tuples(Cover c, int iter) {
  FOR_V(c) {
    if (!mis2_undecided(c.T[v])) continue;
    uint64_t k = 0;
    FOR_ROW(c, v, p) {
      const int32_t u = c.ci[p];
      if (u != v && inside(c, u)) k += c.C[u];
    }
    k = Group<L>::sum(k);
    if (!Group<L>::lane()) c.T[v] = mis2_cover_tuple(c.seed, iter, v, k + c.C[v], c.idbits);
  }
}

template <int L> __global__ void __launch_bounds__(kBlock) column(Cover c) {
  FOR_V(c) {
    if (c.M[v] == MIS2_OUT) continue;
    uint64_t m = c.T[v];
    FOR_ROW(c, v, p) m = ::min(m, c.T[c.ci[p]]);
    m = Group<L>::min(m);
    if (!Group<L>::lane()) c.M[v] = m == MIS2_IN ? MIS2_OUT : m;
  }
}

template <int L>
__global__ void __launch_bounds__(kBlock) decide(Cover c, int iter, unsigned long long *left) {
  unsigned long long mine = 0;
  FOR_V(c) {
    const uint64_t t = c.T[v];
    if (!mis2_undecided(t)) continue;
    bool out = c.M[v] == MIS2_OUT, all = c.M[v] == t;
    if (!out && (all || iter > 0)) FOR_ROW(c, v, p) {
        const int32_t u = c.ci[p];
        if (!inside(c, u)) continue;
        out = c.M[u] == MIS2_OUT;
        all = all && c.M[u] == t;
        if (out || (!all && iter == 0)) break;
      }
    out = Group<L>::any(out);
    all = Group<L>::all(all);
    if (Group<L>::lane()) continue;
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
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < c.n;
       v += (int64_t)gridDim.x * blockDim.x) {
    const bool in = c.T[v] == MIS2_IN;
    in_set[v] = in;
    mine += in;
  }
  mispc_block_add<kBlock>(mine, size);
}

/* The rounds with groups of L lanes a vertex; *left the undecided count read
 * after each round, *iter the rounds run. */
template <int L>
mispc_status rounds(mispc_context *ctx, cudaStream_t s, const Cover &c, int max_rounds,
                    unsigned long long *cnt, int *iter) {
  const unsigned grid = mispc_device_grid(ctx, c.n * L, kBlock);
  unsigned long long left = 0;
  cudaMemsetAsync(cnt, 0, 16, s);
  init<L><<<grid, kBlock, 0, s>>>(c, cnt);
  cudaMemcpyAsync(&left, cnt, 8, cudaMemcpyDeviceToHost, s);
  mispc_status st = mispc_sync(ctx, s, "MIS-2 (cover) start");
  *iter = 0;
  while (!st && left > 0) {
    if (*iter >= max_rounds)
      return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_mis2: %llu vertices undecided after %d rounds", left, *iter);
    if (*iter > 0) {
      near_set<L><<<grid, kBlock, 0, s>>>(c);
      mark_out<L><<<grid, kBlock, 0, s>>>(c);
    }
    count1<L><<<grid, kBlock, 0, s>>>(c, *iter);
    tuples<L><<<grid, kBlock, 0, s>>>(c, *iter);
    column<L><<<grid, kBlock, 0, s>>>(c);
    cudaMemsetAsync(cnt, 0, 8, s);
    decide<L><<<grid, kBlock, 0, s>>>(c, *iter, cnt);
    cudaMemcpyAsync(&left, cnt, 8, cudaMemcpyDeviceToHost, s);
    st = mispc_sync(ctx, s, "MIS-2 (cover) round");
    ++*iter;
    mispc_logf(ctx, 2, "mis2 (cover) round %d: %llu undecided", *iter, left);
  }
  return st;
}

#undef FOR_ROW
#undef FOR_V

/* Lanes a vertex: the tuning's mis2_cover_lanes, else one thread while rows
 * average at most COVER_THREAD_MEAN entries, else a warp. */
int cover_lanes(const mispc_context *ctx, const mispc_csr *g) {
  const int l = ctx->tuning.mis2_cover_lanes;
  if (l == 1 || l == 2 || l == 4 || l == 8 || l == 16 || l == 32) return l;
  return g->nnz <= 12 * g->nrows ? 1 : 8;
}

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
  int iter = 0;
  mispc_status st;
  switch (cover_lanes(ctx, g)) {
  case 1:
    st = rounds<1>(ctx, s, c, max_rounds, cnt, &iter);
    break;
  case 2:
    st = rounds<2>(ctx, s, c, max_rounds, cnt, &iter);
    break;
  case 4:
    st = rounds<4>(ctx, s, c, max_rounds, cnt, &iter);
    break;
  case 8:
    st = rounds<8>(ctx, s, c, max_rounds, cnt, &iter);
    break;
  case 16:
    st = rounds<16>(ctx, s, c, max_rounds, cnt, &iter);
    break;
  default:
    st = rounds<32>(ctx, s, c, max_rounds, cnt, &iter);
    break;
  }
  if (!st) {
    unsigned long long size = 0;
    members<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(c, in_set, cnt + 1);
    cudaMemcpyAsync(&size, cnt + 1, 8, cudaMemcpyDeviceToHost, s);
    st = mispc_sync(ctx, s, "MIS-2 (cover) members");
    res->set_size = (int64_t)size;
    res->rounds = iter;
  }
  mispc_scratch_free(ctx, scratch);
  return st;
}
