/* mispc_color: color classes that are MIS-1s of the uncolored vertices,
 * computed in one pass, or greedy in vertex order (coloring_greedy.c), then
 * as many passes of iterated greedy recoloring as asked (coloring_recolor.c); and
 * mispc_verify_coloring (host).
 *
 * MISPC_COLORING_MIS defines color c as the MIS-1 of the vertices without a
 * color below c, with fixed keys (mis1_key: the priority's key, then the id).
 * That MIS-1 is the greedy (lexicographically first) one in key order: v is in
 * it iff no neighbour before v is. So v has color c iff no neighbour before v
 * has color c and v has none below c, i.e. color(v) is the smallest color no
 * neighbour before v has: greedy coloring in key order, which Jones and
 * Plassmann's algorithm (SIAM J. Sci. Comput. 14(3), 1993) computes in
 * parallel, each vertex as soon as its earlier neighbours are colored. It
 * replaces one MIS-1 call (and host wait) per color, with the same colors
 * (tests/test_coloring.c checks them against the MIS-1 calls). On the GPU,
 * graphs whose hubs have more than 8,192 earlier neighbours keep the MIS-1
 * calls (color_by_mis; coloring_cuda.cu says why). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "color_backend.h"
#include "mis_common.h"

void mispc_coloring_options_default(mispc_coloring_options *opt) {
  if (!opt) return;
  memset(opt, 0, sizeof *opt);
  mispc_mis_options_default(&opt->mis);
  opt->mis.priority = MISPC_PRIORITY_HASH;
}

void mispc_coloring_free(mispc_context *ctx, mispc_coloring *c) {
  if (!ctx) return;
  if (!c) return;
  mispc_pool_free(ctx, c->mem, c->color);
  memset(c, 0, sizeof *c);
}

/* Returns v's color, or -1 while a neighbour that comes before v has none.
 * Colors are taken 64 at a time: a vertex whose earlier neighbours hold all of
 * base .. base+63 looks again above them. */
static int32_t jp_visit(const mispc_csr *g, const uint32_t *key, int32_t *color, int64_t v) {
  const uint32_t kv = key[v];
  for (int32_t base = 0;; base += 64) {
    uint64_t taken = 0;
    for (int64_t p = g->rowptr[v]; p < g->rowptr[v + 1]; ++p) {
      const int32_t u = g->colidx[p];
      if (u == v || !mis1_before(key[u], u, kv, v)) continue;
      const int32_t cu = MIS_LOAD_RELAXED(&color[u]);
      if (cu < 0) return -1;
      if (cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
    }
    if (~taken) return base + __builtin_ctzll(~taken);
  }
}

/* One thread: each vertex colored once all its earlier neighbours are, by
 * a depth-first walk from the vertices in id order down to uncolored
 * earlier neighbours (keys fall along the path, so it has no cycle and no
 * vertex twice): the greedy coloring in key order, which the rounds below
 * compute, in one pass that stays near id order in memory. pos[d] is where
 * the scan of stack[d]'s row resumes: neighbours before it are colored or
 * later. MISPC_ERR_ALLOC (nothing colored) when the stack's memory is short. */
static mispc_status color_depth_first(const mispc_csr *g, const uint32_t *key, int32_t *color,
                                      int32_t *top) {
  const int64_t n = g->nrows;
  int64_t *stack = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n + 1));
  int64_t *pos = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n + 1));
  if (!stack || !pos) {
    free(stack), free(pos);
    return MISPC_ERR_ALLOC;
  }
  for (int64_t v0 = 0; v0 < n; ++v0) {
    if (color[v0] >= 0) continue;
    int64_t sp = 0;
    stack[0] = v0, pos[0] = g->rowptr[v0];
    while (sp >= 0) {
      const int64_t u = stack[sp], e = g->rowptr[u + 1];
      const uint32_t ku = key[u];
      int64_t p = pos[sp];
      for (; p < e; ++p) {
        const int32_t w = g->colidx[p];
        if (w != u && color[w] < 0 && mis1_before(key[w], w, ku, u)) break;
      }
      if (p < e) { /* an uncolored earlier neighbour first */
        const int32_t w = g->colidx[p];
        pos[sp] = p + 1;
        ++sp;
        stack[sp] = w, pos[sp] = g->rowptr[w];
        continue;
      }
      const int32_t c = jp_visit(g, key, color, u); /* its earlier neighbours are colored */
      color[u] = c;
      *top = c > *top ? c : *top;
      --sp;
    }
  }
  free(stack), free(pos);
  return MISPC_SUCCESS;
}

