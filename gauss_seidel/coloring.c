/* mispc_color: one MIS-1 of the uncolored vertices per color (the same calls
 * on either backend) or greedy in vertex order (coloring_greedy.c), and
 * mispc_verify_coloring (host). */
#include <stdlib.h>
#include <string.h>

#include "color_backend.h"

void mispc_coloring_options_default(mispc_coloring_options *opt) {
  if (!opt) return;
  memset(opt, 0, sizeof *opt);
  mispc_mis_options_default(&opt->mis);
  opt->mis.priority = MISPC_PRIORITY_HASH;
}

void mispc_coloring_free(mispc_context *ctx, mispc_coloring *c) {
  if (!c) return;
  mispc_pool_free(ctx, c->mem, c->color);
  memset(c, 0, sizeof *c);
}

mispc_status color_assign_host(mispc_context *ctx, int64_t n, const uint8_t *in_set, int32_t c,
                               int32_t *color, uint8_t *left) {
  (void)ctx;
#pragma omp parallel for schedule(static)
  for (int64_t v = 0; v < n; ++v)
    if (in_set[v]) {
      color[v] = c;
      left[v] = 0;
    }
  return MISPC_SUCCESS;
}

/* MISPC_COLORING_MIS: color k is the MIS-1 of the vertices left uncolored. */
static mispc_status color_by_mis(mispc_context *ctx, const mispc_csr *graph,
                                 const mispc_mis_options *mis, mispc_coloring *c) {
  const int dev = graph->mem == MISPC_MEM_DEVICE;
  const int64_t n = graph->nrows;
  uint8_t *left = NULL, *set = NULL;
  mispc_status s = mispc_pool_alloc(ctx, c->mem, (size_t)n + 1, (void **)&left, "uncolored mask");
  if (!s) s = mispc_pool_alloc(ctx, c->mem, (size_t)n + 1, (void **)&set, "MIS-1 membership");
  if (!s && n > 0) {
    /* all vertices start uncolored */
    uint8_t *ones = (uint8_t *)mispc_host_alloc(ctx, (size_t)n, "mask");
    if (!ones) s = MISPC_ERR_ALLOC;
    if (!s) memset(ones, 1, (size_t)n);
    if (!s) s = mispc_mem_copy(ctx, left, c->mem, ones, MISPC_MEM_HOST, (size_t)n);
    free(ones);
  }
  int64_t remaining = n;
  while (!s && remaining > 0) {
    if (c->ncolors == INT32_MAX)
      s = mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "mispc_color: too many colors");
    mispc_mis_result r;
    if (!s) s = mispc_mis1_subset(ctx, graph, mis, left, set, &r);
    /* the MIS-1 of the uncolored vertices holds only uncolored ones: its size
     * is what this color takes (no count, so no wait for the labelling) */
    if (!s && r.set_size <= 0)
      s = mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                       "mispc_color: the MIS-1 of %lld uncolored vertices is empty",
                       (long long)remaining);
    if (!s)
      s = dev ? color_assign_cuda(ctx, n, set, c->ncolors, c->color, left)
              : color_assign_host(ctx, n, set, c->ncolors, c->color, left);
    if (!s) ++c->ncolors, remaining -= r.set_size;
    mispc_logf(ctx, 2, "color %d: %lld vertices left", c->ncolors, (long long)remaining);
  }
  if (!s && dev) s = mispc_stream_wait(ctx); /* the last labelling, and its errors */
  mispc_pool_free(ctx, c->mem, left);
  mispc_pool_free(ctx, c->mem, set);
  return s;
}

mispc_status mispc_color(mispc_context *ctx, const mispc_csr *graph,
                         const mispc_coloring_options *opt, mispc_coloring *out) {
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
  MISPC_TRY(mispc_csr_check_desc(ctx, graph, "graph"));
  if (!o.mis.skip_validation) {
    MISPC_TRY(mispc_check_graph_for(ctx, graph, "mispc_color"));
    o.mis.skip_validation = 1; /* checked once for all MIS-1 calls */
  }
  mispc_coloring c = {graph->nrows, 0, NULL, graph->mem};
  mispc_status s = mispc_pool_alloc(ctx, c.mem, (size_t)c.n * 4 + 4, (void **)&c.color, "colors");
  if (!s)
    s = o.algo == MISPC_COLORING_GREEDY ? color_greedy(ctx, graph, c.color, &c.ncolors)
                                        : color_by_mis(ctx, graph, &o.mis, &c);
  if (s) {
    mispc_coloring_free(ctx, &c);
    return s;
  }
  *out = c;
  return MISPC_SUCCESS;
}

mispc_status mispc_verify_coloring(mispc_context *ctx, const mispc_csr *graph,
                                   const mispc_coloring *c) {
  MISPC_TRY(mispc_csr_check_desc(ctx, graph, "graph"));
  if (!c || c->n != graph->nrows || (c->n && !c->color))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "coloring does not match the graph");
  mispc_csr g;
  MISPC_TRY(mispc_csr_host_view(ctx, graph, &g));
  const int64_t n = g.nrows;
  int32_t *col = c->color;
  mispc_status s = MISPC_SUCCESS;
  if (c->mem == MISPC_MEM_DEVICE) {
    col = (int32_t *)mispc_host_alloc(ctx, (size_t)n * 4 + 4, "colors copy");
    s = col ? mispc_mem_copy(ctx, col, MISPC_MEM_HOST, c->color, c->mem, (size_t)n * 4)
            : MISPC_ERR_ALLOC;
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
