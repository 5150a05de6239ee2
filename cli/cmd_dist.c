/* mis, color and coarsen under mpiexec: the graph is split into even row
 * ranges (stencil generators make each rank's own rows), the distributed
 * call runs on the host or one GPU a rank (several ranks may share a GPU),
 * rank 0 prints the result, an order-free checksum equal to the one-process
 * run's, the rounds, the traffic and the time split, and peak memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli.h"
#include "cli_dist.h"
#include "mispc/config.h"

int cli_dist_requested(int argc, char **argv) {
#if MISPC_ENABLE_MPI
  for (int a = 1; a < argc; ++a)
    if (!strcmp(argv[a], "--dist")) return 1;
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
#else
  (void)argc, (void)argv;
  return 0;
#endif
}

#if !MISPC_ENABLE_MPI
int cmd_dist(int argc, char **argv) {
  (void)argc;
  fprintf(stderr, "mispc %s: this mispc was built without MPI\n", argv[0]);
  return 1;
}
#else
#include <mpi.h>

#include "bench_util.h"
#include "mispc/dist.h"
#include "tuning.h"

/* Largest resident set of this process so far, in MiB. */
static double peak_rss_mib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / 1024.0;
}

typedef struct dist_args {
  cli_dist_common c; /* first: cli_dist_begin reads it */
  const char *spec;
  int k, verify, symmetrize, repeat, recolor;
  mispc_mis_options mis;
  int algo_greedy, algo_basic;
} dist_args;

/* Reads the arguments of a->c.cmd (mis, color or coarsen) under mpiexec:
 * -1 to go on, else the exit status (0 after --help). */
static int parse(int argc, char **argv, void *args) {
  dist_args *a = (dist_args *)args;
  memset(a, 0, sizeof *a);
  a->c.cmd = argv[0];
  a->k = 1, a->c.threads = 1, a->repeat = 1;
  mispc_mis_options_default(&a->mis);
  int dist = 0, prio = -1, no_verify = 0, algo = 0;
  const int is_mis = !strcmp(a->c.cmd, "mis"), is_color = !strcmp(a->c.cmd, "color");
  /* The options of every command, then those of this one. */
  const cli_opt common[] = {
      CLI_OPT_FLAG("--dist", "run distributed even outside mpiexec (one rank)", &dist, 1),
      CLI_OPT_SEED("--seed", "S", "hash seed (default 0)", &a->mis.seed),
      CLI_OPT_CHOICE("--priority", CLI_PRIORITY_WORDS,
                     "MIS priority order (default: the call's own)", &prio),
      CLI_OPT_FLAG("--host", "host backend (default)", &a->c.gpu, 0),
      CLI_OPT_FLAG("--gpu", "the GPU, one a rank or shared", &a->c.gpu, 1),
      CLI_OPT_FLAG("--symmetrize", "use the pattern of A + A^T", &a->symmetrize, 1),
      CLI_OPT_INT("--repeat", "N", "run the call N times, report the fastest (default 1)",
                  &a->repeat, 1, 1000),
      CLI_OPT_FLAG("--no-verify", "skip the distributed check of the result", &no_verify, 1),
      CLI_OPT_INT("--threads", "N", "host threads a rank (default 1 under mpiexec)", &a->c.threads,
                  0, MISPC_MAX_THREADS),
      CLI_OPT_FLAG("-v", "progress output (rank 0)", &a->c.verbose, 1),
      CLI_OPT_FLAG("-vv", "also each phase's time (rank 0; waits for the GPU between phases)",
                   &a->c.verbose, 2),
      CLI_OPT_CALL("--tune", "NAME=VALUE",
                   "an internal tuning knob, repeatable (mispc bench mis2 --help lists them)",
                   bench_tune_option, &a->c.tune),
  };
  const cli_opt mis[] = {
      CLI_OPT_INT("-k", "K", "distance: 1 (MIS-1, default) or 2 (MIS-2)", &a->k, 1, 2),
  };
  const cli_opt color[] = {
      CLI_OPT_FLAG("--greedy", "greedy in vertex order instead of MIS-1 classes", &a->algo_greedy,
                   1),
      CLI_OPT_FLAG("--largest-first", "higher degree first in every MIS-1", &prio, 1),
      CLI_OPT_INT("--recolor", "N", "iterated greedy recoloring passes (default 0)", &a->recolor, 0,
                  MISPC_COLORING_MAX_RECOLOR),
  };
  int isolated = 0;
  const cli_opt coarsen[] = {
      CLI_OPT_CHOICE("--algo", "mis2agg|mis2basic", "aggregation (default mis2agg)", &algo),
      CLI_OPT_CHOICE("--isolated", "singletons",
                     "isolated vertices stay singletons (collect: one process only)", &isolated),
  };
  const cli_opt *own = is_mis ? mis : is_color ? color : coarsen;
  const int nown = is_mis ? 1 : is_color ? 3 : 2, ncommon = (int)(sizeof common / sizeof common[0]);
  cli_opt opts[16];
  memcpy(opts, own, sizeof(cli_opt) * (size_t)nown);
  memcpy(opts + nown, common, sizeof common);
  char synopsis[128];
  snprintf(synopsis, sizeof synopsis,
           "mpiexec -n P mispc %s SPEC [options]   (or mispc %s SPEC --dist)", a->c.cmd, a->c.cmd);
  const cli_command cmd = {
      .name = a->c.cmd,
      .synopsis = synopsis,
      .full_usage = 1,
      .about = "The graph is split into P even row ranges; gen:laplace2d, laplace3d, grid2d,\n"
               "grid3d27 and path make each rank's own rows, other inputs are read whole on\n"
               "every rank and cut. Results equal the one-process run bit for bit: compare the\n"
               "checksum line with `mispc CMD SPEC` on one process.",
      .opts = opts,
      .nopts = nown + ncommon,
      .min_pos = 1,
      .max_pos = 1,
      .no_operand = "no graph given (a file or gen:...)",
      .example = is_mis ? "mpiexec -n 4 mispc mis gen:laplace3d:100 -k 2"
                 : is_color ? "mpiexec -n 4 mispc color gen:laplace3d:100 --recolor 2"
                            : "mpiexec -n 4 mispc coarsen gen:laplace3d:100 --algo mis2agg",
  };
  int npos = 0, rc = cli_args_parse(&cmd, argc, argv, 1, &a->spec, &npos);
  if (rc) return rc == CLI_ARGS_HELP ? 0 : 2;
  /* --largest-first (color) stores CLI_FLAG's 1: the largest-degree index of --priority */
  if (prio >= 0) a->mis.priority = cli_priority(prio);
  a->algo_basic = algo == 1;
  a->verify = !no_verify;
  return -1;
}

