/* Distributed MIS-2 on the GPU: the two-phase rounds of mis2_dist.c
 * (papers/KokkosKernels-MIS2-aggregation-clusterGS-2022.txt Alg. 1 over the
 * ghost layer) with the one-process kernels' habits (mis2_cuda.cu, §V):
 * words of 32 bits when the global ids leave room for the hash, worklists
 * the kernels compact while they run (column: vertices whose M is not OUT;
 * decide: undecided vertices), four gathers in flight a thread, a warp a
 * vertex when rows average 16 entries or more, and no host wait inside a
 * round: the ghosts get the owners' T words themselves (no state byte to
 * re-hash), and the termination count of round r is summed on the device
 * (NCCL) and read by the host while round r + 1 runs. A round queued after
 * the last one changes nothing (no undecided vertex is left to decide).
 *
 * Communication is hidden behind the interior: boundary vertices (ghost
 * columns, or sent to a rank) have their own worklists and run with the
 * exchanges between them on a stream of the highest priority; interior
 * vertices need no ghost word and run on the context's stream while the M
 * and T words travel (events order the two where one reads what the other
 * writes, below).
 * Every kernel reads only words written before its launch, so the set and
 * the rounds equal the host's (and one process's) bit for bit. */
#include <string.h>

#include "dist_lsa.cuh"
#include "mis2_dist_kernels.cuh"
#include "mis_dist_backend.h"

