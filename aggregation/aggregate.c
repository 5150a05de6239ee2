/* mispc_aggregate: the phases of Alg. 2 / Alg. 3 (papers/KokkosKernels-MIS2-
 * aggregation-clusterGS-2022.txt §III-B) on either backend, and the entry
 * points that dispatch by memory space. */
#include <stdlib.h>
#include <string.h>

#include "agg_backend.h"

void mispc_agg_options_default(mispc_agg_options *opt) {
  if (!opt) return;
  memset(opt, 0, sizeof *opt);
  opt->algo = MISPC_AGG_MIS2AGG;
  opt->phase2_min_free = 2;
  mispc_mis_options_default(&opt->mis);
}

void mispc_aggregates_free(mispc_context *ctx, mispc_aggregates *a) {
  if (!ctx) return;
  if (!a) return;
  mispc_pool_free(ctx, a->mem, a->agg);
  mispc_pool_free(ctx, a->mem, a->root);
  mispc_pool_free(ctx, a->mem, a->parent);
  memset(a, 0, sizeof *a);
}

/* The end of phase k: the aggregates so far, the vertices aggregated, the
 * seconds since t. */
static void phase_end(mispc_aggregates *a, int k, int64_t done, double t) {
  a->phase_aggs[k] = a->naggs;
  a->phase_done[k] = done;
  a->phase_seconds[k] = mispc_wtime() - t;
}

/* Phases 1 to 3 on the host (agg_phases_cuda does the same on the device). */
static mispc_status phases_host(mispc_context *ctx, const mispc_csr *graph,
                                const mispc_agg_options *o, mispc_aggregates *a, uint8_t *set,
                                uint8_t *mask) {
  const int64_t n = graph->nrows;
  mispc_mis_result r = {0, 0};
  /* Phase 1: roots = MIS-2(G); each takes its neighbours. */
  double t = mispc_wtime();
  mispc_status s = mispc_mis2(ctx, graph, &o->mis, set, &r);
  if (!s) s = agg_phase1_host(ctx, graph, set, a->agg, a->root, &a->naggs);
  int64_t left = 0;
  if (!s) s = agg_unaggregated_host(ctx, n, a->agg, mask, &left);
  a->mis_rounds[0] = r.rounds;
  phase_end(a, 0, n - left, t);
  /* Phase 2 (mis2agg): secondary roots from MIS-2 of the unaggregated subgraph. */
  t = mispc_wtime();
  if (!s && o->algo == MISPC_AGG_MIS2AGG && left > 0) {
    s = mispc_mis2_subset(ctx, graph, &o->mis, mask, set, &r);
    if (!s)
      s = agg_phase2_host(ctx, graph, set, agg_phase2_min_free(o), a->agg, a->root, &a->naggs);
    if (!s) s = agg_unaggregated_host(ctx, n, a->agg, mask, &left);
    a->mis_rounds[1] = r.rounds;
  }
  phase_end(a, 1, n - left, t);
  /* Phase 3: leftovers join a neighbouring aggregate. */
  t = mispc_wtime();
  if (!s && left > 0)
    s = agg_phase3_host(ctx, graph, a->agg, a->naggs, o->algo == MISPC_AGG_MIS2BASIC);
  phase_end(a, 2, n, t);
  return s;
}

