/* Point and cluster multicolor Gauss-Seidel on the host: exactness against
 * plain sequential Gauss-Seidel, monotone decrease of the A-norm error,
 * symmetry of SGS / SSOR, the symbolic / numeric split, info, error paths
 * and determinism across thread counts. */
#include <math.h>

#include "../gauss_seidel/gs_internal.h" /* the setup's orderings, for the row-by-row reference */
#include "mispc/gauss_seidel.h"
#include "mis_test_graphs.h"

static mispc_context *ctx;

static double *copy_vec(const double *v, int64_t n) {
  double *c = malloc(sizeof(double) * (size_t)(n + 1));
  memcpy(c, v, sizeof(double) * (size_t)n);
  return c;
}

/* A product rounded to double before any later addition, whatever the
 * compiler's contraction setting. */
static double mul_rn(double a, double b) {
  volatile double p = a * b;
  return p;
}

static void spmv(const mispc_csr *A, const double *x, double *y) {
  for (int64_t i = 0; i < A->nrows; ++i) {
    double s = 0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) s += A->values[p] * x[A->colidx[p]];
    y[i] = s;
  }
}

static double dot(const double *a, const double *b, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

static double diag_of(const mispc_csr *A, int64_t i) {
  for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
    if (A->colidx[p] == i) return A->values[p];
  return 0;
}

/* The row update of gauss_seidel.h, sequential:
 * x_i = x_i + (b_i - sum_p a_ip x_colp) * (omega / a_ii), products rounded. */
static void ref_row(const mispc_csr *A, const double *b, double *x, int64_t i, double omega) {
  double s = b[i];
  for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
    double prod = mul_rn(A->values[p], x[A->colidx[p]]);
    s = s - prod;
  }
  double t = s * (omega / diag_of(A, i));
  x[i] = x[i] + t;
}

/* Sequential Gauss-Seidel visiting rows ord[0..n) (NULL: 0..n-1) forward and
 * the reverse sequence backward; symmetric is forward then backward. */
static void ref_gs(const mispc_csr *A, const int32_t *ord, mispc_gs_sweep sw, int sweeps,
                   double omega, const double *b, double *x, int zero_guess) {
  int64_t n = A->nrows;
  if (zero_guess) memset(x, 0, sizeof(double) * (size_t)n);
  for (int k = 0; k < sweeps; ++k) {
    if (sw != MISPC_GS_BACKWARD)
      for (int64_t q = 0; q < n; ++q) ref_row(A, b, x, ord ? ord[q] : q, omega);
    if (sw != MISPC_GS_FORWARD)
      for (int64_t q = n - 1; q >= 0; --q) ref_row(A, b, x, ord ? ord[q] : q, omega);
  }
}

/* Coloring of every handle and reference below (test_gs_greedy_coloring
 * re-runs tests with MISPC_COLORING_GREEDY). */
static mispc_coloring_algo coloring_algo = MISPC_COLORING_MIS;

static mispc_gs *make_gs(const mispc_csr *A, mispc_gs_kind kind, mispc_gs_sweep sw, int sweeps,
                         double omega, const char *what) {
  mispc_gs_options o;
  mispc_gs_options_default(&o);
  o.coloring.algo = coloring_algo;
  o.kind = kind;
  o.sweep = sw;
  o.sweeps = sweeps;
  o.omega = omega;
  mispc_gs *g = NULL;
  mispc_status s = mispc_gs_create(ctx, &o, &g);
  if (!s) s = mispc_gs_symbolic(ctx, g, A);
  if (!s) s = mispc_gs_numeric(ctx, g, A);
  CHECK_MSG(s == MISPC_SUCCESS, "%s: setup: %s", what, mispc_context_error(ctx));
  if (s) {
    mispc_gs_destroy(ctx, g);
    return NULL;
  }
  return g;
}

static mispc_csr gen(const char *spec) {
  return generated_graph(ctx, spec, 5);
}

/* Dense SPD n x n matrix B^T B + n I stored as a CSR with all n*n entries. */
static mispc_csr dense_spd(int32_t n) {
  mispc_csr A;
  if (mispc_csr_alloc(ctx, MISPC_MEM_HOST, n, n, (int64_t)n * n, 1, &A)) exit(1);
  double *B = test_rnd_vec(3, 11, (int64_t)n * n);
  for (int32_t i = 0; i < n; ++i) {
    A.rowptr[i + 1] = (int64_t)(i + 1) * n;
    for (int32_t j = 0; j < n; ++j) {
      double s = i == j ? n : 0;
      for (int32_t k = 0; k < n; ++k) s += B[k * n + i] * B[k * n + j];
      A.colidx[(int64_t)i * n + j] = j;
      A.values[(int64_t)i * n + j] = s;
    }
  }
  free(B);
  return A;
}

static mispc_csr diagonal_matrix(int32_t n) {
  mispc_csr A;
  if (mispc_csr_alloc(ctx, MISPC_MEM_HOST, n, n, n, 1, &A)) exit(1);
  for (int32_t i = 0; i < n; ++i) {
    A.rowptr[i + 1] = i + 1;
    A.colidx[i] = i;
    A.values[i] = 0.5 + fabs(test_rnd(4, 11, i)) * 3;
  }
  return A;
}

static const char *sweep_name(mispc_gs_sweep sw) {
  return sw == MISPC_GS_FORWARD ? "forward" : sw == MISPC_GS_BACKWARD ? "backward" : "symmetric";
}

/* mispc_gs_apply against ref_gs in order ord, bit for bit (exact = 1) or to a
 * relative 1e-13 in the max norm. */
static void compare_with_reference(const mispc_csr *A, mispc_gs_kind kind, const int32_t *ord,
                                   int exact, const char *what) {
  int64_t n = A->nrows;
  double *b = test_rnd_vec(21, 11, n), *x0 = test_rnd_vec(22, 11, n);
  mispc_gs_sweep sws[3] = {MISPC_GS_FORWARD, MISPC_GS_BACKWARD, MISPC_GS_SYMMETRIC};
  double omegas[2] = {1.0, 0.8};
  int nsweeps[2] = {1, 3};
  for (int a = 0; a < 3; ++a)
    for (int w = 0; w < 2; ++w)
      for (int k = 0; k < 2; ++k)
        for (int zg = 0; zg <= 1; ++zg) {
          mispc_gs *g = make_gs(A, kind, sws[a], nsweeps[k], omegas[w], what);
          if (!g) continue;
          double *x = copy_vec(x0, n), *xr = copy_vec(x0, n);
          if (zg)
            for (int64_t i = 0; i < n; ++i) x[i] = NAN; /* need not be initialised */
          CHECK_OK(ctx, mispc_gs_apply(ctx, g, A, b, x, zg));
          ref_gs(A, ord, sws[a], nsweeps[k], omegas[w], b, xr, zg);
          double dmax = 0, xmax = 0;
          for (int64_t i = 0; i < n; ++i) {
            dmax = fmax(dmax, fabs(x[i] - xr[i]));
            xmax = fmax(xmax, fabs(xr[i]));
          }
          int same = !memcmp(x, xr, sizeof(double) * (size_t)n);
          if (exact)
            CHECK_MSG(same,
                      "%s %s %s omega %g sweeps %d zero_guess %d: not bit-identical to "
                      "sequential GS (max diff %.3e, max |x| %.3e)",
                      what, kind == MISPC_GS_POINT ? "point" : "cluster", sweep_name(sws[a]),
                      omegas[w], nsweeps[k], zg, dmax, xmax);
          else
            CHECK_MSG(dmax <= 1e-13 * xmax,
                      "%s %s %s omega %g sweeps %d zero_guess %d: max diff %.3e, max |x| %.3e",
                      what, kind == MISPC_GS_POINT ? "point" : "cluster", sweep_name(sws[a]),
                      omegas[w], nsweeps[k], zg, dmax, xmax);
          free(x);
          free(xr);
          mispc_gs_destroy(ctx, g);
        }
  free(b);
  free(x0);
}

/* a. One cluster holding every row in increasing order is plain sequential
 * Gauss-Seidel to rounding (a row's entries are subtracted in another order,
 * gs_row_update.h, gs_update_cluster_row); point GS with one color, and one-row
 * clusters, bit for bit. */
