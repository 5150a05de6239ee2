/* Generators: exact sizes, sorted symmetric output, SPD checked by dense
 * Cholesky, determinism across seeds and thread counts, spec parsing;
 * mispc_random_vector. */
#include <math.h>
#include <stdint.h>

#include "test_util.h"

static mispc_context *ctx;

static int csr_equal(const mispc_csr *A, const mispc_csr *B) {
  if (A->nrows != B->nrows || A->ncols != B->ncols || A->nnz != B->nnz) return 0;
  if ((A->values == NULL) != (B->values == NULL)) return 0;
  if (memcmp(A->rowptr, B->rowptr, (size_t)(A->nrows + 1) * sizeof(int64_t))) return 0;
  if (A->nnz && memcmp(A->colidx, B->colidx, (size_t)A->nnz * sizeof(int32_t))) return 0;
  if (A->values && A->nnz && memcmp(A->values, B->values, (size_t)A->nnz * sizeof(double)))
    return 0;
  return 1;
}

/* Square, sorted, symmetric pattern and bitwise symmetric values. */
static void check_symmetric_matrix(const mispc_csr *A) {
  CHECK(A->values != NULL);
  CHECK(A->mem == MISPC_MEM_HOST && A->owned == 1);
  CHECK_OK(ctx, mispc_csr_check(ctx, A,
                                MISPC_CHECK_SQUARE | MISPC_CHECK_SORTED | MISPC_CHECK_SYMMETRIC));
  mispc_csr_stats st;
  CHECK_OK(ctx, mispc_csr_get_stats(ctx, A, &st));
  CHECK(st.symmetric_pattern == 1);
  CHECK(st.symmetric_values == 1);
  CHECK(st.empty_rows == 0);
}

static void check_graph(const mispc_csr *G) {
  CHECK(G->values == NULL);
  CHECK(G->mem == MISPC_MEM_HOST && G->owned == 1);
  CHECK_OK(ctx, mispc_csr_check(ctx, G, MISPC_CHECK_GRAPH | MISPC_CHECK_NO_SELF_LOOPS));
}

/* Dense Cholesky: 1 when every pivot exceeds 1e-10 * the largest diagonal
 * entry (so singular or indefinite matrices fail). */
static int dense_cholesky_ok(const mispc_csr *A) {
  int64_t n = A->nrows;
  double *M = (double *)calloc((size_t)(n * n), sizeof(double));
  if (!M) return 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
      M[i * n + A->colidx[p]] += A->values[p];
  double dmax = 0;
  for (int64_t i = 0; i < n; ++i) dmax = fmax(dmax, fabs(M[i * n + i]));
  int ok = dmax > 0;
  for (int64_t j = 0; j < n && ok; ++j) {
    double d = M[j * n + j];
    for (int64_t k = 0; k < j; ++k) d -= M[j * n + k] * M[j * n + k];
    if (!(d > 1e-10 * dmax)) {
      ok = 0;
      break;
    }
    d = sqrt(d);
    M[j * n + j] = d;
    for (int64_t i = j + 1; i < n; ++i) {
      double s = M[i * n + j];
      for (int64_t k = 0; k < j; ++k) s -= M[i * n + k] * M[j * n + k];
      M[i * n + j] = s / d;
    }
  }
  free(M);
  return ok;
}

/* Value of A(i, j), 0 when not stored. */
static double entry(const mispc_csr *A, int64_t i, int64_t j) {
  for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
    if (A->colidx[p] == j) return A->values[p];
  return 0.0;
}

static void expect_spd(const char *spec) {
  mispc_csr A;
  CHECK_OK(ctx, mispc_generate(ctx, spec, 1, &A));
  check_symmetric_matrix(&A);
  CHECK_MSG(dense_cholesky_ok(&A), "%s is not SPD", spec);
  mispc_csr_free(ctx, &A);
}

