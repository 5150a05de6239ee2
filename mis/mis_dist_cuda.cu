/* Distributed MIS-1 on the GPU: the rounds of mis1_dist.c with one thread a
 * vertex, ghosts refreshed by the device halo exchange (dist_halo_cuda.cu).
 * Every kernel reads only state written before its launch (or, in remove1,
 * only IN words, which it never writes), so the set and the round count
 * equal the host's bit for bit. MIS-2: mis2_dist_cuda.cu. */
#include "dist_cuda.cuh"
#include "mis_common.h"
#include "mis_dist_backend.h"

enum { UNDECIDED = 0, IN = 1, OUT = 2 };

__global__ void init1(dev_graph g, int mode, uint64_t seed, const uint8_t *subset, uint8_t *st,
                      uint32_t *key, unsigned long long *undecided) {
  unsigned long long left = 0;
  FOR_VERTEX(v, g.nloc) {
    const int64_t deg = (g.arp[v + 1] - g.arp[v]) + (g.brp[v + 1] - g.brp[v]);
    const int inside = !subset || subset[v];
    st[v] = inside ? UNDECIDED : OUT;
    const uint32_t cls =
        inside && mode == MIS1_KEY_LINES
            ? mis1_line_class(g.acol + g.arp[v], g.arp[v + 1] - g.arp[v], g.rstart,
                              g.bcol + g.brp[v], g.brp[v + 1] - g.brp[v], g.garray, g.rstart + v)
            : 1u;
    key[v] = inside ? mis1_key_of(mode, seed, g.rstart + v, deg, cls) : MIS1_KEY_NONE;
    left += inside;
  }
  mispc_block_add<DIST_BLOCK>(left, undecided);
}

__global__ void select1(dev_graph g, const uint8_t *st, const uint8_t *gst, const uint32_t *key,
                        const uint32_t *gkey, uint8_t *sel) {
  FOR_VERTEX(v, g.nloc) {
    int blocked = st[v] != UNDECIDED;
    const uint32_t kv = key[v];
    const int64_t gv = g.rstart + v;
    for (int64_t p = g.arp[v]; p < g.arp[v + 1] && !blocked; ++p) {
      const int32_t u = g.acol[p];
      blocked = u != v && st[u] == UNDECIDED && mis1_before(key[u], g.rstart + u, kv, gv);
    }
    for (int64_t p = g.brp[v]; p < g.brp[v + 1] && !blocked; ++p) {
      const int32_t j = g.bcol[p];
      blocked = gst[j] == UNDECIDED && mis1_before(gkey[j], g.garray[j], kv, gv);
    }
    sel[v] = (uint8_t)!blocked;
  }
}

__global__ void apply1(int64_t n, const uint8_t *sel, uint8_t *st) {
  FOR_VERTEX(v, n) if (sel[v]) st[v] = IN;
}

/* Reads only IN words (never written here); writes only its own word. */
__global__ void remove1(dev_graph g, uint8_t *st, const uint8_t *gst,
                        unsigned long long *undecided) {
  unsigned long long left = 0;
  FOR_VERTEX(v, g.nloc) {
    if (st[v] != UNDECIDED) continue;
    int hit = 0;
    for (int64_t p = g.arp[v]; p < g.arp[v + 1] && !hit; ++p)
      hit = ((volatile const uint8_t *)st)[g.acol[p]] == IN;
    for (int64_t p = g.brp[v]; p < g.brp[v + 1] && !hit; ++p) hit = gst[g.bcol[p]] == IN;
    if (hit)
      st[v] = OUT;
    else
      ++left;
  }
  mispc_block_add<DIST_BLOCK>(left, undecided);
}

__global__ void members(int64_t n, const uint8_t *st, uint8_t code, uint8_t *in_set,
                        unsigned long long *count) {
  unsigned long long mine = 0;
  FOR_VERTEX(v, n) {
    in_set[v] = st[v] == code;
    mine += st[v] == code;
  }
  mispc_block_add<DIST_BLOCK>(mine, count);
}

/* ---- drivers ---------------------------------------------------------------- */

