/* Host steps of multicolor Gauss-Seidel. Built with -ffp-contract=off (see
 * CMakeLists.txt): every product is rounded before it is added, exactly as
 * the GPU kernels do with __dmul_rn / __dsub_rn, so both backends agree bit
 * for bit. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gs_internal.h"
#include "gs_row_update.h"

mispc_status gs_diag_host(mispc_context *ctx, const mispc_csr *A, int require_positive,
                          double omega, double *wdiag, int64_t *bad_row, int *bad_kind) {
  (void)ctx;
  *bad_row = -1;
  *bad_kind = 0;
  for (int64_t i = 0; i < A->nrows; ++i) {
    int found = 0;
    double d = 0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1] && !found; ++p)
      if (A->colidx[p] == i) d = A->values[p], found = 1;
    const int kind = gs_diag_kind(found, d, require_positive, omega, &wdiag[i]);
    if (kind && *bad_row < 0) *bad_row = i, *bad_kind = kind;
  }
  return MISPC_SUCCESS;
}

/* The host sweeps on the sweep-ordered copy (gs_internal.h, struct
 * gs_host_copy): the same subtractions in the same order as gs_update_row and
 * gs_update_cluster_row (gs_row_update.h), so the same bits, read from contiguous values in one
 * pass a row. */

/* Copy d of the sweep-ordered copy: its row pointer, columns, values; zero:
 * cluster copy [2], the first forward pass from x = 0; start: point GS's
 * GS_PASS_* (gs_internal.h), keep: its GS_PASS_FROM_ZERO pass stores its
 * sums in h.t (a GS_PASS_RESUME pass follows). */
typedef struct copy_rows {
  const int64_t *ptr;
  const int32_t *col;
  const double *val;
  const uint8_t *len; /* blocked: the row lengths */
  int zero;
  int start, keep;
  /* cluster GS, backward, split copies: each row's first part (copy [3]),
   * before the rest (the copy above: [1]); NULL pptr: not split */
  const int64_t *pptr;
  const int32_t *pcol;
  const double *pval;
  const uint8_t *plen;
} copy_rows;

/* Product l of a chunk of m entries from p: 0 after the row's end. */
static inline double chunk_leaf(const int32_t *restrict col, const double *restrict val,
                                const double *restrict x, int64_t p, int l, int m) {
  return l < m ? val[p + l] * x[col[p + l]] : 0.0;
}

/* gs_chunk_tree of the products of entries p .. p + m - 1 (m <= 32, zeros
 * after) written out as one expression, depth first: the same additions in
 * the same tree (lanes l and l + 16 first, then + 8, + 4, + 2, + 1), with
 * a few values live instead of 32 stored and read back (a long row's passes
 * ran 1.5x faster so, Elasticity3D_30 on the 2-core VM). */
static inline double chunk_sum(const int32_t *restrict col, const double *restrict val,
                               const double *restrict x, int64_t p, int m) {
#define L_(l) chunk_leaf(col, val, x, p, l, m)
#define C_(l) (L_(l) + L_(l + 16))
#define D_(l) (C_(l) + C_(l + 8))
#define E_(l) (D_(l) + D_(l + 4))
#define F_(l) (E_(l) + E_(l + 2))
  return F_(0) + F_(1);
#undef L_
#undef C_
#undef D_
#undef E_
#undef F_
}

/* s minus the products of entries p .. e-1 in chunks of 32 as trees
 * (gs_row_update.h, gs_sub_chunks). */
static inline double sub_chunks(double s, const int32_t *restrict col, const double *restrict val,
                                const double *restrict x, int64_t p, int64_t e) {
  for (; p + 32 <= e; p += 32) s = s - chunk_sum(col, val, x, p, 32);
  if (p < e) s = s - chunk_sum(col, val, x, p, (int)(e - p));
  return s;
}

/* gs_update_row on row q of the point copies: its lower part (copy [2]),
 * then the others (copy [0]); each in chunks of 32 for long rows. start (a
 * literal at each call): GS_PASS_FULL every entry; GS_PASS_FROM_ZERO the
 * lower part only, x_i = +0 + s w_i without reading x_i (x need not be 0
 * first), the sum kept in h.t with r.keep; GS_PASS_RESUME from h.t[q], the
 * others only. */
