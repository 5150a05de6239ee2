/* gs under mpiexec: distributed multicolor Gauss-Seidel (point or cluster)
 * on a matrix split into even row ranges, host or GPU. Prints the setup
 * and per-apply times, the bytes each apply sends, and an order-free
 * checksum of x that equals the one-rank run's (the exactness promise,
 * docs/DISTRIBUTED.md), and, for comparison, the rank-local sweep (block
 * Jacobi between ranks, what PETSc's sor does on several ranks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_dist.h"
#include "mispc/config.h"

#if !MISPC_ENABLE_MPI
int cmd_dist_gs(int argc, char **argv) {
  return cmd_dist(argc, argv); /* says this mispc was built without MPI */
}
#else
#include <mpi.h>

#include "bench_util.h"
#include "mispc/dist.h"
#include "mispc/hash.h"

typedef struct gs_args {
  cli_dist_common c; /* first: cli_dist_begin reads it */
  const char *spec;
  int kind, sweep, sweeps, bs, reps, local, lines, block_solve, automatic;
  double omega, theta;
} gs_args;

static int parse(int argc, char **argv, void *args) {
  gs_args *a = (gs_args *)args;
  memset(a, 0, sizeof *a);
  a->c.cmd = "gs";
  a->kind = 1, a->sweeps = 1, a->bs = 1, a->reps = 20, a->c.threads = 1, a->omega = 1.0;
  int dist = 0;
  const cli_opt opts[] = {
      CLI_OPT_CHOICE("--kind", "point|cluster", "point or cluster GS (default cluster)", &a->kind),
      CLI_OPT_CHOICE("--sweep", "symmetric|forward|backward", "sweep (default symmetric)",
                     &a->sweep),
      CLI_OPT_INT("--sweeps", "N", "sweeps an apply (default 1)", &a->sweeps, 1, 100),
      CLI_OPT_REAL("--omega", "W", "relaxation factor in (0, 2) (default 1)", &a->omega, 1e-9,
                   2 - 1e-9),
      CLI_OPT_INT("--block-size", "B", "rows per node for the clusters (default 1)", &a->bs, 1, 64),
      CLI_OPT_REAL("--theta", "T", "strength threshold for the clusters (default 0)", &a->theta, 0,
                   1e300),
      CLI_OPT_FLAG("--lines",
                   "line clusters: merge clusters along chains (with --theta: whole "
                   "lines of strong couplings)",
                   &a->lines, 1),
      CLI_OPT_FLAG("--block-solve",
                   "solve each cluster's block exactly (block Gauss-Seidel; omega 1)",
                   &a->block_solve, 1),
      CLI_OPT_FLAG("--auto",
                   "clusters chosen from the matrix, as PETSc clustergs' default: the automatic "
                   "threshold on rows where the weak couplings are set apart, lines and block "
                   "solves where strongly anisotropic (overrides --theta, --lines, --block-solve)",
                   &a->automatic, 1),
      CLI_OPT_INT("--reps", "N", "timed applies, median reported (default 20)", &a->reps, 1,
                  100000),
      CLI_OPT_FLAG("--local", "also time the rank-local sweep (block Jacobi between ranks)",
                   &a->local, 1),
      CLI_OPT_FLAG("--host", "host backend (default)", &a->c.gpu, 0),
      CLI_OPT_FLAG("--gpu", "the GPU, one a rank or shared", &a->c.gpu, 1),
      CLI_OPT_INT("--threads", "N", "host threads a rank (default 1 under mpiexec)", &a->c.threads,
                  0, MISPC_MAX_THREADS),
      CLI_OPT_FLAG("--dist", "run distributed even outside mpiexec (one rank)", &dist, 1),
      CLI_OPT_FLAG("-v", "progress output (rank 0)", &a->c.verbose, 1),
      CLI_OPT_FLAG("-vvv",
                   "also each step of every GPU apply (rank 0; waits for the GPU "
                   "between steps)",
                   &a->c.verbose, 3),
      CLI_OPT_CALL("--tune", "NAME=VALUE",
                   "an internal tuning knob, repeatable (mispc bench gs --help lists them)",
                   bench_tune_option, &a->c.tune),
  };
  const cli_command cmd = {
      .name = "gs",
      .synopsis = "mpiexec -n P mispc gs SPEC [options]   (or mispc gs SPEC --dist)",
      .full_usage = 1,
      .about = "Distributed multicolor Gauss-Seidel: y = M^-1 b from y = 0 on the matrix of SPEC\n"
               "(values kept) split into P even row ranges. The checksum of y is the same for\n"
               "any P (the one-rank result bit for bit).",
      CLI_SPEC_OPERANDS(opts, 1, "matrix"),
      .example = "mpiexec -n 4 mispc gs gen:laplace3d:100 --kind cluster --local",
  };
  int npos = 0, rc = cli_args_parse(&cmd, argc, argv, 1, &a->spec, &npos);
  if (rc) return rc == CLI_ARGS_HELP ? 0 : 2;
  return -1;
}

