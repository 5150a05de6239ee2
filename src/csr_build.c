/* Building sorted, duplicate-free CSR from coordinate lists, row sorting and
 * symmetrization (host). Deterministic: duplicates are summed in input order. */
#include <stdlib.h>
#include <string.h>

#include "csr_build.h"

typedef struct entry {
  int32_t col;
  int64_t pos; /* original position: makes the sort stable */
  double val;
} entry;

static int entry_cmp(const void *a, const void *b) {
  const entry *x = (const entry *)a, *y = (const entry *)b;
  if (x->col != y->col) return x->col < y->col ? -1 : 1;
  return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Sorts one row stably by column and merges duplicates; returns new length. */
static int64_t sort_merge_row(int32_t *col, double *val, int64_t d, int drop_diag, int64_t row,
                              entry *buf) {
  if (!val) { /* a pattern: no values to sum in input order, so any sort will do */
    mispc_sort_i32(col, d);
    int64_t out = 0;
    for (int64_t k = 0; k < d; ++k)
      if (!(drop_diag && col[k] == row) && !(out > 0 && col[out - 1] == col[k]))
        col[out++] = col[k];
    return out;
  }
  for (int64_t k = 0; k < d; ++k) {
    buf[k].col = col[k];
    buf[k].pos = k;
    buf[k].val = val ? val[k] : 0.0;
  }
  if (d <= 16) {
    for (int64_t k = 1; k < d; ++k) {
      entry e = buf[k];
      int64_t m = k;
      while (m > 0 && buf[m - 1].col > e.col) {
        buf[m] = buf[m - 1];
        --m;
      }
      buf[m] = e;
    }
  } else {
    qsort(buf, (size_t)d, sizeof(entry), entry_cmp);
  }
  int64_t out = 0;
  for (int64_t k = 0; k < d; ++k) {
    if (drop_diag && buf[k].col == row) continue;
    if (out > 0 && col[out - 1] == buf[k].col) {
      if (val) val[out - 1] += buf[k].val;
      continue;
    }
    col[out] = buf[k].col;
    if (val) val[out] = buf[k].val;
    ++out;
  }
  return out;
}

/* Sorts and merges every row in place, then compacts the arrays. */
static mispc_status sort_and_compact(mispc_context *ctx, mispc_csr *A, int drop_diag) {
  int64_t n = A->nrows;
  int64_t *newlen = (int64_t *)mispc_host_alloc_n(ctx, n + 1, sizeof(int64_t), "row lengths");
  if (!n) {
    free(newlen);
    return MISPC_SUCCESS;
  }
  if (!newlen) return MISPC_ERR_ALLOC;
  int64_t maxd = 0;
  for (int64_t i = 0; i < n; ++i)
    if (A->rowptr[i + 1] - A->rowptr[i] > maxd) maxd = A->rowptr[i + 1] - A->rowptr[i];
  int failed = 0;
#pragma omp parallel reduction(| : failed)
  {
    entry *buf = (entry *)malloc((size_t)(maxd ? maxd : 1) * sizeof(entry));
    if (!buf) failed = 1;
#pragma omp for schedule(dynamic, 256)
    for (int64_t i = 0; i < n; ++i) {
      if (!buf) continue;
      int64_t b = A->rowptr[i];
      newlen[i] = sort_merge_row(A->colidx + b, A->values ? A->values + b : NULL,
                                 A->rowptr[i + 1] - b, drop_diag, i, buf);
    }
    free(buf);
  }
  if (failed) {
    free(newlen);
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory sorting rows");
  }
  /* Compact in row order (sequential: later rows move left). */
  int64_t w = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t b = A->rowptr[i], d = newlen[i];
    if (w != b) {
      memmove(A->colidx + w, A->colidx + b, (size_t)d * sizeof(int32_t));
      if (A->values) memmove(A->values + w, A->values + b, (size_t)d * sizeof(double));
    }
    A->rowptr[i] = w;
    w += d;
  }
  A->rowptr[n] = w;
  A->nnz = w;
  free(newlen);
  return MISPC_SUCCESS;
}

mispc_status mispc_csr_from_coo(mispc_context *ctx, int64_t nrows, int64_t ncols, int64_t nent,
                                const int32_t *I, const int32_t *J, const double *V, int flags,
                                mispc_csr *out) {
  memset(out, 0, sizeof *out);
  int expand = (flags & MISPC_COO_SYMMETRIC) != 0;
  int drop = (flags & MISPC_COO_DROP_DIAG) != 0;
  if (expand && nrows != ncols)
    return mispc_seterr(ctx, MISPC_ERR_NOT_SQUARE, "symmetric expansion needs a square matrix");
  int64_t *cnt = (int64_t *)calloc((size_t)nrows + 1, sizeof(int64_t));
  if (!cnt) return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory building CSR");
  int64_t total = 0;
  for (int64_t k = 0; k < nent; ++k) {
    if (I[k] < 0 || I[k] >= nrows || J[k] < 0 || J[k] >= ncols) {
      free(cnt);
      return mispc_seterr(ctx, MISPC_ERR_INDEX_RANGE, "entry %lld: (%d, %d) outside %lld x %lld",
                          (long long)k, I[k], J[k], (long long)nrows, (long long)ncols);
    }
    cnt[I[k] + 1]++;
    ++total;
    if (expand && I[k] != J[k]) {
      cnt[J[k] + 1]++;
      ++total;
    }
  }
  mispc_csr A;
  mispc_status s = mispc_csr_alloc(ctx, MISPC_MEM_HOST, nrows, ncols, total, V != NULL, &A);
  if (s) {
    free(cnt);
    return s;
  }
  for (int64_t i = 0; i < nrows; ++i) cnt[i + 1] += cnt[i];
  memcpy(A.rowptr, cnt, (size_t)(nrows + 1) * sizeof(int64_t));
  for (int64_t k = 0; k < nent; ++k) {
    int64_t p = cnt[I[k]]++;
    A.colidx[p] = J[k];
    if (V) A.values[p] = V[k];
    if (expand && I[k] != J[k]) {
      p = cnt[J[k]]++;
      A.colidx[p] = I[k];
      if (V) A.values[p] = V[k];
    }
  }
  free(cnt);
  s = sort_and_compact(ctx, &A, drop);
  if (s) {
    mispc_csr_free(ctx, &A);
    return s;
  }
  *out = A;
  return MISPC_SUCCESS;
}

