/* mispc bench agg: strength graph + MIS-2 aggregation timed against one
 * cuSPARSE SpMV on the same matrix and against MIS-2 alone on the strength
 * graph, all in the same run (docs/BENCHMARKS.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gpu.h"
#include "bench_util.h"
#include "cli.h"
#include "tuning.h"

static int same_aggregates(mispc_context *ctx, const mispc_aggregates *h,
                           const mispc_aggregates *d) {
  if (h->naggs != d->naggs) return 0;
  int32_t *a = malloc(sizeof(int32_t) * (size_t)(h->n + 1));
  int32_t *r = malloc(sizeof(int32_t) * (size_t)(h->naggs + 1));
  int same =
      !mispc_memcpy(ctx, a, MISPC_MEM_HOST, d->agg, d->mem, sizeof(int32_t) * (size_t)h->n) &&
      !mispc_memcpy(ctx, r, MISPC_MEM_HOST, d->root, d->mem, sizeof(int32_t) * (size_t)h->naggs) &&
      !memcmp(a, h->agg, sizeof(int32_t) * (size_t)h->n) &&
      !memcmp(r, h->root, sizeof(int32_t) * (size_t)h->naggs) && !h->parent == !d->parent;
  if (same && h->parent) /* split families (--max-size) */
    same = !mispc_memcpy(ctx, r, MISPC_MEM_HOST, d->parent, d->mem,
                         sizeof(int32_t) * (size_t)h->naggs) &&
           !memcmp(r, h->parent, sizeof(int32_t) * (size_t)h->naggs);
  free(a);
  free(r);
  return same;
}

