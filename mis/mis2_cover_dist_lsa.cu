/* Distributed MIS-2 with the cover priority, all rounds in one kernel a
 * rank (tuning dist_lsa_rounds, as the hash rounds of mis2_dist_lsa.cu):
 * the steps of mis2_cover_kernels.cuh in the host-driven rounds' order
 * (mis2_cover_dist_cuda.cu), each step's lane 0 storing the ghost copies of
 * the word it wrote into the other ranks' windows (dist_lsa.cuh), and an
 * LSA barrier and a grid barrier after each step where the host-driven
 * rounds make a halo exchange: six a round, with no host work (those rounds
 * queue about twenty calls a round and wait for the count each round, and
 * on two GPUs were slower than one: docs/DISTRIBUTED.md, twenty-fifth
 * pass). So the set and the rounds are the one-process ones.
 *
 * Only written words travel; every ghost word a step reads was stored in
 * this call before it (T by init, C by near_set and count1 every round, M
 * of every vertex of the subset by round 0's column step; only the
 * subset's ghosts' M are read). The ghost arrays are written one step and
 * read the next, and a barrier separates every step from the next, so a
 * rank stores into another's array only after that rank has passed the
 * step that read its old words. Termination, as the hash rounds': the
 * undecided count after round r is stored into every rank's count row
 * (r & 1) in round r + 1's first step and summed after its barrier, one
 * step late; that near-set step only writes C, which no result reads. */
#include "dist_lsa.cuh"
#include "mis2_cover_dist_lsa.cuh"
#include "mis_cuda.cuh"

namespace mis2_cover {

#if MISPC_HAVE_NCCL_LSA
namespace {

using namespace dist_lsa;

struct LsaCover {
  Win w;
  size_t off_t, off_m, off_c, off_s; /* gT, gM, gC and gsub in the window */
  uint8_t *in_set;
  /* [0], [1] undecided after even / odd rounds, [2] the subset's size,
   * [3] members (zeroed by the caller) */
  unsigned long long *cnt;
  unsigned long long *out; /* set size over the ranks, rounds (-1: not done) */
  int max_rounds;
};

/* all_rounds over the ranks: copies into the windows, LSA and grid
 * barriers, counts through the window's count rows */
struct LsaSync {
  const Win &w;
  ncclLsaBarrierSession<ncclCoopCta> &bar;
  cg::grid_group &grid;
  Put<uint64_t> put_t, put_m;
  Put<uint32_t> put_c;
  __device__ void sync() {
    grid.sync();
  }
  __device__ void publish(int k, const unsigned long long *cnt) {
    store_count(w, k, mispc_load_word(cnt + k));
  }
  __device__ void exchanged() {
    dist_lsa::exchanged(bar, grid, w, 0);
  }
  __device__ unsigned long long total(int k) {
    return sum_row(w, k);
  }
};

template <int L> __global__ void __launch_bounds__(kBlock) lsa_kernel(Cover c, LsaCover a) {
  cg::grid_group grid = cg::this_grid();
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), a.w.dc, ncclTeamTagLsa(), blockIdx.x);
  LsaSync x = {a.w, bar, grid, {&a.w, a.off_t}, {&a.w, a.off_m}, {&a.w, a.off_c}};
  /* the ghosts' subset flags (the subset's size: count row 2) */
  FOR_VERTEX(v, c.n) put<uint8_t>(a.w, a.off_s, v, (uint8_t)inside(c, (int32_t)v));
  unsigned long long left = 0, size = 0;
  const int rounds = all_rounds<L>(c, a.cnt, a.max_rounds, a.in_set, x, &left, &size);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    a.out[0] = size;
    a.out[1] = (unsigned long long)(long long)rounds;
  }
}

template <int L> const void *kernel_of() {
  return (const void *)lsa_kernel<L>;
}

} // namespace

mispc_status lsa_grid(mispc_context *ctx, MPI_Comm comm, mispc_halo_lsa *l, int *blocks) {
  if (!l->cover_grid) { /* every lane count: ranks may choose differently */
    const void *kernels[6] = {kernel_of<1>(), kernel_of<2>(),  kernel_of<4>(),
                              kernel_of<8>(), kernel_of<16>(), kernel_of<32>()};
    MISPC_TRY(dist_lsa_agreed_grid(ctx, comm, l, kernels, 6, kBlock, mis_cuda::kPersistentPerSm,
                                   &l->cover_grid));
  }
  *blocks = l->cover_grid > 0 ? l->cover_grid : 0;
  return MISPC_SUCCESS;
}

mispc_status lsa_rounds(mispc_context *ctx, const Cover &c, const mispc_halo_lsa *l, int blocks,
                        int lanes, int max_rounds, uint8_t *in_set, unsigned long long *cnt,
                        unsigned long long *d_out, cudaStream_t st) {
  LsaCover a;
  memset(&a, 0, sizeof a);
  a.w = win_of(l);
  a.off_t = 0, a.off_m = l->ghost_bytes, a.off_c = 2 * l->ghost_bytes, a.off_s = l->sub_off;
  a.in_set = in_set, a.cnt = cnt, a.out = d_out, a.max_rounds = max_rounds;
  Cover ck = c;
  void *args[] = {&ck, &a};
  return with_lanes(lanes, [&](auto x) {
    MISPC_CUDA_TRY(ctx, cudaLaunchCooperativeKernel(kernel_of<decltype(x)::value>(),
                                                    (unsigned)blocks, kBlock, args, 0, st));
    return MISPC_SUCCESS;
  });
}

#else

mispc_status lsa_grid(mispc_context *, MPI_Comm, mispc_halo_lsa *, int *blocks) {
  *blocks = 0;
  return MISPC_SUCCESS;
}

mispc_status lsa_rounds(mispc_context *ctx, const Cover &, const mispc_halo_lsa *, int, int, int,
                        uint8_t *, unsigned long long *, unsigned long long *, cudaStream_t) {
  return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "LSA rounds: mispc was built without them");
}

#endif

} // namespace mis2_cover
