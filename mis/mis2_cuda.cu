/* MIS-2 on the GPU: papers/KokkosKernels-MIS2-aggregation-clusterGS-2022.txt
 * Alg. 1 with its four optimisations (§V): xorshift* priorities re-drawn each
 * round, two worklists, packed 64-bit tuples, and a warp per vertex when the
 * average degree is >= 16. Two kernels per round (column, decide); each
 * compacts its own worklist while it runs (warp-private buffers,
 * mispc_warp_append, so no block barrier per tile; list order never changes
 * results because both phases only read state written by the previous
 * phase). Refresh-row is folded into decide. By default all
 * rounds run in one cooperative kernel with grid-wide barriers between the
 * phases (see mis1_cuda.cu); otherwise two launches per round are queued and
 * the host reads the worklist length one round late. */
#include <cooperative_groups.h>
#include <stdint.h>

#include "mis_backend.h"
#include "mis_common.h"
#include "mis_cuda.cuh"

namespace cg = cooperative_groups;

namespace {

using mis_cuda::kBlock;
using mis_cuda::kPersistentPerSm;
using mis_cuda::kWarps;
using mis_cuda::List;
using mis_cuda::Steps;
using mis_cuda::w_in;
using mis_cuda::w_out;
typedef mis_cuda::ListSmem Smem;
constexpr int kThreadMappingPerSm = kPersistentPerSm < 6 ? kPersistentPerSm : 6;

/* Everything a run needs; cnt[2r] / cnt[2r+1]: worklist 1 / 2 lengths for round r.
 * The persistent kernel zeroes the counters itself (before its first grid
 * barrier, then each round those of the round after next), with no memset
 * before it; the two-launches-a-round path has them zeroed by the host. */
template <typename W> struct Plan {
  const int64_t *rowptr;
  const int32_t *colidx;
  W *T, *M;
  int64_t n;
  int no_worklist, per_round, idbits, max_rounds;
  uint64_t seed;
  int32_t *wl1[2], *wl2[2];
  unsigned *cnt;
  unsigned long long *result;      /* [0] members, [1] rounds */
  unsigned *done;                  /* blocks past their result (publish_result) */
  unsigned long long *result_host; /* mapped host copy of result, or NULL */
  uint8_t *in_set;
  const uint8_t *subset;
};

/* One phase's view of the plan. The plan stays a reference to the kernel
 * parameter (constant memory), so its fields cost no registers; the lists of
 * the phase are selected where they are used. */
template <typename W> struct Phase {
  const Plan<W> &p;
  int r;   /* round index; decide draws priorities for r + 1 */
  int w;   /* 1: column (worklist 2), 0: decide (worklist 1) */
  int all; /* iterate every vertex instead of a worklist */
  __device__ Phase(const Plan<W> &plan, int round, bool column)
      : p(plan), r(round), w(column ? 1 : 0), all(round == 0 || plan.no_worklist) {}
  /* selects, not wl[r & 1]: a dynamic index would put the plan in local memory */
  __device__ int32_t *list(int which) const {
    return w ? (which ? p.wl2[1] : p.wl2[0]) : (which ? p.wl1[1] : p.wl1[0]);
  }
  __device__ const int32_t *in() const {
    return list(r & 1);
  }
  __device__ const unsigned *in_n() const {
    return p.cnt + 2 * r + w;
  }
  __device__ int32_t *out() const {
    return list(!(r & 1));
  }
  __device__ unsigned *out_n() const {
    return p.cnt + 2 * (r + 1) + w;
  }
};

/* Column: M[v] = min T over the closed neighbourhood; IN minimum -> OUT. */
template <typename W, bool Warp>
__device__ __forceinline__ void column_body(const Phase<W> &a, Smem &sm) {
  List out(sm.slots[threadIdx.x >> 5], a.out(), a.out_n());
  const int lane = Warp ? (int)(threadIdx.x & 31) : 0;
  const int64_t len = a.all ? a.p.n : (int64_t)*a.in_n();
  for (int64_t step = Steps<Warp>::first(); step < len; step += Steps<Warp>::stride()) {
    int64_t i = step + Steps<Warp>::slot();
    bool keep = false;
    int32_t v = -1;
    if (i < len) v = a.all ? (int32_t)i : a.in()[i];
    if (i < len && (!a.p.subset || a.p.subset[v])) { /* outside the subset: never a column */
      int64_t b = a.p.rowptr[v], e = a.p.rowptr[v + 1];
      W m = mis_cuda::row_min<W, Warp>(a.p.colidx, b, e, a.p.T, lane, lane ? w_out<W>() : a.p.T[v]);
      if (Warp)
        for (int off = 16; off; off >>= 1) {
          W o = __shfl_xor_sync(0xffffffffu, m, off);
          m = o < m ? o : m;
        }
      m = m == w_in<W>() ? w_out<W>() : m;
      keep = m != w_out<W>();
      if (lane == 0) a.p.M[v] = m;
    }
    out.push(lane == 0 && keep, v);
  }
  out.finish<kWarps>(sm.counts);
}

/* Decide: OUT if an M in N[v] is OUT, IN if every M in N[v] is T[v]. */
template <typename W, bool Warp>
__device__ __forceinline__ void decide_body(const Phase<W> &a, Smem &sm) {
  List out(sm.slots[threadIdx.x >> 5], a.out(), a.out_n());
  const int lane = Warp ? (int)(threadIdx.x & 31) : 0;
  const int64_t len = a.all ? a.p.n : (int64_t)*a.in_n();
  for (int64_t step = Steps<Warp>::first(); step < len; step += Steps<Warp>::stride()) {
    int64_t i = step + Steps<Warp>::slot();
    bool undecided = false;
    int32_t v = -1;
    if (i < len) {
      v = a.all ? (int32_t)i : a.in()[i];
      W t = a.p.T[v];
      if (t != w_in<W>() && t != w_out<W>()) {
        int64_t b = a.p.rowptr[v], e = a.p.rowptr[v + 1];
        W mv = a.p.M[v];
        bool out_ = mv == w_out<W>(), all_min = mv == t;
        /* Round 0 has no IN vertex, so no column is OUT yet: the first
         * mismatch settles "undecided" and the scan can stop there. */
        const bool first_round = a.r == 0;
        mis_cuda::row_decide<W, Warp>(a.p.colidx, b, e, a.p.M, a.p.subset, t, first_round, lane,
                                      &out_, &all_min);
        if (Warp) {
          out_ = __any_sync(0xffffffffu, out_);
          all_min = __all_sync(0xffffffffu, all_min);
        }
        undecided = !out_ && !all_min;
        if (lane == 0)
          a.p.T[v] = out_      ? w_out<W>()
                     : all_min ? w_in<W>()
                               : (W)mis2_tuple(a.p.per_round, a.p.seed, a.r + 1, v, a.p.idbits,
                                               8 * (int)sizeof(W));
      }
    }
    out.push(lane == 0 && undecided, v);
  }
  out.finish<kWarps>(sm.counts);
}

template <typename W> __device__ __forceinline__ void init_body(const Plan<W> &p) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < p.n;
       v += (int64_t)gridDim.x * blockDim.x) {
    bool inside = !p.subset || p.subset[v];
    /* Outside the subset: OUT for good, and never a column (no relay). */
    p.T[v] = inside ? (W)mis2_tuple(p.per_round, p.seed, 0, v, p.idbits, 8 * (int)sizeof(W))
                    : w_out<W>();
    p.M[v] = inside ? w_in<W>() : w_out<W>(); /* IN here: anything but OUT */
  }
}

