/* Distributed coloring on the GPU (device graphs on several ranks): the
 * rounds of coloring_dist.c with one thread a vertex, ghost colors refreshed
 * by the device halo exchange (dist_halo_cuda.cu).
 *
 * Jones-Plassmann: a vertex is colored (smallest color none of its earlier
 * neighbours in (key, global id) order has) only once every earlier
 * neighbour has its color. Colors move only from -1 to their final value,
 * so a thread that reads an owned neighbour's color either sees -1 (waits)
 * or the final color, whether or not it was written in the same launch:
 * the colors are the unique greedy coloring in that order, as on the host;
 * only the number of passes depends on timing. Each round runs local passes
 * until one colors nothing here (chains inside the rank need no exchange),
 * then exchanges the colors of the boundary (int32) and sums what is left.
 *
 * Iterated greedy recoloring: class by class from the last, a kernel a
 * class (the vertices of one class are not adjacent, and a vertex reads
 * only neighbours of classes above it, recolored by earlier launches), one
 * exchange a class, as the host. Colors are in device memory.
 *
 * Where the GPUs reach each other's memory the Jones-Plassmann passes run
 * in one kernel a rank instead (coloring_dist_lsa.cu: release counts, no
 * host work between passes; the same colors). */
#include "coloring_dist_cuda.cuh"
#include "dist_lsa.cuh"

