/* Validation of CSR structure (host path; device inputs are checked by a
 * kernel first and, on failure, re-checked here for the detailed message). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Implemented in csr_check_cuda.cu; returns MISPC_SUCCESS when A passes. */
mispc_status mispc_csr_check_device(mispc_context *ctx, const mispc_csr *A, unsigned checks);

/* Is j present in the sorted row r of A? */
static int row_contains(const mispc_csr *A, int64_t r, int32_t j) {
  return mispc_sorted_has_i32(A->colidx + A->rowptr[r], A->rowptr[r + 1] - A->rowptr[r], j);
}

/* Checks row i; returns its first problem (and the column) or success. */
static mispc_status check_row(const mispc_csr *A, int64_t i, unsigned checks, int64_t *col) {
  int64_t b = A->rowptr[i], e = A->rowptr[i + 1];
  *col = -1;
  if (e < b || b < 0 || e > A->nnz) return MISPC_ERR_INDEX_RANGE;
  for (int64_t p = b; p < e; ++p) {
    int32_t j = A->colidx[p];
    *col = j;
    if (j < 0 || j >= A->ncols) return MISPC_ERR_INDEX_RANGE;
    if ((checks & (MISPC_CHECK_SORTED | MISPC_CHECK_SYMMETRIC)) && p > b) {
      if (A->colidx[p - 1] == j) return MISPC_ERR_DUPLICATE;
      if (A->colidx[p - 1] > j) return MISPC_ERR_UNSORTED;
    }
    if ((checks & MISPC_CHECK_NO_SELF_LOOPS) && j == i) return MISPC_ERR_SELF_LOOP;
  }
  return MISPC_SUCCESS;
}

/* Whether every (i, j) of A (square, rows sorted and free of duplicates)
 * has its (j, i), in one pass: rows in increasing order, each entry (i, j)
 * above the diagonal consumes (j, i), which must be next at row j's cursor;
 * an entry below the diagonal that no earlier row consumed is left at row
 * i's cursor when row i starts. O(nnz) with accesses near the rows, where
 * a binary search an entry took 52 ms on Elasticity3D_30 on one thread. 0
 * also when the cursors' memory is short. */
static int pattern_symmetric(const mispc_csr *A) {
  const int64_t n = A->nrows;
  int64_t *cur = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n + 1));
  if (!cur) return 0;
  memcpy(cur, A->rowptr, sizeof(int64_t) * (size_t)n);
  int ok = 1;
  for (int64_t i = 0; ok && i < n; ++i) {
    const int64_t e = A->rowptr[i + 1];
    int64_t p = cur[i];
    if (p < e && A->colidx[p] < i) ok = 0; /* (i, colidx[p]) has no mirror */
    for (; ok && p < e; ++p) {
      const int32_t j = A->colidx[p];
      if (j <= i) continue; /* the diagonal */
      if (cur[j] < A->rowptr[j + 1] && A->colidx[cur[j]] == i)
        ++cur[j];
      else
        ok = 0;
    }
  }
  free(cur);
  return ok;
}

static mispc_status check_host(mispc_context *ctx, const mispc_csr *A, unsigned checks) {
  if (A->rowptr[0] != 0 || A->rowptr[A->nrows] != A->nnz)
    return mispc_seterr(ctx, MISPC_ERR_INDEX_RANGE,
                        "row offsets must start at 0 and end at nnz = %lld (got %lld .. %lld)",
                        (long long)A->nnz, (long long)A->rowptr[0], (long long)A->rowptr[A->nrows]);
  /* First pass: structure of every row (lowest failing row wins). */
  int64_t bad = A->nrows;
#pragma omp parallel for reduction(min : bad) schedule(static)
  for (int64_t i = 0; i < A->nrows; ++i) {
    int64_t col;
    if (check_row(A, i, checks, &col) != MISPC_SUCCESS && i < bad) bad = i;
  }
  if (bad < A->nrows) {
    int64_t col;
    mispc_status s = check_row(A, bad, checks, &col);
    if (col >= 0)
      return mispc_seterr(ctx, s, "%s at row %lld, column %lld", mispc_strerror(s), (long long)bad,
                          (long long)col);
    return mispc_seterr(ctx, s, "%s: bad row offsets at row %lld", mispc_strerror(s),
                        (long long)bad);
  }
  if (!(checks & MISPC_CHECK_SYMMETRIC)) return MISPC_SUCCESS;
  if (pattern_symmetric(A)) return MISPC_SUCCESS;
  /* Second pass (asymmetric, or the cursors' memory short): the lowest row
   * with an entry (i, j) that has no (j, i), for the message. Rows are
   * sorted by now. */
  bad = A->nrows;
#pragma omp parallel for reduction(min : bad) schedule(dynamic, 1024)
  for (int64_t i = 0; i < A->nrows; ++i)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
      if (!row_contains(A, A->colidx[p], (int32_t)i)) {
        if (i < bad) bad = i;
        break;
      }
  if (bad < A->nrows) {
    for (int64_t p = A->rowptr[bad]; p < A->rowptr[bad + 1]; ++p)
      if (!row_contains(A, A->colidx[p], (int32_t)bad))
        return mispc_seterr(ctx, MISPC_ERR_UNSYMMETRIC,
                            "pattern is not symmetric: entry (%lld, %d) has no (%d, %lld); "
                            "symmetrize the graph first (mispc_csr_symmetrize)",
                            (long long)bad, A->colidx[p], A->colidx[p], (long long)bad);
  }
  return MISPC_SUCCESS;
}

