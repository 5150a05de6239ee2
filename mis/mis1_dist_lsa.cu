/* Distributed MIS-1 rounds in one kernel a rank (tuning dist_lsa_rounds,
 * as MIS-2's: mis2_dist_lsa.cu): where every rank's GPU can load and store
 * the others' memory (the NCCL device API's LSA team), the lane that
 * decides an owned boundary vertex stores its ghost copies straight into
 * the other ranks' windows (dist_lsa.cuh), and an LSA barrier a block plus
 * a grid barrier end each exchange. The host-driven rounds
 * (mis_dist_cuda.cu) make two NCCL exchanges and a host wait for the count
 * every round.
 *
 * A round is the host's (mis1_dist.c): a vertex joins when no undecided
 * neighbour comes before it in (key, global id) order, then its undecided
 * neighbours leave. Each reads only words written before a barrier:
 * - select reads the states of the round's start (owned: st; ghosts: gst,
 *   which other ranks write only in their remove pass, after the barrier
 *   that follows every select) and marks sel;
 * - after the grid barrier the members turn IN and store an IN flag into
 *   the ghost arrays gin (read only by remove), then the exchange;
 * - remove turns every undecided vertex with an IN neighbour OUT and stores
 *   OUT into gst (an IN ghost stays undecided there: no undecided vertex is
 *   next to one, so select never asks), and counts the undecided ones;
 *   the count row of the round's parity, summed after the exchange by every
 *   rank, stops all ranks after the same round.
 * So the set and the round count equal the host's bit for bit. A first
 * barrier before any store into another rank's window: that rank's earlier
 * work on the window (a copy out of it) is then done. */
#include "dist_lsa.cuh"
#include "mis_common.h"
#include "mis_dist_backend.h"
#include "mis1_dist_lsa.h"

namespace mis1_dist {

#if MISPC_HAVE_NCCL_LSA
namespace {

using namespace dist_lsa;

enum { UNDECIDED = 0, IN = 1, OUT = 2 };

struct Args {
  Win w;
  dev_graph g;
  int mode, max_rounds;
  uint64_t seed;
  const uint8_t *subset;
  uint8_t *st, *sel, *in_set;
  uint32_t *key;
  size_t off_k, off_s, off_i; /* gkey, gst, gin in the window */
  const uint32_t *gkey;
  const uint8_t *gst, *gin;
  unsigned long long *cnt; /* [0] subset, [1], [2] undecided by parity, [3] members */
  unsigned long long *out; /* set size over the ranks, rounds (-1: max_rounds ran out, and
                              out[0] the undecided vertices) */
};

__global__ void __launch_bounds__(DIST_BLOCK) rounds_kernel(Args a) {
  cg::grid_group grid = cg::this_grid();
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), a.w.dc, ncclTeamTagLsa(), blockIdx.x);
  const dev_graph &g = a.g;
  exchanged(bar, grid, a.w, 0); /* every rank in the kernel: its earlier window work done */
  constexpr int kLast = kTraceSlots1 - 2; /* the members' exchange; rounds past the trace's too */
  unsigned long long inside = 0;
  FOR_VERTEX(v, g.nloc) {
    const int64_t deg = (g.arp[v + 1] - g.arp[v]) + (g.brp[v + 1] - g.brp[v]);
    const bool in = !a.subset || a.subset[v];
    const uint32_t cls =
        in && a.mode == MIS1_KEY_LINES
            ? mis1_line_class(g.acol + g.arp[v], g.arp[v + 1] - g.arp[v], g.rstart,
                              g.bcol + g.brp[v], g.brp[v + 1] - g.brp[v], g.garray, g.rstart + v)
            : 1u;
    const uint32_t k = in ? mis1_key_of(a.mode, a.seed, g.rstart + v, deg, cls) : MIS1_KEY_NONE;
    const uint8_t s = in ? UNDECIDED : OUT;
    a.key[v] = k;
    a.st[v] = s;
    put<uint32_t>(a.w, a.off_k, v, k);
    put<uint8_t>(a.w, a.off_s, v, s);
    put<uint8_t>(a.w, a.off_i, v, (uint8_t)0);
    inside += in;
  }
  mispc_block_add<DIST_BLOCK>(inside, a.cnt);
  grid.sync();
  store_count(a.w, 0, mispc_load_word(a.cnt));
  exchanged(bar, grid, a.w, 2);
  unsigned long long undecided = sum_row(a.w, 0);
  /* words other blocks or ranks wrote since the last barrier: not from L1 */
  const volatile uint8_t *vst = a.st, *gst = a.gst, *gin = a.gin;
  long long rounds = 0;
  for (int r = 0; undecided > 0; ++r) {
    if (r == a.max_rounds) {
      rounds = -1;
      break;
    }
    FOR_VERTEX(v, g.nloc) {
      bool blocked = vst[v] != UNDECIDED;
      const uint32_t kv = a.key[v];
      const int64_t gv = g.rstart + v;
      for (int64_t p = g.arp[v]; p < g.arp[v + 1] && !blocked; ++p) {
        const int32_t u = g.acol[p];
        blocked = u != v && vst[u] == UNDECIDED && mis1_before(a.key[u], g.rstart + u, kv, gv);
      }
      for (int64_t p = g.brp[v]; p < g.brp[v + 1] && !blocked; ++p) {
        const int32_t j = g.bcol[p];
        blocked = gst[j] == UNDECIDED && mis1_before(a.gkey[j], g.garray[j], kv, gv);
      }
      a.sel[v] = (uint8_t)!blocked;
    }
    grid.sync();
    FOR_VERTEX(v, g.nloc) if (a.sel[v]) {
      a.st[v] = IN;
      put<uint8_t>(a.w, a.off_i, v, (uint8_t)1);
    }
    exchanged(bar, grid, a.w, r < kTraceRounds1 ? 4 + 4 * r : kLast);
    unsigned long long left = 0;
    FOR_VERTEX(v, g.nloc) {
      if (vst[v] != UNDECIDED) continue;
      bool hit = false; /* IN words only: never written in this pass */
      for (int64_t p = g.arp[v]; p < g.arp[v + 1] && !hit; ++p) hit = vst[g.acol[p]] == IN;
      for (int64_t p = g.brp[v]; p < g.brp[v + 1] && !hit; ++p) hit = gin[g.bcol[p]] != 0;
      if (hit) {
        a.st[v] = OUT;
        put<uint8_t>(a.w, a.off_s, v, (uint8_t)OUT);
      } else {
        ++left;
      }
    }
    unsigned long long *word = a.cnt + 1 + (r & 1);
    mispc_block_add<DIST_BLOCK>(left, word);
    grid.sync();
    store_count(a.w, 1 + (r & 1), mispc_load_word(word));
    /* the next round's word, read two rounds ago (a grid barrier since) */
    if (blockIdx.x == 0 && threadIdx.x == 0) a.cnt[1 + ((r + 1) & 1)] = 0;
    exchanged(bar, grid, a.w, r < kTraceRounds1 ? 6 + 4 * r : kLast);
    undecided = sum_row(a.w, 1 + (r & 1));
    rounds = r + 1;
  }
  unsigned long long mine = 0;
  FOR_VERTEX(v, g.nloc) {
    const bool in = vst[v] == IN;
    a.in_set[v] = (uint8_t)in;
    mine += in;
  }
  mispc_block_add<DIST_BLOCK>(mine, a.cnt + 3);
  grid.sync();
  store_count(a.w, 3, mispc_load_word(a.cnt + 3));
  exchanged(bar, grid, a.w, kLast);
  if (blockIdx.x == 0 && threadIdx.x == 0) { /* ran out: the undecided vertices instead */
    a.out[0] = rounds < 0 ? undecided : sum_row(a.w, 3);
    a.out[1] = (unsigned long long)rounds;
  }
}

} // namespace

