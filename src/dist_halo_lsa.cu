/* Device halo exchanges through the plan's LSA windows (dist_internal.h,
 * mispc_halo_lsa_exchange): where the ranks' GPUs load and store each
 * other's memory (NVLink, the NCCL device API), one kernel stores every
 * send entry straight into its destination's window and copies its own
 * window's ghosts out after a barrier. It replaces a pack kernel and an
 * NCCL send/receive group (and the count's all-reduce), whose latency was
 * most of an exchange of the aggregation's small halos: 15-47 us each on
 * two H200s (docs/DISTRIBUTED.md, twelfth pass). The values and their
 * order are the NCCL path's, so every result is the same. */
#include <string.h>

#include "cuda_util.cuh"
#include "dist_internal.h"
#include "mispc/timer.h"

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

namespace {

constexpr int kXchBlock = 256;
constexpr int kCountRow = 4; /* the window's count row of the exchanges (rows 0-3: MIS-2) */

struct XchArgs {
  ncclDevComm dc;
  ncclWindow_t win;
  size_t xch_off, row_off; /* the window's exchange ghosts, and its count row */
  const void *owned;
  void *ghost;
  const int32_t *sidx, *epeer, *eslot;
  int64_t nsend, nghost;
  const unsigned *count; /* n words summed into *wide over the ranks, or NULL */
  int n;
  unsigned long long *wide;
  int nranks, rank;
};

/* Why no more barriers are needed: a rank stores into another's window
 * only after the first barrier of an exchange, which that rank reaches
 * after its kernels before it on the stream, the last reader of its
 * window's exchange ghosts and count row (the copy-out of the exchange
 * before) among them. Block b meets block b of every rank at each barrier,
 * and the grid barrier after the second makes that every block. */
template <typename T> __global__ void __launch_bounds__(kXchBlock) xch_kernel(XchArgs a) {
  cg::grid_group grid = cg::this_grid();
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), a.dc, ncclTeamTagLsa(), blockIdx.x);
  bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
  const int64_t t0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  if (a.owned)
    for (int64_t e = t0; e < a.nsend; e += stride)
      ((T *)ncclGetLsaPointer(a.win, a.xch_off, a.epeer[e]))[a.eslot[e]] =
          ((const T *)a.owned)[a.sidx[e]];
  if (a.count && t0 < a.nranks) { /* this rank's sum into every rank's row */
    unsigned long long c = 0;
    for (int k = 0; k < a.n; ++k) c += a.count[k];
    *(unsigned long long *)ncclGetLsaPointer(a.win, a.row_off + 8 * (size_t)a.rank, (int)t0) = c;
  }
  bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
  grid.sync();
  if (a.owned) {
    const T *in = (const T *)ncclGetLocalPointer(a.win, a.xch_off);
    for (int64_t j = t0; j < a.nghost; j += stride) ((T *)a.ghost)[j] = in[j];
  }
  if (a.count && t0 == 0) {
    const volatile unsigned long long *row =
        (const volatile unsigned long long *)ncclGetLocalPointer(a.win, a.row_off);
    unsigned long long s = 0;
    for (int q = 0; q < a.nranks; ++q) s += row[q];
    *a.wide = s;
  }
}

} // namespace

extern "C" mispc_status mispc_halo_lsa_exchange(mispc_context *ctx, mispc_halo *h,
                                                const void *owned, void *ghost, size_t size,
                                                const unsigned *d_count, int n,
                                                unsigned long long *d_wide, void *stream) {
  const mispc_halo_lsa *l = (const mispc_halo_lsa *)h->lsa;
  if (!l || l->xgrid <= 0) return MISPC_ERR_UNSUPPORTED;
  if (owned && size != 1 && size != 4 && size != 8)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "device halo exchange of %zu-byte elements",
                        size);
  const double t0 = mispc_wtime();
  XchArgs a;
  memset(&a, 0, sizeof a);
  a.dc = *(const ncclDevComm *)l->devcomm;
  a.win = (ncclWindow_t)l->win;
  a.xch_off = l->xch_off, a.row_off = l->count_off + (size_t)kCountRow * l->nranks * 8;
  a.owned = owned, a.ghost = ghost;
  a.sidx = h->d_sidx, a.epeer = l->d_epeer, a.eslot = l->d_eslot;
  a.nsend = owned ? h->nsend : 0, a.nghost = owned ? h->nghost : 0;
  a.count = d_count, a.n = n, a.wide = d_wide;
  a.nranks = l->nranks, a.rank = l->rank;
  void *args[] = {&a};
  const void *k = size == 1   ? (const void *)xch_kernel<uint8_t>
                  : size == 4 ? (const void *)xch_kernel<uint32_t>
                              : (const void *)xch_kernel<uint64_t>;
  MISPC_CUDA_TRY(ctx, cudaLaunchCooperativeKernel(k, (unsigned)l->xgrid, kXchBlock, args, 0,
                                                  (cudaStream_t)stream));
  if (owned) {
    h->stats.exchanges++;
    h->stats.bytes_sent += h->nsend * (int64_t)size;
  }
  h->stats.comm_seconds += mispc_wtime() - t0;
  return MISPC_SUCCESS;
}

#else

extern "C" mispc_status mispc_halo_lsa_exchange(mispc_context *, mispc_halo *, const void *, void *,
                                                size_t, const unsigned *, int, unsigned long long *,
                                                void *) {
  return MISPC_ERR_UNSUPPORTED;
}

#endif
