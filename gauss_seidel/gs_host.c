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

/* The sum of 32 values as a fixed pairwise tree: a[l] + a[l + h] for h = 16,
 * 8, 4, 2, 1. A GPU group of any width forms the same tree (partners h >= W
 * apart inside a lane, closer ones by xor shuffles; a + b == b + a). */
static inline double chunk_tree(double a[32]) {
  for (int h = 16; h >= 1; h /= 2)
    for (int l = 0; l < h; ++l) a[l] = a[l] + a[l + h];
  return a[0];
}

/* Values subtracted from a running sum in chunks of 32, each chunk summed as
 * chunk_tree (zeros after the last value): chunk_add per value, then
 * chunk_finish for the partial chunk. */
typedef struct chunk_acc {
  double a[32];
  int m;
} chunk_acc;

static inline double chunk_add(chunk_acc *c, double s, double v) {
  c->a[c->m++] = v;
  if (c->m < 32) return s;
  c->m = 0;
  return s - chunk_tree(c->a);
}

static inline double chunk_finish(chunk_acc *c, double s) {
  if (!c->m) return s;
  for (int l = c->m; l < 32; ++l) c->a[l] = 0.0;
  c->m = 0;
  return s - chunk_tree(c->a);
}

/* x_i = x_i + (b_i - sum_p a_ip x_colp) w_i, w_i = omega / a_ii formed at
 * the numeric setup (as PETSc's MatSOR keeps omega / a_ii) (point GS). The sum
 * runs in storage order, one entry after another, for rows of at most 32
 * entries; longer rows subtract chunks of 32 entries (storage order), each
 * summed as chunk_tree with zeros after the row's end, so a GPU group forms
 * a long row's sum in a few dependent steps instead of one per entry. */
static inline void update_row(const mispc_csr *A, const double *wdiag, const double *b, double *x,
                              int64_t i) {
  double s = b[i];
  const int64_t rb = A->rowptr[i], re = A->rowptr[i + 1];
  if (re - rb <= 32) {
    for (int64_t p = rb; p < re; ++p) {
      double prod = A->values[p] * x[A->colidx[p]];
      s = s - prod;
    }
  } else {
    chunk_acc acc = {.m = 0};
    for (int64_t p = rb; p < re; ++p) s = chunk_add(&acc, s, A->values[p] * x[A->colidx[p]]);
    s = chunk_finish(&acc, s);
  }
  double t = s * wdiag[i];
  x[i] = x[i] + t;
}

/* Cluster GS, row i of cluster c in a forward (backward = 0) or backward
 * sweep. s = b_i minus, one entry after another: first the entries whose x
 * stays fixed while the cluster is swept, in storage order (forward: those
 * outside the cluster and the diagonal, then the cluster's later rows j > i;
 * backward: the earlier rows j < i, then those outside and the diagonal),
 * then the cluster's rows already updated in this pass, in the order they
 * were updated (forward: j < i increasing; backward: j > i decreasing).
 * Rows are sorted, so storage order is column order. The GPU forms the
 * first part for all rows of a color at once and the second by pushing
 * each new x_j into the later rows' sums (gs_cuda_sweep.cu, sweep_clusters): the
 * same subtractions in the same order. */
static inline void update_cluster_row(const mispc_csr *A, const int32_t *row_cluster,
                                      const double *wdiag, const double *b, double *x, int64_t i,
                                      int backward) {
  const int32_t c = row_cluster[i];
  const int64_t rb = A->rowptr[i], re = A->rowptr[i + 1];
  double s = b[i];
  /* part 0: lower (j < i inside), 1: outside or diagonal, 2: upper (j > i inside) */
  const int fixed[2][2] = {{1, 2}, {0, 1}};
  for (int f = 0; f < 2; ++f)
    for (int64_t p = rb; p < re; ++p) {
      const int32_t j = A->colidx[p];
      const int part = row_cluster[j] != c || j == i ? 1 : j < i ? 0 : 2;
      if (part != fixed[backward][f]) continue;
      double prod = A->values[p] * x[j];
      s = s - prod;
    }
  for (int64_t k = 0; k < re - rb; ++k) {
    const int64_t p = backward ? re - 1 - k : rb + k;
    const int32_t j = A->colidx[p];
    if (row_cluster[j] != c || (backward ? j <= i : j >= i)) continue;
    double prod = A->values[p] * x[j];
    s = s - prod;
  }
  double t = s * wdiag[i];
  x[i] = x[i] + t;
}

void gs_point_rows_host(const mispc_csr *A, const double *wdiag, const double *b, double *x,
                        const int32_t *rows, int64_t nrows, int nthreads) {
#pragma omp parallel for schedule(dynamic, 64)                                                     \
    num_threads(nthreads ? nthreads : omp_get_max_threads())
  for (int64_t q = 0; q < nrows; ++q) update_row(A, wdiag, b, x, rows[q]);
}

void gs_cluster_rows_host(const mispc_csr *A, const int32_t *row_cluster, const double *wdiag,
                          const double *b, double *x, const int64_t *cl_ptr, const int32_t *cl_rows,
                          const int32_t *clusters, int64_t nclusters, int backward, int nthreads) {
  /* clusters of one color share no edge: any order, any thread */
#pragma omp parallel for schedule(dynamic, 64)                                                     \
    num_threads(nthreads ? nthreads : omp_get_max_threads())
  for (int64_t q = 0; q < nclusters; ++q) {
    const int32_t item = clusters[q];
    const int64_t rb = cl_ptr[item], re = cl_ptr[item + 1];
    for (int64_t r = 0; r < re - rb; ++r)
      update_cluster_row(A, row_cluster, wdiag, b, x, cl_rows[backward ? re - 1 - r : rb + r],
                         backward);
  }
}

