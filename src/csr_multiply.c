/* Sparse matrix transpose and product, host implementation and the entry
 * points (device inputs go to csr_multiply_cuda.cu). Built with
 * -ffp-contract=off: every product a_ik * b_kj is rounded before it is added,
 * as the GPU kernels do with __dmul_rn / __dadd_rn, so that both backends give
 * the same bits (include/mispc/csr.h states the summation order). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csr_build.h"
#include "internal.h"

static mispc_status check_input(mispc_context *ctx, const mispc_csr *A, const char *name,
                                const char *what) {
  if (!A) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: %s is NULL", what, name);
  if (A->nrows < 0 || A->ncols < 0 || A->nnz < 0 || !A->rowptr || (A->nnz > 0 && !A->colidx))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: %s is not a CSR matrix", what, name);
  if (!A->values && A->nnz > 0)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: %s has no values", what, name);
  if (A->mem != MISPC_MEM_HOST && A->mem != MISPC_MEM_DEVICE)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: %s has an unknown memory space", what,
                        name);
  return MISPC_SUCCESS;
}

/* Row pointers and column indices in range (a product reads B's rows at A's
 * columns, so a bad index would read out of bounds). */
static mispc_status check_indices(mispc_context *ctx, const mispc_csr *A, const char *name,
                                  const char *what) {
  mispc_status s = mispc_csr_check(ctx, A, MISPC_CHECK_INDICES);
  if (s) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s", mispc_context_error(ctx));
    mispc_seterr(ctx, s, "%s: %s: %s", what, name, msg);
  }
  return s;
}

static mispc_status transpose_host(mispc_context *ctx, const mispc_csr *A, mispc_csr *T) {
  MISPC_TRY(mispc_csr_alloc(ctx, MISPC_MEM_HOST, A->ncols, A->nrows, A->nnz, 1, T));
  int64_t *rowof = (int64_t *)mispc_host_alloc_n(ctx, A->nnz, sizeof(int64_t), "transpose rows");
  int32_t *order = (int32_t *)mispc_host_alloc_n(ctx, A->nnz, sizeof(int32_t), "transpose order");
  mispc_status s = (rowof && order) ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
  if (!s) {
    for (int64_t i = 0; i < A->nrows; ++i)
      for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) rowof[e] = i;
    /* entries by column, stable: each column's rows stay increasing */
    s = mispc_order_by_key_host(ctx, A->nnz, A->colidx, (int32_t)A->ncols, order, T->rowptr);
  }
  if (!s)
    for (int64_t p = 0; p < A->nnz; ++p) {
      T->colidx[p] = (int32_t)rowof[order[p]];
      T->values[p] = A->values[order[p]];
    }
  free(rowof);
  free(order);
  if (s) mispc_csr_free(ctx, T);
  return s;
}

/* The checks every transpose makes; with check_idx, A's indices too (an
 * O(nnz) pass the Galerkin product makes once for its operands). */
static mispc_status transpose_checked(mispc_context *ctx, const mispc_csr *A, mispc_csr *T,
                                      int check_idx) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!T) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "transpose: output is NULL");
  memset(T, 0, sizeof *T);
  MISPC_TRY(check_input(ctx, A, "A", "transpose"));
  if (A->nrows > INT32_MAX)
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW,
                        "transpose: %lld rows do not fit the 32-bit column indices of A^T",
                        (long long)A->nrows);
  if (A->nnz > INT32_MAX)
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "transpose: %lld entries (at most 2^31 - 1)",
                        (long long)A->nnz);
  if (check_idx) MISPC_TRY(check_indices(ctx, A, "A", "transpose"));
  if (A->mem == MISPC_MEM_DEVICE) return mispc_csr_transpose_cuda(ctx, A, T);
  return transpose_host(ctx, A, T);
}

mispc_status mispc_csr_transpose(mispc_context *ctx, const mispc_csr *A, mispc_csr *T) {
  return transpose_checked(ctx, A, T, 1);
}

mispc_status mispc_csr_transpose_trusted(mispc_context *ctx, const mispc_csr *A, mispc_csr *T) {
  return transpose_checked(ctx, A, T, 0);
}

