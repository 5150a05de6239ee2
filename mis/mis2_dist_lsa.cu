/* Distributed MIS-2 rounds in one kernel a rank (tuning dist_lsa_rounds):
 * where every rank's GPU can load and store the others' memory (NVLink,
 * the NCCL device API's LSA team), the ghosts' M and T words are stored
 * straight into the other ranks' ghost arrays (symmetric memory windows of
 * the halo plan, mispc_halo_lsa_get) and an LSA barrier a block plus a grid
 * barrier end each exchange, so a round is two passes and two exchanges
 * with no host work at all (the host-driven rounds queue about twenty
 * calls a round: docs/DISTRIBUTED.md, "third pass"). The termination
 * count travels with the T words: each rank stores its count into every
 * rank's window, and after the barrier every thread sums the same P words,
 * so all ranks stop after the same round. The passes are the host-driven
 * rounds' own (mis2_dist_kernels.cuh) in the same order, so the set and the
 * rounds equal one process's bit for bit.
 *
 * Why the buffers can be reused without more barriers: a rank stores into
 * another's gM only after passing the T barrier of the round before, which
 * that rank reaches after its decide pass, the last reader of gM; the same
 * holds for gT (stored after the M barrier, read by the column pass before
 * it) and the two count slots (used by alternate rounds). */
#include "mis2_dist_kernels.cuh"

#if MISPC_HAVE_NCCL
#include <nccl.h>
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#include <nccl_device.h>
#define MISPC_HAVE_NCCL_LSA 1
#endif
#endif

#if MISPC_HAVE_NCCL_LSA
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#endif

namespace mis2_dist {

#if MISPC_HAVE_NCCL_LSA
namespace {

/* What the round kernel needs besides the plan (kernel parameter). */
struct Lsa {
  ncclDevComm dc;
  ncclWindow_t win;
  size_t off_t, off_m, off_c; /* gT, gM and the counts in the window */
  const int32_t *sidx, *speer;
  const int64_t *sslot;
  int64_t nsend;
  int nranks, rank, max_rounds;
  int *rounds;
};

/* ghost copy of every send entry's word on its destination rank. */
template <typename W>
__device__ __forceinline__ void store_ghosts(const Lsa &a, size_t off, const W *src, int64_t tid,
                                             int64_t nth) {
  for (int64_t e = tid; e < a.nsend; e += nth) {
    W *dst = (W *)ncclGetLsaPointer(a.win, off, a.speer[e]);
    dst[a.sslot[e]] = src[a.sidx[e]];
  }
}

template <typename W, bool Warp>
__global__ void __launch_bounds__(DIST_BLOCK) rounds_kernel(Plan<W> p, Lsa a) {
  __shared__ Smem sm;
  cg::grid_group grid = cg::this_grid();
  /* a barrier a block: block b of every rank meets block b of the others,
   * and the grid barrier after it makes that every block of every rank */
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), a.dc, ncclTeamTagLsa(), blockIdx.x);
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t nth = (int64_t)gridDim.x * blockDim.x;
  const volatile unsigned long long *counts =
      (const volatile unsigned long long *)ncclGetLocalPointer(a.win, a.off_c);
  for (int r = 0;; ++r) {
    if (r == a.max_rounds) {
      if (tid == 0) *a.rounds = -1;
      break;
    }
    column_pass<W, Warp>(p, r, kBoundary, sm);
    grid.sync();
    store_ghosts<W>(a, a.off_m, p.M, tid, nth);
    bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
    grid.sync();
    decide_pass<W, Warp>(p, r, kBoundary, sm);
    grid.sync();
    store_ghosts<W>(a, a.off_t, p.T, tid, nth);
    if (tid < a.nranks) { /* this rank's undecided count into rank tid's slot */
      unsigned long long *slot = (unsigned long long *)ncclGetLsaPointer(
          a.win, a.off_c + 8 * ((size_t)(r & 1) * a.nranks + a.rank), (int)tid);
      *slot = (unsigned long long)p.len[4 * (r + 1) + 2] + p.len[4 * (r + 1) + 3];
    }
    bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
    grid.sync();
    unsigned long long left = 0;
    for (int q = 0; q < a.nranks; ++q) left += counts[(r & 1) * a.nranks + q];
    if (left == 0) {
      if (tid == 0) *a.rounds = r + 1;
      break;
    }
  }
}

} // namespace

template <typename W>
mispc_status lsa_rounds(mispc_context *ctx, MPI_Comm comm, const Plan<W> &p, mispc_halo *h,
                        const mispc_halo_lsa *l, bool warp, int max_rounds, int *d_rounds,
                        cudaStream_t st, int *launched) {
  *launched = 0;
  const void *kernel =
      warp ? (const void *)rounds_kernel<W, true> : (const void *)rounds_kernel<W, false>;
  int sms = 0, coop = 0, per_sm = 0;
  MISPC_TRY(mispc_device_caps(ctx, &sms, &coop));
  if (coop) MISPC_TRY(mispc_kernel_occupancy(ctx, kernel, DIST_BLOCK, &per_sm));
  if (per_sm > mis_cuda::kPersistentPerSm) per_sm = mis_cuda::kPersistentPerSm;
  /* every rank the same grid (block b meets block b), within the barriers */
  int blocks = coop ? sms * per_sm : 0;
  if (blocks > l->max_blocks) blocks = l->max_blocks;
  MPI_Allreduce(MPI_IN_PLACE, &blocks, 1, MPI_INT, MPI_MIN, comm);
  if (blocks <= 0) return MISPC_SUCCESS;
  const int32_t *sidx = NULL;
  if (h->nsend > 0) MISPC_TRY(mispc_halo_device_send_list(ctx, h, &sidx));
  Lsa a;
  memset(&a, 0, sizeof a);
  a.dc = *(const ncclDevComm *)l->devcomm;
  a.win = (ncclWindow_t)l->win;
  a.off_t = 0, a.off_m = l->ghost_bytes, a.off_c = l->count_off;
  a.sidx = sidx, a.speer = l->d_speer, a.sslot = l->d_sslot, a.nsend = h->nsend;
  a.nranks = l->nranks, a.rank = l->rank, a.max_rounds = max_rounds;
  a.rounds = d_rounds;
  Plan<W> pk = p;
  void *args[] = {&pk, &a};
  MISPC_CUDA_TRY(ctx,
                 cudaLaunchCooperativeKernel(kernel, (unsigned)blocks, DIST_BLOCK, args, 0, st));
  *launched = 1;
  return MISPC_SUCCESS;
}

#else

template <typename W>
mispc_status lsa_rounds(mispc_context *, MPI_Comm, const Plan<W> &, mispc_halo *,
                        const mispc_halo_lsa *, bool, int, int *, cudaStream_t, int *launched) {
  *launched = 0;
  return MISPC_SUCCESS;
}

#endif

template mispc_status lsa_rounds<uint32_t>(mispc_context *, MPI_Comm, const Plan<uint32_t> &,
                                           mispc_halo *, const mispc_halo_lsa *, bool, int, int *,
                                           cudaStream_t, int *);
template mispc_status lsa_rounds<uint64_t>(mispc_context *, MPI_Comm, const Plan<uint64_t> &,
                                           mispc_halo *, const mispc_halo_lsa *, bool, int, int *,
                                           cudaStream_t, int *);

} // namespace mis2_dist
