/* Distributed MIS-2 with the coverage priority on the GPU: the kernels of
 * mis2_cover_kernels.cuh over a rank's rows, the ghosts' words refreshed by
 * the device halo exchange after each step, as mis2_cover_dist.c does on
 * the host (the "IN in N[v]" flags, T after the OUT marking, c1, T after the
 * tuples, M, T after the decide: six a round), and the undecided count
 * summed over the ranks each round. Tuples hold global ids and the global
 * vertex count's bit split: the one-process set and rounds.
 *
 * Each step runs twice: on the boundary vertices (sent to another rank or
 * with ghosts) on a high-priority stream, whose exchange then starts there,
 * and on the interior vertices on the context's stream, while the exchange
 * runs (the interior reads no ghost and sends nothing). Within a step the
 * two halves write only their own vertices' words of an array the step does
 * not read from neighbours, and each half waits for both halves of the step
 * before, so the words are the one-stream words. */
#include <thrust/iterator/counting_iterator.h>

#include <cub/device/device_partition.cuh>

#include "dist_cuda.cuh"
#include "mis2_cover_kernels.cuh"
#include "mis_dist_backend.h"

using namespace mis2_cover;

namespace {

/* The two classes' views of the rows (B: boundary, I: interior), the comm
 * stream and the events that order the halves. */
struct Halves {
  Cover B, I;
  unsigned gridB, gridI;
  cudaStream_t cs;
  cudaEvent_t evB, evI;
};

enum Step { kNear, kMarkOut, kCount1, kTuples, kColumn, kDecide };

template <int L>
void launch(Step k, const Cover &c, unsigned grid, cudaStream_t s, int r, unsigned long long *cnt) {
  switch (k) {
  case kNear:
    near_set<L><<<grid, kBlock, 0, s>>>(c);
    break;
  case kMarkOut:
    mark_out<L><<<grid, kBlock, 0, s>>>(c);
    break;
  case kCount1:
    count1<L><<<grid, kBlock, 0, s>>>(c, r);
    break;
  case kTuples:
    tuples<L><<<grid, kBlock, 0, s>>>(c, r);
    break;
  case kColumn:
    column<L><<<grid, kBlock, 0, s>>>(c);
    break;
  case kDecide:
    decide<L><<<grid, kBlock, 0, s>>>(c, r, cnt);
    break;
  }
}

/* Step k of round r: the boundary half on the comm stream after the
 * interior half of the step before, then the exchange of the step's words
 * (owned, ghost; size bytes) there; the interior half on stream s after the
 * boundary half. */
template <int L>
mispc_status step(mispc_context *ctx, mispc_halo *h, cudaStream_t s, const Halves &x, Step k, int r,
                  unsigned long long *cnt, const void *owned, void *ghost, size_t size) {
  MISPC_CUDA_TRY(ctx, cudaStreamWaitEvent(x.cs, x.evI, 0));
  launch<L>(k, x.B, x.gridB, x.cs, r, cnt);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_CUDA_TRY(ctx, cudaEventRecord(x.evB, x.cs));
  MISPC_TRY(mispc_halo_exchange_device_on(ctx, h, owned, ghost, size, x.cs));
  MISPC_CUDA_TRY(ctx, cudaStreamWaitEvent(s, x.evB, 0));
  launch<L>(k, x.I, x.gridI, s, r, cnt);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_CUDA_TRY(ctx, cudaEventRecord(x.evI, s));
  return MISPC_SUCCESS;
}

/* The rounds with groups of L lanes a vertex (after the buffers of the
 * halves are set; all: every owned vertex, no list); *iter the rounds run. */
template <int L>
mispc_status rounds(mispc_context *ctx, const mispc_dist_csr *g, cudaStream_t s, const Cover &all,
                    Halves &x, int max_rounds, unsigned long long *cnt, int *iter) {
  mispc_halo *h = g->halo;
  x.gridB = mispc_device_grid(ctx, x.B.n * L, kBlock);
  x.gridI = mispc_device_grid(ctx, x.I.n * L, kBlock);
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(cnt, 0, 16, s));
  init<L><<<mispc_device_grid(ctx, all.n * L, kBlock), kBlock, 0, s>>>(all, cnt);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_TRY(mispc_halo_exchange_device(ctx, h, all.T, all.gT, 8));
  int64_t left = 0;
  MISPC_TRY(dist_global_count(ctx, g, s, cnt, &left));
  MISPC_CUDA_TRY(ctx, cudaEventRecord(x.evI, s));
  for (*iter = 0; left > 0; ++*iter) {
    const int r = *iter;
    if (r >= max_rounds)
      return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_dist_mis2: %lld vertices undecided after %d rounds",
                          (long long)left, r);
    if (r > 0) {
      MISPC_TRY(step<L>(ctx, h, s, x, kNear, r, cnt, all.C, all.gC, 4));
      MISPC_TRY(step<L>(ctx, h, s, x, kMarkOut, r, cnt, all.T, all.gT, 8));
    }
    MISPC_TRY(step<L>(ctx, h, s, x, kCount1, r, cnt, all.C, all.gC, 4));
    MISPC_TRY(step<L>(ctx, h, s, x, kTuples, r, cnt, all.T, all.gT, 8));
    MISPC_TRY(step<L>(ctx, h, s, x, kColumn, r, cnt, all.M, all.gM, 8));
    MISPC_TRY(step<L>(ctx, h, s, x, kDecide, r, cnt, all.T, all.gT, 8));
    /* the count after both halves, the ghosts after the last exchange */
    MISPC_CUDA_TRY(ctx, cudaEventRecord(x.evB, x.cs));
    MISPC_CUDA_TRY(ctx, cudaStreamWaitEvent(s, x.evB, 0));
    MISPC_TRY(dist_global_count(ctx, g, s, cnt, &left));
    MISPC_CUDA_TRY(ctx, cudaEventRecord(x.evI, s));
    mispc_logf(ctx, 2, "dist mis2 (cover, device) round %d: %lld undecided", r + 1,
               (long long)left);
  }
  return MISPC_SUCCESS;
}