namespace {

using namespace mis2_dist;

/* Column and decide of class c, round r (from device memory when the round
 * is a replayed graph). */
template <typename W, bool Warp>
__global__ void __launch_bounds__(DIST_BLOCK) column(Plan<W> p, int r_arg, int c) {
  __shared__ Smem sm;
  column_pass<W, Warp>(p, p.round ? *p.round : r_arg, c, sm);
}

template <typename W, bool Warp>
__global__ void __launch_bounds__(DIST_BLOCK) decide(Plan<W> p, int r_arg, int c) {
  __shared__ Smem sm;
  decide_pass<W, Warp>(p, p.round ? *p.round : r_arg, c, sm);
}

/* cls[v] = kBoundary for the vertices the ranks send (set before), and
 * those with ghost columns; T and M of round 0; own = subset flag (for the
 * ghosts' copy); aux[0] counts the subset, aux[1] the boundary vertices. */
template <typename W> __global__ void init(Plan<W> p, uint8_t *cls, uint8_t *own, unsigned *aux) {
  unsigned inside_n = 0, boundary_n = 0;
  FOR_VERTEX(v, p.g.nloc) {
    const int inside = !p.subset || p.subset[v];
    p.T[v] =
        inside ? (W)mis2_tuple(p.per_round, p.seed, 0, p.g.rstart + v, p.idbits, 8 * (int)sizeof(W))
               : w_out<W>();
    p.M[v] = inside ? w_in<W>() : w_out<W>(); /* IN here: anything but OUT */
    own[v] = (uint8_t)inside;
    const int b = cls[v] == kBoundary || p.g.brp[v + 1] > p.g.brp[v];
    cls[v] = b ? kBoundary : kInterior;
    if (p.heavy.chunk) { /* hub rows, tagged with their class */
      const int64_t len = p.g.arp[v + 1] - p.g.arp[v] + p.g.brp[v + 1] - p.g.brp[v];
      if (mis_cuda::heavy_row(p.heavy, len))
        mis_cuda::heavy_register(p.heavy, (int32_t)v, len, b ? kBoundary : kInterior);
    }
    inside_n += inside;
    boundary_n += b;
  }
  mispc_block_add<DIST_BLOCK>(inside_n, aux);
  mispc_block_add<DIST_BLOCK>(boundary_n, aux + 1);
}

__global__ void mark_sent(int64_t n, const int32_t *sidx, uint8_t *cls) {
  FOR_VERTEX(k, n) cls[sidx[k]] = kBoundary;
}

/* Round 0's worklists of the host-driven rounds: the subset's vertices by
 * class (the rounds in one kernel need none: Plan::all0). */
struct FirstSmem {
  int32_t slots[2][kWarps][kListSlots];
  unsigned counts[kWarps + 1];
};
template <typename W> __global__ void first_lists(Plan<W> p, const uint8_t *cls) {
  __shared__ FirstSmem sm;
  List out_b(sm.slots[0][threadIdx.x >> 5], p.col[kBoundary][0], p.len + kBoundary);
  List out_i(sm.slots[1][threadIdx.x >> 5], p.col[kInterior][0], p.len + kInterior);
  const int64_t n = p.g.nloc;
  for (int64_t step = Steps<false>::first(); step < n; step += Steps<false>::stride()) {
    const int64_t v = step + Steps<false>::slot();
    const bool inside = v < n && (!p.subset || p.subset[v]);
    const bool b = inside && cls[v] == kBoundary;
    out_b.push(b, (int32_t)v);
    out_i.push(inside && !b, (int32_t)v);
  }
  out_b.finish<kWarps>(sm.counts);
  out_i.finish<kWarps>(sm.counts);
}

/* A replayed round's end: its undecided count into *slot, the round on. */
__global__ void round_advance(const unsigned *len, int *round, unsigned *slot) {
  const int r = *round;
  *slot = len[4 * (r + 1) + 2] + len[4 * (r + 1) + 3];
  *round = r + 1;
}

template <typename W> __global__ void members(Plan<W> p, uint8_t *in_set, unsigned *count) {
  unsigned mine = 0;
  FOR_VERTEX(v, p.g.nloc) {
    const int in = p.T[v] == w_in<W>();
    in_set[v] = (uint8_t)in;
    mine += in;
  }
  mispc_block_add<DIST_BLOCK>(mine, count);
}

typedef mispc_scratch_list dev_buffers;

/* Pinned host words and device words of the round counts; the comm stream
 * and the events that order it against the context's stream. */
struct Sync {
  unsigned long long *h, *d;
  cudaEvent_t ev[2];          /* round r's count copied (host waits) */
  cudaEvent_t col[2], dec[2]; /* column / decide of a class done */
  cudaEvent_t fork;           /* a captured round's start */
  cudaStream_t comm;          /* boundary kernels and exchanges, high priority */
  cudaGraphExec_t exec[2];    /* captured rounds of even / odd r */
  /* -vv, host-driven rounds without graphs: timing events on the comm
   * stream a round (round start, column_B, M exchange, decide_B and T
   * exchange done: round_trace_log) */
  cudaEvent_t (*trace)[5];
  int ntrace;
};

/* The comm stream and the events of the host-driven rounds (the one-kernel
 * rounds need neither: made only where those rounds run). */
mispc_status sync_make(mispc_context *ctx, Sync *y) {
  cudaEvent_t *evs[7] = {&y->ev[0],  &y->ev[1],  &y->col[0], &y->col[1],
                         &y->dec[0], &y->dec[1], &y->fork};
  for (int k = 0; k < 7; ++k)
    if (cudaEventCreateWithFlags(evs[k], cudaEventDisableTiming) != cudaSuccess)
      return mispc_seterr(ctx, MISPC_ERR_CUDA, "cudaEventCreate failed");
  int least = 0, greatest = 0;
  if (cudaDeviceGetStreamPriorityRange(&least, &greatest) != cudaSuccess ||
      cudaStreamCreateWithPriority(&y->comm, cudaStreamNonBlocking, greatest) != cudaSuccess)
    return mispc_seterr(ctx, MISPC_ERR_CUDA, "cudaStreamCreateWithPriority failed");
  return MISPC_SUCCESS;
}

void sync_free(Sync *y) {
  if (y->comm) cudaStreamDestroy(y->comm);
  cudaEvent_t evs[7] = {y->ev[0], y->ev[1], y->col[0], y->col[1], y->dec[0], y->dec[1], y->fork};
  for (int k = 0; k < 7; ++k)
    if (evs[k]) cudaEventDestroy(evs[k]);
  for (int k = 0; k < 2; ++k)
    if (y->exec[k]) cudaGraphExecDestroy(y->exec[k]);
  for (int r = 0; y->trace && r < kTraceRounds; ++r) /* a failed make leaves a row part made */
    for (int k = 0; k < 5; ++k)
      if (y->trace[r][k]) cudaEventDestroy(y->trace[r][k]);
  free(y->trace);
}

/* -vv: timing events for the first kTraceRounds host-driven rounds. */
mispc_status round_trace_make(mispc_context *ctx, Sync *y) {
  y->trace = (cudaEvent_t(*)[5])calloc(kTraceRounds, sizeof *y->trace);
  if (!y->trace) return mispc_seterr(ctx, MISPC_ERR_ALLOC, "round trace events");
  for (; y->ntrace < kTraceRounds; ++y->ntrace)
    for (int k = 0; k < 5; ++k) MISPC_CUDA_TRY(ctx, cudaEventCreate(&y->trace[y->ntrace][k]));
  return MISPC_SUCCESS;
}

void round_stamp(const Sync *y, int r, int k, cudaStream_t s) {
  if (r < y->ntrace) cudaEventRecord(y->trace[r][k], s);
}

/* Where a host-driven round's time goes on the comm stream (the boundary
 * passes and the exchanges; an exchange's time holds the wait for the
 * other ranks), after the call's last wait. us. */
void round_trace_log(mispc_context *ctx, const Sync *y, int rounds) {
  double sum[5] = {0, 0, 0, 0, 0};
  for (int r = 0; r < rounds && r < y->ntrace; ++r) {
    float ms[5] = {0, 0, 0, 0, 0};
    for (int k = 0; k < 4; ++k) cudaEventElapsedTime(&ms[k], y->trace[r][k], y->trace[r][k + 1]);
    if (r + 1 < rounds && r + 1 < y->ntrace)
      cudaEventElapsedTime(&ms[4], y->trace[r][4], y->trace[r + 1][0]);
    mispc_logf(ctx, 2,
               "  round %d: column_B %.1f, M exchange %.1f, decide_B %.1f, T exchange %.1f, "
               "to the next round %.1f us",
               r, 1e3 * ms[0], 1e3 * ms[1], 1e3 * ms[2], 1e3 * ms[3], 1e3 * ms[4]);
    for (int k = 0; k < 5; ++k) sum[k] += 1e3 * ms[k];
  }
  mispc_logf(ctx, 2,
             "dist mis2 (device) rounds' trace, summed: column_B %.1f, M exchanges %.1f, "
             "decide_B %.1f, T exchanges %.1f, between rounds %.1f us",
             sum[0], sum[1], sum[2], sum[3], sum[4]);
}

/* Queues column or decide of class c, round r, on stream s. */
template <typename W>
mispc_status launch(mispc_context *ctx, bool warp, bool is_column, const Plan<W> &p, int r, int c,
                    const unsigned grid[2], cudaStream_t s) {
  const unsigned gr = grid[c];
  if (gr == 0) return MISPC_SUCCESS; /* no vertex of the class (and so no hub chunk) */
  if (is_column) {
    if (warp)
      column<W, true><<<gr, DIST_BLOCK, 0, s>>>(p, r, c);
    else
      column<W, false><<<gr, DIST_BLOCK, 0, s>>>(p, r, c);
  } else {
    if (warp)
      decide<W, true><<<gr, DIST_BLOCK, 0, s>>>(p, r, c);
    else
      decide<W, false><<<gr, DIST_BLOCK, 0, s>>>(p, r, c);
  }
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  return MISPC_SUCCESS;
}

/* What a round needs besides the plan. */
struct Round {
  mispc_context *ctx;
  mispc_halo *h;
  cudaStream_t st, cs;
  Sync *y;
  bool warp;
  size_t ws;
  unsigned grids[2]; /* 0: the class is empty (no launch) */
  unsigned *slots;   /* [2]: the counts of a captured round of each parity */
};

/* Queues round r (k < 0) or the round of parity k to capture (the kernels
 * read the round from p.round). Order (C: the comm stream, boundary; S: the
 * context's stream, interior; [x]: waits for x):
 *   C: [decide_I of r - 1] column_B -> M exchange -> [column_I] decide_B
 *      -> [decide_I] T exchange with the count's sum (one NCCL group)
 *   S: [decide_B of r - 1] column_I -> [column_B] decide_I
 * column_B reads T of interior neighbours and overwrites M that decide_I
 * read; column_I reads T of boundary neighbours and overwrites M that
 * decide_B read. A captured round forks S from C instead (graph launches on
 * C follow each other whole). */
template <typename W> mispc_status enqueue_round(const Round &x, const Plan<W> &p, int r, int k) {
  mispc_context *ctx = x.ctx;
  const cudaStream_t st = x.st, cs = x.cs;
  Sync *y = x.y;
  if (k >= 0) {
    MISPC_CUDA_TRY(ctx, cudaEventRecord(y->fork, cs));
    MISPC_CUDA_TRY(ctx, cudaStreamWaitEvent(st, y->fork, 0));
  } else {
    MISPC_CUDA_TRY(ctx, cudaStreamWaitEvent(cs, y->dec[kInterior], 0));
    round_stamp(y, r, 0, cs);
  }
  MISPC_TRY(launch(ctx, x.warp, true, p, r, kBoundary, x.grids, cs));
  MISPC_CUDA_TRY(ctx, cudaEventRecord(y->col[kBoundary], cs));
  if (k < 0) round_stamp(y, r, 1, cs);
  MISPC_TRY(mispc_halo_exchange_device_on(ctx, x.h, p.M, p.gM, x.ws, cs));
  if (k < 0) round_stamp(y, r, 2, cs);
  if (k < 0 && r > 0) MISPC_CUDA_TRY(ctx, cudaStreamWaitEvent(st, y->dec[kBoundary], 0));
  MISPC_TRY(launch(ctx, x.warp, true, p, r, kInterior, x.grids, st));
  MISPC_CUDA_TRY(ctx, cudaEventRecord(y->col[kInterior], st));
  MISPC_CUDA_TRY(ctx, cudaStreamWaitEvent(st, y->col[kBoundary], 0));
  MISPC_TRY(launch(ctx, x.warp, false, p, r, kInterior, x.grids, st));
  MISPC_CUDA_TRY(ctx, cudaEventRecord(y->dec[kInterior], st));
  MISPC_CUDA_TRY(ctx, cudaStreamWaitEvent(cs, y->col[kInterior], 0));
  MISPC_TRY(launch(ctx, x.warp, false, p, r, kBoundary, x.grids, cs));
  MISPC_CUDA_TRY(ctx, cudaEventRecord(y->dec[kBoundary], cs));
  MISPC_CUDA_TRY(ctx, cudaStreamWaitEvent(cs, y->dec[kInterior], 0));
  if (k < 0) {
    round_stamp(y, r, 3, cs);
    MISPC_TRY(mispc_halo_exchange_count_device(ctx, x.h, p.T, p.gT, x.ws, p.len + 4 * (r + 1) + 2,
                                               2, y->d + r + 1, y->h + r + 1, cs));
    round_stamp(y, r, 4, cs);
    return MISPC_SUCCESS;
  }
  round_advance<<<1, 1, 0, cs>>>(p.len, (int *)p.round, x.slots + k);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  return mispc_halo_exchange_count_device(ctx, x.h, p.T, p.gT, x.ws, x.slots + k, 1, y->d + k,
                                          y->h + k, cs);
}

/* Captures the round of parity k into y->exec[k] (the halo's counters are
 * left as they were: each replay adds its two exchanges). */
template <typename W> mispc_status capture(const Round &x, const Plan<W> &p, int k) {
  mispc_context *ctx = x.ctx;
  const mispc_dist_stats saved = x.h->stats;
  cudaGraph_t gr = NULL;
  MISPC_CUDA_TRY(ctx, cudaStreamBeginCapture(x.cs, cudaStreamCaptureModeRelaxed));
  mispc_status s = enqueue_round(x, p, 0, k);
  const cudaError_t e = cudaStreamEndCapture(x.cs, &gr);
  x.h->stats = saved;
  if (!s && e != cudaSuccess)
    s = mispc_seterr(ctx, MISPC_ERR_CUDA, "capturing a distributed MIS-2 round: %s",
                     cudaGetErrorString(e));
  if (!s && cudaGraphInstantiate(&x.y->exec[k], gr, 0) != cudaSuccess)
    s = mispc_seterr(ctx, MISPC_ERR_CUDA, "cudaGraphInstantiate of a distributed MIS-2 round");
  if (gr) cudaGraphDestroy(gr);
  return s;
}

/* -vv: the one-kernel rounds' trace (mis2_dist_kernels.cuh, kTraceSlots) as
 * a line a round on rank 0: each pass's time (from the latest block's exit
 * of the exchange before to the latest block's arrival at the next) and each
 * exchange's (the latest arrival to the latest exit), us. */
static double trace_us(const unsigned long long *t, int a, int b) {
  return t[a] && t[b] ? 1e-3 * (double)(t[b] - t[a]) : -1.0;
}

static mispc_status lsa_trace_log(mispc_context *ctx, const unsigned long long *d_trace,
                                  int rounds) {
  unsigned long long t[kTraceSlots];
  MISPC_TRY(mispc_memcpy(ctx, t, MISPC_MEM_HOST, d_trace, MISPC_MEM_DEVICE, sizeof t));
  mispc_logf(ctx, 2, "dist mis2 one-kernel trace: first words %.1f, exchange %.1f us",
             trace_us(t, 0, 1), trace_us(t, 1, 2));
  int last = 2; /* the slot of the latest exit */
  for (int r = 0; r <= rounds && r < kTraceRounds; ++r) {
    const int c = 3 + 4 * r, d = 5 + 4 * r;
    if (!t[c]) break;
    if (t[d])
      mispc_logf(ctx, 2,
                 "  round %d: column pass %.1f, exchange %.1f; decide pass %.1f, exchange %.1f us",
                 r, trace_us(t, last, c), trace_us(t, c, c + 1), trace_us(t, c + 1, d),
                 trace_us(t, d, d + 1));
    else
      mispc_logf(ctx, 2, "  round %d: column pass %.1f, exchange %.1f us (the last)", r,
                 trace_us(t, last, c), trace_us(t, c, c + 1));
    last = t[d] ? d + 1 : c + 1;
  }
  mispc_logf(ctx, 2, "  members: pass %.1f, exchange %.1f us; whole kernel %.1f us",
             trace_us(t, last, kTraceSlots - 2), trace_us(t, kTraceSlots - 2, kTraceSlots - 1),
             trace_us(t, 0, kTraceSlots - 1));
  return MISPC_SUCCESS;
}

/* The halo statistics of a call of `rounds` rounds in one kernel: a round's
 * two exchanges store the words the passes wrote, not every boundary
 * vertex; counted as the host-driven rounds count theirs. */
void account(mispc_halo *h, int rounds, size_t ws) {
  h->stats.exchanges += 2 * rounds + 1;
  h->stats.bytes_sent += (2 * rounds + 1) * h->nsend * (int64_t)ws;
}

/* The rounds in one kernel (lsa_rounds, after init): the kernel, then its
 * two words (set size, rounds) in the call's one wait; or, with d_rounds
 * (mispc_dist_mis2_extra) and no trace, the kernel and a copy of its round
 * word to *d_rounds, queued, with no wait (*queued = 1). */
template <typename W>
mispc_status lsa_call(mispc_context *ctx, const mispc_dist_csr *g, Plan<W> &p,
                      const mispc_halo_lsa *lsa, int blocks, bool warp, int32_t *lists, size_t nl,
                      const uint8_t *cls, const uint8_t *own, unsigned *aux, uint8_t *in_set,
                      int max_rounds, mispc_mis_result *res, Sync *y, cudaStream_t st,
                      unsigned long long *d_rounds, int *queued) {
  mispc_halo *h = g->halo;
  for (int k = 0; k < 2; ++k) { /* every list vertex in the boundary lists; p.cls tells the class */
    p.col[kBoundary][k] = p.col[kInterior][k] = lists + k * nl;
    p.dec[kBoundary][k] = p.dec[kInterior][k] = lists + (2 + k) * nl;
  }
  p.cls = cls;
  /* Round 0 runs every vertex of the subset from its id (Plan::all0: no
   * list, so one launch and one dependent load less a pass) */
  p.all0 = 1;
  /* -vv: where a round's time goes (lsa_trace_log) */
  unsigned long long *trace = NULL;
  if (ctx->verbosity >= 2) {
    MISPC_TRY(mispc_malloc(ctx, MISPC_MEM_DEVICE, 8 * kTraceSlots, (void **)&trace));
    MISPC_CUDA_TRY(ctx, cudaMemsetAsync(trace, 0, 8 * kTraceSlots, st));
  }
  /* aux[6..7]: the member count (zeroed with the lengths) */
  mispc_status s = lsa_rounds<W>(ctx, p, lsa, blocks, warp, own, aux, in_set, max_rounds,
                                 (unsigned long long *)(aux + 6), y->d, trace, st);
  if (d_rounds && !trace) { /* queued: the caller reads the round word later */
    if (!s && cudaMemcpyAsync(d_rounds, y->d + 1, 8, cudaMemcpyDeviceToDevice, st) != cudaSuccess)
      s = mispc_seterr(ctx, MISPC_ERR_CUDA, "distributed MIS-2: copy of the round count");
    res->set_size = -1;
    res->rounds = -1;
    *queued = !s;
    return s;
  }
  if (!s && cudaMemcpyAsync(y->h, y->d, 16, cudaMemcpyDeviceToHost, st) != cudaSuccess)
    s = mispc_seterr(ctx, MISPC_ERR_CUDA, "distributed MIS-2: copy of the result");
  if (!s) s = mispc_sync(ctx, st, "distributed MIS-2 (one kernel)");
  if (trace) {
    if (!s) s = lsa_trace_log(ctx, trace, (int)(long long)y->h[1]);
    mispc_free(ctx, MISPC_MEM_DEVICE, trace);
  }
  MISPC_TRY(s);
  const int rounds = (int)(long long)y->h[1]; /* the same on every rank: all sum the same counts */
  if (rounds < 0)
    return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                        "mispc_dist_mis2: vertices undecided after %d rounds", max_rounds);
  account(h, rounds, sizeof(W));
  mispc_logf(ctx, 2, "dist mis2 (device, one kernel of %d blocks): %d rounds", blocks, rounds);
  res->set_size = (int64_t)y->h[0];
  res->rounds = rounds;
  return MISPC_SUCCESS;
}