namespace {

using namespace color_dist;

enum { kColored = 0, kLeft = 1 }; /* counters of a pass */

__global__ void jp_init(dev_graph g, int mode, uint64_t seed, uint32_t *key, int32_t *col) {
  FOR_VERTEX(v, g.nloc) {
    const int64_t deg = (g.arp[v + 1] - g.arp[v]) + (g.brp[v + 1] - g.brp[v]);
    key[v] = mis1_key(mode, seed, g.rstart + v, deg);
    col[v] = -1;
  }
}

__global__ void jp_pass(dev_graph g, const uint32_t *key, const uint32_t *gkey, int32_t *col,
                        const int32_t *gcol, unsigned long long *cnt, int *top) {
  volatile int32_t *vcol = col;
  unsigned long long colored = 0, left = 0;
  int32_t hi = -1;
  FOR_VERTEX(v, g.nloc) {
    if (vcol[v] >= 0) continue;
    const int32_t c = visit<1>(g, key, gkey, vcol, gcol, v);
    if (c >= 0) {
      vcol[v] = c;
      ++colored;
      hi = c > hi ? c : hi;
    } else {
      ++left;
    }
  }
  /* one atomic a block a word (mispc_block_add) */
  mispc_block_add<DIST_BLOCK>(colored, cnt + kColored);
  mispc_block_add<DIST_BLOCK>(left, cnt + kLeft);
  hi = mispc_block_reduce<DIST_BLOCK>(hi, (int32_t)-1,
                                      [](int32_t a, int32_t b) { return b > a ? b : a; });
  if (threadIdx.x == 0 && hi >= 0) atomicMax(top, hi);
}

/* Recolor the vertices of old class c: the smallest color not taken by a
 * neighbour of an old class above c (already recolored). */
__global__ void recolor_class(dev_graph g, const int32_t *old, const int32_t *gold, int32_t *col,
                              const int32_t *gcol, int32_t c, int *top) {
  FOR_VERTEX(v, g.nloc) {
    if (old[v] != c) continue;
    int32_t pick = -1;
    for (int32_t base = 0; pick < 0; base += 64) {
      uint64_t taken = 0;
      for (int64_t p = g.arp[v]; p < g.arp[v + 1]; ++p) {
        const int32_t u = g.acol[p], cu = col[u];
        if (old[u] > c && cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
      }
      for (int64_t p = g.brp[v]; p < g.brp[v + 1]; ++p) {
        const int32_t j = g.bcol[p], cu = gcol[j];
        if (gold[j] > c && cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
      }
      if (~taken) pick = base + __ffsll((long long)~taken) - 1;
    }
    col[v] = pick;
    atomicMax(top, pick);
  }
}

typedef mispc_scratch_list dev_buffers;

mispc_status scratch(mispc_context *ctx, dev_buffers *b, size_t bytes, void **out) {
  return mispc_scratch_list_alloc(ctx, b, bytes, "distributed coloring scratch", out);
}

mispc_status max_over(mispc_context *ctx, MPI_Comm comm, int32_t *v) {
  int32_t in = *v;
  if (MPI_Allreduce(&in, v, 1, MPI_INT32_T, MPI_MAX, comm) != MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Allreduce failed");
  return MISPC_SUCCESS;
}

typedef struct work {
  dev_graph d;
  cudaStream_t st;
  unsigned grid;
  uint32_t *key, *gkey;
  int32_t *gcol, *old, *gold;
  unsigned long long *cnt; /* kColored, kLeft */
  int *top;
  mispc_halo_lsa *lsa; /* all passes in one kernel a rank (NULL: the host-driven rounds) */
  int lsa_blocks, lsa_lanes;
  int32_t *pred;   /* one kernel: owned earlier neighbours not yet colored */
  long long *word; /* one kernel: its five words */
} work;

/* Whether the passes run in one kernel a rank (coloring_dist_lsa.cu):
 * wherever NCCL's LSA team holds every rank, unless tuning
 * dist_lsa_rounds is 2. Unlike MIS-2 (dist_lsa_wanted) not only on small
 * halos: the host-driven rounds wait for the host after every pass, and
 * graphs whose ranks send about every vertex (gen:kron:20) took the longest
 * there (docs/DISTRIBUTED.md, twenty-seventh pass). Collective. */
mispc_status choose_lsa(mispc_context *ctx, const mispc_dist_csr *g, work *w) {
  w->lsa = NULL;
  w->lsa_blocks = 0;
  if (ctx->tuning.dist_lsa_rounds == 2 || !g->halo->nccl) return MISPC_SUCCESS;
  MISPC_TRY(mispc_halo_lsa_get(ctx, g->halo, g->comm, g->rend - g->rstart, &w->lsa));
  if (w->lsa)
    MISPC_TRY(lsa_plan(ctx, g->comm, w->lsa, g->diag.nnz + g->offd.nnz, g->rend - g->rstart,
                       &w->lsa_lanes, &w->lsa_blocks));
  if (w->lsa_blocks <= 0) w->lsa = NULL;
  return MISPC_SUCCESS;
}

mispc_status setup(mispc_context *ctx, const mispc_dist_csr *g, int recolor, work *w,
                   dev_buffers *b) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  MISPC_TRY(mispc_stream(ctx, &w->st));
  MISPC_TRY(dist_device_view(ctx, g, &w->d));
  MISPC_TRY(scratch(ctx, b, (size_t)nloc * 4, (void **)&w->key));
  MISPC_TRY(scratch(ctx, b, (size_t)ng * 4, (void **)&w->gkey));
  MISPC_TRY(scratch(ctx, b, (size_t)ng * 4, (void **)&w->gcol));
  MISPC_TRY(scratch(ctx, b, 16, (void **)&w->cnt));
  MISPC_TRY(scratch(ctx, b, 8, (void **)&w->top));
  w->pred = NULL;
  w->word = NULL;
  if (w->lsa) {
    MISPC_TRY(scratch(ctx, b, (size_t)nloc * 4, (void **)&w->pred));
    MISPC_TRY(scratch(ctx, b, 5 * sizeof(long long), (void **)&w->word));
  }
  w->old = w->gold = NULL;
  if (recolor > 0) {
    MISPC_TRY(scratch(ctx, b, (size_t)nloc * 4, (void **)&w->old));
    MISPC_TRY(scratch(ctx, b, (size_t)ng * 4, (void **)&w->gold));
  }
  w->grid = mispc_device_grid(ctx, nloc, DIST_BLOCK);
  return MISPC_SUCCESS;
}

/* The passes in one kernel a rank; *ncolors: the global count. */
mispc_status color_lsa(mispc_context *ctx, const mispc_dist_csr *g, int mode, uint64_t seed,
                       work *w, int32_t *col, int32_t *ncolors) {
  MISPC_TRY(lsa_color(ctx, w->d, w->lsa, w->lsa_blocks, w->lsa_lanes, mode, seed, w->key, w->pred,
                      col, w->gcol, g->nghost, w->word, w->st));
  long long h[2] = {0, 0};
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(h, w->word, sizeof h, cudaMemcpyDeviceToHost, w->st));
  MISPC_TRY(mispc_sync(ctx, w->st, "distributed coloring (one kernel)"));
  if (h[1] < 0) /* the same on every rank: all sum the same counts */
    return mispc_seterr(ctx, MISPC_ERR_UNSYMMETRIC,
                        "mispc_dist_color: the coloring stalled (the pattern must be symmetric "
                        "without repeated entries)");
  /* each boundary vertex's key and color, once each */
  g->halo->stats.exchanges += 2;
  g->halo->stats.bytes_sent += g->halo->nsend * 8;
  mispc_logf(ctx, 2,
             "dist GPU coloring (one kernel of %d blocks, %d lanes a vertex): %lld %s, %lld "
             "colors",
             w->lsa_blocks, w->lsa_lanes, h[1],
             ctx->tuning.dist_color_barriers ? "passes" : "sweeps at most (polled)", h[0]);
  *ncolors = (int32_t)h[0];
  return MISPC_SUCCESS;
}

/* Jones-Plassmann rounds; *ncolors: the global count. */
mispc_status color_jp(mispc_context *ctx, const mispc_dist_csr *g, int mode, uint64_t seed, work *w,
                      int32_t *col, int32_t *ncolors) {
  if (w->lsa) return color_lsa(ctx, g, mode, seed, w, col, ncolors);
  const cudaStream_t st = w->st;
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(w->top, 0xff, sizeof(int), st)); /* -1 */
  jp_init<<<w->grid, DIST_BLOCK, 0, st>>>(w->d, mode, seed, w->key, col);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, w->key, w->gkey, 4));
  MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, col, w->gcol, 4)); /* all -1 */
  int64_t left = g->rend - g->rstart;
  MISPC_TRY(mispc_dist_sum(ctx, g->halo, g->comm, &left));
  for (int r = 1; left > 0; ++r) {
    /* Local passes while they color something here (ghost colors fixed). */
    unsigned long long h[2] = {0, 0};
    int passes = 0;
    do {
      MISPC_CUDA_TRY(ctx, cudaMemsetAsync(w->cnt, 0, 2 * sizeof(unsigned long long), st));
      jp_pass<<<w->grid, DIST_BLOCK, 0, st>>>(w->d, w->key, w->gkey, col, w->gcol, w->cnt, w->top);
      MISPC_CUDA_LAUNCH_CHECK(ctx);
      MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(h, w->cnt, sizeof h, cudaMemcpyDeviceToHost, st));
      MISPC_TRY(mispc_sync(ctx, st, "distributed coloring pass"));
      ++passes;
    } while (h[kColored] > 0 && h[kLeft] > 0);
    MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, col, w->gcol, 4));
    left = (int64_t)h[kLeft];
    MISPC_TRY(mispc_dist_sum(ctx, g->halo, g->comm, &left));
    mispc_logf(ctx, 2, "dist GPU coloring round %d: %d local passes, %lld vertices left", r, passes,
               (long long)left);
  }
  int32_t top = -1;
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(&top, w->top, sizeof top, cudaMemcpyDeviceToHost, st));
  MISPC_TRY(mispc_sync(ctx, st, "distributed coloring"));
  MISPC_TRY(max_over(ctx, g->comm, &top));
  *ncolors = top + 1;
  return MISPC_SUCCESS;
}

