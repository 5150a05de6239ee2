/* Host exact cluster solves (gs_exact.h): the pattern and factors on the
 * sweep-ordered copy's order (gs->h.perm, gs->h.cl) and the block sweeps.
 * Built with -ffp-contract=off (CMakeLists.txt), as gs_exact_cuda.cu is
 * with --fmad=false: the same bits on both. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gs_internal.h"

void gs_exact_free(mispc_context *ctx, mispc_gs *gs, mispc_memspace mem) {
  struct gs_exact_lu *e = &gs->ex;
  void *p[] = {e->optr,  e->eptr, e->ocol, e->osrc, e->first,
               e->iperm, e->oval, e->lu,   e->xs,   e->edge};
  for (size_t k = 0; k < sizeof p / sizeof *p; ++k) mispc_pool_free(ctx, mem, p[k]);
  if (mem == MISPC_MEM_HOST) gs_exact_rows_free(ctx, &e->rows);
  memset(e, 0, sizeof *e);
}

#define ALLOC(ptr, count, elem, what)                                                              \
  if (!s) s = mispc_pool_alloc_n(ctx, MISPC_MEM_HOST, (count), (elem), (void **)&(ptr), what)

mispc_status gs_exact_pattern_host(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A) {
  struct gs_exact_lu *e = &gs->ex;
  const struct gs_host_copy *h = &gs->h;
  const int64_t n = gs->n, nc = gs->nclusters;
  const int nt = mispc_host_threads(ctx);
  mispc_status s = MISPC_SUCCESS;
  gs_exact_free(ctx, gs, MISPC_MEM_HOST);
  ALLOC(e->iperm, n + 1, 4, "exact solves: sweep positions");
  ALLOC(e->first, n + 1, 4, "exact solves: envelopes");
  ALLOC(e->optr, n + 1, 8, "exact solves: outside entries");
  ALLOC(e->eptr, n + 1, 8, "exact solves: envelopes");
  if (s) return s;
  for (int64_t q = 0; q < n; ++q) e->iperm[h->perm[q]] = (int32_t)q;
  e->optr[0] = e->eptr[0] = 0;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t m = 0; m < nc; ++m)
    gs_exact_count(A->rowptr, A->colidx, n, gs->row_cluster, h->perm, e->iperm, h->cl[m],
                   h->cl[m + 1], e->optr + 1, e->first, e->eptr + 1);
  for (int64_t q = 0; q < n; ++q) {
    e->optr[q + 1] += e->optr[q];
    e->eptr[q + 1] += e->eptr[q];
  }
  e->nout = e->optr[n];
  e->nfactor = e->eptr[n];
  ALLOC(e->ocol, e->optr[n] + 1, 4, "exact solves: outside columns");
  ALLOC(e->osrc, e->optr[n] + 1, 4, "exact solves: outside entries");
  ALLOC(e->oval, e->optr[n] + 1, 8, "exact solves: outside values");
  ALLOC(e->lu, e->eptr[n] + 1, 8, "exact solves: factors");
  ALLOC(e->xs, n + 1, 8, "exact solves: x in sweep order");
  if (s) return s;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t m = 0; m < nc; ++m)
    gs_exact_fill(A->rowptr, A->colidx, n, gs->row_cluster, h->perm, NULL, h->cl[m], h->cl[m + 1],
                  e->optr, e->ocol, e->osrc);
  mispc_logf(ctx, 2, "gs exact clusters: %lld outside entries, %lld factor values",
             (long long)e->optr[n], (long long)e->eptr[n]);
  return gs_exact_rows_pattern(ctx, gs);
}

mispc_status gs_exact_values_host(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A,
                                  int64_t *bad_row, int *bad_kind) {
  struct gs_exact_lu *e = &gs->ex;
  const struct gs_host_copy *h = &gs->h;
  const int64_t nc = gs->nclusters;
  const int nt = mispc_host_threads(ctx);
  const int rp = gs->opt.require_positive_diagonal;
  uint64_t first_bad = UINT64_MAX; /* the least (row << 3 | kind) */
#pragma omp parallel for schedule(dynamic, 64) num_threads(nt) reduction(min : first_bad)
  for (int64_t m = 0; m < nc; ++m) {
    const uint64_t r = gs_exact_factor(A->rowptr, A->colidx, A->values, gs->n, gs->row_cluster,
                                       h->perm, e->iperm, h->cl[m], h->cl[m + 1], e->first, e->eptr,
                                       e->optr, e->osrc, e->oval, e->lu, rp);
    if (r) {
      const uint64_t key = (uint64_t)h->perm[(r - 1) / 8] << 3 | (r - 1) % 8;
      first_bad = key < first_bad ? key : first_bad;
    }
  }
  if (*bad_row < 0 && first_bad != UINT64_MAX) {
    *bad_row = (int64_t)(first_bad >> 3);
    *bad_kind = (int)(first_bad & 7);
  }
  if (*bad_row < 0) gs_exact_rows_values(gs);
  return MISPC_SUCCESS;
}

/* gs_exact_outside's sum; rows of 1 to 6 outside entries by gs_sub_slots:
 * PETSc PCApply a call, the VM, one thread, 3 rounds / 2 rounds, against
 * the loop in one build: aniso3d:60 6.13-6.33 ms against 6.60-6.71,
 * aniso2d:300:0.001 1.70-1.90 against 1.87-2.09, Laplace3D_50 block solves
 * 4.56-4.75 against 4.73-4.83. */