/* A failure on any rank fails every rank; *mine tells whether this rank's
 * own call failed (it prints the message). */
static mispc_status agree(mispc_status s, int *mine) {
  int bad = s != MISPC_SUCCESS, any = 0;
  if (bad) *mine = 1;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return s ? s : any ? MISPC_ERR_INVALID_ARG : MISPC_SUCCESS;
}

static int cmp_double(const void *x, const void *y) {
  const double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* Median over the repetitions of the slowest rank's time of each apply. */
static mispc_status time_applies(mispc_context *ctx, int reps, int gpu, double *x, double *t,
                                 mispc_status (*apply)(void *), void *user, double *median) {
  mispc_status s = MISPC_SUCCESS;
  for (int r = 0; !s && r <= reps; ++r) { /* r = 0: warm-up */
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    s = apply(user);
    double probe;
    if (!s && gpu) s = mispc_memcpy(ctx, &probe, MISPC_MEM_HOST, x, MISPC_MEM_DEVICE, 8);
    double dt = MPI_Wtime() - t0, mx = 0;
    MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r) t[r - 1] = mx;
  }
  if (!s) {
    qsort(t, (size_t)reps, sizeof(double), cmp_double);
    *median = t[reps / 2];
  }
  return s;
}

typedef struct apply_ctx {
  mispc_context *ctx;
  mispc_dist_gs *dgs;
  mispc_gs *lgs;
  const mispc_dist_csr *A;
  const double *b;
  double *x;
} apply_ctx;

static mispc_status apply_exact(void *u) {
  apply_ctx *c = (apply_ctx *)u;
  return mispc_dist_gs_apply(c->ctx, c->dgs, c->A, c->b, c->x, 1);
}

static mispc_status apply_local(void *u) {
  apply_ctx *c = (apply_ctx *)u;
  return mispc_gs_apply(c->ctx, c->lgs, &c->A->diag, c->b, c->x, 1);
}

