/* Cluster GS with exact block solves (mispc_gs_options.block_solve), host:
 * the apply against a reference block Gauss-Seidel (each cluster's dense
 * block solved by Gaussian elimination, clusters in color order), the same
 * bits for any thread count and for zero_guess, the host's row passes equal
 * to the cluster chains bit for bit, faster convergence than the
 * row sweep on an anisotropic operator with line clusters, and the error
 * paths (omega, bad value, a singular block). */
#include <math.h>

#include "../gauss_seidel/gs_internal.h" /* the clusters and colors, for the reference */
#include "mispc/gauss_seidel.h"
#include "mis_test_graphs.h"

static mispc_context *ctx;

typedef struct block_case {
  const char *spec;
  double theta;
  int bs, lines;
} block_case;

static const block_case cases[] = {
    {"gen:aniso2d:24:0.001", 0.05, 1, 1}, /* whole lines */
    {"gen:aniso3d:8:0.01", 0.05, 1, 0},   /* pieces of planes */
    {"gen:laplace3d:9", 0, 1, 0},         /* MIS-2 aggregates of the matrix graph */
    {"gen:elasticity3d:3", 0, 3, 0},      /* node clusters */
};

static mispc_gs *make(const mispc_csr *A, const block_case *c, mispc_gs_sweep sw, int sweeps,
                      int block) {
  mispc_gs_options o;
  mispc_gs_options_default(&o);
  o.sweep = sw;
  o.sweeps = sweeps;
  o.strength_threshold = c->theta;
  o.block_size = c->bs;
  o.line_clusters = c->lines;
  o.block_solve = block;
  mispc_gs *g = NULL;
  mispc_status s = mispc_gs_create(ctx, &o, &g);
  if (!s) s = mispc_gs_symbolic(ctx, g, A);
  if (!s) s = mispc_gs_numeric(ctx, g, A);
  CHECK_MSG(s == MISPC_SUCCESS, "%s: setup: %s", c->spec, mispc_context_error(ctx));
  if (s) {
    mispc_gs_destroy(ctx, g);
    return NULL;
  }
  return g;
}

/* Solves the dense m x m system M y = r in place (r), partial pivoting. */
static void dense_solve(double *M, double *r, int64_t m) {
  for (int64_t k = 0; k < m; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < m; ++i)
      if (fabs(M[i * m + k]) > fabs(M[p * m + k])) p = i;
    for (int64_t j = 0; j < m; ++j) {
      const double t = M[k * m + j];
      M[k * m + j] = M[p * m + j], M[p * m + j] = t;
    }
    const double t = r[k];
    r[k] = r[p], r[p] = t;
    for (int64_t i = k + 1; i < m; ++i) {
      const double f = M[i * m + k] / M[k * m + k];
      for (int64_t j = k; j < m; ++j) M[i * m + j] -= f * M[k * m + j];
      r[i] -= f * r[k];
    }
  }
  for (int64_t k = m - 1; k >= 0; --k) {
    for (int64_t j = k + 1; j < m; ++j) r[k] -= M[k * m + j] * r[j];
    r[k] /= M[k * m + k];
  }
}

/* One cluster's exact update by a dense solve: x_C = A_CC^-1 (b_C - A_C,out x). */
static void ref_cluster(const mispc_csr *A, const mispc_gs *g, int32_t c, const double *b,
                        double *x) {
  const int64_t r0 = g->cl_ptr[c], m = g->cl_ptr[c + 1] - r0;
  double *M = calloc((size_t)(m * m + 1), sizeof(double)), *r = malloc(sizeof(double) * (m + 1));
  for (int64_t k = 0; k < m; ++k) {
    const int32_t i = g->cl_rows[r0 + k];
    r[k] = b[i];
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
      const int32_t j = A->colidx[p];
      if (g->row_cluster[j] != c) {
        r[k] -= A->values[p] * x[j];
        continue;
      }
      int64_t kj = 0;
      while (g->cl_rows[r0 + kj] != j) ++kj;
      M[k * m + kj] = A->values[p];
    }
  }
  dense_solve(M, r, m);
  for (int64_t k = 0; k < m; ++k) x[g->cl_rows[r0 + k]] = r[k];
  free(M);
  free(r);
}

