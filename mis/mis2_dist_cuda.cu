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
 * Every kernel reads only words written before its launch, so the set and
 * the rounds equal the host's (and one process's) bit for bit. */
#include <string.h>

#include "dist_cuda.cuh"
#include "mis_common.h"
#include "mis_cuda.cuh"
#include "mis_dist_backend.h"

namespace {

using namespace mis_cuda; /* kWarps, List, ListSmem, Steps, w_in, w_out, row_min */
typedef ListSmem Smem;
static_assert(DIST_BLOCK == mis_cuda::kBlock, "the warp steps assume the MIS block size");

/* A run's arrays (kernel parameter: constant memory). len[2r] / len[2r+1]:
 * column / decide list lengths of round r (round 0 takes every vertex). */
template <typename W> struct Plan {
  dev_graph g;
  W *T, *M, *gT, *gM;
  const uint8_t *subset, *gsub;
  int per_round, idbits;
  uint64_t seed;
  int32_t *col[2], *dec[2];
  unsigned *len;
};

/* min over the owned row (T) and the ghost row (gT) of v, from lane's share. */
template <typename W, bool Warp>
__device__ __forceinline__ W closed_min(const Plan<W> &p, int64_t v, int lane, W m) {
  m = row_min<W, Warp>(p.g.acol, p.g.arp[v], p.g.arp[v + 1], p.T, lane, m);
  for (int64_t q = p.g.brp[v] + (Warp ? lane : 0); q < p.g.brp[v + 1]; q += Warp ? 32 : 1) {
    const W t = p.gT[p.g.bcol[q]];
    m = t < m ? t : m;
  }
  return m;
}

/* Column: M[v] = min T over N[v] (ghosts included); an IN minimum makes it
 * OUT for good. Vertices outside the subset start OUT. */
template <typename W, bool Warp>
__global__ void __launch_bounds__(DIST_BLOCK) column(Plan<W> p, int r) {
  __shared__ Smem sm;
  const unsigned *in_n = p.len + 2 * r;
  List out(sm.slots[threadIdx.x >> 5], p.col[(r + 1) & 1], p.len + 2 * (r + 1));
  const int lane = Warp ? (int)(threadIdx.x & 31) : 0;
  const int64_t n = r == 0 ? p.g.nloc : (int64_t)*in_n;
  for (int64_t step = Steps<Warp>::first(); step < n; step += Steps<Warp>::stride()) {
    const int64_t i = step + Steps<Warp>::slot();
    bool keep = false;
    int32_t v = -1;
    if (i < n) v = r == 0 ? (int32_t)i : p.col[r & 1][i];
    if (i < n && p.M[v] != w_out<W>()) {
      W m = closed_min<W, Warp>(p, v, lane, lane ? w_out<W>() : p.T[v]);
      if (Warp)
        for (int off = 16; off; off >>= 1) {
          const W o = __shfl_xor_sync(0xffffffffu, m, off);
          m = o < m ? o : m;
        }
      m = m == w_in<W>() ? w_out<W>() : m;
      keep = m != w_out<W>();
      if (lane == 0) p.M[v] = m;
    }
    out.push(lane == 0 && keep, v);
  }
  out.finish<kWarps>(sm.counts);
}

/* Decide: OUT when an M over N[v] (in the subset) is OUT, IN when all are
 * T[v], else v's tuple of round r + 1 (mis2_dist_decide). Round 0 has no
 * IN vertex yet, so the first mismatch settles "undecided". */
template <typename W, bool Warp>
__global__ void __launch_bounds__(DIST_BLOCK) decide(Plan<W> p, int r) {
  __shared__ Smem sm;
  const unsigned *in_n = p.len + 2 * r + 1;
  List out(sm.slots[threadIdx.x >> 5], p.dec[(r + 1) & 1], p.len + 2 * (r + 1) + 1);
  const int lane = Warp ? (int)(threadIdx.x & 31) : 0;
  const int64_t n = r == 0 ? p.g.nloc : (int64_t)*in_n;
  const bool first_round = r == 0;
  for (int64_t step = Steps<Warp>::first(); step < n; step += Steps<Warp>::stride()) {
    const int64_t i = step + Steps<Warp>::slot();
    bool undecided = false;
    int32_t v = -1;
    if (i < n) v = r == 0 ? (int32_t)i : p.dec[r & 1][i];
    const W t = v >= 0 ? p.T[v] : w_in<W>();
    if (v >= 0 && t != w_in<W>() && t != w_out<W>()) {
      const W mv = p.M[v];
      bool out_ = mv == w_out<W>(), all_min = mv == t;
      row_decide<W, Warp>(p.g.acol, p.g.arp[v], p.g.arp[v + 1], p.M, p.subset, t, first_round, lane,
                          &out_, &all_min);
      for (int64_t q = p.g.brp[v] + (Warp ? lane : 0);
           q < p.g.brp[v + 1] && !out_ && (all_min || !first_round); q += Warp ? 32 : 1) {
        const int32_t j = p.g.bcol[q];
        if (!p.gsub[j]) continue;
        const W m = p.gM[j];
        out_ = m == w_out<W>();
        all_min = all_min && m == t;
      }
      if (Warp) {
        out_ = __any_sync(0xffffffffu, out_);
        all_min = __all_sync(0xffffffffu, all_min);
      }
      undecided = !out_ && !all_min;
      if (lane == 0)
        p.T[v] = out_      ? w_out<W>()
                 : all_min ? w_in<W>()
                           : (W)mis2_tuple(p.per_round, p.seed, r + 1, p.g.rstart + v, p.idbits,
                                           8 * (int)sizeof(W));
    }
    out.push(lane == 0 && undecided, v);
  }
  out.finish<kWarps>(sm.counts);
}

/* T and M of round 0; len[1] counts the undecided vertices. */
template <typename W> __global__ void init(Plan<W> p) {
  FOR_VERTEX(v, p.g.nloc) {
    const int inside = !p.subset || p.subset[v];
    p.T[v] =
        inside ? (W)mis2_tuple(p.per_round, p.seed, 0, p.g.rstart + v, p.idbits, 8 * (int)sizeof(W))
               : w_out<W>();
    p.M[v] = inside ? w_in<W>() : w_out<W>(); /* IN here: anything but OUT */
    if (inside) atomicAdd(p.len + 1, 1u);
  }
}

template <typename W> __global__ void members(Plan<W> p, uint8_t *in_set, unsigned *count) {
  FOR_VERTEX(v, p.g.nloc) {
    const int in = p.T[v] == w_in<W>();
    in_set[v] = (uint8_t)in;
    if (in) atomicAdd(count, 1u);
  }
}

__global__ void mark_subset(int64_t n, const uint8_t *subset, uint8_t *own) {
  FOR_VERTEX(v, n) own[v] = subset ? subset[v] : 1;
}

typedef mispc_scratch_list dev_buffers;

struct Counts { /* pinned host words and device words of the round counts */
  unsigned long long *h, *d;
  cudaEvent_t ev[2];
};

template <typename W>
mispc_status rounds(mispc_context *ctx, const mispc_dist_csr *g, const mispc_mis_options *opt,
                    int per_round, const uint8_t *subset, uint8_t *in_set, mispc_mis_result *res,
                    dev_buffers *b, Counts *c) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  mispc_halo *h = g->halo;
  cudaStream_t st;
  MISPC_TRY(mispc_stream(ctx, &st));
  Plan<W> p;
  memset(&p, 0, sizeof p);
  MISPC_TRY(dist_device_view(ctx, g, &p.g));
  p.subset = subset;
  p.per_round = per_round;
  p.seed = opt->seed;
  p.idbits = mis2_id_bits(g->nglobal);
  const size_t nl = (size_t)nloc + 1, gn = (size_t)ng + 1, nlen = 2 * (size_t)(max_rounds + 2);
  uint8_t *own = NULL, *gsub = NULL;
  int32_t *lists = NULL;
  const char *what = "distributed MIS-2 scratch";
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, nl * 2 * sizeof(W), what, (void **)&p.T));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, gn * 2 * sizeof(W), what, (void **)&p.gT));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, nl * 16, what, (void **)&lists));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, nl, what, (void **)&own));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, gn, what, (void **)&gsub));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, nlen * 4, what, (void **)&p.len));
  MISPC_TRY(mispc_scratch_list_alloc(ctx, b, (size_t)(max_rounds + 3) * 8, what, (void **)&c->d));
  MISPC_TRY(mispc_pinned_scratch(ctx, (size_t)(max_rounds + 3) * 8, (void **)&c->h));
  p.M = p.T + nl;
  p.gM = p.gT + gn;
  p.gsub = gsub;
  p.col[0] = lists, p.col[1] = lists + nl;
  p.dec[0] = lists + 2 * nl, p.dec[1] = lists + 3 * nl;
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(p.len, 0, nlen * 4, st));
  /* warp a vertex for long rows (§V-D), as the one-process kernels */
  const mispc_tuning *tu = &ctx->tuning;
  const int64_t nnz = g->diag.nnz + g->offd.nnz;
  const bool warp =
      tu->mis_force_warp_mapping || (!tu->mis_no_warp_mapping && nloc > 0 && nnz >= 16 * nloc);
  const unsigned grid = mispc_device_grid(ctx, nloc, DIST_BLOCK);
  const unsigned wgrid = mispc_device_grid(ctx, warp ? 32 * nloc : nloc, DIST_BLOCK);
  const size_t ws = sizeof(W);
  init<W><<<grid, DIST_BLOCK, 0, st>>>(p);
  mark_subset<<<grid, DIST_BLOCK, 0, st>>>(nloc, subset, own);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_TRY(mispc_halo_exchange_device(ctx, h, own, gsub, 1));
  MISPC_TRY(mispc_halo_exchange_device(ctx, h, p.T, p.gT, ws));
  int64_t undecided = 0;
  MISPC_TRY(mispc_halo_count_start(ctx, h, p.len + 1, c->d, c->h, st));
  MISPC_TRY(mispc_sync(ctx, st, "distributed MIS-2 start"));
  MISPC_TRY(mispc_halo_count_finish(ctx, h, g->comm, c->h, &undecided));
  /* Round r is queued, then round r - 1's count read: the host stays a round
   * ahead of the GPU. rounds = the first r whose count after it is 0. */
  int done = undecided == 0 ? 0 : -1;
  for (int r = 0; done < 0; ++r) {
    if (r < max_rounds) {
      if (warp) {
        column<W, true><<<wgrid, DIST_BLOCK, 0, st>>>(p, r);
      } else {
        column<W, false><<<grid, DIST_BLOCK, 0, st>>>(p, r);
      }
      MISPC_CUDA_LAUNCH_CHECK(ctx);
      MISPC_TRY(mispc_halo_exchange_device(ctx, h, p.M, p.gM, ws));
      if (warp) {
        decide<W, true><<<wgrid, DIST_BLOCK, 0, st>>>(p, r);
      } else {
        decide<W, false><<<grid, DIST_BLOCK, 0, st>>>(p, r);
      }
      MISPC_CUDA_LAUNCH_CHECK(ctx);
      MISPC_TRY(
          mispc_halo_count_start(ctx, h, p.len + 2 * (r + 1) + 1, c->d + r + 1, c->h + r + 1, st));
      MISPC_CUDA_TRY(ctx, cudaEventRecord(c->ev[r & 1], st));
      MISPC_TRY(mispc_halo_exchange_device(ctx, h, p.T, p.gT, ws));
    }
    if (r >= 1) {
      MISPC_CUDA_TRY(ctx, cudaEventSynchronize(c->ev[(r - 1) & 1]));
      MISPC_TRY(mispc_halo_count_finish(ctx, h, g->comm, c->h + r, &undecided));
      mispc_logf(ctx, 2, "dist mis2 (device) round %d: %lld undecided", r, (long long)undecided);
      if (undecided == 0) done = r;
    }
    if (done < 0 && r >= max_rounds)
      return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_dist_mis2: %lld vertices undecided after %d rounds",
                          (long long)undecided, max_rounds);
  }
  /* members: the count reuses the first length word (no longer read) */
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(p.len, 0, 4, st));
  members<W><<<grid, DIST_BLOCK, 0, st>>>(p, in_set, p.len);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  int64_t size = 0;
  MISPC_TRY(mispc_halo_count_start(ctx, h, p.len, c->d, c->h, st));
  MISPC_TRY(mispc_sync(ctx, st, "distributed MIS-2 members"));
  MISPC_TRY(mispc_halo_count_finish(ctx, h, g->comm, c->h, &size));
  res->set_size = size;
  res->rounds = done;
  return MISPC_SUCCESS;
}

} // namespace