static void test_gs_exact_sequential(void) {
  mispc_csr A = dense_spd(12);
  for (int algo = 0; algo <= 1; ++algo) {
    mispc_gs_options o;
    mispc_gs_options_default(&o);
    o.clusters = algo ? MISPC_AGG_MIS2BASIC : MISPC_AGG_MIS2AGG;
    mispc_gs *g = NULL;
    mispc_gs_info info;
    CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
    CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &A));
    CHECK_OK(ctx, mispc_gs_get_info(g, &info));
    CHECK_MSG(info.nclusters == 1 && info.ncolors == 1 && info.singletons == 0,
              "clique (algo %d): %lld clusters, %d colors, %lld singletons", algo,
              (long long)info.nclusters, info.ncolors, (long long)info.singletons);
    mispc_gs_destroy(ctx, g);
  }
  compare_with_reference(&A, MISPC_GS_CLUSTER, NULL, 0, "dense 12x12 (one cluster)");
  mispc_csr_free(ctx, &A);

  mispc_csr D = diagonal_matrix(40);
  for (int kind = 0; kind <= 1; ++kind) {
    mispc_gs *g = make_gs(&D, (mispc_gs_kind)kind, MISPC_GS_SYMMETRIC, 1, 1.0, "diagonal");
    mispc_gs_info info;
    CHECK_OK(ctx, mispc_gs_get_info(g, &info));
    CHECK_MSG(info.ncolors == 1 && info.nclusters == 40 && info.singletons == 40,
              "diagonal (%s): %d colors, %lld clusters, %lld singletons",
              kind ? "cluster" : "point", info.ncolors, (long long)info.nclusters,
              (long long)info.singletons);
    mispc_gs_destroy(ctx, g);
    compare_with_reference(&D, (mispc_gs_kind)kind, NULL, 1, "diagonal 40x40 (one color)");
  }
  mispc_csr_free(ctx, &D);
}

typedef struct key_item {
  int64_t key1, key2;
  int32_t v;
} key_item;

static int key_cmp(const void *a, const void *b) {
  const key_item *x = (const key_item *)a, *y = (const key_item *)b;
  if (x->key1 != y->key1) return x->key1 < y->key1 ? -1 : 1;
  if (x->key2 != y->key2) return x->key2 < y->key2 ? -1 : 1;
  return (x->v > y->v) - (x->v < y->v);
}

/* The sequence in which multicolor GS visits the rows, rebuilt from the
 * public coloring / aggregation calls: point (color, row); cluster (color of
 * the cluster, cluster, row). Rows of one color share no edge, so GS in this
 * order is what the parallel sweep computes. */
static int32_t *visit_order(const mispc_csr *A, mispc_gs_kind kind, int32_t *ncolors,
                            int64_t *nclusters) {
  int64_t n = A->nrows;
  key_item *it = malloc(sizeof(key_item) * (size_t)(n + 1));
  mispc_coloring_options co;
  mispc_coloring_options_default(&co);
  co.algo = coloring_algo;
  mispc_gs_options go; /* the recoloring passes GS uses by default for this kind */
  mispc_gs_options_default(&go);
  go.kind = kind;
  co.recolor = mispc_gs_recolor_passes(&go);
  CHECK(co.recolor == (kind == MISPC_GS_POINT ? 1 : 2));
  mispc_coloring c;
  if (kind == MISPC_GS_POINT) {
    CHECK_OK(ctx, mispc_color(ctx, A, &co, &c));
    for (int64_t i = 0; i < n; ++i) it[i] = (key_item){c.color[i], 0, (int32_t)i};
    *nclusters = n;
  } else {
    mispc_agg_options ao;
    mispc_agg_options_default(&ao);
    mispc_aggregates ag;
    mispc_csr C;
    CHECK_OK(ctx, mispc_aggregate(ctx, A, &ao, &ag));
    CHECK_OK(ctx, mispc_coarse_graph(ctx, A, &ag, &C));
    CHECK_OK(ctx, mispc_color(ctx, &C, &co, &c));
    for (int64_t i = 0; i < n; ++i) it[i] = (key_item){c.color[ag.agg[i]], ag.agg[i], (int32_t)i};
    *nclusters = ag.naggs;
    mispc_csr_free(ctx, &C);
    mispc_aggregates_free(ctx, &ag);
  }
  *ncolors = c.ncolors;
  mispc_coloring_free(ctx, &c);
  qsort(it, (size_t)n, sizeof(key_item), key_cmp);
  int32_t *ord = malloc(sizeof(int32_t) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; ++i) ord[i] = it[i].v;
  free(it);
  return ord;
}

/* a (general). On mesh matrices the multicolor sweeps are sequential GS in
 * the color order: checked to a relative 1e-13. */
static void test_gs_equals_sequential_in_color_order(void) {
  const char *specs[] = {"gen:laplace2d:20", "gen:elasticity3d:3", "gen:aniso2d:15:0.001:30"};
  for (size_t s = 0; s < sizeof specs / sizeof *specs; ++s) {
    mispc_csr A = gen(specs[s]);
    for (int kind = 0; kind <= 1; ++kind) {
      int32_t nc;
      int64_t ncl;
      int32_t *ord = visit_order(&A, (mispc_gs_kind)kind, &nc, &ncl);
      mispc_gs *g = make_gs(&A, (mispc_gs_kind)kind, MISPC_GS_SYMMETRIC, 1, 1.0, specs[s]);
      mispc_gs_info info;
      CHECK_OK(ctx, mispc_gs_get_info(g, &info));
      CHECK_MSG(info.ncolors == nc && info.nclusters == ncl,
                "%s %s: info %d colors %lld clusters, public calls give %d and %lld", specs[s],
                kind ? "cluster" : "point", info.ncolors, (long long)info.nclusters, nc,
                (long long)ncl);
      mispc_gs_destroy(ctx, g);
      compare_with_reference(&A, (mispc_gs_kind)kind, ord, 0, specs[s]);
      free(ord);
    }
    mispc_csr_free(ctx, &A);
  }
}

static double energy_error(const mispc_csr *A, const double *x, const double *xs, double *tmp,
                           double *tmp2) {
  int64_t n = A->nrows;
  for (int64_t i = 0; i < n; ++i) tmp[i] = x[i] - xs[i];
  spmv(A, tmp, tmp2);
  return dot(tmp, tmp2, n);
}

/* b. Every forward or symmetric sweep lowers ||x - x*||_A on SPD matrices. */
static void test_gs_energy_decreases(void) {
  const char *specs[] = {"gen:laplace2d:40", "gen:laplace3d:12", "gen:elasticity3d:4",
                         "gen:aniso2d:30:0.001:30", "laplacian(gen:random:3000:6) + 0.1 I"};
  for (size_t s = 0; s < sizeof specs / sizeof *specs; ++s) {
    mispc_csr A;
    if (s == 4) {
      mispc_csr G = gen("gen:random:3000:6");
      CHECK_OK(ctx, mispc_laplacian_from_graph(ctx, &G, 0.1, &A));
      mispc_csr_free(ctx, &G);
    } else {
      A = gen(specs[s]);
    }
    int64_t n = A.nrows;
    double *xs = test_rnd_vec(31, 11, n), *b = malloc(sizeof(double) * (size_t)n);
    double *t1 = malloc(sizeof(double) * (size_t)n), *t2 = malloc(sizeof(double) * (size_t)n);
    spmv(&A, xs, b);
    for (int kind = 0; kind <= 1; ++kind)
      for (int sym = 0; sym <= 1; ++sym)
        for (int w = 0; w < 2; ++w) {
          double omega = w ? 1.2 : 1.0;
          mispc_gs *g = make_gs(&A, (mispc_gs_kind)kind,
                                sym ? MISPC_GS_SYMMETRIC : MISPC_GS_FORWARD, 1, omega, specs[s]);
          if (!g) continue;
          double *x = calloc((size_t)n, sizeof(double));
          double e0 = energy_error(&A, x, xs, t1, t2), e = e0;
          int ok = 1;
          for (int it = 0; it < 5; ++it) {
            CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, x, 0));
            double en = energy_error(&A, x, xs, t1, t2);
            if (!(en < e)) {
              ok = 0;
              fprintf(stderr, "  %s %s %s omega %g sweep %d: ||e||_A^2 %.17g -> %.17g\n", specs[s],
                      kind ? "cluster" : "point", sym ? "symmetric" : "forward", omega, it + 1, e,
                      en);
            }
            e = en;
          }
          CHECK_MSG(ok, "%s %s %s omega %g: A-norm error not strictly decreasing", specs[s],
                    kind ? "cluster" : "point", sym ? "symmetric" : "forward", omega);
          printf("  %-38s %-7s %-9s omega %.1f  ||e||_A after 5 / before: %.3e\n", specs[s],
                 kind ? "cluster" : "point", sym ? "symmetric" : "forward", omega, sqrt(e / e0));
          free(x);
          mispc_gs_destroy(ctx, g);
        }
    free(xs);
    free(b);
    free(t1);
    free(t2);
    mispc_csr_free(ctx, &A);
  }
}

