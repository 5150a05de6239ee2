/* Point and cluster multicolor Gauss-Seidel on the GPU: bit-identical to the
 * host for every sweep kind, the numeric-only setup after a value change, and
 * the automatic cluster options resolved as on the host. Skips without a GPU. */
#include <stddef.h>
#include <stdlib.h>

#include "../gauss_seidel/gs_internal.h" /* chain_tile: whether the chains streamed */
#include "mispc/gauss_seidel.h"
#include "mis_test_graphs.h"
#include "tuning.h"

static mispc_context *ctx;

static int node_block_size = 1; /* > 1: cluster whole nodes of the strength graph */
static double node_theta = 0.0; /* its threshold (0: the cluster graph from the nodes) */
static int line_clusters = 0;   /* mispc_gs_options.line_clusters, | 2: block_solve */

/* A Gauss-Seidel handle with options o, set up on A (NULL after a failure,
 * reported). */
static mispc_gs *make_gs_opt(const mispc_csr *A, const mispc_gs_options *o, const char *what) {
  mispc_gs *g = NULL;
  mispc_status s = mispc_gs_create(ctx, o, &g);
  if (!s) s = mispc_gs_symbolic(ctx, g, A);
  if (!s) s = mispc_gs_numeric(ctx, g, A);
  CHECK_MSG(s == MISPC_SUCCESS, "%s (%s): setup: %s", what,
            A->mem == MISPC_MEM_DEVICE ? "device" : "host", mispc_context_error(ctx));
  if (s) {
    mispc_gs_destroy(ctx, g);
    return NULL;
  }
  return g;
}

static mispc_gs *make_gs(const mispc_csr *A, mispc_gs_kind kind, mispc_gs_sweep sw, double omega,
                         const char *what) {
  mispc_gs_options o =
      test_gs_options(kind, sw, 2, omega, node_block_size, node_theta, line_clusters);
  return make_gs_opt(A, &o, what);
}

/* make_gs with the context's tuning set to *t for the setup (the GPU setup
 * reads it; the handle keeps what it chose), then back to the defaults. */
static mispc_gs *make_gs_tuned(const mispc_csr *A, mispc_gs_kind kind, mispc_gs_sweep sw,
                               double omega, const mispc_tuning *t, const char *what) {
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, t));
  mispc_gs *g = make_gs(A, kind, sw, omega, what);
  mispc_context_set_tuning_(ctx, NULL);
  return g;
}

/* A generated matrix on the host (H) and the device (D), a right-hand side
 * and a starting x (host). */
typedef struct problem {
  mispc_csr H, D;
  double *b, *x0;
} problem;

static problem problem_make(const char *spec, uint64_t gen_seed, uint64_t b_seed, uint64_t x_seed) {
  problem P;
  CHECK_OK(ctx, mispc_generate(ctx, spec, gen_seed, &P.H));
  CHECK_OK(ctx, mispc_csr_copy(ctx, &P.H, MISPC_MEM_DEVICE, &P.D));
  const int64_t n = P.H.nrows;
  P.b = malloc(sizeof(double) * (size_t)(n + 1));
  P.x0 = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; ++i)
    P.b[i] = test_rnd(b_seed, 13, i), P.x0[i] = test_rnd(x_seed, 13, i);
  return P;
}

static void problem_free(problem *P) {
  free(P->b);
  free(P->x0);
  mispc_csr_free(ctx, &P->H);
  mispc_csr_free(ctx, &P->D);
}

static const char *kind_name(int kind) {
  return kind ? "cluster" : "point";
}

static const char *sweep_name(int sw) {
  return sw == MISPC_GS_FORWARD ? "forward" : sw == MISPC_GS_BACKWARD ? "backward" : "symmetric";
}