/* flag[v] = 1 where v's row has ghosts, then where v is sent */
__global__ void mark_ghost_rows(int64_t n, const int64_t *brp, uint8_t *flag) {
  FOR_VERTEX(v, n) flag[v] = brp[v + 1] > brp[v];
}
__global__ void mark_sent(int64_t n, const int32_t *sidx, uint8_t *flag) {
  FOR_VERTEX(k, n) flag[sidx[k]] = 1;
}

/* list[0, *nb): the boundary vertices (a ghost in the row, or sent), in
 * increasing order; list[*nb, nloc): the interior ones. */
mispc_status classes(mispc_context *ctx, const mispc_dist_csr *g, cudaStream_t s,
                     mispc_scratch_list *b, int32_t *list, int64_t *nb) {
  const int64_t nloc = g->rend - g->rstart;
  *nb = 0;
  if (nloc == 0) return MISPC_SUCCESS;
  const int32_t *sidx = NULL;
  MISPC_TRY(mispc_halo_device_send_list(ctx, g->halo, &sidx));
  uint8_t *flag = NULL;
  int32_t *d_nb = NULL;
  const char *what = "distributed MIS-2 (cover) classes";
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, (size_t)nloc, what, (void **)&flag));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, 8, what, (void **)&d_nb));
  mark_ghost_rows<<<mispc_device_grid(ctx, nloc, DIST_BLOCK), DIST_BLOCK, 0, s>>>(
      nloc, g->offd.rowptr, flag);
  if (g->halo->nsend > 0)
    mark_sent<<<mispc_device_grid(ctx, g->halo->nsend, DIST_BLOCK), DIST_BLOCK, 0, s>>>(
        g->halo->nsend, sidx, flag);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  thrust::counting_iterator<int32_t> ids(0);
  size_t bytes = 0;
  MISPC_CUDA_TRY(
      ctx, cub::DevicePartition::Flagged(NULL, bytes, ids, flag, list, d_nb, (int32_t)nloc, s));
  void *tmp = NULL;
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, bytes + 16, what, &tmp));
  MISPC_CUDA_TRY(
      ctx, cub::DevicePartition::Flagged(tmp, bytes, ids, flag, list, d_nb, (int32_t)nloc, s));
  int32_t h_nb = 0;
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(&h_nb, d_nb, 4, cudaMemcpyDeviceToHost, s));
  MISPC_TRY(mispc_sync(ctx, s, "distributed MIS-2 (cover) classes"));
  *nb = h_nb;
  return MISPC_SUCCESS;
}

mispc_status cover(mispc_context *ctx, const mispc_dist_csr *g, const mispc_mis_options *opt,
                   const uint8_t *subset, uint8_t *in_set, mispc_mis_result *res,
                   uint8_t *ghost_subset, mispc_scratch_list *b, Halves *x) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  const size_t nl = (size_t)nloc + 1, gn = (size_t)ng + 1;
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  int least = 0, greatest = 0;
  MISPC_CUDA_TRY(ctx, cudaDeviceGetStreamPriorityRange(&least, &greatest));
  MISPC_CUDA_TRY(ctx, cudaStreamCreateWithPriority(&x->cs, cudaStreamNonBlocking, greatest));
  MISPC_CUDA_TRY(ctx, cudaEventCreateWithFlags(&x->evB, cudaEventDisableTiming));
  MISPC_CUDA_TRY(ctx, cudaEventCreateWithFlags(&x->evI, cudaEventDisableTiming));
  const char *what = "distributed MIS-2 (cover) scratch";
  char *w = NULL, *gw = NULL;
  int32_t *list = NULL;
  unsigned long long *cnt = NULL;
  uint8_t *gsub = ghost_subset;
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, nl * 20, what, (void **)&w));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, gn * 20, what, (void **)&gw));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, nl * 4, what, (void **)&list));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, 16, what, (void **)&cnt));
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
  int64_t nb = 0;
  MISPC_TRY(classes(ctx, g, s, b, list, &nb));
  x->B = x->I = c;
  x->B.list = list;
  x->B.n = nb;
  x->I.list = list + nb;
  x->I.n = nloc - nb;
  /* the ghosts' subset flags, once (every ghost is in without a subset) */
  if (subset)
    MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, subset, gsub, 1));
  else if (ng > 0)
    MISPC_CUDA_TRY(ctx, cudaMemsetAsync(gsub, 1, (size_t)ng, s));
  int iter = 0;
  MISPC_TRY(with_lanes(lanes(ctx, g->diag.nnz + g->offd.nnz, nloc), [&](auto l) {
    return rounds<decltype(l)::value>(ctx, g, s, c, *x, max_rounds, cnt, &iter);
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
  Halves x = {};
  mispc_status s = cover(ctx, g, opt, subset, in_set, res, ghost_subset, &b, &x);
  /* queued work may still use the scratch (after a failure) and the comm
   * stream's last exchange must be done before the stream goes */
  if (x.cs) cudaStreamSynchronize(x.cs);
  cudaStream_t st;
  if (s && mispc_stream(ctx, &st) == MISPC_SUCCESS) cudaStreamSynchronize(st);
  mispc_scratch_list_free(ctx, &b);
  if (x.evB) cudaEventDestroy(x.evB);
  if (x.evI) cudaEventDestroy(x.evI);
  if (x.cs) cudaStreamDestroy(x.cs);
  return mispc_dist_agree(ctx, g->comm, s);
}