/* Iterated greedy recoloring, `passes` times (gcol is current on entry). */
mispc_status recolor(mispc_context *ctx, const mispc_dist_csr *g, int passes, work *w, int32_t *col,
                     int32_t *ncolors) {
  const cudaStream_t st = w->st;
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  for (int pass = 1; pass <= passes; ++pass) {
    if (nloc > 0)
      MISPC_CUDA_TRY(ctx,
                     cudaMemcpyAsync(w->old, col, (size_t)nloc * 4, cudaMemcpyDeviceToDevice, st));
    if (ng > 0)
      MISPC_CUDA_TRY(
          ctx, cudaMemcpyAsync(w->gold, w->gcol, (size_t)ng * 4, cudaMemcpyDeviceToDevice, st));
    MISPC_CUDA_TRY(ctx, cudaMemsetAsync(w->top, 0xff, sizeof(int), st)); /* -1 */
    for (int32_t c = *ncolors - 1; c >= 0; --c) {
      recolor_class<<<w->grid, DIST_BLOCK, 0, st>>>(w->d, w->old, w->gold, col, w->gcol, c, w->top);
      MISPC_CUDA_LAUNCH_CHECK(ctx);
      MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, col, w->gcol, 4));
    }
    int32_t top = -1;
    MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(&top, w->top, sizeof top, cudaMemcpyDeviceToHost, st));
    MISPC_TRY(mispc_sync(ctx, st, "distributed recoloring"));
    MISPC_TRY(max_over(ctx, g->comm, &top));
    mispc_logf(ctx, 2, "dist GPU recoloring pass %d: %d -> %d colors", pass, *ncolors, top + 1);
    *ncolors = top + 1;
  }
  return MISPC_SUCCESS;
}

} // namespace

extern "C" mispc_status mispc_dist_color_cuda(mispc_context *ctx, const mispc_dist_csr *g, int mode,
                                              uint64_t seed, int recolor_passes, int32_t *color,
                                              int32_t *ncolors) {
  dev_buffers b = {{0}, 0};
  work w;
  /* The path, then scratch, agreed: a rank short of memory fails before any exchange. */
  mispc_status s = choose_lsa(ctx, g, &w);
  if (!s) s = setup(ctx, g, recolor_passes, &w, &b);
  s = mispc_dist_agree(ctx, g->comm, s);
  if (!s) s = color_jp(ctx, g, mode, seed, &w, color, ncolors);
  if (!s && recolor_passes > 0) s = recolor(ctx, g, recolor_passes, &w, color, ncolors);
  mispc_scratch_list_free(ctx, &b); /* stream-ordered frees, after the queued work */
  return mispc_dist_agree(ctx, g->comm, s);
}