int cmd_bench_agg(int argc, char **argv) {
  int reps = 10, bs_opt = 0, algo_index = 0, isolated = 0, verbose = 0;
  mispc_tuning tune = {0};
  long long max_size = 0;
  double theta = 0;
  const char *specs[64];
  int nspecs = 0;
  const cli_opt opts[] = {
      CLI_OPT_CHOICE("--algo", "mis2agg|mis2basic", "aggregation (default mis2agg)", &algo_index),
      CLI_OPT_CHOICE("--isolated", "singletons|collect",
                     "isolated vertices: singletons (default) or one aggregate", &isolated),
      CLI_OPT_LLONG("--max-size", "N", "split aggregates above N vertices (default 0: no bound)",
                    &max_size, 0, INT64_MAX),
      CLI_OPT_REAL("--theta", "T", "strength threshold (default 0)", &theta, 0, 1e300),
      CLI_OPT_INT("--block-size", "B", "rows per node (default 3 for gen:elasticity3d, else 1)",
                  &bs_opt, 1, 1 << 20),
      CLI_OPT_INT("--reps", "N", "timed repetitions (default 10; the median is reported)", &reps, 1,
                  1000000),
      CLI_OPT_CALL("--tune", "NAME=VALUE", "a tuning knob, repeatable (below)", bench_tune_option,
                   &tune),
      CLI_OPT_FLAG("-vv",
                   "the time of each phase of the strength graph and the aggregation\n"
                   "(stderr; synchronizes between phases, so use it with --reps 1)",
                   &verbose, 2),
  };
  const cli_command cmd = {
      .name = "bench agg",
      .synopsis = "SPEC... [options]",
      .about = "Times the strength graph, MIS-2 alone on it and the whole aggregation on\n"
               "the GPU (at most 64 matrices), against one cuSPARSE SpMV on the matrix,\n"
               "and checks the GPU aggregates against the host's.",
      CLI_SPEC_OPERANDS(opts, 64, "matrix"),
      .more_help = bench_print_tuning_help,
      .example = "mispc bench agg gen:laplace3d:100 gen:elasticity3d:60 --algo mis2agg --reps 10",
  };
  int rc = cli_args_parse(&cmd, argc, argv, 2, specs, &nspecs);
  if (rc) return rc == CLI_ARGS_HELP ? 0 : 2;
  const mispc_agg_algo algo = algo_index ? MISPC_AGG_MIS2BASIC : MISPC_AGG_MIS2AGG;
  bench_print_header("agg", argc, argv);
  printf("# times: GPU medians of %d (ms); xSpMV = multiple of one float cuSPARSE SpMV on "
         "the matrix; phases are wall times of one run\n",
         reps);
  printf("%-22s %-9s %9s %9s %8s %6s %8s %8s %8s %8s %8s %8s %7s %7s %6s\n", "matrix", "algo",
         "nodes", "aggs", "meansize", "single", "strength", "mis2", "agg", "ph1", "ph2", "ph3",
         "xSpMV", "agg/mis2", "check");
  mispc_context *ctx;
  if (mispc_context_create(&ctx)) return 1;
  mispc_context_set_verbosity(ctx, verbose);
  mispc_context_set_logger(ctx, cli_log, NULL);
  int gpu = mispc_have_gpu();
  if (mispc_context_set_tuning_(ctx, &tune)) rc = cli_fail(ctx, "--tune", MISPC_ERR_INVALID_ARG);
  for (int si = 0; si < nspecs && !rc; ++si) {
    int bs = bs_opt ? bs_opt : !strncmp(specs[si], "gen:elasticity3d", 16) ? 3 : 1;
    mispc_csr A = {0}, S = {0}, DA = {0}, DS = {0};
    if ((rc = cli_load(ctx, specs[si], 0, &A))) break;
    mispc_agg_options o;
    mispc_agg_options_default(&o);
    o.algo = algo;
    o.isolated = isolated ? MISPC_ISOLATED_COLLECT : MISPC_ISOLATED_SINGLETONS;
    o.max_size = (int64_t)max_size;
    mispc_aggregates ha, da;
    mispc_status s = mispc_strength_graph(ctx, &A, theta, bs, &S);
    if (!s) s = mispc_aggregate(ctx, &S, &o, &ha);
    if (!s) s = mispc_verify_aggregation(ctx, &S, &ha);
    if (s) {
      rc = cli_fail(ctx, specs[si], s);
      mispc_csr_free(ctx, &A);
      mispc_csr_free(ctx, &S);
      break;
    }
    mispc_agg_stats st;
    mispc_aggregates_stats(ctx, &ha, &st);
    double t_str = -1, t_mis = -1, t_agg = -1, spmv = -1, ph[3] = {-1, -1, -1};
    const char *check = "ok";
    if (gpu) {
      s = mispc_csr_copy(ctx, &A, MISPC_MEM_DEVICE, &DA);
      if (s) {
        rc = cli_fail(ctx, "device copy", s);
        break;
      }
      spmv = bench_spmv_ms(ctx, &DA, 0, 20);
      bench_timer *t = NULL;
      bench_timer_create(ctx, &t);
      double *ms = malloc(sizeof(double) * (size_t)reps);
      for (int i = -2; i < reps && !s; ++i) { /* strength graph */
        mispc_csr_free(ctx, &DS);
        bench_timer_start(t);
        s = mispc_strength_graph(ctx, &DA, theta, bs, &DS);
        double m = bench_timer_stop_ms(t);
        if (i >= 0) ms[i] = m;
      }
      t_str = bench_median(ms, reps);
      uint8_t *set = NULL;
      if (!s) s = mispc_malloc(ctx, MISPC_MEM_DEVICE, (size_t)DS.nrows + 1, (void **)&set);
      mispc_mis_options mo;
      mispc_mis_options_default(&mo);
      mo.skip_validation = 1;
      for (int i = -2; i < reps && !s; ++i) { /* MIS-2 alone */
        bench_timer_start(t);
        s = mispc_mis2(ctx, &DS, &mo, set, NULL);
        double m = bench_timer_stop_ms(t);
        if (i >= 0) ms[i] = m;
      }
      t_mis = bench_median(ms, reps);
      mispc_free(ctx, MISPC_MEM_DEVICE, set);
      o.mis.skip_validation = 1;
      for (int i = -2; i < reps && !s; ++i) { /* aggregation */
        if (i > -2) mispc_aggregates_free(ctx, &da);
        bench_timer_start(t);
        s = mispc_aggregate(ctx, &DS, &o, &da);
        double m = bench_timer_stop_ms(t);
        if (i >= 0) ms[i] = m;
      }
      t_agg = bench_median(ms, reps);
      for (int k = 0; k < 3; ++k) ph[k] = 1e3 * da.phase_seconds[k];
      free(ms);
      bench_timer_destroy(t);
      if (s) {
        rc = cli_fail(ctx, "GPU aggregation", s);
        break;
      }
      if (!same_aggregates(ctx, &ha, &da)) check = "DIFF";
      mispc_aggregates_free(ctx, &da);
    }
    printf("%-22s %-9s %9lld %9lld %8.2f %6lld %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %7.2f %7.2f "
           "%6s\n",
           specs[si], algo == MISPC_AGG_MIS2AGG ? "mis2agg" : "mis2basic", (long long)S.nrows,
           (long long)st.naggs, st.mean_size, (long long)st.singletons, t_str, t_mis, t_agg, ph[0],
           ph[1], ph[2], t_agg > 0 && spmv > 0 ? t_agg / spmv : -1,
           t_agg > 0 && t_mis > 0 ? t_agg / t_mis : -1, check);
    fflush(stdout);
    if (strcmp(check, "ok")) rc = 1;
    mispc_aggregates_free(ctx, &ha);
    mispc_csr_free(ctx, &A);
    mispc_csr_free(ctx, &S);
    mispc_csr_free(ctx, &DA);
    mispc_csr_free(ctx, &DS);
  }
  mispc_context_destroy(ctx);
  return rc;
}
