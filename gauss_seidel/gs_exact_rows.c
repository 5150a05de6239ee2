/* Host exact cluster solves as row passes over x:
 * a cluster's solve x_C = U^-1 L^-1 (b_C - A_C,out x_out) (gs_exact.h) is,
 * row k of the cluster in order, y_k = b_k - A_k,out x_out - sum_j<k L_kj y_j
 * (one list: the outside entries in storage order, then L's row, j
 * increasing), then, rows backward, z_k = (y_k - sum_j>k U_kj z_j) / U_kk
 * (U's row, j decreasing). These are gs_exact_outside's and gs_exact_chain's
 * subtractions in their order (the chain's backward step goes by columns,
 * each row taking them in decreasing column order), so the same bits as
 * the GPU, with y and z kept in x (no other cluster reads a cluster's rows
 * during its solve) and each list read in one pass with a byte a row for
 * its length, as the row sweeps' blocked copies (gs_host.c). Built with
 * -ffp-contract=off (CMakeLists.txt). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gs_internal.h"

/* Lines' lists average at most this many entries a row (solve_rows). */
#define GS_LINE_LIST 4

void gs_exact_rows_free(mispc_context *ctx, struct gs_exact_rows *r) {
  void *p[] = {r->fcl,  r->ucl,  r->flen, r->ulen, r->fcol, r->ucol,
               r->fval, r->uval, r->usrc, r->dinv, r->line};
  for (size_t k = 0; k < sizeof p / sizeof *p; ++k) mispc_pool_free(ctx, MISPC_MEM_HOST, p[k]);
  memset(r, 0, sizeof *r);
}

#define ALLOC(ptr, count, elem, what)                                                              \
  if (!s) s = mispc_pool_alloc_n(ctx, MISPC_MEM_HOST, (count), (elem), (void **)&(ptr), what)

mispc_status gs_exact_rows_pattern(mispc_context *ctx, mispc_gs *gs) {
  struct gs_exact_lu *e = &gs->ex;
  struct gs_exact_rows *r = &e->rows;
  const struct gs_host_copy *h = &gs->h;
  const int64_t n = gs->n, nc = gs->nclusters;
  gs_exact_rows_free(ctx, r);
  int64_t *ucur = NULL; /* each row's U entries, then its cursor in ucol */
  mispc_status s = MISPC_SUCCESS;
  ALLOC(ucur, n + 1, 8, "exact rows: U counts");
  ALLOC(r->fcl, nc + 1, 8, "exact rows: offsets");
  ALLOC(r->ucl, nc + 1, 8, "exact rows: offsets");
  ALLOC(r->flen, n + 1, 1, "exact rows: lengths");
  ALLOC(r->ulen, n + 1, 1, "exact rows: lengths");
  ALLOC(r->line, nc + 1, 1, "exact rows: line flags");
  int ok = !s;
  /* lengths; a list over 255 entries: no row passes (the cluster solves) */
  if (ok) r->fcl[0] = r->ucl[0] = 0;
  for (int64_t m = 0; ok && m < nc; ++m) {
    const int64_t q0 = h->cl[m], q1 = h->cl[m + 1];
    for (int64_t q = q0; q < q1; ++q) ucur[q] = 0;
    for (int64_t q = q0; q < q1; ++q) /* row q's L: columns first .. k - 1, each their U */
      for (int64_t j = e->first[q]; j < q - q0; ++j) ucur[q0 + j]++;
    int64_t fsum = 0, usum = 0;
    int line = 1; /* every row but the first has L entries */
    for (int64_t q = q0 + 1; q < q1; ++q) line &= q - q0 > e->first[q];
    for (int64_t q = q0; q < q1 && ok; ++q) {
      const int64_t fl = e->optr[q + 1] - e->optr[q] + (q - q0 - e->first[q]);
      ok = fl <= 255 && ucur[q] <= 255;
      r->flen[q] = (uint8_t)fl, r->ulen[q] = (uint8_t)ucur[q];
      ucur[q] = r->ucl[m] + usum; /* row q's U starts here */
      fsum += fl, usum += r->ulen[q];
    }
    r->fcl[m + 1] = r->fcl[m] + fsum;
    /* and its lists are short: solve_rows says why */
    r->line[m] = (uint8_t)(line && fsum <= GS_LINE_LIST * (q1 - q0));
    r->ucl[m + 1] = r->ucl[m] + usum;
  }
  if (ok) {
    ALLOC(r->fcol, r->fcl[nc] + 1, 4, "exact rows: columns");
    ALLOC(r->ucol, r->ucl[nc] + 1, 4, "exact rows: columns");
    ALLOC(r->fval, r->fcl[nc] + 1, 8, "exact rows: values");
    ALLOC(r->uval, r->ucl[nc] + 1, 8, "exact rows: values");
    ALLOC(r->usrc, r->ucl[nc] + 1, 8, "exact rows: U places");
    ALLOC(r->dinv, n + 1, 8, "exact rows: pivots");
    ok = !s;
  }
  for (int64_t m = 0; ok && m < nc; ++m) {
    const int64_t q0 = h->cl[m], q1 = h->cl[m + 1];
    int64_t f = r->fcl[m];
    for (int64_t q = q0; q < q1; ++q) {
      for (int64_t o = e->optr[q]; o < e->optr[q + 1]; ++o) r->fcol[f++] = e->ocol[o];
      for (int64_t j = e->first[q]; j < q - q0; ++j) r->fcol[f++] = h->perm[q0 + j];
    }
    /* U's rows, columns decreasing: column k's part of U (rows first_k ..
     * k - 1, at eptr + k - first_k on) appended to each row's */
    for (int64_t q = q1 - 1; q >= q0; --q) {
      const int64_t k = q - q0, fk = e->first[q];
      for (int64_t j = fk; j < k; ++j) {
        const int64_t u = ucur[q0 + j]++;
        r->ucol[u] = h->perm[q];
        r->usrc[u] = e->eptr[q] + (k - fk) + (j - fk);
      }
    }
  }
  mispc_pool_free(ctx, MISPC_MEM_HOST, ucur);
  if (!ok) gs_exact_rows_free(ctx, r);
  if (s) return s;
  if (ok)
    mispc_logf(ctx, 2, "gs exact clusters: row passes, %lld + %lld list entries",
               (long long)r->fcl[nc], (long long)r->ucl[nc]);
  return MISPC_SUCCESS;
}