/* Applies hg on H and dg on D from x0 (or zero) and compares x bit for bit. */
static void compare_apply_start(mispc_gs *hg, mispc_gs *dg, const mispc_csr *H, const mispc_csr *D,
                                const double *b, const double *x0, int zg, const char *what) {
  size_t n = (size_t)H->nrows, bytes = sizeof(double) * n;
  double *xh = malloc(bytes + 8), *xd = malloc(bytes + 8), *db = NULL, *dx = NULL;
  memcpy(xh, x0, bytes);
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, bytes + 8, (void **)&db));
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, bytes + 8, (void **)&dx));
  CHECK_OK(ctx, mispc_memcpy(ctx, db, MISPC_MEM_DEVICE, b, MISPC_MEM_HOST, bytes));
  if (!zg) CHECK_OK(ctx, mispc_memcpy(ctx, dx, MISPC_MEM_DEVICE, x0, MISPC_MEM_HOST, bytes));
  CHECK_OK(ctx, mispc_gs_apply(ctx, hg, H, b, xh, zg));
  CHECK_OK(ctx, mispc_gs_apply(ctx, dg, D, db, dx, zg));
  CHECK_OK(ctx, mispc_memcpy(ctx, xd, MISPC_MEM_HOST, dx, MISPC_MEM_DEVICE, bytes));
  size_t ndiff = 0, first = n;
  for (size_t i = 0; i < n; ++i)
    if (memcmp(&xh[i], &xd[i], sizeof(double))) {
      if (!ndiff) first = i;
      ++ndiff;
    }
  CHECK_MSG(ndiff == 0, "%s zero_guess %d: %zu entries differ, first %zu: host %.17g GPU %.17g",
            what, zg, ndiff, first, first < n ? xh[first] : 0.0, first < n ? xd[first] : 0.0);
  mispc_free(ctx, MISPC_MEM_DEVICE, db);
  mispc_free(ctx, MISPC_MEM_DEVICE, dx);
  free(xh);
  free(xd);
}

/* compare_apply_start from x0 and from x = 0 (zero guess) */
static void compare_apply(mispc_gs *hg, mispc_gs *dg, const mispc_csr *H, const mispc_csr *D,
                          const double *b, const double *x0, const char *what) {
  for (int zg = 0; zg <= 1; ++zg) compare_apply_start(hg, dg, H, D, b, x0, zg, what);
}

static void test_gpu_gs_equals_host(void) {
  const char *specs[] = {"gen:laplace3d:30",   "gen:elasticity3d:8", "gen:aniso2d:100:0.001:30",
                         "gen:elasticity3d:9", "gen:elasticity3d:9", "gen:aniso2d:100:0.001",
                         "gen:laplace3d:30",   "gen:elasticity3d:9", "gen:aniso2d:100:0.001"};
  for (size_t s = 0; s < sizeof specs / sizeof *specs; ++s) {
    /* 3, 4, 7: node clusters, block size 3, threshold 0.01 and 0; 5, 8: line
     * clusters (whole lines of 100 rows, threshold 0.05); 6, 7, 8: exact
     * block solves (omega 1 only) */
    node_block_size = s == 3 || s == 4 || s == 7 ? 3 : 1;
    node_theta = s == 3 ? 0.01 : s == 5 || s == 8 ? 0.05 : 0.0;
    line_clusters = (s == 5 || s == 8) | (s >= 6) << 1;
    problem P = problem_make(specs[s], 3, 1, 2);
    for (int kind = 0; kind <= 1; ++kind)
      for (int sw = 0; sw < 3; ++sw)
        for (int w = 0; w < (line_clusters & 2 && kind ? 1 : 2); ++w) {
          double omega = w ? 1.2 : 1.0;
          char what[160];
          snprintf(what, sizeof what, "%s bs %d theta %g lines %d %s %s omega %g", specs[s],
                   node_block_size, node_theta, line_clusters, kind_name(kind), sweep_name(sw),
                   omega);
          mispc_gs *hg = make_gs(&P.H, (mispc_gs_kind)kind, (mispc_gs_sweep)sw, omega, what);
          mispc_gs *dg = make_gs(&P.D, (mispc_gs_kind)kind, (mispc_gs_sweep)sw, omega, what);
          if (hg && dg) {
            mispc_gs_info hi, di;
            CHECK_OK(ctx, mispc_gs_get_info(hg, &hi));
            CHECK_OK(ctx, mispc_gs_get_info(dg, &di));
            CHECK_MSG(hi.ncolors == di.ncolors && hi.nclusters == di.nclusters &&
                          hi.singletons == di.singletons,
                      "%s: info host %d colors %lld clusters %lld singletons, GPU %d %lld %lld",
                      what, hi.ncolors, (long long)hi.nclusters, (long long)hi.singletons,
                      di.ncolors, (long long)di.nclusters, (long long)di.singletons);
            if (sw == MISPC_GS_SYMMETRIC && w == 0)
              printf("  %-26s %-7s colors %3d  clusters %7lld  setup host %.2f ms GPU %.2f ms\n",
                     specs[s], kind_name(kind), di.ncolors, (long long)di.nclusters,
                     1e3 * (hi.symbolic_seconds + hi.numeric_seconds),
                     1e3 * (di.symbolic_seconds + di.numeric_seconds));
            compare_apply(hg, dg, &P.H, &P.D, P.b, P.x0, what);
          }
          mispc_gs_destroy(ctx, hg);
          mispc_gs_destroy(ctx, dg);
        }
    problem_free(&P);
  }
  node_block_size = 1;
  node_theta = 0.0;
  line_clusters = 0;
}