/* Depth first on one thread below 8 entries a row, else rounds over the
 * uncolored vertices until none is left, each round in key order on graphs
 * of 8 or more entries a row (else, or where the sort's memory is short, by
 * id). A color, once stored, is final, and a vertex reads only final colors
 * of the neighbours before it, so the colors do not depend on thread timing
 * (the round count does). In key order a vertex's earlier neighbours are
 * mostly colored before its turn: one round on one thread, a few on several
 * (only neighbours in the chunks other threads hold at the time are
 * missing), where id order took a round per link of the longest chain of
 * keys (Elasticity3D_30's cluster graph, 23,195 clusters in 32 colors: 78
 * rounds). */
mispc_status color_jp_host(mispc_context *ctx, const mispc_csr *g, int key_mode, uint64_t seed,
                           int32_t *color, int32_t *ncolors) {
  const int64_t n = g->nrows;
  uint32_t *key = (uint32_t *)mispc_host_alloc_n(ctx, n + 1, 4, "coloring keys");
  if (!key) return MISPC_ERR_ALLOC;
  const int nt = mispc_host_threads(ctx);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t v = 0; v < n; ++v) {
    key[v] = mis1_key(key_mode, seed, v, g->rowptr[v + 1] - g->rowptr[v]);
    color[v] = -1;
  }
  /* Below 8 entries a row, one thread walks depth first (near id order in
   * memory) and several take rounds in id order (few on such graphs, with
   * local accesses); from 8 on, rounds in key order (one on one thread). The
   * VM, coloring and recoloring ms, one thread: Laplace3D_100's rows (6.9
   * entries a row) depth first 107, key order 187, id order 160; its
   * clusters (11.2) key order 38–41, depth first 41, id order 53;
   * Elasticity3D_30's rows (76) key order 83–87, depth first 98–101, id
   * order 249; two threads, key / id order: Laplace3D_100 117 / 91 and 30 /
   * 32, Elasticity3D_30 106 / 130. */
  const int sparse = g->nnz < 8 * n;
  int64_t left = n;
  int32_t top = -1;
  if (nt == 1 && sparse && color_depth_first(g, key, color, &top) == MISPC_SUCCESS) left = 0;
  const uint64_t *order = left && !sparse ? mispc_key_order(key, n) : NULL;
  for (int r = 1; left > 0; ++r) {
    left = 0;
#pragma omp parallel for schedule(dynamic, 2048) reduction(+ : left) reduction(max : top)      \
    num_threads(nt)
    for (int64_t k = 0; k < n; ++k) {
      const int64_t v = order ? (int64_t)(order[k] & 0xFFFFFFFFu) : k;
      if (MIS_LOAD_RELAXED(&color[v]) >= 0) continue;
      const int32_t c = jp_visit(g, key, color, v);
      if (c < 0) {
        ++left;
        continue;
      }
      MIS_STORE_RELAXED(&color[v], c);
      if (c > top) top = c;
    }
    mispc_logf(ctx, 2, "coloring round %d: %lld vertices left", r, (long long)left);
  }
  free((void *)order);
  free(key);
  *ncolors = top + 1;
  return MISPC_SUCCESS;
}

