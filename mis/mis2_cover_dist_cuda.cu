/* Distributed MIS-2 with the coverage priority on the GPU: the kernels of
 * mis2_cover_kernels.cuh over a rank's rows, the ghosts' words refreshed by
 * the device halo exchange after each step, as mis2_cover_dist.c does on
 * the host (the "IN in N[v]" flags, T after the OUT marking, c1, T after the
 * tuples, M, T after the decide: six a round), and the undecided count
 * summed over the ranks each round. Tuples hold global ids and the global
 * vertex count's bit split: the one-process set and rounds. On two GPUs
 * these host-driven rounds were slower than one GPU (six exchanges a
 * round); reading the count a round late, and each step in boundary /
 * interior halves with the exchange beside the interior, were measured no
 * faster or slower (docs/DISTRIBUTED.md, "twenty-fifth pass"). So where the
 * GPUs reach each other's memory all rounds run in one kernel a rank
 * (mis2_cover_dist_lsa.cu, the rule of the hash rounds: dist_lsa_wanted). */
#include "dist_cuda.cuh"
#include "dist_lsa.cuh"
#include "mis2_cover_dist_lsa.cuh"
#include "mis_dist_backend.h"

using namespace mis2_cover;

namespace {

/* The rounds with groups of L lanes a vertex (after the buffers of c are
 * set); *iter the rounds run. */
template <int L>
mispc_status rounds(mispc_context *ctx, const mispc_dist_csr *g, cudaStream_t s, const Cover &c,
                    int max_rounds, unsigned long long *cnt, int *iter) {
  mispc_halo *h = g->halo;
  const unsigned grid = mispc_device_grid(ctx, c.n * L, kBlock);
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(cnt, 0, 16, s));
  init<L><<<grid, kBlock, 0, s>>>(c, cnt);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_TRY(mispc_halo_exchange_device(ctx, h, c.T, c.gT, 8));
  int64_t left = 0;
  MISPC_TRY(dist_global_count(ctx, g, s, cnt, &left));
  for (*iter = 0; left > 0; ++*iter) {
    if (*iter >= max_rounds)
      return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_dist_mis2: %lld vertices undecided after %d rounds",
                          (long long)left, *iter);
    if (*iter > 0) {
      near_set<L><<<grid, kBlock, 0, s>>>(c);
      MISPC_CUDA_LAUNCH_CHECK(ctx);
      MISPC_TRY(mispc_halo_exchange_device(ctx, h, c.C, c.gC, 4));
      mark_out<L><<<grid, kBlock, 0, s>>>(c);
      MISPC_CUDA_LAUNCH_CHECK(ctx);
      MISPC_TRY(mispc_halo_exchange_device(ctx, h, c.T, c.gT, 8));
    }
    count1<L><<<grid, kBlock, 0, s>>>(c, *iter);
    MISPC_CUDA_LAUNCH_CHECK(ctx);
    MISPC_TRY(mispc_halo_exchange_device(ctx, h, c.C, c.gC, 4));
    tuples<L><<<grid, kBlock, 0, s>>>(c, *iter);
    MISPC_CUDA_LAUNCH_CHECK(ctx);
    MISPC_TRY(mispc_halo_exchange_device(ctx, h, c.T, c.gT, 8));
    column<L><<<grid, kBlock, 0, s>>>(c);
    MISPC_CUDA_LAUNCH_CHECK(ctx);
    MISPC_TRY(mispc_halo_exchange_device(ctx, h, c.M, c.gM, 8));
    decide<L><<<grid, kBlock, 0, s>>>(c, *iter, cnt);
    MISPC_CUDA_LAUNCH_CHECK(ctx);
    MISPC_TRY(mispc_halo_exchange_device(ctx, h, c.T, c.gT, 8));
    MISPC_TRY(dist_global_count(ctx, g, s, cnt, &left));
    mispc_logf(ctx, 2, "dist mis2 (cover, device) round %d: %lld undecided", *iter + 1,
               (long long)left);
  }
  return MISPC_SUCCESS;
}

/* The rounds in one kernel a rank (c's buffers set but for the ghosts',
 * which are the window's): the kernel, then its two words in one wait. */
