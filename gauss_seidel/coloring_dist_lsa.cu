/* Distributed GPU coloring in one kernel a rank, where the GPUs reach each
 * other's memory (dist_lsa.cuh): the Jones-Plassmann order of
 * coloring_dist_cuda.cu (a vertex takes the smallest color none of its
 * earlier neighbours in (key, global id) order has, once they all have
 * theirs), so the same unique greedy coloring as one process, but:
 *
 * - Each vertex counts its owned earlier neighbours (pred) once; a vertex
 *   that takes a color stores it, fences, and releases its owned later
 *   neighbours (atomic decrements), as the one-process kernel does
 *   (coloring_cuda.cu). A pass visits a vertex's row only once its count is
 *   0, where the host-driven rounds rescanned every waiting row each pass
 *   (their thread scanning a hub's row again and again: gen:kron:20 took
 *   12.6 s on two H200s, elasticity3d:40 132 ms, against 181 and 1.4 ms on
 *   one; docs/DISTRIBUTED.md, twenty-seventh pass).
 * - The lane that colors a boundary vertex stores the color into the
 *   other ranks' ghost arrays, and an LSA barrier plus a grid barrier end
 *   each pass: no host work between passes (those rounds waited for the host
 *   after every pass and made an exchange and a sum each round).
 *
 * A vertex waiting on a ghost is visited again each pass (jp_visit returns
 * -1) until the ghost's color has arrived. The uncolored count after pass p
 * is summed in pass p + 1 (the count rows, one pass late); since the first
 * uncolored vertex in the order is always ready after a barrier, every pass
 * colors one at least, and a count that does not fall means a pattern that
 * is not symmetric (the caller vouched for it): the kernel stops and says
 * so instead of spinning. */
#include "coloring_dist_cuda.cuh"
#include "dist_lsa.cuh"

namespace color_dist {

#if MISPC_HAVE_NCCL_LSA
namespace {

using namespace dist_lsa;

struct Args {
  Win w;
  dev_graph g;
  size_t off_k, off_c; /* the ghosts' keys and colors in the window */
  int mode;
  uint64_t seed;
  uint32_t *key;
  int32_t *pred, *col;
  const uint32_t *gkey;
  const int32_t *gcol;
  /* [0], [1] uncolored after even / odd passes, [2] the largest color + 1 */
  unsigned long long *cnt;
  long long *out; /* colors over the ranks, passes (-1: stalled) */
};

__global__ void __launch_bounds__(DIST_BLOCK) lsa_kernel(Args a) {
  cg::grid_group grid = cg::this_grid();
  ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), a.w.dc, ncclTeamTagLsa(), blockIdx.x);
  const dev_graph &g = a.g;
  /* keys (as jp_init) and the ghosts' copies of keys and colors (-1: the
   * window holds the words of earlier calls) */
  FOR_VERTEX(v, g.nloc) {
    const int64_t deg = (g.arp[v + 1] - g.arp[v]) + (g.brp[v + 1] - g.brp[v]);
    const uint32_t k = mis1_key(a.mode, a.seed, g.rstart + v, deg);
    a.key[v] = k;
    a.col[v] = -1;
    put<uint32_t>(a.w, a.off_k, v, k);
    put<int32_t>(a.w, a.off_c, v, -1);
  }
  exchanged(bar, grid, a.w, 0);
  FOR_VERTEX(v, g.nloc) {
    const uint32_t kv = a.key[v];
    const int64_t gv = g.rstart + v;
    int32_t n = 0;
    for (int64_t p = g.arp[v]; p < g.arp[v + 1]; ++p) {
      const int32_t u = g.acol[p];
      n += u != v && mis1_before(a.key[u], g.rstart + u, kv, gv);
    }
    a.pred[v] = n;
  }
  grid.sync();
  volatile int32_t *vcol = a.col;
  const volatile int32_t *vpred = a.pred;
  int32_t top = -1;
  long long passes = -2; /* running */
  unsigned long long prev = ~0ull;
  for (int p = 0; passes == -2; ++p) {
    unsigned long long left = 0;
    FOR_VERTEX(v, g.nloc) {
      if (vcol[v] >= 0) continue;
      if (vpred[v] != 0) {
        ++left;
        continue;
      }
      __threadfence(); /* after the count: the releasers' colors */
      const int32_t c = jp_visit(g, a.key, a.gkey, vcol, a.gcol, v);
      if (c < 0) { /* an earlier ghost has no color here yet */
        ++left;
        continue;
      }
      vcol[v] = c;
      put<int32_t>(a.w, a.off_c, v, c);
      top = c > top ? c : top;
      __threadfence(); /* the color before the releases */
      const uint32_t kv = a.key[v];
      const int64_t gv = g.rstart + v;
      for (int64_t q = g.arp[v]; q < g.arp[v + 1]; ++q) {
        const int32_t u = g.acol[q];
        if (u != v && mis1_before(kv, gv, a.key[u], g.rstart + u)) atomicSub(a.pred + u, 1);
      }
    }
    mispc_block_add<DIST_BLOCK>(left, a.cnt + (p & 1));
    if (p > 0) { /* pass p - 1's count is whole (its barrier); then free its word */
      store_count(a.w, (p - 1) & 1, word(a.cnt + ((p - 1) & 1)));
      __syncthreads();
      if (blockIdx.x == 0 && threadIdx.x == 0) a.cnt[(p - 1) & 1] = 0;
    }
    exchanged(bar, grid, a.w, 0);
    if (p > 0) {
      const unsigned long long s = sum_row(a.w, (p - 1) & 1);
      if (s == 0)
        passes = p;
      else if (s == prev)
        passes = -1;
      prev = s;
    }
  }
  const unsigned t = mispc_block_max<DIST_BLOCK>((unsigned)(top + 1));
  if (threadIdx.x == 0 && t) atomicMax(a.cnt + 2, (unsigned long long)t);
  grid.sync();
  store_count(a.w, 2, word(a.cnt + 2));
  exchanged(bar, grid, a.w, 0);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    a.out[0] = (long long)max_row(a.w, 2);
    a.out[1] = passes;
  }
}

} // namespace

