/* mispc coarsen: multilevel MIS-2 aggregation of a matrix's strength graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_dist.h"

/* The level-0 labels on the host: their checksum (compare with mpiexec
 * runs), and the file when path is not NULL. */
static int level0_labels(mispc_context *ctx, const char *path, const mispc_aggregates *a,
                         uint64_t *checksum) {
  int32_t *lab = (int32_t *)malloc(sizeof(int32_t) * (size_t)(a->n + 1));
  if (!lab) {
    fprintf(stderr, "mispc coarsen: out of memory\n");
    return 1;
  }
  mispc_status s =
      mispc_memcpy(ctx, lab, MISPC_MEM_HOST, a->agg, a->mem, sizeof(int32_t) * (size_t)a->n);
  if (s) {
    free(lab);
    return cli_fail(ctx, "copy labels", s);
  }
  *checksum = cli_checksum_i32(0, a->n, lab);
  if (!path) {
    free(lab);
    return 0;
  }
  FILE *f = fopen(path, "w");
  int rc = 0;
  if (!f) {
    perror(path);
    rc = 1;
  } else {
    for (int64_t v = 0; v < a->n; ++v) fprintf(f, "%d\n", lab[v]);
    rc = cli_close_output("coarsen", f, path);
  }
  free(lab);
  return rc;
}

