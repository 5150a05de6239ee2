/* Multicolor Gauss-Seidel: options, handle, symbolic / numeric setup and
 * apply, dispatching to the host or CUDA steps by the matrix's memory space
 * (papers/KokkosKernels-MIS2-aggregation-clusterGS-2022.txt §III-C). */
#include <stdlib.h>
#include <string.h>

#include "agg_backend.h"
#include "csr_build.h"
#include "gs_internal.h"

void mispc_gs_options_default(mispc_gs_options *opt) {
  if (!opt) return;
  memset(opt, 0, sizeof *opt);
  opt->kind = MISPC_GS_CLUSTER;
  opt->sweep = MISPC_GS_SYMMETRIC;
  opt->sweeps = 1;
  opt->omega = 1.0;
  opt->clusters = MISPC_AGG_MIS2AGG;
  mispc_coloring_options_default(&opt->coloring);
  opt->coloring.recolor = MISPC_GS_RECOLOR_BY_KIND;
  opt->block_size = 1;
}

int mispc_gs_recolor_passes(const mispc_gs_options *opt) {
  if (opt->coloring.recolor != MISPC_GS_RECOLOR_BY_KIND) return opt->coloring.recolor;
  return opt->kind == MISPC_GS_POINT ? 1 : 2;
}

mispc_status mispc_gs_create(mispc_context *ctx, const mispc_gs_options *opt, mispc_gs **gs) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!gs) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_gs_create: output is NULL");
  *gs = NULL;
  mispc_gs_options o;
  if (opt)
    o = *opt;
  else
    mispc_gs_options_default(&o);
  if (!(o.omega > 0 && o.omega < 2))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "omega must be in (0, 2), got %g", o.omega);
  if (o.sweeps < 1)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "sweeps must be >= 1, got %d", o.sweeps);
  if (o.block_size < 1 || !((o.strength_threshold >= 0 && o.strength_threshold < INFINITY) ||
                            o.strength_threshold == MISPC_GS_THETA_AUTO ||
                            o.strength_threshold == MISPC_GS_THETA_ANISOTROPIC))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "block_size must be >= 1 and strength_threshold >= 0 and finite, or "
                        "MISPC_GS_THETA_AUTO (-1) or MISPC_GS_THETA_ANISOTROPIC (-2), got %d "
                        "and %g",
                        o.block_size, o.strength_threshold);
  if (o.line_clusters < MISPC_GS_AUTO || o.line_clusters > 1)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "line_clusters must be 0, 1 or MISPC_GS_AUTO, got %d", o.line_clusters);
  if (o.block_solve < MISPC_GS_AUTO || o.block_solve > 1)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "block_solve must be 0, 1 or MISPC_GS_AUTO, got %d", o.block_solve);
  if (o.block_solve == 1 && o.kind == MISPC_GS_CLUSTER && o.omega != 1.0)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "exact cluster solves need omega = 1, got %g",
                        o.omega);
  if (o.kind != MISPC_GS_POINT && o.kind != MISPC_GS_CLUSTER)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "unknown Gauss-Seidel kind %d", (int)o.kind);
  if (o.sweep != MISPC_GS_FORWARD && o.sweep != MISPC_GS_BACKWARD && o.sweep != MISPC_GS_SYMMETRIC)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "unknown sweep %d", (int)o.sweep);
  o.coloring.recolor = mispc_gs_recolor_passes(&o);
  if (o.coloring.recolor < 0 || o.coloring.recolor > MISPC_COLORING_MAX_RECOLOR)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "coloring.recolor must be MISPC_GS_RECOLOR_BY_KIND or in [0, %d], got %d",
                        MISPC_COLORING_MAX_RECOLOR, o.coloring.recolor);
  mispc_gs *g = (mispc_gs *)calloc(1, sizeof *g);
  if (!g) return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory");
  g->opt = g->asked = o;
  *gs = g;
  return MISPC_SUCCESS;
}

int gs_auto_wanted(const mispc_gs_options *o) {
  return o->kind == MISPC_GS_CLUSTER &&
         (o->strength_threshold < 0 || o->line_clusters < 0 || o->block_solve < 0);
}

