/* MatCoarsen types "mis2agg" and "mis2basic" for PCGAMG: mispc's deterministic
 * MIS-2 aggregation (papers/KokkosKernels-MIS2-aggregation-clusterGS-2022.txt
 * Alg. 3 and Alg. 2) of the graph GAMG gives its coarsener.
 *
 * One rank: the one-process kernels on the graph (host or GPU). Several
 * ranks (mispc built with MPI): the graph's two MPIAIJ blocks are wrapped as
 * a distributed graph and aggregated by mispc_dist_aggregate, which gives the
 * one-process aggregates for any partition (docs/DISTRIBUTED.md); aggregates
 * span ranks. Either way GAMG receives the same lists for every rank count:
 * each aggregate's list is kept at its head, its smallest global vertex id
 * (on the rank owning it), with the members in increasing global id. GAMG
 * numbers coarse points by rank, then list index, i.e. by head id: the same
 * coarse numbering for any P, and formProl0's QR sees the same rows in the
 * same order. Members on other ranks must be ghost columns of the matrix
 * attached with PetscCDSetMat (agg.c reads the near-null space of off-rank
 * members through PCGAMGGetDataWithGhosts on it; 3.18 swaps it in for the
 * graph, 3.26 takes it from the lists): we attach one entry (head, member)
 * per remote member, as MISK does for its MIS-k aggregates.
 *
 * Our options live in a composed container, not in MatCoarsen's subctx: PETSc
 * 3.18's GAMG writes the MISK distance into subctx whatever the type. */
#include <math.h>
#include <string.h>

#include <petsc/private/matimpl.h>

#include "mispc/config.h"
#include "plugin_internal.h"
#if MISPC_ENABLE_MPI
#include "mispc/dist.h"
#endif

typedef struct {
  mispc_agg_algo algo;
  PetscInt seed;
  PetscInt phase2_min_free; /* mis2agg: mispc_agg_options.phase2_min_free (-1: auto) */
  PetscInt k_used;          /* the last aggregation's (auto: from the graph's rows) */
  PetscInt priority;        /* MIS-2 priority: PRIORITY_AUTO, _HASH or _COVER */
  PetscBool cover_used;     /* the last aggregation's (auto: from the graph's rows) */
  PetscBool verify;
  /* last result, for MatCoarsenView */
  PetscInt nlocal, nlists;
  int64_t nglobal, naggs, singletons, max_size;
  int rounds[2];
  PetscMPIInt nranks;
  PetscBool distributed, gpu;
  PetscBool device_agg;        /* several ranks, GPU graph: aggregate a device copy */
  unsigned long long checksum; /* of the (head, position, member) triples, all ranks */
} MispcCoarsen;