extern "C" mispc_status mispc_dist_mis2_cuda(mispc_context *ctx, const mispc_dist_csr *g,
                                             const mispc_mis_options *opt, int per_round,
                                             const uint8_t *subset, uint8_t *in_set,
                                             mispc_mis_result *res) {
  dev_buffers b = {{0}, 0};
  Counts c;
  memset(&c, 0, sizeof c);
  mispc_status s = MISPC_SUCCESS;
  if (cudaEventCreateWithFlags(&c.ev[0], cudaEventDisableTiming) != cudaSuccess ||
      cudaEventCreateWithFlags(&c.ev[1], cudaEventDisableTiming) != cudaSuccess)
    s = mispc_seterr(ctx, MISPC_ERR_CUDA, "cudaEventCreate failed");
  if (!s)
    s = mis2_word_bits(mis2_id_bits(g->nglobal)) == 32
            ? rounds<uint32_t>(ctx, g, opt, per_round, subset, in_set, res, &b, &c)
            : rounds<uint64_t>(ctx, g, opt, per_round, subset, in_set, res, &b, &c);
  if (s) { /* queued work may still use the scratch: let it finish first */
    cudaStream_t st;
    if (mispc_stream(ctx, &st) == MISPC_SUCCESS) cudaStreamSynchronize(st);
  }
  mispc_scratch_list_free(ctx, &b);
  if (c.ev[0]) cudaEventDestroy(c.ev[0]);
  if (c.ev[1]) cudaEventDestroy(c.ev[1]);
  return mispc_dist_agree(ctx, g->comm, s);
}