static inline void copy_point_row(const struct gs_host_copy *h, copy_rows r, const double *b,
                                  double *x, int64_t q, int start) {
  const int32_t i = h->perm[q];
  const int64_t lb = h->zptr[q], le = h->zptr[q + 1], ob = h->ptr[q], oe = h->ptr[q + 1];
  const int32_t *restrict lcol = h->col[2], *restrict ocol = h->col[0];
  const double *restrict lval = h->val[2], *restrict oval = h->val[0];
  double s = start == GS_PASS_RESUME ? h->t[q] : b[i];
  if (le - lb + oe - ob <= 32) {
    if (start != GS_PASS_RESUME) s = gs_sub_short(s, lcol + lb, lval + lb, (int)(le - lb), x);
    if (start != GS_PASS_FROM_ZERO) s = gs_sub_short(s, ocol + ob, oval + ob, (int)(oe - ob), x);
  } else {
    if (start != GS_PASS_RESUME) s = sub_chunks(s, lcol, lval, x, lb, le);
    if (start != GS_PASS_FROM_ZERO) s = sub_chunks(s, ocol, oval, x, ob, oe);
  }
  if (start == GS_PASS_FROM_ZERO && r.keep) h->t[q] = s;
  double t = s * h->wdiag[q];
  x[i] = (start == GS_PASS_FROM_ZERO ? 0.0 : x[i]) + t;
}

/* A pass over the blocked point copies (rows of at most 32 entries, one
 * byte a row for each part's length: zrlen, rlen), on one thread: forward
 * from the first row (start GS_PASS_FULL or GS_PASS_FROM_ZERO, as
 * copy_point_row), backward from the last (GS_PASS_FULL or
 * GS_PASS_RESUME); start is a literal at each call. */
static inline void blocked_point_forward(const struct gs_host_copy *h, int64_t n, copy_rows r,
                                         const double *b, double *x, int start) {
  const int32_t *lcol = h->col[2], *ocol = h->col[0];
  const double *lval = h->val[2], *oval = h->val[0];
  for (int64_t q = 0; q < n; ++q) {
    const int32_t i = h->perm[q];
    const int ml = h->zrlen[q], mo = h->rlen[q];
    double s = gs_sub_short(b[i], lcol, lval, ml, x);
    if (start != GS_PASS_FROM_ZERO) s = gs_sub_short(s, ocol, oval, mo, x);
    if (start == GS_PASS_FROM_ZERO && r.keep) h->t[q] = s;
    double t = s * h->wdiag[q];
    x[i] = (start == GS_PASS_FROM_ZERO ? 0.0 : x[i]) + t;
    lcol += ml, lval += ml;
    if (start != GS_PASS_FROM_ZERO) ocol += mo, oval += mo;
  }
}

static inline void blocked_point_backward(const struct gs_host_copy *h, int64_t n, const double *b,
                                          double *x, int start) {
  const int32_t *lcol = h->col[2] + h->zptr[n], *ocol = h->col[0] + h->ptr[n];
  const double *lval = h->val[2] + h->zptr[n], *oval = h->val[0] + h->ptr[n];
  for (int64_t q = n - 1; q >= 0; --q) {
    const int32_t i = h->perm[q];
    const int ml = h->zrlen[q], mo = h->rlen[q];
    ocol -= mo, oval -= mo;
    double s;
    if (start == GS_PASS_RESUME) {
      s = h->t[q];
    } else {
      lcol -= ml, lval -= ml;
      s = gs_sub_short(b[i], lcol, lval, ml, x);
    }
    s = gs_sub_short(s, ocol, oval, mo, x);
    double t = s * h->wdiag[q];
    x[i] = x[i] + t;
  }
}

/* A pass over the first n rows of the blocked point copies, in the mode r
 * says (pass_copy). */
static void blocked_point_pass(const struct gs_host_copy *h, int64_t n, copy_rows r,
                               const double *b, double *x, int backward) {
  if (backward && r.start == GS_PASS_RESUME)
    blocked_point_backward(h, n, b, x, GS_PASS_RESUME);
  else if (backward)
    blocked_point_backward(h, n, b, x, GS_PASS_FULL);
  else if (r.start == GS_PASS_FROM_ZERO)
    blocked_point_forward(h, n, r, b, x, GS_PASS_FROM_ZERO);
  else
    blocked_point_forward(h, n, r, b, x, GS_PASS_FULL);
}

