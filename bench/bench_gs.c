/* mispc bench gs: point and cluster multicolor Gauss-Seidel, setup and apply,
 * against one double cuSPARSE SpMV on the same matrix in the same run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gpu.h"
#include "bench_util.h"
#include "cli.h"
#include "tuning.h"

/* ||b - A x|| / ||b|| on the host */
static double rel_residual(const mispc_csr *A, const double *b, const double *x) {
  double r2 = 0, b2 = 0;
  for (int64_t i = 0; i < A->nrows; ++i) {
    double s = b[i];
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) s -= A->values[p] * x[A->colidx[p]];
    r2 += s * s;
    b2 += b[i] * b[i];
  }
  return sqrt(r2 / b2);
}

int cmd_bench_gs(int argc, char **argv) {
  int reps = 10, which = 2, verbose = 0, block_size = 1, recolor = -1, coloring_index = 0;
  int lines = 0, block_solve = 0, automatic = 0;
  double omega = 1.0, theta = 0.0;
  const char *specs[64];
  int nspecs = 0;
  mispc_tuning tune = {0};
  const cli_opt opts[] = {
      CLI_OPT_CHOICE("--kind", "point|cluster|both", "which Gauss-Seidel (default both)", &which),
      CLI_OPT_REAL("--omega", "W", "relaxation (default 1)", &omega, 0, 2),
      CLI_OPT_INT("--reps", "N", "timed repetitions (default 10; the median is reported)", &reps, 1,
                  1000000),
      CLI_OPT_CHOICE("--coloring", "mis|greedy",
                     "colors (of rows or clusters): MIS-1 classes (default) or\n"
                     "greedy in vertex order (mispc_coloring_algo)",
                     &coloring_index),
      CLI_OPT_INT("--recolor", "N",
                  "passes of iterated greedy recoloring after the coloring\n"
                  "(mispc_coloring_options.recolor; default: mispc_gs_options_default)",
                  &recolor, 0, MISPC_COLORING_MAX_RECOLOR),
      CLI_OPT_INT("--block-size", "B",
                  "rows per node: cluster GS aggregates the node graph, so\n"
                  "clusters hold whole nodes (as -pc_type clustergs does with\n"
                  "the matrix block size; default 1)",
                  &block_size, 1, 1 << 20),
      CLI_OPT_REAL("--theta", "T",
                   "cluster GS: strength threshold of the clusters\n"
                   "(mispc_gs_options.strength_threshold; default 0); -1: chosen from\n"
                   "the matrix wherever a coupling is weak (MISPC_GS_THETA_AUTO),\n"
                   "-2: where the weak couplings are set apart (MISPC_GS_THETA_ANISOTROPIC)",
                   &theta, -2, 1e300),
      CLI_OPT_FLAG("--lines", "cluster GS: line clusters (mispc_gs_options.line_clusters)", &lines,
                   1),
      CLI_OPT_FLAG("--block-solve",
                   "cluster GS: exact cluster solves (mispc_gs_options.block_solve;\n"
                   "needs --omega 1)",
                   &block_solve, 1),
      CLI_OPT_FLAG("--auto",
                   "cluster GS: clusters chosen from the matrix, as PETSc\n"
                   "clustergs' default (MISPC_GS_THETA_ANISOTROPIC, lines and\n"
                   "block solves MISPC_GS_AUTO; overrides --theta, --lines, --block-solve)",
                   &automatic, 1),
      CLI_OPT_CALL("--tune", "NAME=VALUE", "a tuning knob, repeatable (below)", bench_tune_option,
                   &tune),
      CLI_OPT_FLAG("-v", "what the setup chose (stderr)", &verbose, 1),
      CLI_OPT_FLAG("-vv",
                   "also the time of each symbolic setup phase (stderr; synchronizes\n"
                   "between phases)",
                   &verbose, 2),
  };
  const cli_command cmd = {
      .name = "bench gs",
      .synopsis = "SPEC... [options]",
      .about = "Times the symbolic and numeric setup and one symmetric sweep of point and\n"
               "cluster multicolor Gauss-Seidel on the GPU (at most 64 matrices with values),\n"
               "against one double cuSPARSE SpMV, and checks x against the host's bit for bit.",
      CLI_SPEC_OPERANDS(opts, 64, "matrix"),
      .more_help = bench_print_tuning_help,
      .example = "mispc bench gs gen:laplace3d:100 gen:elasticity3d:60 --kind both --reps 20",
  };
  int rc = cli_args_parse(&cmd, argc, argv, 2, specs, &nspecs);
  if (rc) return rc == CLI_ARGS_HELP ? 0 : 2;
  const int kinds = which + 1; /* bit 0 point, bit 1 cluster */
  const mispc_coloring_algo coloring = coloring_index ? MISPC_COLORING_GREEDY : MISPC_COLORING_MIS;
  bench_print_header("gs", argc, argv);
  printf("# GPU medians of %d (ms); x = multiple of one double cuSPARSE SpMV on the matrix; "
         "resid = ||b - Ax|| / ||b|| after one symmetric sweep from x = 0, b = A*1\n",
         reps);
  printf("%-22s %-7s %7s %9s %6s %9s %9s %9s %7s %7s %7s %8s %6s\n", "matrix", "kind", "colors",
         "clusters", "single", "symb_ms", "num_ms", "sgs_ms", "x_setup", "x_sgs", "spmv64", "resid",
         "check");
  mispc_context *ctx;
  if (mispc_context_create(&ctx)) return 1;
  mispc_context_set_verbosity(ctx, verbose);
  mispc_context_set_logger(ctx, cli_log, NULL);
  int gpu = mispc_have_gpu();
  if (mispc_context_set_tuning_(ctx, &tune)) rc = cli_fail(ctx, "--tune", MISPC_ERR_INVALID_ARG);
  for (int si = 0; si < nspecs && !rc; ++si) {
    mispc_csr A = {0}, D = {0};
    if ((rc = cli_load(ctx, specs[si], 0, &A))) break;
    if (!A.values) { /* a pattern: a graph generator or a pattern .mtx */
      fprintf(stderr,
              "mispc bench gs: %s has no values (a pattern); Gauss-Seidel needs a matrix "
              "(gen:laplace2d, laplace3d, elasticity3d, aniso2d, aniso3d or a real .mtx)\n",
              specs[si]);
      mispc_csr_free(ctx, &A);
      rc = 2;
      break;
    }
    size_t n = (size_t)A.nrows;
    double *b = malloc(sizeof(double) * n);
    double *xh = malloc(sizeof(double) * n), *xg = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; ++i) { /* b = A * 1 */
      double s = 0;
      for (int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p) s += A.values[p];
      b[i] = s;
    }
    double *db = NULL, *dx = NULL, spmv = -1;
    if (gpu) {
      mispc_status s = mispc_csr_copy(ctx, &A, MISPC_MEM_DEVICE, &D);
      if (!s) s = mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(double) * n, (void **)&db);
      if (!s) s = mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(double) * n, (void **)&dx);
      if (!s) s = mispc_memcpy(ctx, db, MISPC_MEM_DEVICE, b, MISPC_MEM_HOST, sizeof(double) * n);
      if (s) {
        rc = cli_fail(ctx, "device copy", s);
        break;
      }
      spmv = bench_spmv_ms(ctx, &D, 1, 20);
    }
    for (int kind = 0; kind < 2 && !rc; ++kind) {
      if (!(kinds & (1 << kind))) continue;
      mispc_gs_options o;
      mispc_gs_options_default(&o);
      o.kind = kind ? MISPC_GS_CLUSTER : MISPC_GS_POINT;
      o.omega = omega;
      o.coloring.algo = coloring;
      if (recolor >= 0) o.coloring.recolor = recolor;
      if (kind) {
        o.block_size = block_size;
        o.strength_threshold = theta;
        o.line_clusters = lines;
        o.block_solve = block_solve;
        if (automatic) {
          o.strength_threshold = MISPC_GS_THETA_ANISOTROPIC;
          o.line_clusters = o.block_solve = MISPC_GS_AUTO;
        }
      }
      /* host reference: one symmetric sweep */
      mispc_gs *h = NULL;
      mispc_status s = mispc_gs_create(ctx, &o, &h);
      if (!s) s = mispc_gs_symbolic(ctx, h, &A);
      if (!s) s = mispc_gs_numeric(ctx, h, &A);
      if (!s) s = mispc_gs_apply(ctx, h, &A, b, xh, 1);
      mispc_gs_info info;
      mispc_gs_get_info(h, &info);
      mispc_gs_destroy(ctx, h);
      if (s) {
        rc = cli_fail(ctx, "host Gauss-Seidel", s);
        break;
      }
      double t_sym = -1, t_num = -1, t_sgs = -1;
      const char *check = "host";
      if (gpu) {
        double *ms = malloc(sizeof(double) * (size_t)reps * 3);
        bench_timer *t = NULL;
        bench_timer_create(ctx, &t);
        mispc_gs *g = NULL;
        for (int i = -1; i < reps && !s; ++i) { /* symbolic + numeric, fresh handle */
          mispc_gs_destroy(ctx, g);
          g = NULL;
          s = mispc_gs_create(ctx, &o, &g);
          bench_timer_start(t);
          if (!s) s = mispc_gs_symbolic(ctx, g, &D);
          double m1 = bench_timer_stop_ms(t);
          bench_timer_start(t);
          if (!s) s = mispc_gs_numeric(ctx, g, &D);
          double m2 = bench_timer_stop_ms(t);
          if (i >= 0) ms[i] = m1, ms[reps + i] = m2;
        }
        for (int i = -2; i < reps && !s; ++i) { /* one symmetric sweep */
          bench_timer_start(t);
          s = mispc_gs_apply(ctx, g, &D, db, dx, 1);
          double m = bench_timer_stop_ms(t);
          if (i >= 0) ms[2 * reps + i] = m;
        }
        if (!s) s = mispc_memcpy(ctx, xg, MISPC_MEM_HOST, dx, MISPC_MEM_DEVICE, sizeof(double) * n);
        mispc_gs_destroy(ctx, g);
        bench_timer_destroy(t);
        if (s) {
          free(ms);
          rc = cli_fail(ctx, "GPU Gauss-Seidel", s);
          break;
        }
        t_sym = bench_median(ms, reps);
        t_num = bench_median(ms + reps, reps);
        t_sgs = bench_median(ms + 2 * reps, reps);
        free(ms);
        check = memcmp(xg, xh, sizeof(double) * n) ? "DIFF" : "ok";
      }
      printf("%-22s %-7s %7d %9lld %6lld %9.3f %9.3f %9.4f %7.1f %7.2f %7.4f %8.4f %6s\n",
             specs[si], kind ? "cluster" : "point", info.ncolors, (long long)info.nclusters,
             (long long)info.singletons, t_sym, t_num, t_sgs,
             spmv > 0 ? (t_sym + t_num) / spmv : -1, spmv > 0 ? t_sgs / spmv : -1, spmv,
             rel_residual(&A, b, xh), check);
      fflush(stdout);
      if (!strcmp(check, "DIFF")) rc = 1;
    }
    free(b);
    free(xh);
    free(xg);
    mispc_free(ctx, MISPC_MEM_DEVICE, db);
    mispc_free(ctx, MISPC_MEM_DEVICE, dx);
    mispc_csr_free(ctx, &D);
    mispc_csr_free(ctx, &A);
  }
  mispc_context_destroy(ctx);
  return rc;
}
