/* Sparse transpose and product, prolongator smoothing and the Galerkin
 * operator on the host: results against dense references (the defined
 * summation order bit for bit, and the exact product within rounding),
 * sorted duplicate-free rows, thread-count independence, error paths. */
#include <math.h>

#include "galerkin_inputs.h"
#include "internal.h" /* mispc_sort_i32 */

static mispc_context *ctx;

/* dense copy (m x n, row-major) */
static double *dense(const mispc_csr *A) {
  double *D = calloc((size_t)(A->nrows * A->ncols + 1), sizeof(double));
  for (int64_t i = 0; i < A->nrows; ++i)
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e)
      D[i * A->ncols + A->colidx[e]] += A->values[e];
  return D;
}

static int rows_sorted_unique(const mispc_csr *C) {
  for (int64_t i = 0; i < C->nrows; ++i)
    for (int64_t e = C->rowptr[i] + 1; e < C->rowptr[i + 1]; ++e)
      if (C->colidx[e - 1] >= C->colidx[e]) return 0;
  return 1;
}

static int same_csr(const mispc_csr *X, const mispc_csr *Y) {
  return X->nrows == Y->nrows && X->ncols == Y->ncols && X->nnz == Y->nnz &&
         !memcmp(X->rowptr, Y->rowptr, sizeof(int64_t) * (size_t)(X->nrows + 1)) &&
         (!X->nnz || (!memcmp(X->colidx, Y->colidx, sizeof(int32_t) * (size_t)X->nnz) &&
                      !memcmp(X->values, Y->values, sizeof(double) * (size_t)X->nnz)));
}

/* C = A B against (1) the definition's order, bit for bit: c_ij summed over
 * A's row entries in storage order, and (2) the pattern: exactly the columns
 * reached through A's row. */
static void check_product(const mispc_csr *A, const mispc_csr *B, const mispc_csr *C,
                          const char *name) {
  CHECK_MSG(C->nrows == A->nrows && C->ncols == B->ncols, "%s: size", name);
  CHECK_MSG(rows_sorted_unique(C), "%s: rows not sorted / unique", name);
  double *acc = calloc((size_t)B->ncols + 1, sizeof(double));
  char *hit = calloc((size_t)B->ncols + 1, 1);
  int64_t bad_pattern = 0, bad_value = 0;
  for (int64_t i = 0; i < A->nrows; ++i) {
    memset(hit, 0, (size_t)B->ncols);
    for (int64_t e = A->rowptr[i]; e < A->rowptr[i + 1]; ++e)
      for (int64_t q = B->rowptr[A->colidx[e]]; q < B->rowptr[A->colidx[e] + 1]; ++q) {
        if (!hit[B->colidx[q]]) acc[B->colidx[q]] = 0.0;
        hit[B->colidx[q]] = 1;
        volatile double t = A->values[e] * B->values[q]; /* rounded, then added */
        acc[B->colidx[q]] += t;
      }
    int64_t count = 0;
    for (int64_t j = 0; j < B->ncols; ++j) count += hit[j];
    if (count != C->rowptr[i + 1] - C->rowptr[i]) ++bad_pattern;
    for (int64_t e = C->rowptr[i]; e < C->rowptr[i + 1]; ++e) {
      if (!hit[C->colidx[e]])
        ++bad_pattern;
      else if (memcmp(&acc[C->colidx[e]], &C->values[e], sizeof(double)))
        ++bad_value;
    }
  }
  CHECK_MSG(bad_pattern == 0, "%s: %lld rows with a wrong pattern", name, (long long)bad_pattern);
  CHECK_MSG(bad_value == 0, "%s: %lld values not in the defined order", name, (long long)bad_value);
  free(acc);
  free(hit);
}

static void test_transpose(void) {
  mispc_csr A, T, TT;
  gi_random(ctx, 300, 170, 9, 0, 1, 11, &A);
  CHECK_OK(ctx, mispc_csr_transpose(ctx, &A, &T));
  CHECK(T.nrows == 170 && T.ncols == 300 && T.nnz == A.nnz);
  CHECK_MSG(rows_sorted_unique(&T), "transpose rows not increasing");
  CHECK_OK(ctx, mispc_csr_transpose(ctx, &T, &TT));
  /* A's rows were reversed: TT has them sorted; compare densely, exactly */
  double *DA = dense(&A), *DT = dense(&TT);
  CHECK(!memcmp(DA, DT, sizeof(double) * (size_t)(300 * 170)));
  free(DA);
  free(DT);
  mispc_csr_free(ctx, &A);
  mispc_csr_free(ctx, &T);
  mispc_csr_free(ctx, &TT);
}