static inline double outside_sum(const struct gs_exact_lu *e, int64_t q, const int32_t *perm,
                                 const double *b, const double *x) {
  const int64_t o0 = e->optr[q], cnt = e->optr[q + 1] - o0;
  if (cnt == 0 || cnt > 6) return gs_exact_outside(q, perm, e->optr, e->ocol, e->oval, b, x);
  return gs_sub_slots(b[perm[q]], e->ocol + o0, e->oval + o0, (int)cnt, x, 6);
}

/* Cluster m (of h->cl) solved in its slice of e->xs (its values
 * contiguous, as the GPU's slice of x in sweep order), then scattered to
 * x. */
static inline void solve_cluster(const mispc_gs *gs, int64_t m, const double *b, double *x) {
  const struct gs_exact_lu *e = &gs->ex;
  const int64_t q0 = gs->h.cl[m], q1 = gs->h.cl[m + 1];
  const int32_t *perm = gs->h.perm;
  double *xc = e->xs + q0;
  for (int64_t q = q0; q < q1; ++q) xc[q - q0] = outside_sum(e, q, perm, b, x);
  gs_exact_chain(q0, q1, perm, e->first, e->eptr, e->lu, xc, NULL);
  for (int64_t q = q0; q < q1; ++q) x[perm[q]] = xc[q - q0];
}

void gs_exact_sweep_color_host(mispc_context *ctx, const mispc_gs *gs, const double *b, double *x,
                               int32_t c, int backward) {
  (void)backward; /* a cluster's exact solve is the same either way */
  const int nt = mispc_host_threads(ctx);
  /* the distributed sweep with free clusters first: the bound ones */
  const int64_t *cp = gs->h.bound_cl ? gs->h.bound_cl : gs->color_ptr;
  const int64_t k0 = cp[c], k1 = cp[c + 1];
  /* a color's clusters share no entry: any split gives the same bits */
  if (gs->ex.rows.fcl) {
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt) if (nt > 1 && k1 - k0 > 1)
    for (int64_t m = k0; m < k1; ++m) gs_exact_rows_solve(gs, m, b, x);
    return;
  }
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt) if (nt > 1 && k1 - k0 > 1)
  for (int64_t m = k0; m < k1; ++m) solve_cluster(gs, m, b, x);
}

void gs_exact_sweep_free_host(const mispc_gs *gs, const double *b, double *x, int backward) {
  const int64_t nf = gs->h.bound_cl ? gs->h.bound_cl[0] : 0;
  if (gs->ex.rows.fcl) {
    gs_exact_rows_pass(gs, nf, b, x, backward, 0);
    return;
  }
  for (int64_t k = 0; k < nf; ++k) solve_cluster(gs, backward ? nf - 1 - k : k, b, x);
}

mispc_status gs_exact_edges_host(mispc_context *ctx, mispc_gs *gs) {
  struct gs_exact_lu *e = &gs->ex;
  const int64_t nc = gs->nclusters;
  int32_t *ccolor = NULL;
  mispc_status s = MISPC_SUCCESS;
  ALLOC(ccolor, nc + 1, 4, "exact solves: cluster colors");
  ALLOC(e->edge, nc + 1, 1, "exact solves: first and last colors");
  if (s) {
    mispc_pool_free(ctx, MISPC_MEM_HOST, ccolor);
    return s;
  }
  for (int32_t c = 0; c < gs->ncolors; ++c)
    for (int64_t k = gs->color_ptr[c]; k < gs->color_ptr[c + 1]; ++k) ccolor[gs->order[k]] = c;
  for (int64_t m = 0; m < nc; ++m) { /* the cluster at h.cl[m], by its first row */
    const int32_t c = ccolor[gs->row_cluster[gs->h.perm[gs->h.cl[m]]]];
    e->edge[m] = (uint8_t)((c == 0) | (c == gs->ncolors - 1) << 1);
  }
  mispc_pool_free(ctx, MISPC_MEM_HOST, ccolor);
  return MISPC_SUCCESS;
}

void gs_exact_sweep_host(mispc_context *ctx, const mispc_gs *gs, const double *b, double *x,
                         int backward, int skip_first) {
  const int64_t nc = gs->nclusters;
  /* the clusters of the color a pass starts with, where the pass before
   * ended with them: skipped (gs_exact_edges_host) */
  const uint8_t skip = skip_first && gs->ex.edge ? (backward ? 2 : 1) : 0;
  if (gs->ex.rows.fcl && gs->h.blocked) { /* one thread: row passes over x */
    gs_exact_rows_pass(gs, nc, b, x, backward, skip);
    return;
  }
  if (gs->h.blocked) { /* one thread, clusters by level (each after its earlier colors') */
    for (int64_t k = 0; k < nc; ++k) {
      const int64_t m = backward ? nc - 1 - k : k;
      if (!(gs->ex.edge && gs->ex.edge[m] & skip)) solve_cluster(gs, m, b, x);
    }
    return;
  }
  for (int32_t k = skip ? 1 : 0; k < gs->ncolors; ++k)
    gs_exact_sweep_color_host(ctx, gs, b, x, backward ? gs->ncolors - 1 - k : k, backward);
}