/* gs_update_cluster_row on row q of a blocked cluster copy: its m entries
 * at col, val, in the order the row's update takes them (the running place
 * of a pass through the copy, which reads one byte a row for its length
 * instead of two row pointers). Rows of up to 8 entries by gs_sub_slots
 * (the first pass from x = 0 reads rows of varying length): PETSc PCApply
 * a call, the VM, one thread, 3 rounds, against the loop in one build:
 * Laplace3D_50 1.92-1.96 ms against 2.01-2.04, aniso2d:300:0.001 rows
 * clusters 0.92-0.94 against 0.97-1.00, Laplace3D_100 22.0-22.9 against
 * 22.2-23.1. */
static inline void short_row(const struct gs_host_copy *h, const int32_t *restrict col,
                             const double *restrict val, int m, const double *b, double *x,
                             int64_t q, int zero, int keep) {
  const int32_t i = h->perm[q];
  /* gs_sub_list's dispatch spelled out: through it, gcc 12 inlined the
   * blocked passes into gs_sweep_host, and point GS's applies ran 2-3 %
   * slower (Laplace3D_50, the VM) */
  const double s =
      m >= 1 && m <= 8 ? gs_sub_slots(b[i], col, val, m, x, 8) : gs_sub_short(b[i], col, val, m, x);
  if (keep) h->t[q] = s;
  double t = s * h->wdiag[q];
  x[i] = (zero ? 0.0 : x[i]) + t;
}

/* Cluster row q of a backward pass over the split copies (struct
 * gs_host_copy): its first part (mp entries at pcol, pval: outside of
 * earlier colors, earlier rows), then the rest (ms at scol, sval); with
 * resume (after a forward pass from x = 0), rows of GS_RESUME_MIN_ROW
 * entries and more go on from the forward pass's sum h.t[q] with the rest
 * only: the same bits (gs_row_update.h), fewer entries read. Shorter rows
 * read both parts (where each row resumed, Laplace3D_50's 7-entry rows'
 * applies ran 20 % slower on the 2-core VM: their short resumed lists
 * varied in length, docs/GAUSS_SEIDEL.md). */
static inline void split_row(const struct gs_host_copy *h, const int32_t *restrict pcol,
                             const double *restrict pval, int64_t mp, const int32_t *restrict scol,
                             const double *restrict sval, int64_t ms, const double *b, double *x,
                             int64_t q, int resume) {
  const int32_t i = h->perm[q];
  double s;
  if (resume && mp + ms >= GS_RESUME_MIN_ROW) {
    s = h->t[q];
  } else {
    s = gs_sub_short(b[i], pcol, pval, (int)mp, x);
  }
  s = gs_sub_short(s, scol, sval, (int)ms, x);
  double t = s * h->wdiag[q];
  x[i] = x[i] + t;
}

/* Sweep positions a cluster pass prefetches ahead (b, x of the row, x of
 * its columns). A cluster's rows wait on each other, so the out-of-order
 * core cannot run ahead to the next rows' loads as it does for point GS,
 * and each row's misses (b and x gathered by row, spread over the mesh)
 * were paid one after another. Only where a pass's data (one copy's
 * entries, b, x, the permutation and omega / a_ii) exceed
 * GS_PREFETCH_MIN_BYTES (the 2-core VM's 32 MiB L3): there, A/B on the VM,
 * one thread, symmetric cluster sweep, gen:laplace3d:72 / 80 / 100
 * 12.6-18.8 / 21-24 / 38-54 ms with the prefetch against 12.2-42.6 /
 * 34-52 / 96-137 ms without; below it the prefetches cost time
 * (gen:laplace3d:50 4.1-6.3 against 3.6-4.1 ms, :64 7.6-13.5 against
 * 6.8-9.3). 8 or 32 ahead did the same as 16; point GS, whose rows are
 * independent, gained nothing. Speed only: no value changes. */
#define GS_PREFETCH_AHEAD 16

/* gs_update_cluster_row over the rows of one cluster, sweep positions
 * q0 .. q1 - 1 (backward: from the last): each row one loop over its
 * entries in a copy whose rows are in gs_update_cluster_row's order (the x
 * that stay fixed during the pass first, then the rows updated before it in
 * update order). */
