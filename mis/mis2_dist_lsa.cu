/* Distributed MIS-2 rounds in one kernel a rank (tuning dist_lsa_rounds):
 * where every rank's GPU can load and store the others' memory (NVLink,
 * the NCCL device API's LSA team), the ghosts' M and T words are stored
 * straight into the other ranks' ghost arrays (symmetric memory windows of
 * the halo plan, mispc_halo_lsa_get) by the lane that writes them, and an
 * LSA barrier a block plus a grid barrier end each exchange: a round is two
 * passes and two barriers, as one process's persistent kernel, with no host
 * work (the host-driven rounds queue about twenty calls a round and wait
 * for the host three times a call: docs/DISTRIBUTED.md, "third pass"). The
 * ghosts' subset flags and round-0 words go first, the members are counted
 * at the end, all in the kernel. Termination: in round r + 1's column pass
 * each rank stores its count after round r into every rank's window, and
 * after the M barrier every thread sums the same P words (one round late,
 * as the one-process kernel reads its flag), so all ranks stop after the
 * same round; the column pass of the round after the last one changes only
 * M words. The passes are the host-driven rounds' own
 * (mis2_dist_kernels.cuh) in the same order, so the set and the rounds
 * equal one process's bit for bit.
 *
 * Why the buffers can be reused without more barriers: a rank stores into
 * another's gM only after passing the T barrier of the round before, which
 * that rank reaches after its decide pass, the last reader of gM; the same
 * holds for gT (stored after the M barrier, read by the column pass before
 * it) and the count rows (round parities: stored a round after they are
 * summed). Only the words a pass writes travel: a vertex leaves the lists
 * in the pass that writes its last word. */
#include "dist_lsa.cuh"
#include "mis2_dist_kernels.cuh"

namespace mis2_dist {

#if MISPC_HAVE_NCCL_LSA
namespace {

using namespace dist_lsa;

/* What the round kernel needs besides the plan (kernel parameter). */
struct Lsa {
  Win w;
  size_t off_t, off_m, off_s; /* gT, gM and gsub in the window */
  const uint8_t *own;
  const unsigned *subset_count;
  uint8_t *in_set;
  unsigned long long *members, *out;
  int max_rounds;
};

/* At least 5 blocks an SM (at most 48 registers): the passes wait on
 * chains of dependent loads, so resident warps are their speed. The 32-bit
 * warp-lane variant took 64 registers, and the grid is the smaller
 * occupancy of the two lane mappings (lsa_grid), so every call had run 4
 * blocks an SM; with 5, Laplace3D_150 MIS-2 on 2 H200s took 0.678 ms
 * against 0.710-0.740 (docs/DISTRIBUTED.md, tenth pass). 6 (40 registers)
 * spills 4-44 bytes a thread and was slower in the same call (0.684 / 0.703
 * against 0.666 / 0.652 ms, eleventh pass); 8 spills 70-110 bytes. */
template <typename W, bool Warp>
__global__ void __launch_bounds__(DIST_BLOCK, 5) rounds_kernel(Plan<W> p, Lsa a) {
  __shared__ Smem sm;
  cg::grid_group grid = cg::this_grid();
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), a.w.dc, ncclTeamTagLsa(), blockIdx.x);
  const Put<W> put_t = {&a.w, a.off_t}, put_m = {&a.w, a.off_m};
  stamp(a.w, 0);
  /* the ghosts' subset flags and round-0 T words; the subset's size (row 2) */
  FOR_VERTEX(v, p.g.nloc) {
    put<uint8_t>(a.w, a.off_s, v, a.own[v]);
    put_t(v, p.T[v]);
  }
  store_count(a.w, 2, *a.subset_count);
  exchanged(bar, grid, a.w, 1);
  int rounds = sum_row(a.w, 2) == 0 ? 0 : -1;
  for (int r = 0; rounds < 0; ++r) {
    column_pass<W, Warp>(p, r, kBoundary, sm, put_m);
    if (r > 0) /* undecided after round r - 1: its decide lists are complete */
      store_count(a.w, (r - 1) & 1, (unsigned long long)p.len[4 * r + 2] + p.len[4 * r + 3]);
    exchanged(bar, grid, a.w, r < kTraceRounds ? 3 + 4 * r : kTraceSlots);
    if (r > 0 && sum_row(a.w, (r - 1) & 1) == 0) {
      rounds = r;
      break;
    }
    if (r == a.max_rounds) break;
    decide_pass<W, Warp>(p, r, kBoundary, sm, put_t);
    exchanged(bar, grid, a.w, r < kTraceRounds ? 5 + 4 * r : kTraceSlots);
  }
  /* the members and their number over the ranks (row 3) */
  unsigned long long mine = 0;
  FOR_VERTEX(v, p.g.nloc) {
    const bool in = p.T[v] == w_in<W>();
    a.in_set[v] = (uint8_t)in;
    mine += in;
  }
  mispc_block_add<DIST_BLOCK>(mine, a.members);
  grid.sync();
  store_count(a.w, 3, *(volatile unsigned long long *)a.members);
  exchanged(bar, grid, a.w, kTraceSlots - 2);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    a.out[0] = sum_row(a.w, 3);
    a.out[1] = (unsigned long long)(long long)(rounds < 0 ? -1 : rounds);
  }
}