static void ref_apply(const mispc_csr *A, const mispc_gs *g, const double *b, double *x) {
  const int per = g->opt.sweep == MISPC_GS_SYMMETRIC ? 2 : 1;
  for (int k = 0; k < g->opt.sweeps * per; ++k) {
    const int backward = g->opt.sweep == MISPC_GS_BACKWARD || (per == 2 && k % 2);
    for (int32_t j = 0; j < g->ncolors; ++j) {
      const int32_t col = backward ? g->ncolors - 1 - j : j;
      for (int64_t q = g->color_ptr[col]; q < g->color_ptr[col + 1]; ++q)
        ref_cluster(A, g, g->order[q], b, x);
    }
  }
}

static double max_rel_diff(const double *a, const double *b, int64_t n) {
  double d = 0, s = 0;
  for (int64_t i = 0; i < n; ++i) {
    d = fmax(d, fabs(a[i] - b[i]));
    s = fmax(s, fabs(b[i]));
  }
  return s > 0 ? d / s : d;
}

/* The apply is block Gauss-Seidel: against the dense reference, every
 * sweep kind, one and two sweeps. */
static void test_block_equals_reference(void) {
  const mispc_gs_sweep sweeps[] = {MISPC_GS_FORWARD, MISPC_GS_BACKWARD, MISPC_GS_SYMMETRIC};
  for (size_t t = 0; t < sizeof cases / sizeof *cases; ++t) {
    mispc_csr A = generated_graph(ctx, cases[t].spec, 5);
    const int64_t n = A.nrows;
    double *b = test_rnd_vec(1, 13, n), *x0 = test_rnd_vec(2, 13, n);
    double *x = malloc(sizeof(double) * (size_t)n), *xr = malloc(sizeof(double) * (size_t)n);
    for (int w = 0; w < 3; ++w)
      for (int ns = 1; ns <= 2; ++ns) {
        mispc_gs *g = make(&A, &cases[t], sweeps[w], ns, 1);
        if (!g) continue;
        memcpy(x, x0, sizeof(double) * (size_t)n);
        memcpy(xr, x0, sizeof(double) * (size_t)n);
        CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, x, 0));
        ref_apply(&A, g, b, xr);
        const double e = max_rel_diff(x, xr, n);
        CHECK_MSG(e < 1e-10, "%s sweep %d x%d: block GS differs from the dense reference by %.3g",
                  cases[t].spec, w, ns, e);
        if (w == 2 && ns == 1)
          printf("  %s: %lld clusters (%lld .. %lld rows), %d colors, vs reference %.2g\n",
                 cases[t].spec, (long long)g->nclusters, (long long)g->min_cluster,
                 (long long)g->max_cluster, g->ncolors, e);
        mispc_gs_destroy(ctx, g);
      }
    free(b), free(x0), free(x), free(xr);
    mispc_csr_free(ctx, &A);
  }
}

/* The same bits for 1 (clusters by level), 2 and 3 threads, and from
 * zero_guess as from x = 0. */