typedef mispc_scratch_list dev_buffers;

static mispc_status scratch(mispc_context *ctx, dev_buffers *b, size_t bytes, void **out) {
  return mispc_scratch_list_alloc(ctx, b, bytes, "distributed MIS scratch", out);
}

/* The end of the rounds: the members (state IN) written to in_set, the set's
 * size summed over the ranks, and the rounds. */
static mispc_status finish(mispc_context *ctx, const mispc_dist_csr *g, cudaStream_t st,
                           unsigned grid, const uint8_t *state, uint8_t *in_set,
                           unsigned long long *cnt, int rounds, mispc_mis_result *res) {
  members<<<grid, DIST_BLOCK, 0, st>>>(g->rend - g->rstart, state, IN, in_set, cnt);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  int64_t size = 0;
  MISPC_TRY(dist_global_count(ctx, g, st, cnt, &size));
  res->set_size = size;
  res->rounds = rounds;
  return MISPC_SUCCESS;
}

static mispc_status mis1_rounds(mispc_context *ctx, const mispc_dist_csr *g,
                                const mispc_mis_options *opt, int mode, const uint8_t *subset,
                                uint8_t *in_set, mispc_mis_result *res, dev_buffers *b) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  cudaStream_t st;
  MISPC_TRY(mispc_stream(ctx, &st));
  dev_graph d;
  MISPC_TRY(dist_device_view(ctx, g, &d));
  uint8_t *s, *gs, *sel;
  uint32_t *key, *gkey;
  unsigned long long *cnt;
  MISPC_TRY(scratch(ctx, b, (size_t)nloc, (void **)&s));
  MISPC_TRY(scratch(ctx, b, (size_t)ng, (void **)&gs));
  MISPC_TRY(scratch(ctx, b, (size_t)nloc, (void **)&sel));
  MISPC_TRY(scratch(ctx, b, (size_t)nloc * 4, (void **)&key));
  MISPC_TRY(scratch(ctx, b, (size_t)ng * 4, (void **)&gkey));
  MISPC_TRY(scratch(ctx, b, 8, (void **)&cnt));
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(cnt, 0, 8, st));
  const unsigned grid = mispc_device_grid(ctx, nloc, DIST_BLOCK);
  init1<<<grid, DIST_BLOCK, 0, st>>>(d, mode, opt->seed, subset, s, key, cnt);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, key, gkey, 4));
  MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, s, gs, 1));
  int64_t undecided = 0;
  MISPC_TRY(dist_global_count(ctx, g, st, cnt, &undecided));
  int r = 0;
  while (undecided > 0) {
    if (r >= max_rounds)
      return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_dist_mis1: %lld vertices undecided after %d rounds",
                          (long long)undecided, r);
    select1<<<grid, DIST_BLOCK, 0, st>>>(d, s, gs, key, gkey, sel);
    apply1<<<grid, DIST_BLOCK, 0, st>>>(nloc, sel, s);
    MISPC_CUDA_LAUNCH_CHECK(ctx);
    MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, s, gs, 1));
    remove1<<<grid, DIST_BLOCK, 0, st>>>(d, s, gs, cnt);
    MISPC_CUDA_LAUNCH_CHECK(ctx);
    MISPC_TRY(mispc_halo_exchange_device(ctx, g->halo, s, gs, 1));
    ++r;
    MISPC_TRY(dist_global_count(ctx, g, st, cnt, &undecided));
  }
  return finish(ctx, g, st, grid, s, in_set, cnt, r, res);
}

extern "C" mispc_status mispc_dist_mis1_cuda(mispc_context *ctx, const mispc_dist_csr *g,
                                             const mispc_mis_options *opt, int mode,
                                             const uint8_t *subset, uint8_t *in_set,
                                             mispc_mis_result *res) {
  dev_buffers b = {{0}, 0};
  mispc_status s = mis1_rounds(ctx, g, opt, mode, subset, in_set, res, &b);
  mispc_scratch_list_free(ctx, &b);
  return mispc_dist_agree(ctx, g->comm, s);
}