static void test_cholesky_checker(void) {
  /* laplace2d:4 with diagonal 1 instead of 4: smallest eigenvalue 1 - 4cos(pi/5) < 0 */
  mispc_csr A;
  CHECK_OK(ctx, mispc_gen_laplace2d(ctx, 4, &A));
  CHECK(dense_cholesky_ok(&A));
  for (int64_t i = 0; i < A.nrows; ++i)
    for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p)
      if (A.colidx[p] == i) A.values[p] = 1.0;
  CHECK(!dense_cholesky_ok(&A));
  mispc_csr_free(ctx, &A);
  int64_t rp[3] = {0, 2, 4};
  int32_t ci[4] = {0, 1, 0, 1};
  double v[4] = {1, 2, 2, 1}; /* eigenvalues 3 and -1 */
  CHECK_OK(ctx, mispc_csr_wrap(MISPC_MEM_HOST, 2, 2, 4, rp, ci, v, &A));
  CHECK(!dense_cholesky_ok(&A));
  v[1] = v[2] = 0.5;
  CHECK(dense_cholesky_ok(&A));
}

static void test_laplace2d(void) {
  int64_t ns[] = {1, 2, 5, 37};
  for (int t = 0; t < 4; ++t) {
    int64_t n = ns[t];
    mispc_csr A;
    CHECK_OK(ctx, mispc_gen_laplace2d(ctx, n, &A));
    CHECK(A.nrows == n * n && A.ncols == n * n);
    CHECK_MSG(A.nnz == 5 * n * n - 4 * n, "n=%lld nnz=%lld", (long long)n, (long long)A.nnz);
    check_symmetric_matrix(&A);
    int bad = 0;
    for (int64_t i = 0; i < A.nrows; ++i)
      for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p) {
        int64_t j = A.colidx[p];
        if (A.values[p] != (j == i ? 4.0 : -1.0)) ++bad;
        if (j != i && j != i - 1 && j != i + 1 && j != i - n && j != i + n) ++bad;
      }
    CHECK(bad == 0);
    mispc_csr_free(ctx, &A);
  }
  expect_spd("gen:laplace2d:6");
}

static void test_laplace3d(void) {
  int64_t ns[] = {1, 2, 3, 10};
  for (int t = 0; t < 4; ++t) {
    int64_t n = ns[t];
    mispc_csr A;
    CHECK_OK(ctx, mispc_gen_laplace3d(ctx, n, &A));
    CHECK(A.nrows == n * n * n);
    CHECK(A.nnz == 7 * n * n * n - 6 * n * n);
    check_symmetric_matrix(&A);
    mispc_csr_stats st;
    CHECK_OK(ctx, mispc_csr_get_stats(ctx, &A, &st));
    CHECK(st.dd_rows == A.nrows);
    CHECK(entry(&A, 0, 0) == 6.0);
    if (n > 1) CHECK(entry(&A, 0, n * n) == -1.0);
    mispc_csr_free(ctx, &A);
  }
  expect_spd("gen:laplace3d:4");

  /* Galeri Laplace3D_100 */
  mispc_csr A;
  double t0 = mispc_wtime();
  CHECK_OK(ctx, mispc_gen_laplace3d(ctx, 100, &A));
  double t1 = mispc_wtime();
  printf("  laplace3d:100 generated in %.3f s\n", t1 - t0);
  CHECK(A.nrows == 1000000);
  CHECK(A.nnz == 6940000);
  check_symmetric_matrix(&A);
  mispc_csr_free(ctx, &A);
}

