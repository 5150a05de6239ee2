/* MIS-2 on the GPU: papers/KokkosKernels-MIS2-aggregation-clusterGS-2022.txt
 * Alg. 1 with its four optimisations (§V): xorshift* priorities re-drawn each
 * round, two worklists, packed 64-bit tuples, and a warp per vertex when the
 * average degree is >= 16. Two kernels per round (column, decide); each
 * compacts its own worklist while it runs (warp-aggregated appends; list
 * order never changes results because both phases only read state written
 * by the previous phase). Refresh-row is folded into decide. The host reads
 * the worklist length one round late, so it never stalls the GPU. */
#include <stdint.h>

#include "cuda_util.cuh"
#include "mis_backend.h"
#include "mis_common.h"

namespace {

constexpr int kBlock = 256;

struct Phase {
  const int64_t *rowptr;
  const int32_t *colidx;
  uint64_t *T, *M;
  int64_t n;
  int all;            /* iterate every vertex instead of a worklist */
  const int32_t *in;  /* worklist */
  const unsigned *in_n;
  int32_t *out;
  unsigned *out_n;
  int iter;           /* round index; decide draws priorities for iter + 1 */
  int per_round;
  uint64_t seed;
  int idbits;
};

typedef mispc_block_append<kBlock, 2048> Append;

/* Tiles: kBlock vertices (thread mapping) or kBlock / 32 (warp mapping) per
 * block step; every thread runs the same number of steps (for the appender). */
template <bool Warp> struct Tiling {
  static constexpr int kPerTile = Warp ? kBlock / 32 : kBlock;
  __device__ static int slot() {
    return Warp ? (int)(threadIdx.x >> 5) : (int)threadIdx.x;
  }
};

/* Column: M[v] = min T over the closed neighbourhood; IN minimum -> OUT. */
template <bool Warp> __global__ void __launch_bounds__(kBlock) mis2_column(Phase a) {
  __shared__ Append::Smem smem;
  Append out(smem, a.out, a.out_n);
  const int lane = Warp ? (int)(threadIdx.x & 31) : 0;
  const int64_t len = a.all ? a.n : (int64_t)*a.in_n;
  for (int64_t tile = blockIdx.x * (int64_t)Tiling<Warp>::kPerTile; tile < len;
       tile += (int64_t)gridDim.x * Tiling<Warp>::kPerTile) {
    int64_t i = tile + Tiling<Warp>::slot();
    bool keep = false;
    int32_t v = -1;
    if (i < len) {
      v = a.all ? (int32_t)i : a.in[i];
      int64_t b = a.rowptr[v], e = a.rowptr[v + 1];
      uint64_t m = lane ? MIS2_OUT : a.T[v];
      for (int64_t p = b + lane; p < e; p += Warp ? 32 : 1) {
        uint64_t t = a.T[a.colidx[p]];
        m = t < m ? t : m;
      }
      if (Warp)
        for (int off = 16; off; off >>= 1) {
          uint64_t o = __shfl_xor_sync(0xffffffffu, m, off);
          m = o < m ? o : m;
        }
      m = m == MIS2_IN ? MIS2_OUT : m;
      keep = m != MIS2_OUT;
      if (lane == 0) a.M[v] = m;
    }
    out.push(lane == 0 && keep, v);
  }
  out.finish();
}

/* Decide: OUT if an M in N[v] is OUT, IN if every M in N[v] is T[v]. */
template <bool Warp> __global__ void __launch_bounds__(kBlock) mis2_decide(Phase a) {
  __shared__ Append::Smem smem;
  Append out(smem, a.out, a.out_n);
  const int lane = Warp ? (int)(threadIdx.x & 31) : 0;
  const int64_t len = a.all ? a.n : (int64_t)*a.in_n;
  for (int64_t tile = blockIdx.x * (int64_t)Tiling<Warp>::kPerTile; tile < len;
       tile += (int64_t)gridDim.x * Tiling<Warp>::kPerTile) {
    int64_t i = tile + Tiling<Warp>::slot();
    bool undecided = false;
    int32_t v = -1;
    if (i < len) {
      v = a.all ? (int32_t)i : a.in[i];
      uint64_t t = a.T[v];
      if (t != MIS2_IN && t != MIS2_OUT) {
        int64_t b = a.rowptr[v], e = a.rowptr[v + 1];
        uint64_t mv = a.M[v];
        bool out_ = mv == MIS2_OUT, all_min = mv == t;
        for (int64_t p = b + lane; p < e && !out_; p += Warp ? 32 : 1) {
          uint64_t m = a.M[a.colidx[p]];
          out_ = m == MIS2_OUT;
          all_min = all_min && m == t;
        }
        if (Warp) {
          out_ = __any_sync(0xffffffffu, out_);
          all_min = __all_sync(0xffffffffu, all_min);
        }
        undecided = !out_ && !all_min;
        if (lane == 0)
          a.T[v] = out_      ? MIS2_OUT
                   : all_min ? MIS2_IN
                             : mis2_tuple(a.per_round, a.seed, a.iter + 1, v, a.idbits);
      }
    }
    out.push(lane == 0 && undecided, v);
  }
  out.finish();
}

__global__ void mis2_init(int64_t n, int per_round, uint64_t seed, int idbits, uint64_t *T,
                          uint64_t *M) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x) {
    T[v] = mis2_tuple(per_round, seed, 0, v, idbits);
    M[v] = MIS2_IN;
  }
}