static void test_multiply_random(void) {
  const struct {
    int64_t m, k, n;
    int per_row_a, per_row_b, shuffled;
  } cases[] = {{200, 150, 120, 8, 6, 0},
               {257, 300, 90, 12, 9, 1},
               {1, 40, 1, 5, 1, 0},
               {64, 64, 64, 0, 4, 0}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    mispc_csr A, B, C;
    gi_random(ctx, cases[c].m, cases[c].k, cases[c].per_row_a, 0, cases[c].shuffled, 100 + c, &A);
    gi_random(ctx, cases[c].k, cases[c].n, cases[c].per_row_b, 0, cases[c].shuffled, 200 + c, &B);
    CHECK_OK(ctx, mispc_csr_multiply(ctx, &A, &B, &C));
    char name[64];
    snprintf(name, sizeof name, "random case %zu", c);
    check_product(&A, &B, &C, name);
    mispc_csr_free(ctx, &A);
    mispc_csr_free(ctx, &B);
    mispc_csr_free(ctx, &C);
  }
}

static void test_multiply_long_rows(void) {
  mispc_csr A, C, C1;
  gi_arrow(ctx, 700, &A);
  CHECK_OK(ctx, mispc_csr_multiply(ctx, &A, &A, &C));
  check_product(&A, &A, &C, "arrow^2");
  CHECK(C.nnz == 700 * 700);
  /* the thread count changes nothing */
  mispc_context_set_num_threads(ctx, 1);
  CHECK_OK(ctx, mispc_csr_multiply(ctx, &A, &A, &C1));
  CHECK_MSG(same_csr(&C, &C1), "1 thread differs");
  mispc_context_set_num_threads(ctx, 0);
  mispc_csr_free(ctx, &A);
  mispc_csr_free(ctx, &C);
  mispc_csr_free(ctx, &C1);
}

/* Rows in many parts (the host product computes parts of rows on the
 * threads and joins them): the same bits on 1, 2 and 3 threads, and the
 * defined order; long rows (more than 32 entries, the sort's quicksort
 * path) among short ones. */
static void test_multiply_parts(void) {
  mispc_csr A, B, C, C1;
  gi_random(ctx, 6000, 900, 40, 1, 1, 31, &A);
  gi_random(ctx, 900, 700, 12, 0, 0, 32, &B);
  mispc_context_set_num_threads(ctx, 1);
  CHECK_OK(ctx, mispc_csr_multiply(ctx, &A, &B, &C));
  check_product(&A, &B, &C, "parts");
  int64_t longest = 0;
  for (int64_t i = 0; i < C.nrows; ++i)
    if (C.rowptr[i + 1] - C.rowptr[i] > longest) longest = C.rowptr[i + 1] - C.rowptr[i];
  CHECK_MSG(longest > 200, "rows of C hold at most %lld entries", (long long)longest);
  for (int nt = 2; nt <= 3; ++nt) {
    mispc_context_set_num_threads(ctx, nt);
    CHECK_OK(ctx, mispc_csr_multiply(ctx, &A, &B, &C1));
    CHECK_MSG(same_csr(&C, &C1), "%d threads differ from 1", nt);
    mispc_csr_free(ctx, &C1);
  }
  mispc_context_set_num_threads(ctx, 0);
  mispc_csr_free(ctx, &A);
  mispc_csr_free(ctx, &B);
  mispc_csr_free(ctx, &C);
}

/* Products without entries: no rows, rows without entries, B without
 * columns; on 1 thread (C takes the part's arrays) and on 3. */
static void test_multiply_empty(void) {
  const int64_t dims[][3] = {{0, 5, 3}, {4, 5, 3}, {4, 5, 0}};
  for (int nt = 1; nt <= 3; nt += 2) {
    mispc_context_set_num_threads(ctx, nt);
    for (size_t c = 0; c < sizeof dims / sizeof dims[0]; ++c) {
      mispc_csr A, B, C;
      gi_random(ctx, dims[c][0], dims[c][1], 0, 0, 0, 40 + c, &A); /* no entries */
      if (dims[c][2] > 0)
        gi_random(ctx, dims[c][1], dims[c][2], 3, 0, 0, 50 + c, &B);
      else
        CHECK_OK(ctx, mispc_csr_alloc(ctx, MISPC_MEM_HOST, dims[c][1], 0, 0, 1, &B));
      for (int64_t i = 0; i <= B.nrows && dims[c][2] == 0; ++i) B.rowptr[i] = 0;
      CHECK_OK(ctx, mispc_csr_multiply(ctx, &A, &B, &C));
      CHECK_MSG(C.nrows == dims[c][0] && C.ncols == dims[c][2] && C.nnz == 0 &&
                    C.rowptr[C.nrows] == 0 && C.mem == MISPC_MEM_HOST && C.owned,
                "case %zu, %d threads: %lld x %lld, %lld entries", c, nt, (long long)C.nrows,
                (long long)C.ncols, (long long)C.nnz);
      mispc_csr_free(ctx, &A);
      mispc_csr_free(ctx, &B);
      mispc_csr_free(ctx, &C);
    }
  }
  mispc_context_set_num_threads(ctx, 0);
}