mispc_status mispc_csr_sort_rows(mispc_context *ctx, mispc_csr *A) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  MISPC_TRY(mispc_csr_check_desc(ctx, A, "matrix"));
  if (A->mem != MISPC_MEM_HOST)
    return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "mispc_csr_sort_rows needs host memory");
  return sort_and_compact(ctx, A, 0);
}

mispc_status mispc_csr_symmetrize(mispc_context *ctx, const mispc_csr *A, int drop_self_loops,
                                  mispc_csr *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  MISPC_TRY(mispc_csr_check_desc(ctx, A, "matrix"));
  if (!out) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "output CSR is NULL");
  if (A->mem != MISPC_MEM_HOST)
    return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED,
                        "mispc_csr_symmetrize needs host memory; copy the graph to the host");
  if (A->nrows != A->ncols)
    return mispc_seterr(ctx, MISPC_ERR_NOT_SQUARE, "cannot symmetrize a %lld x %lld matrix",
                        (long long)A->nrows, (long long)A->ncols);
  MISPC_TRY(mispc_csr_check(ctx, A, MISPC_CHECK_INDICES));
  int32_t *I = (int32_t *)mispc_host_alloc_n(ctx, A->nnz, sizeof(int32_t), "row indices");
  if (!I) return MISPC_ERR_ALLOC;
  for (int64_t i = 0; i < A->nrows; ++i)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) I[p] = (int32_t)i;
  mispc_status s =
      mispc_csr_from_coo(ctx, A->nrows, A->ncols, A->nnz, I, A->colidx, A->values,
                         MISPC_COO_SYMMETRIC | (drop_self_loops ? MISPC_COO_DROP_DIAG : 0), out);
  free(I);
  return s;
}

mispc_status mispc_order_by_key_host(mispc_context *ctx, int64_t n, const int32_t *key,
                                     int32_t nkeys, int32_t *order, int64_t *ptr) {
  (void)ctx;
  memset(ptr, 0, sizeof(int64_t) * (size_t)(nkeys + 1));
  for (int64_t i = 0; i < n; ++i) ptr[key[i] + 1]++;
  for (int32_t k = 0; k < nkeys; ++k) ptr[k + 1] += ptr[k];
  int64_t *next = (int64_t *)mispc_host_alloc_n(ctx, nkeys + 1, sizeof(int64_t), "order");
  if (!next) return MISPC_ERR_ALLOC;
  memcpy(next, ptr, sizeof(int64_t) * (size_t)(nkeys + 1));
  for (int64_t i = 0; i < n; ++i) order[next[key[i]]++] = (int32_t)i; /* stable: ids ascend */
  free(next);
  return MISPC_SUCCESS;
}

mispc_status mispc_rows_by_row(mispc_context *ctx, int64_t r0, int64_t r1, mispc_row_fn row,
                               const void *gen, int with_values, int64_t **rowptr, int64_t **gcol,
                               double **val) {
  *rowptr = *gcol = NULL, *val = NULL;
  const int64_t m = r1 - r0;
  int64_t *ptr = (int64_t *)mispc_host_alloc_n(ctx, m + 1, sizeof(int64_t), "row offsets");
  if (!ptr) return MISPC_ERR_ALLOC;
  ptr[0] = 0;
  for (int64_t r = 0; r < m; ++r) ptr[r + 1] = ptr[r] + row(gen, r0 + r, NULL, NULL);
  int64_t *col = (int64_t *)mispc_host_alloc_n(ctx, ptr[m] + 1, sizeof(int64_t), "columns");
  double *v = col && with_values
                  ? (double *)mispc_host_alloc_n(ctx, ptr[m] + 1, sizeof(double), "values")
                  : NULL;
  if (!col || (with_values && !v)) {
    free(ptr), free(col);
    return MISPC_ERR_ALLOC;
  }
  const int nt = mispc_host_threads(ctx);
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t r = 0; r < m; ++r) row(gen, r0 + r, col + ptr[r], v ? v + ptr[r] : NULL);
  *rowptr = ptr, *gcol = col, *val = v;
  return MISPC_SUCCESS;
}