mispc_status one_kernel(mispc_context *ctx, const mispc_dist_csr *g, cudaStream_t s, Cover &c,
                        mispc_halo_lsa *lsa, int blocks, int max_rounds, uint8_t *in_set,
                        unsigned long long *cnt, uint8_t *ghost_subset, mispc_mis_result *res) {
  const int64_t ng = g->nghost;
  c.gT = (uint64_t *)lsa->base;
  c.gM = (uint64_t *)(lsa->base + lsa->ghost_bytes);
  c.gC = (uint32_t *)(lsa->base + 2 * lsa->ghost_bytes);
  c.gsub = (const uint8_t *)lsa->base + lsa->sub_off;
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(cnt, 0, 48, s));
  MISPC_TRY(lsa_rounds(ctx, c, lsa, blocks, lanes(ctx, g->diag.nnz + g->offd.nnz, c.n), max_rounds,
                       in_set, cnt, cnt + 4, s));
  if (ghost_subset && ng > 0) /* the kernel stored them into its window */
    MISPC_CUDA_TRY(ctx,
                   cudaMemcpyAsync(ghost_subset, c.gsub, (size_t)ng, cudaMemcpyDeviceToDevice, s));
  unsigned long long out[2] = {0, 0};
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(out, cnt + 4, sizeof out, cudaMemcpyDeviceToHost, s));
  MISPC_TRY(mispc_sync(ctx, s, "distributed MIS-2 (cover, one kernel)"));
  const int rounds = (int)(long long)out[1]; /* the same on every rank */
  if (rounds < 0)
    return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                        "mispc_dist_mis2: vertices undecided after %d rounds", max_rounds);
  /* as the host-driven rounds count them: the T words and the subset
   * flags, then four exchanges in round 0 and six in the others (three of
   * T, two of C, one of M) */
  mispc_halo *h = g->halo;
  const int64_t x = rounds > 0 ? 6 * (int64_t)rounds - 2 : 0;
  h->stats.exchanges += 2 + x;
  h->stats.bytes_sent += h->nsend * (9 + (rounds > 0 ? 40 * (int64_t)rounds - 12 : 0));
  mispc_logf(ctx, 2, "dist mis2 (cover, device, one kernel of %d blocks): %d rounds", blocks,
             rounds);
  res->set_size = (int64_t)out[0];
  res->rounds = rounds;
  return MISPC_SUCCESS;
}

mispc_status cover(mispc_context *ctx, const mispc_dist_csr *g, const mispc_mis_options *opt,
                   const uint8_t *subset, uint8_t *in_set, mispc_mis_result *res,
                   uint8_t *ghost_subset, mispc_scratch_list *b) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  const size_t nl = (size_t)nloc + 1, gn = (size_t)ng + 1;
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  /* all rounds in one kernel a rank where the GPUs reach each other's
   * memory (collective) */
  mispc_halo_lsa *lsa = NULL;
  int lsa_blocks = 0;
  if (dist_lsa_wanted(ctx, g)) {
    MISPC_TRY(mispc_halo_lsa_get(ctx, g->halo, g->comm, nloc, &lsa));
    if (lsa) MISPC_TRY(lsa_grid(ctx, g->comm, lsa, &lsa_blocks));
    if (lsa_blocks <= 0) lsa = NULL;
  }
  const char *what = "distributed MIS-2 (cover) scratch";
  char *w = NULL, *gw = NULL;
  unsigned long long *cnt = NULL;
  uint8_t *gsub = ghost_subset;
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, nl * 20, what, (void **)&w));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, 48, what, (void **)&cnt));
  Cover c = {};
  c.rp = g->diag.rowptr;
  c.ci = g->diag.colidx;
  c.brp = g->offd.rowptr;
  c.bci = g->offd.colidx;
  c.subset = subset;
  c.T = (uint64_t *)w;
  c.M = c.T + nl;
  c.C = (uint32_t *)(c.M + nl);
  c.n = nloc;
  c.rstart = g->rstart;
  c.seed = opt->seed;
  c.idbits = mis2_id_bits(g->nglobal);
  if (lsa)
    return one_kernel(ctx, g, s, c, lsa, lsa_blocks, max_rounds, in_set, cnt, ghost_subset, res);
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, gn * 20, what, (void **)&gw));
  if (!gsub) MISPC_TRY(mispc_scratch_list_alloc(ctx, b, gn, what, (void **)&gsub));
  c.gsub = gsub;
  c.gT = (uint64_t *)gw;
  c.gM = c.gT + gn;
  c.gC = (uint32_t *)(c.gM + gn);
  /* the ghosts' subset flags, once (every ghost is in without a subset) */
  if (subset)
    MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, subset, gsub, 1));
  else if (ng > 0)
    MISPC_CUDA_TRY(ctx, cudaMemsetAsync(gsub, 1, (size_t)ng, s));
  int iter = 0;
  MISPC_TRY(with_lanes(lanes(ctx, g->diag.nnz + g->offd.nnz, nloc), [&](auto l) {
    return rounds<decltype(l)::value>(ctx, g, s, c, max_rounds, cnt, &iter);
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
  mispc_status s = cover(ctx, g, opt, subset, in_set, res, ghost_subset, &b);
  if (s) { /* queued work may still use the scratch */
    cudaStream_t st;
    if (mispc_stream(ctx, &st) == MISPC_SUCCESS) cudaStreamSynchronize(st);
  }
  mispc_scratch_list_free(ctx, &b);
  return mispc_dist_agree(ctx, g->comm, s);
}