template <typename W> __global__ void mis2_init(Plan<W> p) {
  init_body(p);
}

template <typename W> __device__ __forceinline__ void finish_body(const Plan<W> &p) {
  unsigned long long mine = 0;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < p.n;
       v += (int64_t)gridDim.x * blockDim.x) {
    uint8_t in = p.T[v] == w_in<W>();
    p.in_set[v] = in;
    mine += in;
  }
  mine = mispc_block_sum<kBlock>(mine);
  if (threadIdx.x == 0 && mine) atomicAdd(&p.result[0], mine);
}

template <typename W, bool Warp>
__global__ void __launch_bounds__(kBlock) mis2_column(Plan<W> p, int r) {
  __shared__ Smem sm;
  column_body<W, Warp>(Phase<W>(p, r, true), sm);
}

template <typename W, bool Warp>
__global__ void __launch_bounds__(kBlock) mis2_decide(Plan<W> p, int r) {
  __shared__ Smem sm;
  decide_body<W, Warp>(Phase<W>(p, r, false), sm);
}

template <typename W> __global__ void mis2_finish(Plan<W> p) {
  finish_body(p);
}

/* All rounds and the finish in one cooperative launch. */
template <typename W, bool Warp, int MinBlocks>
__global__ void __launch_bounds__(kBlock, MinBlocks) mis2_persistent(Plan<W> p) {
  __shared__ Smem sm;
  cg::grid_group grid = cg::this_grid();
  init_body(p);
  /* before the barrier, so race-free: round 1's lengths (written in round
   * 0), the member count and the arrivals of publish_result */
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    p.cnt[2] = p.cnt[3] = 0;
    p.result[0] = 0;
    *p.done = 0;
  }
  grid.sync();
  int rounds = -1;
  for (int r = 0; r < p.max_rounds; ++r) {
    /* round r+1 appends to these, after the barriers below */
    if (blockIdx.x == 0 && threadIdx.x < 2) p.cnt[2 * (r + 2) + threadIdx.x] = 0;
    column_body<W, Warp>(Phase<W>(p, r, true), sm);
    grid.sync();
    decide_body<W, Warp>(Phase<W>(p, r, false), sm);
    grid.sync();
    if (p.cnt[2 * (r + 1)] == 0) { /* no vertex left undecided */
      rounds = r + 1;
      break;
    }
  }
  finish_body(p);
  if (blockIdx.x == 0 && threadIdx.x == 0) p.result[1] = (unsigned long long)(long long)rounds;
  mis_cuda::publish_result<2>(p.result, p.result_host, p.done);
}

} // namespace