/* Every way the GPU runs a color of clusters (sweep_clusters: staged in
 * shared memory or read from global memory, tuning.gs_chain_global;
 * sweep_clusters_streamed, tuning.gs_chain_stream, with tiles of a
 * cluster's size: many tiles a cluster),
 * several chain lane counts (gs_lanes: 1 to 32 clusters a warp, so chains
 * longer than a group's lanes hold), clusters a block (gs_block_clusters:
 * one, the default, and 256, which the setup lowers to the block's groups,
 * 8 * 32 / lanes: up to 256 clusters, more than a color has on these
 * problems, so blocks end short and warps without clusters wait at the
 * barriers), lanes a row's sum (gs_sum_lanes), and each color's clusters in
 * id order or largest first (gs_cluster_order; by default largest first
 * where clusters reach 32 rows), and the chain values gathered from their
 * entries of A or through the rows they name (gs_chain_rows), give the
 * host's x bit for bit (the knobs: src/tuning.h). */
static void test_gpu_gs_cluster_modes(void) {
  const char *specs[] = {"gen:laplace3d:20", "gen:elasticity3d:8"};
  const char *modes[] = {"staged", "global", "streamed"};
  const int lanes[] = {1, 4, 32};
  const int blocks[] = {0, 1, 256}; /* 0: the default */
  const int sums[] = {0, 8};
  for (size_t s = 0; s < sizeof specs / sizeof *specs; ++s) {
    problem P = problem_make(specs[s], 5, 3, 4);
    mispc_gs *hg = make_gs(&P.H, MISPC_GS_CLUSTER, MISPC_GS_SYMMETRIC, 1.0, specs[s]);
    for (size_t m = 0; m < 3; ++m)
      for (size_t l = 0; l < 3; ++l)
        for (size_t k = 0; k < 3; ++k)
          for (size_t w = 0; w < 2; ++w) {
            char what[200];
            snprintf(what, sizeof what,
                     "%s chains %s gs_lanes=%d gs_block_clusters=%d gs_sum_lanes=%d", specs[s],
                     modes[m], lanes[l], blocks[k], sums[w]);
            mispc_tuning t = {0};
            t.gs_chain_global = m == 1;
            t.gs_chain_stream = m == 2;       /* tiles of the largest cluster's rows */
            if (m == 2 && (l || k)) continue; /* one chain warp, a cluster a block */
            t.gs_lanes = lanes[l];
            t.gs_block_clusters = blocks[k];
            t.gs_sum_lanes = sums[w];
            mispc_gs *dg = make_gs_tuned(&P.D, MISPC_GS_CLUSTER, MISPC_GS_SYMMETRIC, 1.0, &t, what);
            if (hg && dg) compare_apply(hg, dg, &P.H, &P.D, P.b, P.x0, what);
            mispc_gs_destroy(ctx, dg);
          }
    /* each color's clusters in id order, or largest first; chain values
     * found by their entries of A, or through the rows they name */
    const char *settings[] = {"gs_cluster_order=id", "gs_cluster_order=size", "gs_chain_rows=0",
                              "gs_chain_rows=1"};
    for (size_t e = 0; e < sizeof settings / sizeof *settings; ++e) {
      char what[200];
      snprintf(what, sizeof what, "%s %s", specs[s], settings[e]);
      mispc_tuning t = {0};
      CHECK_OK(ctx, mispc_tuning_parse_(ctx, &t, settings[e]));
      mispc_gs *dg = make_gs_tuned(&P.D, MISPC_GS_CLUSTER, MISPC_GS_SYMMETRIC, 1.0, &t, what);
      if (hg && dg) compare_apply(hg, dg, &P.H, &P.D, P.b, P.x0, what);
      mispc_gs_destroy(ctx, dg);
    }
    mispc_gs_destroy(ctx, hg);
    problem_free(&P);
  }
}

/* Exact solves on spec's matrix (clusters of whole nodes of bs rows,
 * strength threshold theta, line clusters where lines) with the int tuning
 * knob at byte offset knob of mispc_tuning (named name) 0 and 1 at the GPU
 * setup: the host's x bit for bit, every sweep kind, from x0 and from
 * x = 0. Each handle's largest cluster has lo to hi rows (the path the
 * test is for). */