void gs_exact_rows_values(mispc_gs *gs) {
  const struct gs_exact_lu *e = &gs->ex;
  const struct gs_exact_rows *r = &e->rows;
  const struct gs_host_copy *h = &gs->h;
  if (!r->fcl) return;
  for (int64_t m = 0; m < gs->nclusters; ++m) {
    const int64_t q0 = h->cl[m], q1 = h->cl[m + 1];
    int64_t f = r->fcl[m];
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t k = q - q0, fk = e->first[q];
      const double *L = e->lu + e->eptr[q];
      for (int64_t o = e->optr[q]; o < e->optr[q + 1]; ++o) r->fval[f++] = e->oval[o];
      for (int64_t j = fk; j < k; ++j) r->fval[f++] = L[j - fk];
      r->dinv[q] = L[2 * (k - fk)]; /* 1 / U_kk */
    }
  }
  for (int64_t u = 0; u < r->ucl[gs->nclusters]; ++u) r->uval[u] = e->lu[r->usrc[u]];
}

/* Cluster m: y forward through its rows, then z backward. A line (every
 * row but the first has L entries, and the lists average at most
 * GS_LINE_LIST entries a row; r->line): row k's list ends with L_k,k-1 (the
 * envelope's last column) and row k - 1's U list with U_k-1,k, so those
 * products take the neighbour's y or z from a register instead of from x,
 * where it was just stored. With short lists the rows' chain runs through
 * that store and load; with longer ones each row's own subtractions are the
 * longer chain and the register saves nothing (the same operations in the
 * same order either way, so the same bits). Measured on the 2-core VM,
 * PETSc PCApply, one thread, three interleaved rounds: gen:aniso2d:300:0.001
 * (3 entries a row) 1.60-1.72 -> 1.08-1.10 ms; gen:aniso3d:60:0.01 and
 * Laplace3D_50's block solves unchanged. With every connected cluster taken
 * (no bound on the lists) Laplace3D_50's block solves ran 3-5 % slower, and
 * a test on each row instead of a cluster's flag cost aniso3d about 3 %. */
static inline void solve_rows(const mispc_gs *gs, int64_t m, const double *b, double *x) {
  const struct gs_exact_rows *r = &gs->ex.rows;
  const int64_t q0 = gs->h.cl[m], q1 = gs->h.cl[m + 1];
  const int32_t *perm = gs->h.perm;
  const int32_t *col = r->fcol + r->fcl[m];
  const double *val = r->fval + r->fcl[m];
  if (r->line[m]) { /* a line: the neighbour's y or z from a register */
    int l = r->flen[q0];
    double y = gs_sub_list(b[perm[q0]], col, val, l, x); /* the row before's */
    x[perm[q0]] = y;
    for (int64_t q = q0 + 1; q < q1; ++q) {
      col += l, val += l;
      const int32_t i = perm[q];
      l = r->flen[q];
      const double t = gs_sub_list(b[i], col, val, l - 1, x);
      const double prod = val[l - 1] * y; /* L_k,k-1 */
      y = t - prod;
      x[i] = y;
    }
    col = r->ucol + r->ucl[m + 1], val = r->uval + r->ucl[m + 1];
    l = r->ulen[q1 - 1];
    col -= l, val -= l;
    double z = gs_sub_list(x[perm[q1 - 1]], col, val, l, x) * r->dinv[q1 - 1]; /* the row after's */
    x[perm[q1 - 1]] = z;
    for (int64_t q = q1 - 2; q >= q0; --q) {
      const int32_t i = perm[q];
      l = r->ulen[q];
      col -= l, val -= l;
      const double t = gs_sub_list(x[i], col, val, l - 1, x);
      const double prod = val[l - 1] * z; /* U_k,k+1 */
      z = (t - prod) * r->dinv[q];
      x[i] = z;
    }
    return;
  }
  for (int64_t q = q0; q < q1; ++q) {
    const int32_t i = perm[q];
    const int l = r->flen[q];
    x[i] = gs_sub_list(b[i], col, val, l, x);
    col += l, val += l;
  }
  col = r->ucol + r->ucl[m + 1], val = r->uval + r->ucl[m + 1];
  for (int64_t q = q1 - 1; q >= q0; --q) {
    const int32_t i = perm[q];
    const int l = r->ulen[q];
    col -= l, val -= l;
    const double t = gs_sub_list(x[i], col, val, l, x);
    x[i] = t * r->dinv[q];
  }
}

void gs_exact_rows_solve(const mispc_gs *gs, int64_t m, const double *b, double *x) {
  solve_rows(gs, m, b, x);
}

void gs_exact_rows_pass(const mispc_gs *gs, int64_t nc, const double *b, double *x, int backward,
                        uint8_t skip) {
  const uint8_t *edge = gs->ex.edge;
  for (int64_t k = 0; k < nc; ++k) {
    const int64_t m = backward ? nc - 1 - k : k;
    if (!(edge && edge[m] & skip)) solve_rows(gs, m, b, x);
  }
}