/* C = A B on the host in one pass over the products: rows are computed in
 * parts of consecutive rows (several a thread, taken dynamically), each row
 * whole by one thread into its part's growing arrays, with a dense
 * accumulator: c_ij = 0.0 + the first product, then += the others in the
 * order of row i's entries in A; the row's columns are listed as first
 * touched, then sorted. The parts are then copied into C in row order, so
 * the bits do not depend on the thread count or the schedule. (It replaced
 * a version that walked each row's pattern twice, once to count and once
 * with the values: docs/AGGREGATION.md, "Host sparse products".) */
typedef struct product_part {
  int64_t i0, i1; /* rows [i0, i1) */
  int64_t n, cap; /* entries held, capacity */
  int32_t *cols;
  double *vals;
} product_part;

/* Per-thread work arrays over B's columns. */
typedef struct row_work {
  double *acc;
  int64_t *mark; /* row that last touched column j, or -1 */
} row_work;

/* Rows [pt->i0, pt->i1) of A B into the part; len[i + 1] = entries of row
 * i. Sets *dup when a row of B repeats a column next to itself (the GPU
 * kernels test the same). Nonzero when out of memory. */
static int product_rows(const mispc_csr *A, const mispc_csr *B, row_work *w, product_part *pt,
                        int64_t *len, int *dup) {
  for (int64_t i = pt->i0; i < pt->i1; ++i) {
    int64_t bound = 0; /* at most this many entries in row i */
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e)
      bound += B->rowptr[A->colidx[e] + 1] - B->rowptr[A->colidx[e]];
    void *c = pt->cols, *v = pt->vals; /* both kept: one may have moved on a failure */
    const int grow_failed =
        mispc_grow_pair(&c, sizeof(int32_t), &v, sizeof(double), pt->n + bound, &pt->cap);
    pt->cols = (int32_t *)c, pt->vals = (double *)v;
    if (grow_failed) return 1;
    int32_t *cols = pt->cols + pt->n;
    int64_t n = 0;
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) {
      const int32_t k = A->colidx[e];
      const double a = A->values[e];
      const int64_t qb = B->rowptr[k], qe = B->rowptr[k + 1];
      for (int64_t q = qb; q < qe; ++q) {
        const int32_t j = B->colidx[q];
        if (q > qb && j == B->colidx[q - 1]) *dup = 1;
        const double x = a * B->values[q];
        if (w->mark[j] != i) {
          w->mark[j] = i;
          cols[n++] = j;
          w->acc[j] = 0.0 + x; /* the first product of c_ij: 0.0 + x, as the GPU sums */
        } else {
          w->acc[j] += x;
        }
      }
    }
    mispc_sort_i32(cols, n);
    double *vals = pt->vals + pt->n;
    for (int64_t p = 0; p < n; ++p) vals[p] = w->acc[cols[p]];
    pt->n += n;
    len[i + 1] = n;
  }
  return 0;
}