/* c. One symmetric sweep from zero is a symmetric operator (SGS and SSOR). */
static void test_gs_symmetric_operator(void) {
  const char *specs[] = {"gen:laplace3d:10", "gen:elasticity3d:3"};
  for (size_t s = 0; s < 2; ++s) {
    mispc_csr A = gen(specs[s]);
    int64_t n = A.nrows;
    double *x = test_rnd_vec(41, 11, n), *y = test_rnd_vec(42, 11, n);
    double *mx = malloc(sizeof(double) * (size_t)n), *my = malloc(sizeof(double) * (size_t)n);
    for (int kind = 0; kind <= 1; ++kind)
      for (int w = 0; w < 2; ++w) {
        double omega = w ? 1.3 : 1.0;
        mispc_gs *g = make_gs(&A, (mispc_gs_kind)kind, MISPC_GS_SYMMETRIC, 1, omega, specs[s]);
        if (!g) continue;
        CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, x, mx, 1));
        CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, y, my, 1));
        double a = dot(x, my, n), c = dot(mx, y, n);
        double rel = fabs(a - c) / fmax(fabs(a), fabs(c));
        CHECK_MSG(rel <= 1e-12, "%s %s omega %g: <x, My> = %.17g, <Mx, y> = %.17g (rel %.2e)",
                  specs[s], kind ? "cluster" : "point", omega, a, c, rel);
        /* and positive definite */
        CHECK_MSG(dot(x, mx, n) > 0, "%s: <x, Mx> <= 0", specs[s]);
        printf("  %-20s %-7s omega %.1f  symmetry rel %.2e\n", specs[s], kind ? "cluster" : "point",
               omega, rel);
        mispc_gs_destroy(ctx, g);
      }
    free(x);
    free(y);
    free(mx);
    free(my);
    mispc_csr_free(ctx, &A);
  }
}

/* Setup with a given handle (symbolic + numeric already done) vs a fresh one. */
static void check_numeric_only_equals_fresh(mispc_gs *g, const mispc_csr *A, mispc_gs_kind kind,
                                            const double *b, const double *x0, const char *what) {
  int64_t n = A->nrows;
  double *x1 = copy_vec(x0, n), *x2 = copy_vec(x0, n);
  CHECK_OK(ctx, mispc_gs_numeric(ctx, g, A));
  CHECK_OK(ctx, mispc_gs_apply(ctx, g, A, b, x1, 0));
  mispc_gs *f = make_gs(A, kind, MISPC_GS_SYMMETRIC, 2, 1.0, what);
  if (f) CHECK_OK(ctx, mispc_gs_apply(ctx, f, A, b, x2, 0));
  CHECK_MSG(!memcmp(x1, x2, sizeof(double) * (size_t)n),
            "%s %s: numeric-only setup differs from a fresh setup", what,
            kind ? "cluster" : "point");
  mispc_gs_destroy(ctx, f);
  free(x1);
  free(x2);
}

/* d. mispc_gs_numeric alone picks up new values on the same pattern. */
static void test_gs_setup_split(void) {
  const char *specs[] = {"gen:laplace3d:12", "gen:elasticity3d:3"};
  for (size_t s = 0; s < 2; ++s)
    for (int kind = 0; kind <= 1; ++kind) {
      mispc_csr A = gen(specs[s]);
      int64_t n = A.nrows;
      double *b = test_rnd_vec(51, 11, n), *x0 = test_rnd_vec(52, 11, n);
      mispc_gs *g = make_gs(&A, (mispc_gs_kind)kind, MISPC_GS_SYMMETRIC, 2, 1.0, specs[s]);
      if (!g) continue;
      double *xa = copy_vec(x0, n);
      CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, xa, 1));
      /* values * 2: iterates from zero are exactly halved */
      for (int64_t p = 0; p < A.nnz; ++p) A.values[p] *= 2;
      double *xb = copy_vec(x0, n);
      CHECK_OK(ctx, mispc_gs_numeric(ctx, g, &A));
      CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, xb, 1));
      int halved = 1;
      for (int64_t i = 0; i < n; ++i) halved &= xb[i] == 0.5 * xa[i];
      CHECK_MSG(halved, "%s: A*2 after numeric only: x is not exactly x/2", specs[s]);
      check_numeric_only_equals_fresh(g, &A, (mispc_gs_kind)kind, b, x0, specs[s]);
      /* a non-uniform change: diagonal + 1 and off-diagonals * 0.7 */
      for (int64_t i = 0; i < n; ++i)
        for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p)
          A.values[p] = A.colidx[p] == i ? A.values[p] + 1 : A.values[p] * 0.7;
      check_numeric_only_equals_fresh(g, &A, (mispc_gs_kind)kind, b, x0, specs[s]);
      mispc_gs_destroy(ctx, g);
      free(b);
      free(x0);
      free(xa);
      free(xb);
      mispc_csr_free(ctx, &A);
    }
}

/* e. Colors and clusters. */
static void test_gs_info(void) {
  mispc_csr A = gen("gen:laplace2d:40");
  mispc_gs *g = make_gs(&A, MISPC_GS_POINT, MISPC_GS_SYMMETRIC, 1, 1.0, "laplace2d point");
  mispc_gs_info info;
  CHECK_OK(ctx, mispc_gs_get_info(g, &info));
  CHECK_MSG(info.ncolors >= 2 && info.nclusters == A.nrows && info.singletons == A.nrows,
            "point laplace2d:40: %d colors, %lld clusters, %lld singletons", info.ncolors,
            (long long)info.nclusters, (long long)info.singletons);
  CHECK(info.symbolic_seconds >= 0 && info.numeric_seconds >= 0);
  mispc_gs_destroy(ctx, g);
  mispc_csr_free(ctx, &A);

  A = gen("gen:laplace3d:12");
  g = make_gs(&A, MISPC_GS_CLUSTER, MISPC_GS_SYMMETRIC, 1, 1.0, "laplace3d cluster");
  CHECK_OK(ctx, mispc_gs_get_info(g, &info));
  CHECK_MSG(info.nclusters < A.nrows && info.nclusters >= 1 && info.ncolors >= 2 &&
                info.singletons == 0,
            "cluster laplace3d:12: %d colors, %lld clusters, %lld singletons", info.ncolors,
            (long long)info.nclusters, (long long)info.singletons);
  mispc_gs_destroy(ctx, g);
  mispc_csr_free(ctx, &A);

  const char *specs[] = {"gen:laplace2d:40", "gen:laplace3d:12", "gen:elasticity3d:4",
                         "gen:aniso2d:30:0.001:30"};
  for (size_t s = 0; s < 4; ++s) {
    A = gen(specs[s]);
    for (int kind = 0; kind <= 1; ++kind) {
      g = make_gs(&A, (mispc_gs_kind)kind, MISPC_GS_SYMMETRIC, 1, 1.0, specs[s]);
      if (!g) continue;
      CHECK_OK(ctx, mispc_gs_get_info(g, &info));
      printf("  %-26s %-7s rows %6lld  colors %3d  clusters %6lld  singletons %lld\n", specs[s],
             kind ? "cluster" : "point", (long long)A.nrows, info.ncolors,
             (long long)info.nclusters, (long long)info.singletons);
      mispc_gs_destroy(ctx, g);
    }
    mispc_csr_free(ctx, &A);
  }
}