static void exact_knob_vs_host(const char *spec, int bs, double theta, int lines, size_t knob,
                               const char *name, int64_t lo, int64_t hi) {
  problem P = problem_make(spec, 3, 1, 2);
  node_block_size = bs;
  node_theta = theta;
  line_clusters = 2 | (lines != 0); /* block_solve */
  for (int sw = 0; sw < 3; ++sw) {
    mispc_gs *hg = make_gs(&P.H, MISPC_GS_CLUSTER, (mispc_gs_sweep)sw, 1.0, "exact host");
    const int64_t mc = hg ? hg->max_cluster : lo;
    CHECK_MSG(mc >= lo && mc <= hi, "%s: clusters of up to %lld rows, want %lld to %lld", spec,
              (long long)mc, (long long)lo, (long long)hi);
    for (int u = 0; u <= 1; ++u) {
      char what[160];
      snprintf(what, sizeof what, "%s exact solves %s %s=%d", spec, sweep_name(sw), name, u);
      mispc_tuning t = {0};
      *(int *)((char *)&t + knob) = u;
      mispc_gs *dg = make_gs_tuned(&P.D, MISPC_GS_CLUSTER, (mispc_gs_sweep)sw, 1.0, &t, what);
      if (hg && dg) compare_apply(hg, dg, &P.H, &P.D, P.b, P.x0, what);
      mispc_gs_destroy(ctx, dg);
    }
    mispc_gs_destroy(ctx, hg);
  }
  node_block_size = 1;
  node_theta = 0.0;
  line_clusters = 0;
  problem_free(&P);
}

/* Dense clusters (elasticity's nodes, block size 3): the warp chains with
 * each cluster staged in shared memory (the default) and walked in global
 * memory (gs_exact_unstaged). */
static void test_gpu_gs_exact_staging(void) {
  exact_knob_vs_host("gen:elasticity3d:9", 3, 0.0, 0, offsetof(mispc_tuning, gs_exact_unstaged),
                     "gs_exact_unstaged", 1, INT64_MAX);
}

/* One launch a color (gs_exact_unfused 0) against two (1): small clusters
 * (MIS-2 clusters of a Laplacian, at most 32 rows: outside sums, then
 * chains, a group of lanes a cluster) and lines (aniso2d's 100-row lines:
 * a warp stages a line in shared memory and one lane walks it). */
static void test_gpu_gs_exact_fused(void) {
  exact_knob_vs_host("gen:laplace3d:14", 1, 0.0, 0, offsetof(mispc_tuning, gs_exact_unfused),
                     "gs_exact_unfused", 1, 32);
  exact_knob_vs_host("gen:aniso2d:100:0.001", 1, 0.05, 1, offsetof(mispc_tuning, gs_exact_unfused),
                     "gs_exact_unfused", 33, INT64_MAX);
}

/* Exact solves of one dense 20-row cluster (a complete graph: the factor
 * is staged and computed by a warp on the GPU): all ones is singular, and
 * the GPU's numeric setup fails at the host's row (the second pivot);
 * with 30 on the diagonal it succeeds and applies give the host's x bit for
 * bit, from x0 and from x = 0. */
static void test_gpu_gs_exact_dense_pivot(void) {
  const int64_t n = 20;
  mispc_csr H, D;
  CHECK_OK(ctx, mispc_csr_alloc(ctx, MISPC_MEM_HOST, n, n, n * n, 1, &H));
  for (int64_t i = 0; i <= n; ++i) H.rowptr[i] = i * n;
  for (int64_t p = 0; p < n * n; ++p) H.colidx[p] = (int32_t)(p % n), H.values[p] = 1.0;
  CHECK_OK(ctx, mispc_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &D));
  mispc_gs_options o;
  mispc_gs_options_default(&o);
  o.block_solve = 1;
  char msg[2][256] = {"", ""};
  for (int dev = 0; dev <= 1; ++dev) {
    mispc_gs *g = NULL;
    CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g));
    CHECK_OK(ctx, mispc_gs_symbolic(ctx, g, dev ? &D : &H));
    CHECK_STATUS(ctx, mispc_gs_numeric(ctx, g, dev ? &D : &H), MISPC_ERR_INVALID_ARG);
    snprintf(msg[dev], sizeof msg[dev], "%s", mispc_context_error(ctx));
    mispc_gs_destroy(ctx, g);
  }
  CHECK_MSG(strstr(msg[1], "pivot") != NULL && !strcmp(msg[0], msg[1]),
            "singular dense cluster: host \"%s\", GPU \"%s\"", msg[0], msg[1]);
  for (int64_t i = 0; i < n; ++i) H.values[i * n + i] = 30.0;
  mispc_csr_free(ctx, &D);
  CHECK_OK(ctx, mispc_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &D));
  mispc_gs *hg = make_gs_opt(&H, &o, "dense cluster host");
  mispc_gs *dg = make_gs_opt(&D, &o, "dense cluster GPU");
  double *b = test_rnd_vec(5, 13, n), *x0 = test_rnd_vec(6, 13, n);
  if (hg && dg) compare_apply(hg, dg, &H, &D, b, x0, "dense 20-row cluster, exact solves");
  free(b), free(x0);
  mispc_gs_destroy(ctx, hg);
  mispc_gs_destroy(ctx, dg);
  mispc_csr_free(ctx, &H);
  mispc_csr_free(ctx, &D);
}

