/* MIS-2 with the coverage priority on the GPU (MISPC_PRIORITY_COVER), one
 * process: the kernels of mis2_cover_kernels.cuh, a launch a step and a
 * read of the undecided count a round. The definition (mis_common.h,
 * mis2_cover_tuple) gives fewer, larger distance-2 neighbourhoods than the
 * hash priorities; it is for aggregation on long rows, where the smaller
 * Galerkin product pays for the extra sweeps (docs/MIS.md), so it has none
 * of the default priority's worklists or persistent kernels. */
#include <stdint.h>

#include "mis2_cover_kernels.cuh"
#include "mis_backend.h"

using namespace mis2_cover;

namespace {

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
  Cover c = {};
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
  mispc_status st = with_lanes(lanes(ctx, g->nnz, g->nrows), [&](auto l) {
    return rounds<decltype(l)::value>(ctx, s, c, max_rounds, cnt, &iter);
  });
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