/* Graphs with hubs on the GPU: color c is computed as its definition says,
 * one mispc_mis1_subset call of the uncolored vertices per color (the MIS-1
 * kernels take rounds there). */
static mispc_status color_by_mis(mispc_context *ctx, const mispc_csr *graph,
                                 const mispc_mis_options *mis, mispc_coloring *c) {
  const int64_t n = graph->nrows;
  uint8_t *left = NULL, *set = NULL;
  c->ncolors = 0;
  mispc_status s = mispc_pool_alloc_n(ctx, c->mem, n + 1, 1, (void **)&left, "uncolored mask");
  if (!s) s = mispc_pool_alloc_n(ctx, c->mem, n + 1, 1, (void **)&set, "MIS-1 membership");
  if (!s) { /* all vertices start uncolored */
    uint8_t *ones = (uint8_t *)mispc_host_alloc_n(ctx, n + 1, 1, "mask");
    if (!ones) s = MISPC_ERR_ALLOC;
    if (!s) memset(ones, 1, (size_t)n);
    if (!s) s = mispc_mem_copy_n(ctx, left, c->mem, ones, MISPC_MEM_HOST, n, 1);
    free(ones);
  }
  mispc_mis_options o = *mis;
  o.skip_validation = 1; /* checked by mispc_color */
  for (int64_t remaining = n; !s && remaining > 0;) {
    mispc_mis_result r;
    s = mispc_mis1_subset(ctx, graph, &o, left, set, &r);
    /* the MIS-1 of the uncolored vertices holds only uncolored ones: its size
     * is what this color takes (no count, so no wait for the labelling) */
    if (!s && r.set_size <= 0)
      s = mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                       "mispc_color: the MIS-1 of %lld uncolored vertices is empty",
                       (long long)remaining);
    if (!s) s = color_assign_cuda(ctx, n, set, c->ncolors, c->color, left);
    if (!s) ++c->ncolors, remaining -= r.set_size;
    mispc_logf(ctx, 2, "color %d: %lld vertices left", c->ncolors, (long long)remaining);
  }
  if (!s) s = mispc_stream_wait(ctx); /* the last labelling, and its errors */
  mispc_pool_free(ctx, c->mem, left);
  mispc_pool_free(ctx, c->mem, set);
  return s;
}

