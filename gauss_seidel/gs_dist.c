/* Distributed point multicolor Gauss-Seidel on the host (docs/DISTRIBUTED.md,
 * "Gauss-Seidel"). Symbolic: the one-process colors (mispc_dist_color), the
 * rows merged into global column order over [owned x | ghost x] (so the row
 * update of gs_host.c sums in the one-process storage order), rows grouped
 * by color, ghost colors by halo. Apply: color by color, the color's rows
 * updated, then its boundary values sent (mispc_halo_exchange_where). Rows
 * of one color share no edge, so the order inside a color does not matter,
 * and the vector equals the one-process one bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "gs_dist_internal.h"

mispc_status mispc_dist_gs_create(mispc_context *ctx, const mispc_gs_options *opt,
                                  mispc_dist_gs **gs) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!gs) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_gs_create: NULL handle");
  mispc_dist_gs *g = (mispc_dist_gs *)calloc(1, sizeof *g);
  if (!g) return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory");
  if (opt)
    g->opt = *opt;
  else
    mispc_gs_options_default(&g->opt);
  g->asked = g->opt;
  /* the one-process checks of the options */
  mispc_gs *probe = NULL;
  mispc_status s = mispc_gs_create(ctx, &g->opt, &probe);
  mispc_gs_destroy(ctx, probe);
  if (s) {
    free(g);
    return s;
  }
  *gs = g;
  return MISPC_SUCCESS;
}

static void release(mispc_context *ctx, mispc_dist_gs *g) {
  mispc_csr_free(ctx, &g->M);
  free(g->src), free(g->color_ptr), free(g->order), free(g->scolor), free(g->gcolor);
  free(g->xe);
  gs_host_copy_free(ctx, &g->host);
  memset(&g->host, 0, sizeof g->host);
  gs_dist_cluster_free(ctx, g->cl);
  gs_dist_device_free(ctx, g->dev);
  g->cl = NULL;
  g->dev = NULL;
  g->src = g->color_ptr = NULL;
  g->order = g->scolor = g->gcolor = NULL;
  g->xe = NULL;
  g->have_symbolic = g->have_numeric = 0;
}

void mispc_dist_gs_destroy(mispc_context *ctx, mispc_dist_gs *gs) {
  if (!gs) return;
  release(ctx, gs);
  free(gs);
}

/* Rows of M: the two blocks' entries merged by global column. */
static mispc_status merge_rows(mispc_context *ctx, mispc_dist_gs *g, const mispc_dist_csr *A) {
  const int64_t nloc = g->nloc, nnz = A->diag.nnz + A->offd.nnz;
  MISPC_TRY(mispc_csr_alloc(ctx, MISPC_MEM_HOST, nloc, nloc + A->nghost, nnz, 1, &g->M));
  g->src = (int64_t *)mispc_host_alloc_n(ctx, nnz + 1, sizeof(int64_t), "entry sources");
  if (!g->src) return MISPC_ERR_ALLOC;
  int64_t q = 0;
  for (int64_t i = 0; i < nloc; ++i) {
    int64_t a = A->diag.rowptr[i], ae = A->diag.rowptr[i + 1];
    int64_t b = A->offd.rowptr[i], be = A->offd.rowptr[i + 1];
    int64_t last = -1; /* the global column taken before, in this row */
    while (a < ae || b < be) {
      const int64_t ga = a < ae ? A->rstart + A->diag.colidx[a] : INT64_MAX;
      const int64_t gb = b < be ? A->garray[A->offd.colidx[b]] : INT64_MAX;
      const int64_t gc = ga < gb ? ga : gb;
      if (gc <= last)
        return mispc_seterr(ctx, MISPC_ERR_UNSORTED,
                            "Gauss-Seidel: row %lld is not sorted or has a repeated column",
                            (long long)(A->rstart + i));
      last = gc;
      if (ga < gb) {
        g->M.colidx[q] = A->diag.colidx[a];
        g->src[q++] = a++;
      } else {
        g->M.colidx[q] = (int32_t)(nloc + A->offd.colidx[b]);
        g->src[q++] = -1 - b++;
      }
    }
    g->M.rowptr[i + 1] = q;
  }
  return MISPC_SUCCESS;
}