/* L (x) dense blocks of b x b: row (I, p) couples with every (J, q) where
 * L couples I and J; a_(I,p),(J,q) = L_IJ for p == q, 0.1 |L_IJ| (1 + h)
 * otherwise (h a hash in [0, 1)), so nodes of b rows are densely coupled
 * and clusters of whole nodes are too, as on AMG coarse levels of
 * elasticity (nodes of 6 rows of hundreds of entries). */
static problem dense_nodes(const char *spec, int32_t b) {
  mispc_csr L;
  problem P;
  CHECK_OK(ctx, mispc_generate(ctx, spec, 1, &L));
  const int64_t n = L.nrows * b;
  CHECK_OK(ctx, mispc_csr_alloc(ctx, MISPC_MEM_HOST, n, n, L.nnz * b * b, 1, &P.H));
  int64_t z = 0;
  for (int64_t I = 0; I < L.nrows; ++I)
    for (int32_t p = 0; p < b; ++p) {
      for (int64_t e = L.rowptr[I]; e < L.rowptr[I + 1]; ++e)
        for (int32_t q = 0; q < b; ++q) {
          const double l = L.values[e];
          const int64_t J = L.colidx[e];
          const uint64_t lo = (uint64_t)(I < J ? I : J), hi = (uint64_t)(I < J ? J : I);
          const double h = (double)(mispc_hash3(lo * (uint64_t)b + (uint64_t)(p < q ? p : q), hi,
                                                (uint64_t)(p < q ? q : p)) >>
                                    11) *
                           0x1.0p-53;
          P.H.colidx[z] = (int32_t)(J * b + q);
          P.H.values[z++] = p == q ? l : 0.1 * (l < 0 ? -l : l) * (1.0 + h);
        }
      P.H.rowptr[I * b + p + 1] = z;
    }
  mispc_csr_free(ctx, &L);
  CHECK_OK(ctx, mispc_csr_copy(ctx, &P.H, MISPC_MEM_DEVICE, &P.D));
  P.b = malloc(sizeof(double) * (size_t)(n + 1));
  P.x0 = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; ++i) P.b[i] = test_rnd(5, 13, i), P.x0[i] = test_rnd(6, 13, i);
  return P;
}

/* Clusters whose chains do not fit in shared memory (dense_nodes: clusters
 * of whole nodes, hundreds of rows each coupled to most of its cluster)
 * stream their chains through tiles (sweep_clusters_streamed, chosen by
 * the setup; rows of more than 8 entries a lane of its chain warp; tiles
 * of a cluster's size with tuning.gs_chain_stream = 1, so many a cluster)
 * or read them from global memory (tuning.gs_chain_global): each gives the
 * host's x bit for bit, forward, backward and symmetric. */
static void test_gpu_gs_dense_clusters(void) {
  const char *spec = "gen:laplace3d:5";
  const int32_t b = 48;
  problem P = dense_nodes(spec, b);
  node_block_size = b;
  const char *modes[] = {"auto", "global", "tiles of a cluster"};
  for (int sw = 0; sw < 3; ++sw) {
    mispc_gs *hg = make_gs(&P.H, MISPC_GS_CLUSTER, (mispc_gs_sweep)sw, 1.0, spec);
    for (int m = 0; m < 3; ++m) {
      char what[160];
      snprintf(what, sizeof what, "%s (x) dense %d x %d %s chains %s", spec, b, b, sweep_name(sw),
               modes[m]);
      mispc_tuning t = {0};
      t.gs_chain_global = m == 1;
      t.gs_chain_stream = m == 2;
      mispc_gs *dg = make_gs_tuned(&P.D, MISPC_GS_CLUSTER, (mispc_gs_sweep)sw, 1.0, &t, what);
      if (hg && dg) {
        mispc_gs_info di;
        CHECK_OK(ctx, mispc_gs_get_info(dg, &di));
        CHECK_MSG(di.max_cluster >= 4 * b, "%s: clusters of up to %lld rows, want >= %d", what,
                  (long long)di.max_cluster, 4 * b);
        CHECK_MSG((dg->chain_tile > 0) == (m != 1), "%s: chains %sstreamed", what,
                  dg->chain_tile > 0 ? "" : "not ");
        if (sw == 2 && m == 0)
          printf("  %s: %d colors, clusters of %lld .. %lld rows\n", what, di.ncolors,
                 (long long)di.min_cluster, (long long)di.max_cluster);
        compare_apply(hg, dg, &P.H, &P.D, P.b, P.x0, what);
      }
      mispc_gs_destroy(ctx, dg);
    }
    mispc_gs_destroy(ctx, hg);
  }
  node_block_size = 1;
  problem_free(&P);
}