int cmd_dist_gs(int argc, char **argv) {
  gs_args a;
  int rank, P;
  mispc_context *ctx;
  int rc = cli_dist_begin(argc, argv, &a.c, parse, &ctx, &rank, &P);
  if (rc >= 0) return rc;
  rc = 0;
  mispc_gs_options o;
  mispc_gs_options_default(&o);
  o.kind = a.kind ? MISPC_GS_CLUSTER : MISPC_GS_POINT;
  o.sweep = a.sweep == 0 ? MISPC_GS_SYMMETRIC : a.sweep == 1 ? MISPC_GS_FORWARD : MISPC_GS_BACKWARD;
  o.sweeps = a.sweeps;
  o.omega = a.omega;
  o.block_size = a.bs;
  o.strength_threshold = a.theta;
  o.line_clusters = a.lines;
  o.block_solve = a.block_solve;
  if (a.automatic) {
    o.strength_threshold = MISPC_GS_THETA_ANISOTROPIC;
    o.line_clusters = o.block_solve = MISPC_GS_AUTO;
  }
  mispc_dist_csr H, G;
  memset(&H, 0, sizeof H);
  memset(&G, 0, sizeof G);
  mispc_status s = mispc_dist_load(ctx, MPI_COMM_WORLD, a.spec, 0, &H);
  int mine = 0; /* the library's collective calls agree by themselves: rank 0 prints */
  if (!s && (!H.diag.values || (H.offd.nnz && !H.offd.values))) {
    if (rank == 0) fprintf(stderr, "mispc gs: %s has no values (a pattern)\n", a.spec);
    s = MISPC_ERR_INVALID_ARG;
  }
  s = agree(s, &mine);
  if (!s && a.c.gpu) s = mispc_dist_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &G);
  const mispc_dist_csr *A = a.c.gpu ? &G : &H;
  const int64_t nl = s ? 0 : H.rend - H.rstart;
  double *hb = (double *)malloc(sizeof(double) * (size_t)(nl + 1));
  double *hx = (double *)malloc(sizeof(double) * (size_t)(nl + 1));
  double *t = (double *)malloc(sizeof(double) * (size_t)(a.reps + 1));
  double *b = hb, *x = hx;
  if (!s && (!hb || !hx || !t)) s = MISPC_ERR_ALLOC;
  for (int64_t i = 0; !s && i < nl; ++i) /* the same b for any split */
    hb[i] = (double)(mispc_hash3(7, 0, (uint64_t)(H.rstart + i)) >> 11) / 9007199254740992.0 - 0.5;
  if (!s && a.c.gpu) {
    b = x = NULL;
    s = mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(double) * (size_t)(nl + 1), (void **)&b);
    if (!s) s = mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(double) * (size_t)(nl + 1), (void **)&x);
    if (!s)
      s = mispc_memcpy(ctx, b, MISPC_MEM_DEVICE, hb, MISPC_MEM_HOST, sizeof(double) * (size_t)nl);
  }
  mispc_dist_gs *dgs = NULL;
  double t_sym = 0, t_num = 0, t_apply = 0, t_local = 0;
  if (!s) s = mispc_dist_gs_create(ctx, &o, &dgs);
  if (!s) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    s = mispc_dist_gs_symbolic(ctx, dgs, A);
    t_sym = MPI_Wtime() - t0;
    t0 = MPI_Wtime();
    if (!s) s = mispc_dist_gs_numeric(ctx, dgs, A);
    t_num = MPI_Wtime() - t0;
  }
  apply_ctx ac = {ctx, dgs, NULL, A, b, x};
  if (!s) s = time_applies(ctx, a.reps, a.c.gpu, x, t, apply_exact, &ac, &t_apply);
  mispc_gs_info info;
  int64_t bytes = 0, all_bytes = 0;
  memset(&info, 0, sizeof info);
  if (!s) s = mispc_dist_gs_get_info(dgs, &info, &bytes);
  MPI_Allreduce(&bytes, &all_bytes, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (!s && a.c.gpu) s = mispc_memcpy(ctx, hx, MISPC_MEM_HOST, x, MISPC_MEM_DEVICE, 8 * (size_t)nl);
  uint64_t sum = 0, total = 0;
  for (int64_t i = 0; !s && i < nl; ++i) {
    uint64_t bits;
    memcpy(&bits, &hx[i], 8);
    sum += mispc_hash3(0x6d69737063ull, bits, (uint64_t)(H.rstart + i));
  }
  MPI_Reduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (!s && a.local) { /* each rank sweeps its diagonal block alone */
    mispc_gs *lgs = NULL;
    s = mispc_gs_create(ctx, &o, &lgs);
    if (!s) s = mispc_gs_symbolic(ctx, lgs, &A->diag);
    if (!s) s = mispc_gs_numeric(ctx, lgs, &A->diag);
    ac.lgs = lgs;
    s = agree(s, &mine);
    if (!s) s = time_applies(ctx, a.reps, a.c.gpu, x, t, apply_local, &ac, &t_local);
    mispc_gs_destroy(ctx, lgs);
  }
  if (s) {
    if (rank == 0 || mine) cli_fail(ctx, "gs", s);
    rc = 1;
  } else if (rank == 0) {
    printf("gs (%s, %s, %d sweep%s, omega %g) of %s on %d rank%s (%s): %lld rows, %d colors",
           a.kind ? "cluster" : "point",
           a.sweep == 0   ? "symmetric"
           : a.sweep == 1 ? "forward"
                          : "backward",
           a.sweeps, a.sweeps > 1 ? "s" : "", a.omega, a.spec, P, P > 1 ? "s" : "",
           a.c.gpu ? "GPU" : "host", (long long)H.nglobal, info.ncolors);
    if (a.kind)
      printf(
          ", %lld clusters (max %lld rows)\nclusters: strength threshold %g (automatic %g, "
          "weakest coupling at or below it %g), block size %d, line clusters %d, block solves %d",
          (long long)info.nclusters, (long long)info.max_cluster, info.strength_threshold,
          info.auto_theta, info.auto_weak_max, info.block_size, info.line_clusters,
          info.block_solve);
    printf("\nchecksum %016llx (of y = M^-1 b; the same for any rank count)\n",
           (unsigned long long)total);
    printf("setup: symbolic %.3f ms, numeric %.3f ms (rank 0)\n", 1e3 * t_sym, 1e3 * t_num);
    printf("apply: %.3f ms (median of %d, slowest rank), %lld bytes sent an apply (all ranks)\n",
           1e3 * t_apply, a.reps, (long long)all_bytes);
    if (a.local)
      printf("rank-local sweep: %.3f ms an apply (block Jacobi between ranks: no communication, "
             "not the one-rank result)\n",
             1e3 * t_local);
  }
  mispc_dist_gs_destroy(ctx, dgs);
  if (a.c.gpu) {
    mispc_free(ctx, MISPC_MEM_DEVICE, b);
    mispc_free(ctx, MISPC_MEM_DEVICE, x);
    mispc_dist_csr_free(ctx, &G);
  }
  free(hb), free(hx), free(t);
  mispc_dist_csr_free(ctx, &H);
  mispc_context_destroy(ctx);
  MPI_Finalize();
  return rc;
}
#endif