/* A setup step of host graph H on the GPU: D is H's device twin, or NULL
 * (H is copied to the device for the step); the result (nloc int32 words)
 * comes back to out on the host. Collective; the step's own contract makes
 * the result the host's. */
static mispc_status on_device(mispc_context *ctx, const mispc_dist_csr *H, const mispc_dist_csr *D,
                              int aggregate, const void *opt, int32_t *out, void *result) {
  mispc_dist_csr copy = {0};
  const int64_t nloc = H->rend - H->rstart;
  int32_t *d_out = NULL;
  mispc_status s = D ? MISPC_SUCCESS : mispc_dist_csr_copy(ctx, H, MISPC_MEM_DEVICE, &copy);
  if (!s)
    s = mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(int32_t) * (size_t)(nloc + 1), (void **)&d_out);
  s = mispc_dist_agree(ctx, H->comm, s);
  const mispc_dist_csr *G = D ? D : &copy;
  if (!s)
    s = aggregate ? mispc_dist_aggregate(ctx, G, (const mispc_agg_options *)opt, d_out,
                                         (mispc_dist_agg_info *)result)
                  : mispc_dist_color(ctx, G, (const mispc_coloring_options *)opt, d_out,
                                     (int32_t *)result);
  if (!s && nloc > 0)
    s = mispc_memcpy(ctx, out, MISPC_MEM_HOST, d_out, MISPC_MEM_DEVICE,
                     sizeof(int32_t) * (size_t)nloc);
  mispc_free(ctx, MISPC_MEM_DEVICE, d_out);
  if (!D) mispc_dist_csr_free(ctx, &copy);
  return mispc_dist_agree(ctx, H->comm, s);
}

mispc_status gs_dist_aggregate(mispc_context *ctx, const mispc_dist_csr *H, const mispc_dist_csr *D,
                               int gpu, const mispc_agg_options *opt, int32_t *agg,
                               mispc_dist_agg_info *info) {
  if (gpu && !ctx->tuning.dist_gs_host_setup) return on_device(ctx, H, D, 1, opt, agg, info);
  return mispc_dist_aggregate(ctx, H, opt, agg, info);
}

/* Point GS's colors of host matrix H: on its device twin D (NULL: host
 * matrices) unless dist_gs_host_setup asks for the host. */
static mispc_status color_rows(mispc_context *ctx, const mispc_dist_csr *H, const mispc_dist_csr *D,
                               const mispc_coloring_options *opt, int32_t *color,
                               int32_t *ncolors) {
  if (D && !ctx->tuning.dist_gs_host_setup) return on_device(ctx, H, D, 0, opt, color, ncolors);
  return mispc_dist_color(ctx, H, opt, color, ncolors);
}

