/* Distributed MIS-2 with the coverage priority on the GPU: the kernels of
 * mis2_cover_kernels.cuh over a rank's rows, the ghosts' words refreshed by
 * the device halo exchange after each step, as mis2_cover_dist.c does on
 * the host (the "IN in N[v]" flags, T after the OUT marking, c1, T after the
 * tuples, M, T after the decide: six a round), and the undecided count
 * summed over the ranks with the last exchange of each round and read a
 * round later. Tuples hold global ids and the global
 * vertex count's bit split: the one-process set and rounds. */
#include <string.h>

#include "dist_cuda.cuh"
#include "mis2_cover_kernels.cuh"
#include "mis_dist_backend.h"

using namespace mis2_cover;

namespace {

/* Events and host words of the rounds' counts. */
struct Counts {
  cudaEvent_t ev[2];
  unsigned *d_count;          /* this rank's undecided count of the round */
  unsigned long long *d_wide; /* the count widened (and summed under NCCL) */
  unsigned long long *h;      /* pinned: round r's count in h[r] */
};

/* One round queued on s: the six steps and their exchanges, the last with
 * the undecided count (summed over the ranks in the same NCCL group). */
template <int L>
mispc_status enqueue_round(mispc_context *ctx, mispc_halo *h, cudaStream_t s, unsigned grid,
                           const Cover &c, int r, const Counts &k) {
  if (r > 0) {
    near_set<L><<<grid, kBlock, 0, s>>>(c);
    MISPC_CUDA_LAUNCH_CHECK(ctx);
    MISPC_TRY(mispc_halo_exchange_device(ctx, h, c.C, c.gC, 4));
    mark_out<L><<<grid, kBlock, 0, s>>>(c);
    MISPC_CUDA_LAUNCH_CHECK(ctx);
    MISPC_TRY(mispc_halo_exchange_device(ctx, h, c.T, c.gT, 8));
  }
  count1<L><<<grid, kBlock, 0, s>>>(c, r);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_TRY(mispc_halo_exchange_device(ctx, h, c.C, c.gC, 4));
  tuples<L><<<grid, kBlock, 0, s>>>(c, r);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_TRY(mispc_halo_exchange_device(ctx, h, c.T, c.gT, 8));
  column<L><<<grid, kBlock, 0, s>>>(c);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_TRY(mispc_halo_exchange_device(ctx, h, c.M, c.gM, 8));
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(k.d_count, 0, 4, s));
  decide<L><<<grid, kBlock, 0, s>>>(c, r, k.d_count);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  return mispc_halo_exchange_count_device(ctx, h, c.T, c.gT, 8, k.d_count, 1, k.d_wide, k.h + r, s);
}

/* The rounds with groups of L lanes a vertex (after the buffers of c are
 * set); *iter the rounds run. Round r is queued, then round r - 1's count
 * read: the host stays a round ahead of the GPU (as mis2_dist_cuda.cu's
 * rounds). A round queued after the last one finds every vertex decided and
 * changes no T word, so the set is the same. */
template <int L>
mispc_status rounds(mispc_context *ctx, const mispc_dist_csr *g, cudaStream_t s, const Cover &c,
                    int max_rounds, unsigned long long *cnt, const Counts &k, int *iter) {
  mispc_halo *h = g->halo;
  const unsigned grid = mispc_device_grid(ctx, c.n * L, kBlock);
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(cnt, 0, 16, s));
  init<L><<<grid, kBlock, 0, s>>>(c, cnt);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_TRY(mispc_halo_exchange_device(ctx, h, c.T, c.gT, 8));
  int64_t left = 0;
  MISPC_TRY(dist_global_count(ctx, g, s, cnt, &left));
  *iter = -1;
  if (left == 0) *iter = 0;
  for (int r = 0; *iter < 0; ++r) {
    if (r < max_rounds) {
      MISPC_TRY(enqueue_round<L>(ctx, h, s, grid, c, r, k));
      MISPC_CUDA_TRY(ctx, cudaEventRecord(k.ev[r & 1], s));
    }
    if (r >= 1) {
      MISPC_CUDA_TRY(ctx, cudaEventSynchronize(k.ev[(r - 1) & 1]));
      MISPC_TRY(mispc_halo_count_finish(ctx, h, g->comm, k.h + r - 1, &left));
      mispc_logf(ctx, 2, "dist mis2 (cover, device) round %d: %lld undecided", r, (long long)left);
      if (left == 0) *iter = r;
    }
    if (*iter < 0 && r >= max_rounds)
      return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_dist_mis2: %lld vertices undecided after %d rounds",
                          (long long)left, max_rounds);
  }
  return MISPC_SUCCESS;
}