/* Point GS with every lane count a row (tuning.gs_lanes, 1 to 32): rows of
 * up to 32 entries as one chain, longer ones (Elasticity's 81) in chunks of
 * 32 as trees, all bit for bit the host's. */
static void test_gpu_gs_point_lanes(void) {
  const char *specs[] = {"gen:elasticity3d:8", "gen:aniso3d:12"};
  const int lanes[] = {1, 2, 4, 8, 16, 32};
  for (size_t s = 0; s < sizeof specs / sizeof *specs; ++s) {
    problem P = problem_make(specs[s], 7, 5, 6);
    for (int sw = 0; sw < 3; ++sw) {
      mispc_gs *hg = make_gs(&P.H, MISPC_GS_POINT, (mispc_gs_sweep)sw, 1.2, specs[s]);
      for (size_t l = 0; l < sizeof lanes / sizeof *lanes; ++l) {
        char what[160];
        snprintf(what, sizeof what, "%s point %s gs_lanes=%d", specs[s], sweep_name(sw), lanes[l]);
        mispc_tuning t = {0};
        t.gs_lanes = lanes[l];
        mispc_gs *dg = make_gs_tuned(&P.D, MISPC_GS_POINT, (mispc_gs_sweep)sw, 1.2, &t, what);
        if (hg && dg) compare_apply(hg, dg, &P.H, &P.D, P.b, P.x0, what);
        mispc_gs_destroy(ctx, dg);
      }
      mispc_gs_destroy(ctx, hg);
    }
    problem_free(&P);
  }
}

/* The apply's CUDA graph reads b and x through a slot that the first launch
 * fills: applies to two pairs of vectors alive at once, alternating, each
 * give the host's x. Point GS with 1, 4 and 32 lanes a row (long rows are
 * summed as trees, short ones as chains), with and without the graph. */
static void test_gpu_gs_graph_vectors(void) {
  const char *specs[] = {"gen:laplace3d:12", "gen:elasticity3d:6"};
  const int lanes[] = {0, 1, 4, 32}; /* 0: the default */
  for (size_t s = 0; s < 2; ++s) {
    problem P = problem_make(specs[s], 7, 5, 6);
    const size_t n = (size_t)P.H.nrows, bytes = sizeof(double) * n;
    double *xh = malloc(bytes + 8), *xd = malloc(bytes + 8), *db[2], *dx[2];
    for (int k = 0; k < 2; ++k) {
      CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, bytes + 8, (void **)&db[k]));
      CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, bytes + 8, (void **)&dx[k]));
      CHECK_OK(ctx, mispc_memcpy(ctx, db[k], MISPC_MEM_DEVICE, P.b, MISPC_MEM_HOST, bytes));
    }
    for (int kind = 0; kind <= 1; ++kind)
      for (size_t l = 0; l < 4; ++l)
        for (int graph = 0; graph <= 1; ++graph) {
          if (kind && l) continue; /* cluster lanes: test_gpu_gs_cluster_modes */
          char what[160];
          snprintf(what, sizeof what, "%s %s lanes %d (0: default) graph %d", specs[s],
                   kind_name(kind), lanes[l], graph);
          mispc_gs *hg = make_gs(&P.H, (mispc_gs_kind)kind, MISPC_GS_SYMMETRIC, 1.0, what);
          mispc_tuning t = {0};
          t.gs_lanes = lanes[l];
          t.gs_no_graph = !graph;
          mispc_gs *dg =
              make_gs_tuned(&P.D, (mispc_gs_kind)kind, MISPC_GS_SYMMETRIC, 1.0, &t, what);
          for (int zg = 0; hg && dg && zg <= 1; ++zg) {
            memcpy(xh, P.x0, bytes);
            CHECK_OK(ctx, mispc_gs_apply(ctx, hg, &P.H, P.b, xh, zg));
            for (int rep = 0; rep < 3; ++rep) {
              const int k = rep % 2;
              CHECK_OK(ctx,
                       mispc_memcpy(ctx, dx[k], MISPC_MEM_DEVICE, P.x0, MISPC_MEM_HOST, bytes));
              CHECK_OK(ctx, mispc_gs_apply(ctx, dg, &P.D, db[k], dx[k], zg));
              CHECK_OK(ctx, mispc_memcpy(ctx, xd, MISPC_MEM_HOST, dx[k], MISPC_MEM_DEVICE, bytes));
              CHECK_MSG(!memcmp(xh, xd, bytes), "%s zero_guess %d: apply %d (vectors %d) differs",
                        what, zg, rep, k);
            }
          }
          mispc_gs_destroy(ctx, hg);
          mispc_gs_destroy(ctx, dg);
        }
    for (int k = 0; k < 2; ++k) {
      mispc_free(ctx, MISPC_MEM_DEVICE, db[k]);
      mispc_free(ctx, MISPC_MEM_DEVICE, dx[k]);
    }
    free(xh);
    free(xd);
    problem_free(&P);
  }
}

