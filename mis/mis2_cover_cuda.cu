/* MIS-2 with the coverage priority on the GPU (MISPC_PRIORITY_COVER), one
 * process: the kernels of mis2_cover_kernels.cuh, a launch a step and a
 * read of the undecided count a round. The definition (mis_common.h,
 * mis2_cover_tuple) gives fewer, larger distance-2 neighbourhoods than the
 * hash priorities; it is for aggregation on long rows, where the smaller
 * Galerkin product pays for the extra sweeps (docs/MIS.md), so it has none
 * of the default priority's worklists. Small graphs (one_launch) run all
 * rounds in one persistent kernel where the device has cooperative launch
 * (and mis_no_persistent is off), a grid barrier between the steps and the
 * count read on the device, so a call waits for the host once instead of
 * once a round. */
#include <cooperative_groups.h>
#include <stdint.h>

#include "mis2_cover_kernels.cuh"
#include "mis_backend.h"
#include "mis_cuda.cuh"

namespace cg = cooperative_groups;
using namespace mis2_cover;

namespace {

/* The persistent kernel's arguments: cnt as all_rounds' (zeroed by the
 * caller); out [0] rounds (-1: not done after max_rounds), [1] undecided
 * then, [2] members. */
struct Run {
  Cover c;
  unsigned long long *cnt, *out;
  uint8_t *in_set;
  int max_rounds;
};

/* all_rounds on one process: grid barriers, no copies, counts read in place */
struct GridSync {
  cg::grid_group &grid;
  const unsigned long long *cnt;
  NoPut put_t, put_m, put_c;
  __device__ void sync() {
    grid.sync();
  }
  __device__ void publish(int, const unsigned long long *) {}
  __device__ void exchanged() {
    grid.sync();
  }
  __device__ unsigned long long total(int k) {
    return mispc_load_word(cnt + k);
  }
};

/* The rounds of `rounds` below in one launch, the same steps in the same
 * order with a grid barrier where a launch ended. */
template <int L> __global__ void __launch_bounds__(kBlock) persistent(Run a) {
  cg::grid_group grid = cg::this_grid();
  GridSync x = {grid, a.cnt, NoPut(), NoPut(), NoPut()};
  unsigned long long left = 0, size = 0;
  const int rounds = all_rounds<L>(a.c, a.cnt, a.max_rounds, a.in_set, x, &left, &size);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    a.out[0] = (unsigned long long)(long long)rounds;
    a.out[1] = left;
    a.out[2] = size;
  }
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

/* The persistent kernel where the device can and every group of the graph
 * has its own thread in one resident wave (*launched), then the set size,
 * the rounds and the call's one wait. One H200 (docs/MIS.md, "The cover
 * priority"): 2.3x faster than a launch a step on gen:laplace3d:12, 1.5x
 * on gen:grid3d27:30 (27,000 vertices of 8 lanes), the same on
 * elasticity3d:40 and laplace3d:100, but 1.2x slower on gen:kron:16 (65,536
 * vertices of 8 lanes, 20 rounds: two groups a thread) and 5 % slower on
 * laplace3d:150: not profiled. */
template <int L>
mispc_status one_launch(mispc_context *ctx, cudaStream_t s, const Cover &c, int max_rounds,
                        uint8_t *in_set, unsigned long long *cnt, mispc_mis_result *res,
                        int *launched) {
  Run a = {c, cnt, cnt + 4, in_set, max_rounds};
  const void *kernel = (const void *)persistent<L>;
  long long threads = 0;
  if (!ctx->tuning.mis_no_persistent)
    MISPC_TRY(mis_cuda::persistent_threads(ctx, kernel, &threads));
  *launched = 0;
  if (c.n * L > threads) return MISPC_SUCCESS;
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(cnt, 0, 32, s));
  MISPC_TRY(mis_cuda::launch_persistent(ctx, s, kernel, &a, c.n * L, 1, launched));
  if (!*launched) return MISPC_SUCCESS;
  unsigned long long h[3] = {0, 0, 0};
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(h, a.out, sizeof h, cudaMemcpyDeviceToHost, s));
  MISPC_TRY(mispc_sync(ctx, s, "MIS-2 (cover)"));
  const int rounds = (int)(long long)h[0];
  if (rounds < 0)
    return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                        "mispc_mis2: %llu vertices undecided after %d rounds", h[1], max_rounds);
  res->set_size = (int64_t)h[2];
  res->rounds = rounds;
  return MISPC_SUCCESS;
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
  MISPC_TRY(mispc_scratch_alloc(ctx, 64 + (size_t)n * 20 + 8, (void **)&scratch,
                                "MIS-2 (cover) words and counts"));
  /* [0] undecided, [1] members (the launches a step); [0..6] (one launch) */
  unsigned long long *cnt = (unsigned long long *)scratch;
  Cover c = {};
  c.rp = g->rowptr;
  c.ci = g->colidx;
  c.subset = subset;
  c.T = (uint64_t *)(scratch + 64);
  c.M = c.T + n;
  c.C = (uint32_t *)(c.M + n);
  c.n = n;
  c.seed = opt->seed;
  c.idbits = mis2_id_bits(n);
  int iter = 0, launched = 0;
  mispc_status st = with_lanes(lanes(ctx, g->nnz, g->nrows), [&](auto l) {
    constexpr int L = decltype(l)::value;
    MISPC_TRY(one_launch<L>(ctx, s, c, max_rounds, in_set, cnt, res, &launched));
    return launched ? MISPC_SUCCESS : rounds<L>(ctx, s, c, max_rounds, cnt, &iter);
  });
  if (!st && !launched) {
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