static void test_elasticity3d(void) {
  int64_t ns[] = {1, 2, 3, 5};
  for (int t = 0; t < 4; ++t) {
    int64_t n = ns[t], m = 3 * n - 2;
    mispc_csr A;
    CHECK_OK(ctx, mispc_gen_elasticity3d(ctx, n, &A));
    CHECK(A.nrows == 3 * n * n * n);
    CHECK_MSG(A.nnz == 9 * m * m * m, "n=%lld nnz=%lld", (long long)n, (long long)A.nnz);
    check_symmetric_matrix(&A);
    int bad = 0;
    for (int64_t i = 0; i < A.nrows; ++i)
      if (!(entry(&A, i, i) > 0)) ++bad;
    CHECK(bad == 0);
    if (n <= 3) CHECK_MSG(dense_cholesky_ok(&A), "elasticity3d:%lld is not SPD", (long long)n);
    mispc_csr_free(ctx, &A);
  }

  /* Rigid body motions (3 translations, 3 rotations) are in the kernel of the
   * unconstrained operator, so the rows of the centre node of N = 3, whose
   * whole neighbourhood is interior, must annihilate them. */
  mispc_csr A;
  CHECK_OK(ctx, mispc_gen_elasticity3d(ctx, 3, &A));
  CHECK(A.nrows == 81);
  double h = 0.25, amax = 0;
  /* Exact integral: each of the 8 elements contributes h*(lambda + 4 mu)/9
   * to a node's diagonal; the diagonal block is diagonal by symmetry. */
  double lam = 0.3 / (1.3 * 0.4), mu = 1.0 / 2.6, d = 8 * h * (lam + 4 * mu) / 9;
  for (int a = 0; a < 3; ++a) {
    CHECK(fabs(entry(&A, 39 + a, 39 + a) - d) < 1e-12 * d);
    CHECK(entry(&A, 39 + a, 39 + (a + 1) % 3) == 0.0);
  }
  for (int64_t p = 0; p < A.nnz; ++p) amax = fmax(amax, fabs(A.values[p]));
  for (int mode = 0; mode < 6; ++mode) {
    for (int a = 0; a < 3; ++a) {
      int64_t r = 3 * 13 + a; /* node (1,1,1) */
      double s = 0;
      for (int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p) {
        int64_t col = A.colidx[p], node = col / 3, b = col % 3;
        double x[3] = {h * (double)(node % 3 + 1), h * (double)(node / 3 % 3 + 1),
                       h * (double)(node / 9 + 1)};
        double u[3] = {0, 0, 0};
        if (mode < 3) {
          u[mode] = 1;
        } else { /* rotation about axis mode - 3: u = e x x */
          int e = mode - 3, c1 = (e + 1) % 3, c2 = (e + 2) % 3;
          u[c1] = -x[c2];
          u[c2] = x[c1];
        }
        s += A.values[p] * u[b];
      }
      CHECK_MSG(fabs(s) < 1e-12 * amax, "rigid mode %d row %lld: %g", mode, (long long)r, s);
    }
  }
  mispc_csr_free(ctx, &A);
  expect_spd("gen:elasticity3d:3");
}

/* The Done-when size: 648,000 rows, 50,757,768 entries (~600 MB). */
static void test_elasticity3d_60(void) {
  mispc_csr A;
  double t0 = mispc_wtime();
  CHECK_OK(ctx, mispc_gen_elasticity3d(ctx, 60, &A));
  double t1 = mispc_wtime();
  printf("  elasticity3d:60 generated in %.3f s\n", t1 - t0);
  CHECK(A.nrows == 648000);
  CHECK(A.nnz == 50757768);
  CHECK_OK(ctx, mispc_csr_check(ctx, &A, MISPC_CHECK_SQUARE | MISPC_CHECK_SORTED));
  mispc_csr_free(ctx, &A);
}

static void test_aniso2d(void) {
  int64_t n = 9;
  mispc_csr A;
  CHECK_OK(ctx, mispc_gen_aniso2d(ctx, n, 0.01, 0.0, &A));
  CHECK(A.nrows == n * n);
  CHECK(A.nnz == 5 * n * n - 4 * n);
  check_symmetric_matrix(&A);
  CHECK(entry(&A, 40, 40) == 2.0 + 2.0 * 0.01);
  CHECK(entry(&A, 40, 41) == -1.0);
  CHECK(entry(&A, 40, 39) == -1.0);
  CHECK(entry(&A, 40, 40 + n) == -0.01);
  CHECK(entry(&A, 40, 40 - n) == -0.01);
  mispc_csr_free(ctx, &A);

  CHECK_OK(ctx, mispc_gen_aniso2d(ctx, n, 0.01, 30.0, &A));
  CHECK(A.nnz == (3 * n - 2) * (3 * n - 2));
  check_symmetric_matrix(&A);
  /* K = R diag(1, eps) R^T: trace 1 + eps */
  CHECK(fabs(entry(&A, 40, 40) - 2.0 * 1.01) < 1e-14);
  CHECK(fabs(entry(&A, 40, 40 + n + 1) + entry(&A, 40, 40 + n - 1)) < 1e-15);
  mispc_csr_free(ctx, &A);

  expect_spd("gen:aniso2d:6");
  expect_spd("gen:aniso2d:6:0.001:30");
  const char *more[] = {"gen:aniso2d:7:0.000001:45", "gen:aniso2d:7:0.000001:30",
                        "gen:aniso2d:7:1:45",        "gen:aniso2d:7:0.01:90",
                        "gen:aniso2d:7:0.01:135",    "gen:aniso2d:7:100:-20"};
  for (int k = 0; k < 6; ++k) expect_spd(more[k]);
}