/* The timed call; *label_sum gets the checksum of this rank's result. */
static mispc_status run_once(mispc_context *ctx, const dist_args *a, const mispc_dist_csr *G,
                             void *out, void *dout, char *what, size_t wn, int32_t *nlabels) {
  mispc_status s;
  if (!strcmp(a->c.cmd, "mis")) {
    mispc_mis_result r = {0, 0};
    uint8_t *set = a->c.gpu ? (uint8_t *)dout : (uint8_t *)out;
    s = a->k == 1 ? mispc_dist_mis1(ctx, G, &a->mis, NULL, set, &r)
                  : mispc_dist_mis2(ctx, G, &a->mis, NULL, set, &r);
    snprintf(what, wn, "MIS-%d: %lld members, %d rounds", a->k, (long long)r.set_size, r.rounds);
  } else if (!strcmp(a->c.cmd, "color")) {
    mispc_coloring_options co;
    mispc_coloring_options_default(&co);
    co.mis.seed = a->mis.seed;
    if (a->mis.priority != MISPC_PRIORITY_DEFAULT) co.mis.priority = a->mis.priority;
    co.algo = a->algo_greedy ? MISPC_COLORING_GREEDY : MISPC_COLORING_MIS;
    co.recolor = a->recolor;
    s = mispc_dist_color(ctx, G, &co, (int32_t *)(a->c.gpu ? dout : out), nlabels);
    snprintf(what, wn, "%d colors", *nlabels);
  } else {
    mispc_agg_options ao;
    mispc_agg_options_default(&ao);
    ao.mis = a->mis;
    ao.algo = a->algo_basic ? MISPC_AGG_MIS2BASIC : MISPC_AGG_MIS2AGG;
    mispc_dist_agg_info info;
    s = mispc_dist_aggregate(ctx, G, &ao, (int32_t *)(a->c.gpu ? dout : out), &info);
    *nlabels = (int32_t)info.naggs;
    snprintf(what, wn, "%lld aggregates (phase 1: %lld, phase 2: %lld), MIS-2 rounds %d + %d",
             (long long)info.naggs, (long long)info.phase_aggs[0],
             (long long)(info.phase_aggs[1] - info.phase_aggs[0]), info.mis_rounds[0],
             info.mis_rounds[1]);
  }
  return s;
}

static mispc_status verify(mispc_context *ctx, const dist_args *a, const mispc_dist_csr *G,
                           const void *out, int32_t nlabels) {
  if (!strcmp(a->c.cmd, "mis")) return mispc_dist_verify_mis(ctx, G, a->k, (const uint8_t *)out);
  if (!strcmp(a->c.cmd, "color"))
    return mispc_dist_verify_coloring(ctx, G, (const int32_t *)out, nlabels);
  /* aggregation: ids in range, none empty, each connected */
  return mispc_dist_verify_aggregation(ctx, G, (const int32_t *)out, nlabels);
}