template <typename W, bool Warp> const void *kernel_of() {
  return (const void *)rounds_kernel<W, Warp>;
}

} // namespace

template <typename W>
mispc_status lsa_grid(mispc_context *ctx, MPI_Comm comm, mispc_halo_lsa *l, int *blocks) {
  const int k = sizeof(W) == 8;
  if (!l->grid[k]) { /* both lane mappings: ranks may choose differently */
    const void *kernels[2] = {kernel_of<W, false>(), kernel_of<W, true>()};
    MISPC_TRY(dist_lsa_agreed_grid(ctx, comm, l, kernels, 2, DIST_BLOCK, mis_cuda::kPersistentPerSm,
                                   &l->grid[k]));
  }
  *blocks = l->grid[k] > 0 ? l->grid[k] : 0;
  return MISPC_SUCCESS;
}

template <typename W>
mispc_status lsa_rounds(mispc_context *ctx, const Plan<W> &p, const mispc_halo_lsa *l, int blocks,
                        bool warp, const uint8_t *own, const unsigned *subset_count,
                        uint8_t *in_set, int max_rounds, unsigned long long *scratch,
                        unsigned long long *d_out, unsigned long long *trace, cudaStream_t st) {
  Lsa a;
  memset(&a, 0, sizeof a);
  a.w = win_of(l);
  a.w.trace = trace, a.w.trace_slots = kTraceSlots;
  a.off_t = 0, a.off_m = l->ghost_bytes, a.off_s = l->sub_off;
  a.own = own, a.subset_count = subset_count, a.in_set = in_set;
  a.members = scratch, a.out = d_out;
  a.max_rounds = max_rounds;
  Plan<W> pk = p;
  void *args[] = {&pk, &a};
  const void *kernel = warp ? kernel_of<W, true>() : kernel_of<W, false>();
  MISPC_CUDA_TRY(ctx,
                 cudaLaunchCooperativeKernel(kernel, (unsigned)blocks, DIST_BLOCK, args, 0, st));
  return MISPC_SUCCESS;
}

#else

template <typename W> mispc_status lsa_grid(mispc_context *, MPI_Comm, mispc_halo_lsa *, int *b) {
  *b = 0;
  return MISPC_SUCCESS;
}

template <typename W>
mispc_status lsa_rounds(mispc_context *ctx, const Plan<W> &, const mispc_halo_lsa *, int, bool,
                        const uint8_t *, const unsigned *, uint8_t *, int, unsigned long long *,
                        unsigned long long *, unsigned long long *, cudaStream_t) {
  return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "LSA rounds: mispc was built without them");
}

#endif

#define MISPC_LSA_INSTANCES(W)                                                                     \
  template mispc_status lsa_grid<W>(mispc_context *, MPI_Comm, mispc_halo_lsa *, int *);           \
  template mispc_status lsa_rounds<W>(mispc_context *, const Plan<W> &, const mispc_halo_lsa *,    \
                                      int, bool, const uint8_t *, const unsigned *, uint8_t *,     \
                                      int, unsigned long long *, unsigned long long *,             \
                                      unsigned long long *, cudaStream_t);
MISPC_LSA_INSTANCES(uint32_t)
MISPC_LSA_INSTANCES(uint64_t)
#undef MISPC_LSA_INSTANCES

} // namespace mis2_dist