mispc_status lsa_grid(mispc_context *ctx, MPI_Comm comm, mispc_halo_lsa *l, int *blocks) {
  /* blocks an SM: tuning dist_mis1_blocks, else 8 (kept with the plan) */
  const int knob = ctx->tuning.dist_mis1_blocks;
  const void *kernel = (const void *)rounds_kernel;
  if (knob) {
    int g = 0;
    MISPC_TRY(dist_lsa_agreed_grid(ctx, comm, l, &kernel, 1, DIST_BLOCK, knob, &g));
    *blocks = g > 0 ? g : 0;
    return MISPC_SUCCESS;
  }
  if (!l->mis1_grid)
    MISPC_TRY(dist_lsa_agreed_grid(ctx, comm, l, &kernel, 1, DIST_BLOCK, 8, &l->mis1_grid));
  *blocks = l->mis1_grid > 0 ? l->mis1_grid : 0;
  return MISPC_SUCCESS;
}

mispc_status lsa_rounds(mispc_context *ctx, const dev_graph &d, const mispc_halo_lsa *l, int blocks,
                        int mode, uint64_t seed, int max_rounds, const uint8_t *subset, uint8_t *st,
                        uint8_t *sel, uint32_t *key, uint8_t *in_set, unsigned long long *words,
                        unsigned long long *trace, cudaStream_t s) {
  Args a;
  memset(&a, 0, sizeof a);
  a.w = win_of(l);
  a.w.trace = trace, a.w.trace_slots = kTraceSlots1;
  a.g = d;
  a.mode = mode, a.max_rounds = max_rounds, a.seed = seed;
  a.subset = subset, a.st = st, a.sel = sel, a.in_set = in_set, a.key = key;
  a.off_k = 0, a.off_s = l->ghost_bytes, a.off_i = 2 * l->ghost_bytes;
  a.gkey = (const uint32_t *)l->base;
  a.gst = (const uint8_t *)(l->base + a.off_s);
  a.gin = (const uint8_t *)(l->base + a.off_i);
  a.out = words;
  a.cnt = words + 2;
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(words, 0, 6 * sizeof(unsigned long long), s));
  void *args[] = {&a};
  MISPC_CUDA_TRY(ctx, cudaLaunchCooperativeKernel((const void *)rounds_kernel, (unsigned)blocks,
                                                  DIST_BLOCK, args, 0, s));
  return MISPC_SUCCESS;
}

#else

mispc_status lsa_grid(mispc_context *, MPI_Comm, mispc_halo_lsa *, int *blocks) {
  *blocks = 0;
  return MISPC_SUCCESS;
}

mispc_status lsa_rounds(mispc_context *ctx, const dev_graph &, const mispc_halo_lsa *, int, int,
                        uint64_t, int, const uint8_t *, uint8_t *, uint8_t *, uint32_t *, uint8_t *,
                        unsigned long long *, unsigned long long *, cudaStream_t) {
  return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "LSA rounds: mispc was built without them");
}

#endif

} // namespace mis1_dist