/* Position of a_ii in row i, or -1. */
static int64_t diag_pos(const mispc_csr *A, int64_t i) {
  for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
    if (A->colidx[p] == i) return p;
  return -1;
}

static void expect_numeric_error(mispc_gs *g, const mispc_csr *A, const char *row,
                                 const char *what) {
  mispc_status s = mispc_gs_numeric(ctx, g, A);
  const char *msg = mispc_context_error(ctx);
  printf("  %-24s -> %s: %s\n", what, mispc_strerror(s), msg);
  CHECK_MSG(s == MISPC_ERR_INVALID_ARG, "%s: numeric returned %s", what, mispc_strerror(s));
  CHECK_MSG(strstr(msg, row) != NULL, "%s: message \"%s\" does not name \"%s\"", what, msg, row);
}

/* f. Error paths. */
/* One symmetric apply from x = 0 of handle g (set up on A). */
static double *apply_once(mispc_gs *g, const mispc_csr *A) {
  double *b = test_rnd_vec(29, 5, A->nrows), *x = calloc((size_t)A->nrows + 1, sizeof(double));
  CHECK_OK(ctx, mispc_gs_numeric(ctx, g, A));
  CHECK_OK(ctx, mispc_gs_apply(ctx, g, A, b, x, 1));
  free(b);
  return x;
}

/* The automatic options (strength_threshold < 0, line_clusters and
 * block_solve MISPC_GS_AUTO) resolve at each symbolic setup to what
 * mispc_strength_auto says, and then act as those options given by hand. */
static void test_gs_auto_options(void) {
  mispc_gs_options o, e;
  mispc_gs_options_default(&o);
  o.strength_threshold = -1;
  o.line_clusters = o.block_solve = MISPC_GS_AUTO;
  mispc_gs *g = NULL, *h = NULL;
  mispc_gs_info info;
  double th, w;
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
  /* strongly anisotropic: lines solved exactly, as the same options by hand */
  mispc_csr A = gen("gen:aniso2d:40:0.001");
  CHECK_OK(ctx, mispc_strength_auto(ctx, &A, &th, &w));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &A));
  CHECK_OK(ctx, mispc_gs_get_info(g, &info));
  CHECK_MSG(info.strength_threshold == th && info.auto_theta == th && info.auto_weak_max == w &&
                info.block_size == 1 && info.line_clusters == 1 && info.block_solve == 1 &&
                info.nclusters == 40,
            "aniso2d:40 auto: threshold %g (auto %g, weak %g), block size %d, lines %d, block "
            "solves %d, %lld clusters",
            info.strength_threshold, info.auto_theta, info.auto_weak_max, info.block_size,
            info.line_clusters, info.block_solve, (long long)info.nclusters);
  mispc_gs_options_default(&e);
  e.strength_threshold = th;
  e.line_clusters = e.block_solve = 1;
  CHECK_OK(ctx, mispc_gs_create(ctx, &e, &h));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, h, &A));
  double *xa = apply_once(g, &A), *xe = apply_once(h, &A);
  CHECK_MSG(!memcmp(xa, xe, sizeof(double) * (size_t)A.nrows),
            "aniso2d:40: automatic options and the same by hand differ");
  free(xa), free(xe);
  mispc_gs_destroy(ctx, h);
  /* the same handle on an isotropic matrix: threshold 0, no lines, no block
   * solves, the default clusters */
  mispc_csr L = gen("gen:laplace3d:8");
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &L));
  CHECK_OK(ctx, mispc_gs_get_info(g, &info));
  CHECK_MSG(info.strength_threshold == 0 && info.auto_weak_max == -1 && info.line_clusters == 0 &&
                info.block_solve == 0,
            "laplace3d:8 auto: threshold %g weak %g lines %d block solves %d",
            info.strength_threshold, info.auto_weak_max, info.line_clusters, info.block_solve);
  mispc_gs_options_default(&e);
  CHECK_OK(ctx, mispc_gs_create(ctx, &e, &h));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, h, &L));
  xa = apply_once(g, &L), xe = apply_once(h, &L);
  CHECK_MSG(!memcmp(xa, xe, sizeof(double) * (size_t)L.nrows),
            "laplace3d:8: automatic options and the defaults differ");
  free(xa), free(xe);
  mispc_gs_destroy(ctx, h);
  mispc_gs_destroy(ctx, g);
  /* elasticity (nodes of 3): weak couplings, not strongly anisotropic:
   * the threshold on rows, no lines, no block solves */
  mispc_csr E = gen("gen:elasticity3d:3");
  o.block_size = 3;
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &E));
  CHECK_OK(ctx, mispc_strength_auto(ctx, &E, &th, &w));
  CHECK_OK(ctx, mispc_gs_get_info(g, &info));
  CHECK_MSG(info.strength_threshold == th && w > MISPC_GS_ANISOTROPIC * th &&
                info.block_size == 1 && info.line_clusters == 0 && info.block_solve == 0,
            "elasticity3d:3 auto: threshold %g (auto %g, weak %g) block size %d lines %d block "
            "solves %d",
            info.strength_threshold, th, w, info.block_size, info.line_clusters, info.block_solve);
  mispc_gs_destroy(ctx, g);
  /* MISPC_GS_THETA_ANISOTROPIC (clustergs' default): the same matrix's weak
   * couplings (0.75 of the threshold) stand apart from it, so the threshold
   * on rows as well; aniso2d:40:0.65's weak couplings run on up to it
   * (0.975 of it): threshold 0 on the nodes asked for; aniso2d gets the
   * threshold on rows, lines and block solves */
  o.strength_threshold = MISPC_GS_THETA_ANISOTROPIC;
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &E));
  CHECK_OK(ctx, mispc_gs_get_info(g, &info));
  CHECK_MSG(info.strength_threshold == th && w <= MISPC_GS_WEAK_APART * th &&
                info.block_size == 1 && info.auto_theta == th && info.line_clusters == 0 &&
                info.block_solve == 0,
            "elasticity3d:3 default auto: threshold %g (auto %g, weak %g) block size %d lines %d "
            "block solves %d",
            info.strength_threshold, th, w, info.block_size, info.line_clusters, info.block_solve);
  mispc_csr N = gen("gen:aniso2d:40:0.65");
  o.block_size = 2;
  mispc_gs_destroy(ctx, g);
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &N));
  CHECK_OK(ctx, mispc_strength_auto(ctx, &N, &th, &w));
  CHECK_OK(ctx, mispc_gs_get_info(g, &info));
  CHECK_MSG(w > MISPC_GS_WEAK_APART * th && w <= th && info.strength_threshold == 0 &&
                info.block_size == 2 && info.line_clusters == 0 && info.block_solve == 0,
            "aniso2d:40:0.65 default auto: threshold %g (auto %g, weak %g) block size %d lines %d "
            "block solves %d",
            info.strength_threshold, th, w, info.block_size, info.line_clusters, info.block_solve);
  mispc_csr_free(ctx, &N);
  o.block_size = 3;
  CHECK_OK(ctx, mispc_strength_auto(ctx, &A, &th, &w));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &A));
  CHECK_OK(ctx, mispc_gs_get_info(g, &info));
  CHECK(info.strength_threshold == th && info.block_size == 1 && info.line_clusters == 1 &&
        info.block_solve == 1);
  mispc_gs_destroy(ctx, g);
  o.strength_threshold = MISPC_GS_THETA_AUTO;
  /* omega != 1: block solves stay off where chosen automatically */
  o.block_size = 1;
  o.omega = 1.2;
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &A));
  CHECK_OK(ctx, mispc_gs_get_info(g, &info));
  CHECK(info.line_clusters == 1 && info.block_solve == 0);
  mispc_gs_destroy(ctx, g);
  /* out of range */
  o.omega = 1;
  o.block_solve = 2;
  CHECK_STATUS(ctx, mispc_gs_create(ctx, &o, &g), MISPC_ERR_INVALID_ARG);
  o.block_solve = MISPC_GS_AUTO;
  o.line_clusters = -2;
  CHECK_STATUS(ctx, mispc_gs_create(ctx, &o, &g), MISPC_ERR_INVALID_ARG);
  o.line_clusters = MISPC_GS_AUTO;
  const double bad[] = {NAN, INFINITY, -0.5, -3};
  for (int k = 0; k < 4; ++k) {
    o.strength_threshold = bad[k];
    CHECK_STATUS(ctx, mispc_gs_create(ctx, &o, &g), MISPC_ERR_INVALID_ARG);
  }
  mispc_csr_free(ctx, &A);
  mispc_csr_free(ctx, &L);
  mispc_csr_free(ctx, &E);
}

