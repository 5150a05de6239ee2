/* Greedy coloring in vertex order (MISPC_COLORING_GREEDY): vertex v takes the
 * smallest color that no neighbour u < v has. The result is the sequential
 * greedy coloring itself, so it is the same on every backend and thread
 * count. Device graphs use the GPU's one-pass coloring in vertex order
 * (coloring.c); a device graph with hubs is copied to the host, colored here,
 * and its colors are copied back. */
#include <stdlib.h>

#include "color_backend.h"

mispc_status color_greedy(mispc_context *ctx, const mispc_csr *graph, int32_t *color,
                          int32_t *ncolors) {
  *ncolors = 0;
  mispc_csr g;
  MISPC_TRY(mispc_csr_host_view(ctx, graph, &g));
  const int64_t n = g.nrows;
  int64_t max_degree = 0;
  for (int64_t v = 0; v < n; ++v)
    if (g.rowptr[v + 1] - g.rowptr[v] > max_degree) max_degree = g.rowptr[v + 1] - g.rowptr[v];
  /* colors stay below max_degree + 1; mark[c] == v: a lower neighbour of v has c */
  int32_t *col = graph->mem == MISPC_MEM_HOST
                     ? color
                     : (int32_t *)mispc_host_alloc_n(ctx, n + 1, 4, "greedy colors");
  int64_t *mark =
      (int64_t *)mispc_host_alloc_n(ctx, max_degree + 2, sizeof(int64_t), "greedy color marks");
  mispc_status s = col && mark ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
  int32_t nc = 0;
  if (!s) {
    for (int64_t c = 0; c < max_degree + 2; ++c) mark[c] = -1;
    for (int64_t v = 0; v < n; ++v) {
      for (int64_t p = g.rowptr[v]; p < g.rowptr[v + 1]; ++p)
        if (g.colidx[p] < v) mark[col[g.colidx[p]]] = v;
      int32_t c = 0;
      while (mark[c] == v) ++c;
      col[v] = c;
      if (c >= nc) nc = c + 1;
    }
    if (col != color) s = mispc_mem_copy_n(ctx, color, graph->mem, col, MISPC_MEM_HOST, n, 4);
  }
  if (col != color) free(col);
  free(mark);
  mispc_csr_free(ctx, &g);
  if (!s) *ncolors = nc;
  mispc_logf(ctx, 2, "greedy coloring: %d colors", nc);
  return s;
}