mispc_status mispc_csr_check(mispc_context *ctx, const mispc_csr *A, unsigned checks) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  MISPC_TRY(mispc_csr_check_desc(ctx, A, "matrix"));
  if ((checks & MISPC_CHECK_SQUARE) && A->nrows != A->ncols)
    return mispc_seterr(ctx, MISPC_ERR_NOT_SQUARE, "matrix is not square: %lld x %lld",
                        (long long)A->nrows, (long long)A->ncols);
  if ((checks & MISPC_CHECK_SYMMETRIC) && A->nrows != A->ncols)
    return mispc_seterr(ctx, MISPC_ERR_NOT_SQUARE,
                        "symmetry needs a square matrix, got %lld x %lld", (long long)A->nrows,
                        (long long)A->ncols);
  if (A->mem == MISPC_MEM_DEVICE) {
    mispc_status s = mispc_csr_check_device(ctx, A, checks);
    if (s != MISPC_ERR_VERIFY) return s; /* success, or a CUDA error */
    /* Found a problem: re-check on the host for the detailed message. */
  }
  mispc_csr H;
  MISPC_TRY(mispc_csr_host_view(ctx, A, &H));
  mispc_status s = check_host(ctx, &H, checks);
  mispc_csr_free(ctx, &H);
  return s;
}

mispc_status mispc_csr_get_stats(mispc_context *ctx, const mispc_csr *A, mispc_csr_stats *st) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  MISPC_TRY(mispc_csr_check_desc(ctx, A, "matrix"));
  if (!st) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "stats output is NULL");
  mispc_csr H;
  MISPC_TRY(mispc_csr_host_view(ctx, A, &H));
  mispc_csr_stats s = {0};
  s.nrows = H.nrows;
  s.ncols = H.ncols;
  s.nnz = H.nnz;
  s.deg_min = H.nrows ? INT64_MAX : 0;
  int64_t dmin = s.deg_min, dmax = 0, loops = 0, empty = 0, dd = 0, sdd = 0;
#pragma omp parallel for reduction(min : dmin) reduction(max : dmax)                              \
    reduction(+ : loops, empty, dd, sdd) schedule(static)
  for (int64_t i = 0; i < H.nrows; ++i) {
    int64_t d = H.rowptr[i + 1] - H.rowptr[i];
    if (d < dmin) dmin = d;
    if (d > dmax) dmax = d;
    if (!d) ++empty;
    double diag = 0, off = 0;
    for (int64_t p = H.rowptr[i]; p < H.rowptr[i + 1]; ++p) {
      double v = H.values ? H.values[p] : 0.0;
      if (H.colidx[p] == i) {
        ++loops;
        diag += v < 0 ? -v : v;
      } else {
        off += v < 0 ? -v : v;
      }
    }
    if (H.values && diag >= off) ++dd;
    if (H.values && diag > off) ++sdd;
  }
  s.deg_min = dmin;
  s.deg_max = dmax;
  s.deg_avg = H.nrows ? (double)H.nnz / (double)H.nrows : 0.0;
  s.self_loops = loops;
  s.empty_rows = empty;
  s.dd_rows = H.values ? dd : -1;
  s.strict_dd_rows = H.values ? sdd : -1;
  s.symmetric_pattern = -1;
  s.symmetric_values = -1;
  if (H.nrows == H.ncols) {
    mispc_context *quiet = NULL; /* failures here are answers, not errors */
    mispc_status ps = check_host(quiet, &H, MISPC_CHECK_SORTED | MISPC_CHECK_SYMMETRIC);
    if (ps == MISPC_SUCCESS)
      s.symmetric_pattern = 1;
    else if (ps == MISPC_ERR_UNSYMMETRIC)
      s.symmetric_pattern = 0;
    if (s.symmetric_pattern == 1 && H.values) {
      int sym = 1;
#pragma omp parallel for reduction(&& : sym) schedule(dynamic, 1024)
      for (int64_t i = 0; i < H.nrows; ++i)
        for (int64_t p = H.rowptr[i]; p < H.rowptr[i + 1]; ++p) {
          int32_t j = H.colidx[p];
          int64_t at = mispc_lower_bound_i32(H.colidx, H.rowptr[j], H.rowptr[j + 1], (int32_t)i);
          if (H.values[at] != H.values[p]) sym = 0;
        }
      s.symmetric_values = sym;
    }
  }
  mispc_csr_free(ctx, &H);
  *st = s;
  return MISPC_SUCCESS;
}

mispc_status mispc_check_square_matrix(mispc_context *ctx, const mispc_csr *A, const char *what) {
  MISPC_TRY(mispc_csr_check_desc(ctx, A, "matrix"));
  if (A->nrows != A->ncols)
    return mispc_seterr(ctx, MISPC_ERR_NOT_SQUARE, "%s needs a square matrix, got %lld x %lld",
                        what, (long long)A->nrows, (long long)A->ncols);
  return MISPC_SUCCESS;
}

mispc_status mispc_check_graph_shape(mispc_context *ctx, const mispc_csr *A, const char *who) {
  if (A->nrows != A->ncols)
    return mispc_seterr(ctx, MISPC_ERR_NOT_SQUARE, "%s: graph must be square, got %lld x %lld", who,
                        (long long)A->nrows, (long long)A->ncols);
  if (A->nrows >= INT32_MAX)
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "%s: %lld vertices exceed 32-bit ids", who,
                        (long long)A->nrows);
  return MISPC_SUCCESS;
}

mispc_status mispc_check_graph_for(mispc_context *ctx, const mispc_csr *A, const char *who) {
  mispc_status s = mispc_csr_check(ctx, A, MISPC_CHECK_GRAPH);
  if (s) {
    char msg[sizeof ctx->err];
    strcpy(msg, mispc_context_error(ctx));
    return mispc_seterr(ctx, s, "%s: invalid graph: %s", who, msg);
  }
  return MISPC_SUCCESS;
}