static void test_gs_errors(void) {
  mispc_gs_options o;
  mispc_gs_options_default(&o);
  CHECK(o.kind == MISPC_GS_CLUSTER && o.sweep == MISPC_GS_SYMMETRIC && o.sweeps == 1 &&
        o.omega == 1.0 && o.clusters == MISPC_AGG_MIS2AGG && o.require_positive_diagonal == 0);
  mispc_gs *g = NULL;
  mispc_csr A = gen("gen:laplace2d:10");
  int64_t n = A.nrows, p37 = diag_pos(&A, 37);
  double d37 = A.values[p37];
  double *b = test_rnd_vec(61, 11, n), *x = calloc((size_t)n, sizeof(double));

  /* apply before symbolic / numeric */
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
  CHECK_STATUS(ctx, mispc_gs_apply(ctx, g, &A, b, x, 1), MISPC_ERR_INVALID_ARG);
  CHECK(mispc_gs_numeric(ctx, g, &A) != MISPC_SUCCESS);
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &A));
  CHECK_STATUS(ctx, mispc_gs_apply(ctx, g, &A, b, x, 1), MISPC_ERR_INVALID_ARG);

  /* zero, NaN, infinite and negative diagonals */
  A.values[p37] = 0.0;
  expect_numeric_error(g, &A, "row 37", "zero diagonal");
  CHECK_STATUS(ctx, mispc_gs_apply(ctx, g, &A, b, x, 1), MISPC_ERR_INVALID_ARG);
  A.values[p37] = NAN;
  expect_numeric_error(g, &A, "row 37", "NaN diagonal");
  A.values[p37] = INFINITY;
  expect_numeric_error(g, &A, "row 37", "infinite diagonal");
  A.values[p37] = 1e-310; /* subnormal: omega / a_ii overflows */
  expect_numeric_error(g, &A, "row 37", "subnormal diagonal");
  A.values[p37] = -d37;
  CHECK_OK(ctx, mispc_gs_numeric(ctx, g, &A));
  CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, x, 1));
  mispc_gs_destroy(ctx, g);
  o.require_positive_diagonal = 1;
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &A));
  expect_numeric_error(g, &A, "row 37", "negative diagonal (SPD)");
  A.values[p37] = d37;
  CHECK_OK(ctx, mispc_gs_numeric(ctx, g, &A));

  /* NULL vectors and handles */
  CHECK_STATUS(ctx, mispc_gs_apply(ctx, g, &A, NULL, x, 0), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gs_apply(ctx, g, &A, b, NULL, 0), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gs_apply(ctx, g, &A, b, NULL, 1), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gs_apply(ctx, NULL, &A, b, x, 0), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gs_apply(ctx, g, NULL, b, x, 0), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gs_symbolic(ctx, NULL, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gs_symbolic(ctx, g, NULL), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gs_numeric(ctx, NULL, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gs_create(ctx, &o, NULL), MISPC_ERR_INVALID_ARG);
  CHECK(mispc_gs_get_info(NULL, NULL) == MISPC_ERR_INVALID_ARG);
  CHECK(mispc_gs_get_info(g, NULL) == MISPC_ERR_INVALID_ARG);
  mispc_gs_destroy(ctx, NULL);

  /* a matrix other than the one of the symbolic setup */
  mispc_csr A11 = gen("gen:laplace2d:11");
  CHECK_STATUS(ctx, mispc_gs_numeric(ctx, g, &A11), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_gs_apply(ctx, g, &A11, b, x, 0), MISPC_ERR_INVALID_ARG);
  mispc_csr_free(ctx, &A11);
  /* a pattern without values */
  mispc_csr P;
  mispc_csr_wrap(MISPC_MEM_HOST, A.nrows, A.ncols, A.nnz, A.rowptr, A.colidx, NULL, &P);
  CHECK(mispc_gs_numeric(ctx, g, &P) != MISPC_SUCCESS);
  CHECK(mispc_gs_symbolic(ctx, g, &P) != MISPC_SUCCESS);
  mispc_gs_destroy(ctx, g);

  /* bad options */
  double bad_omega[4] = {0.0, -1.0, 2.0, 2.5};
  for (int k = 0; k < 4; ++k) {
    mispc_gs_options_default(&o);
    o.omega = bad_omega[k];
    g = (mispc_gs *)&o; /* must be reset to NULL */
    CHECK_STATUS(ctx, mispc_gs_create(ctx, &o, &g), MISPC_ERR_INVALID_ARG);
    CHECK(g == NULL);
  }
  mispc_gs_options_default(&o);
  o.sweeps = 0;
  CHECK_STATUS(ctx, mispc_gs_create(ctx, &o, &g), MISPC_ERR_INVALID_ARG);
  o.sweeps = -3;
  CHECK_STATUS(ctx, mispc_gs_create(ctx, &o, &g), MISPC_ERR_INVALID_ARG);
  mispc_gs_options_default(&o);
  o.coloring.recolor = 65;
  CHECK_STATUS(ctx, mispc_gs_create(ctx, &o, &g), MISPC_ERR_INVALID_ARG);
  CHECK(strstr(mispc_context_error(ctx), "recolor") != NULL);
  o.coloring.recolor = -2;
  CHECK_STATUS(ctx, mispc_gs_create(ctx, &o, &g), MISPC_ERR_INVALID_ARG);
  mispc_gs_options_default(&o);
  o.omega = 1.999;
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
  mispc_gs_destroy(ctx, g);
  CHECK_OK(ctx, mispc_gs_create(ctx, NULL, &g)); /* defaults */
  mispc_gs_destroy(ctx, g);

  /* missing diagonal entry (1, 1): error at numeric naming row 1 */
  for (int kind = 0; kind <= 1; ++kind) {
    int64_t rp[4] = {0, 3, 5, 8};
    int32_t ci[8] = {0, 1, 2, 0, 2, 0, 1, 2};
    double va[8] = {4, -1, -1, -1, -1, -1, -1, 4};
    mispc_csr M;
    mispc_csr_wrap(MISPC_MEM_HOST, 3, 3, 8, rp, ci, va, &M);
    mispc_gs_options_default(&o);
    o.kind = (mispc_gs_kind)kind;
    CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
    CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &M));
    expect_numeric_error(g, &M, "row 1", kind ? "missing diagonal (cluster)" : "missing diagonal");
    mispc_gs_destroy(ctx, g);
  }

  /* non-square and unsymmetric patterns: error at symbolic */
  {
    int64_t rp[3] = {0, 2, 4};
    int32_t ci[4] = {0, 1, 1, 2};
    double va[4] = {2, -1, 2, -1};
    mispc_csr R;
    mispc_csr_wrap(MISPC_MEM_HOST, 2, 3, 4, rp, ci, va, &R);
    CHECK_OK(ctx, mispc_gs_create(ctx, NULL, &g));
    mispc_status s = mispc_gs_symbolic(ctx, g, &R);
    printf("  %-24s -> %s: %s\n", "non-square", mispc_strerror(s), mispc_context_error(ctx));
    CHECK_MSG(s != MISPC_SUCCESS, "non-square matrix accepted by symbolic");
    mispc_gs_destroy(ctx, g);
  }
  for (int kind = 0; kind <= 1; ++kind) {
    int64_t rp[4] = {0, 2, 3, 4};
    int32_t ci[4] = {0, 1, 1, 2};
    double va[4] = {2, -1, 2, 2};
    mispc_csr U;
    mispc_csr_wrap(MISPC_MEM_HOST, 3, 3, 4, rp, ci, va, &U);
    mispc_gs_options_default(&o);
    o.kind = (mispc_gs_kind)kind;
    CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
    CHECK_STATUS(ctx, mispc_gs_symbolic(ctx, g, &U), MISPC_ERR_UNSYMMETRIC);
    printf("  %-24s -> %s\n", "unsymmetric", mispc_context_error(ctx));
    CHECK_STATUS(ctx, mispc_gs_apply(ctx, g, &U, b, x, 1), MISPC_ERR_INVALID_ARG);
    mispc_gs_destroy(ctx, g);
  }
  free(b);
  free(x);
  mispc_csr_free(ctx, &A);
}