mispc_status lsa_grid(mispc_context *ctx, MPI_Comm comm, mispc_halo_lsa *l, int *blocks) {
  if (!l->color_grid) {
    int sms = 0, coop = 0, per_sm = 0;
    MISPC_TRY(mispc_device_caps(ctx, &sms, &coop));
    if (coop) MISPC_TRY(mispc_kernel_occupancy(ctx, (const void *)lsa_kernel, DIST_BLOCK, &per_sm));
    if (per_sm > 8) per_sm = 8; /* as the persistent MIS kernels */
    int g = coop ? sms * per_sm : 0;
    if (g > l->max_blocks) g = l->max_blocks;
    MPI_Allreduce(MPI_IN_PLACE, &g, 1, MPI_INT, MPI_MIN, comm);
    l->color_grid = g > 0 ? g : -1;
  }
  *blocks = l->color_grid > 0 ? l->color_grid : 0;
  return MISPC_SUCCESS;
}

mispc_status lsa_color(mispc_context *ctx, const dev_graph &d, const mispc_halo_lsa *l, int blocks,
                       int mode, uint64_t seed, uint32_t *key, int32_t *pred, int32_t *col,
                       int32_t *gcol, int64_t ng, long long *word, cudaStream_t st) {
  Args a;
  memset(&a, 0, sizeof a);
  a.w = win_of(l);
  a.g = d;
  a.off_k = 0, a.off_c = l->ghost_bytes;
  a.mode = mode, a.seed = seed;
  a.key = key, a.pred = pred, a.col = col;
  a.gkey = (const uint32_t *)l->base;
  a.gcol = (const int32_t *)(l->base + l->ghost_bytes);
  a.cnt = (unsigned long long *)word + 2;
  a.out = word;
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(word, 0, 5 * sizeof(long long), st));
  void *args[] = {&a};
  MISPC_CUDA_TRY(ctx, cudaLaunchCooperativeKernel((const void *)lsa_kernel, (unsigned)blocks,
                                                  DIST_BLOCK, args, 0, st));
  if (ng > 0) /* the ghosts' colors, for the recoloring passes */
    MISPC_CUDA_TRY(ctx,
                   cudaMemcpyAsync(gcol, a.gcol, (size_t)ng * 4, cudaMemcpyDeviceToDevice, st));
  return MISPC_SUCCESS;
}

#else

mispc_status lsa_grid(mispc_context *, MPI_Comm, mispc_halo_lsa *, int *blocks) {
  *blocks = 0;
  return MISPC_SUCCESS;
}

mispc_status lsa_color(mispc_context *ctx, const dev_graph &, const mispc_halo_lsa *, int, int,
                       uint64_t, uint32_t *, int32_t *, int32_t *, int32_t *, int64_t, long long *,
                       cudaStream_t) {
  return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "LSA coloring: mispc was built without it");
}

#endif

} // namespace color_dist