static mispc_status symbolic_host(mispc_context *ctx, mispc_dist_gs *gs, const mispc_dist_csr *A,
                                  const mispc_dist_csr *D) {
  mispc_status s = MISPC_SUCCESS;
  if ((A->diag.nnz && !A->diag.values) || (A->offd.nnz && !A->offd.values))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "Gauss-Seidel needs matrix values");
  s = mispc_dist_agree(ctx, A->comm, s);
  if (s) return s;
  release(ctx, gs);
  /* the automatic options, the one-process values (gs.c) */
  gs->opt = gs->asked;
  gs->auto_theta = 0;
  gs->auto_weak_max = -1;
  if (gs_auto_wanted(&gs->opt))
    MISPC_TRY(mispc_dist_strength_auto(ctx, A, &gs->auto_theta, &gs->auto_weak_max));
  gs_resolve_auto(&gs->opt, gs->auto_theta, gs->auto_weak_max);
  gs->nloc = A->rend - A->rstart;
  gs->nghost = A->nghost;
  gs->nnz = A->diag.nnz + A->offd.nnz;
  s = mispc_dist_agree(ctx, A->comm, merge_rows(ctx, gs, A));
  /* The one-process colors of the matrix graph (mispc_gs_symbolic's options). */
  mispc_coloring_options co = gs->opt.coloring;
  co.recolor = mispc_gs_recolor_passes(&gs->opt);
  co.mis.skip_validation = 1;
  if (!s && gs->opt.kind == MISPC_GS_CLUSTER) { /* its own layout (gs_dist_cluster.c) */
    s = gs_dist_cluster_symbolic(ctx, gs, A, D);
    if (s) {
      release(ctx, gs);
      return s;
    }
    gs->have_symbolic = 1;
    return MISPC_SUCCESS;
  }
  int32_t *color = (int32_t *)malloc(sizeof(int32_t) * (size_t)(gs->nloc + 1));
  gs->gcolor = (int32_t *)malloc(sizeof(int32_t) * (size_t)(gs->nghost + 1));
  gs->scolor = (int32_t *)malloc(sizeof(int32_t) * (size_t)(A->halo->nsend + 1));
  gs->order = (int32_t *)malloc(sizeof(int32_t) * (size_t)(gs->nloc + 1));
  gs->xe = (double *)malloc(sizeof(double) * (size_t)(gs->nloc + gs->nghost + 1));
  if (!s && (!color || !gs->gcolor || !gs->scolor || !gs->order || !gs->xe))
    s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in Gauss-Seidel setup");
  s = mispc_dist_agree(ctx, A->comm, s);
  if (!s) s = color_rows(ctx, A, D, &co, color, &gs->ncolors);
  if (!s) s = mispc_halo_exchange(ctx, A->halo, color, gs->gcolor, sizeof(int32_t));
  if (!s) {
    for (int64_t e = 0; e < A->halo->nsend; ++e) gs->scolor[e] = color[A->halo->sidx[e]];
    gs->color_ptr = (int64_t *)calloc((size_t)gs->ncolors + 2, sizeof(int64_t));
    if (!gs->color_ptr) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory");
  }
  if (!s) { /* counting sort by color, increasing row id inside */
    for (int64_t v = 0; v < gs->nloc; ++v) gs->color_ptr[color[v] + 2]++;
    for (int32_t c = 0; c < gs->ncolors; ++c) gs->color_ptr[c + 2] += gs->color_ptr[c + 1];
    for (int64_t v = 0; v < gs->nloc; ++v) gs->order[gs->color_ptr[color[v] + 1]++] = (int32_t)v;
  }
  free(color);
  s = mispc_dist_agree(ctx, A->comm, s);
  if (s) {
    release(ctx, gs);
    return s;
  }
  gs->have_symbolic = 1;
  return MISPC_SUCCESS;
}

static mispc_status numeric_host(mispc_context *ctx, mispc_dist_gs *gs, const mispc_dist_csr *A) {
  mispc_status s = MISPC_SUCCESS;
  if (!gs || !gs->have_symbolic || !A || A->rend - A->rstart != gs->nloc ||
      A->diag.nnz + A->offd.nnz != gs->nnz || (A->diag.nnz && !A->diag.values))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "mispc_dist_gs_numeric: call mispc_dist_gs_symbolic first, with this matrix");
  if (!A) return s;
  s = mispc_dist_agree(ctx, A->comm, s);
  if (s) return s;
  gs->have_numeric = 0;
  for (int64_t q = 0; q < gs->nnz; ++q)
    gs->M.values[q] =
        gs->src[q] >= 0 ? A->diag.values[gs->src[q]] : A->offd.values[-1 - gs->src[q]];
  int64_t bad = -1;
  int kind = 0;
  for (int64_t i = 0; i < gs->nloc; ++i) { /* the first stored a_ii, as gs_diag_host */
    int found = 0;
    double d = 0, w;
    for (int64_t p = A->diag.rowptr[i]; p < A->diag.rowptr[i + 1] && !found; ++p)
      if (A->diag.colidx[p] == i) d = A->diag.values[p], found = 1;
    const int k = gs_diag_kind(found, d, gs->opt.require_positive_diagonal, gs->opt.omega, &w);
    if (k && bad < 0) bad = A->rstart + i, kind = k;
  }
  if (bad >= 0)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_gs_numeric: %s at row %lld",
                     gs_value_kind_text(kind), (long long)bad);
  s = mispc_dist_agree(ctx, A->comm, s);
  if (!s && gs->cl) s = gs_dist_cluster_numeric(ctx, gs, A->comm);
  if (!s) gs->have_numeric = 1;
  return s;
}