static void test_aniso3d(void) {
  int64_t n = 5;
  mispc_csr A;
  CHECK_OK(ctx, mispc_gen_aniso3d(ctx, n, 0.1, &A));
  CHECK(A.nrows == n * n * n);
  CHECK(A.nnz == 7 * n * n * n - 6 * n * n);
  check_symmetric_matrix(&A);
  int64_t c = 62; /* (2,2,2) */
  CHECK(entry(&A, c, c) == 4.0 + 0.2);
  CHECK(entry(&A, c, c + 1) == -1.0);
  CHECK(entry(&A, c, c + n) == -1.0);
  CHECK(entry(&A, c, c + n * n) == -0.1);
  mispc_csr_free(ctx, &A);
  expect_spd("gen:aniso3d:4");
  expect_spd("gen:aniso3d:4:0.0001");
}

static void test_grid_graphs(void) {
  for (int64_t n = 1; n <= 6; n += 5) {
    mispc_csr G;
    CHECK_OK(ctx, mispc_gen_grid2d(ctx, n, &G));
    CHECK(G.nrows == n * n && G.nnz == 4 * n * (n - 1));
    check_graph(&G);
    mispc_csr_free(ctx, &G);
    CHECK_OK(ctx, mispc_gen_grid3d27(ctx, n, &G));
    CHECK(G.nrows == n * n * n);
    CHECK(G.nnz == (3 * n - 2) * (3 * n - 2) * (3 * n - 2) - n * n * n);
    check_graph(&G);
    mispc_csr_free(ctx, &G);
  }
  mispc_csr G;
  CHECK_OK(ctx, mispc_gen_grid3d27(ctx, 40, &G));
  CHECK(G.nnz == 118LL * 118 * 118 - 64000);
  check_graph(&G);
  mispc_csr_free(ctx, &G);
  int64_t ps[] = {1, 2, 3, 1000};
  for (int t = 0; t < 4; ++t) {
    CHECK_OK(ctx, mispc_gen_path(ctx, ps[t], &G));
    CHECK(G.nrows == ps[t] && G.nnz == 2 * (ps[t] - 1));
    check_graph(&G);
    mispc_csr_stats st;
    CHECK_OK(ctx, mispc_csr_get_stats(ctx, &G, &st));
    CHECK(st.deg_max == (ps[t] > 2 ? 2 : ps[t] - 1));
    mispc_csr_free(ctx, &G);
  }
}

static void test_roadgrid(void) {
  mispc_csr G, H;
  CHECK_OK(ctx, mispc_gen_roadgrid(ctx, 30, 0.0, 5, &G));
  CHECK_OK(ctx, mispc_gen_grid2d(ctx, 30, &H));
  CHECK(csr_equal(&G, &H));
  mispc_csr_free(ctx, &G);
  mispc_csr_free(ctx, &H);
  CHECK_OK(ctx, mispc_gen_roadgrid(ctx, 30, 1.0, 5, &G));
  CHECK(G.nrows == 900 && G.nnz == 0);
  mispc_csr_free(ctx, &G);

  int64_t n = 300, edges = 2 * n * (n - 1);
  CHECK_OK(ctx, mispc_gen_roadgrid(ctx, n, 0.3, 7, &G));
  check_graph(&G);
  double kept = (double)(G.nnz / 2) / (double)edges;
  CHECK_MSG(fabs(kept - 0.7) < 0.01, "kept fraction %g", kept);
  CHECK_OK(ctx, mispc_gen_roadgrid(ctx, n, 0.3, 7, &H));
  CHECK(csr_equal(&G, &H));
  mispc_csr_free(ctx, &H);
  CHECK_OK(ctx, mispc_gen_roadgrid(ctx, n, 0.3, 8, &H));
  CHECK(!csr_equal(&G, &H));
  mispc_csr_free(ctx, &H);
  mispc_csr_free(ctx, &G);
}