/* n: the rows, or 0 for no prefetch. */
static inline void copy_cluster(const struct gs_host_copy *h, copy_rows r, const double *b,
                                double *x, int64_t q0, int64_t q1, int backward, int64_t n) {
  for (int64_t k = 0; k < q1 - q0; ++k) {
    const int64_t q = backward ? q1 - 1 - k : q0 + k;
    const int32_t i = h->perm[q];
    {
      const int64_t qa = backward ? q - GS_PREFETCH_AHEAD : q + GS_PREFETCH_AHEAD;
      if (qa >= 0 && qa < n) {
        const int32_t ia = h->perm[qa];
        __builtin_prefetch(&b[ia]);
        __builtin_prefetch(&x[ia], 1);
        for (int64_t p = r.ptr[qa]; p < r.ptr[qa + 1]; ++p) __builtin_prefetch(&x[r.col[p]]);
      }
    }
    if (r.pptr) { /* the split backward copies (neither zero nor keep there) */
      const int64_t pb = r.pptr[q], ob = r.ptr[q];
      split_row(h, r.pcol + pb, r.pval + pb, r.pptr[q + 1] - pb, r.col + ob, r.val + ob,
                r.ptr[q + 1] - ob, b, x, q, r.start == GS_PASS_RESUME);
      continue;
    }
    double s = b[i];
    for (int64_t p = r.ptr[q]; p < r.ptr[q + 1]; ++p) {
      double prod = r.val[p] * x[r.col[p]];
      s = s - prod;
    }
    if (r.keep) h->t[q] = s;
    double t = s * h->wdiag[q];
    x[i] = (r.zero ? 0.0 : x[i]) + t;
  }
}

/* Prefetch b and x of the row at sweep position q (blocked_pass). */
static inline void prefetch_row(const struct gs_host_copy *h, const double *b, double *x,
                                int64_t q) {
  const int32_t ia = h->perm[q];
  __builtin_prefetch(&b[ia]);
  __builtin_prefetch(&x[ia], 1);
}

/* The forward pass of blocked_pass; zero is a literal at each call, so the
 * x = 0 start is decided once a pass, not once a row. */
static inline void blocked_forward(const struct gs_host_copy *h, int64_t n, copy_rows r,
                                   const double *b, double *x, int pf, int zero, int keep) {
  const uint8_t *len = r.len;
  const int32_t *col = r.col;
  const double *val = r.val;
  for (int64_t q = 0; q < n; ++q) {
    if (pf && q + GS_PREFETCH_AHEAD < n) prefetch_row(h, b, x, q + GS_PREFETCH_AHEAD);
    const int m = len[q];
    short_row(h, col, val, m, b, x, q, zero, keep);
    col += m;
    val += m;
  }
}

/* A pass over a blocked cluster copy, on one thread (whatever the
 * context's count now): the copy's rows in order (backward: from the
 * last), one byte a row for its length: clusters by level, one after
 * another, each row by row. pf: prefetch b and x of the
 * row GS_PREFETCH_AHEAD rows ahead (clusters; copy_cluster says why), not
 * the x of its columns: in the level order those were mostly cached
 * already (the same time without them, Laplace3D_100 on the 2-core VM),
 * and over the first forward pass's copy [2], whose rows vary in length,
 * their loop cost more than it saved (that pass 15.0 ms with it, 10.9
 * without; b and x alone: 15 without any prefetch). */
static inline void blocked_pass(const struct gs_host_copy *h, int64_t n, copy_rows r,
                                const double *b, double *x, int backward, int pf) {
  if (!backward) {
    if (r.zero && r.keep)
      blocked_forward(h, n, r, b, x, pf, 1, 1);
    else if (r.zero)
      blocked_forward(h, n, r, b, x, pf, 1, 0);
    else if (r.keep) /* from x = 0 without the zero copy: x was zeroed */
      blocked_forward(h, n, r, b, x, pf, 0, 1);
    else
      blocked_forward(h, n, r, b, x, pf, 0, 0);
    return;
  }
  const uint8_t *len = r.len;
  const int32_t *col = r.col + r.ptr[n];
  const double *val = r.val + r.ptr[n];
  if (r.pptr) { /* the split copies; resume: after a forward pass from x = 0 */
    const int32_t *pcol = r.pcol + r.pptr[n];
    const double *pval = r.pval + r.pptr[n];
    const int resume = r.start == GS_PASS_RESUME;
    for (int64_t q = n - 1; q >= 0; --q) {
      if (pf && q >= GS_PREFETCH_AHEAD) prefetch_row(h, b, x, q - GS_PREFETCH_AHEAD);
      const int m = len[q], mp = r.plen[q];
      col -= m, val -= m, pcol -= mp, pval -= mp;
      if (resume)
        split_row(h, pcol, pval, mp, col, val, m, b, x, q, 1);
      else
        split_row(h, pcol, pval, mp, col, val, m, b, x, q, 0);
    }
    return;
  }
  for (int64_t q = n - 1; q >= 0; --q) { /* the zero copy is forward only */
    if (pf && q >= GS_PREFETCH_AHEAD) prefetch_row(h, b, x, q - GS_PREFETCH_AHEAD);
    const int m = len[q];
    col -= m;
    val -= m;
    short_row(h, col, val, m, b, x, q, 0, 0);
  }
}