/* The host sweep's copy of the sweep matrix, through gs->host, a handle
 * whose orderings are this one's (point: rows by color; cluster: the local
 * clusters by color, rows by cluster, cluster labels of all columns). */
static mispc_status host_copy_pattern(mispc_context *ctx, mispc_dist_gs *gs,
                                      const mispc_dist_csr *A) {
  mispc_gs *h = &gs->host;
  const gs_dist_cluster *cl = gs->cl;
  memset(h, 0, sizeof *h);
  h->opt = gs->opt;
  h->mem = MISPC_MEM_HOST;
  h->ncolors = gs->ncolors;
  const mispc_halo *halo = cl ? cl->halo : A->halo;
  const mispc_csr *W = cl ? &cl->W : &gs->M;
  if (cl) {
    h->n = cl->ns;
    h->nnz = cl->W.nnz;
    h->color_ptr = cl->color_ptr;
    h->order = cl->cl_order;
    h->nclusters = cl->color_ptr[gs->ncolors];
    h->cl_ptr = cl->cl_ptr;
    h->cl_rows = cl->cl_rows;
    h->row_cluster = cl->row_cluster;
    h->ghost_color = cl->gcolor; /* the backward rows' earlier colors first */
  } else {
    h->n = gs->nloc;
    h->nnz = gs->M.nnz;
    h->color_ptr = gs->color_ptr;
    h->order = gs->order;
    h->nclusters = gs->nloc;
    h->ghost_color = gs->gcolor; /* the rows' lower parts */
  }
  /* the rows the halo sends: swept with their colors (gs_host_copy.c, level_order) */
  uint8_t *sent = (uint8_t *)calloc((size_t)h->n + 1, 1);
  if (!sent) return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in Gauss-Seidel setup");
  for (int64_t e = 0; e < halo->nsend; ++e) sent[halo->sidx[e]] = 1;
  h->sent_rows = sent;
  const mispc_status s = gs_host_pattern(ctx, h, W, 0);
  h->sent_rows = NULL;
  free(sent);
  return s;
}

/* A device matrix's blocks copied to the host, sharing its plan, ranges and
 * garray: the setups run there (their results are the host ones). */
static mispc_status host_view(mispc_context *ctx, const mispc_dist_csr *A, mispc_dist_csr *H) {
  *H = *A;
  memset(&H->diag, 0, sizeof H->diag);
  memset(&H->offd, 0, sizeof H->offd);
  H->owns_garray = 0;
  mispc_status s = mispc_csr_copy(ctx, &A->diag, MISPC_MEM_HOST, &H->diag);
  if (!s) s = mispc_csr_copy(ctx, &A->offd, MISPC_MEM_HOST, &H->offd);
  return mispc_dist_agree(ctx, A->comm, s);
}

static void host_view_free(mispc_context *ctx, mispc_dist_csr *H) {
  mispc_csr_free(ctx, &H->diag);
  mispc_csr_free(ctx, &H->offd);
}