mispc_status cover(mispc_context *ctx, const mispc_dist_csr *g, const mispc_mis_options *opt,
                   const uint8_t *subset, uint8_t *in_set, mispc_mis_result *res,
                   uint8_t *ghost_subset, mispc_scratch_list *b, Counts *k) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  const size_t nl = (size_t)nloc + 1, gn = (size_t)ng + 1;
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const char *what = "distributed MIS-2 (cover) scratch";
  char *w = NULL, *gw = NULL;
  unsigned long long *cnt = NULL;
  uint8_t *gsub = ghost_subset;
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, nl * 20, what, (void **)&w));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, gn * 20, what, (void **)&gw));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, 32, what, (void **)&cnt));
  k->d_wide = cnt + 2;
  k->d_count = (unsigned *)(cnt + 3);
  MISPC_TRY(mispc_pinned_scratch(ctx, (size_t)(max_rounds + 2) * 8, (void **)&k->h));
  for (int i = 0; i < 2; ++i)
    MISPC_CUDA_TRY(ctx, cudaEventCreateWithFlags(&k->ev[i], cudaEventDisableTiming));
  if (!gsub) MISPC_TRY(mispc_scratch_list_alloc(ctx, b, gn, what, (void **)&gsub));
  Cover c = {};
  c.rp = g->diag.rowptr;
  c.ci = g->diag.colidx;
  c.brp = g->offd.rowptr;
  c.bci = g->offd.colidx;
  c.subset = subset;
  c.gsub = gsub;
  c.T = (uint64_t *)w;
  c.M = c.T + nl;
  c.C = (uint32_t *)(c.M + nl);
  c.gT = (uint64_t *)gw;
  c.gM = c.gT + gn;
  c.gC = (uint32_t *)(c.gM + gn);
  c.n = nloc;
  c.rstart = g->rstart;
  c.seed = opt->seed;
  c.idbits = mis2_id_bits(g->nglobal);
  /* the ghosts' subset flags, once (every ghost is in without a subset) */
  if (subset)
    MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, subset, gsub, 1));
  else if (ng > 0)
    MISPC_CUDA_TRY(ctx, cudaMemsetAsync(gsub, 1, (size_t)ng, s));
  int iter = 0;
  MISPC_TRY(with_lanes(lanes(ctx, g->diag.nnz + g->offd.nnz, nloc), [&](auto l) {
    return rounds<decltype(l)::value>(ctx, g, s, c, max_rounds, cnt, *k, &iter);
  }));
  members<<<mispc_device_grid(ctx, nloc, kBlock), kBlock, 0, s>>>(c, in_set, cnt + 1);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  int64_t size = 0;
  MISPC_TRY(dist_global_count(ctx, g, s, cnt + 1, &size));
  res->set_size = size;
  res->rounds = iter;
  return MISPC_SUCCESS;
}

} // namespace

extern "C" mispc_status mispc_dist_mis2_cover_cuda(mispc_context *ctx, const mispc_dist_csr *g,
                                                   const mispc_mis_options *opt,
                                                   const uint8_t *subset, uint8_t *in_set,
                                                   mispc_mis_result *res, uint8_t *ghost_subset) {
  mispc_scratch_list b = {{0}, 0};
  Counts k;
  memset(&k, 0, sizeof k);
  mispc_status s = cover(ctx, g, opt, subset, in_set, res, ghost_subset, &b, &k);
  if (s) { /* queued work may still use the scratch */
    cudaStream_t st;
    if (mispc_stream(ctx, &st) == MISPC_SUCCESS) cudaStreamSynchronize(st);
  }
  mispc_scratch_list_free(ctx, &b);
  for (int i = 0; i < 2; ++i)
    if (k.ev[i]) cudaEventDestroy(k.ev[i]);
  return mispc_dist_agree(ctx, g->comm, s);
}
