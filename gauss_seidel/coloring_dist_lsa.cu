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
 * A vertex waiting on a ghost is visited again each pass (visit returns
 * -1) until the ghost's color has arrived. The uncolored count after pass p
 * is summed in pass p + 1 (the count rows, one pass late); since the first
 * uncolored vertex in the order is always ready after a barrier, every pass
 * colors one at least, and a count that does not fall means a pattern that
 * is not symmetric (the caller vouched for it): the kernel stops and says
 * so instead of spinning. */
#include "color_backend.h"
#include "coloring_dist_cuda.cuh"
#include "dist_lsa.cuh"

namespace color_dist {

#if MISPC_HAVE_NCCL_LSA
namespace {

using namespace dist_lsa;

constexpr unsigned long long kStallNs = MISPC_COLOR_STALL_NS;

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

/* One pass: each group of L lanes takes L vertices at a time, finds those
 * ready (no color, count 0) and colors them one after the other together
 * (a vertex's row read by L lanes: one thread a row of elasticity3d:40's 81
 * entries made a pass about 130 us, 147 passes). Returns this lane's count
 * of vertices left without a color; did: whether the group colored one. */
template <int L>
__device__ __forceinline__ unsigned long long pass(const Args &a, int32_t &top, int &did) {
  const dev_graph &g = a.g;
  volatile int32_t *vcol = a.col;
  const volatile int32_t *vpred = a.pred;
  const int gl = Lanes<L>::lane();
  const int64_t first = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / L * L;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  unsigned long long left = 0;
  for (int64_t b = first; b < g.nloc; b += stride) {
    const int64_t v = b + gl;
    const bool open = v < g.nloc && vcol[v] < 0;
    const bool ready = open && vpred[v] == 0;
    left += open && !ready;
    for (unsigned todo = Lanes<L>::ballot(ready); todo; todo &= todo - 1) {
      const int src = __ffs(todo) - 1;
      const int64_t x = b + src;
      __threadfence(); /* after the count: the releasers' colors */
      const int32_t c = visit<L>(g, a.key, a.gkey, vcol, a.gcol, x);
      if (c < 0) { /* an earlier ghost has no color here yet */
        left += gl == src;
        continue;
      }
      did = 1;
      if (gl == 0) {
        vcol[x] = c;
        put<int32_t>(a.w, a.off_c, x, c);
        top = c > top ? c : top;
      }
      if (L > 1) __syncwarp(Lanes<L>::mask());
      __threadfence(); /* the color before the releases */
      const uint32_t kx = a.key[x];
      const int64_t gx = g.rstart + x;
      for (int64_t q = g.arp[x] + gl; q < g.arp[x + 1]; q += L) {
        const int32_t u = g.acol[q];
        if (u != x && mis1_before(kx, gx, a.key[u], g.rstart + u)) atomicSub(a.pred + u, 1);
      }
    }
  }
  return left;
}

/* Without barriers, as the one-process kernel (coloring_cuda.cu): each
 * group sweeps its vertices until all have a color; an owned earlier
 * neighbour's color comes with its release, a ghost's over NVLink whenever
 * its owner colors it (all blocks of every rank are resident: the first
 * uncolored vertex in the order can always go). A warp that colors
 * nothing for kStallNs (a pattern that is not symmetric) stops, and the
 * warps of other ranks that wait on it stop as long after. Returns the
 * warp's sweeps, -1 where it stopped. The default; tuning
 * dist_color_barriers=1 ends each pass at a barrier instead (two H200s,
 * polled against barriers: laplace3d:150 1.52 / 2.36 ms, elasticity3d:40
 * 1.18 / 3.75, random:2000000:16 3.5 / 5.4, kron:18 249 / 322;
 * docs/DISTRIBUTED.md, twenty-ninth pass). */
template <int L> __device__ __forceinline__ long long polled(const Args &a, int32_t &top) {
  unsigned long long last = mispc_global_ns();
  for (long long sweeps = 1;; ++sweeps) {
    int did = 0;
    const unsigned long long left = pass<L>(a, top, did);
    /* decided by the whole warp: a group that left while others of its
     * warp went on would reach the block barriers after the loop alone */
    if (!__any_sync(0xffffffffu, left > 0)) return sweeps;
    const unsigned long long now = mispc_global_ns();
    if (__any_sync(0xffffffffu, did)) last = now;
    if (__any_sync(0xffffffffu, now - last > kStallNs)) return -1;
  }
}

template <int L, bool Polled> __global__ void __launch_bounds__(DIST_BLOCK) lsa_kernel(Args a) {
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
  int32_t top = -1;
  long long passes = -2; /* running */
  if (Polled) {
    /* stopped groups over the ranks (count row 0), the most sweeps (cnt[1]) */
    const long long mine = polled<L>(a, top);
    mispc_block_add<DIST_BLOCK>((unsigned long long)(mine < 0), a.cnt);
    const unsigned most = mispc_block_max<DIST_BLOCK>((unsigned)(mine > 0 ? mine : 0));
    if (threadIdx.x == 0 && most) atomicMax(a.cnt + 1, (unsigned long long)most);
    grid.sync();
    store_count(a.w, 0, mispc_load_word(a.cnt));
    exchanged(bar, grid, a.w, 0); /* and every color stored into the windows */
    passes = sum_row(a.w, 0) ? -1 : (long long)mispc_load_word(a.cnt + 1);
  }
  unsigned long long prev = ~0ull;
  for (int p = 0; passes == -2; ++p) {
    int did = 0;
    const unsigned long long left = pass<L>(a, top, did);
    mispc_block_add<DIST_BLOCK>(left, a.cnt + (p & 1));
    if (p > 0) { /* pass p - 1's count is whole (its barrier); then free its word */
      store_count(a.w, (p - 1) & 1, mispc_load_word(a.cnt + ((p - 1) & 1)));
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
  store_count(a.w, 2, mispc_load_word(a.cnt + 2));
  exchanged(bar, grid, a.w, 0);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    a.out[0] = (long long)max_row(a.w, 2);
    a.out[1] = passes;
  }
}

/* the kernel of L lanes a vertex (1, 8, 32), polled or a barrier a pass */
template <int L> const void *kernel_for(bool polled) {
  return polled ? (const void *)lsa_kernel<L, true> : (const void *)lsa_kernel<L, false>;
}

const void *kernel_of(int lanes, bool polled) {
  return lanes == 1   ? kernel_for<1>(polled)
         : lanes == 8 ? kernel_for<8>(polled)
                      : kernel_for<32>(polled);
}

} // namespace

mispc_status lsa_plan(mispc_context *ctx, MPI_Comm comm, mispc_halo_lsa *l, int64_t nnz,
                      int64_t nloc, int *lanes, int *blocks) {
  /* tuning dist_color_lanes (the same on every rank), else by the rows:
   * one thread up to 12 entries (as the one-process kernels), 8 up to 48,
   * else a warp, the most any rank wants (collective once a plan) */
  const int knob = ctx->tuning.dist_color_lanes;
  if (knob == 1 || knob == 8 || knob == 32) {
    *lanes = knob;
  } else {
    if (!l->color_lanes) {
      int want = nnz <= 12 * nloc ? 1 : nnz <= 48 * nloc ? 8 : 32;
      MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT, MPI_MAX, comm);
      l->color_lanes = want;
    }
    *lanes = l->color_lanes;
  }
  /* the grid of that kernel: a lane count's own occupancy (the least of
   * the three made laplace3d:150 run on half the blocks of the one-thread
   * kernel's: docs/DISTRIBUTED.md, twenty-seventh pass) */
  const bool polled = !ctx->tuning.dist_color_barriers;
  const int k = (*lanes == 1 ? 0 : *lanes == 8 ? 1 : 2) + (polled ? 3 : 0);
  if (!l->color_grid[k]) {
    const void *kernel = kernel_of(*lanes, polled);
    MISPC_TRY(dist_lsa_agreed_grid(ctx, comm, l, &kernel, 1, DIST_BLOCK, 8, &l->color_grid[k]));
  }
  *blocks = l->color_grid[k] > 0 ? l->color_grid[k] : 0;
  return MISPC_SUCCESS;
}

mispc_status lsa_color(mispc_context *ctx, const dev_graph &d, const mispc_halo_lsa *l, int blocks,
                       int lanes, int mode, uint64_t seed, uint32_t *key, int32_t *pred,
                       int32_t *col, int32_t *gcol, int64_t ng, long long *word, cudaStream_t st) {
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
  const void *kernel = kernel_of(lanes, !ctx->tuning.dist_color_barriers);
  void *args[] = {&a};
  MISPC_CUDA_TRY(ctx,
                 cudaLaunchCooperativeKernel(kernel, (unsigned)blocks, DIST_BLOCK, args, 0, st));
  if (ng > 0) /* the ghosts' colors, for the recoloring passes */
    MISPC_CUDA_TRY(ctx,
                   cudaMemcpyAsync(gcol, a.gcol, (size_t)ng * 4, cudaMemcpyDeviceToDevice, st));
  return MISPC_SUCCESS;
}

#else

mispc_status lsa_plan(mispc_context *, MPI_Comm, mispc_halo_lsa *, int64_t, int64_t, int *lanes,
                      int *blocks) {
  *lanes = 1;
  *blocks = 0;
  return MISPC_SUCCESS;
}

mispc_status lsa_color(mispc_context *ctx, const dev_graph &, const mispc_halo_lsa *, int, int, int,
                       uint64_t, uint32_t *, int32_t *, int32_t *, int32_t *, int64_t, long long *,
                       cudaStream_t) {
  return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "LSA coloring: mispc was built without it");
}

#endif

} // namespace color_dist