mispc_status mispc_dist_gs_symbolic(mispc_context *ctx, mispc_dist_gs *gs,
                                    const mispc_dist_csr *A) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!gs || !A || !A->halo)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_dist_gs_symbolic: NULL handle or matrix");
  const int dev = A->diag.mem == MISPC_MEM_DEVICE;
  mispc_dist_csr H;
  double t = mispc_wtime(); /* -vv: each step's time (mispc_log_phase) */
  mispc_status s = dev ? host_view(ctx, A, &H) : MISPC_SUCCESS;
  if (dev) mispc_log_phase(ctx, MISPC_MEM_HOST, &t, "dist gs symbolic: host copy of the blocks");
  if (!s) s = symbolic_host(ctx, gs, dev ? &H : A, dev ? A : NULL);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t, "dist gs symbolic: colors and layout");
  if (!s && !dev) {
    s = mispc_dist_agree(ctx, A->comm, host_copy_pattern(ctx, gs, A));
    if (s) release(ctx, gs);
    if (!s) gs->block_outside = gs->host.ex.nout, gs->block_factor = gs->host.ex.nfactor;
    mispc_log_phase(ctx, MISPC_MEM_HOST, &t, "dist gs symbolic: sweep-ordered copy");
  }
  if (!s && dev) {
    s = mispc_dist_agree(ctx, A->comm, gs_dist_device_setup(ctx, gs, &H));
    if (s) release(ctx, gs);
    mispc_log_phase(ctx, MISPC_MEM_DEVICE, &t, "dist gs symbolic: device copy");
  }
  if (dev) host_view_free(ctx, &H);
  gs->device = dev;
  return s;
}

mispc_status mispc_dist_gs_numeric(mispc_context *ctx, mispc_dist_gs *gs, const mispc_dist_csr *A) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!A) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_gs_numeric: NULL matrix");
  const int dev = A->diag.mem == MISPC_MEM_DEVICE;
  mispc_status s = MISPC_SUCCESS;
  if (gs && gs->have_symbolic && dev != gs->device)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "mispc_dist_gs_numeric: the matrix is in another memory space than at the "
                     "symbolic setup");
  s = mispc_dist_agree(ctx, A->comm, s);
  mispc_dist_csr H;
  if (!s && dev) s = host_view(ctx, A, &H);
  if (s) return s;
  s = numeric_host(ctx, gs, dev ? &H : A);
  if (!s && !dev) { /* the copy's values (the diagonal was checked above) */
    int64_t bad = -1;
    int kind = 0;
    s = gs_host_values(ctx, &gs->host, gs->cl ? &gs->cl->W : &gs->M, &bad, &kind);
    if (!s && bad >= 0) { /* the diagonal passed above: an exact cluster factor failed */
      int rank = 0;
      MPI_Comm_rank(A->comm, &rank);
      s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                       "mispc_dist_gs_numeric: %s at swept row %lld of rank %d",
                       gs_value_kind_text(kind), (long long)bad, rank);
    }
    s = mispc_dist_agree(ctx, A->comm, s);
    if (s) gs->have_numeric = 0;
  }
  if (dev) host_view_free(ctx, &H);
  if (!s && dev) {
    s = mispc_dist_agree(ctx, A->comm, gs_dist_device_values(ctx, gs));
    if (s) gs->have_numeric = 0;
  }
  return s;
}

/* A pass: the free rows (one thread: gs_host_copy.c, level_order) before a
 * forward pass's colors and after a backward pass's, each color's other
 * rows followed by its exchange where one is needed (sweep k:
 * gs_dist_exchange_after). */
static mispc_status sweep(mispc_context *ctx, mispc_dist_gs *gs, const mispc_dist_csr *A,
                          const double *b, int backward, int start, int k_sweep) {
  if (!backward) gs_sweep_free_host(&gs->host, b, gs->xe, 0, start);
  for (int32_t k = 0; k < gs->ncolors; ++k) {
    const int32_t c = backward ? gs->ncolors - 1 - k : k;
    gs_sweep_color_host(ctx, &gs->host, b, gs->xe, c, backward, start);
    if (gs_dist_exchange_after(&gs->opt, k_sweep, k, gs->ncolors))
      MISPC_TRY(mispc_halo_exchange_where(ctx, A->halo, gs->xe, gs->xe + gs->nloc, sizeof(double),
                                          gs->scolor, gs->gcolor, c));
  }
  if (backward) gs_sweep_free_host(&gs->host, b, gs->xe, 1, start);
  return MISPC_SUCCESS;
}

