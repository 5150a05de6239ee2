/* mispc bench mis1|mis2: MIS kernels timed against one cuSPARSE SpMV on the
 * same graph in the same run (see docs/BENCHMARKS.md). */
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gpu.h"
#include "bench_util.h"
#include "cli.h"
#include "tuning.h"

typedef struct variant {
  const char *name;
  mispc_mis_options opt;
  mispc_tuning tune; /* the ablation switches (src/tuning.h), set on the context */
} variant;

typedef mispc_status (*mis_fn)(mispc_context *, const mispc_csr *, const mispc_mis_options *,
                               uint8_t *, mispc_mis_result *);

/* Median host wall time (ms) of fn over reps runs with nt threads. */
static double host_ms(mispc_context *ctx, mis_fn fn, const mispc_csr *A,
                      const mispc_mis_options *opt, uint8_t *set, int nt, int reps) {
  mispc_context_set_num_threads(ctx, nt);
  double *t = (double *)malloc(sizeof(double) * (size_t)reps);
  mispc_mis_result r;
  for (int i = 0; i < reps; ++i) {
    double t0 = mispc_wtime();
    fn(ctx, A, opt, set, &r);
    t[i] = 1e3 * (mispc_wtime() - t0);
  }
  double med = bench_median(t, reps);
  free(t);
  mispc_context_set_num_threads(ctx, 0);
  return med;
}

static void bench_usage(FILE *f) {
  fprintf(f, "usage: mispc bench mis1|mis2|agg|gs SPEC... [options]\n"
             "  Times a kernel on the GPU (CUDA events, median of --reps runs) against one\n"
             "  cuSPARSE SpMV on the same matrix in the same run, and checks that the GPU\n"
             "  result equals the host's bit for bit (docs/BENCHMARKS.md). Without a GPU\n"
             "  the host result and its check are printed.\n"
             "kernels (mispc bench KERNEL --help: its options and an example):\n"
             "  mis1, mis2   MIS-1 / MIS-2 (with --ablation: each optimisation switched off)\n"
             "  agg          strength graph and MIS-2 aggregation\n"
             "  gs           point and cluster multicolor Gauss-Seidel, setup and apply\n"
             "example:\n"
             "  mispc bench mis2 gen:laplace3d:100 gen:elasticity3d:60 --reps 20\n");
  bench_print_tuning_help(f);
}

static void mis_more_help(FILE *f) {
  fprintf(f, "The rounds column is the host's synchronous round count; gpuR is the GPU's\n"
             "(0 where MIS-1 ran its sync-free pass, which has no rounds: docs/MIS.md).\n");
  bench_print_tuning_help(f);
}