void gs_resolve_auto(mispc_gs_options *o, double theta, double weak_max) {
  const int weak = weak_max >= 0;
  const int aniso = o->kind == MISPC_GS_CLUSTER && weak && weak_max <= MISPC_GS_ANISOTROPIC * theta;
  /* weak couplings set apart from theta by a gap (Elasticity3D 0.75,
   * aniso2d:300:0.1 0.15); not where they run on up to it (bcsstk13 0.999,
   * GAMG's coarse levels of elasticity 1) */
  const int apart = weak && weak_max <= MISPC_GS_WEAK_APART * theta;
  if (o->strength_threshold < 0) {
    const int rows = o->strength_threshold == MISPC_GS_THETA_ANISOTROPIC ? apart : weak;
    o->strength_threshold = rows ? theta : 0;
    if (rows) o->block_size = 1;
  }
  if (o->line_clusters < 0) o->line_clusters = aniso;
  if (o->block_solve < 0) o->block_solve = aniso && o->omega == 1.0;
}

void gs_info_options(const mispc_gs_options *o, double theta, double weak_max,
                     mispc_gs_info *info) {
  info->strength_threshold = o->strength_threshold;
  info->block_size = o->block_size;
  info->line_clusters = o->line_clusters;
  info->block_solve = o->block_solve;
  info->auto_theta = theta;
  info->auto_weak_max = weak_max;
}

void gs_device_copy_free(mispc_context *ctx, mispc_gs *g) {
  if (g->mem == MISPC_MEM_DEVICE) gs_release_cuda(g), gs_exact_free(ctx, g, MISPC_MEM_DEVICE);
  mispc_pool_free(ctx, g->mem, g->io_slot);
  g->io_slot = NULL;
  free(g->color_rows);
  g->color_rows = NULL;
  int32_t **i32[] = {&g->perm, &g->iperm, &g->pcol, &g->fcol,    &g->bcol,
                     &g->fsrc, &g->bsrc,  &g->psrc, &g->pdiag_at};
  for (int k = 0; k < (int)(sizeof i32 / sizeof *i32); ++k)
    mispc_pool_free(ctx, g->mem, *i32[k]), *i32[k] = NULL;
  int64_t **i64[] = {&g->prow, &g->pout, &g->pup,  &g->pmid,
                     &g->pcl,  &g->fptr, &g->bptr, &g->dcolor_ptr};
  for (int k = 0; k < (int)(sizeof i64 / sizeof *i64); ++k)
    mispc_pool_free(ctx, g->mem, *i64[k]), *i64[k] = NULL;
  double **f64[] = {&g->pval, &g->pwdiag, &g->bp, &g->xp, &g->tp, &g->fval, &g->bval};
  for (int k = 0; k < 7; ++k) mispc_pool_free(ctx, g->mem, *f64[k]), *f64[k] = NULL;
}

static void release_symbolic(mispc_context *ctx, mispc_gs *g) {
  gs_device_copy_free(ctx, g);
  gs_host_copy_free(ctx, g);
  free(g->color_ptr);
  mispc_pool_free(ctx, g->mem, g->order);
  mispc_pool_free(ctx, g->mem, g->cl_ptr);
  mispc_pool_free(ctx, g->mem, g->cl_rows);
  mispc_pool_free(ctx, g->mem, g->row_cluster);
  g->color_ptr = NULL;
  g->order = g->cl_rows = g->row_cluster = NULL;
  g->cl_ptr = NULL;
  g->have_symbolic = g->have_numeric = 0;
}

void mispc_gs_destroy(mispc_context *ctx, mispc_gs *gs) {
  if (!ctx) return;
  if (!gs) return;
  release_symbolic(ctx, gs);
  free(gs);
}

mispc_status mispc_gs_get_info(const mispc_gs *gs, mispc_gs_info *info) {
  if (!gs || !info) return MISPC_ERR_INVALID_ARG;
  info->ncolors = gs->ncolors;
  info->nclusters = gs->nclusters;
  info->singletons = gs->singletons;
  info->min_cluster = gs->min_cluster;
  info->max_cluster = gs->max_cluster;
  info->symbolic_seconds = gs->t_symbolic;
  info->numeric_seconds = gs->t_numeric;
  info->outside_entries = gs->ex.nout;
  info->factor_values = gs->ex.nfactor;
  gs_info_options(&gs->opt, gs->auto_theta, gs->auto_weak_max, info);
  return MISPC_SUCCESS;
}