/* g. Bit-identical results for 1 and 2 threads (setup and apply). */
static void test_gs_deterministic_across_threads(void) {
  const char *specs[] = {"gen:laplace3d:14", "gen:elasticity3d:4", "gen:aniso2d:40:0.001:30"};
  for (size_t s = 0; s < 3; ++s) {
    mispc_csr A = gen(specs[s]);
    int64_t n = A.nrows;
    double *b = test_rnd_vec(71, 11, n), *x0 = test_rnd_vec(72, 11, n);
    for (int kind = 0; kind <= 1; ++kind)
      for (int zg = 0; zg <= 1; ++zg) {
        double *x[2];
        mispc_gs_info info[2];
        for (int t = 0; t < 2; ++t) {
          mispc_context_set_num_threads(ctx, t + 1);
          x[t] = copy_vec(x0, n);
          mispc_gs *g = make_gs(&A, (mispc_gs_kind)kind, MISPC_GS_SYMMETRIC, 2, 1.2, specs[s]);
          if (!g) continue;
          CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, x[t], zg));
          CHECK_OK(ctx, mispc_gs_get_info(g, &info[t]));
          mispc_gs_destroy(ctx, g);
        }
        mispc_context_set_num_threads(ctx, 0);
        CHECK_MSG(!memcmp(x[0], x[1], sizeof(double) * (size_t)n) &&
                      info[0].ncolors == info[1].ncolors && info[0].nclusters == info[1].nclusters,
                  "%s %s zero_guess %d: 1 and 2 threads differ", specs[s],
                  kind ? "cluster" : "point", zg);
        free(x[0]);
        free(x[1]);
      }
    free(b);
    free(x0);
    mispc_csr_free(ctx, &A);
  }
}

/* sweeps = k is k applies of one sweep. */
static void test_gs_sweeps_compose(void) {
  mispc_csr A = gen("gen:laplace3d:10");
  int64_t n = A.nrows;
  double *b = test_rnd_vec(81, 11, n), *x0 = test_rnd_vec(82, 11, n);
  for (int kind = 0; kind <= 1; ++kind)
    for (int sw = 0; sw < 3; ++sw) {
      mispc_gs *g3 = make_gs(&A, (mispc_gs_kind)kind, (mispc_gs_sweep)sw, 3, 1.1, "sweeps 3");
      mispc_gs *g1 = make_gs(&A, (mispc_gs_kind)kind, (mispc_gs_sweep)sw, 1, 1.1, "sweeps 1");
      if (!g1 || !g3) continue;
      double *xa = copy_vec(x0, n), *xb = copy_vec(x0, n);
      CHECK_OK(ctx, mispc_gs_apply(ctx, g3, &A, b, xa, 0));
      for (int k = 0; k < 3; ++k) CHECK_OK(ctx, mispc_gs_apply(ctx, g1, &A, b, xb, 0));
      CHECK_MSG(!memcmp(xa, xb, sizeof(double) * (size_t)n), "%s %s: 3 sweeps != 3 x 1 sweep",
                kind ? "cluster" : "point", sweep_name((mispc_gs_sweep)sw));
      free(xa);
      free(xb);
      mispc_gs_destroy(ctx, g1);
      mispc_gs_destroy(ctx, g3);
    }
  free(b);
  free(x0);
  mispc_csr_free(ctx, &A);
}

/* Cluster GS on the strength graph of nodes (block_size rows each): clusters
 * hold whole nodes, no singletons, the A-norm error still falls every sweep;
 * a block size that does not divide the rows is an error. */
static void test_gs_node_clusters(void) {
  mispc_csr A = gen("gen:elasticity3d:6");
  const int64_t n = A.nrows;
  double *xs = test_rnd_vec(5, 11, n), *b = malloc(sizeof(double) * (size_t)n);
  double *t1 = malloc(sizeof(double) * (size_t)n), *t2 = malloc(sizeof(double) * (size_t)n);
  spmv(&A, xs, b);
  const double thetas[] = {0.0, 0.02};
  for (int t = 0; t < 2; ++t) {
    mispc_gs_options o;
    mispc_gs_options_default(&o);
    o.block_size = 3;
    o.strength_threshold = thetas[t];
    mispc_gs *g = NULL;
    CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
    CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &A));
    CHECK_OK(ctx, mispc_gs_numeric(ctx, g, &A));
    mispc_gs_info info, row_info;
    CHECK_OK(ctx, mispc_gs_get_info(g, &info));
    CHECK_MSG(info.singletons == 0 && info.min_cluster >= 3 && info.min_cluster % 3 == 0 &&
                  info.max_cluster % 3 == 0,
              "theta %g: singletons %lld, rows per cluster %lld .. %lld", thetas[t],
              (long long)info.singletons, (long long)info.min_cluster, (long long)info.max_cluster);
    /* dof-level clusters for comparison: node clusters are fewer */
    mispc_gs *gr = make_gs(&A, MISPC_GS_CLUSTER, MISPC_GS_SYMMETRIC, 1, 1.0, "dof clusters");
    if (gr) {
      CHECK_OK(ctx, mispc_gs_get_info(gr, &row_info));
      CHECK_MSG(t > 0 || info.nclusters < row_info.nclusters,
                "node clusters %lld, dof clusters %lld", (long long)info.nclusters,
                (long long)row_info.nclusters);
      mispc_gs_destroy(ctx, gr);
    }
    double *x = calloc((size_t)n, sizeof(double));
    double e = energy_error(&A, x, xs, t1, t2);
    for (int it = 0; it < 4; ++it) {
      CHECK_OK(ctx, mispc_gs_apply(ctx, g, &A, b, x, 0));
      double en = energy_error(&A, x, xs, t1, t2);
      CHECK_MSG(en < e, "theta %g sweep %d: ||e||_A^2 %.17g -> %.17g", thetas[t], it + 1, e, en);
      e = en;
    }
    printf(
        "  elasticity3d:6 node clusters, theta %.2f: %lld clusters (%lld..%lld rows), %d colors\n",
        thetas[t], (long long)info.nclusters, (long long)info.min_cluster,
        (long long)info.max_cluster, info.ncolors);
    free(x);
    mispc_gs_destroy(ctx, g);
  }
  mispc_gs_options o;
  mispc_gs_options_default(&o);
  o.block_size = 5; /* 648 rows: not divisible */
  mispc_gs *g = NULL;
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
  CHECK_STATUS(ctx, mispc_gs_symbolic(ctx, g, &A), MISPC_ERR_INVALID_ARG);
  CHECK(strstr(mispc_context_error(ctx), "does not divide") != NULL);
  mispc_gs_destroy(ctx, g);
  o.block_size = 0;
  g = NULL;
  CHECK_STATUS(ctx, mispc_gs_create(ctx, &o, &g), MISPC_ERR_INVALID_ARG);
  CHECK(g == NULL);
  free(xs);
  free(b);
  free(t1);
  free(t2);
  mispc_csr_free(ctx, &A);
}

/* With greedy colors: the sweep still equals sequential GS in color order, lowers
 * the A-norm error and is symmetric; and it uses fewer colors here. */
static void test_gs_greedy_coloring(void) {
  coloring_algo = MISPC_COLORING_GREEDY;
  test_gs_equals_sequential_in_color_order();
  test_gs_energy_decreases();
  test_gs_symmetric_operator();
  mispc_csr A = gen("gen:laplace3d:12");
  mispc_gs *g = make_gs(&A, MISPC_GS_POINT, MISPC_GS_SYMMETRIC, 1, 1.0, "greedy laplace3d");
  mispc_gs_info info;
  if (g) {
    CHECK_OK(ctx, mispc_gs_get_info(g, &info));
    CHECK_MSG(info.ncolors == 2, "greedy point GS on a 7-point grid: %d colors", info.ncolors);
  }
  mispc_gs_destroy(ctx, g);
  mispc_csr_free(ctx, &A);
  coloring_algo = MISPC_COLORING_MIS;
}