/* First cluster (index into h->cl) of thread t's share of the clusters
 * k0 .. k1 - 1: the one starting at or after its even share of the rows,
 * so threads get about equal rows (a static split: any split gives the
 * same bits, rows of one color share no edge). */
static int64_t cluster_split(const int64_t *cl, int64_t k0, int64_t k1, int t, int nt) {
  if (t >= nt) return k1;
  const int64_t r0 = cl[k0], goal = r0 + (cl[k1] - r0) * t / nt;
  /* the least k in [k0, k1] with cl[k] >= goal */
  return mispc_lower_bound_i64(cl, k0, k1, goal);
}

/* Thread t of T's share of color c of a sweep over copy r. */
static inline void sweep_color_part(const mispc_gs *gs, copy_rows r, const double *b, double *x,
                                    int32_t c, int backward, int t, int T) {
  const struct gs_host_copy *h = &gs->h;
  if (gs->opt.kind == MISPC_GS_CLUSTER) {
    const int64_t *cp = h->bound_cl ? h->bound_cl : gs->color_ptr;
    const int64_t k0 = cp[c], k1 = cp[c + 1];
    const int64_t a = cluster_split(h->cl, k0, k1, t, T),
                  e = cluster_split(h->cl, k0, k1, t + 1, T);
    for (int64_t u = a; u < e; ++u) { /* backward: from the last, memory descending */
      const int64_t m = backward ? a + e - 1 - u : u;
      copy_cluster(h, r, b, x, h->cl[m], h->cl[m + 1], backward, h->prefetch ? gs->n : 0);
    }
  } else {
    const int64_t lo = h->rows[c], len = h->rows[c + 1] - lo;
    const int64_t a = lo + len * t / T, e = lo + len * (t + 1) / T;
    if (r.start == GS_PASS_FROM_ZERO)
      for (int64_t q = a; q < e; ++q) copy_point_row(h, r, b, x, q, GS_PASS_FROM_ZERO);
    else if (r.start == GS_PASS_RESUME)
      for (int64_t q = a; q < e; ++q) copy_point_row(h, r, b, x, q, GS_PASS_RESUME);
    else
      for (int64_t q = a; q < e; ++q) copy_point_row(h, r, b, x, q, GS_PASS_FULL);
  }
}

/* The copy a pass reads: cluster GS one a direction, point GS copy [0];
 * the zero pass's on the first forward pass from x = 0 (for clusters:
 * their handle's own sweep; before clusters were ordered by level on one
 * thread it saved no time, their chains of dependent rows, not the entries
 * read, bound a pass). Point GS: GS_PASS_FROM_ZERO forward only (a first
 * backward pass from x = 0 reads every entry of x = 0), GS_PASS_RESUME
 * only after it (h.t: the handle's own sweep), which keeps its sums for
 * one in a symmetric sweep. */
static copy_rows pass_copy(const mispc_gs *gs, int backward, int start) {
  const struct gs_host_copy *h = &gs->h;
  const int cluster = gs->opt.kind == MISPC_GS_CLUSTER;
  const int from_zero = start == GS_PASS_FROM_ZERO && !backward;
  const int d = cluster && from_zero && h->zptr ? 2 : cluster ? backward : 0; /* point: [0] */
  const int split = d == 1 && h->pptr;
  copy_rows r = {d == 2  ? h->zptr
                 : split ? h->sptr
                         : h->ptr,
                 h->col[d],
                 h->val[d],
                 d == 2  ? h->zrlen
                 : split ? h->srlen
                         : h->rlen,
                 d == 2,
                 GS_PASS_FULL,
                 0,
                 split ? h->pptr : NULL,
                 h->col[3],
                 h->val[3],
                 h->prlen};
  if (!cluster) {
    r.start = from_zero                                     ? GS_PASS_FROM_ZERO
              : start == GS_PASS_RESUME && backward && h->t ? GS_PASS_RESUME
                                                            : GS_PASS_FULL;
    r.keep = from_zero && h->t && gs->opt.sweep == MISPC_GS_SYMMETRIC;
  } else if (h->t && h->pptr && gs->opt.sweep == MISPC_GS_SYMMETRIC) {
    /* the forward pass from x = 0 keeps its sums, the backward one after it
     * goes on from them (gs_row_update.h) */
    r.keep = from_zero;
    if (start == GS_PASS_RESUME && backward) r.start = GS_PASS_RESUME;
  }
  return r;
}