/* color_ptr lives on the host: launches are per color. */
static mispc_status order_by_color(mispc_context *ctx, mispc_gs *g, int64_t nitems,
                                   const mispc_coloring *c) {
  int64_t *ptr = NULL;
  mispc_status s =
      mispc_pool_alloc_n(ctx, g->mem, nitems + 1, 4, (void **)&g->order, "Gauss-Seidel order");
  if (!s)
    s = mispc_pool_alloc_n(ctx, g->mem, c->ncolors + 1, sizeof(int64_t), (void **)&ptr,
                           "color offsets");
  if (!s)
    s = MISPC_ON(g->mem == MISPC_MEM_DEVICE, mispc_order_by_key, ctx, nitems, c->color, c->ncolors,
                 g->order, ptr);
  if (!s) {
    g->ncolors = c->ncolors;
    g->color_ptr =
        (int64_t *)mispc_host_alloc_n(ctx, c->ncolors + 1, sizeof(int64_t), "color offsets");
    s = g->color_ptr ? mispc_mem_copy_n(ctx, g->color_ptr, MISPC_MEM_HOST, ptr, g->mem,
                                        c->ncolors + 1, sizeof(int64_t))
                     : MISPC_ERR_ALLOC;
  }
  mispc_pool_free(ctx, g->mem, ptr);
  return s;
}