mispc_status mispc_aggregate(mispc_context *ctx, const mispc_csr *graph,
                             const mispc_agg_options *opt, mispc_aggregates *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!out) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_aggregate: output is NULL");
  memset(out, 0, sizeof *out);
  mispc_agg_options o;
  if (opt)
    o = *opt;
  else
    mispc_agg_options_default(&o);
  if (o.algo != MISPC_AGG_MIS2AGG && o.algo != MISPC_AGG_MIS2BASIC)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_aggregate: unknown algorithm %d",
                        (int)o.algo);
  if (o.isolated != MISPC_ISOLATED_SINGLETONS && o.isolated != MISPC_ISOLATED_COLLECT)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_aggregate: unknown treatment of isolated vertices %d",
                        (int)o.isolated);
  if (o.max_size < 0 || o.max_size == 1)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_aggregate: max_size must be 0 (no bound) or >= 2, got %lld",
                        (long long)o.max_size);
  MISPC_TRY(mispc_csr_check_desc(ctx, graph, "graph"));
  if (!o.mis.skip_validation) {
    MISPC_TRY(mispc_check_graph_for(ctx, graph, "mispc_aggregate"));
    o.mis.skip_validation = 1; /* checked once for all MIS-2 calls */
  }
  const int dev = graph->mem == MISPC_MEM_DEVICE;
  const int64_t n = graph->nrows;
  mispc_aggregates a;
  memset(&a, 0, sizeof a);
  a.n = n;
  a.mem = graph->mem;
  uint8_t *set = NULL, *mask = NULL;
  mispc_status s = mispc_pool_alloc_n(ctx, a.mem, n + 1, 4, (void **)&a.agg, "aggregate ids");
  if (!s) s = mispc_pool_alloc_n(ctx, a.mem, n + 1, 4, (void **)&a.root, "aggregate roots");
  if (!s) s = mispc_pool_alloc_n(ctx, a.mem, n + 1, 1, (void **)&set, "MIS-2 membership");
  if (!s) s = mispc_pool_alloc_n(ctx, a.mem, n + 1, 1, (void **)&mask, "unaggregated mask");
  /* Isolated vertices into one aggregate, numbered last (on the device with
   * the phases, whose counts it reads with theirs), then aggregates above
   * max_size split into pieces (both counted and timed with phase 3). */
  int64_t removed = 0, added = 0;
  if (!s && dev) s = agg_phases_cuda(ctx, graph, &o, &a, set, mask, &removed);
  if (!s && !dev) s = phases_host(ctx, graph, &o, &a, set, mask);
  const double t = mispc_wtime();
  if (!s && !dev && o.isolated == MISPC_ISOLATED_COLLECT)
    s = agg_collect_isolated_host(ctx, graph, &a, &removed);
  if (!s && o.max_size > 0) s = MISPC_ON(dev, agg_split, ctx, &a, o.max_size, &added);
  if (!s && (removed || added)) {
    a.phase_aggs[0] -= removed;
    a.phase_aggs[1] -= removed;
    a.phase_aggs[2] = a.naggs;
    a.phase_seconds[2] += mispc_wtime() - t;
  }
  mispc_pool_free(ctx, a.mem, set);
  mispc_pool_free(ctx, a.mem, mask);
  if (s) {
    mispc_aggregates_free(ctx, &a);
    return s;
  }
  mispc_logf(ctx, 1, "aggregate: %lld vertices -> %lld aggregates (phase 1 %lld, phase 2 %lld)",
             (long long)n, (long long)a.naggs, (long long)a.phase_aggs[0],
             (long long)(a.phase_aggs[1] - a.phase_aggs[0]));
  *out = a;
  return MISPC_SUCCESS;
}

mispc_status mispc_strength_graph(mispc_context *ctx, const mispc_csr *A, double theta,
                                  int block_size, mispc_csr *S) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!S) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_strength_graph: output is NULL");
  memset(S, 0, sizeof *S);
  MISPC_TRY(mispc_check_square_matrix(ctx, A, "strength graph"));
  if (block_size < 1 || A->nrows % block_size)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "block size %d must be >= 1 and divide the %lld rows", block_size,
                        (long long)A->nrows);
  if (!(theta >= 0))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "strength threshold must be >= 0, got %g",
                        theta);
  /* the CUDA backend checks the indices in its first pass over A */
  if (A->mem != MISPC_MEM_DEVICE)
    MISPC_TRY(mispc_csr_check(ctx, A, MISPC_CHECK_SQUARE | MISPC_CHECK_INDICES));
  return MISPC_ON(A->mem == MISPC_MEM_DEVICE, agg_strength, ctx, A, theta, block_size, S);
}

mispc_status mispc_coarse_graph(mispc_context *ctx, const mispc_csr *graph,
                                const mispc_aggregates *a, mispc_csr *coarse) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!coarse) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_coarse_graph: NULL output");
  memset(coarse, 0, sizeof *coarse);
  MISPC_TRY(mispc_csr_check_desc(ctx, graph, "graph"));
  if (!a || a->n != graph->nrows || a->mem != graph->mem || (a->n && !a->agg))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_coarse_graph: aggregates do not match the graph (size or memory)");
  return MISPC_ON(graph->mem == MISPC_MEM_DEVICE, agg_coarse, ctx, graph, a->agg, a->naggs, coarse);
}