int cmd_bench(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    bench_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "agg")) return cmd_bench_agg(argc, argv);
  if (!strcmp(argv[1], "gs")) return cmd_bench_gs(argc, argv);
  int k = !strcmp(argv[1], "mis1") ? 1 : !strcmp(argv[1], "mis2") ? 2 : 0;
  if (!k) {
    fprintf(stderr, "mispc bench: unknown kernel '%s' (mis1, mis2, agg or gs)\n", argv[1]);
    return 2;
  }
  mis_fn fn = k == 1 ? mispc_mis1 : mispc_mis2;
  int reps = 20, warmup = 3, ablation = 0, host_timing = 0, symmetrize = 0, prio = -1;
  const char *json = NULL;
  const char *specs[64];
  int nspecs = 0;
  mispc_mis_options base;
  mispc_mis_options_default(&base);
  mispc_tuning tune = {0};
  const cli_opt opts[] = {
      CLI_OPT_INT("--reps", "N", "timed repetitions (default 20; the median is reported)", &reps, 1,
                  1000000),
      CLI_OPT_INT("--warmup", "N", "untimed runs first (default 3)", &warmup, 0, 1000000),
      CLI_OPT_TEXT("--json", "FILE", "also write the results as JSON", &json),
      CLI_OPT_FLAG("--ablation", "also run with each optimisation switched off", &ablation, 1),
      CLI_OPT_FLAG("--host-timing", "also time the host backend (all threads and 1 thread)",
                   &host_timing, 1),
      CLI_OPT_SEED("--seed", "S", "hash seed (default 0)", &base.seed),
      CLI_OPT_CHOICE("--priority", CLI_PRIORITY_WORDS, "priority order (default: the kernel's own)",
                     &prio),
      CLI_OPT_FLAG("--symmetrize", "use the pattern of A + A^T", &symmetrize, 1),
      CLI_OPT_FLAG("--no-early-exit", "ablation: MIS-1 scans all neighbours of every vertex",
                   &tune.mis_no_early_exit, 1),
      CLI_OPT_FLAG("--no-warp", "ablation: a thread a vertex regardless of degree",
                   &tune.mis_no_warp_mapping, 1),
      CLI_OPT_FLAG("--force-warp", "ablation: MIS-2 a warp a vertex regardless of degree",
                   &tune.mis_force_warp_mapping, 1),
      CLI_OPT_FLAG("--no-worklist", "ablation: every vertex every round", &tune.mis_no_worklist, 1),
      CLI_OPT_FLAG("--no-persistent", "ablation: one launch a round", &tune.mis_no_persistent, 1),
      CLI_OPT_FLAG("--no-sync-free", "ablation: MIS-1 in rounds where the sync-free pass runs",
                   &tune.mis_no_sync_free, 1),
      CLI_OPT_CALL("--tune", "NAME=VALUE", "a tuning knob, repeatable (below)", bench_tune_option,
                   &tune),
  };
  const cli_command cmd = {
      .name = k == 1 ? "bench mis1" : "bench mis2",
      .synopsis = "SPEC... [options]",
      .about = "Times MIS-1 / MIS-2 on the GPU against one cuSPARSE SpMV on the same graph\n"
               "(at most 64 graphs) and checks the GPU set against the host's.",
      CLI_SPEC_OPERANDS(opts, 64, "graph"),
      .more_help = mis_more_help,
      .example = k == 1 ? "mispc bench mis1 gen:laplace3d:100 gen:kron:21 --reps 30 --ablation"
                        : "mispc bench mis2 gen:laplace3d:100 gen:elasticity3d:60 --reps 20",
  };
  int rc = cli_args_parse(&cmd, argc, argv, 2, specs, &nspecs);
  if (rc) return rc == CLI_ARGS_HELP ? 0 : 2;
  if (prio >= 0) base.priority = cli_priority(prio);
  /* Variants: the chosen options, then each optimisation switched off. */
  variant vars[10];
  int nvar = 0;
  for (size_t v = 0; v < sizeof vars / sizeof *vars; ++v) vars[v].opt = base, vars[v].tune = tune;
  vars[nvar++].name = "default";
  if (ablation) {
    if (k == 1) {
      vars[nvar].tune.mis_no_early_exit = 1, vars[nvar++].name = "no-early-exit";
      vars[nvar].opt.priority = MISPC_PRIORITY_HASH, vars[nvar++].name = "hash-priority";
      vars[nvar].tune.mis_no_sync_free = 1, vars[nvar++].name = "no-sync-free";
    } else {
      vars[nvar].opt.priority = MISPC_PRIORITY_HASH, vars[nvar++].name = "fixed-priority";
      vars[nvar].tune.mis_force_warp_mapping = 1, vars[nvar++].name = "force-warp";
    }
    vars[nvar].tune.mis_no_warp_mapping = 1, vars[nvar++].name = "no-warp";
    vars[nvar].tune.mis_no_worklist = 1, vars[nvar++].name = "no-worklist";
    vars[nvar].tune.mis_no_persistent = 1, vars[nvar++].name = "no-persistent";
    vars[nvar].tune.mis_no_smem = 1, vars[nvar++].name = "no-smem";
  }

  char dev[256]; /* for the JSON record */
  bench_device_name(dev, sizeof dev);
  bench_print_header(k == 1 ? "mis1" : "mis2", argc, argv);
  printf("# host threads: %d\n", omp_get_max_threads());
  printf("# unit: one cuSPARSE CSR SpMV (float, 32-bit indices, default algorithm) on the "
         "same graph, median of %d\n",
         reps);
  printf("%-26s %-15s %10s %11s %6s %5s %10s %7s %9s %9s %9s %7s %6s\n", "graph", "variant", "rows",
         "entries", "rounds", "gpuR", "set", "%|V|", "ms", "spmv32ms", "spmv64ms", "xSpMV",
         "check");
  FILE *jf = json ? fopen(json, "w") : NULL;
  if (json && !jf) {
    fprintf(stderr, "mispc bench: cannot write %s: %s\n", json, strerror(errno));
    return 1;
  }
  if (jf) fprintf(jf, "{\"device\": \"%s\", \"kernel\": \"mis%d\", \"results\": [\n", dev, k);
  int first_json = 1;

  mispc_context *ctx;
  if (mispc_context_create(&ctx)) return 1;
  int gpu = mispc_have_gpu();
  for (int si = 0; si < nspecs && !rc; ++si) {
    mispc_csr A = {0}, D = {0};
    if ((rc = cli_load(ctx, specs[si], symmetrize, &A))) break;
    mispc_status s = mispc_csr_check(ctx, &A, MISPC_CHECK_GRAPH);
    if (s) {
      rc = cli_fail(ctx, specs[si], s);
      mispc_csr_free(ctx, &A);
      break;
    }
    uint8_t *hset = (uint8_t *)malloc((size_t)A.nrows + 1);
    uint8_t *gset = (uint8_t *)malloc((size_t)A.nrows + 1);
    uint8_t *dset = NULL;
    double spmv32 = -1, spmv64 = -1;
    if (gpu) {
      s = mispc_csr_copy(ctx, &A, MISPC_MEM_DEVICE, &D);
      if (!s) s = mispc_malloc(ctx, MISPC_MEM_DEVICE, (size_t)A.nrows + 1, (void **)&dset);
      if (s) {
        rc = cli_fail(ctx, "device copy", s);
        break;
      }
      spmv32 = bench_spmv_ms(ctx, &D, 0, reps);
      spmv64 = bench_spmv_ms(ctx, &D, 1, reps);
    }
    for (int vi = 0; vi < nvar && !rc; ++vi) {
      mispc_mis_options o = vars[vi].opt;
      const mispc_tuning *tu = &vars[vi].tune;
      o.skip_validation = 1; /* checked once above, outside the timing */
      if ((s = mispc_context_set_tuning_(ctx, tu))) {
        rc = cli_fail(ctx, "--tune", s);
        break;
      }
      mispc_mis_result hr = {0, 0}, gr = {0, 0};
      /* Host result: the reference for determinism and the verify check. */
      s = fn(ctx, &A, &o, hset, &hr);
      if (s) {
        rc = cli_fail(ctx, "host MIS", s);
        break;
      }
      const char *check = mispc_verify_mis(ctx, &A, k, hset) ? "BAD" : "ok";
      double med = -1;
      if (gpu) {
        bench_timer *t = NULL;
        bench_timer_create(ctx, &t);
        double *ms = (double *)malloc(sizeof(double) * (size_t)reps);
        for (int i = -warmup; i < reps && !s; ++i) {
          bench_timer_start(t);
          s = fn(ctx, &D, &o, dset, &gr);
          double m = bench_timer_stop_ms(t);
          if (i >= 0) ms[i] = m;
        }
        bench_timer_destroy(t);
        if (s) {
          rc = cli_fail(ctx, "GPU MIS", s);
          free(ms);
          break;
        }
        med = bench_median(ms, reps);
        free(ms);
        mispc_memcpy(ctx, gset, MISPC_MEM_HOST, dset, MISPC_MEM_DEVICE, (size_t)A.nrows);
        /* MIS-1's sync-free pass reports no rounds; it never runs under these switches */
        const int may_be_sync_free = k == 1 && !tu->mis_no_sync_free && !tu->mis_no_worklist &&
                                     !tu->mis_no_persistent && !o.max_rounds;
        int same = !memcmp(gset, hset, (size_t)A.nrows) &&
                   (gr.rounds == hr.rounds || (may_be_sync_free && gr.rounds == 0));
        if (!same) check = "DIFF";
      }
      printf("%-26s %-15s %10lld %11lld %6d %5d %10lld %7.3f %9.4f %9.4f %9.4f %7.2f %6s\n",
             specs[si], vars[vi].name, (long long)A.nrows, (long long)A.nnz, hr.rounds,
             gpu ? gr.rounds : -1, (long long)hr.set_size,
             A.nrows ? 100.0 * (double)hr.set_size / (double)A.nrows : 0, med, spmv32, spmv64,
             med > 0 && spmv32 > 0 ? med / spmv32 : -1, check);
      double h_all = -1, h_one = -1;
      if (host_timing && vi == 0) {
        int hreps = reps < 5 ? reps : 5;
        h_all = host_ms(ctx, fn, &A, &o, hset, 0, hreps);
        h_one = host_ms(ctx, fn, &A, &o, hset, 1, hreps);
        printf("%-26s %-15s host: %.2f ms with %d threads, %.2f ms with 1 thread, speedup "
               "%.2fx\n",
               specs[si], "host", h_all, omp_get_max_threads(), h_one, h_one / h_all);
      }
      if (jf) {
        fprintf(jf,
                "%s  {\"graph\": \"%s\", \"variant\": \"%s\", \"rows\": %lld, \"entries\": %lld, "
                "\"rounds\": %d, \"gpu_rounds\": %d, \"set_size\": %lld, \"gpu_ms\": %.6f, "
                "\"spmv32_ms\": %.6f, "
                "\"spmv64_ms\": %.6f, \"spmv_equivalents\": %.4f, \"check\": \"%s\", "
                "\"host_ms_all_threads\": %.4f, \"host_ms_1_thread\": %.4f}",
                first_json ? "" : ",\n", specs[si], vars[vi].name, (long long)A.nrows,
                (long long)A.nnz, hr.rounds, gpu ? gr.rounds : -1, (long long)hr.set_size, med,
                spmv32, spmv64, med > 0 && spmv32 > 0 ? med / spmv32 : -1, check, h_all, h_one);
        first_json = 0;
      }
      if (strcmp(check, "ok")) rc = 1;
    }
    fflush(stdout);
    mispc_free(ctx, MISPC_MEM_DEVICE, dset);
    mispc_csr_free(ctx, &D);
    mispc_csr_free(ctx, &A);
    free(hset);
    free(gset);
  }
  if (jf) {
    fprintf(jf, "\n]}\n");
    if (cli_close_output("bench", jf, json)) rc = 1;
  }
  mispc_context_destroy(ctx);
  return rc;
}