__global__ void mis2_finish(int64_t n, const uint64_t *T, uint8_t *in_set,
                            unsigned long long *size) {
  unsigned long long mine = 0;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x) {
    uint8_t in = T[v] == MIS2_IN;
    in_set[v] = in;
    mine += in;
  }
  for (int off = 16; off; off >>= 1) mine += __shfl_down_sync(0xffffffffu, mine, off);
  if ((threadIdx.x & 31) == 0 && mine) atomicAdd(size, mine);
}

} // namespace

extern "C" mispc_status mispc_mis2_cuda(mispc_context *ctx, const mispc_csr *g,
                                        const mispc_mis_options *opt, int per_round,
                                        uint8_t *in_set, mispc_mis_result *res) {
  const int64_t n = g->nrows;
  res->set_size = 0;
  res->rounds = 0;
  if (n == 0) return MISPC_SUCCESS;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  int dev = 0, sms = 0;
  MISPC_CUDA_TRY(ctx, cudaGetDevice(&dev));
  MISPC_CUDA_TRY(ctx, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  /* Warp per vertex when the average degree is >= 16 (§V-D), unless forced. */
  const bool warp = opt->force_warp_mapping ||
                    (!opt->no_warp_mapping && g->nnz >= 16 * n);
  /* [2r] wl1, [2r+1] wl2 lengths; an even count keeps d_size 8-aligned */
  const size_t ncnt = 2 * (size_t)(max_rounds + 2);
  uint64_t *T = NULL;
  int32_t *lists = NULL;
  unsigned *cnt = NULL, *h_len = NULL;
  mispc_status st = mispc_scratch_alloc(ctx, (size_t)n * 16, (void **)&T, "MIS-2 tuples");
  if (!st) st = mispc_scratch_alloc(ctx, (size_t)n * 16, (void **)&lists, "MIS-2 worklists");
  if (!st) st = mispc_scratch_alloc(ctx, ncnt * 4 + 8, (void **)&cnt, "MIS-2 counters");
  if (!st) st = mispc_pinned_scratch(ctx, (size_t)(max_rounds + 2) * 4, (void **)&h_len);
  cudaEvent_t ev[2] = {NULL, NULL};
  if (!st && (cudaEventCreateWithFlags(&ev[0], cudaEventDisableTiming) != cudaSuccess ||
              cudaEventCreateWithFlags(&ev[1], cudaEventDisableTiming) != cudaSuccess))
    st = mispc_seterr(ctx, MISPC_ERR_CUDA, "cudaEventCreate failed");
  int rounds = -1;
  if (!st) {
    uint64_t *M = T + n;
    unsigned long long *d_size = (unsigned long long *)(cnt + ncnt);
    int32_t *wl1[2] = {lists, lists + n}, *wl2[2] = {lists + 2 * n, lists + 3 * n};
    const unsigned grid = mispc_grid_for(warp ? 32 * n : n, kBlock, (unsigned)sms * 8u);
    const int idbits = mis2_id_bits(n);
    cudaMemsetAsync(cnt, 0, ncnt * 4 + 8, s);
    mis2_init<<<grid, kBlock, 0, s>>>(n, per_round, opt->seed, idbits, T, M);
    for (int r = 0; r <= max_rounds; ++r) {
      if (r < max_rounds) {
        Phase a;
        a.rowptr = g->rowptr;
        a.colidx = g->colidx;
        a.T = T;
        a.M = M;
        a.n = n;
        a.all = r == 0 || opt->no_worklist;
        a.iter = r;
        a.per_round = per_round;
        a.seed = opt->seed;
        a.idbits = idbits;
        a.in = wl2[r & 1];
        a.in_n = cnt + 2 * r + 1;
        a.out = wl2[(r + 1) & 1];
        a.out_n = cnt + 2 * (r + 1) + 1;
        if (warp) mis2_column<true><<<grid, kBlock, 0, s>>>(a);
        else mis2_column<false><<<grid, kBlock, 0, s>>>(a);
        a.in = wl1[r & 1];
        a.in_n = cnt + 2 * r;
        a.out = wl1[(r + 1) & 1];
        a.out_n = cnt + 2 * (r + 1);
        if (warp) mis2_decide<true><<<grid, kBlock, 0, s>>>(a);
        else mis2_decide<false><<<grid, kBlock, 0, s>>>(a);
        cudaMemcpyAsync(h_len + r, cnt + 2 * (r + 1), 4, cudaMemcpyDeviceToHost, s);
        cudaEventRecord(ev[r & 1], s);
      }
      if (r >= 1) {
        cudaError_t e = cudaEventSynchronize(ev[(r - 1) & 1]);
        if (e != cudaSuccess) {
          st = mispc_seterr(ctx, MISPC_ERR_CUDA, "MIS-2 round %d failed: %s", r - 1,
                            cudaGetErrorString(e));
          break;
        }
        mispc_logf(ctx, 2, "mis2 round %d: %u undecided", r, h_len[r - 1]);
        if (h_len[r - 1] == 0) {
          rounds = r; /* rounds 0 .. r-1 ran; round r (queued) changes nothing */
          break;
        }
      }
    }
    if (!st && rounds < 0)
      st = mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                        "mispc_mis2: vertices still undecided after %d rounds", max_rounds);
    if (!st) {
      mis2_finish<<<mispc_grid_for(n, kBlock, (unsigned)sms * 8u), kBlock, 0, s>>>(n, T, in_set,
                                                                                   d_size);
      unsigned long long size = 0;
      cudaMemcpyAsync(&size, d_size, 8, cudaMemcpyDeviceToHost, s);
      cudaError_t e = cudaStreamSynchronize(s);
      if (e == cudaSuccess) e = cudaGetLastError();
      if (e != cudaSuccess)
        st = mispc_seterr(ctx, MISPC_ERR_CUDA, "MIS-2 kernels failed: %s", cudaGetErrorString(e));
      res->set_size = (int64_t)size;
      res->rounds = rounds;
    }
  }
  if (ev[0]) cudaEventDestroy(ev[0]);
  if (ev[1]) cudaEventDestroy(ev[1]);
  mispc_scratch_free(ctx, T);
  mispc_scratch_free(ctx, lists);
  mispc_scratch_free(ctx, cnt);
  return st;
}