mispc_status mispc_color(mispc_context *ctx, const mispc_csr *graph,
                         const mispc_coloring_options *opt, mispc_coloring *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!out) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_color: output is NULL");
  memset(out, 0, sizeof *out);
  mispc_coloring_options o;
  if (opt)
    o = *opt;
  else
    mispc_coloring_options_default(&o);
  if (o.mis.priority != MISPC_PRIORITY_HASH && o.mis.priority != MISPC_PRIORITY_LARGEST_DEGREE &&
      o.mis.priority != MISPC_PRIORITY_DEGREE)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_color: priority must be HASH, LARGEST_DEGREE or DEGREE");
  if (o.algo != MISPC_COLORING_MIS && o.algo != MISPC_COLORING_GREEDY)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_color: algo must be MIS or GREEDY");
  if (o.recolor < 0 || o.recolor > MISPC_COLORING_MAX_RECOLOR)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_color: recolor must be in [0, %d], not %d",
                        MISPC_COLORING_MAX_RECOLOR, o.recolor);
  MISPC_TRY(mispc_csr_check_desc(ctx, graph, "graph"));
  MISPC_TRY(mispc_check_graph_shape(ctx, graph, "mispc_color"));
  if (!o.mis.skip_validation) MISPC_TRY(mispc_check_graph_for(ctx, graph, "mispc_color"));
  mispc_coloring c = {graph->nrows, 0, NULL, graph->mem};
  mispc_status s = mispc_pool_alloc_n(ctx, c.mem, c.n + 1, 4, (void **)&c.color, "colors");
  const int mode = mis1_coloring_key_mode(o.mis.priority);
  if (!s && c.n > 0) {
    if (o.algo == MISPC_COLORING_GREEDY && c.mem == MISPC_MEM_DEVICE) {
      /* one key for all: the one pass colors in vertex order, i.e. greedy */
      s = color_jp_cuda(ctx, graph, MIS1_KEY_INDEX, 0, ctx->tuning.mis_no_persistent,
                        !o.mis.skip_validation, c.color, &c.ncolors);
      if (!s && c.ncolors < 0) s = color_greedy(ctx, graph, c.color, &c.ncolors); /* hubs */
    } else if (o.algo == MISPC_COLORING_GREEDY)
      s = color_greedy(ctx, graph, c.color, &c.ncolors);
    else if (c.mem == MISPC_MEM_DEVICE) {
      s = color_jp_cuda(ctx, graph, mode, o.mis.seed, ctx->tuning.mis_no_persistent,
                        !o.mis.skip_validation, c.color, &c.ncolors);
      if (!s && c.ncolors < 0) s = color_by_mis(ctx, graph, &o.mis, &c);
    } else
      s = color_jp_host(ctx, graph, mode, o.mis.seed, c.color, &c.ncolors);
  }
  if (!s && o.recolor > 0 && c.n > 0) {
    int32_t counts[MISPC_COLORING_MAX_RECOLOR + 1];
    counts[0] = c.ncolors;
    s = c.mem == MISPC_MEM_DEVICE ? color_recolor_cuda(ctx, graph, o.recolor, c.color, counts)
                                  : color_recolor_host(ctx, graph, o.recolor, c.color, counts);
    for (int pass = 1; !s && pass <= o.recolor; ++pass)
      mispc_logf(ctx, 2, "recoloring pass %d: %d -> %d colors", pass, counts[pass - 1],
                 counts[pass]);
    if (!s) c.ncolors = counts[o.recolor];
  }
  if (s) {
    mispc_coloring_free(ctx, &c);
    return s;
  }
  *out = c;
  return MISPC_SUCCESS;
}

mispc_status mispc_verify_coloring(mispc_context *ctx, const mispc_csr *graph,
                                   const mispc_coloring *c) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  MISPC_TRY(mispc_csr_check_desc(ctx, graph, "graph"));
  if (!c || c->n != graph->nrows || (c->n && !c->color))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "coloring does not match the graph");
  mispc_csr g;
  MISPC_TRY(mispc_csr_host_view(ctx, graph, &g));
  const int64_t n = g.nrows;
  int32_t *col = c->color;
  mispc_status s = MISPC_SUCCESS;
  if (c->mem == MISPC_MEM_DEVICE) {
    col = (int32_t *)mispc_host_alloc_n(ctx, n + 1, 4, "colors copy");
    s = col ? mispc_mem_copy_n(ctx, col, MISPC_MEM_HOST, c->color, c->mem, n, 4) : MISPC_ERR_ALLOC;
  }
  int64_t *count = s ? NULL : (int64_t *)calloc((size_t)c->ncolors + 1, sizeof(int64_t));
  if (!s && !count) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in verify");
  for (int64_t v = 0; !s && v < n; ++v) {
    if (col[v] < 0 || col[v] >= c->ncolors) {
      s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "vertex %lld has color %d outside [0, %d)",
                       (long long)v, col[v], c->ncolors);
      break;
    }
    count[col[v]]++;
    for (int64_t p = g.rowptr[v]; p < g.rowptr[v + 1]; ++p)
      if (g.colidx[p] != v && col[g.colidx[p]] == col[v]) {
        s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "adjacent vertices %lld and %d share color %d",
                         (long long)v, g.colidx[p], col[v]);
        break;
      }
  }
  for (int32_t k = 0; !s && k < c->ncolors; ++k)
    if (!count[k]) s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "color %d is empty", k);
  free(count);
  if (col != c->color) free(col);
  mispc_csr_free(ctx, &g);
  return s;
}