mispc_status mispc_gs_symbolic(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!gs) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_gs_symbolic: NULL handle");
  MISPC_TRY(mispc_check_square_matrix(ctx, A, "Gauss-Seidel"));
  if (!A->values)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "Gauss-Seidel needs matrix values");
  double t0 = mispc_wtime(), tp = t0;
  mispc_logf(ctx, 2, "gs symbolic (%s, %lld rows, %lld entries):",
             gs->opt.kind == MISPC_GS_POINT ? "point" : "cluster", (long long)A->nrows,
             (long long)A->nnz);
  MISPC_TRY(mispc_check_graph_for(ctx, A, "mispc_gs_symbolic"));
  mispc_log_phase(ctx, A->mem, &tp, "graph check");
  mispc_status s = MISPC_SUCCESS;
  release_symbolic(ctx, gs);
  /* the automatic options from this matrix (A was checked above) */
  gs->opt = gs->asked;
  gs->auto_theta = 0;
  gs->auto_weak_max = -1;
  if (gs_auto_wanted(&gs->opt)) {
    MISPC_TRY(MISPC_ON(A->mem == MISPC_MEM_DEVICE, agg_strength_auto, ctx, A, &gs->auto_theta,
                       &gs->auto_weak_max));
    mispc_log_phase(ctx, A->mem, &tp, "automatic threshold");
  }
  gs_resolve_auto(&gs->opt, gs->auto_theta, gs->auto_weak_max);
  mispc_logf(ctx, 2,
             "gs symbolic: strength threshold %g, block size %d, line clusters %d, block "
             "solves %d (automatic theta %g, weakest kept-out coupling %g)",
             gs->opt.strength_threshold, gs->opt.block_size, gs->opt.line_clusters,
             gs->opt.block_solve, gs->auto_theta, gs->auto_weak_max);
  gs->mem = A->mem;
  gs->n = A->nrows;
  gs->nnz = A->nnz;
  mispc_coloring_options co = gs->opt.coloring;
  co.mis.skip_validation = 1; /* checked above */
  if (gs->opt.kind == MISPC_GS_POINT) {
    mispc_coloring c;
    s = mispc_color(ctx, A, &co, &c);
    mispc_log_phase(ctx, gs->mem, &tp, "coloring");
    if (!s) s = order_by_color(ctx, gs, gs->n, &c);
    mispc_log_phase(ctx, gs->mem, &tp, "order by color");
    mispc_coloring_free(ctx, &c);
    gs->nclusters = gs->singletons = gs->n;
    gs->min_cluster = gs->max_cluster = 1;
  } else {
    /* clusters = aggregates of the matrix graph (self loops are ignored), or of
     * its strength graph on nodes of block_size rows, expanded to the rows */
    mispc_agg_options ao;
    mispc_agg_options_default(&ao);
    ao.algo = gs->opt.clusters;
    ao.mis = co.mis;
    ao.mis.priority = MISPC_PRIORITY_DEFAULT;
    const int bs = gs->opt.block_size;
    const int use_strength = bs > 1 || gs->opt.strength_threshold > 0;
    mispc_aggregates aggs = {0};
    mispc_csr coarse = {0}, S = {0};
    mispc_coloring c = {0, 0, NULL, gs->mem};
    int32_t *dof_agg = NULL;
    if (use_strength && gs->n % bs)
      s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                       "Gauss-Seidel block size %d does not divide the %lld rows", bs,
                       (long long)gs->n);
    /* the backend directly: A was checked above (mispc_strength_graph would
     * check its indices again, 0.1-0.2 ms on Elasticity3D_60) */
    if (!s && use_strength)
      s = MISPC_ON(gs->mem == MISPC_MEM_DEVICE, agg_strength, ctx, A, gs->opt.strength_threshold,
                   bs, &S);
    mispc_log_phase(ctx, gs->mem, &tp, "strength graph");
    if (!s) s = mispc_aggregate(ctx, use_strength ? &S : A, &ao, &aggs);
    mispc_log_phase(ctx, gs->mem, &tp, "aggregation");
    if (!s && gs->opt.line_clusters)
      s = gs_grow_line_clusters(ctx, use_strength ? &S : A, &ao, &aggs);
    mispc_log_phase(ctx, gs->mem, &tp, "line clusters");
    mispc_aggregates rows = aggs; /* aggregate of every row */
    if (!s && use_strength) {
      s = mispc_pool_alloc_n(ctx, gs->mem, gs->n + 1, 4, (void **)&dof_agg, "cluster of each row");
      if (!s)
        s = MISPC_ON(gs->mem == MISPC_MEM_DEVICE, gs_expand, ctx, gs->n, bs, aggs.agg, dof_agg);
      rows.n = gs->n;
      rows.agg = dof_agg;
      rows.root = NULL;
    }
    if (!s) {
      gs->nclusters = aggs.naggs;
      s = mispc_pool_alloc_n(ctx, gs->mem, aggs.naggs + 1, sizeof(int64_t), (void **)&gs->cl_ptr,
                             "cluster offsets");
    }
    if (!s)
      s = mispc_pool_alloc_n(ctx, gs->mem, gs->n + 1, 4, (void **)&gs->cl_rows, "cluster rows");
    if (!s)
      s = MISPC_ON(gs->mem == MISPC_MEM_DEVICE, mispc_order_by_key, ctx, gs->n, rows.agg,
                   (int32_t)aggs.naggs, gs->cl_rows, gs->cl_ptr);
    if (!s)
      s = mispc_pool_alloc_n(ctx, gs->mem, gs->n + 1, 4, (void **)&gs->row_cluster,
                             "cluster of each row");
    if (!s) s = mispc_mem_copy_n(ctx, gs->row_cluster, gs->mem, rows.agg, gs->mem, gs->n, 4);
    mispc_log_phase(ctx, gs->mem, &tp, "rows by cluster");
    /* With threshold 0 the strength graph is A's node pattern without self
     * loops, so clusters c != d touch in A exactly when their nodes touch in
     * S: the cluster graph from S and the node aggregates is the one from A
     * and the row clusters, from bs^2 times fewer entries (Elasticity3D_60,
     * bs 3: 5.8 M instead of 50.8 M). */
    const int from_nodes = use_strength && gs->opt.strength_threshold == 0;
    if (!s) s = mispc_coarse_graph(ctx, from_nodes ? &S : A, from_nodes ? &aggs : &rows, &coarse);
    mispc_log_phase(ctx, gs->mem, &tp, "cluster graph");
    if (!s) s = mispc_color(ctx, &coarse, &co, &c);
    mispc_log_phase(ctx, gs->mem, &tp, "cluster coloring");
    if (!s) s = order_by_color(ctx, gs, aggs.naggs, &c);
    mispc_log_phase(ctx, gs->mem, &tp, "clusters by color");
    if (!s)
      s = MISPC_ON(gs->mem == MISPC_MEM_DEVICE, gs_cluster_sizes, ctx, gs->nclusters, gs->cl_ptr,
                   &gs->min_cluster, &gs->max_cluster, &gs->singletons);
    mispc_log_phase(ctx, gs->mem, &tp, "cluster statistics");
    mispc_pool_free(ctx, gs->mem, dof_agg);
    mispc_csr_free(ctx, &S);
    mispc_coloring_free(ctx, &c);
    mispc_csr_free(ctx, &coarse);
    mispc_aggregates_free(ctx, &aggs);
  }
  if (!s && gs->mem == MISPC_MEM_HOST) s = gs_host_pattern(ctx, gs, A, 1);
  if (!s && gs->mem == MISPC_MEM_HOST && gs_exact(gs)) s = gs_exact_edges_host(ctx, gs);
  if (!s && gs->mem == MISPC_MEM_DEVICE) s = gs_permute_pattern_cuda(ctx, gs, A);
  mispc_log_phase(ctx, gs->mem, &tp, "sweep-ordered pattern");
  if (s) {
    release_symbolic(ctx, gs);
    return s;
  }
  gs->have_symbolic = 1;
  gs->t_symbolic = mispc_wtime() - t0;
  mispc_logf(ctx, 1, "gs symbolic: %d colors, %lld clusters, %.3f ms", gs->ncolors,
             (long long)gs->nclusters, 1e3 * gs->t_symbolic);
  return MISPC_SUCCESS;
}