/* mispc_sort_i32 (the introsort the products sort rows with) against an
 * insertion sort, on sizes around its cut-offs and on inputs that break
 * simple pivots: sorted, reversed, all equal, two values, organ pipe,
 * sawtooth, random. */
static void test_sort_i32(void) {
  const int64_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 34, 63, 64, 65, 100, 257, 1000, 4099, 20000};
  int64_t bad = 0;
  uint64_t seed = 77;
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; ++z) {
    const int64_t m = sizes[z];
    int32_t *a = malloc(sizeof(int32_t) * (size_t)(m + 1));
    int32_t *ref = malloc(sizeof(int32_t) * (size_t)(m + 1));
    for (int kind = 0; kind < 7; ++kind) {
      for (int64_t i = 0; i < m; ++i) {
        const int32_t r = (int32_t)gi_next(&seed);
        a[i] = kind == 0   ? (int32_t)i
               : kind == 1 ? (int32_t)(m - i)
               : kind == 2 ? 5
               : kind == 3 ? (r & 1 ? INT32_MAX : INT32_MIN)
               : kind == 4 ? (int32_t)(i < m / 2 ? i : m - i)
               : kind == 5 ? (int32_t)(i % 17)
                           : r - (1 << 30);
      }
      memcpy(ref, a, sizeof(int32_t) * (size_t)m);
      mispc_isort_i32(ref, 0, m);
      mispc_sort_i32(a, m);
      if (m && memcmp(a, ref, sizeof(int32_t) * (size_t)m)) ++bad;
    }
    free(a);
    free(ref);
  }
  CHECK_MSG(bad == 0, "%lld sorts differ from the insertion sort", (long long)bad);
}

/* P = P0 - omega D^-1 A P0 and Ac = P^T A P against dense products. */
static void check_galerkin(const char *spec, int bs) {
  mispc_csr A, P0, P, Ac, Ac1;
  gi_prolongators(ctx, spec, bs, &A, &P0, &P);
  const int64_t n = A.nrows, nc = P0.ncols;
  double *DA = dense(&A), *D0 = dense(&P0), *DP = dense(&P);
  const double omega = 4.0 / 3.0 / 2.5;
  double err = 0, scale = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < nc; ++c) {
      double ap = 0;
      for (int64_t j = 0; j < n; ++j) ap += DA[i * n + j] * D0[j * nc + c];
      const double ref = D0[i * nc + c] - omega / DA[i * n + i] * ap;
      err = fmax(err, fabs(ref - DP[i * nc + c]));
      scale = fmax(scale, fabs(ref));
    }
  CHECK_MSG(err <= 1e-13 * scale, "%s: smoothed P off by %g (scale %g)", spec, err, scale);
  CHECK_MSG(rows_sorted_unique(&P), "%s: P rows", spec);
  CHECK_OK(ctx, mispc_galerkin_product(ctx, &A, &P, &Ac));
  CHECK(Ac.nrows == nc && Ac.ncols == nc && rows_sorted_unique(&Ac));
  /* dense P^T A P */
  double *AP = calloc((size_t)(n * nc), sizeof(double)), *DC = dense(&Ac);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (DA[i * n + j] != 0)
        for (int64_t c = 0; c < nc; ++c) AP[i * nc + c] += DA[i * n + j] * DP[j * nc + c];
  err = 0, scale = 0;
  double asym = 0;
  for (int64_t r = 0; r < nc; ++r)
    for (int64_t c = 0; c < nc; ++c) {
      double ref = 0;
      for (int64_t i = 0; i < n; ++i) ref += DP[i * nc + r] * AP[i * nc + c];
      err = fmax(err, fabs(ref - DC[r * nc + c]));
      scale = fmax(scale, fabs(ref));
      asym = fmax(asym, fabs(DC[r * nc + c] - DC[c * nc + r]));
    }
  CHECK_MSG(err <= 1e-12 * scale, "%s: Ac off by %g (scale %g)", spec, err, scale);
  CHECK_MSG(asym <= 1e-12 * scale, "%s: Ac not symmetric (%g)", spec, asym);
  mispc_context_set_num_threads(ctx, 1);
  CHECK_OK(ctx, mispc_galerkin_product(ctx, &A, &P, &Ac1));
  mispc_context_set_num_threads(ctx, 0);
  CHECK_MSG(same_csr(&Ac, &Ac1), "%s: 1 thread differs", spec);
  free(DA), free(D0), free(DP), free(AP), free(DC);
  mispc_csr *all[] = {&A, &P0, &P, &Ac, &Ac1};
  for (size_t i = 0; i < 5; ++i) mispc_csr_free(ctx, all[i]);
}