/* The row-by-row sweep the host and GPU agree on (gs_row_update.h, gs_update_row
 * and gs_update_cluster_row), written plainly from the documented order and
 * the setup's orderings (order, color_ptr, cl_ptr, cl_rows, row_cluster):
 * the reference of the host's sweep-ordered copy. */
static double ref_tree32(double a[32]) { /* a[l] + a[l + h], h = 16 .. 1 */
  for (int h = 16; h >= 1; h /= 2)
    for (int l = 0; l < h; ++l) a[l] = a[l] + a[l + h];
  return a[0];
}

/* s minus the products of row entries ps[0 .. m-1] (places in A) in chunks
 * of 32, each a fixed tree, zeros after the end */
static double ref_chunks(const mispc_csr *A, const double *x, double s, const int64_t *ps,
                         int64_t m) {
  for (int64_t k0 = 0; k0 < m; k0 += 32) {
    double a[32];
    for (int l = 0; l < 32; ++l)
      a[l] = k0 + l < m ? mul_rn(A->values[ps[k0 + l]], x[A->colidx[ps[k0 + l]]]) : 0.0;
    s = s - ref_tree32(a);
  }
  return s;
}

/* the entries of earlier colors (storage order), then the others (storage
 * order); rows over 32 entries: each part in chunks */
static void ref_point_row(const mispc_csr *A, const int32_t *color, const double *w,
                          const double *b, double *x, int64_t i) {
  const int64_t rb = A->rowptr[i], re = A->rowptr[i + 1];
  int64_t ps[2][512], m[2] = {0, 0};
  CHECK(re - rb <= 512);
  for (int64_t p = rb; p < re && p - rb < 512; ++p) {
    const int part = color[A->colidx[p]] < color[i] ? 0 : 1;
    ps[part][m[part]++] = p;
  }
  double s = b[i];
  if (re - rb <= 32) {
    for (int part = 0; part < 2; ++part)
      for (int64_t k = 0; k < m[part]; ++k)
        s = s - mul_rn(A->values[ps[part][k]], x[A->colidx[ps[part][k]]]);
  } else {
    s = ref_chunks(A, x, s, ps[0], m[0]);
    s = ref_chunks(A, x, s, ps[1], m[1]);
  }
  x[i] = x[i] + mul_rn(s, w[i]);
}

/* forward: outside of earlier colors, the diagonal and outside of later
 * colors, later rows of the cluster (storage order), then earlier rows
 * increasing; backward: outside of earlier colors, earlier rows, the
 * diagonal and outside of later colors (storage order), then later rows
 * decreasing */
static void ref_cluster_row(const mispc_csr *A, const int32_t *rc, const int32_t *color,
                            const double *w, const double *b, double *x, int64_t i, int backward) {
  const int64_t rb = A->rowptr[i], re = A->rowptr[i + 1];
  double s = b[i];
  for (int pass = 0; pass < 4; ++pass)
    for (int64_t k = 0; k < re - rb; ++k) {
      const int64_t p = pass == 3 && backward ? re - 1 - k : rb + k;
      const int32_t j = A->colidx[p];
      const int part = rc[j] != rc[i] || j == i ? 1 : j < i ? 0 : 2;
      const int early = part == 1 && j != i && color[j] < color[i];
      /* forward: 0 outside of earlier colors, 1 the diagonal and the rest
       * outside, 2 later rows, 3 earlier rows; backward: 0 outside of earlier
       * colors, 1 earlier rows, 2 the diagonal and the rest outside, 3 later
       * rows */
      const int group = early      ? 0
                        : backward ? (part == 0   ? 1
                                      : part == 1 ? 2
                                                  : 3)
                                   : (part == 1   ? 1
                                      : part == 2 ? 2
                                                  : 3);
      if (group == pass) s = s - mul_rn(A->values[p], x[j]);
    }
  x[i] = x[i] + mul_rn(s, w[i]);
}

static void ref_sweep(const mispc_gs *g, const mispc_csr *A, const int32_t *color, const double *w,
                      const double *b, double *x, int backward) {
  for (int32_t k = 0; k < g->ncolors; ++k) {
    const int32_t c = backward ? g->ncolors - 1 - k : k;
    for (int64_t q = g->color_ptr[c]; q < g->color_ptr[c + 1]; ++q) {
      if (g->opt.kind == MISPC_GS_POINT) {
        ref_point_row(A, color, w, b, x, g->order[q]);
        continue;
      }
      const int64_t r0 = g->cl_ptr[g->order[q]], r1 = g->cl_ptr[g->order[q] + 1];
      for (int64_t r = 0; r < r1 - r0; ++r)
        ref_cluster_row(A, g->row_cluster, color, w, b, x,
                        g->cl_rows[backward ? r1 - 1 - r : r0 + r], backward);
    }
  }
}

static void ref_apply(const mispc_gs *g, const mispc_csr *A, const double *b, double *x,
                      int zero_guess) {
  const int64_t n = A->nrows;
  double *w = malloc(sizeof(double) * (size_t)(n + 1));
  int32_t *color = malloc(sizeof(int32_t) * (size_t)(n + 1)); /* point GS: each row's */
  for (int32_t c = 0; c < g->ncolors; ++c)
    for (int64_t q = g->color_ptr[c]; q < g->color_ptr[c + 1]; ++q)
      if (g->opt.kind == MISPC_GS_POINT)
        color[g->order[q]] = c;
      else /* cluster GS: each row its cluster's color */
        for (int64_t r = g->cl_ptr[g->order[q]]; r < g->cl_ptr[g->order[q] + 1]; ++r)
          color[g->cl_rows[r]] = c;
  for (int64_t i = 0; i < n; ++i) w[i] = g->opt.omega / diag_of(A, i);
  if (zero_guess) memset(x, 0, sizeof(double) * (size_t)n);
  for (int k = 0; k < g->opt.sweeps; ++k) {
    if (g->opt.sweep != MISPC_GS_BACKWARD) ref_sweep(g, A, color, w, b, x, 0);
    if (g->opt.sweep != MISPC_GS_FORWARD) ref_sweep(g, A, color, w, b, x, 1);
  }
  free(w);
  free(color);
}

/* The host apply (sweep-ordered copy, OpenMP) equals the row-by-row sweep
 * bit for bit: point and cluster GS (rows, nodes of 3), every sweep kind,
 * omega 1 and 1.2, 1, 2 (and for SGS 3) threads, from x = 0 and a nonzero
 * start, and from the nonzero start after a numeric refresh with new values
 * (gathered where the symbolic setup put them). Rows of Elasticity3D and
 * bcsstk13 are longer than 32 (the chunked point sums). */