/* This process's rank from the launcher's environment (MPI is not started
 * while the arguments are read): 0 when none says otherwise. */
static int launcher_rank(void) {
  const char *v[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
  for (int i = 0; i < 3; ++i)
    if (getenv(v[i])) return atoi(getenv(v[i]));
  return 0;
}

/* parse_args(argc, argv, args) with the standard error of ranks other than
 * 0 silenced (one message, not one a rank); its return value. On an error
 * (> 0) the ranks meet once (MPI started and finalized) so that none exits
 * before rank 0 has written the message. */
static int parse_quietly(int argc, char **argv, void *args,
                         int (*parse_args)(int, char **, void *)) {
  /* Argument errors: one message, from rank 0, not one a rank. */
  int saved = -1;
  if (launcher_rank() > 0) {
    fflush(stderr);
    saved = dup(2);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, 2), close(devnull);
  }
  int rc = parse_args(argc, argv, args);
  if (saved >= 0) {
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
  }
  if (rc > 0) {
    /* No rank leaves before rank 0 has written the message: a launcher that
     * sees one rank fail kills the others (mpi_cli_errors lost it once).
     * The same collective as start()'s, so ranks that parsed fine
     * (different arguments a rank) stop there instead of waiting. */
    fflush(stderr);
    int inited = 0, any = 0;
    MPI_Initialized(&inited);
    if (!inited) MPI_Init(NULL, NULL);
    MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
  }
  return rc;
}

/* MPI started (if it is not), *rank and *P of MPI_COMM_WORLD, and the
 * command's context on every rank (cli_context). 0 when every rank has its
 * context; 1 (contexts released, MPI finalized) when any rank failed. */
static int start(const cli_dist_common *a, mispc_context **ctx, int *rank, int *P) {
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited) MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, P);
  int use_gpu = a->gpu, any = 0;
  *ctx = NULL;
  int rc = cli_context(a->cmd, *rank == 0 ? a->verbose : 0, a->threads, &use_gpu, ctx);
  /* the knobs were checked by the parser on every rank alike */
  if (!rc && mispc_context_set_tuning_(*ctx, &a->tune) != MISPC_SUCCESS) {
    fprintf(stderr, "mispc %s: %s\n", a->cmd, mispc_context_error(*ctx));
    rc = 1;
  }
  MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!any) return 0;
  if (*ctx) mispc_context_destroy(*ctx);
  *ctx = NULL;
  MPI_Finalize();
  return 1;
}

int cli_dist_begin(int argc, char **argv, cli_dist_common *args,
                   int (*parse_args)(int, char **, void *), mispc_context **ctx, int *rank,
                   int *P) {
  *ctx = NULL, *rank = 0, *P = 1;
  int rc = parse_quietly(argc, argv, args, parse_args);
  if (rc >= 0) return rc;
  return start(args, ctx, rank, P) ? 1 : -1;
}