template <typename W>
mispc_status rounds(mispc_context *ctx, const mispc_dist_csr *g, const mispc_mis_options *opt,
                    int per_round, const uint8_t *subset, uint8_t *in_set, mispc_mis_result *res,
                    dev_buffers *b, Sync *y, mispc_dist_mis2_extra *ex) {
  uint8_t *ghost_subset = ex ? ex->ghost_subset : NULL;
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  mispc_halo *h = g->halo;
  cudaStream_t st;
  MISPC_TRY(mispc_stream(ctx, &st));
  double t0 = mispc_wtime(); /* -vv: the setup's time (mispc_log_phase) */
  Plan<W> p;
  memset(&p, 0, sizeof p);
  MISPC_TRY(dist_device_view(ctx, g, &p.g));
  p.subset = subset;
  p.per_round = per_round;
  p.seed = opt->seed;
  p.idbits = mis2_id_bits(g->nglobal);
  const size_t nl = (size_t)nloc + 1, gn = (size_t)ng + 1, nlen = 4 * (size_t)(max_rounds + 2);
  const mispc_tuning *tu = &ctx->tuning;
  /* All rounds in one kernel a rank where the GPUs reach each other's
   * memory (tuning dist_lsa_rounds; collective) */
  mispc_halo_lsa *lsa = NULL;
  int lsa_blocks = 0;
  if (dist_lsa_wanted(ctx, g)) {
    MISPC_TRY(mispc_halo_lsa_get(ctx, h, g->comm, nloc, &lsa));
    if (lsa) MISPC_TRY(lsa_grid<W>(ctx, g->comm, lsa, &lsa_blocks));
    if (lsa_blocks <= 0) lsa = NULL;
  }
  uint8_t *own = NULL, *gsub = NULL, *cls = NULL;
  int32_t *lists = NULL;
  unsigned *aux = NULL;
  const char *what = "distributed MIS-2 scratch";
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, nl * 2 * sizeof(W), what, (void **)&p.T));
  if (lsa)
    p.gT = (W *)lsa->base; /* the window's ghost arrays: the other ranks store into them */
  else
    MISPC_TRY(mispc_scratch_list_alloc(ctx, b, gn * 2 * sizeof(W), what, (void **)&p.gT));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, nl * 16, what, (void **)&lists));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, nl, what, (void **)&own));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, nl, what, (void **)&cls));
  if (lsa)
    gsub = (uint8_t *)lsa->base + lsa->sub_off;
  else
    MISPC_TRY(mispc_scratch_list_alloc(ctx, b, gn, what, (void **)&gsub));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, nlen * 4 + 32, what, (void **)&p.len));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, (size_t)(max_rounds + 3) * 8, what, (void **)&y->d));
  MISPC_TRY(mispc_pinned_scratch(ctx, (size_t)(max_rounds + 4) * 8, (void **)&y->h));
  aux = p.len + nlen; /* [0] subset size, [1] boundary size, [2] members, [3..4] the counts
                        of captured rounds, [5] their round number, [6..7] the member
                        count of the one kernel */
  p.M = p.T + nl;
  p.gM = lsa ? (W *)(lsa->base + lsa->ghost_bytes) : p.gT + gn;
  p.gsub = gsub;
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(p.len, 0, nlen * 4 + 32, st));
  /* boundary: sent or with ghosts (mark_sent, init); the interior vertices'
   * passes read no ghost row (and, in one kernel, store no copies) */
  if (nloc > 0) MISPC_CUDA_TRY(ctx, cudaMemsetAsync(cls, kInterior, (size_t)nloc, st));
  /* warp a vertex for long rows (§V-D), as the one-process kernels */
  const int64_t nnz = g->diag.nnz + g->offd.nnz;
  /* hub rows in chunks over the grid (mis_cuda.cuh), registered by init:
   * the host-driven rounds (the one-kernel rounds scan them whole) */
  mis_cuda::heavy_sizes(&p.heavy, tu->mis2_hub_row);
  const size_t hv = lsa ? 0 : mis_cuda::heavy_max_vertices(p.heavy, nnz);
  if (hv > 0) {
    const size_t hc = mis_cuda::heavy_max_chunks(p.heavy, nnz);
    char *hw = NULL;
    MISPC_TRY(mispc_scratch_list_alloc(ctx, b, 8 + hv * (sizeof(W) + 4), what, (void **)&hw));
    MISPC_TRY(mispc_scratch_list_alloc(ctx, b, hc * sizeof(mis_cuda::HeavyChunk), what,
                                       (void **)&p.heavy.chunk));
    p.heavy.count = (unsigned *)hw;
    p.heavy.acc = (W *)(hw + 8);
    p.heavy.arrived = (unsigned *)(p.heavy.acc + hv);
    MISPC_CUDA_TRY(ctx, cudaMemsetAsync(hw, 0, 8, st));
  }
  const bool warp =
      tu->mis_force_warp_mapping || (!tu->mis_no_warp_mapping && nloc > 0 && nnz >= 16 * nloc);
  const unsigned grid = mispc_device_grid(ctx, nloc, DIST_BLOCK);
  const size_t ws = sizeof(W);
  if (!lsa) MISPC_TRY(sync_make(ctx, y));
  const cudaStream_t cs = y->comm;
  if (h->nsend > 0) {
    const int32_t *sidx = NULL;
    MISPC_TRY(mispc_halo_device_send_list(ctx, h, &sidx));
    mark_sent<<<mispc_device_grid(ctx, h->nsend, DIST_BLOCK), DIST_BLOCK, 0, st>>>(h->nsend, sidx,
                                                                                   cls);
    MISPC_CUDA_LAUNCH_CHECK(ctx);
  }
  init<W><<<grid, DIST_BLOCK, 0, st>>>(p, cls, own, aux);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  if (lsa) {
    mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t0, "dist mis2 (one kernel): setup, init");
    mispc_status s =
        lsa_call<W>(ctx, g, p, lsa, lsa_blocks, warp, lists, nl, cls, own, aux, in_set, max_rounds,
                    res, y, st, ex ? ex->d_rounds : NULL, ex ? &ex->queued : NULL);
    /* the kernel stored the ghosts' subset flags into gsub (its window) */
    if (!s && ghost_subset && ng > 0 &&
        cudaMemcpyAsync(ghost_subset, gsub, (size_t)ng, cudaMemcpyDeviceToDevice, st) !=
            cudaSuccess)
      s = mispc_seterr(ctx, MISPC_ERR_CUDA, "distributed MIS-2: copy of the ghosts' subset");
    mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t0, "dist mis2 (one kernel): lists, rounds, result");
    return s;
  }
  MISPC_TRY(mispc_halo_exchange_device_on(ctx, h, own, gsub, 1, st));
  MISPC_TRY(mispc_halo_exchange_device_on(ctx, h, p.T, p.gT, ws, st));
  /* this rank's boundary size, and its hub chunks (the second word) */
  unsigned long long *h_nb = y->h + max_rounds + 3;
  *h_nb = 0;
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(h_nb, aux + 1, 4, cudaMemcpyDeviceToHost, st));
  if (p.heavy.chunk)
    MISPC_CUDA_TRY(
        ctx, cudaMemcpyAsync((unsigned *)h_nb + 1, p.heavy.count, 4, cudaMemcpyDeviceToHost, st));
  int64_t undecided = 0;
  MISPC_TRY(mispc_halo_count_start(ctx, h, aux, 1, y->d, y->h, st));
  MISPC_TRY(mispc_sync(ctx, st, "distributed MIS-2 start"));
  MISPC_TRY(mispc_halo_count_finish(ctx, h, g->comm, y->h, &undecided));
  const int64_t nb = (int64_t) * (const unsigned *)h_nb;
  const int64_t nchunks = (int64_t)((const unsigned *)h_nb)[1];
  /* the lists of a kind and parity: boundary class first, interior after */
  for (int k = 0; k < 2; ++k) {
    p.col[kBoundary][k] = lists + k * nl, p.col[kInterior][k] = lists + k * nl + nb;
    p.dec[kBoundary][k] = lists + (2 + k) * nl, p.dec[kInterior][k] = lists + (2 + k) * nl + nb;
  }
  /* The interior's blocks are short-lived (8 waves of them at most), so the
   * comm stream's blocks (higher priority) start as soon as they are ready
   * instead of after a whole-GPU grid; the boundary's are few. */
  int sms = 0, coop = 0;
  MISPC_TRY(mispc_device_caps(ctx, &sms, &coop));
  const int64_t ni = nloc - nb;
  /* Each class's passes walk every hub chunk (heavy_columns skips the other
   * class's by tag), so a class's grid is at least a warp a chunk (up to a
   * whole-GPU grid): a class of a few vertices beside many hubs had walked
   * them with a block or two (one rank's rounds, all interior, kron:22:
   * 60.8 ms against 12.0 with no launch for the empty class, docs/
   * DISTRIBUTED.md twentieth pass). An empty class has no chunk and
   * launches nothing. */
  const unsigned chunk_grid = nchunks > 0 ? mispc_device_grid(ctx, 32 * nchunks, DIST_BLOCK) : 0u;
  const unsigned vgrids[2] = {
      nb > 0 ? mispc_device_grid(ctx, warp ? 32 * nb : nb, DIST_BLOCK) : 0u,
      ni > 0 ? mispc_grid_for(warp ? 32 * ni : ni, DIST_BLOCK, 64u * (unsigned)(sms > 0 ? sms : 1))
             : 0u};
  const unsigned grids[2] = {vgrids[0] && chunk_grid > vgrids[0] ? chunk_grid : vgrids[0],
                             vgrids[1] && chunk_grid > vgrids[1] ? chunk_grid : vgrids[1]};
  first_lists<W><<<grid, DIST_BLOCK, 0, st>>>(p, cls);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  Round x = {ctx, h, st, cs, y, warp, ws, {grids[0], grids[1]}, aux + 3};
  /* Rounds as CUDA graphs (tuning dist_graph_rounds, NCCL only): one launch
   * a round instead of about twenty host calls. */
  const bool graph = tu->dist_graph_rounds && h->nccl;
  if (!graph && ctx->verbosity >= 2) MISPC_TRY(round_trace_make(ctx, y));
  Plan<W> pg = p;
  if (graph) {
    pg.round = (const int *)(aux + 5);
    MISPC_TRY(mispc_halo_nccl_follow(ctx, h, cs));
    MISPC_TRY(capture(x, pg, 0));
    MISPC_TRY(capture(x, pg, 1));
    MISPC_TRY(mispc_halo_nccl_mark(ctx, h, cs)); /* an event recorded outside the captures */
  }
  /* the setup done (recorded after the captures: an event recorded in a
   * capture cannot be waited for outside it) */
  MISPC_CUDA_TRY(ctx, cudaEventRecord(y->dec[kInterior], st));
  /* Round r is queued, then round r - 1's count read: the host stays a round
   * ahead of the GPU. rounds = the first r whose count after it is 0. */
  int done = undecided == 0 ? 0 : -1;
  for (int r = 0; done < 0; ++r) {
    if (r < max_rounds) {
      if (graph) {
        if (r == 0) MISPC_CUDA_TRY(ctx, cudaStreamWaitEvent(cs, y->dec[kInterior], 0));
        MISPC_CUDA_TRY(ctx, cudaGraphLaunch(y->exec[r & 1], cs));
        MISPC_TRY(mispc_halo_nccl_mark(ctx, h, cs));
        h->stats.exchanges += 2;
        h->stats.bytes_sent += 2 * h->nsend * (int64_t)ws;
      } else {
        MISPC_TRY(enqueue_round(x, p, r, -1));
      }
      MISPC_CUDA_TRY(ctx, cudaEventRecord(y->ev[r & 1], cs));
    }
    if (r >= 1) {
      MISPC_CUDA_TRY(ctx, cudaEventSynchronize(y->ev[(r - 1) & 1]));
      MISPC_TRY(mispc_halo_count_finish(ctx, h, g->comm, graph ? y->h + ((r - 1) & 1) : y->h + r,
                                        &undecided));
      mispc_logf(ctx, 2, "dist mis2 (device) round %d: %lld undecided", r, (long long)undecided);
      if (undecided == 0) done = r;
    }
    if (done < 0 && r >= max_rounds)
      return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_dist_mis2: %lld vertices undecided after %d rounds",
                          (long long)undecided, max_rounds);
  }
  /* the comm stream's last exchange before the members (and the frees) */
  MISPC_CUDA_TRY(ctx, cudaEventRecord(y->col[kBoundary], cs));
  MISPC_CUDA_TRY(ctx, cudaStreamWaitEvent(st, y->col[kBoundary], 0));
  members<W><<<grid, DIST_BLOCK, 0, st>>>(p, in_set, aux + 2);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  int64_t size = 0;
  MISPC_TRY(mispc_halo_count_start(ctx, h, aux + 2, 1, y->d, y->h, st));
  MISPC_TRY(mispc_sync(ctx, st, "distributed MIS-2 members"));
  MISPC_TRY(mispc_halo_count_finish(ctx, h, g->comm, y->h, &size));
  if (y->ntrace) round_trace_log(ctx, y, done);
  /* the ghosts' subset flags (gsub is only read by the rounds): copied after
   * the last collective, so that a failed copy cannot leave this rank out of
   * an exchange the others are in (the caller agrees the status) */
  if (ghost_subset && ng > 0 &&
      cudaMemcpyAsync(ghost_subset, gsub, (size_t)ng, cudaMemcpyDeviceToDevice, st) != cudaSuccess)
    return mispc_seterr(ctx, MISPC_ERR_CUDA, "distributed MIS-2: copy of the ghosts' subset");
  res->set_size = size;
  res->rounds = done;
  return MISPC_SUCCESS;
}

} // namespace