/* Device setup split: numeric only after a value change equals a fresh host
 * setup on the changed matrix. */
static void test_gpu_gs_setup_split(void) {
  const char *specs[] = {"gen:laplace3d:30", "gen:elasticity3d:8"};
  for (size_t s = 0; s < 2; ++s)
    for (int kind = 0; kind <= 1; ++kind) {
      problem P = problem_make(specs[s], 3, 3, 4);
      const int64_t n = P.H.nrows;
      char what[120];
      snprintf(what, sizeof what, "%s %s setup split", specs[s], kind_name(kind));
      mispc_gs *dg = make_gs(&P.D, (mispc_gs_kind)kind, MISPC_GS_SYMMETRIC, 1.0, what);
      /* diagonal * 2 + 1, off-diagonals * 0.7, on the host; new values to the device */
      for (int64_t i = 0; i < n; ++i)
        for (int64_t p = P.H.rowptr[i]; p < P.H.rowptr[i + 1]; ++p)
          P.H.values[p] = P.H.colidx[p] == i ? 2 * P.H.values[p] + 1 : 0.7 * P.H.values[p];
      CHECK_OK(ctx, mispc_memcpy(ctx, P.D.values, MISPC_MEM_DEVICE, P.H.values, MISPC_MEM_HOST,
                                 sizeof(double) * (size_t)P.H.nnz));
      if (dg) CHECK_OK(ctx, mispc_gs_numeric(ctx, dg, &P.D));
      mispc_gs *hg = make_gs(&P.H, (mispc_gs_kind)kind, MISPC_GS_SYMMETRIC, 1.0, what);
      if (hg && dg) compare_apply(hg, dg, &P.H, &P.D, P.b, P.x0, what);
      mispc_gs_destroy(ctx, hg);
      mispc_gs_destroy(ctx, dg);
      problem_free(&P);
    }
}

/* Host vectors with a device matrix, or a device matrix after a host setup. */
static void test_gpu_gs_errors(void) {
  mispc_csr H, D;
  CHECK_OK(ctx, mispc_generate(ctx, "gen:laplace2d:10", 0, &H));
  CHECK_OK(ctx, mispc_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &D));
  mispc_gs *hg = make_gs(&H, MISPC_GS_CLUSTER, MISPC_GS_SYMMETRIC, 1.0, "errors");
  if (hg) CHECK(mispc_gs_numeric(ctx, hg, &D) != MISPC_SUCCESS);
  mispc_gs_destroy(ctx, hg);
  /* zero diagonal on the device names the row */
  int64_t p37 = -1;
  for (int64_t p = H.rowptr[37]; p < H.rowptr[38]; ++p)
    if (H.colidx[p] == 37) p37 = p;
  double zero = 0.0;
  CHECK_OK(ctx, mispc_memcpy(ctx, D.values + p37, MISPC_MEM_DEVICE, &zero, MISPC_MEM_HOST,
                             sizeof(double)));
  mispc_gs *dg = NULL;
  CHECK_OK(ctx, mispc_gs_create(ctx, NULL, &dg));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, dg, &D));
  CHECK_STATUS(ctx, mispc_gs_numeric(ctx, dg, &D), MISPC_ERR_INVALID_ARG);
  CHECK_MSG(strstr(mispc_context_error(ctx), "row 37") != NULL, "GPU zero diagonal: \"%s\"",
            mispc_context_error(ctx));
  double tiny = 1e-310; /* subnormal: omega / a_ii overflows */
  CHECK_OK(ctx, mispc_memcpy(ctx, D.values + p37, MISPC_MEM_DEVICE, &tiny, MISPC_MEM_HOST,
                             sizeof(double)));
  CHECK_STATUS(ctx, mispc_gs_numeric(ctx, dg, &D), MISPC_ERR_INVALID_ARG);
  CHECK_MSG(strstr(mispc_context_error(ctx), "overflows") != NULL &&
                strstr(mispc_context_error(ctx), "row 37") != NULL,
            "GPU subnormal diagonal: \"%s\"", mispc_context_error(ctx));
  mispc_gs_destroy(ctx, dg);
  mispc_csr_free(ctx, &H);
  mispc_csr_free(ctx, &D);
}