int gs_host_skips_zero(const mispc_gs *gs) {
  return !gs_exact(gs) && gs->opt.sweep != MISPC_GS_BACKWARD && gs->h.zptr;
}

mispc_status gs_sweep_host(mispc_context *ctx, const mispc_gs *gs, const double *b, double *x,
                           int backward, int start) {
  const int nt = mispc_host_threads(ctx);
  const int32_t ncol = gs->ncolors;
  const copy_rows r = pass_copy(gs, backward, start);
  if (gs->h.blocked && gs->opt.kind != MISPC_GS_CLUSTER) { /* rows by level */
    blocked_point_pass(&gs->h, gs->n, r, b, x, backward);
    return MISPC_SUCCESS;
  }
  if (gs->h.blocked) { /* clusters by level */
    if (gs->h.prefetch)
      blocked_pass(&gs->h, gs->n, r, b, x, backward, 1);
    else
      blocked_pass(&gs->h, gs->n, r, b, x, backward, 0);
    return MISPC_SUCCESS;
  }
  /* one team for the whole sweep, a barrier between colors */
#pragma omp parallel num_threads(nt) if (nt > 1 && gs->n > 1)
  {
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
    for (int32_t k = 0; k < ncol; ++k) {
      sweep_color_part(gs, r, b, x, backward ? ncol - 1 - k : k, backward, t, T);
      if (T > 1) {
#pragma omp barrier
      }
    }
  }
  return MISPC_SUCCESS;
}

void gs_sweep_color_host(mispc_context *ctx, const mispc_gs *gs, const double *b, double *x,
                         int32_t c, int backward, int start) {
  const int nt = mispc_host_threads(ctx);
  if (gs_exact(gs)) {
    gs_exact_sweep_color_host(ctx, gs, b, x, c, backward);
    return;
  }
  /* a forward pass from x = 0 keeps its sums (point GS; cluster GS where the
   * copies are split), the backward one after it goes on from them
   * (pass_copy); else every entry */
  const copy_rows r = pass_copy(gs, backward, start);
#pragma omp parallel num_threads(nt) if (nt > 1 && gs->n > 1)
  sweep_color_part(gs, r, b, x, c, backward, omp_get_thread_num(), omp_get_num_threads());
}

void gs_sweep_free_host(const mispc_gs *gs, const double *b, double *x, int backward, int start) {
  if (!gs->h.nfree) return;
  if (gs_exact(gs)) {
    gs_exact_sweep_free_host(gs, b, x, backward);
    return;
  }
  const copy_rows r = pass_copy(gs, backward, start);
  if (gs->opt.kind == MISPC_GS_CLUSTER)
    blocked_pass(&gs->h, gs->h.nfree, r, b, x, backward, gs->h.prefetch);
  else
    blocked_point_pass(&gs->h, gs->h.nfree, r, b, x, backward);
}

mispc_status gs_expand_host(mispc_context *ctx, int64_t n, int bs, const int32_t *node_agg,
                            int32_t *dof_agg) {
  (void)ctx;
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) dof_agg[i] = node_agg[i / bs];
  return MISPC_SUCCESS;
}

mispc_status gs_cluster_sizes_host(mispc_context *ctx, int64_t nc, const int64_t *cl_ptr,
                                   int64_t *min_size, int64_t *max_size, int64_t *singletons) {
  (void)ctx;
  int64_t lo = nc ? INT64_MAX : 0, hi = 0, one = 0;
  for (int64_t q = 0; q < nc; ++q) {
    const int64_t z = cl_ptr[q + 1] - cl_ptr[q];
    lo = z < lo ? z : lo;
    hi = z > hi ? z : hi;
    one += z == 1;
  }
  *min_size = lo;
  *max_size = hi;
  *singletons = one;
  return MISPC_SUCCESS;
}

mispc_status gs_zero_host(mispc_context *ctx, int64_t n, double *x) {
  (void)ctx;
  memset(x, 0, sizeof(double) * (size_t)n);
  return MISPC_SUCCESS;
}