static void test_kronecker(void) {
  mispc_csr G, H;
  CHECK_OK(ctx, mispc_gen_kronecker(ctx, 10, 16, 42, &G));
  CHECK(G.nrows == 1024);
  CHECK(G.nnz > 0 && G.nnz <= 2 * 16 * 1024);
  check_graph(&G);
  CHECK_OK(ctx, mispc_gen_kronecker(ctx, 10, 16, 42, &H));
  CHECK(csr_equal(&G, &H));
  mispc_csr_free(ctx, &H);
  CHECK_OK(ctx, mispc_gen_kronecker(ctx, 10, 16, 43, &H));
  CHECK(!csr_equal(&G, &H));
  mispc_csr_free(ctx, &H);
  /* skewed degrees: the hub has far more than the average */
  mispc_csr_stats st;
  CHECK_OK(ctx, mispc_csr_get_stats(ctx, &G, &st));
  CHECK(st.deg_max > 10 * st.deg_avg);
  mispc_csr_free(ctx, &G);

  CHECK_OK(ctx, mispc_generate(ctx, "gen:kron:10", 42, &H));
  CHECK_OK(ctx, mispc_gen_kronecker(ctx, 10, 16, 42, &G));
  CHECK(csr_equal(&G, &H));
  mispc_csr_free(ctx, &G);
  mispc_csr_free(ctx, &H);

  double t0 = mispc_wtime();
  CHECK_OK(ctx, mispc_gen_kronecker(ctx, 21, 16, 1, &G));
  double t1 = mispc_wtime();
  printf("  kron:21 generated in %.3f s (%lld entries)\n", t1 - t0, (long long)G.nnz);
  CHECK(G.nrows == 1 << 21);
  CHECK(G.nnz <= 2LL * 16 * (1 << 21));
  CHECK_OK(ctx, mispc_csr_check(ctx, &G, MISPC_CHECK_SORTED | MISPC_CHECK_NO_SELF_LOOPS));
  mispc_csr_free(ctx, &G);
}

static void test_random(void) {
  mispc_csr G, H;
  double t0 = mispc_wtime();
  CHECK_OK(ctx, mispc_gen_random(ctx, 100000, 8.0, 3, &G));
  printf("  random:100000:8 generated in %.3f s\n", mispc_wtime() - t0);
  check_graph(&G);
  mispc_csr_stats st;
  CHECK_OK(ctx, mispc_csr_get_stats(ctx, &G, &st));
  CHECK_MSG(fabs(st.deg_avg - 8.0) < 0.05 * 8.0, "average degree %g", st.deg_avg);
  CHECK_OK(ctx, mispc_gen_random(ctx, 100000, 8.0, 3, &H));
  CHECK(csr_equal(&G, &H));
  mispc_csr_free(ctx, &H);
  CHECK_OK(ctx, mispc_gen_random(ctx, 100000, 8.0, 4, &H));
  CHECK(!csr_equal(&G, &H));
  mispc_csr_free(ctx, &H);
  CHECK_OK(ctx, mispc_generate(ctx, "gen:random:100000", 3, &H));
  CHECK(csr_equal(&G, &H));
  mispc_csr_free(ctx, &H);
  mispc_csr_free(ctx, &G);
}