static mispc_status multiply_host(mispc_context *ctx, const mispc_csr *A, const mispc_csr *B,
                                  mispc_csr *C) {
  const int64_t m = A->nrows, nb = B->ncols;
  const int nt = mispc_host_threads(ctx);
  /* parts of about equal numbers of A's entries, a few a thread for balance;
   * one thread: one part, whose arrays become C's (below) */
  int64_t np = nt > 1 ? m / 256 : 1;
  if (np > 4 * (int64_t)nt) np = 4 * (int64_t)nt;
  if (np < 1) np = 1;
  int64_t *len = (int64_t *)calloc((size_t)m + 1, sizeof(int64_t));
  product_part *pt = (product_part *)calloc((size_t)np, sizeof *pt);
  int failed = !len || !pt, dup = 0;
  for (int64_t k = 0; !failed && k < np; ++k) {
    pt[k].i0 = mispc_lower_bound_i64(A->rowptr, 0, m, A->nnz / np * k + A->nnz % np * k / np);
    pt[k].i1 = m;
    if (k) pt[k - 1].i1 = pt[k].i0;
  }
  if (!failed) {
#pragma omp parallel num_threads(nt) reduction(| : failed, dup)
    {
      row_work w = {(double *)malloc(sizeof(double) * (size_t)(nb + 1)),
                    (int64_t *)malloc(sizeof(int64_t) * (size_t)(nb + 1))};
      int mine = !w.acc || !w.mark;
      for (int64_t j = 0; !mine && j < nb; ++j) w.mark[j] = -1;
#pragma omp for schedule(dynamic, 1)
      for (int64_t k = 0; k < np; ++k)
        if (!mine) mine = product_rows(A, B, &w, &pt[k], len, &dup);
      failed |= mine;
      free(w.acc);
      free(w.mark);
    }
  }
  mispc_status s = MISPC_SUCCESS;
  if (failed)
    s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in sparse product");
  else if (dup)
    s = mispc_seterr(ctx, MISPC_ERR_DUPLICATE,
                     "sparse product: a row of B repeats a column (merge duplicates first, "
                     "mispc_csr_sort_rows)");
  if (!s)
    for (int64_t i = 0; i < m; ++i) len[i + 1] += len[i];
  if (!s && np == 1) {
    /* C takes the part's arrays (host CSR arrays are malloc'd: mispc_csr_free
     * frees them), shrunk to fit, and len as its row offsets: no second copy
     * of C and no fresh pages to fault in */
    const int64_t n = len[m];
    int32_t *cols = (int32_t *)realloc(pt[0].cols, sizeof(int32_t) * (size_t)(n + 1));
    if (cols) pt[0].cols = cols;
    double *vals = (double *)realloc(pt[0].vals, sizeof(double) * (size_t)(n + 1));
    if (vals) pt[0].vals = vals;
    if (pt[0].cols && pt[0].vals) {
      mispc_csr out = {m, nb, n, len, pt[0].cols, pt[0].vals, MISPC_MEM_HOST, 1};
      *C = out;
      free(pt);
      return MISPC_SUCCESS;
    }
  }
  if (!s) s = mispc_csr_alloc(ctx, MISPC_MEM_HOST, m, nb, len[m], 1, C);
  if (!s) {
    memcpy(C->rowptr, len, sizeof(int64_t) * (size_t)(m + 1));
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int64_t k = 0; k < np; ++k)
      if (pt[k].n) {
        const int64_t at = len[pt[k].i0];
        memcpy(C->colidx + at, pt[k].cols, sizeof(int32_t) * (size_t)pt[k].n);
        memcpy(C->values + at, pt[k].vals, sizeof(double) * (size_t)pt[k].n);
        free(pt[k].cols), free(pt[k].vals); /* the peak: C and the parts not yet copied */
        pt[k].cols = NULL, pt[k].vals = NULL;
      }
  }
  for (int64_t k = 0; pt && k < np; ++k) free(pt[k].cols), free(pt[k].vals);
  free(pt);
  free(len);
  return s;
}

static mispc_status multiply_checked(mispc_context *ctx, const mispc_csr *A, const mispc_csr *B,
                                     mispc_csr *C, int check_idx) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!C) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "sparse product: output is NULL");
  memset(C, 0, sizeof *C);
  MISPC_TRY(check_input(ctx, A, "A", "sparse product"));
  MISPC_TRY(check_input(ctx, B, "B", "sparse product"));
  if (A->mem != B->mem)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "sparse product: A and B must be in the same memory space");
  if (A->ncols != B->nrows)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "sparse product: A has %lld columns, B %lld rows", (long long)A->ncols,
                        (long long)B->nrows);
  if (check_idx) {
    MISPC_TRY(check_indices(ctx, A, "A", "sparse product"));
    MISPC_TRY(check_indices(ctx, B, "B", "sparse product"));
  }
  if (A->mem == MISPC_MEM_DEVICE) return mispc_csr_multiply_cuda(ctx, A, B, C);
  return multiply_host(ctx, A, B, C);
}

mispc_status mispc_csr_multiply(mispc_context *ctx, const mispc_csr *A, const mispc_csr *B,
                                mispc_csr *C) {
  return multiply_checked(ctx, A, B, C, 1);
}

mispc_status mispc_csr_multiply_trusted(mispc_context *ctx, const mispc_csr *A, const mispc_csr *B,
                                        mispc_csr *C) {
  return multiply_checked(ctx, A, B, C, 0);
}