int cmd_coarsen(int argc, char **argv) {
  const char *spec = NULL, *outfile = NULL;
  int use_gpu = -1, no_verify = 0, verbose = 0, threads = 0, levels = 10, bs = 1, algo = 0,
      isolated = 0, hist = 0, cover = 0;
  long long min_size = 100, max_size = 0;
  double theta = 0;
  mispc_agg_options opt;
  mispc_agg_options_default(&opt);
  const cli_opt opts[] = {
      CLI_OPT_CHOICE("--algo", "mis2agg|mis2basic",
                     "aggregation: mis2agg (Alg. 3, default) or mis2basic (Alg. 2)", &algo),
      CLI_OPT_CHOICE("--isolated", "singletons|collect",
                     "isolated vertices: each its own aggregate (default), or all\n"
                     "in one aggregate a level, so the levels keep shrinking\n"
                     "on graphs with many of them (power-law, social)",
                     &isolated),
      CLI_OPT_LLONG("--max-size", "N",
                    "split aggregates of more than N vertices (N >= 2) into\n"
                    "pieces of consecutive members (default 0: no bound; for\n"
                    "the hubs of power-law graphs)",
                    &max_size, 0, INT64_MAX),
      CLI_OPT_INT("--phase2-min-free", "K",
                  "mis2agg: a secondary root needs K unaggregated\n"
                  "neighbours (default 2, Alg. 3; larger: fewer, larger\n"
                  "aggregates)",
                  &opt.phase2_min_free, 0, INT32_MAX),
      CLI_OPT_INT("--levels", "L", "at most L levels (default 10)", &levels, 0, 1000),
      CLI_OPT_LLONG("--min-size", "N", "stop once a graph has <= N vertices (default 100)",
                    &min_size, 0, INT64_MAX),
      CLI_OPT_REAL("--theta", "T",
                   "strength threshold: |a_ij| > T sqrt(|a_ii a_jj|) (default 0;\n"
                   "ignored for a pattern input)",
                   &theta, 0, 1e300),
      CLI_OPT_INT("--block-size", "B", "rows per node of the strength graph (default 1)", &bs, 1,
                  1 << 20),
      CLI_OPT_SEED("--seed", "S", "MIS-2 hash seed (default 0)", &opt.mis.seed),
      CLI_OPT_CHOICE("--priority", "per-round|cover",
                     "MIS-2 priority: per-round hash (default) or cover\n(most undecided vertices "
                     "within distance 2 first:\nfewer, larger aggregates; GPUs: one process)",
                     &cover),
      CLI_OPTS_BACKEND(&use_gpu),
      CLI_OPT_THREADS(&threads),
      CLI_OPT_FLAG("--no-verify", "skip checking every level's aggregates", &no_verify, 1),
      CLI_OPT_FLAG("--hist", "print every level's aggregate sizes (count of each size)", &hist, 1),
      CLI_OPT_TEXT("-o", "FILE",
                   "write the level-0 aggregate id of every strength-graph\n"
                   "vertex (node), one per line; when no level is aggregated\n"
                   "(a graph of <= --min-size vertices, or --levels 0) FILE\n"
                   "is not written and the exit status is 1",
                   &outfile),
      CLI_OPT_FLAG("-v", "progress output", &verbose, 1),
  };
  const cli_command cmd = {
      .name = "coarsen",
      .synopsis = "SPEC [options]",
      .about = "Multilevel MIS-2 aggregation: builds the strength graph of the matrix SPEC,\n"
               "aggregates it, builds the coarse graph and repeats; prints every level's\n"
               "sizes, the graph complexity and a checksum of the level-0 aggregates.",
      CLI_SPEC_OPERANDS(opts, 1, "matrix"),
      .notes = "Under mpiexec, or with --dist, the ranks aggregate level 0 together (an\n"
               "mispc built with MPI: mispc coarsen --dist --help).",
      .example = "mispc coarsen gen:elasticity3d:60 --block-size 3 --algo mis2agg",
  };
  int npos = 0, rc = cli_args_parse(&cmd, argc, argv, 1, &spec, &npos);
  if (rc) return rc == CLI_ARGS_HELP ? 0 : 2;
  opt.algo = algo ? MISPC_AGG_MIS2BASIC : MISPC_AGG_MIS2AGG;
  if (cover == 1) opt.mis.priority = MISPC_PRIORITY_COVER;
  opt.isolated = isolated ? MISPC_ISOLATED_COLLECT : MISPC_ISOLATED_SINGLETONS;
  opt.max_size = (int64_t)max_size;
  const int verify = !no_verify;
  mispc_context *ctx;
  if (cli_context("coarsen", verbose, threads, &use_gpu, &ctx)) return 1;
  const char *where = use_gpu ? "GPU" : "host";
  mispc_csr A = {0}, S = {0}, G = {0};
  rc = cli_load(ctx, spec, 0, &A);
  mispc_status s = MISPC_SUCCESS;
  /* The strength graph once, on the host; then everything in one space. */
  if (!rc) {
    double t = mispc_wtime();
    s = mispc_strength_graph(ctx, &A, theta, bs, &S);
    t = mispc_wtime() - t;
    if (s) {
      rc = cli_fail(ctx, "strength graph", s);
    } else {
      printf("coarsen %s on %s: %s, strength graph %lld vertices, %lld edges (theta %g%s, block "
             "size %d), %.3f ms\n",
             spec, where, opt.algo == MISPC_AGG_MIS2AGG ? "mis2agg" : "mis2basic",
             (long long)S.nrows, (long long)(S.nnz / 2), theta,
             A.values || theta == 0 ? "" : " ignored: pattern input", bs, 1e3 * t);
    }
  }
  mispc_csr_free(ctx, &A);
  if (!rc && use_gpu) {
    s = mispc_csr_copy(ctx, &S, MISPC_MEM_DEVICE, &G);
    mispc_csr_free(ctx, &S);
    if (s) rc = cli_fail(ctx, "copy to GPU", s);
  } else if (!rc) {
    G = S;
  }
  int level = 0;
  uint64_t checksum = 0;
  int64_t fine_edges = G.nnz / 2, all_edges = 0;
  if (!rc) {
    printf("%5s %10s %11s %10s %7s %5s %5s %10s %10s\n", "level", "vertices", "edges", "aggregates",
           "mean", "min", "max", "singletons", "time_ms");
    all_edges = fine_edges;
  }
  while (!rc && level < levels && G.nrows > min_size) {
    mispc_aggregates a;
    mispc_csr C;
    double t = mispc_wtime();
    s = mispc_aggregate(ctx, &G, &opt, &a);
    if (s) {
      rc = cli_fail(ctx, "aggregate", s);
      break;
    }
    s = mispc_coarse_graph(ctx, &G, &a, &C);
    t = mispc_wtime() - t;
    if (s) {
      mispc_aggregates_free(ctx, &a);
      rc = cli_fail(ctx, "coarse graph", s);
      break;
    }
    mispc_agg_stats st;
    s = mispc_aggregates_stats(ctx, &a, &st);
    if (!s && verify) s = mispc_verify_aggregation(ctx, &G, &a);
    if (s) {
      rc = cli_fail(ctx, verify ? "verify" : "statistics", s);
    } else {
      printf("%5d %10lld %11lld %10lld %7.2f %5lld %5lld %10lld %10.3f\n", level,
             (long long)G.nrows, (long long)(G.nnz / 2), (long long)a.naggs, st.mean_size,
             (long long)st.min_size, (long long)st.max_size, (long long)st.singletons, 1e3 * t);
      if (hist) { /* "size:count", sizes 1 .. 30, then 31 and more */
        printf("      sizes");
        for (int z = 1; z < 32; ++z)
          if (st.hist[z]) printf(" %d%s:%lld", z, z == 31 ? "+" : "", (long long)st.hist[z]);
        printf("\n");
      }
      if (level == 0) rc = level0_labels(ctx, outfile, &a, &checksum);
    }
    mispc_aggregates_free(ctx, &a);
    const int reduced = C.nrows < G.nrows;
    mispc_csr_free(ctx, &G);
    G = C;
    ++level;
    if (!rc) all_edges += G.nnz / 2;
    if (!reduced) {
      printf("no reduction at level %d: stopping\n", level - 1);
      break;
    }
  }
  if (!rc) {
    printf("coarsest: %lld vertices, %lld edges after %d level%s; graph complexity %.3f "
           "(edges on all levels / fine edges)\n",
           (long long)G.nrows, (long long)(G.nnz / 2), level, level == 1 ? "" : "s",
           fine_edges ? (double)all_edges / (double)fine_edges : 1.0);
    if (level > 0) printf("checksum %016llx (level-0 labels)\n", (unsigned long long)checksum);
    if (verify && level > 0) printf("verified: every level is a valid aggregation\n");
  }
  if (!rc && outfile && level == 0) {
    if (levels == 0)
      fprintf(stderr, "mispc coarsen: --levels 0: nothing aggregated, so %s was not written\n",
              outfile);
    else
      fprintf(stderr,
              "mispc coarsen: the strength graph has %lld vertices, at most --min-size %lld: "
              "nothing aggregated, so %s was not written (a lower --min-size aggregates it)\n",
              (long long)G.nrows, min_size, outfile);
    rc = 1;
  }
  mispc_csr_free(ctx, &G);
  mispc_context_destroy(ctx);
  return rc;
}