/* Same output with 1 and 2 threads for the random generators (and others). */
static void test_thread_determinism(void) {
  const char *specs[] = {"gen:kron:12:8",      "gen:random:20000:6",     "gen:roadgrid:100:0.4",
                         "gen:elasticity3d:4", "gen:aniso2d:20:0.01:30", "gen:grid3d27:9"};
  for (int k = 0; k < 6; ++k) {
    mispc_csr A, B;
    CHECK_OK(ctx, mispc_context_set_num_threads(ctx, 1));
    CHECK_OK(ctx, mispc_generate(ctx, specs[k], 11, &A));
    CHECK_OK(ctx, mispc_context_set_num_threads(ctx, 2));
    CHECK_OK(ctx, mispc_generate(ctx, specs[k], 11, &B));
    CHECK_MSG(csr_equal(&A, &B), "%s differs between 1 and 2 threads", specs[k]);
    mispc_csr_free(ctx, &A);
    mispc_csr_free(ctx, &B);
  }
  CHECK_OK(ctx, mispc_context_set_num_threads(ctx, 0));
}

static void test_laplacian_from_graph(void) {
  mispc_csr G, L;
  CHECK_OK(ctx, mispc_gen_random(ctx, 40, 4.0, 9, &G));
  CHECK_OK(ctx, mispc_laplacian_from_graph(ctx, &G, 0.1, &L));
  CHECK(L.nrows == 40 && L.nnz == G.nnz + 40);
  check_symmetric_matrix(&L);
  int bad = 0;
  for (int64_t i = 0; i < L.nrows; ++i) {
    double s = 0;
    for (int64_t p = L.rowptr[i]; p < L.rowptr[i + 1]; ++p) s += L.values[p];
    if (fabs(s - 0.1) > 1e-12) ++bad;
    if (entry(&L, i, i) != (double)(G.rowptr[i + 1] - G.rowptr[i]) + 0.1) ++bad;
  }
  CHECK(bad == 0);
  CHECK_MSG(dense_cholesky_ok(&L), "graph Laplacian + 0.1 I is not SPD");
  mispc_csr_free(ctx, &L);
  /* shift 0: singular (constants are in the kernel), so Cholesky must fail */
  CHECK_OK(ctx, mispc_laplacian_from_graph(ctx, &G, 0.0, &L));
  CHECK(!dense_cholesky_ok(&L));
  mispc_csr_free(ctx, &L);
  CHECK_STATUS(ctx, mispc_laplacian_from_graph(ctx, &G, -1.0, &L), MISPC_ERR_INVALID_ARG);
  mispc_csr_free(ctx, &G);

  /* self loops are ignored: triangle 0-1-2 with loops on 0 and 2 */
  int64_t rp[4] = {0, 3, 5, 8};
  int32_t ci[8] = {0, 1, 2, 0, 2, 0, 1, 2};
  CHECK_OK(ctx, mispc_csr_wrap(MISPC_MEM_HOST, 3, 3, 8, rp, ci, NULL, &G));
  CHECK_OK(ctx, mispc_laplacian_from_graph(ctx, &G, 0.5, &L));
  CHECK(L.nnz == 9);
  check_symmetric_matrix(&L);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) CHECK(entry(&L, i, j) == (i == j ? 2.5 : -1.0));
  mispc_csr_free(ctx, &L);
  /* unsymmetric pattern is refused */
  int64_t rp2[4] = {0, 1, 1, 1};
  int32_t ci2[1] = {1};
  CHECK_OK(ctx, mispc_csr_wrap(MISPC_MEM_HOST, 3, 3, 1, rp2, ci2, NULL, &G));
  CHECK_STATUS(ctx, mispc_laplacian_from_graph(ctx, &G, 0.5, &L), MISPC_ERR_UNSYMMETRIC);
}

/* mispc_random_vector: entries in [-1, 1), the same for any split of the
 * index range, mean near 0, seeds differ; errors. */