static void test_galerkin_laplace(void) {
  check_galerkin("gen:laplace3d:9", 1);
}
static void test_galerkin_elasticity(void) {
  check_galerkin("gen:elasticity3d:4", 3);
}

static void test_errors(void) {
  mispc_csr A, B, C, Bad;
  gi_random(ctx, 30, 20, 4, 0, 0, 5, &A);
  gi_random(ctx, 20, 10, 4, 0, 0, 6, &B);
  CHECK_STATUS(ctx, mispc_csr_multiply(ctx, &B, &A, &C), MISPC_ERR_INVALID_ARG); /* 10 != 30 */
  CHECK_STATUS(ctx, mispc_csr_multiply(ctx, &A, &B, NULL), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_csr_multiply(ctx, NULL, &B, &C), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_csr_transpose(ctx, &A, NULL), MISPC_ERR_INVALID_ARG);
  /* a repeated column in a row of B */
  CHECK_OK(ctx, mispc_csr_copy(ctx, &B, MISPC_MEM_HOST, &Bad));
  int64_t r = 0;
  while (Bad.rowptr[r + 1] - Bad.rowptr[r] < 2) ++r;
  Bad.colidx[Bad.rowptr[r] + 1] = Bad.colidx[Bad.rowptr[r]];
  /* make sure some row of A reaches row r */
  A.colidx[A.rowptr[0]] = (int32_t)r;
  CHECK_STATUS(ctx, mispc_csr_multiply(ctx, &A, &Bad, &C), MISPC_ERR_DUPLICATE);
  /* a column out of range */
  Bad.colidx[Bad.rowptr[r]] = 99;
  CHECK_STATUS(ctx, mispc_csr_multiply(ctx, &A, &Bad, &C), MISPC_ERR_INDEX_RANGE);
  CHECK_STATUS(ctx, mispc_csr_transpose(ctx, &Bad, &C), MISPC_ERR_INDEX_RANGE);
  /* a pattern (no values) */
  double *v = Bad.values;
  Bad.values = NULL;
  CHECK_STATUS(ctx, mispc_csr_multiply(ctx, &A, &Bad, &C), MISPC_ERR_INVALID_ARG);
  Bad.values = v;
  /* Galerkin / smoothing: A must be square with a nonzero diagonal */
  CHECK_STATUS(ctx, mispc_galerkin_product(ctx, &A, &B, &C), MISPC_ERR_NOT_SQUARE);
  mispc_csr S, P0, P;
  gi_random(ctx, 40, 40, 5, 1, 0, 8, &S);
  gi_random(ctx, 40, 7, 1, 0, 0, 9, &P0);
  CHECK_OK(ctx, mispc_smooth_prolongator(ctx, &S, &P0, 0.5, &P));
  mispc_csr_free(ctx, &P);
  CHECK_STATUS(ctx, mispc_smooth_prolongator(ctx, &S, &P0, NAN, &P), MISPC_ERR_INVALID_ARG);
  for (int64_t e = S.rowptr[17]; e < S.rowptr[18]; ++e)
    if (S.colidx[e] == 17) S.values[e] = 0.0;
  CHECK_STATUS(ctx, mispc_smooth_prolongator(ctx, &S, &P0, 0.5, &P), MISPC_ERR_INVALID_ARG);
  CHECK_MSG(strstr(mispc_context_error(ctx), "row 17") != NULL, "message: %s",
            mispc_context_error(ctx));
  CHECK_STATUS(ctx, mispc_galerkin_product(ctx, &S, &B, &C), MISPC_ERR_INVALID_ARG); /* 20 rows */
  mispc_csr *all[] = {&A, &B, &Bad, &S, &P0};
  for (size_t i = 0; i < 5; ++i) mispc_csr_free(ctx, all[i]);
}

int main(void) {
  if (mispc_context_create(&ctx)) return 1;
  RUN_TEST(test_transpose);
  RUN_TEST(test_multiply_random);
  RUN_TEST(test_multiply_long_rows);
  RUN_TEST(test_multiply_parts);
  RUN_TEST(test_multiply_empty);
  RUN_TEST(test_sort_i32);
  RUN_TEST(test_galerkin_laplace);
  RUN_TEST(test_galerkin_elasticity);
  RUN_TEST(test_errors);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