static void test_block_same_bits(void) {
  for (size_t t = 0; t < sizeof cases / sizeof *cases; ++t) {
    mispc_csr A = generated_graph(ctx, cases[t].spec, 5);
    const int64_t n = A.nrows;
    double *b = test_rnd_vec(3, 13, n), *x0 = test_rnd_vec(4, 13, n), *ref = NULL;
    double *x = malloc(sizeof(double) * (size_t)n);
    for (int nt = 1; nt <= 3; ++nt) {
      CHECK_OK(ctx, mispc_context_set_num_threads(ctx, nt));
      mispc_gs *g = make(&A, &cases[t], MISPC_GS_SYMMETRIC, 2, 1);
      if (!g) continue;
      memcpy(x, x0, sizeof(double) * (size_t)n);
      CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, x, 0));
      if (!ref) {
        ref = malloc(sizeof(double) * (size_t)n);
        memcpy(ref, x, sizeof(double) * (size_t)n);
      } else {
        CHECK_MSG(!memcmp(ref, x, sizeof(double) * (size_t)n), "%s: %d threads change the bits",
                  cases[t].spec, nt);
      }
      double *z = malloc(sizeof(double) * (size_t)n), *zg = malloc(sizeof(double) * (size_t)n);
      for (int64_t i = 0; i < n; ++i) z[i] = 0.0, zg[i] = NAN;
      CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, z, 0));
      CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, zg, 1));
      CHECK_MSG(!memcmp(z, zg, sizeof(double) * (size_t)n), "%s: zero_guess differs from x = 0",
                cases[t].spec);
      free(z), free(zg);
      mispc_gs_destroy(ctx, g);
    }
    CHECK_OK(ctx, mispc_context_set_num_threads(ctx, 0));
    /* one sweep of each kind: a first pass from x = 0 reads only what it
     * has written (NaN elsewhere), the backward one after it goes on from
     * the forward sums */
    const mispc_gs_sweep kinds[] = {MISPC_GS_FORWARD, MISPC_GS_BACKWARD, MISPC_GS_SYMMETRIC};
    for (int w = 0; w < 3; ++w) {
      mispc_gs *g = make(&A, &cases[t], kinds[w], 1, 1);
      if (!g) continue;
      double *z = malloc(sizeof(double) * (size_t)n), *zg = malloc(sizeof(double) * (size_t)n);
      for (int64_t i = 0; i < n; ++i) z[i] = 0.0, zg[i] = NAN;
      CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, z, 0));
      CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, zg, 1));
      CHECK_MSG(!memcmp(z, zg, sizeof(double) * (size_t)n),
                "%s sweep %d x1: zero_guess differs from x = 0", cases[t].spec, w);
      free(z), free(zg);
      mispc_gs_destroy(ctx, g);
    }
    free(b), free(x0), free(x), free(ref);
    mispc_csr_free(ctx, &A);
  }
}

/* The host's row passes (gauss_seidel/gs_exact_rows.c) against the
 * cluster chains they replace (taken where a list would exceed 255
 * entries; here by hiding the lists): the same bits, on one thread
 * (clusters by level) and two (color by color), two symmetric sweeps. */
static void test_block_rows_equal_chains(void) {
  for (size_t t = 0; t < sizeof cases / sizeof *cases; ++t) {
    mispc_csr A = generated_graph(ctx, cases[t].spec, 5);
    const int64_t n = A.nrows;
    double *b = test_rnd_vec(5, 13, n), *x0 = test_rnd_vec(6, 13, n);
    double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
    for (int nt = 1; nt <= 2; ++nt) {
      CHECK_OK(ctx, mispc_context_set_num_threads(ctx, nt));
      mispc_gs *g = make(&A, &cases[t], MISPC_GS_SYMMETRIC, 2, 1);
      if (!g) continue;
      CHECK_MSG(g->ex.rows.fcl != NULL, "%s, %d threads: no row passes", cases[t].spec, nt);
      memcpy(x, x0, sizeof(double) * (size_t)n);
      memcpy(y, x0, sizeof(double) * (size_t)n);
      CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, x, 0));
      int64_t *fcl = g->ex.rows.fcl;
      g->ex.rows.fcl = NULL; /* the chains */
      CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, y, 0));
      g->ex.rows.fcl = fcl;
      CHECK_MSG(!memcmp(x, y, sizeof(double) * (size_t)n),
                "%s, %d threads: the row passes and the cluster chains differ", cases[t].spec, nt);
      mispc_gs_destroy(ctx, g);
    }
    CHECK_OK(ctx, mispc_context_set_num_threads(ctx, 0));
    free(b), free(x0), free(x), free(y);
    mispc_csr_free(ctx, &A);
  }
}

static double resid_norm(const mispc_csr *A, const double *b, const double *x) {
  double s = 0;
  for (int64_t i = 0; i < A->nrows; ++i) {
    double r = b[i];
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) r -= A->values[p] * x[A->colidx[p]];
    s += r * r;
  }
  return sqrt(s);
}

/* On aniso2d with line clusters, exact line solves reduce the residual of
 * a few sweeps far more than sweeping the lines' rows. */
