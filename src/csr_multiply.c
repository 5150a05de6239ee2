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

mispc_status mispc_csr_transpose(mispc_context *ctx, const mispc_csr *A, mispc_csr *T) {
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
  MISPC_TRY(check_indices(ctx, A, "A", "transpose"));
  if (A->mem == MISPC_MEM_DEVICE) return mispc_csr_transpose_cuda(ctx, A, T);
  return transpose_host(ctx, A, T);
}

/* One row of C = A B with a dense accumulator: acc[j] and the list of the
 * row's columns in first-touch order, then sorted. */
typedef struct {
  double *acc;
  int64_t *mark; /* row that last touched column j, or -1 */
  int32_t *cols;
} row_work;

static int64_t row_pattern(const mispc_csr *A, const mispc_csr *B, int64_t i, row_work *w) {
  int64_t n = 0;
  for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) {
    const int32_t k = A->colidx[e];
    for (int64_t q = B->rowptr[k]; q < B->rowptr[k + 1]; ++q) {
      const int32_t j = B->colidx[q];
      if (w->mark[j] != i) {
        w->mark[j] = i;
        w->cols[n++] = j;
      }
    }
  }
  return n;
}

static mispc_status multiply_host(mispc_context *ctx, const mispc_csr *A, const mispc_csr *B,
                                  mispc_csr *C) {
  const int64_t m = A->nrows, nb = B->ncols;
  int64_t *count = (int64_t *)calloc((size_t)m + 1, sizeof(int64_t));
  if (!count) return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in sparse product");
  const int nt = mispc_host_threads(ctx);
  int failed = 0, dup = 0;
  mispc_status s = MISPC_SUCCESS;
  /* pass 1: the number of distinct columns of each row */
#pragma omp parallel num_threads(nt) reduction(| : failed)
  {
    row_work w = {NULL, (int64_t *)malloc(sizeof(int64_t) * (size_t)(nb + 1)),
                  (int32_t *)malloc(sizeof(int32_t) * (size_t)(nb + 1))};
    if (!w.mark || !w.cols) failed = 1;
    if (w.mark)
      for (int64_t j = 0; j < nb; ++j) w.mark[j] = -1;
#pragma omp for schedule(dynamic, 256)
    for (int64_t i = 0; i < m; ++i)
      if (!failed) count[i + 1] = row_pattern(A, B, i, &w);
    free(w.mark);
    free(w.cols);
  }
  if (failed) {
    free(count);
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in sparse product");
  }
  for (int64_t i = 0; i < m; ++i) count[i + 1] += count[i];
  s = mispc_csr_alloc(ctx, MISPC_MEM_HOST, m, nb, count[m], 1, C);
  if (s) {
    free(count);
    return s;
  }
  memcpy(C->rowptr, count, sizeof(int64_t) * (size_t)(m + 1));
  free(count);
  /* pass 2: values, each summed in the order of A's row entries */
#pragma omp parallel num_threads(nt) reduction(| : failed, dup)
  {
    row_work w = {(double *)malloc(sizeof(double) * (size_t)(nb + 1)),
                  (int64_t *)malloc(sizeof(int64_t) * (size_t)(nb + 1)), NULL};
    if (!w.acc || !w.mark) failed = 1;
    if (w.mark)
      for (int64_t j = 0; j < nb; ++j) w.mark[j] = -1;
#pragma omp for schedule(dynamic, 256)
    for (int64_t i = 0; i < m; ++i) {
      if (failed) continue;
      w.cols = C->colidx + C->rowptr[i];
      const int64_t n = row_pattern(A, B, i, &w);
      mispc_sort_i32(w.cols, n);
      for (int64_t p = 0; p < n; ++p) w.acc[w.cols[p]] = 0.0;
      for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e) {
        const int32_t k = A->colidx[e];
        const double a = A->values[e];
        for (int64_t q = B->rowptr[k]; q < B->rowptr[k + 1]; ++q) {
          /* a column twice in one row of B: the GPU would race on it */
          if (q > B->rowptr[k] && B->colidx[q] == B->colidx[q - 1]) dup = 1;
          w.acc[B->colidx[q]] += a * B->values[q];
        }
      }
      for (int64_t p = 0; p < n; ++p) C->values[C->rowptr[i] + p] = w.acc[w.cols[p]];
    }
    free(w.acc);
    free(w.mark);
  }
  if (failed || dup) {
    mispc_csr_free(ctx, C);
    if (dup)
      return mispc_seterr(ctx, MISPC_ERR_DUPLICATE,
                          "sparse product: a row of B repeats a column (merge duplicates first, "
                          "mispc_csr_sort_rows)");
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in sparse product");
  }
  return MISPC_SUCCESS;
}

mispc_status mispc_csr_multiply(mispc_context *ctx, const mispc_csr *A, const mispc_csr *B,
                                mispc_csr *C) {
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
  MISPC_TRY(check_indices(ctx, A, "A", "sparse product"));
  MISPC_TRY(check_indices(ctx, B, "B", "sparse product"));
  if (A->mem == MISPC_MEM_DEVICE) return mispc_csr_multiply_cuda(ctx, A, B, C);
  return multiply_host(ctx, A, B, C);
}