static void test_gs_host_copy_equals_row_by_row(void) {
  const struct {
    const char *spec;
    int bs;
    double theta;
    int lines;
  } cases[] = {{"gen:laplace3d:12", 1, 0, 0},        {"gen:elasticity3d:5", 1, 0, 0},
               {"gen:elasticity3d:5", 3, 0, 0},      {"gen:elasticity3d:5", 3, 0.02, 0},
               {"gen:aniso2d:40:0.001:30", 1, 0, 0}, {MISPC_TEST_DATA "/bcsstk13.mtx", 1, 0, 0},
               {"gen:aniso2d:40:0.001", 1, 0.05, 1}, {"gen:aniso2d:40:0.01:30", 1, 0.25, 1}};
  const mispc_gs_sweep sws[3] = {MISPC_GS_FORWARD, MISPC_GS_BACKWARD, MISPC_GS_SYMMETRIC};
  for (size_t m = 0; m < sizeof cases / sizeof *cases; ++m) {
    mispc_csr A;
    CHECK_OK(ctx, mispc_load(ctx, cases[m].spec, &A));
    const int64_t n = A.nrows;
    double *b = test_rnd_vec(91, 11, n), *x0 = test_rnd_vec(92, 11, n);
    int bad = 0, nblocked = 0, ncblocked = 0;
    for (int kind = 0; kind <= 1; ++kind) {
      if (kind == MISPC_GS_POINT && cases[m].bs > 1) continue; /* the same point GS */
      /* set up on one thread too: rows (point) or clusters by level
       * (gs_host_copy.c, block_order, cluster_block_order) */
      for (int st = 0; st <= 1; ++st)
        for (int a = 0; a < 3; ++a)
          for (int wi = 0; wi < 2; ++wi) {
            mispc_gs_options o;
            mispc_gs_options_default(&o);
            o.kind = (mispc_gs_kind)kind;
            o.sweep = sws[a];
            o.sweeps = 2;
            o.omega = wi ? 1.2 : 1.0;
            o.block_size = cases[m].bs;
            o.strength_threshold = cases[m].theta;
            o.line_clusters = cases[m].lines;
            mispc_gs *g = NULL;
            CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
            mispc_context_set_num_threads(ctx, st);
            CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &A));
            mispc_context_set_num_threads(ctx, 0);
            nblocked += g->h.blocked;
            ncblocked += g->h.blocked && kind == MISPC_GS_CLUSTER;
            mispc_csr B = A; /* values for the refresh: off-diagonals * (1 + r / 4) */
            B.values = copy_vec(A.values, A.nnz);
            for (int64_t i = 0; i < n; ++i)
              for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p)
                if (A.colidx[p] != i) B.values[p] *= 1 + test_rnd(93, 11, p) / 4;
            for (int refresh = 0; refresh <= 1; ++refresh) {
              const mispc_csr *M = refresh ? &B : &A;
              CHECK_OK(ctx, mispc_gs_numeric(ctx, g, M));
              for (int zg = 0; zg <= 1 - refresh; ++zg) { /* refreshed: from x0 only */
                double *xr = copy_vec(x0, n);
                ref_apply(g, M, b, xr, zg);
                /* 3 threads (more than some machines' cores, where every color's
                 * barrier can wait for a time slice): the symmetric sweep only */
                for (int t = 1; t <= (sws[a] == MISPC_GS_SYMMETRIC ? 3 : 2); ++t) {
                  mispc_context_set_num_threads(ctx, t);
                  double *x = copy_vec(x0, n);
                  if (zg)
                    for (int64_t i = 0; i < n; ++i) x[i] = NAN; /* need not be initialised */
                  CHECK_OK(ctx, mispc_gs_apply(ctx, g, M, b, x, zg));
                  const int same = !memcmp(x, xr, sizeof(double) * (size_t)n);
                  bad += !same;
                  CHECK_MSG(same,
                            "%s bs %d theta %g %s %s omega %g %s zero_guess %d, %d threads "
                            "(set up on %s): host apply != row-by-row reference",
                            cases[m].spec, cases[m].bs, cases[m].theta, kind ? "cluster" : "point",
                            sweep_name(sws[a]), o.omega, refresh ? "refreshed" : "first values", zg,
                            t, st ? "one" : "all");
                  free(x);
                }
                mispc_context_set_num_threads(ctx, 0);
                free(xr);
              }
            }
            free(B.values);
            mispc_gs_destroy(ctx, g);
          }
    }
    printf("  %-40s bs %d theta %.2f lines %d: %lld rows, %s%s\n", cases[m].spec, cases[m].bs,
           cases[m].theta, cases[m].lines, (long long)n, bad ? "DIFFERS" : "bit-identical",
           nblocked ? " (rows by level too)" : "");
    CHECK_MSG(m != 0 || nblocked > ncblocked, "%s: no setup on one thread ordered rows by level",
              cases[m].spec);
    CHECK_MSG(ncblocked > 0, "%s: no cluster setup on one thread ordered clusters by level",
              cases[m].spec);
    free(b);
    free(x0);
    mispc_csr_free(ctx, &A);
  }
}

/* Line clusters: on gen:aniso2d (strong x couplings) every cluster is one
 * whole grid line; where every cluster has more than two neighbours
 * (isotropic Laplace) nothing changes; a bad value is refused. */
static void test_gs_line_clusters(void) {
  const int64_t side = 40;
  mispc_csr A = gen("gen:aniso2d:40:0.001");
  mispc_gs_options o;
  mispc_gs_options_default(&o);
  o.strength_threshold = 0.05;
  o.line_clusters = 1;
  mispc_gs *g = NULL;
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &A));
  mispc_gs_info info;
  CHECK_OK(ctx, mispc_gs_get_info(g, &info));
  CHECK_MSG(info.nclusters == side && info.min_cluster == side && info.max_cluster == side,
            "aniso2d:40 line clusters: %lld clusters of %lld .. %lld rows, want 40 of 40",
            (long long)info.nclusters, (long long)info.min_cluster, (long long)info.max_cluster);
  int64_t bad = 0;
  for (int64_t i = 0; g && i < A.nrows; ++i) /* rows x + 40 y: a cluster is one y */
    bad += g->row_cluster[i] != g->row_cluster[i - i % side] ||
           (i >= side && g->row_cluster[i] == g->row_cluster[i - side]);
  CHECK_MSG(bad == 0, "aniso2d:40: %lld rows in a cluster of another line", (long long)bad);
  printf("  aniso2d:40:0.001 theta 0.05 line clusters: %lld clusters of %lld rows, %d colors\n",
         (long long)info.nclusters, (long long)info.min_cluster, info.ncolors);
  mispc_gs_destroy(ctx, g);
  mispc_csr_free(ctx, &A);

  A = gen("gen:laplace3d:12");
  mispc_gs *off = NULL, *on = NULL;
  mispc_gs_options_default(&o);
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &off));
  o.line_clusters = 1;
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &on));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, off, &A));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, on, &A));
  if (off && on)
    CHECK_MSG(off->nclusters == on->nclusters &&
                  !memcmp(off->row_cluster, on->row_cluster, sizeof(int32_t) * (size_t)A.nrows),
              "laplace3d:12: line clusters changed the clusters (%lld / %lld)",
              (long long)off->nclusters, (long long)on->nclusters);
  mispc_gs_destroy(ctx, off);
  mispc_gs_destroy(ctx, on);
  mispc_csr_free(ctx, &A);

  /* tuning gs_line_rounds = 1: one merge round, pieces of the lines */
  A = gen("gen:aniso2d:40:0.001");
  mispc_gs_options_default(&o);
  o.strength_threshold = 0.05;
  o.line_clusters = 1;
  mispc_tuning t0, t;
  CHECK_OK(ctx, mispc_context_get_tuning_(ctx, &t0));
  t = t0;
  t.gs_line_rounds = 1;
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, &A));
  CHECK_OK(ctx, mispc_gs_get_info(g, &info));
  CHECK_MSG(info.nclusters > side && info.max_cluster < side,
            "aniso2d:40 one line round: %lld clusters of at most %lld rows",
            (long long)info.nclusters, (long long)info.max_cluster);
  mispc_gs_destroy(ctx, g);
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t0));
  mispc_csr_free(ctx, &A);

  o.line_clusters = 2;
  g = NULL;
  CHECK_STATUS(ctx, mispc_gs_create(ctx, &o, &g), MISPC_ERR_INVALID_ARG);
  CHECK(g == NULL && strstr(mispc_context_error(ctx), "line_clusters") != NULL);
}

int main(void) {
  if (mispc_context_create(&ctx)) return 1;
  RUN_TEST(test_gs_node_clusters);
  RUN_TEST(test_gs_exact_sequential);
  RUN_TEST(test_gs_equals_sequential_in_color_order);
  RUN_TEST(test_gs_energy_decreases);
  RUN_TEST(test_gs_symmetric_operator);
  RUN_TEST(test_gs_setup_split);
  RUN_TEST(test_gs_info);
  RUN_TEST(test_gs_errors);
  RUN_TEST(test_gs_deterministic_across_threads);
  RUN_TEST(test_gs_sweeps_compose);
  RUN_TEST(test_gs_greedy_coloring);
  RUN_TEST(test_gs_host_copy_equals_row_by_row);
  RUN_TEST(test_gs_line_clusters);
  RUN_TEST(test_gs_auto_options);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