template <typename W>
static mispc_status run_mis2(mispc_context *ctx, const mispc_csr *g, const mispc_mis_options *opt,
                             int per_round, const uint8_t *subset, uint8_t *in_set,
                             mispc_mis_result *res) {
  const int64_t n = g->nrows;
  cudaStream_t s;
  int sms = 0, max_rounds = 0;
  MISPC_TRY(mis_cuda::start(ctx, n, opt, res, &s, &sms, &max_rounds));
  if (n == 0) return MISPC_SUCCESS;
  /* Warp per vertex when the average degree is >= 16 (§V-D), unless forced. */
  const mispc_tuning *tu = &ctx->tuning; /* ablations (tuning.h) */
  const bool warp = tu->mis_force_warp_mapping || (!tu->mis_no_warp_mapping && g->nnz >= 16 * n);
  const size_t ncnt = 2 * (size_t)(max_rounds + 2); /* even: keeps result 8-aligned */
  const int persistent = !tu->mis_no_persistent;
  /* One allocation: counters, then the result words and the arrivals of
   * publish_result; tuples T and M; worklists. */
  mis_cuda::Parts parts;
  const size_t at_cnt = parts.take(ncnt * 4 + 2 * 8 + 4);
  const size_t at_tuples = parts.take((size_t)n * 2 * sizeof(W));
  const size_t at_lists = parts.take((size_t)n * 16);
  char *scratch = NULL;
  MISPC_TRY(mispc_scratch_alloc(ctx, parts.bytes, (void **)&scratch,
                                "MIS-2 tuples, worklists and counters"));
  /* the persistent kernel writes its result words into mapped pinned memory
   * where the device can (d_mapped NULL otherwise) */
  unsigned long long *h_mapped = NULL, *d_mapped = NULL;
  mispc_status st = persistent ? mispc_pinned_mapped(ctx, 2 * sizeof(unsigned long long),
                                                     (void **)&h_mapped, (void **)&d_mapped)
                               : MISPC_SUCCESS;
  unsigned long long h_result[2] = {0, 0};
  if (!st) {
    Plan<W> p;
    memset(&p, 0, sizeof p);
    int32_t *lists = (int32_t *)(scratch + at_lists);
    p.rowptr = g->rowptr;
    p.colidx = g->colidx;
    p.T = (W *)(scratch + at_tuples);
    p.M = p.T + n;
    p.n = n;
    p.no_worklist = tu->mis_no_worklist;
    p.per_round = per_round;
    p.idbits = mis2_id_bits(n);
    p.max_rounds = max_rounds;
    p.seed = opt->seed;
    p.wl1[0] = lists;
    p.wl1[1] = lists + n;
    p.wl2[0] = lists + 2 * n;
    p.wl2[1] = lists + 3 * n;
    p.cnt = (unsigned *)(scratch + at_cnt);
    p.result = (unsigned long long *)(p.cnt + ncnt);
    p.done = (unsigned *)(p.result + 2);
    p.result_host = d_mapped;
    p.in_set = in_set;
    p.subset = subset;
    const unsigned grid = mispc_grid_for(warp ? 32 * n : n, kBlock, (unsigned)sms * 8u);
    /* Blocks per SM, measured on an H100 (docs/results/benchmarks-log.md): 8 for the warp
     * mapping; the thread mapping spills at 8 and runs faster at 6. */
    const void *pk = warp ? (const void *)mis2_persistent<W, true, kPersistentPerSm>
                          : (const void *)mis2_persistent<W, false, kThreadMappingPerSm>;
    int launched = 0;
    st = mis_cuda::launch_persistent(ctx, s, pk, &p, warp ? 32 * n : n, persistent, &launched);
    if (!st && !launched) { /* two launches per round */
      p.result_host = NULL; /* these kernels leave the result on the device */
      cudaMemsetAsync(p.cnt, 0, (size_t)((char *)(p.done + 1) - (char *)p.cnt), s);
      mis2_init<W><<<mispc_grid_for(n, kBlock, (unsigned)sms * 8u), kBlock, 0, s>>>(p);
      int stop = -1;
      st = mis_cuda::run_rounds_lagged(
          ctx, s, max_rounds,
          [&](int r, unsigned *left) {
            if (warp) {
              mis2_column<W, true><<<grid, kBlock, 0, s>>>(p, r);
              mis2_decide<W, true><<<grid, kBlock, 0, s>>>(p, r);
            } else {
              mis2_column<W, false><<<grid, kBlock, 0, s>>>(p, r);
              mis2_decide<W, false><<<grid, kBlock, 0, s>>>(p, r);
            }
            cudaMemcpyAsync(left, p.cnt + 2 * (r + 1), 4, cudaMemcpyDeviceToHost, s);
          },
          &stop);
      if (!st) {
        mis2_finish<W><<<mispc_grid_for(n, kBlock, (unsigned)sms * 8u), kBlock, 0, s>>>(p);
        unsigned long long rr = (unsigned long long)(long long)stop; /* -1: out of rounds */
        cudaMemcpyAsync(p.result + 1, &rr, 8, cudaMemcpyHostToDevice, s);
        cudaStreamSynchronize(s); /* rr lives on this stack frame */
      }
    }
    if (!st) {
      st = mis_cuda::fetch_result(ctx, s, h_result, p.result,
                                  launched && d_mapped ? h_mapped : NULL, sizeof h_result, "MIS-2");
      if (!st && (long long)h_result[1] < 0)
        st = mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_mis2: vertices still undecided after %d rounds", max_rounds);
      res->set_size = (int64_t)h_result[0];
      res->rounds = (int)(long long)h_result[1];
    }
  }
  mispc_scratch_free(ctx, scratch);
  return st;
}

extern "C" mispc_status mispc_mis2_cuda(mispc_context *ctx, const mispc_csr *g,
                                        const mispc_mis_options *opt, int per_round,
                                        const uint8_t *subset, uint8_t *in_set,
                                        mispc_mis_result *res) {
  if (mis2_word_bits(mis2_id_bits(g->nrows)) == 32)
    return run_mis2<uint32_t>(ctx, g, opt, per_round, subset, in_set, res);
  return run_mis2<uint64_t>(ctx, g, opt, per_round, subset, in_set, res);
}
