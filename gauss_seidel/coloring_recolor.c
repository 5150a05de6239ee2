/* Iterated greedy recoloring (Culberson, "Iterated greedy graph coloring",
 * DIMACS Series 26, 1996): greedy coloring again, in the order of the color
 * classes of the coloring at hand, from the last class to the first. A vertex
 * of class c takes the smallest color that none of its neighbours in the
 * classes above c has taken (those are recolored before it); the vertices of
 * one class are not adjacent, so they are recolored together. Vertex v of
 * class c ends at most at k - 1 - c, so the number of colors never grows, and
 * it shrinks where the last classes are small (on the cluster graph of
 * Laplace3D_100, 10 colors, the last of 18 clusters, become 9, then 8:
 * docs/results/gauss-seidel-notebook.md). Each vertex's new color depends only on the old
 * classes, so the result is the same on every backend and thread count.
 * Greedy colors leave no class empty: a vertex of color m has neighbours of
 * every color below m. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "color_backend.h"
#include "csr_build.h"

/* The smallest color that no neighbour u of v with old[u] > c has in color,
 * taken 64 colors at a time. */
static int32_t recolor_visit(const mispc_csr *g, const int32_t *old, const int32_t *color,
                             int64_t v, int32_t c) {
  for (int32_t base = 0;; base += 64) {
    uint64_t taken = 0;
    for (int64_t p = g->rowptr[v]; p < g->rowptr[v + 1]; ++p) {
      const int32_t u = g->colidx[p];
      if (old[u] <= c) continue; /* v itself, and the classes recolored after v's */
      const int32_t cu = color[u];
      if (cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
    }
    if (~taken) return base + __builtin_ctzll(~taken);
  }
}

mispc_status color_recolor_host(mispc_context *ctx, const mispc_csr *g, int passes, int32_t *color,
                                int32_t *ncolors) {
  const int64_t n = g->nrows;
  const int32_t k = ncolors[0];
  int32_t *old = (int32_t *)mispc_host_alloc_n(ctx, n + 1, 8, "recoloring classes");
  int64_t *ptr = (int64_t *)mispc_host_alloc_n(ctx, k + 1, sizeof(int64_t), "classes");
  mispc_status s = old && ptr ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
  int32_t *order = old ? old + n : NULL;
  const int nt = mispc_host_threads(ctx);
  for (int pass = 1; !s && pass <= passes; ++pass) {
    const int32_t kp = ncolors[pass - 1];
    memcpy(old, color, (size_t)n * 4);
    s = mispc_order_by_key_host(ctx, n, old, kp, order, ptr);
    int32_t top = -1;
    for (int32_t c = kp - 1; !s && c >= 0; --c) {
#pragma omp parallel for schedule(dynamic, 1024) reduction(max : top) num_threads(nt)
      for (int64_t q = ptr[c]; q < ptr[c + 1]; ++q) {
        const int32_t v = order[q];
        const int32_t nc = recolor_visit(g, old, color, v, c);
        color[v] = nc;
        if (nc > top) top = nc;
      }
    }
    ncolors[pass] = top + 1;
  }
  free(old);
  free(ptr);
  return s;
}