extern "C" mispc_status mispc_dist_mis2_cuda(mispc_context *ctx, const mispc_dist_csr *g,
                                             const mispc_mis_options *opt, int per_round,
                                             const uint8_t *subset, uint8_t *in_set,
                                             mispc_mis_result *res) {
  return mispc_dist_mis2_cuda_ex(ctx, g, opt, per_round, subset, in_set, res, NULL);
}

extern "C" mispc_status mispc_dist_mis2_cuda_ex(mispc_context *ctx, const mispc_dist_csr *g,
                                                const mispc_mis_options *opt, int per_round,
                                                const uint8_t *subset, uint8_t *in_set,
                                                mispc_mis_result *res, mispc_dist_mis2_extra *x) {
  dev_buffers b = {{0}, 0};
  Sync y;
  memset(&y, 0, sizeof y);
  if (x) x->queued = 0;
  mispc_status s = mis2_word_bits(mis2_id_bits(g->nglobal)) == 32
                       ? rounds<uint32_t>(ctx, g, opt, per_round, subset, in_set, res, &b, &y, x)
                       : rounds<uint64_t>(ctx, g, opt, per_round, subset, in_set, res, &b, &y, x);
  if (s) { /* queued work may still use the scratch: let it finish first */
    cudaStream_t st;
    if (y.comm) cudaStreamSynchronize(y.comm);
    if (mispc_stream(ctx, &st) == MISPC_SUCCESS) cudaStreamSynchronize(st);
  }
  double t = mispc_wtime();
  mispc_scratch_list_free(ctx, &b); /* stream-ordered: after a queued kernel too */
  sync_free(&y);
  s = mispc_dist_agree(ctx, g->comm, s);
  if (s && x) x->queued = 0;
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t, "dist mis2: frees, agreement");
  return s;
}

extern "C" void mispc_dist_mis2_account(const mispc_dist_csr *g, int rounds) {
  if (rounds >= 0 && g && g->halo)
    account(g->halo, rounds, mis2_word_bits(mis2_id_bits(g->nglobal)) / 8);
}