static void test_block_converges_faster(void) {
  const block_case c = {"gen:aniso2d:40:0.001", 0.05, 1, 1};
  mispc_csr A = generated_graph(ctx, c.spec, 5);
  const int64_t n = A.nrows;
  double *b = test_rnd_vec(5, 13, n), *x = malloc(sizeof(double) * (size_t)n);
  double res[2];
  for (int block = 0; block < 2; ++block) {
    mispc_gs *g = make(&A, &c, MISPC_GS_SYMMETRIC, 5, block);
    if (!g) continue;
    CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, x, 1));
    res[block] = resid_norm(&A, b, x);
    mispc_gs_destroy(ctx, g);
  }
  { /* the factor's size: a line ordered along itself stores 3 values a row, 1 its first */
    mispc_gs *g = make(&A, &c, MISPC_GS_SYMMETRIC, 1, 1);
    mispc_gs_info info;
    if (g && !mispc_gs_get_info(g, &info))
      CHECK_MSG(info.factor_values == 3 * n - 2 * info.nclusters &&
                    info.outside_entries == A.nnz - (3 * n - 2 * info.nclusters),
                "aniso2d:40 lines: %lld factor values, %lld outside entries (want %lld, %lld)",
                (long long)info.factor_values, (long long)info.outside_entries,
                (long long)(3 * n - 2 * info.nclusters),
                (long long)(A.nnz - (3 * n - 2 * info.nclusters)));
    mispc_gs_destroy(ctx, g);
  }
  const double r0 = resid_norm(&A, b, (memset(x, 0, sizeof(double) * (size_t)n), x));
  printf("  aniso2d:40:0.001 lines, 5 SGS sweeps from 0: residual %.3g (rows) vs %.3g (blocks), "
         "start %.3g\n",
         res[0], res[1], r0);
  CHECK_MSG(res[1] < res[0] / 10, "block solves %.3g not 10x below the row sweep's %.3g", res[1],
            res[0]);
  free(b), free(x);
  mispc_csr_free(ctx, &A);
}

static void test_block_errors(void) {
  mispc_gs_options o;
  mispc_gs_options_default(&o);
  o.block_solve = 1;
  o.omega = 1.5;
  mispc_gs *g = NULL;
  CHECK_STATUS(ctx, mispc_gs_create(ctx, &o, &g), MISPC_ERR_INVALID_ARG);
  CHECK(g == NULL && strstr(mispc_context_error(ctx), "omega") != NULL);
  o.omega = 1.0;
  o.block_solve = 2;
  CHECK_STATUS(ctx, mispc_gs_create(ctx, &o, &g), MISPC_ERR_INVALID_ARG);
  CHECK(g == NULL && strstr(mispc_context_error(ctx), "block_solve") != NULL);
  o.block_solve = 1;
  o.kind = MISPC_GS_POINT; /* point GS ignores it; omega free */
  o.omega = 1.5;
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
  mispc_gs_destroy(ctx, g);
  g = NULL;

  /* [[1 1], [1 1]]: nonzero diagonal, singular block (one cluster) */
  mispc_csr A;
  if (mispc_csr_alloc(ctx, MISPC_MEM_HOST, 2, 2, 4, 1, &A)) exit(1);
  const int64_t rp[] = {0, 2, 4};
  const int32_t ci[] = {0, 1, 0, 1};
  for (int k = 0; k < 3; ++k) A.rowptr[k] = rp[k];
  for (int k = 0; k < 4; ++k) A.colidx[k] = ci[k], A.values[k] = 1.0;
  mispc_gs_options_default(&o);
  o.block_solve = 1;
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &A));
  CHECK(g && g->nclusters == 1);
  CHECK_STATUS(ctx, mispc_gs_numeric(ctx, g, &A), MISPC_ERR_INVALID_ARG);
  CHECK_MSG(strstr(mispc_context_error(ctx), "pivot") && strstr(mispc_context_error(ctx), "row 1"),
            "singular block: %s", mispc_context_error(ctx));
  /* a regular block again: the numeric setup recovers */
  A.values[0] = 2.0;
  CHECK_OK(ctx, mispc_gs_numeric(ctx, g, &A));
  double b[2] = {3.0, 2.0}, x[2] = {0, 0};
  CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, x, 1));
  CHECK_MSG(fabs(x[0] - 1.0) < 1e-15 && fabs(x[1] - 1.0) < 1e-15,
            "one cluster: x = (%g, %g), want (1, 1)", x[0], x[1]);
  mispc_gs_destroy(ctx, g);
  mispc_csr_free(ctx, &A);
}

int main(void) {
  if (mispc_context_create(&ctx)) return 1;
  RUN_TEST(test_block_equals_reference);
  RUN_TEST(test_block_same_bits);
  RUN_TEST(test_block_rows_equal_chains);
  RUN_TEST(test_block_converges_faster);
  RUN_TEST(test_block_errors);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
