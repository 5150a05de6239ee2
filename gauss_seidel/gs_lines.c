/* Line clusters (mispc_gs_options.line_clusters): clusters grown along
 * chains of clusters, so that on the strength graph of an anisotropic
 * operator a cluster becomes a whole line of strong couplings and a cluster
 * sweep acts like a line Gauss-Seidel (docs/GAUSS_SEIDEL.md, "Line
 * clusters"). MIS-2 aggregates of a line hold 2-5 of its rows; a sweep then
 * meets every strong coupling between two clusters of a line in the color
 * order, not in the line's order, which costs iterations that a whole line
 * does not.
 *
 * A round, on the cluster graph C (clusters touching, self loops dropped):
 * keep only the edges whose two ends both have at most two neighbours
 * (chains: paths and cycles), aggregate that graph with the clusters'
 * options (a cluster left without an edge stays alone), and merge each
 * aggregate's clusters. The next round's graph is the quotient of C by the
 * merge, which is the cluster graph of the merged clusters. Rounds stop when
 * one merges nothing, or after GS_LINE_ROUNDS (a chain shrinks about
 * threefold a round). Everything after the first cluster graph runs on the
 * host: the graphs are small, and host and device get the same clusters. */
#include <stdlib.h>

#include "gs_internal.h"
#include "mispc/aggregation.h"

/* The chain graph of C: the edges of C whose two ends have degree <= 2. */
mispc_status gs_line_graph_host(mispc_context *ctx, const mispc_csr *C, mispc_csr *L) {
  const int64_t n = C->nrows;
  int64_t nnz = 0;
  for (int64_t r = 0; r < n; ++r)
    if (C->rowptr[r + 1] - C->rowptr[r] <= 2)
      for (int64_t p = C->rowptr[r]; p < C->rowptr[r + 1]; ++p) {
        const int32_t c = C->colidx[p];
        nnz += C->rowptr[c + 1] - C->rowptr[c] <= 2;
      }
  MISPC_TRY(mispc_csr_alloc(ctx, MISPC_MEM_HOST, n, n, nnz, 0, L));
  int64_t q = 0;
  for (int64_t r = 0; r < n; ++r) {
    if (C->rowptr[r + 1] - C->rowptr[r] <= 2)
      for (int64_t p = C->rowptr[r]; p < C->rowptr[r + 1]; ++p) {
        const int32_t c = C->colidx[p];
        if (C->rowptr[c + 1] - C->rowptr[c] <= 2) L->colidx[q++] = c;
      }
    L->rowptr[r + 1] = q;
  }
  return MISPC_SUCCESS;
}

mispc_status gs_grow_line_clusters(mispc_context *ctx, const mispc_csr *G,
                                   const mispc_agg_options *ao, mispc_aggregates *aggs) {
  const int64_t n = aggs->n, n0 = aggs->naggs;
  mispc_csr C = {0}, D = {0};
  int32_t *map = (int32_t *)mispc_host_alloc_n(ctx, n0 + 1, sizeof(int32_t), "line clusters");
  int32_t *lab = NULL;
  if (!map) return MISPC_ERR_ALLOC;
  for (int64_t c = 0; c < n0; ++c) map[c] = (int32_t)c;
  mispc_status s = mispc_coarse_graph(ctx, G, aggs, &D);
  if (!s) s = mispc_csr_copy(ctx, &D, MISPC_MEM_HOST, &C);
  mispc_csr_free(ctx, &D);
  int64_t nc = n0;
  const int rounds = ctx->tuning.gs_line_rounds ? ctx->tuning.gs_line_rounds : GS_LINE_ROUNDS;
  for (int round = 0; !s && round < rounds; ++round) {
    mispc_csr L = {0}, next = {0};
    mispc_aggregates m = {0};
    s = gs_line_graph_host(ctx, &C, &L);
    if (!s) s = mispc_aggregate(ctx, &L, ao, &m);
    const int merged = !s && m.naggs < nc;
    if (merged) {
      for (int64_t c = 0; c < n0; ++c) map[c] = m.agg[map[c]];
      s = mispc_coarse_graph(ctx, &C, &m, &next);
      nc = m.naggs;
    }
    mispc_csr_free(ctx, &L);
    mispc_aggregates_free(ctx, &m);
    mispc_csr_free(ctx, &C);
    C = next;
    if (!merged) break;
  }
  mispc_csr_free(ctx, &C);
  /* relabel the vertices (through a host copy for device labels) */
  if (!s && nc < n0) {
    const int dev = aggs->mem == MISPC_MEM_DEVICE;
    lab = dev ? (int32_t *)mispc_host_alloc_n(ctx, n + 1, sizeof(int32_t), "line clusters")
              : aggs->agg;
    if (!lab) s = MISPC_ERR_ALLOC;
    if (!s && dev)
      s = mispc_mem_copy_n(ctx, lab, MISPC_MEM_HOST, aggs->agg, MISPC_MEM_DEVICE, n, 4);
    for (int64_t i = 0; !s && i < n; ++i) lab[i] = map[lab[i]];
    if (!s && dev)
      s = mispc_mem_copy_n(ctx, aggs->agg, MISPC_MEM_DEVICE, lab, MISPC_MEM_HOST, n, 4);
    if (dev) free(lab);
    if (!s) { /* roots no longer describe the clusters */
      mispc_pool_free(ctx, aggs->mem, aggs->root);
      aggs->root = NULL;
      aggs->naggs = nc;
    }
  }
  free(map);
  return s;
}