/* Automatic cluster options (strength_threshold < 0, line_clusters and
 * block_solve MISPC_GS_AUTO, the rest default) resolved on the GPU as on
 * the host: the same threshold, block size, lines and block solves, the
 * same mispc_strength_auto values bit for bit, colors and clusters; lines
 * with exact block solves on the anisotropic problem, neither (on rows) on
 * Elasticity 3D; and a symmetric apply gives the host's x bit for bit. */
static void test_gpu_gs_auto_options(void) {
  const char *specs[] = {"gen:aniso2d:100:0.001", "gen:elasticity3d:8"};
  for (size_t s = 0; s < sizeof specs / sizeof *specs; ++s) {
    const int aniso = s == 0;
    problem P = problem_make(specs[s], 3, 1, 2);
    mispc_gs_options o;
    mispc_gs_options_default(&o);
    o.strength_threshold = -1;
    o.line_clusters = MISPC_GS_AUTO;
    o.block_solve = MISPC_GS_AUTO;
    char what[120];
    snprintf(what, sizeof what, "%s automatic cluster options", specs[s]);
    mispc_gs *hg = make_gs_opt(&P.H, &o, what);
    mispc_gs *dg = make_gs_opt(&P.D, &o, what);
    if (hg && dg) {
      mispc_gs_info hi, di;
      CHECK_OK(ctx, mispc_gs_get_info(hg, &hi));
      CHECK_OK(ctx, mispc_gs_get_info(dg, &di));
      char why[512];
      CHECK_MSG(test_same_gs_choice(&hi, &di, why, sizeof why), "%s: host / GPU %s", what, why);
      CHECK_MSG(hi.ncolors == di.ncolors && hi.nclusters == di.nclusters,
                "%s: host %d colors %lld clusters, GPU %d %lld", what, hi.ncolors,
                (long long)hi.nclusters, di.ncolors, (long long)di.nclusters);
      CHECK_MSG(hi.auto_theta > 0 && hi.strength_threshold == hi.auto_theta,
                "%s: threshold %g, automatic theta %g", what, hi.strength_threshold, hi.auto_theta);
      if (aniso)
        CHECK_MSG(di.line_clusters == 1 && di.block_solve == 1,
                  "%s: lines %d block solves %d, want 1 and 1", what, di.line_clusters,
                  di.block_solve);
      else
        CHECK_MSG(di.line_clusters == 0 && di.block_solve == 0 && di.block_size == 1,
                  "%s: lines %d block solves %d block size %d, want 0, 0 and 1", what,
                  di.line_clusters, di.block_solve, di.block_size);
      printf("  %-26s threshold %.6g (weak_max %.6g) block size %d lines %d block solves %d: "
             "%d colors, %lld clusters\n",
             specs[s], di.strength_threshold, di.auto_weak_max, di.block_size, di.line_clusters,
             di.block_solve, di.ncolors, (long long)di.nclusters);
      compare_apply(hg, dg, &P.H, &P.D, P.b, P.x0, what);
    }
    mispc_gs_destroy(ctx, hg);
    mispc_gs_destroy(ctx, dg);
    problem_free(&P);
  }
}

int main(void) {
  test_require_gpu_or_skip();
  if (mispc_context_create(&ctx)) return 1;
  RUN_TEST(test_gpu_gs_equals_host);
  RUN_TEST(test_gpu_gs_cluster_modes);
  RUN_TEST(test_gpu_gs_dense_clusters);
  RUN_TEST(test_gpu_gs_exact_staging);
  RUN_TEST(test_gpu_gs_exact_fused);
  RUN_TEST(test_gpu_gs_exact_dense_pivot);
  RUN_TEST(test_gpu_gs_point_lanes);
  RUN_TEST(test_gpu_gs_graph_vectors);
  RUN_TEST(test_gpu_gs_setup_split);
  RUN_TEST(test_gpu_gs_errors);
  RUN_TEST(test_gpu_gs_auto_options);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