/* The host sweeps on the sweep-ordered copy (gs_internal.h, struct
 * gs_host_copy): the same subtractions in the same order as update_row and
 * update_cluster_row, so the same bits, read from contiguous values in one
 * pass a row. */

/* Copy d of the sweep-ordered copy: its row pointer, columns, values. */
typedef struct copy_rows {
  const int64_t *ptr;
  const int32_t *col;
  const double *val;
} copy_rows;

/* update_row on row q of a copy: storage order, chunks of 32 for long rows. */
static inline void copy_point_row(const struct gs_host_copy *h, copy_rows r, const double *b,
                                  double *x, int64_t q) {
  const int32_t i = h->perm[q];
  const int64_t rb = r.ptr[q], re = r.ptr[q + 1];
  const int32_t *col = r.col;
  const double *val = r.val;
  double s = b[i];
  if (re - rb <= 32) {
    for (int64_t p = rb; p < re; ++p) {
      double prod = val[p] * x[col[p]];
      s = s - prod;
    }
  } else {
    double a[32];
    int64_t p = rb;
    for (; p + 32 <= re; p += 32) {
      for (int l = 0; l < 32; ++l) a[l] = val[p + l] * x[col[p + l]];
      s = s - chunk_tree(a);
    }
    if (p < re) { /* the partial chunk, zeros after the row's end (chunk_finish) */
      const int m = (int)(re - p);
      for (int l = 0; l < 32; ++l) a[l] = l < m ? val[p + l] * x[col[p + l]] : 0.0;
      s = s - chunk_tree(a);
    }
  }
  double t = s * h->wdiag[q];
  x[i] = x[i] + t;
}

/* update_cluster_row over the rows of one cluster, sweep positions
 * q0 .. q1 - 1 (backward: from the last): each row one loop over its
 * entries in a copy whose rows are in update_cluster_row's order (the x
 * that stay fixed during the pass first, then the rows updated before it in
 * update order). */
static inline void copy_cluster(const struct gs_host_copy *h, copy_rows r, const double *b,
                                double *x, int64_t q0, int64_t q1, int backward) {
  for (int64_t k = 0; k < q1 - q0; ++k) {
    const int64_t q = backward ? q1 - 1 - k : q0 + k;
    const int32_t i = h->perm[q];
    double s = b[i];
    for (int64_t p = r.ptr[q]; p < r.ptr[q + 1]; ++p) {
      double prod = r.val[p] * x[r.col[p]];
      s = s - prod;
    }
    double t = s * h->wdiag[q];
    x[i] = x[i] + t;
  }
}

/* First cluster (index into h->cl) of thread t's share of the clusters
 * k0 .. k1 - 1: the one starting at or after its even share of the rows,
 * so threads get about equal rows (a static split: any split gives the
 * same bits, rows of one color share no edge). */
static int64_t cluster_split(const int64_t *cl, int64_t k0, int64_t k1, int t, int nt) {
  if (t >= nt) return k1;
  const int64_t r0 = cl[k0], goal = r0 + (cl[k1] - r0) * t / nt;
  int64_t lo = k0, hi = k1; /* the least k in [k0, k1] with cl[k] >= goal */
  while (lo < hi) {
    const int64_t m = lo + (hi - lo) / 2;
    if (cl[m] >= goal)
      hi = m;
    else
      lo = m + 1;
  }
  return lo;
}

mispc_status gs_sweep_host(mispc_context *ctx, const mispc_gs *gs, const double *b, double *x,
                           int backward, int from_zero) {
  const int nt0 = mispc_context_num_threads(ctx);
  const int nt = nt0 ? nt0 : omp_get_max_threads();
  const int cluster = gs->opt.kind == MISPC_GS_CLUSTER;
  const struct gs_host_copy *h = &gs->h;
  const int32_t ncol = gs->ncolors;
  /* point from x = 0: the zero pass's copy (for clusters it saved no time:
   * their chains of dependent rows, not the entries read, bound a pass) */
  const int d = cluster ? backward : from_zero && !backward && h->zptr ? 2 : 0;
  const copy_rows r = {d == 2 ? h->zptr : h->ptr, h->col[d], h->val[d]};
  /* one team for the whole sweep, a barrier between colors */
#pragma omp parallel num_threads(nt) if (nt > 1 && gs->n > 1)
  {
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
    for (int32_t k = 0; k < ncol; ++k) {
      const int32_t c = backward ? ncol - 1 - k : k;
      if (cluster) {
        const int64_t k0 = gs->color_ptr[c], k1 = gs->color_ptr[c + 1];
        const int64_t a = cluster_split(h->cl, k0, k1, t, T),
                      e = cluster_split(h->cl, k0, k1, t + 1, T);
        for (int64_t u = a; u < e; ++u) { /* backward: from the last, memory descending */
          const int64_t m = backward ? a + e - 1 - u : u;
          copy_cluster(h, r, b, x, h->cl[m], h->cl[m + 1], backward);
        }
      } else {
        const int64_t lo = h->rows[c], len = h->rows[c + 1] - lo;
        const int64_t a = lo + len * t / T, e = lo + len * (t + 1) / T;
        for (int64_t q = a; q < e; ++q) copy_point_row(h, r, b, x, q);
      }
      if (T > 1) {
#pragma omp barrier
      }
    }
  }
  return MISPC_SUCCESS;
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