const char *gs_value_kind_text(int kind) {
  static const char *what[] = {"",
                               "diagonal entry missing",
                               "diagonal entry zero",
                               "diagonal entry not finite",
                               "diagonal entry negative",
                               "diagonal entry so small that omega / a_ii overflows",
                               "pivot of its cluster's exact factor zero, not finite or negative",
                               "entry of its cluster without its mirror (exact solves need a "
                               "symmetric pattern)"};
  return kind >= 0 && kind < (int)(sizeof what / sizeof *what) ? what[kind] : "unusable value";
}

mispc_status mispc_gs_numeric(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!gs || !gs->have_symbolic)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_gs_numeric: call mispc_gs_symbolic first");
  MISPC_TRY(mispc_csr_check_desc(ctx, A, "matrix"));
  if (A->nrows != gs->n || A->nnz != gs->nnz || A->mem != gs->mem || !A->values)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_gs_numeric: matrix differs from the one of mispc_gs_symbolic "
                        "(size, entries, memory space or missing values)");
  double t0 = mispc_wtime();
  int64_t bad = -1;
  int kind = 0;
  gs->have_numeric = 0;
  /* the sweep-ordered values, checking the diagonal */
  if (gs->mem == MISPC_MEM_DEVICE)
    MISPC_TRY(gs_permute_values_cuda(ctx, gs, A, &bad, &kind));
  else
    MISPC_TRY(gs_host_values(ctx, gs, A, &bad, &kind));
  if (bad >= 0)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_gs_numeric: %s at row %lld",
                        gs_value_kind_text(kind), (long long)bad);
  gs->have_numeric = 1;
  gs->t_numeric = mispc_wtime() - t0;
  return MISPC_SUCCESS;
}

mispc_status mispc_gs_apply(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A, const double *b,
                            double *x, int zero_guess) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!gs || !gs->have_numeric)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_gs_apply: call mispc_gs_symbolic and mispc_gs_numeric first");
  if (!b || !x) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_gs_apply: NULL vector");
  MISPC_TRY(mispc_csr_check_desc(ctx, A, "matrix"));
  if (A->nrows != gs->n || A->nnz != gs->nnz || A->mem != gs->mem)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_gs_apply: matrix differs from the one of the setup");
  /* both on the sweep-ordered copy of the setup */
  if (gs->mem == MISPC_MEM_DEVICE) return gs_apply_cuda(ctx, gs, b, x, zero_guess);
  if (zero_guess && !gs_host_skips_zero(gs)) MISPC_TRY(gs_zero_host(ctx, gs->n, x));
  if (gs_exact(gs)) { /* a pass after one the other way skips its first color */
    const int per = gs->opt.sweep == MISPC_GS_SYMMETRIC ? 2 : 1;
    for (int p = 0; p < gs->opt.sweeps * per; ++p)
      gs_exact_sweep_host(ctx, gs, b, x, gs->opt.sweep == MISPC_GS_BACKWARD || (per == 2 && p % 2),
                          per == 2 && p > 0);
    return MISPC_SUCCESS;
  }
  /* from x = 0: the first pass reads only what it has written; a symmetric
   * sweep's backward pass after it goes on from its sums (point GS) */
  for (int k = 0; k < gs->opt.sweeps; ++k) {
    const int first = zero_guess && k == 0;
    if (gs->opt.sweep != MISPC_GS_BACKWARD)
      MISPC_TRY(gs_sweep_host(ctx, gs, b, x, 0, first ? GS_PASS_FROM_ZERO : GS_PASS_FULL));
    if (gs->opt.sweep != MISPC_GS_FORWARD)
      MISPC_TRY(gs_sweep_host(ctx, gs, b, x, 1,
                              !first                               ? GS_PASS_FULL
                              : gs->opt.sweep == MISPC_GS_BACKWARD ? GS_PASS_FROM_ZERO
                                                                   : GS_PASS_RESUME));
  }
  return MISPC_SUCCESS;
}
