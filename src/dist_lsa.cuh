/* Device pieces of the distributed rounds that run in one kernel a rank
 * (mis2_dist_lsa.cu: the hash MIS-2 rounds; mis2_cover_dist_lsa.cu: the cover
 * rounds; gauss_seidel/coloring_dist_lsa.cu: the coloring passes; not
 * installed): where every rank's GPU can load and store the
 * others' memory (NVLink, the NCCL device API's LSA team), the lane that
 * writes an owned word stores its ghost copies straight into the other
 * ranks' window (mispc_halo_lsa, dist_internal.h), an LSA barrier a block
 * and a grid barrier end each exchange, and counts over the ranks go
 * through rows of P words in the window, one word a rank. */
#ifndef MISPC_DIST_LSA_CUH
#define MISPC_DIST_LSA_CUH

#include "dist_cuda.cuh"

#if MISPC_HAVE_NCCL
#include <nccl.h>
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#include <nccl_device.h>
#define MISPC_HAVE_NCCL_LSA 1
#endif
#endif

/* Whether the rounds of a distributed device pass run in one kernel a rank
 * (tuning dist_lsa_rounds: 0 where every rank sends at most an eighth of
 * the graph's vertices in all, 1 wherever NCCL can, 2 never). The lanes
 * store each ghost copy as it is written, one word at a time over NVLink:
 * gen:kron:21, whose ranks send about every vertex, took 9.6 ms a call on
 * 2 GPUs against 6.5 host-driven, Laplace3D_150 (1 %) 1.09 against 1.25
 * (4xH200, docs/DISTRIBUTED.md, ninth pass). The sum is asked once a plan
 * (collective). */
static inline bool dist_lsa_wanted(mispc_context *ctx, const mispc_dist_csr *g) {
  const int knob = ctx->tuning.dist_lsa_rounds;
  mispc_halo *h = g->halo;
  if (knob == 2 || !h->nccl) return false;
  if (knob == 1) return true;
  if (!h->lsa_rule) {
    long long sends = h->nsend;
    MPI_Allreduce(MPI_IN_PLACE, &sends, 1, MPI_LONG_LONG, MPI_SUM, g->comm);
    h->lsa_rule = 8 * (int64_t)sends <= g->nglobal ? 1 : -1;
  }
  return h->lsa_rule > 0;
}

/* The grid a cooperative one-kernel pass runs with on every rank: the
 * least occupancy of `kernels` (the variants a rank may pick apart from the
 * others), at most per_sm blocks an SM and the LSA barriers' count, the
 * least over the ranks (collective); -1 where a rank has no cooperative
 * launch. */
static inline mispc_status dist_lsa_agreed_grid(mispc_context *ctx, MPI_Comm comm,
                                                const mispc_halo_lsa *l, const void *const *kernels,
                                                int nk, int block, int per_sm, int *grid) {
  int sms = 0, coop = 0;
  /* A failure here is agreed, not returned at once: the others would wait
   * in the reduction. */
  mispc_status s = mispc_device_caps(ctx, &sms, &coop);
  for (int k = 0; !s && coop && k < nk; ++k) {
    int b = 0;
    s = mispc_kernel_occupancy(ctx, kernels[k], block, &b);
    if (b < per_sm) per_sm = b;
  }
  int g = !s && coop ? sms * per_sm : 0;
  if (g > l->max_blocks) g = l->max_blocks;
  int neg = -g; /* the least grid over the ranks, as the largest negative */
  MISPC_TRY(mispc_dist_agree_max(ctx, comm, s, &neg, 1));
  *grid = -neg > 0 ? -neg : -1;
  return MISPC_SUCCESS;
}

#if MISPC_HAVE_NCCL_LSA
#include <cooperative_groups.h>

namespace dist_lsa {

namespace cg = cooperative_groups;

/* The window and the send entries of a plan (a kernel parameter). */
struct Win {
  ncclDevComm dc;
  ncclWindow_t win;
  const int32_t *vptr, *speer; /* send entries of each owned vertex, their LSA ranks */
  const int64_t *sslot;        /* the entry's ghost position there */
  size_t off_c;                /* the count rows */
  unsigned long long *trace;   /* -vv: the latest block's times (ns) at each barrier, else NULL */
  int trace_slots, nranks, rank;
};

static inline Win win_of(const mispc_halo_lsa *l) {
  Win w;
  memset(&w, 0, sizeof w);
  w.dc = *(const ncclDevComm *)l->devcomm;
  w.win = (ncclWindow_t)l->win;
  w.vptr = l->d_vptr, w.speer = l->d_speer, w.sslot = l->d_sslot;
  w.off_c = l->count_off;
  w.nranks = l->nranks, w.rank = l->rank;
  return w;
}

/* Slot k of the trace: the latest %globaltimer of every block's thread 0
 * (arrival at, or exit from, an exchange); slots past trace_slots are not
 * kept. */
__device__ __forceinline__ void stamp(const Win &a, int k) {
  if (a.trace && threadIdx.x == 0 && k < a.trace_slots) atomicMax(a.trace + k, mispc_global_ns());
}

/* Stores the ghost copies of owned vertex v's new word w into the array at
 * byte `off` of the other ranks' windows. */
template <typename W>
__device__ __forceinline__ void put(const Win &a, size_t off, int64_t v, W w) {
  for (int32_t e = a.vptr[v]; e < a.vptr[v + 1]; ++e)
    ((W *)ncclGetLsaPointer(a.win, off, a.speer[e]))[a.sslot[e]] = w;
}

/* put as a step's store functor (mis2_cover_kernels.cuh) */
template <typename W> struct Put {
  const Win *a;
  size_t off;
  __device__ void operator()(int64_t v, W w) const {
    put<W>(*a, off, v, w);
  }
};

/* Count row k: this rank's word into every rank's row (threads 0 .. P - 1
 * of block 0), summed after the next barrier by sum_row. */
__device__ __forceinline__ void store_count(const Win &a, int k, unsigned long long c) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < a.nranks)
    *(unsigned long long *)ncclGetLsaPointer(a.win, a.off_c + 8 * ((size_t)k * a.nranks + a.rank),
                                             (int)t) = c;
}

/* Count row k of this rank's window (P words, written by every rank). */
__device__ __forceinline__ const volatile unsigned long long *count_row(const Win &a, int k) {
  return (const volatile unsigned long long *)ncclGetLocalPointer(a.win, a.off_c) +
         (size_t)k * a.nranks;
}

__device__ __forceinline__ unsigned long long sum_row(const Win &a, int k) {
  const volatile unsigned long long *row = count_row(a, k);
  unsigned long long s = 0;
  for (int q = 0; q < a.nranks; ++q) s += row[q];
  return s;
}

__device__ __forceinline__ unsigned long long max_row(const Win &a, int k) {
  const volatile unsigned long long *row = count_row(a, k);
  unsigned long long m = 0;
  for (int q = 0; q < a.nranks; ++q) m = row[q] > m ? row[q] : m;
  return m;
}

/* The end of an exchange: block b of every rank meets block b of the
 * others (LSA barrier b), and the grid barrier makes that every block. */
__device__ __forceinline__ void exchanged(ncclLsaBarrierSession<ncclCoopCta> &bar,
                                          cg::grid_group &grid, const Win &a, int k) {
  stamp(a, k);
  bar.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
  grid.sync();
  stamp(a, k + 1);
}

} // namespace dist_lsa

#endif

#endif