mispc_status mispc_dist_gs_apply(mispc_context *ctx, mispc_dist_gs *gs, const mispc_dist_csr *A,
                                 const double *b, double *x, int zero_guess) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  mispc_status s = MISPC_SUCCESS;
  if (!gs || !gs->have_numeric || !A || A->rend - A->rstart != gs->nloc)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "mispc_dist_gs_apply: call mispc_dist_gs_symbolic and _numeric first");
  else if (gs->nloc > 0 && (!b || !x))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_gs_apply: NULL vector");
  if (!A) return s;
  s = mispc_dist_agree(ctx, A->comm, s);
  if (s) return s;
  if (gs->device != (A->diag.mem == MISPC_MEM_DEVICE))
    s = mispc_seterr(
        ctx, MISPC_ERR_INVALID_ARG,
        "mispc_dist_gs_apply: the matrix is in another memory space than at the setup");
  s = mispc_dist_agree(ctx, A->comm, s);
  if (s) return s;
  if (gs->device) return gs_dist_device_apply(ctx, gs, A, b, x, zero_guess);
  if (gs->cl) return gs_dist_cluster_apply(ctx, gs, A->comm, b, x, zero_guess);
  const int64_t before = A->halo->stats.bytes_sent;
  if (zero_guess) {
    memset(gs->xe, 0, sizeof(double) * (size_t)(gs->nloc + gs->nghost));
  } else {
    memcpy(gs->xe, x, sizeof(double) * (size_t)gs->nloc);
    s = mispc_halo_exchange(ctx, A->halo, gs->xe, gs->xe + gs->nloc, sizeof(double));
  }
  /* from x = 0, symmetric: the first forward pass reads only the lower
   * parts and the backward one goes on from its sums (gs_row_update.h,
   * gs_update_row; the same bits), as one process's sweep does */
  const int resume = zero_guess && gs->opt.sweep == MISPC_GS_SYMMETRIC;
  for (int k = 0; !s && k < gs->opt.sweeps; ++k) {
    const int first = resume && k == 0;
    if (gs->opt.sweep != MISPC_GS_BACKWARD)
      s = sweep(ctx, gs, A, b, 0, first ? GS_PASS_FROM_ZERO : GS_PASS_FULL, k);
    if (!s && gs->opt.sweep != MISPC_GS_FORWARD)
      s = sweep(ctx, gs, A, b, 1, first ? GS_PASS_RESUME : GS_PASS_FULL, k);
  }
  s = mispc_dist_agree(ctx, A->comm, s);
  if (!s) memcpy(x, gs->xe, sizeof(double) * (size_t)gs->nloc);
  gs->apply_bytes = A->halo->stats.bytes_sent - before;
  return s;
}

mispc_status mispc_dist_gs_get_info(const mispc_dist_gs *gs, mispc_gs_info *info,
                                    int64_t *apply_bytes) {
  if (!gs || !info) return MISPC_ERR_INVALID_ARG;
  memset(info, 0, sizeof *info);
  info->ncolors = gs->ncolors;
  info->min_cluster = info->max_cluster = 1;
  if (gs->cl) {
    info->nclusters = gs->cl->nclusters;
    info->singletons = gs->cl->singletons;
    info->min_cluster = gs->cl->min_cluster;
    info->max_cluster = gs->cl->max_cluster;
  }
  if (apply_bytes) *apply_bytes = gs->apply_bytes;
  info->outside_entries = gs->block_outside;
  info->factor_values = gs->block_factor;
  gs_info_options(&gs->opt, gs->auto_theta, gs->auto_weak_max, info);
  return MISPC_SUCCESS;
}