static void test_random_vector(void) {
  enum { N = 10000 };
  double *x = malloc(sizeof(double) * N), *y = malloc(sizeof(double) * N);
  CHECK_OK(ctx, mispc_random_vector(ctx, MISPC_MEM_HOST, N, 0, 7, x));
  CHECK_OK(ctx, mispc_random_vector(ctx, MISPC_MEM_HOST, 3001, 0, 7, y));
  CHECK_OK(ctx, mispc_random_vector(ctx, MISPC_MEM_HOST, N - 3001, 3001, 7, y + 3001));
  CHECK(!memcmp(x, y, sizeof(double) * N));
  double sum = 0, lo = 1, hi = -1;
  for (int i = 0; i < N; ++i) {
    CHECK_MSG(x[i] >= -1.0 && x[i] < 1.0, "x[%d] = %g", i, x[i]);
    sum += x[i];
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  CHECK_MSG(fabs(sum / N) < 0.05 && lo < -0.99 && hi > 0.99, "mean %g, range %g .. %g", sum / N, lo,
            hi);
  CHECK_OK(ctx, mispc_random_vector(ctx, MISPC_MEM_HOST, N, 0, 8, y));
  int same = 0;
  for (int i = 0; i < N; ++i) same += x[i] == y[i];
  CHECK_MSG(same < 10, "%d equal entries for two seeds", same);
  CHECK_STATUS(ctx, mispc_random_vector(ctx, MISPC_MEM_HOST, -1, 0, 0, x), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_random_vector(ctx, MISPC_MEM_HOST, 5, 0, 0, NULL), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_random_vector(ctx, (mispc_memspace)7, 5, 0, 0, x), MISPC_ERR_INVALID_ARG);
  free(x);
  free(y);
}

static void test_spec_parsing(void) {
  mispc_csr A, B;
  CHECK_OK(ctx, mispc_generate(ctx, "gen:laplace2d:5", 0, &A));
  CHECK(A.nrows == 25);
  mispc_csr_free(ctx, &A);
  CHECK_OK(ctx, mispc_generate(ctx, "gen:aniso2d:8:0.01:30", 0, &A));
  CHECK_OK(ctx, mispc_gen_aniso2d(ctx, 8, 0.01, 30, &B));
  CHECK(csr_equal(&A, &B));
  mispc_csr_free(ctx, &A);
  mispc_csr_free(ctx, &B);
  CHECK_OK(ctx, mispc_generate(ctx, "gen:aniso2d:8", 0, &A));
  CHECK_OK(ctx, mispc_gen_aniso2d(ctx, 8, 0.001, 0, &B));
  CHECK(csr_equal(&A, &B));
  mispc_csr_free(ctx, &A);
  mispc_csr_free(ctx, &B);
  CHECK_OK(ctx, mispc_generate(ctx, "gen:aniso3d:4:1e-3", 0, &A));
  CHECK_OK(ctx, mispc_gen_aniso3d(ctx, 4, 0.001, &B));
  CHECK(csr_equal(&A, &B));
  mispc_csr_free(ctx, &A);
  mispc_csr_free(ctx, &B);
  CHECK_OK(ctx, mispc_generate(ctx, "gen:roadgrid:20", 5, &A));
  CHECK_OK(ctx, mispc_gen_roadgrid(ctx, 20, 0.3, 5, &B));
  CHECK(csr_equal(&A, &B));
  mispc_csr_free(ctx, &A);
  mispc_csr_free(ctx, &B);
  const char *ok[] = {"gen:laplace3d:3", "gen:elasticity3d:2", "gen:kron:6:4",  "gen:random:50:3.5",
                      "gen:path:7",      "gen:grid2d:4",       "gen:grid3d27:3"};
  for (int k = 0; k < 7; ++k) {
    CHECK_OK(ctx, mispc_generate(ctx, ok[k], 1, &A));
    CHECK(A.nrows > 0);
    mispc_csr_free(ctx, &A);
  }

  const char *bad[] = {"gen:nosuchgen:3",
                       "laplace2d:5",
                       "gen:laplace2d",
                       "gen:laplace2d:",
                       "gen:laplace2d:5:6",
                       "gen:laplace2d:abc",
                       "gen:laplace2d:5x",
                       "gen:laplace2d:2.5",
                       "gen:laplace2d: 5",
                       "gen:aniso2d:8:0.1:30:1",
                       "gen:aniso2d:8::30",
                       "gen:kron:99999999999",
                       "gen:",
                       "",
                       "gen:random:10:eight",
                       "gen:laplace2d:5:",
                       "gen:aniso3d:4:nan"};
  for (int k = 0; k < 17; ++k) {
    mispc_status s = mispc_generate(ctx, bad[k], 1, &A);
    CHECK_MSG(s == MISPC_ERR_FORMAT, "'%s' gave %s", bad[k], mispc_strerror(s));
    CHECK(A.nrows == 0 && A.rowptr == NULL);
  }
  mispc_generate(ctx, "gen:nosuchgen:3", 1, &A);
  const char *msg = mispc_context_error(ctx);
  CHECK_MSG(strstr(msg, "nosuchgen") && strstr(msg, "gen:laplace3d:N") &&
                strstr(msg, "gen:elasticity3d:N") && strstr(msg, "gen:grid3d27:N"),
            "message: %s", msg);
  CHECK_STATUS(ctx, mispc_generate(ctx, NULL, 1, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_generate(ctx, "gen:laplace2d:4", 1, NULL), MISPC_ERR_INVALID_ARG);
  /* numeric but invalid values reach the generator */
  CHECK_STATUS(ctx, mispc_generate(ctx, "gen:laplace2d:-3", 1, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_generate(ctx, "gen:aniso2d:4:0", 1, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_generate(ctx, "gen:roadgrid:4:1.5", 1, &A), MISPC_ERR_INVALID_ARG);
}

static void test_bad_arguments(void) {
  mispc_csr A;
  CHECK_STATUS(ctx, mispc_gen_laplace2d(ctx, 0, &A), MISPC_ERR_INVALID_ARG);
  CHECK(strlen(mispc_context_error(ctx)) > 0);
  CHECK_STATUS(ctx, mispc_gen_laplace3d(ctx, -1, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gen_laplace3d(ctx, 5, NULL), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gen_elasticity3d(ctx, 0, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gen_aniso2d(ctx, 4, -1.0, 0, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gen_aniso2d(ctx, 4, 0.1, NAN, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gen_aniso3d(ctx, 4, 0.0, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gen_kronecker(ctx, 0, 16, 1, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gen_kronecker(ctx, 10, 0, 1, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gen_random(ctx, 0, 8, 1, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gen_random(ctx, 10, -1, 1, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gen_path(ctx, 0, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gen_roadgrid(ctx, 10, -0.1, 1, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gen_grid2d(ctx, 0, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gen_grid3d27(ctx, 0, &A), MISPC_ERR_INVALID_ARG);
  /* sizes beyond 32-bit column indices, refused before allocating */
  CHECK_STATUS(ctx, mispc_gen_laplace2d(ctx, 50000, &A), MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_gen_laplace3d(ctx, 2000, &A), MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_gen_laplace3d(ctx, INT64_MAX, &A), MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_gen_elasticity3d(ctx, 900, &A), MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_gen_elasticity3d(ctx, INT64_MAX, &A), MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_gen_aniso3d(ctx, 1291, 0.1, &A), MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_gen_grid3d27(ctx, 1291, &A), MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_gen_kronecker(ctx, 31, 16, 1, &A), MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_gen_random(ctx, 3000000000LL, 8, 1, &A), MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_gen_path(ctx, 3000000000LL, &A), MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_gen_roadgrid(ctx, 50000, 0.3, 1, &A), MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_generate(ctx, "gen:laplace3d:2000", 1, &A), MISPC_ERR_OVERFLOW);
}

int main(void) {
  if (mispc_context_create(&ctx) != MISPC_SUCCESS) return 1;
  RUN_TEST(test_cholesky_checker);
  RUN_TEST(test_laplace2d);
  RUN_TEST(test_laplace3d);
  RUN_TEST(test_elasticity3d);
  RUN_TEST(test_elasticity3d_60);
  RUN_TEST(test_aniso2d);
  RUN_TEST(test_aniso3d);
  RUN_TEST(test_grid_graphs);
  RUN_TEST(test_roadgrid);
  RUN_TEST(test_kronecker);
  RUN_TEST(test_random);
  RUN_TEST(test_thread_determinism);
  RUN_TEST(test_laplacian_from_graph);
  RUN_TEST(test_random_vector);
  RUN_TEST(test_spec_parsing);
  RUN_TEST(test_bad_arguments);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