int cmd_dist(int argc, char **argv) {
  dist_args a;
  int rank, P;
  mispc_context *ctx;
  int rc = cli_dist_begin(argc, argv, &a.c, parse, &ctx, &rank, &P);
  if (rc >= 0) return rc;
  rc = 0;
  double t0 = MPI_Wtime();
  mispc_status s = MISPC_SUCCESS;
  mispc_dist_csr H, G;
  memset(&H, 0, sizeof H);
  memset(&G, 0, sizeof G);
  /* coarsen works on the symmetrized pattern, as the one-process strength graph at theta 0 */
  if (!s)
    s = mispc_dist_load(ctx, MPI_COMM_WORLD, a.spec, a.symmetrize || !strcmp(a.c.cmd, "coarsen"),
                        &H);
  double t_load = MPI_Wtime() - t0;
  /* the graph algorithms' requirements, checked across ranks (not timed) */
  if (!s) s = mispc_dist_csr_check(ctx, &H);
  if (!s && a.c.gpu) s = mispc_dist_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &G);
  const mispc_dist_csr *g = a.c.gpu ? &G : &H;
  const int64_t nl = s ? 0 : H.rend - H.rstart;
  void *out = s ? NULL : malloc(sizeof(int32_t) * (size_t)(nl + 1)), *dout = NULL;
  if (!s && !out) s = MISPC_ERR_ALLOC;
  if (!s && a.c.gpu)
    s = mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(int32_t) * (size_t)(nl + 1), &dout);
  char what[256] = "";
  int32_t nlabels = 0; /* colors or aggregates: the count verify needs */
  double best = 1e300;
  mispc_dist_stats st0, st1, stb;
  memset(&st0, 0, sizeof st0);
  memset(&st1, 0, sizeof st1);
  memset(&stb, 0, sizeof stb);
  for (int r = 0; !s && r < a.repeat; ++r) {
    mispc_dist_get_stats(g, &st0);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    s = run_once(ctx, &a, g, out, dout, what, sizeof what, &nlabels);
    if (!s && a.c.gpu && nl > 0) { /* a one-byte copy: the call's device work has ended */
      unsigned char b;
      s = mispc_memcpy(ctx, &b, MISPC_MEM_HOST, dout, MISPC_MEM_DEVICE, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime() - t;
    /* the result to the host for the checks and checksums, outside the time:
     * a device call's output stays on the device */
    if (!s && a.c.gpu)
      s = mispc_memcpy(ctx, out, MISPC_MEM_HOST, dout, MISPC_MEM_DEVICE,
                       (strcmp(a.c.cmd, "mis") ? sizeof(int32_t) : 1) * (size_t)nl);
    if (t < best) { /* traffic and communication time of the fastest call */
      best = t;
      mispc_dist_get_stats(g, &st1);
      stb = st0;
    }
  }
  if (s) {
    if (rank == 0) cli_fail(ctx, a.c.cmd, s);
    rc = 1;
  }
  if (!rc) {
    uint64_t sum = !strcmp(a.c.cmd, "mis") ? cli_checksum_u8(H.rstart, nl, (const uint8_t *)out)
                                           : cli_checksum_i32(H.rstart, nl, (const int32_t *)out),
             total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    /* Traffic and time split of the fastest call, summed / maxed over ranks. */
    long long bytes = st1.bytes_sent - stb.bytes_sent, ex = st1.exchanges - stb.exchanges,
              bnd = st1.boundary, v[3] = {bytes, ex, bnd}, vs[3];
    double comm = st1.comm_seconds - stb.comm_seconds, cmax = 0, mem = peak_rss_mib(), mm[4];
    /* the device's: the context's pool (mispc_context_device_peak), the
     * graph's copy included */
    int64_t dpeak = 0;
    if (a.c.gpu) (void)mispc_context_device_peak(ctx, &dpeak);
    const double dmem = (double)dpeak / 1048576.0, mx[4] = {mem, -mem, dmem, -dmem};
    MPI_Reduce(v, vs, 3, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&comm, &cmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(mx, mm, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("%s of %s on %d rank%s (%s): %lld vertices, %s\n", a.c.cmd, a.spec, P,
             P > 1 ? "s" : "", a.c.gpu ? "GPU" : "host", (long long)H.nglobal, what);
      printf("checksum %016llx\n", (unsigned long long)total);
      if (!strcmp(mispc_dist_transport_name(g), "nccl")) /* the host only queues the groups */
        printf("time %.3f ms (best of %d; load %.3f s), communication over NCCL on the GPU "
               "streams (not timed apart)\n",
               1e3 * best, a.repeat, t_load);
      else
        printf("time %.3f ms (best of %d; load %.3f s), communication %.3f ms (%.0f%%, slowest "
               "rank)\n",
               1e3 * best, a.repeat, t_load, 1e3 * cmax, best > 0 ? 100.0 * cmax / best : 0.0);
      printf("halo: %lld boundary vertices, %lld exchanges, %lld bytes sent (all ranks, fastest "
             "call)\n",
             vs[2], P ? vs[1] / P : 0, vs[0]);
      printf("peak memory a rank: %.1f MiB max, %.1f MiB min\n", mm[0], -mm[1]);
      if (a.c.gpu) /* NCCL's and the halo plans' own device memory apart */
        printf("peak device memory a rank (mispc's pool): %.1f MiB max, %.1f MiB min\n", mm[2],
               -mm[3]);
    }
  }
  if (!rc && a.verify) {
    s = verify(ctx, &a, &H, out, nlabels);
    if (s) {
      if (rank == 0) cli_fail(ctx, "verify", s);
      rc = 1;
    } else if (rank == 0)
      printf("verified: %s\n", !strcmp(a.c.cmd, "mis") ? "independent and maximal"
                               : !strcmp(a.c.cmd, "color") ? "proper coloring, no empty color"
                                                           : "every vertex in one connected, "
                                                             "non-empty aggregate");
  }
  if (dout) mispc_free(ctx, MISPC_MEM_DEVICE, dout);
  free(out);
  if (a.c.gpu) mispc_dist_csr_free(ctx, &G);
  mispc_dist_csr_free(ctx, &H);
  mispc_context_destroy(ctx);
  MPI_Finalize();
  return rc;
}
#endif