static PetscErrorCode get_ctx(MatCoarsen cg, MispcCoarsen **mc) {
  PetscContainer c;
  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)cg, "MispcCoarsen", (PetscObject *)&c));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "mispc coarsener context missing");
  PetscCall(PetscContainerGetPointer(c, (void **)mc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_coarsen_mispc_priority, in the order of priority_names */
enum { PRIORITY_AUTO, PRIORITY_HASH, PRIORITY_COVER };
static const char *const priority_names[] = {"auto", "hash", "cover"};

/* auto: the cover priority where the graph's rows hold more than this many
 * entries on average (Elasticity3D_30's node graph 25.24: GAMG setup about
 * 0.85x the hash's; 7-point Laplacians 6.80: it cost more than it saved;
 * but their coarse levels average about 28, where it cost CG iterations, so
 * auto is a choice, not the default; docs/PETSC.md, "The coarsener's
 * option") */
#define COVER_MIN_MEAN_ROW 12.0

static const char *algo_name(const MispcCoarsen *mc) {
  return mc->algo == MISPC_AGG_MIS2AGG ? "mis2agg" : "mis2basic";
}

/* A failure seen on some ranks only becomes the same PETSc error on every
 * rank (the lowest failing rank's code and message, "rank R: ..."), so no
 * rank goes on into a collective the others have left. */
static PetscErrorCode agree_error(MPI_Comm comm, PetscErrorCode code, const char *msg) {
  PetscMPIInt rank, size, first, mine;
  struct {
    int code;
    char text[480];
  } e;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  mine = code ? rank : size;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) PetscFunctionReturn(PETSC_SUCCESS);
  memset(&e, 0, sizeof e);
  if (rank == first) {
    e.code = (int)code;
    PetscCall(PetscSNPrintf(e.text, sizeof e.text, "rank %d: %s", (int)rank, msg));
  }
  PetscCallMPI(MPI_Bcast(&e, (PetscMPIInt)sizeof e, MPI_BYTE, first, comm));
  SETERRQ(PETSC_COMM_SELF, (PetscErrorCode)e.code, "%s", e.text);
}

/* Checks the options where every rank can agree on the verdict (a bad value
 * given on one rank only must not leave the others waiting). */
static PetscErrorCode check_options(MatCoarsen cg, const MispcCoarsen *mc) {
  char msg[256] = "";
  const char *pre = NULL;
  PetscFunctionBegin;
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)cg, &pre));
  if (mc->seed < 0)
    PetscCall(PetscSNPrintf(msg, sizeof msg,
                            "-%smat_coarsen_mispc_seed must be >= 0, got %" PetscInt_FMT,
                            pre ? pre : "", mc->seed));
  else if (mc->phase2_min_free < -1 || mc->phase2_min_free > INT32_MAX)
    PetscCall(PetscSNPrintf(msg, sizeof msg,
                            "-%smat_coarsen_mispc_phase2_min_free must be >= -1 (-1: from the "
                            "graph), got %" PetscInt_FMT,
                            pre ? pre : "", mc->phase2_min_free));
  PetscCall(
      agree_error(PetscObjectComm((PetscObject)cg), msg[0] ? PETSC_ERR_ARG_OUTOFRANGE : 0, msg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A failed mispc call (status s, message in ctx) as a PETSc error; the
 * caller has released what it holds. */
static PetscErrorCode mispc_failure(mispc_context *ctx, mispc_status s) {
  PetscFunctionBegin;
  SETERRQ(PETSC_COMM_SELF, MispcErrorCode(s, mispc_context_error(ctx)), "mispc: %s (%s)",
          mispc_context_error(ctx), mispc_strerror(s));
}

/* One rank (or mispc without MPI: each rank alone, edges to other ranks
 * unused): the one-process aggregation of the diagonal block, lists at the
 * smallest member. */
static PetscErrorCode coarsen_local(MatCoarsen cg, MispcCoarsen *mc, mispc_context *ctx,
                                    PetscCoarsenData **out) {
  Mat G = cg->graph;
  PetscInt rstart;
  MispcLocalCSR L = {0};
  mispc_aggregates aggs = {0};
  mispc_csr sym = {0};
  int32_t *agg = NULL;
  PetscInt *head = NULL, *count = NULL;
  PetscCoarsenData *lists;
  mispc_agg_options ao;
  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(G, &rstart, NULL));
  PetscCall(MispcLocalCSRBegin(ctx, G, PETSC_FALSE, PETSC_TRUE, &L));
  mispc_agg_options_default(&ao);
  ao.algo = mc->algo;
  ao.mis.seed = (uint64_t)mc->seed;
  ao.phase2_min_free = (int)mc->k_used;
  if (mc->cover_used) ao.mis.priority = MISPC_PRIORITY_COVER;
  const mispc_csr *graph = &L.csr;
  /* GAMG's graph is symmetric unless the matrix is not; symmetrize then (host) */
  mispc_status s = mispc_csr_check(ctx, graph, MISPC_CHECK_SORTED | MISPC_CHECK_SYMMETRIC);
  if (s == MISPC_ERR_UNSYMMETRIC && !mc->gpu) {
    mispc_context_clear_error(ctx);
    s = mispc_csr_symmetrize(ctx, graph, 1, &sym);
    graph = &sym;
  }
  if (!s) s = mispc_aggregate(ctx, graph, &ao, &aggs);
  if (!s && mc->verify) s = mispc_verify_aggregation(ctx, graph, &aggs);
  PetscCall(MispcLocalCSREnd(&L));
  if (s) {
    mispc_csr_free(ctx, &sym);
    mispc_aggregates_free(ctx, &aggs);
    (void)MispcLocalCSRDestroy(ctx, &L);
    PetscCall(mispc_failure(ctx, s));
  }
  const PetscInt n = (PetscInt)aggs.n, na = (PetscInt)aggs.naggs;
  PetscCall(PetscMalloc3(n, &agg, na, &head, n, &count));
  MispcCall(ctx, mispc_memcpy(ctx, agg, MISPC_MEM_HOST, aggs.agg, aggs.mem, sizeof(int32_t) * n));
  for (PetscInt c = 0; c < na; ++c) head[c] = -1;
  /* one list per head (the smallest member, local id), members in increasing id */
  unsigned long long sum = 0;
  PetscCall(PetscCDCreate(n, &lists));
  for (PetscInt v = 0; v < n; ++v) {
    PetscInt *h = &head[agg[v]];
    if (*h < 0) *h = v, count[v] = 0;
    PetscCall(PetscCDAppendID(lists, *h, rstart + v));
    sum += MispcHashTriple(rstart + *h, count[*h]++, rstart + v);
  }
  mispc_agg_stats st;
  MispcCall(ctx, mispc_aggregates_stats(ctx, &aggs, &st));
  mc->nlists = na;
  mc->naggs = na;
  mc->singletons = st.singletons;
  mc->max_size = st.max_size;
  mc->rounds[0] = aggs.mis_rounds[0];
  mc->rounds[1] = aggs.mis_rounds[1];
  mc->checksum = sum;
#if PETSC_VERSION_GE(3, 20, 0)
  if (mc->nranks > 1) {
    /* GAMG reads ghost null-space data through the "ghost adjacency" matrix
     * that MISK attaches on several ranks; these lists have no off-rank
     * members, so it is an empty nloc x N matrix with the graph's layout. */
    Mat ghost;
    PetscCall(MatCreateAIJ(PetscObjectComm((PetscObject)G), n, n, PETSC_DETERMINE, PETSC_DETERMINE,
                           0, NULL, 0, NULL, &ghost));
    PetscCall(MatAssemblyBegin(ghost, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(ghost, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscCDSetMat(lists, ghost));
  }
#endif
  *out = lists;
  PetscCall(PetscFree3(agg, head, count));
  mispc_csr_free(ctx, &sym);
  mispc_aggregates_free(ctx, &aggs);
  PetscCall(MispcLocalCSRDestroy(ctx, &L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several ranks, GPU graph: aggregate a device copy (device_agg); the same
 * aggregates as one GPU either way. */
static PetscBool on_device(const MispcCoarsen *mc) {
  return (PetscBool)(mc->gpu && mc->device_agg);
}

#if MISPC_ENABLE_MPI
/* A step that can fail on one rank alone (a copy between the host and the
 * GPU): *s fails on every rank if it failed on any (MISPC_ERR_CUDA, with no
 * message, where this rank's own step succeeded), before the next
 * collective call. */
static PetscErrorCode agree_local(MPI_Comm comm, mispc_context *ctx, mispc_status *s) {
  PetscMPIInt bad = *s != MISPC_SUCCESS, any = 0;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm));
  if (any && !*s) *s = MISPC_ERR_CUDA, mispc_context_clear_error(ctx);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* *s = mispc_dist_aggregate of D (host blocks). With a GPU graph (and
 * on_device) on a device copy of D, the labels copied back: the same labels
 * by the function's contract, at GPU speed; the check, the verification and
 * the lists stay on the host pattern. Every rank gets the same status. */
static PetscErrorCode aggregate_dist(mispc_context *ctx, const MispcCoarsen *mc, MPI_Comm comm,
                                     const mispc_dist_csr *D, const mispc_agg_options *ao,
                                     PetscInt nloc, int32_t *agg, mispc_dist_agg_info *info,
                                     mispc_status *s) {
  mispc_dist_csr DD;
  int32_t *dagg = NULL;
  PetscFunctionBegin;
  if (!on_device(mc)) {
    *s = mispc_dist_aggregate(ctx, D, ao, agg, info);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *s = mispc_dist_csr_copy(ctx, D, MISPC_MEM_DEVICE, &DD); /* collective */
  if (*s) PetscFunctionReturn(PETSC_SUCCESS);
  /* a failed allocation leaves dagg NULL: the call below then fails on every rank */
  if (mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(int32_t) * (size_t)(nloc + 1), (void **)&dagg)) {
    dagg = NULL;
    mispc_context_clear_error(ctx);
  }
  *s = mispc_dist_aggregate(ctx, &DD, ao, dagg, info);
  if (!*s)
    *s = mispc_memcpy(ctx, agg, MISPC_MEM_HOST, dagg, MISPC_MEM_DEVICE,
                      sizeof(int32_t) * (size_t)nloc);
  mispc_free(ctx, MISPC_MEM_DEVICE, dagg);
  mispc_dist_csr_free(ctx, &DD);
  PetscCall(agree_local(comm, ctx, s)); /* the copy back can fail on one rank alone */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Several ranks: mispc_dist_aggregate on the graph's two blocks (host; a GPU
 * graph's blocks are copied to the host, where GAMG's own setup runs too,
 * and aggregated on the GPU: aggregate_dist),
 * lists gathered at each aggregate's head by mispc_dist_aggregate_lists, and
 * the ghost matrix of the remote members. An unsymmetric graph is replaced
 * by G + G^T (PETSc), the pattern the one-rank path symmetrizes to. */
static PetscErrorCode coarsen_dist(MatCoarsen cg, MispcCoarsen *mc, mispc_context *ctx,
                                   PetscCoarsenData **out) {
  Mat G = cg->graph, Gs = NULL, Ad, Ao, ghost;
  MPI_Comm comm = PetscObjectComm((PetscObject)G);
  PetscInt N, rstart, nloc, nghost;
  MispcLocalCSR Ld = {0}, Lo = {0};
  mispc_csr hd = {0}, ho = {0};
  mispc_dist_csr D;
  mispc_dist_agg_lists lists = {0};
  mispc_dist_agg_info info;
  int64_t *gar = NULL;
  int32_t *agg = NULL;
  PetscInt *onnz = NULL;
  PetscCoarsenData *cd;
  mispc_agg_options ao;
  PetscBool have_D = PETSC_FALSE;
  PetscFunctionBegin;
  mispc_agg_options_default(&ao);
  ao.algo = mc->algo;
  ao.mis.seed = (uint64_t)mc->seed;
  ao.phase2_min_free = (int)mc->k_used;
  if (mc->cover_used) ao.mis.priority = MISPC_PRIORITY_COVER;
  PetscCall(MatGetSize(G, &N, NULL));
  PetscCall(MatGetOwnershipRange(G, &rstart, NULL));
  PetscCall(MatGetLocalSize(G, &nloc, NULL));
  mispc_status s = MISPC_SUCCESS;
  PetscCall(PetscLogEventBegin(MISPC_EventCoarsenGraph, cg, G, 0, 0));
  for (int pass = 0; pass < 2; ++pass) {
    Mat A = Gs ? Gs : G;
    PetscCall(MispcMPIAIJLayout(A, &Ad, &Ao, &N, &rstart, &nghost, &gar)); /* A's N, rstart: G's */
    PetscCall(MispcBlockCSRBegin(ctx, Ad, mc->gpu, PETSC_FALSE, PETSC_TRUE, &Ld));
    PetscCall(MispcBlockCSRBegin(ctx, Ao, mc->gpu, PETSC_FALSE, PETSC_TRUE, &Lo));
    if (mc->gpu) { /* GAMG's setup is on the host; so is the distributed aggregation */
      s = mispc_csr_copy(ctx, &Ld.csr, MISPC_MEM_HOST, &hd);
      if (!s) s = mispc_csr_copy(ctx, &Lo.csr, MISPC_MEM_HOST, &ho);
      /* a rank-local failure: every rank stops before the collective wrap */
      PetscCall(agree_local(comm, ctx, &s));
      if (s) break;
    }
    s = mispc_dist_csr_wrap(ctx, comm, N, rstart, mc->gpu ? &hd : &Ld.csr, mc->gpu ? &ho : &Lo.csr,
                            nghost, gar, &D);
    have_D = (PetscBool)!s;
    /* GAMG symmetrizes its graph by default; check (collectively) anyway */
    if (!s) s = mispc_dist_csr_check(ctx, &D);
    if (s != MISPC_ERR_UNSYMMETRIC || pass == 1) break;
    mispc_context_clear_error(ctx);
    mispc_dist_csr_free(ctx, &D);
    have_D = PETSC_FALSE;
    mispc_csr_free(ctx, &hd);
    mispc_csr_free(ctx, &ho);
    PetscCall(MispcLocalCSREnd(&Ld));
    PetscCall(MispcLocalCSREnd(&Lo));
    PetscCall(PetscFree(gar));
    PetscCall(PetscInfo(cg, "graph not symmetric: aggregating the pattern of G + G^T\n"));
    PetscCall(MatTranspose(G, MAT_INITIAL_MATRIX, &Gs));
    PetscCall(MatAXPY(Gs, 1.0, G, DIFFERENT_NONZERO_PATTERN));
  }
  PetscCall(PetscLogEventEnd(MISPC_EventCoarsenGraph, cg, G, 0, 0));
  PetscCall(PetscMalloc1(nloc + 1, &agg));
  /* every mispc_dist_* call agrees on its status: the same error on every rank */
  PetscCall(PetscLogEventBegin(MISPC_EventCoarsenAgg, cg, G, 0, 0));
  if (!s) PetscCall(aggregate_dist(ctx, mc, comm, &D, &ao, nloc, agg, &info, &s));
  if (!s && mc->verify) s = mispc_dist_verify_aggregation(ctx, &D, agg, info.naggs);
  PetscCall(PetscLogEventEnd(MISPC_EventCoarsenAgg, cg, G, 0, 0));
  PetscCall(PetscLogEventBegin(MISPC_EventCoarsenLists, cg, G, 0, 0));
  if (!s) s = mispc_dist_aggregate_lists(ctx, &D, agg, info.naggs, &lists);
  if (have_D) mispc_dist_csr_free(ctx, &D);
  mispc_csr_free(ctx, &hd);
  mispc_csr_free(ctx, &ho);
  PetscCall(MispcLocalCSREnd(&Ld));
  PetscCall(MispcLocalCSREnd(&Lo));
  PetscCall(MispcLocalCSRDestroy(ctx, &Ld));
  PetscCall(MispcLocalCSRDestroy(ctx, &Lo));
  PetscCall(PetscFree(gar));
  PetscCall(PetscFree(agg));
  PetscCall(MatDestroy(&Gs));
  if (s && !mispc_context_error(ctx)[0]) /* a host <-> GPU copy failed on another rank */
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_GPU,
            "mispc: a copy between the host and the GPU failed on another rank");
  if (s) PetscCall(mispc_failure(ctx, s));

  /* the lists, and one ghost-matrix entry (head, member) per remote member */
  unsigned long long sum = 0;
  PetscCall(PetscCalloc1(nloc + 1, &onnz));
  PetscCall(PetscCDCreate(nloc, &cd));
  for (int64_t i = 0; i < lists.nlists; ++i) {
    const PetscInt lid = (PetscInt)(lists.head[i] - rstart);
    for (int64_t q = lists.offset[i]; q < lists.offset[i + 1]; ++q) {
      const int64_t m = lists.member[q];
      PetscCall(PetscCDAppendID(cd, lid, (PetscInt)m));
      sum += MispcHashTriple(lists.head[i], q - lists.offset[i], m);
      onnz[lid] += m < rstart || m >= rstart + nloc;
    }
  }
  PetscCall(MatCreateAIJ(comm, nloc, nloc, N, N, 0, NULL, 0, onnz, &ghost));
  for (int64_t i = 0; i < lists.nlists; ++i) {
    const PetscInt row = (PetscInt)lists.head[i];
    for (int64_t q = lists.offset[i]; q < lists.offset[i + 1]; ++q) {
      const PetscInt col = (PetscInt)lists.member[q];
      const PetscScalar one = 1.0;
      if (col < rstart || col >= rstart + nloc)
        PetscCall(MatSetValues(ghost, 1, &row, 1, &col, &one, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(ghost, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(ghost, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscCDSetMat(cd, ghost)); /* the lists own it (3.18: GAMG takes it over) */
  PetscCall(PetscFree(onnz));
  PetscCall(PetscLogEventEnd(MISPC_EventCoarsenLists, cg, G, 0, 0));
  mc->nlists = (PetscInt)lists.nlists;
  mc->naggs = info.naggs;
  /* one list an aggregate: the view's figures from the lists (no route of their own) */
  int64_t fig[2] = {0, 0}, all[2]; /* singletons, largest size */
  for (int64_t i = 0; i < lists.nlists; ++i) {
    const int64_t size = lists.offset[i + 1] - lists.offset[i];
    fig[0] += size == 1;
    fig[1] = size > fig[1] ? size : fig[1];
  }
  PetscCallMPI(MPI_Allreduce(&fig[0], &all[0], 1, MPI_INT64_T, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&fig[1], &all[1], 1, MPI_INT64_T, MPI_MAX, comm));
  mc->singletons = all[0];
  mc->max_size = all[1];
  mc->rounds[0] = info.mis_rounds[0];
  mc->rounds[1] = info.mis_rounds[1];
  mc->checksum = sum;
  mispc_dist_agg_lists_free(&lists);
  *out = cd;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* Where the last aggregation ran, for -info and -mat_coarsen_view. */
static const char *where_run(const MispcCoarsen *mc) {
  if (!mc->distributed) return mc->gpu ? "GPU" : "host";
  if (!mc->gpu) return "distributed, host";
  return on_device(mc) ? "distributed, aggregated on the GPU"
                       : "distributed, GPU graph copied to the host";
}

/* The graph's mean stored entries a row over all ranks (a global sum: the
 * same on any number of ranks); *have false where its type has no
 * MatGetInfo. */
static PetscErrorCode graph_mean_row(MatCoarsen cg, const MispcCoarsen *mc, double *mean,
                                     PetscBool *have) {
  MatInfo info;
  PetscFunctionBegin;
  *mean = 0.0;
  *have = (PetscBool)(cg->graph->ops->getinfo != NULL);
  if (!*have) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatGetInfo(cg->graph, MAT_GLOBAL_SUM, &info));
  *mean = mc->nglobal > 0 ? info.nz_used / (double)mc->nglobal : 0.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* phase2_min_free -1: one more than the graph's mean stored entries a row,
 * rounded up: 8 on a 7-point Laplacian's graph with its diagonal (6.80 on
 * Laplace3D_30), the GAMG type's choice for scalar problems; 27 on
 * Elasticity3D_30's node graph (25.24), above every degree: no secondary
 * roots, as that type's choice where nodes carry several unknowns. A
 * secondary root then forms only where about a whole neighbourhood is
 * free, so phase 2 adds no aggregates much smaller than phase 1's (Alg. 3's
 * 2 made Elasticity3D_30's level 1 7,698 rows against 3,966 and its GAMG
 * setup 1.6 times longer; docs/PETSC.md, "The default K from the graph").
 * Priority auto: cover where that mean is above COVER_MIN_MEAN_ROW. */
static PetscErrorCode auto_choices(MatCoarsen cg, MispcCoarsen *mc) {
  double mean;
  PetscBool have;
  PetscFunctionBegin;
  mc->k_used = mc->phase2_min_free;
  mc->cover_used = (PetscBool)(mc->priority == PRIORITY_COVER);
  const PetscBool auto_k = (PetscBool)(mc->k_used < 0 && mc->algo == MISPC_AGG_MIS2AGG);
  if (mc->k_used < 0 && !auto_k) mc->k_used = 2; /* unused: mis2basic has no phase 2 */
  if (!auto_k && mc->priority != PRIORITY_AUTO) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(graph_mean_row(cg, mc, &mean, &have));
  if (mc->priority == PRIORITY_AUTO) {
    mc->cover_used = (PetscBool)(have && mean > COVER_MIN_MEAN_ROW);
    PetscCall(PetscInfo(cg, "MIS-2 priority %s (the graph's mean row length %.2f%s)\n",
                        mc->cover_used ? "cover" : "hash", mean,
                        have ? "" : ": unknown, its type has no MatGetInfo"));
  }
  if (!auto_k) PetscFunctionReturn(PETSC_SUCCESS);
  if (!have) { /* a type without MatGetInfo: the 7-point Laplacian's */
    mc->k_used = 8;
    PetscCall(PetscInfo(cg, "mis2agg: phase-2 roots need 8 unaggregated neighbours (the "
                            "graph's type has no MatGetInfo)\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  mc->k_used = 1 + (PetscInt)ceil(mean);
  PetscCall(PetscInfo(cg,
                      "mis2agg: phase-2 roots need %" PetscInt_FMT
                      " unaggregated neighbours (1 + the graph's mean row length %.2f)\n",
                      mc->k_used, mean));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenApply_Mispc(MatCoarsen cg) {
  MispcCoarsen *mc;
  Mat G = cg->graph, Gd;
  MPI_Comm comm = PetscObjectComm((PetscObject)G);
  mispc_context *ctx = NULL;
  PetscCoarsenData *lists = NULL;
  PetscFunctionBegin;
  PetscCall(get_ctx(cg, &mc));
  PetscCall(check_options(cg, mc));
  PetscCall(PetscLogEventBegin(MISPC_EventCoarsen, cg, G, 0, 0));
  PetscCall(MispcLocalBlock(G, &Gd, &mc->gpu));
  PetscCallMPI(MPI_Comm_size(comm, &mc->nranks));
  PetscCall(MatGetLocalSize(G, &mc->nlocal, NULL));
  {
    PetscInt N;
    PetscCall(MatGetSize(G, &N, NULL));
    mc->nglobal = N;
  }
  mc->distributed = (PetscBool)(MISPC_ENABLE_MPI && mc->nranks > 1);
  PetscCall(auto_choices(cg, mc));
  PetscCall(MispcContextCreate((PetscObject)cg, mc->gpu, &ctx));
  PetscErrorCode ierr = PETSC_SUCCESS;
#if MISPC_ENABLE_MPI
  if (mc->distributed) ierr = coarsen_dist(cg, mc, ctx, &lists);
#endif
  if (!mc->distributed) ierr = coarsen_local(cg, mc, ctx, &lists);
  mispc_context_destroy(ctx);
  PetscCall(ierr);
  cg->agg_lists = lists;
  if (mc->nranks > 1) {
    unsigned long long all = 0;
    PetscCallMPI(MPI_Allreduce(&mc->checksum, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm));
    mc->checksum = all;
  }
  if (mc->distributed || mc->nranks == 1)
    PetscCall(PetscInfo(cg,
                        "%s: %" PetscInt_FMT " local vertices -> %lld aggregates (global; %d "
                        "rank%s, %s), %" PetscInt_FMT " lists here, lists checksum %016llx\n",
                        algo_name(mc), mc->nlocal, (long long)mc->naggs, (int)mc->nranks,
                        mc->nranks > 1 ? "s" : "", where_run(mc), mc->nlists, mc->checksum));
  else
    PetscCall(PetscInfo(cg,
                        "%s: %" PetscInt_FMT " local vertices -> %lld aggregates (this rank "
                        "alone: mispc built without MPI), lists checksum %016llx\n",
                        algo_name(mc), mc->nlocal, (long long)mc->naggs, mc->checksum));
  PetscCall(PetscLogEventEnd(MISPC_EventCoarsen, cg, G, 0, 0));
  /* each call's view (-[prefix]mat_coarsen_mispc_view): PETSc 3.26 no
   * longer views a coarsener from -mat_coarsen_view after its apply (GAMG
   * views only its last one, in PCView) */
  PetscCall(PetscObjectViewFromOptions((PetscObject)cg, NULL, "-mat_coarsen_mispc_view"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenSetFromOptions_Mispc(MatCoarsen cg,
                                                     MispcOptionItems PetscOptionsObject) {
  MispcCoarsen *mc;
  PetscFunctionBegin;
  PetscCall(get_ctx(cg, &mc));
  PetscOptionsHeadBegin(PetscOptionsObject, "mispc MIS-2 aggregation");
  PetscCall(PetscOptionsInt("-mat_coarsen_mispc_seed", "Seed of the MIS-2 priorities",
                            "MATCOARSENMIS2AGG", mc->seed, &mc->seed, NULL));
  PetscCall(PetscOptionsInt("-mat_coarsen_mispc_phase2_min_free",
                            "mis2agg: unaggregated neighbours a secondary root needs (2: Alg. 3; "
                            "-1: 1 + the graph's mean row length)",
                            "MATCOARSENMIS2AGG", mc->phase2_min_free, &mc->phase2_min_free, NULL));
  PetscCall(PetscOptionsEList(
      "-mat_coarsen_mispc_priority",
      "MIS-2 priority: hash (per round, the default), cover (most undecided "
      "vertices within distance 2 first: fewer, larger aggregates) or auto "
      "(cover where rows average more than 12 entries)",
      "MATCOARSENMIS2AGG", priority_names, 3, priority_names[mc->priority], &mc->priority, NULL));
  PetscCall(PetscOptionsBool("-mat_coarsen_mispc_verify", "Verify every aggregation",
                             "MATCOARSENMIS2AGG", mc->verify, &mc->verify, NULL));
  PetscCall(PetscOptionsBool("-mat_coarsen_mispc_device_aggregation",
                             "Several ranks, GPU matrices: aggregate on the GPU (else on the host "
                             "copy of the graph)",
                             "MATCOARSENMIS2AGG", mc->device_agg, &mc->device_agg, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenView_Mispc(MatCoarsen cg, PetscViewer viewer) {
  MispcCoarsen *mc;
  PetscBool ascii;
  PetscFunctionBegin;
  PetscCall(get_ctx(cg, &mc));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(
      viewer,
      "  mispc %s (seed %" PetscInt_FMT ", MIS-2 priority %s%s, phase-2 roots need %" PetscInt_FMT
      "%s): %lld vertices, %lld aggregates, %lld singletons, largest %lld, MIS-2 rounds %d + %d\n",
      algo_name(mc), mc->seed, mc->cover_used ? "cover" : "hash",
      mc->priority == PRIORITY_AUTO ? " (from the graph)" : "", mc->k_used,
      mc->phase2_min_free < 0 ? " (from the graph)" : "", (long long)mc->nglobal,
      (long long)mc->naggs, (long long)mc->singletons, (long long)mc->max_size, mc->rounds[0],
      mc->rounds[1]));
  if (mc->nranks > 1 && !mc->distributed)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "  on %d ranks, each rank alone (mispc built without MPI): "
                                     "counts of rank 0\n",
                                     (int)mc->nranks));
  else
    PetscCall(PetscViewerASCIIPrintf(
        viewer, "  %s on %d rank%s: the one-rank aggregates; lists checksum %016llx\n",
        where_run(mc), (int)mc->nranks, mc->nranks > 1 ? "s" : "", mc->checksum));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenDestroy_Mispc(MatCoarsen cg) {
  PetscFunctionBegin;
  PetscCall(PetscObjectCompose((PetscObject)cg, "MispcCoarsen", NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode create_common(MatCoarsen cg, mispc_agg_algo algo) {
  MispcCoarsen *mc;
  PetscContainer c;
  PetscFunctionBegin;
  PetscCall(PetscNew(&mc));
  mc->algo = algo;
  mc->device_agg = PETSC_TRUE;
  mc->phase2_min_free = -1;
  mc->priority = PRIORITY_HASH; /* auto, by row length, also took the coarse levels of scalar
                                   problems: 13 CG iterations against 11 (docs/PETSC.md) */
  PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)cg), &c));
  PetscCall(PetscContainerSetPointer(c, mc));
  PetscCall(MispcContainerFreeOnDestroy(c));
  PetscCall(PetscObjectCompose((PetscObject)cg, "MispcCoarsen", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  /* as MISK does: GAMG (3.18 on every level, later with aggressive levels)
   * reads and writes the distance there */
  cg->subctx = (void *)(size_t)2;
  cg->ops->apply = MatCoarsenApply_Mispc;
  cg->ops->setfromoptions = MatCoarsenSetFromOptions_Mispc;
  cg->ops->view = MatCoarsenView_Mispc;
  cg->ops->destroy = MatCoarsenDestroy_Mispc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATCOARSENMIS2AGG - "mis2agg": mispc's deterministic MIS-2 aggregation (Kokkos Kernels
   Alg. 3: MIS-2 roots and their neighbours, secondary MIS-2 roots among the rest, then a
   clean-up) as a `MatCoarsen` for `PCGAMG`.

   Options Database Keys:
+  -pc_gamg_mat_coarsen_type mis2agg - selects it in `PCGAMG` (PETSc >= 3.22;
                                       -mat_coarsen_type mis2agg up to 3.21)
.  -mat_coarsen_mispc_seed <0>       - seed of the hashed MIS-2 priorities (>= 0)
.  -mat_coarsen_mispc_phase2_min_free <-1> - unaggregated neighbours a secondary root needs
                                       (`mispc_agg_options.phase2_min_free`; larger: fewer,
                                       larger aggregates; 2: Alg. 3; -1: one more than the
                                       graph's mean stored entries a row)
.  -mat_coarsen_mispc_priority <hash> - MIS-2 priority: hash (a new hash each round), cover
                                       (most undecided vertices within distance 2 first: fewer,
                                       larger aggregates, more rounds) or auto (cover where the
                                       graph's rows average more than 12 entries)
.  -mat_coarsen_mispc_verify <false> - check every aggregation (mispc_verify_aggregation)
-  -mat_coarsen_mispc_device_aggregation <true> - several ranks, GPU matrices: aggregate
                                       a device copy of the graph (else its host copy)

   Level: intermediate

   Notes:
   The aggregates GAMG receives are the same for any number of MPI ranks: on several ranks
   the whole graph is aggregated by mispc's distributed aggregation (aggregates may span
   ranks; a GPU graph's blocks are copied to the host, where GAMG's own setup runs, and
   the aggregation itself runs on the GPU with the same labels),
   each aggregate's list is kept at its smallest global vertex id, members in increasing
   id. GAMG's coarse grid has one point per aggregate, numbered the same way for any rank
   count. An unsymmetric graph is symmetrized first. Host (`MATAIJ`) and GPU
   (`MATAIJCUSPARSE`) graphs; the aggregates are deterministic (hashed priorities).
   -info prints the global aggregate count and a checksum of the lists; so does
   -mat_coarsen_view (PETSc 3.18) or -pc_view (later versions).

   From PETSc 3.21 GAMG's first level is "aggressive" by default and uses its own MIS
   there: add -pc_gamg_aggressive_coarsening 0 to use mis2agg on every level.

   Load with -dll_append libpetscmispc.so, or link libpetscmispc and call
   mispc_petsc_register().

.seealso: `MatCoarsen`, `MatCoarsenSetType()`, `MATCOARSENMIS2BASIC`, `MATCOARSENMISK`,
          `PCGAMG`, `PCCLUSTERGS`
M*/
static PetscErrorCode MatCoarsenCreate_MIS2AGG(MatCoarsen cg) {
  PetscFunctionBegin;
  PetscCall(create_common(cg, MISPC_AGG_MIS2AGG));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   MATCOARSENMIS2BASIC - "mis2basic": mispc's deterministic basic MIS-2 aggregation
   (Kokkos Kernels Alg. 2: MIS-2 roots and their neighbours; leftovers join a
   neighbouring aggregate) as a `MatCoarsen` for `PCGAMG`.

   Options Database Keys:
+  -pc_gamg_mat_coarsen_type mis2basic - selects it in `PCGAMG` (PETSc >= 3.22;
                                         -mat_coarsen_type mis2basic up to 3.21)
.  -mat_coarsen_mispc_seed <0>         - seed of the hashed MIS-2 priorities (>= 0)
.  -mat_coarsen_mispc_verify <false>   - check every aggregation (mispc_verify_aggregation)
-  -mat_coarsen_mispc_device_aggregation <true> - as for `MATCOARSENMIS2AGG`

   Level: intermediate

   Note:
   As `MATCOARSENMIS2AGG` (deterministic aggregates, the same for any number of MPI
   ranks), with the simpler algorithm of the paper.

.seealso: `MatCoarsen`, `MatCoarsenSetType()`, `MATCOARSENMIS2AGG`, `MATCOARSENMISK`, `PCGAMG`
M*/
static PetscErrorCode MatCoarsenCreate_MIS2BASIC(MatCoarsen cg) {
  PetscFunctionBegin;
  PetscCall(create_common(cg, MISPC_AGG_MIS2BASIC));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcRegisterCoarseners(void) {
  PetscFunctionBegin;
  PetscCall(MatCoarsenRegister(MATCOARSENMIS2AGG, MatCoarsenCreate_MIS2AGG));
  PetscCall(MatCoarsenRegister(MATCOARSENMIS2BASIC, MatCoarsenCreate_MIS2BASIC));
  PetscFunctionReturn(PETSC_SUCCESS);
}
