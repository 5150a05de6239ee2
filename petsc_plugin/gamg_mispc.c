/* PCGAMG type "mispc" (-pc_gamg_type mispc): smoothed aggregation whose
 * graph, coarsening and tentative prolongator are mispc's (strength graph,
 * deterministic MIS-2 aggregation, per-aggregate QR of the near-null space),
 * so the aggregates and P0 are the same for any number of ranks; the
 * prolongator smoothing is PETSc's MatMatMult with a rank-independent
 * eigen-estimate; GAMG's createlevel (PtAP, process reduction), smoothers and
 * coarse solve are PETSc's. Model: agg.c's PCCreateGAMG_AGG.
 *
 * Hooks and what they hand on (one level at a time, in this order):
 *   creategraph:  the strength graph S of A (mispc_strength_graph, or
 *                 mispc_dist_strength_graph on several ranks), kept in our
 *                 context; GAMG gets A itself (one more reference) as its
 *                 "graph", which it only passes back to us and destroys.
 *   coarsen:      MIS-2 aggregates of S (mispc_aggregate / mispc_dist_aggregate),
 *                 kept as labels in our context; GAMG gets empty
 *                 PetscCoarsenData lists (its driver reads and destroys them).
 *   prolongator:  P0 and the coarse near-null space from the labels
 *                 (mispc_tentative_prolongator / mispc_dist_tentative_prolongator),
 *                 P0 as a Mat of A's type whose columns are laid out in
 *                 even ranges of the aggregate numbering over the ranks
 *                 that hold rows of the level (coarse_layout.c).
 *   optprolongator: P = (I - omega D^-1 A)^nsmooths P0, omega = 4 / (3 lambda);
 *                 on one rank by mispc_smooth_prolongator on A's arrays in
 *                 place (the prolongator step then hands GAMG a placeholder
 *                 with P's sizes: GAMG only reads its block sizes before this
 *                 hook replaces it), and the result is marked so that GAMG's
 *                 MatPtAP runs mispc_galerkin_product (galerkin_ptap.c);
 *                 on several ranks the same with mispc_dist_smooth_prolongator
 *                 and mispc_dist_galerkin_product on the host copies of the
 *                 blocks (dist_products.c): the one-rank bits for any rank
 *                 count, given the same omega and near-null space. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <petsc/private/pcgamgimpl.h>

#include "gamg_mispc.h"
#include "mispc/config.h"
#include "plugin_internal.h"
#if MISPC_ENABLE_MPI
#include "mispc/dist.h"
#endif

static PetscLogEvent ev_graph, ev_coarsen, ev_prol, ev_prol_qr, ev_prol_mat, ev_eig, ev_smooth;

const char *const PCGAMGMISPCAggregations[] = {"mis2agg", "mis2basic", "PCGAMGMISPCAggregation",
                                               "PC_GAMG_MISPC_", NULL};
const char *const PCGAMGMISPCEigEstimates[] = {"gershgorin", "power", "PCGAMGMISPCEigEstimate",
                                               "PC_GAMG_MISPC_EIG_", NULL};
const char *const PCGAMGMISPCPriorities[] = {
    "auto", "hash", "cover", "PCGAMGMISPCPriority", "PC_GAMG_MISPC_PRIORITY_", NULL};

/* What the user sets (options database or PCGAMGMISPCSet*), one PetscInt a
 * setting (enumerations and booleans too, so that one table describes them).
 * It lives in a container composed on the PC, not in the type's context:
 * GAMG destroys and creates the type again when PCSetFromOptions reads
 * -pc_gamg_type mispc, and what the setters set must survive that. */
typedef struct {
  PetscInt aggregation; /* PCGAMGMISPCAggregation */
  PetscInt nsmooths;
  PetscInt eig_estimate; /* PCGAMGMISPCEigEstimate */
  PetscInt power_its, aggressive_levels, seed;
  PetscInt verify;   /* PetscBool */
  PetscInt galerkin; /* PetscBool */
  PetscInt phase2_min_free;
  PetscInt priority; /* PCGAMGMISPCPriority */
} MispcGAMGSettings;

typedef enum { SETTING_LIST, SETTING_INT, SETTING_BOOL } SettingKind;

/* One setting: PCGAMGMISPCSet<name>, -pc_gamg_mispc_<option>. */
typedef struct {
  const char *name, *option, *help;
  size_t offset; /* of its field in MispcGAMGSettings */
  SettingKind kind;
  const char *const *list; /* SETTING_LIST: the choices, in PETSc's enum-name form */
  PetscInt min, def;       /* SETTING_INT: the least value; the default */
} SettingInfo;

#define SETTING(id, Name, field, kind, list, min, def, help)                                       \
  [id] = {Name, #field, help, offsetof(MispcGAMGSettings, field), kind, list, min, def}
static const SettingInfo settings_info[MISPC_GAMG_NSETTINGS] = {
    SETTING(MISPC_GAMG_AGGREGATION, "Aggregation", aggregation, SETTING_LIST,
            PCGAMGMISPCAggregations, 0, PC_GAMG_MISPC_MIS2AGG,
            "MIS-2 aggregation: mis2agg (Alg. 3) or mis2basic (Alg. 2)"),
    SETTING(MISPC_GAMG_NSMOOTHS, "NSmooths", nsmooths, SETTING_INT, NULL, 0, 1,
            "Prolongator smoothing steps (0: tentative prolongator)"),
    SETTING(MISPC_GAMG_EIG_ESTIMATE, "EigEstimate", eig_estimate, SETTING_LIST,
            PCGAMGMISPCEigEstimates, 0, PC_GAMG_MISPC_EIG_POWER,
            "Estimate of lambda_max(D^-1 A) for omega = 4/(3 lambda)"),
    SETTING(MISPC_GAMG_POWER_ITS, "PowerIts", power_its, SETTING_INT, NULL, 1, 10,
            "Power iterations of -pc_gamg_mispc_eig_estimate power"),
    SETTING(MISPC_GAMG_AGGRESSIVE_LEVELS, "AggressiveLevels", aggressive_levels, SETTING_INT, NULL,
            0, 0, "Levels (from the finest) whose aggregates are aggregated once more"),
    SETTING(MISPC_GAMG_SEED, "Seed", seed, SETTING_INT, NULL, 0, 0,
            "Seed of the hashed MIS-2 priorities"),
    SETTING(MISPC_GAMG_VERIFY, "Verify", verify, SETTING_BOOL, NULL, 0, PETSC_FALSE,
            "Verify every aggregation"),
    SETTING(MISPC_GAMG_GALERKIN, "Galerkin", galerkin, SETTING_BOOL, NULL, 0, PETSC_TRUE,
            "Smoothing and coarse operators by mispc (else PETSc's MatMatMult, MatPtAP)"),
    SETTING(MISPC_GAMG_PHASE2_MIN_FREE, "Phase2MinFree", phase2_min_free, SETTING_INT, NULL, -1, -1,
            "mis2agg phase 2: unaggregated neighbours a secondary root needs (-1: 8, or no "
            "secondary roots on a level whose near-null space has more vectors than dofs a node)"),
    SETTING(MISPC_GAMG_PRIORITY, "Priority", priority, SETTING_LIST, PCGAMGMISPCPriorities, 0,
            PC_GAMG_MISPC_PRIORITY_HASH,
            "MIS-2 priority: hash (per round, the default), cover (fewer, larger aggregates) or "
            "auto (cover where the near-null space has more vectors than dofs a node)"),
};
#undef SETTING

/* Whether the current level's near-null space has more vectors than a node
 * has dofs (elasticity's rigid-body modes): each aggregate then carries more
 * coarse unknowns than a node, and the choices below differ there. */
static PetscBool more_vectors_than_dofs(PC pc) {
  return (PetscBool)(MispcGAMGDataCols(pc) > MispcGAMGDataRows(pc));
}

/* mispc_agg_options.phase2_min_free of the current level: the setting, or
 * (-1) 8 where the near-null space has at most one vector a dof (a scalar
 * problem: aggregates of about Alg. 3's size with fewer small secondary
 * ones), else more than any degree: each aggregate carries more coarse
 * unknowns than a node has dofs, so the aggregates must be larger to keep
 * the coarse operators small (Elasticity3D_40 with rigid-body modes: operator
 * complexity 1.37 with Alg. 3's 2, 1.14 without secondary roots, agg 1.15;
 * docs/BENCHMARKS.md) */
#define PHASE2_MIN_FREE_SCALAR 8
static PetscInt phase2_min_free(PC pc, const MispcGAMGSettings *s) {
  if (s->phase2_min_free >= 0) return s->phase2_min_free;
  return more_vectors_than_dofs(pc) ? INT32_MAX : PHASE2_MIN_FREE_SCALAR;
}

/* Whether the current level's MIS-2 takes the cover priority: the setting,
 * or (auto) where the near-null space has more vectors than dofs a node:
 * there each aggregate carries that many coarse unknowns and the Galerkin
 * products weigh most. Not the default: on Elasticity3D_30 it set up about
 * 5 % faster with 11 CG iterations against 10 (docs/PETSC.md). */
static PetscBool use_cover(PC pc, const MispcGAMGSettings *s) {
  if (s->priority != PC_GAMG_MISPC_PRIORITY_AUTO)
    return (PetscBool)(s->priority == PC_GAMG_MISPC_PRIORITY_COVER);
  return more_vectors_than_dofs(pc);
}

/* the choices of a SETTING_LIST: its names before the type name, the prefix
 * and NULL (PETSc's enum-name form) */
static PetscInt list_length(const char *const *list) {
  PetscInt n = 0;
  while (list[n]) ++n;
  return n - 2;
}

static PetscInt *setting_field(MispcGAMGSettings *s, int i) {
  return (PetscInt *)((char *)s + settings_info[i].offset);
}

typedef struct {
  PetscInt nodes, bs, naggs, k, min_size, max_size, singletons;
  double mean_size;
  PetscReal theta, lambda, omega;
  int rounds[2];
  PetscBool gpu, aggressive, cover;
  PetscMPIInt ranks;
  PetscLogDouble t_graph, t_coarsen, t_prol, t_opt;
} MispcGAMGLevelInfo;

typedef struct {
  MispcGAMGSettings *set; /* the PC's (see MispcGAMGSettings) */
  /* one level's state, from creategraph to prolongator */
  mispc_context *mctx;
  PetscBool dist, gpu;
  PetscInt bs;
  mispc_csr S;           /* one rank: strength graph (host or device) */
  mispc_aggregates aggs; /* one rank: aggregates of S */
  MispcLocalCSR L;       /* one rank: A's block, read in place */
#if MISPC_ENABLE_MPI
  MispcDistMat DA;            /* several ranks: A wrapped */
  mispc_dist_csr DS;          /* its strength graph (have_DS) */
  int32_t *dagg;              /* this rank's labels */
  mispc_dist_prolongator dP0; /* smoothing by mispc: P0 until optprolongator (have_dP0) */
  PetscBool have_DS, have_dP0;
#endif
  int64_t naggs;
  mispc_csr P0;           /* one rank, smoothing by mispc: P0 until optprolongator */
  PetscContainer prod;    /* one rank: the context of the products (galerkin_ptap.c) */
  int32_t *comp;          /* aggressive levels, one rank: aggregates of aggregates (host) */
  mispc_aggregates caggs; /* comp wrapped for the tentative prolongator */
  /* device tentative prolongator: GAMG keeps the near-null space on the host;
   * the last level's coarse one (dBc, GAMG's copy hBc) stays on the device
   * for the next level, so that only level 0's goes up, unless it is the
   * constant that createdefaultdata made (const_data) */
  double *dBc, *hBc;
  PetscInt dBc_level;
  PetscReal *const_data;
  /* per level, for -pc_view */
  MispcGAMGLevelInfo lev[PETSC_MG_MAXLEVELS];
  PetscInt nlev;
} PC_GAMG_MISPC;

static PC_GAMG_MISPC *get_ctx(PC pc) {
  return (PC_GAMG_MISPC *)MispcGAMGSubctx(pc);
}

/* Frees one level's state (also after an error in the middle of a level). */
static void level_free(PC_GAMG_MISPC *m) {
  if (!m->mctx) return;
  mispc_csr_free(m->mctx, &m->S);
  mispc_csr_free(m->mctx, &m->P0);
  mispc_aggregates_free(m->mctx, &m->aggs);
#if MISPC_ENABLE_MPI
  if (m->have_DS) mispc_dist_csr_free(m->mctx, &m->DS);
  m->have_DS = PETSC_FALSE;
  (void)MispcDistMatEnd(m->mctx, &m->DA);
  if (m->have_dP0) mispc_dist_prolongator_free(&m->dP0);
  m->have_dP0 = PETSC_FALSE;
  free(m->dagg);
  m->dagg = NULL;
#endif
  (void)PetscFree(m->comp);
  memset(&m->caggs, 0, sizeof m->caggs);
  (void)MispcLocalCSREnd(&m->L);
  (void)MispcLocalCSRDestroy(m->mctx, &m->L);
  mispc_context_destroy(m->mctx);
  m->mctx = NULL;
  m->naggs = 0;
}

static MispcGAMGLevelInfo *level_info(PC pc) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  PetscInt l = MispcGAMGLevel(pc);
  if (l < 0) l = 0;
  if (l >= PETSC_MG_MAXLEVELS) l = PETSC_MG_MAXLEVELS - 1;
  return &m->lev[l];
}

/* A's block size and local rows, which must be whole nodes of bs rows. */
static PetscErrorCode local_rows(Mat A, PetscInt *bs, PetscInt *nloc) {
  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, bs));
  PetscCall(MatGetLocalSize(A, nloc, NULL));
  PetscCheck(*nloc % *bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "-pc_gamg_type mispc: %" PetscInt_FMT
             " local rows are not whole nodes of %" PetscInt_FMT " rows (the matrix block size)",
             *nloc, *bs);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------------- graph */
static PetscErrorCode PCGAMGCreateGraph_MISPC(PC pc, Mat A, Mat *G) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  MispcGAMGLevelInfo *li;
  PetscMPIInt size;
  PetscInt bs, nloc, level = MispcGAMGLevel(pc);
  Mat Ad;
  PetscLogDouble t0, t1;
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(ev_graph, pc, A, 0, 0));
  PetscCall(PetscTime(&t0));
  level_free(m);
  if (level == 0) {
    PetscCall(PetscMemzero(m->lev, sizeof m->lev));
    m->nlev = 0;
  }
  m->nlev = PetscMin(level + 1, PETSC_MG_MAXLEVELS);
  li = level_info(pc);
  PetscCall(PetscMemzero(li, sizeof *li));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(local_rows(A, &bs, &nloc));
  PetscCall(MispcLocalBlock(A, &Ad, &m->gpu));
  m->dist = (PetscBool)(size > 1);
  m->bs = bs;
  /* GAMG's threshold: < 0 (its default) keeps every entry, as does 0 here;
   * threshold[level] already carries -pc_gamg_threshold_scale */
  PetscReal theta = MispcGAMGThreshold(pc);
  if (theta < 0) theta = 0;
  li->theta = theta;
  li->bs = bs;
  li->ranks = size;
  if (!m->dist) {
    PetscCall(MispcContextCreate((PetscObject)pc, m->gpu, &m->mctx));
    PetscCall(MispcLocalCSRBegin(m->mctx, A, PETSC_TRUE, PETSC_TRUE, &m->L));
    mispc_status s = mispc_strength_graph(m->mctx, &m->L.csr, (double)theta, (int)bs, &m->S);
    PetscCall(MispcLocalCSREnd(&m->L));
    MispcCall(m->mctx, s);
    li->gpu = m->gpu;
  } else {
#if MISPC_ENABLE_MPI
    /* several ranks: host path (the distributed strength graph and aggregation
     * read host blocks; a cusparse matrix's blocks are read from their host copy) */
    PetscCall(MispcContextCreate((PetscObject)pc, PETSC_FALSE, &m->mctx));
    PetscLogDouble tw0, tw1, tw2;
    PetscCall(PetscTime(&tw0));
    PetscCall(MispcDistMatBegin(m->mctx, A, &m->DA));
    PetscCall(PetscTime(&tw1));
    mispc_status s = mispc_dist_strength_graph(m->mctx, &m->DA.D, (double)theta, (int)bs, &m->DS);
    PetscCall(PetscTime(&tw2));
    PetscCall(PetscInfo(pc,
                        "mispc level %" PetscInt_FMT ": halo plan %.3g s, strength graph %.3g s\n",
                        level, tw1 - tw0, tw2 - tw1));
    m->have_DS = (PetscBool)(s == MISPC_SUCCESS);
    PetscCall(MispcLocalCSREnd(&m->DA.L));
    PetscCall(MispcLocalCSREnd(&m->DA.Lo));
    MispcCall(m->mctx, s);
    li->gpu = PETSC_FALSE;
#else
    SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
            "-pc_gamg_type mispc on several ranks needs mispc built with MPI");
#endif
  }
  li->nodes = nloc / bs; /* summed over ranks in the coarsen hook */
  /* GAMG only hands the graph back to our hooks and destroys it */
  PetscCall(PetscObjectReference((PetscObject)A));
  *G = A;
  PetscCall(PetscTime(&t1));
  li->t_graph = t1 - t0;
  PetscCall(PetscLogEventEnd(ev_graph, pc, A, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -------------------------------------------------------------- coarsen */
/* Aggressive levels, one rank: aggregates of the quotient graph of the
 * aggregates, composed on the host (labels of a GPU aggregation are copied). */
static PetscErrorCode aggregate_again_local(PC_GAMG_MISPC *m, const mispc_agg_options *ao) {
  mispc_csr C = {0};
  mispc_aggregates a2 = {0};
  int32_t *l1, *l2;
  const int64_t n = m->aggs.n, na = m->aggs.naggs;
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(n + 1, &l1));
  PetscCall(PetscMalloc1(na + 1, &l2));
  mispc_status s = mispc_coarse_graph(m->mctx, &m->S, &m->aggs, &C);
  if (!s) s = mispc_aggregate(m->mctx, &C, ao, &a2);
  if (!s && m->set->verify) s = mispc_verify_aggregation(m->mctx, &C, &a2);
  mispc_csr_free(m->mctx, &C);
  if (!s)
    s = mispc_memcpy(m->mctx, l1, MISPC_MEM_HOST, m->aggs.agg, m->aggs.mem,
                     sizeof(int32_t) * (size_t)n);
  if (!s)
    s = mispc_memcpy(m->mctx, l2, MISPC_MEM_HOST, a2.agg, a2.mem, sizeof(int32_t) * (size_t)na);
  if (!s)
    for (int64_t v = 0; v < n; ++v) l1[v] = l2[l1[v]];
  m->caggs.n = n;
  m->caggs.naggs = a2.naggs;
  m->caggs.mem = MISPC_MEM_HOST;
  mispc_aggregates_free(m->mctx, &a2);
  PetscCall(PetscFree(l2));
  if (s)
    PetscCall(PetscFree(l1));
  else
    m->comp = m->caggs.agg = l1;
  MispcCall(m->mctx, s);
  m->naggs = m->caggs.naggs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if MISPC_ENABLE_MPI
/* Aggressive levels, several ranks: the quotient graph (coarse rows in the
 * aggregates' even ranges) is aggregated, and each node asks the rank of its
 * aggregate for that aggregate's new label (two all-to-alls). */
static PetscErrorCode aggregate_again_dist(PC pc, PC_GAMG_MISPC *m, const mispc_agg_options *ao,
                                           PetscInt nloc) {
  MPI_Comm comm = PetscObjectComm((PetscObject)pc);
  mispc_dist_csr C;
  mispc_dist_agg_info info;
  int32_t *cagg = NULL, *req = NULL, *ans = NULL, *got = NULL;
  PetscMPIInt P, *scnt, *sdsp, *rcnt, *rdsp, *fill;
  PetscInt *pos, nreq;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &P));
  MispcCall(m->mctx, mispc_dist_coarse_graph(m->mctx, &m->DS, m->dagg, m->naggs, &C));
  const int64_t cn = C.rend - C.rstart;
  PetscCall(PetscMalloc1(cn + 1, &cagg));
  mispc_status s = mispc_dist_aggregate(m->mctx, &C, ao, cagg, &info);
  if (!s && m->set->verify) s = mispc_dist_verify_aggregation(m->mctx, &C, cagg, info.naggs);
  if (s) {
    mispc_dist_csr_free(m->mctx, &C);
    PetscCall(PetscFree(cagg));
    MispcCall(m->mctx, s);
  }
  PetscCall(PetscMalloc6(P, &scnt, P + 1, &sdsp, P, &rcnt, P + 1, &rdsp, P, &fill, nloc + 1, &pos));
  for (PetscMPIInt p = 0; p < P; ++p) scnt[p] = 0;
  for (PetscInt v = 0; v < nloc; ++v) { /* the rank of label a: C.ranges[p] <= a < C.ranges[p+1] */
    const int64_t a = m->dagg[v];
    PetscMPIInt lo = 0, hi = P - 1;
    while (lo < hi) {
      const PetscMPIInt mid = (lo + hi + 1) / 2;
      if (C.ranges[mid] <= a)
        lo = mid;
      else
        hi = mid - 1;
    }
    pos[v] = lo;
    scnt[lo]++;
  }
  PetscCallMPI(MPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm));
  sdsp[0] = rdsp[0] = 0;
  for (PetscMPIInt p = 0; p < P; ++p) {
    sdsp[p + 1] = sdsp[p] + scnt[p];
    rdsp[p + 1] = rdsp[p] + rcnt[p];
    fill[p] = sdsp[p];
  }
  nreq = rdsp[P];
  PetscCall(PetscMalloc3(nloc + 1, &req, nreq + 1, &ans, nloc + 1, &got));
  for (PetscInt v = 0; v < nloc; ++v) {
    pos[v] = fill[pos[v]]++; /* the slot of v's request */
    req[pos[v]] = m->dagg[v];
  }
  PetscCallMPI(MPI_Alltoallv(req, scnt, sdsp, MPI_INT32_T, ans, rcnt, rdsp, MPI_INT32_T, comm));
  for (PetscInt i = 0; i < nreq; ++i) ans[i] = cagg[ans[i] - C.rstart];
  PetscCallMPI(MPI_Alltoallv(ans, rcnt, rdsp, MPI_INT32_T, got, scnt, sdsp, MPI_INT32_T, comm));
  for (PetscInt v = 0; v < nloc; ++v) m->dagg[v] = got[pos[v]];
  m->naggs = info.naggs;
  PetscCall(PetscFree3(req, ans, got));
  PetscCall(PetscFree6(scnt, sdsp, rcnt, rdsp, fill, pos));
  mispc_dist_csr_free(m->mctx, &C);
  PetscCall(PetscFree(cagg));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode PCGAMGCoarsen_MISPC(PC pc, Mat *G, PetscCoarsenData **lists) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  MispcGAMGLevelInfo *li = level_info(pc);
  mispc_agg_options ao;
  mispc_agg_stats st;
  PetscInt nloc_nodes;
  PetscLogDouble t0, t1;
  PetscFunctionBegin;
  PetscCheck(m->mctx, PETSC_COMM_SELF, PETSC_ERR_ORDER,
             "-pc_gamg_type mispc: coarsen called before the graph");
  PetscCheck(!MispcGAMGUseAggsInASM(pc), PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
             "-pc_gamg_type mispc does not hand its aggregates to PCASM "
             "(-pc_gamg_use_aggs_in_asm): use -pc_gamg_type agg for that");
  PetscCall(PetscLogEventBegin(ev_coarsen, pc, *G, 0, 0));
  PetscCall(PetscTime(&t0));
  mispc_agg_options_default(&ao);
  ao.algo =
      m->set->aggregation == PC_GAMG_MISPC_MIS2BASIC ? MISPC_AGG_MIS2BASIC : MISPC_AGG_MIS2AGG;
  ao.mis.seed = (uint64_t)m->set->seed;
  ao.phase2_min_free = (int)phase2_min_free(pc, m->set);
  li->cover = use_cover(pc, m->set);
  if (li->cover) ao.mis.priority = MISPC_PRIORITY_COVER;
  li->aggressive = (PetscBool)(MispcGAMGLevel(pc) < m->set->aggressive_levels);
  if (!m->dist) {
    MispcCall(m->mctx, mispc_aggregate(m->mctx, &m->S, &ao, &m->aggs));
    if (m->set->verify) MispcCall(m->mctx, mispc_verify_aggregation(m->mctx, &m->S, &m->aggs));
    m->naggs = m->aggs.naggs;
    if (li->aggressive) PetscCall(aggregate_again_local(m, &ao));
    MispcCall(m->mctx, mispc_aggregates_stats(m->mctx, m->comp ? &m->caggs : &m->aggs, &st));
    nloc_nodes = (PetscInt)m->S.nrows;
    li->rounds[0] = m->aggs.mis_rounds[0];
    li->rounds[1] = m->aggs.mis_rounds[1];
  } else {
#if MISPC_ENABLE_MPI
    mispc_dist_agg_info info;
    nloc_nodes = (PetscInt)(m->DS.rend - m->DS.rstart);
    m->dagg = (int32_t *)malloc(sizeof(int32_t) * (size_t)(nloc_nodes + 1));
    PetscCheck(m->dagg, PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory");
    MispcCall(m->mctx, mispc_dist_aggregate(m->mctx, &m->DS, &ao, m->dagg, &info));
    if (m->set->verify)
      MispcCall(m->mctx, mispc_dist_verify_aggregation(m->mctx, &m->DS, m->dagg, info.naggs));
    m->naggs = info.naggs;
    if (li->aggressive) PetscCall(aggregate_again_dist(pc, m, &ao, nloc_nodes));
    MispcCall(m->mctx, mispc_dist_aggregates_stats(m->mctx, &m->DS, m->dagg, m->naggs, &st));
    li->rounds[0] = info.mis_rounds[0];
    li->rounds[1] = info.mis_rounds[1];
#else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "unreachable");
#endif
  }
  {
    PetscInt nodes = nloc_nodes;
    PetscCallMPI(
        MPI_Allreduce(&nodes, &li->nodes, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)pc)));
  }
  li->naggs = (PetscInt)m->naggs;
  li->min_size = (PetscInt)st.min_size;
  li->max_size = (PetscInt)st.max_size;
  li->mean_size = st.mean_size;
  li->singletons = (PetscInt)st.singletons;
  PetscCall(
      PetscInfo(pc,
                "mispc level %" PetscInt_FMT ": %s%s of %" PetscInt_FMT " nodes -> %" PetscInt_FMT
                " aggregates (sizes %" PetscInt_FMT " .. %" PetscInt_FMT ", %" PetscInt_FMT
                " singletons), %s, MIS-2 priority %s\n",
                MispcGAMGLevel(pc), PCGAMGMISPCAggregations[m->set->aggregation],
                li->aggressive ? " twice" : "", li->nodes, li->naggs, li->min_size, li->max_size,
                li->singletons, li->gpu ? "GPU" : "host", li->cover ? "cover" : "hash"));
  /* GAMG's driver reads (3.21+: PetscCDGetMat) and destroys the lists; our
   * prolongator uses the labels, so the lists stay empty */
  PetscCall(PetscCDCreate(nloc_nodes, lists));
  PetscCall(PetscTime(&t1));
  li->t_coarsen = t1 - t0;
  PetscCall(PetscLogEventEnd(ev_coarsen, pc, *G, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------------- prolongator */
/* The PC's product context (created at first use; its device memory pool
 * then serves every level and setup). */
static PetscErrorCode product_context(PC pc, PetscBool gpu, mispc_context **ctx) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  PetscFunctionBegin;
  if (!m->prod) PetscCall(MispcProductContextCreate((PetscObject)pc, gpu, &m->prod));
  PetscCall(PetscContainerGetPointer(m->prod, (void **)ctx));
  if (gpu) PetscCall(MispcContextUsePetscStream(*ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frees the coarse near-null space kept on the device. */
static PetscErrorCode kept_near_null_free(PC pc) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  PetscFunctionBegin;
  if (m->dBc) {
    mispc_context *pctx;
    PetscCall(PetscContainerGetPointer(m->prod, (void **)&pctx));
    mispc_free(pctx, MISPC_MEM_DEVICE, m->dBc);
  }
  m->dBc = NULL;
  m->hBc = NULL;
  m->dBc_level = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One rank: P0 and the coarse near-null space Bc (host, GAMG's; nbc
 * entries) of the aggregates a from GAMG's near-null space B (host). Device
 * aggregates give a device P0 (mispc's QR kernel): B goes up unless it is
 * the constant (then NULL) or the previous level's Bc kept on the device;
 * this level's Bc comes down for GAMG and stays up for the next level. The
 * copies are logged (-log_view's CpuToGpu / GpuToCpu columns). */
static PetscErrorCode tentative_prolongator(PC pc, const mispc_aggregates *a, PetscInt bs,
                                            PetscInt k, const PetscReal *B, PetscReal *Bc,
                                            PetscInt nbc, mispc_csr *P0) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  const PetscInt level = MispcGAMGLevel(pc);
  const PetscBool ones = (PetscBool)(level == 0 && B == m->const_data && k == 1);
  PetscFunctionBegin;
  if (level == 0) m->const_data = NULL; /* GAMG frees the data after the setup */
  if (a->mem != MISPC_MEM_DEVICE) {
    MispcCall(m->mctx,
              mispc_tentative_prolongator(m->mctx, a, (int)bs, (int)k,
                                          ones ? NULL : (const double *)B, P0, (double *)Bc));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  mispc_context *pctx;
  double *dB = NULL, *dBc = NULL;
  const size_t bbytes = sizeof(double) * (size_t)(a->n * bs * k);
  const size_t cbytes = sizeof(double) * (size_t)nbc;
  PetscCall(product_context(pc, PETSC_TRUE, &pctx));
  const PetscBool kept = (PetscBool)(m->dBc && B == m->hBc && level == m->dBc_level + 1);
  mispc_status s = mispc_malloc(pctx, MISPC_MEM_DEVICE, cbytes + 8, (void **)&dBc);
  if (!s && !ones && !kept) {
    s = mispc_malloc(pctx, MISPC_MEM_DEVICE, bbytes + 8, (void **)&dB);
    if (!s) s = mispc_memcpy(pctx, dB, MISPC_MEM_DEVICE, B, MISPC_MEM_HOST, bbytes);
#if defined(PETSC_HAVE_CUDA)
    if (!s) PetscCall(PetscLogCpuToGpu((PetscLogDouble)bbytes));
#endif
  }
  mispc_context *ectx = pctx; /* the one whose message to report */
  if (!s) {
    s = mispc_tentative_prolongator(m->mctx, a, (int)bs, (int)k, ones ? NULL : (kept ? m->dBc : dB),
                                    P0, dBc);
    if (s) ectx = m->mctx;
  }
  if (!s) s = mispc_memcpy(pctx, Bc, MISPC_MEM_HOST, dBc, MISPC_MEM_DEVICE, cbytes);
#if defined(PETSC_HAVE_CUDA)
  if (!s) PetscCall(PetscLogGpuToCpu((PetscLogDouble)cbytes));
#endif
  if (dB) mispc_free(pctx, MISPC_MEM_DEVICE, dB);
  PetscCall(kept_near_null_free(pc));
  if (s) {
    if (dBc) mispc_free(pctx, MISPC_MEM_DEVICE, dBc);
    mispc_csr_free(m->mctx, P0);
    MispcCall(ectx, s);
  }
  m->dBc = dBc;
  m->hBc = Bc;
  m->dBc_level = level;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Rows of P0 (global column ids) into a Mat of A's type with nloc_cols local
 * columns, by PETSc's COO assembly (one pass; for cusparse the pattern and the
 * values are set up on the device, with no per-row insertion on the host). */
static PetscErrorCode build_prolongator(Mat A, PetscInt nrows, PetscInt nloc_cols, PetscInt bs,
                                        PetscInt k, const int64_t *rowptr, const int32_t *col32,
                                        const int64_t *col64, const double *val, Mat *P) {
  MatType mtype;
  PetscInt rstart, *ci, *cj;
  const PetscCount n = (PetscCount)rowptr[nrows];
  PetscFunctionBegin;
  PetscCall(MatGetType(A, &mtype));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), P));
  PetscCall(MatSetSizes(*P, nrows, nloc_cols, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSizes(*P, bs, k));
  PetscCall(MatSetType(*P, mtype));
  /* Host types: the CSR rows as they are (PETSc's COO preallocation sorts
   * every entry: most of the several-rank prolongator's assembly time);
   * device types: COO, assembled on the device. Same entries either way. */
  PetscBool host = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)*P, &host, MATSEQAIJ, MATMPIAIJ, ""));
  PetscCall(PetscMalloc2(host ? nrows + 1 : n + 1, &ci, n + 1, &cj));
  for (PetscInt i = 0; i < nrows; ++i)
    for (int64_t e = rowptr[i]; e < rowptr[i + 1]; ++e) {
      if (!host) ci[e] = rstart + i;
      cj[e] = col64 ? (PetscInt)col64[e] : (PetscInt)col32[e];
    }
  if (host) {
    for (PetscInt i = 0; i <= nrows; ++i) ci[i] = (PetscInt)rowptr[i];
    PetscCall(MatSeqAIJSetPreallocationCSR(*P, ci, cj, (const PetscScalar *)val));
    PetscCall(MatMPIAIJSetPreallocationCSR(*P, ci, cj, (const PetscScalar *)val)); /* assembles */
    PetscCall(PetscFree2(ci, cj));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatSetPreallocationCOO(*P, n, ci, cj));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(MatSetValuesCOO(*P, (const PetscScalar *)val, INSERT_VALUES)); /* assembles */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode
PCGAMGProlongator_MISPC(PC pc, Mat A, MISPC_GAMG_PROLONGATOR_GRAPH_ARG PetscCoarsenData *lists,
                        Mat *P) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  MispcGAMGLevelInfo *li = level_info(pc);
  const PetscInt k = MispcGAMGDataCols(pc), bs = m->bs;
  const PetscReal *B = MispcGAMGData(pc);
  PetscReal *Bc = NULL;
  PetscInt nrows, ncoarse_loc = 0;
  PetscLogDouble t0, t1;
  PetscFunctionBegin;
  (void)lists;
  *P = NULL;
  PetscCheck(m->mctx, PETSC_COMM_SELF, PETSC_ERR_ORDER,
             "-pc_gamg_type mispc: prolongator called before the coarsening");
  PetscCall(MatGetLocalSize(A, &nrows, NULL));
  /* a rank without rows (GAMG's process reduction) may have no data array */
  PetscCheck(k >= 1 && (B || nrows == 0), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "-pc_gamg_type mispc: no near-null space data on level %" PetscInt_FMT,
             MispcGAMGLevel(pc));
  PetscCheck(MispcGAMGDataRows(pc) == bs, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "-pc_gamg_type mispc: near-null space data has %" PetscInt_FMT
             " rows a node, the matrix block size is %" PetscInt_FMT,
             MispcGAMGDataRows(pc), bs);
  PetscCall(PetscLogEventBegin(ev_prol, pc, A, 0, 0));
  PetscCall(PetscTime(&t0));
  li->k = k;
  if (m->naggs == 0) { /* nothing to coarsen to: GAMG stops here */
    PetscCall(
        PetscInfo(pc, "mispc: no aggregates on level %" PetscInt_FMT "\n", MispcGAMGLevel(pc)));
    level_free(m);
    PetscCall(PetscLogEventEnd(ev_prol, pc, A, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!m->dist) {
    mispc_csr P0 = {0};
    ncoarse_loc = (PetscInt)m->naggs;
    PetscCall(PetscMalloc1(ncoarse_loc * k * k, &Bc));
    PetscCall(PetscLogEventBegin(ev_prol_qr, pc, A, 0, 0));
    PetscErrorCode ierr = tentative_prolongator(pc, m->comp ? &m->caggs : &m->aggs, bs, k, B, Bc,
                                                ncoarse_loc * k * k, &P0);
    PetscCall(PetscLogEventEnd(ev_prol_qr, pc, A, 0, 0));
    if (ierr) PetscCall(PetscFree(Bc));
    PetscCall(ierr);
    mispc_status s = MISPC_SUCCESS;
    PetscCall(PetscLogEventBegin(ev_prol_mat, pc, A, 0, 0));
    if (m->set->galerkin && m->set->nsmooths >= 1) {
      /* smoothed in optprolongator from P0 (on A's side); GAMG gets a
       * placeholder with P's sizes and block sizes */
      if (m->gpu && P0.mem != MISPC_MEM_DEVICE) {
        s = mispc_csr_copy(m->mctx, &P0, MISPC_MEM_DEVICE, &m->P0);
        mispc_csr_free(m->mctx, &P0);
      } else {
        m->P0 = P0;
      }
      if (!s)
        ierr = MatCreateShell(PetscObjectComm((PetscObject)A), nrows, ncoarse_loc * k,
                              PETSC_DETERMINE, PETSC_DETERMINE, NULL, P);
      if (!s && !ierr) ierr = MatSetBlockSizes(*P, bs, k);
      PetscCall(PetscLogEventEnd(ev_prol_mat, pc, A, 0, 0));
      if (s) PetscCall(PetscFree(Bc));
      MispcCall(m->mctx, s);
      PetscCall(ierr);
    } else {
      if (P0.mem == MISPC_MEM_DEVICE) { /* COO assembly reads host arrays */
        mispc_csr H;
        s = mispc_csr_copy(m->mctx, &P0, MISPC_MEM_HOST, &H);
        mispc_csr_free(m->mctx, &P0);
        if (s) PetscCall(PetscFree(Bc));
        MispcCall(m->mctx, s);
        P0 = H;
      }
      ierr = build_prolongator(A, nrows, ncoarse_loc * k, bs, k, P0.rowptr, P0.colidx, NULL,
                               P0.values, P);
      PetscCall(PetscLogEventEnd(ev_prol_mat, pc, A, 0, 0));
      mispc_csr_free(m->mctx, &P0);
      PetscCall(ierr);
      if (m->set->galerkin) {
        mispc_context *pctx;
        PetscCall(product_context(pc, m->gpu, &pctx));
        PetscCall(MispcUseGalerkinPtAP(A, *P, m->prod));
      }
    }
  } else {
#if MISPC_ENABLE_MPI
    mispc_dist_prolongator dp;
    PetscCall(PetscLogEventBegin(ev_prol_qr, pc, A, 0, 0));
    MispcCall(m->mctx, mispc_dist_tentative_prolongator(m->mctx, &m->DS, m->dagg, m->naggs, (int)bs,
                                                        (int)k, (const double *)B, &dp));
    PetscCall(PetscLogEventEnd(ev_prol_qr, pc, A, 0, 0));
    /* the coarse unknowns on the ranks with rows (coarse_layout.c says why) */
    int64_t nc0 = 0, nc1 = 0;
    PetscErrorCode ierr = MispcCoarseToActiveRanks(PetscObjectComm((PetscObject)A), nrows, m->naggs,
                                                   dp.cstart, dp.cend, k, dp.Bc, &nc0, &nc1, &Bc);
    ncoarse_loc = (PetscInt)(nc1 - nc0);
    /* mispc's products: smoothed in optprolongator from P0 (kept), GAMG gets
     * a placeholder with P's sizes and block sizes; else P0 as a Mat */
    const PetscBool keep = (PetscBool)(m->set->galerkin && m->set->nsmooths >= 1);
    if (!ierr) {
      ierr = PetscLogEventBegin(ev_prol_mat, pc, A, 0, 0);
      if (!ierr && keep)
        ierr = MatCreateShell(PetscObjectComm((PetscObject)A), nrows, ncoarse_loc * k,
                              PETSC_DETERMINE, PETSC_DETERMINE, NULL, P);
      if (!ierr && keep) ierr = MatSetBlockSizes(*P, bs, k);
      if (!ierr && !keep)
        ierr = build_prolongator(A, (PetscInt)dp.nrows, ncoarse_loc * k, bs, k, dp.rowptr, NULL,
                                 dp.gcol, dp.values, P);
      if (!ierr) ierr = PetscLogEventEnd(ev_prol_mat, pc, A, 0, 0);
    }
    if (!ierr) {
      PetscInt c0;
      ierr = MatGetOwnershipRangeColumn(*P, &c0, NULL);
      if (!ierr && c0 != (PetscInt)nc0 * k) ierr = PETSC_ERR_PLIB;
    }
    if (!ierr && m->set->galerkin && !keep) {
      mispc_context *pctx;
      ierr = product_context(pc, m->gpu, &pctx);
      if (!ierr) ierr = MispcUseGalerkinPtAP(A, *P, m->prod);
    }
    if (!ierr && keep) {
      free(dp.Bc);
      dp.Bc = NULL;
      m->dP0 = dp;
      m->have_dP0 = PETSC_TRUE;
    } else {
      mispc_dist_prolongator_free(&dp);
    }
    PetscCheck(ierr != PETSC_ERR_PLIB, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "mispc: the prolongator's column layout is not the aggregates' even ranges "
               "over the ranks with rows");
    PetscCall(ierr);
#endif
  }
  /* the coarse near-null space, as agg.c leaves it: (local coarse nodes * k)
   * rows, k columns, column-major */
  PetscCall(PetscFree(MispcGAMGData(pc)));
  MispcGAMGData(pc) = Bc;
  MispcGAMGDataRows(pc) = k;
  MispcGAMGDataSize(pc) = ncoarse_loc * k * k;
  PetscBool smooth_later = (PetscBool)(m->P0.rowptr != NULL);
#if MISPC_ENABLE_MPI
  smooth_later = (PetscBool)(smooth_later || m->have_dP0);
#endif
  if (!smooth_later) level_free(m); /* else after the smoothing */
  PetscCall(PetscTime(&t1));
  li->t_prol = t1 - t0;
  PetscCall(PetscLogEventEnd(ev_prol, pc, A, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------- prolongator smoothing */
/* bad: this rank's first global row whose diagonal entry is zero, missing
 * or not finite (-1: none); an error on every rank if any rank has one. */
static PetscErrorCode check_diagonal(Mat A, PetscInt bad) {
  PetscInt gbad;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&bad, &gbad, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)A)));
  PetscCheck(gbad < 0, PetscObjectComm((PetscObject)A), PETSC_ERR_MAT_LU_ZRPVT,
             "-pc_gamg_type mispc: diagonal entry zero, missing or not finite at row %" PetscInt_FMT
             " (prolongator smoothing needs D^-1)",
             gbad);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Gershgorin bound of D^-1 A: max_i sum_j |a_ij| / |a_ii|. Each row is summed
 * in increasing global column order (the diagonal and off-diagonal blocks
 * merged), so the bound is the same bits for any partition; the maximum
 * across ranks is exact. */
static PetscErrorCode gershgorin(Mat A, PetscReal *lambda) {
  MispcHostBlocks b;
  double lmax = 0;
  PetscFunctionBegin;
  PetscCall(MispcHostBlocksGet(A, &b));
  PetscInt bad = -1;
  for (PetscInt i = 0; i < b.n && bad < 0; ++i) {
    double sum = 0, diag = 0;
    PetscInt eb = b.bi ? b.bi[i] : 0, ebend = b.bi ? b.bi[i + 1] : 0;
    /* off-diagonal block columns below the diagonal block, the diagonal block, the rest */
    for (; eb < ebend && b.garray[b.bj[eb]] < b.cstart; ++eb) sum += PetscAbsScalar(b.ba[eb]);
    for (PetscInt e = b.ai[i]; e < b.ai[i + 1]; ++e) {
      sum += PetscAbsScalar(b.aa[e]);
      if (b.aj[e] + b.cstart == b.rstart + i) diag = PetscAbsScalar(b.aa[e]);
    }
    for (; eb < ebend; ++eb) sum += PetscAbsScalar(b.ba[eb]);
    if (!(diag > 0) || !PetscIsNormalReal(diag))
      bad = b.rstart + i;
    else
      lmax = PetscMax(lmax, sum / diag);
  }
  PetscCall(MispcHostBlocksRestore(&b));
  PetscCall(check_diagonal(A, bad));
  {
    PetscReal l = (PetscReal)lmax;
    PetscCallMPI(MPI_Allreduce(&l, lambda, 1, MPIU_REAL, MPI_MAX, PetscObjectComm((PetscObject)A)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* this rank's first global row whose diagonal entry is zero, not finite or
 * subnormal (-1: none) when the global check of |diag| (its minimum and its
 * 1-norm, on the Vec's side) finds one, without copying the diagonal to the
 * host otherwise; check_diagonal turns it into an error on every rank. */
static PetscErrorCode first_bad_diagonal(Vec diag, Vec work, PetscInt *bad) {
  PetscReal dmin, sum;
  PetscInt rstart, n;
  PetscFunctionBegin;
  *bad = -1;
  PetscCall(VecCopy(diag, work));
  PetscCall(VecAbs(work));
  PetscCall(VecMin(work, NULL, &dmin));
  PetscCall(VecNorm(work, NORM_1, &sum));
  if (dmin > 0 && PetscIsNormalReal(dmin) && !PetscIsInfOrNanReal(sum))
    PetscFunctionReturn(PETSC_SUCCESS);
  /* some rank has one (or the sum overflowed): find the row on the host */
  const PetscScalar *d;
  PetscCall(VecGetOwnershipRange(diag, &rstart, NULL));
  PetscCall(VecGetLocalSize(diag, &n));
  PetscCall(VecGetArrayRead(diag, &d));
  for (PetscInt i = 0; i < n && *bad < 0; ++i)
    if (!(PetscAbsScalar(d[i]) > 0) || !PetscIsNormalReal(PetscAbsScalar(d[i]))) *bad = rstart + i;
  PetscCall(VecRestoreArrayRead(diag, &d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* its power iterations y = D^-1 A x / ||.||_2 from mispc_random_vector by
 * global row (no bias towards the constant, the near-null space where the
 * iteration would stall; written where x lives, so a device Vec is not
 * copied): lambda = ||D^-1 A x|| of the last normalised x. */
static PetscErrorCode power_estimate(mispc_context *ctx, Mat A, PetscInt its, PetscReal *lambda) {
  Vec x, y, dinv;
  PetscInt rstart, n, bad;
  PetscScalar *xa;
  PetscMemType mtype;
  PetscReal nrm = 0;
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(x, &dinv));
  PetscCall(MatGetDiagonal(A, dinv));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCall(MatGetLocalSize(A, &n, NULL));
  PetscCall(first_bad_diagonal(dinv, y, &bad));
  PetscCall(check_diagonal(A, bad));
  PetscCall(VecReciprocal(dinv));
  PetscCall(VecGetArrayWriteAndMemType(x, &xa, &mtype));
  mispc_status s =
      mispc_random_vector(ctx, PetscMemTypeDevice(mtype) ? MISPC_MEM_DEVICE : MISPC_MEM_HOST, n,
                          rstart, 0, (double *)xa);
  PetscCall(VecRestoreArrayWriteAndMemType(x, &xa));
  MispcCall(ctx, s);
  PetscCall(VecNormalize(x, NULL));
  for (PetscInt it = 0; it < its; ++it) {
    PetscCall(MatMult(A, x, y));
    PetscCall(VecPointwiseMult(y, y, dinv));
    PetscCall(VecNorm(y, NORM_2, &nrm));
    PetscCheck(nrm > 0, PetscObjectComm((PetscObject)A), PETSC_ERR_PLIB,
               "-pc_gamg_type mispc: power iteration gave a zero vector");
    PetscCall(VecAXPBY(x, 1.0 / nrm, 0.0, y));
  }
  /* to float precision: the norms' sums and MatMult's rows (diagonal block,
   * then off-diagonal) round in another order on another number of ranks or
   * on the GPU, about 1e-15 relative; rounded to 24 bits, omega and with it
   * the smoothed prolongator and the coarse operators keep the same bits,
   * unless the estimate lies within that of a float rounding boundary */
  *lambda = (PetscReal)(float)nrm;
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&dinv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One rank: P = (I - omega D^-1 A)^nsmooths P0 by mispc_smooth_prolongator
 * on A's arrays (device ones for cusparse), from the P0 the prolongator step
 * kept; *P (the placeholder) is replaced by a Mat of A's type, marked for
 * mispc's PtAP. */
static PetscErrorCode smooth_by_mispc(PC pc, Mat A, PetscReal omega, Mat *P) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  MispcLocalCSR L = {0};
  mispc_csr cur = m->P0, next = {0};
  PetscInt rb, cb;
  MatType mtype;
  Mat Pn;
  mispc_status s = MISPC_SUCCESS;
  PetscFunctionBegin;
  mispc_context *pctx;
  memset(&m->P0, 0, sizeof m->P0);
  PetscErrorCode ierr = product_context(pc, m->gpu, &pctx);
  if (!ierr) ierr = MispcLocalCSRBegin(pctx, A, PETSC_TRUE, PETSC_TRUE, &L);
  if (!ierr) ierr = PetscLogEventBegin(MISPC_EventProduct, A, 0, 0, 0);
  for (PetscInt it = 0; !ierr && !s && it < m->set->nsmooths; ++it) {
    s = mispc_smooth_prolongator(pctx, &L.csr, &cur, (double)omega, &next);
    mispc_csr_free(pctx, &cur);
    cur = next;
    memset(&next, 0, sizeof next);
  }
  if (!ierr) ierr = PetscLogEventEnd(MISPC_EventProduct, A, 0, 0, 0);
  if (!ierr) ierr = MispcLocalCSREnd(&L);
  (void)MispcLocalCSRDestroy(pctx, &L);
  if (s || ierr) mispc_csr_free(pctx, &cur);
  MispcCall(pctx, s);
  PetscCall(ierr);
  PetscCall(MatGetBlockSizes(*P, &rb, &cb));
  PetscCall(MatGetType(A, &mtype));
  ierr = MispcMatCreateFromCSR(pctx, PetscObjectComm((PetscObject)A), &cur, mtype, rb, cb, &Pn);
  if (!ierr) ierr = MispcUseGalerkinPtAP(A, Pn, m->prod);
  mispc_csr_free(pctx, &cur);
  level_free(m);
  PetscCall(ierr);
  PetscCall(MatDestroy(P));
  *P = Pn;
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if MISPC_ENABLE_MPI
/* Several ranks: the same, by mispc_dist_smooth_prolongator on the host copies
 * of A's blocks (the one-rank bits for the same omega), from the P0 the
 * prolongator step kept; *P becomes an MPI Mat of A's type, marked for
 * mispc_dist_galerkin_product. */
static PetscErrorCode smooth_by_mispc_dist(PC pc, Mat A, PetscReal omega, Mat *P) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  mispc_dist_prolongator cur = m->dP0, next;
  MispcDistMat w;
  PetscInt rb, cb, ncl;
  Mat Pn = NULL;
  mispc_status s = MISPC_SUCCESS;
  PetscFunctionBegin;
  PetscLogDouble tw[4] = {0, 0, 0, 0};
  PetscCall(PetscTime(&tw[0])); /* before P0 moves into cur: nothing to free yet */
  memset(&m->dP0, 0, sizeof m->dP0);
  m->have_dP0 = PETSC_FALSE;
  PetscErrorCode ierr = MispcDistMatBegin(m->mctx, A, &w);
  if (!ierr) ierr = PetscTime(&tw[1]);
  if (!ierr) ierr = PetscLogEventBegin(MISPC_EventProduct, A, 0, 0, 0);
  for (PetscInt it = 0; !ierr && !s && it < m->set->nsmooths; ++it) {
    s = mispc_dist_smooth_prolongator(m->mctx, &w.D, &cur, (double)omega, &next);
    mispc_dist_prolongator_free(&cur);
    if (!s) cur = next;
  }
  if (!ierr) ierr = PetscLogEventEnd(MISPC_EventProduct, A, 0, 0, 0);
  if (!ierr) ierr = PetscTime(&tw[2]);
  PetscErrorCode ierr2 = MispcDistMatEnd(m->mctx, &w);
  if (!ierr) ierr = ierr2;
  if (!ierr && !s) ierr = MatGetBlockSizes(*P, &rb, &cb);
  if (!ierr && !s) ierr = MatGetLocalSize(*P, NULL, &ncl);
  if (!ierr && !s)
    ierr = build_prolongator(A, (PetscInt)cur.nrows, ncl, rb, cb, cur.rowptr, NULL, cur.gcol,
                             cur.values, &Pn);
  if (!ierr && !s) ierr = PetscTime(&tw[3]);
  if (!ierr && !s)
    ierr = PetscInfo(pc,
                     "mispc level %" PetscInt_FMT
                     ": smoothing: A's blocks and halo %.3g s, smoothing %.3g s, P's Mat %.3g s\n",
                     MispcGAMGLevel(pc), tw[1] - tw[0], tw[2] - tw[1], tw[3] - tw[2]);
  mispc_dist_prolongator_free(&cur);
  if (!ierr && !s) {
    mispc_context *pctx;
    ierr = product_context(pc, m->gpu, &pctx);
    if (!ierr) ierr = MispcUseGalerkinPtAP(A, Pn, m->prod);
  }
  if (s) MispcCall(m->mctx, s);
  level_free(m);
  if (ierr) (void)MatDestroy(&Pn);
  PetscCall(ierr);
  PetscCall(MatDestroy(P));
  *P = Pn;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* PETSc's products (-pc_gamg_mispc_galerkin 0): P = (I - omega D^-1 A)^s P. */
static PetscErrorCode smooth_by_petsc(Mat A, PetscReal omega, PetscInt nsmooths, Mat *P) {
  Vec dinv = NULL; /* D^-1, once for all smoothing steps */
  PetscFunctionBegin;
  if (nsmooths > 0) {
    PetscCall(MatCreateVecs(A, &dinv, NULL));
    PetscCall(MatGetDiagonal(A, dinv));
    PetscCall(VecReciprocal(dinv));
  }
  for (PetscInt it = 0; it < nsmooths; ++it) {
    Mat AP;
    PetscCall(MatMatMult(A, *P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &AP));
    PetscCall(MatProductClear(AP));
    PetscCall(MatDiagonalScale(AP, dinv, NULL));
    /* AP = P - omega D^-1 A P (P's pattern is a subset of AP's) */
    PetscCall(MatAYPX(AP, -omega, *P, SUBSET_NONZERO_PATTERN));
    PetscCall(MatDestroy(P));
    *P = AP;
  }
  PetscCall(VecDestroy(&dinv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCGAMGOptProlongator_MISPC(PC pc, Mat A, Mat *P) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  MispcGAMGLevelInfo *li = level_info(pc);
  PetscReal lambda = 0;
  PetscLogDouble t0, t1;
  PetscFunctionBegin;
  if (m->set->nsmooths < 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTime(&t0));
  PetscCall(PetscLogEventBegin(ev_eig, pc, A, 0, 0));
  if (m->set->eig_estimate == PC_GAMG_MISPC_EIG_GERSHGORIN)
    PetscCall(gershgorin(A, &lambda));
  else {
    mispc_context *pctx;
    PetscCall(product_context(pc, m->gpu, &pctx));
    PetscCall(power_estimate(pctx, A, m->set->power_its, &lambda));
  }
  PetscCall(PetscLogEventEnd(ev_eig, pc, A, 0, 0));
  PetscCheck(lambda > 0 && PetscIsNormalReal(lambda), PetscObjectComm((PetscObject)pc),
             PETSC_ERR_FP, "-pc_gamg_type mispc: eigen-estimate %g of D^-1 A is not positive",
             (double)lambda);
  const PetscReal omega = 4.0 / (3.0 * lambda);
  li->lambda = lambda;
  li->omega = omega;
  PetscCall(PetscInfo(pc, "mispc level %" PetscInt_FMT ": lambda(D^-1 A) <= %g (%s), omega %g\n",
                      MispcGAMGLevel(pc), (double)lambda,
                      PCGAMGMISPCEigEstimates[m->set->eig_estimate], (double)omega));
  PetscCall(PetscLogEventBegin(ev_smooth, pc, A, 0, 0));
  /* P0 kept for mispc's products (the smoothing frees it): one rank's as a
   * CSR, several ranks' as rows; else PETSc's products on the Mat */
  const PetscBool one = (PetscBool)(m->P0.rowptr != NULL);
  PetscBool dist = PETSC_FALSE;
#if MISPC_ENABLE_MPI
  dist = m->have_dP0;
  if (dist) PetscCall(smooth_by_mispc_dist(pc, A, omega, P));
#endif
  if (one) PetscCall(smooth_by_mispc(pc, A, omega, P));
  if (!dist && !one) PetscCall(smooth_by_petsc(A, omega, m->set->nsmooths, P));
  PetscCall(PetscLogEventEnd(ev_smooth, pc, A, 0, 0));
  PetscCall(PetscTime(&t1));
  li->t_opt = t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------ default near-null space */
/* As agg.c: the matrix's near-null space (the constant first if it has it),
 * else one constant per dof of a node (k = block size). */
static PetscErrorCode PCSetData_MISPC(PC pc, Mat A) {
  MatNullSpace mnull;
  PetscInt bs, mloc, k;
  PetscReal *data;
  PetscBool ones; /* one vector, all ones */
  PetscFunctionBegin;
  PetscCall(local_rows(A, &bs, &mloc));
  PetscCall(MatGetNearNullSpace(A, &mnull));
  if (!mnull) {
    k = bs;
    ones = (PetscBool)(bs == 1);
    PetscCall(PetscMalloc1(mloc * k + 1, &data));
    for (PetscInt j = 0; j < k; ++j)
      for (PetscInt i = 0; i < mloc; ++i) data[j * mloc + i] = (i % bs == j) ? 1.0 : 0.0;
  } else {
    PetscBool has_const;
    PetscInt nvec;
    const Vec *vecs;
    PetscCall(MatNullSpaceGetVecs(mnull, &has_const, &nvec, &vecs));
    k = nvec + (has_const ? 1 : 0);
    ones = (PetscBool)(has_const && nvec == 0);
    PetscCheck(k >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONG,
               "-pc_gamg_type mispc: the near-null space is empty");
    PetscCall(PetscMalloc1(mloc * k + 1, &data));
    if (has_const)
      for (PetscInt i = 0; i < mloc; ++i) data[i] = 1.0;
    for (PetscInt j = 0; j < nvec; ++j) {
      const PetscScalar *v;
      PetscReal *col = data + (j + (has_const ? 1 : 0)) * mloc;
      PetscCall(VecGetArrayRead(vecs[j], &v));
      for (PetscInt i = 0; i < mloc; ++i) col[i] = PetscRealPart(v[i]);
      PetscCall(VecRestoreArrayRead(vecs[j], &v));
    }
  }
  PetscCall(PetscFree(MispcGAMGData(pc)));
  MispcGAMGData(pc) = data;
  get_ctx(pc)->const_data = ones ? data : NULL;
  MispcGAMGDataSize(pc) = mloc * k;
  MispcGAMGDataRows(pc) = bs;
  MispcGAMGDataCols(pc) = k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------ options and view */
/* The range of setting i; `what` names it in the message (the option with the
 * PC's prefix, or the setter). */
static PetscErrorCode check_setting(PC pc, int i, PetscInt v, const char *what) {
  const SettingInfo *d = &settings_info[i];
  MPI_Comm comm = PetscObjectComm((PetscObject)pc);
  PetscFunctionBegin;
  if (d->kind == SETTING_LIST) {
    const PetscInt n = list_length(d->list);
    PetscCheck(v >= 0 && v < n, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "%s must be a %s, 0 (%s) to %" PetscInt_FMT " (%s), got %" PetscInt_FMT, what,
               d->list[n], d->list[0], n - 1, d->list[n - 1], v);
  } else if (d->kind == SETTING_BOOL) {
    PetscCheck(v == PETSC_FALSE || v == PETSC_TRUE, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "%s must be PETSC_FALSE or PETSC_TRUE, got %" PetscInt_FMT, what, v);
  } else {
    PetscCheck(v >= d->min, comm, PETSC_ERR_ARG_OUTOFRANGE,
               "%s must be >= %" PetscInt_FMT ", got %" PetscInt_FMT, what, d->min, v);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -pc_gamg_mispc_<option> for each setting, the current value as default;
 * nothing is kept unless every value is in range. */
static PetscErrorCode PCSetFromOptions_GAMG_MISPC(PC pc, MispcOptionItems PetscOptionsObject) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  MispcGAMGSettings s = *m->set;
  const char *prefix;
  char opt[MISPC_GAMG_NSETTINGS][64], man[64], what[320];
  PetscFunctionBegin;
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  PetscOptionsHeadBegin(PetscOptionsObject, "GAMG-MISPC options");
  for (int i = 0; i < MISPC_GAMG_NSETTINGS; ++i) {
    const SettingInfo *d = &settings_info[i];
    PetscInt *v = setting_field(&s, i);
    PetscCall(PetscSNPrintf(opt[i], sizeof opt[i], "-pc_gamg_mispc_%s", d->option));
    PetscCall(PetscSNPrintf(man, sizeof man, "PCGAMGMISPCSet%s", d->name));
    if (d->kind == SETTING_LIST) {
      PetscCall(PetscOptionsEList(opt[i], d->help, man, d->list, list_length(d->list), d->list[*v],
                                  v, NULL));
    } else if (d->kind == SETTING_BOOL) {
      PetscBool b = (PetscBool)(*v != 0);
      PetscCall(PetscOptionsBool(opt[i], d->help, man, b, &b, NULL));
      *v = b;
    } else {
      PetscCall(PetscOptionsInt(opt[i], d->help, man, *v, v, NULL));
    }
  }
  PetscOptionsHeadEnd();
  for (int i = 0; i < MISPC_GAMG_NSETTINGS; ++i) {
    PetscCall(PetscSNPrintf(what, sizeof what, "-%s%s", prefix ? prefix : "", opt[i] + 1));
    PetscCall(check_setting(pc, i, *setting_field(&s, i), what));
  }
  *m->set = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_GAMG_MISPC(PC pc, PetscViewer viewer) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  PetscBool ascii;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "      MISPC specific options\n"));
  const MispcGAMGSettings *s = m->set;
  char its[64] = "";
  if (s->eig_estimate == PC_GAMG_MISPC_EIG_POWER)
    PetscCall(PetscSNPrintf(its, sizeof its, " (%" PetscInt_FMT " iterations)", s->power_its));
  PetscCall(PetscViewerASCIIPrintf(
      viewer,
      "        aggregation %s (seed %" PetscInt_FMT "), aggressive levels %" PetscInt_FMT
      ", prolongator smoothing steps %" PetscInt_FMT ", eigen-estimate %s%s\n",
      PCGAMGMISPCAggregations[s->aggregation], s->seed, s->aggressive_levels, s->nsmooths,
      PCGAMGMISPCEigEstimates[s->eig_estimate], its));
  PetscCall(PetscViewerASCIIPrintf(
      viewer, "        secondary roots need %" PetscInt_FMT " unaggregated neighbours%s\n",
      s->phase2_min_free >= 0 ? s->phase2_min_free : (PetscInt)PHASE2_MIN_FREE_SCALAR,
      s->phase2_min_free >= 0 ? "" : " (none where k > block size)"));
  PetscCall(PetscViewerASCIIPrintf(
      viewer, "        MIS-2 priority %s%s\n", PCGAMGMISPCPriorities[s->priority],
      s->priority == PC_GAMG_MISPC_PRIORITY_AUTO ? " (cover where k > block size, else hash)"
                                                 : ""));
  for (PetscInt l = 0; l < m->nlev; ++l) {
    const MispcGAMGLevelInfo *li = &m->lev[l];
    PetscCall(PetscViewerASCIIPrintf(
        viewer,
        "        level %" PetscInt_FMT ": %" PetscInt_FMT " nodes (block size %" PetscInt_FMT
        ") -> %" PetscInt_FMT " aggregates%s (nodes per aggregate: mean %.2f, min %" PetscInt_FMT
        ", max %" PetscInt_FMT "; singletons %" PetscInt_FMT "), MIS-2 rounds %d + %d (%s)\n",
        l, li->nodes, li->bs, li->naggs, li->aggressive ? " of aggregates" : "", li->mean_size,
        li->min_size, li->max_size, li->singletons, li->rounds[0], li->rounds[1],
        li->cover ? "cover priority" : "hash priority"));
    PetscCall(PetscViewerASCIIPrintf(
        viewer,
        "          threshold %g, near-null vectors %" PetscInt_FMT ", lambda %g, omega %g, %s on "
        "%d rank%s; setup s: graph %.3g coarsen %.3g prolongator %.3g smoothing %.3g\n",
        (double)li->theta, li->k, (double)li->lambda, (double)li->omega,
        li->gpu ? (m->set->galerkin && li->ranks == 1
                       ? "graph, aggregates, smoothing and PtAP on the GPU, P0 on the host"
                       : "graph and aggregates on the GPU, P0 on the host")
        : li->ranks > 1 && m->set->galerkin
            ? "host, smoothing and PtAP by mispc's distributed products"
            : "host",
        li->ranks, li->ranks > 1 ? "s" : "", li->t_graph, li->t_coarsen, li->t_prol, li->t_opt));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---------------------------------------------------- setters, getters */
/* The functions behind every PCGAMGMISPCSet<Name> / Get<Name>
 * (gamg_mispc_api.c), composed under each setting's names; `which` is a
 * MispcGAMGSetting. A value set takes effect when GAMG next builds its
 * levels (PCSetUp). */
static PetscErrorCode PCGAMGMISPCSetSetting_MISPC(PC pc, PetscInt which, PetscInt v) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  char what[128];
  PetscFunctionBegin;
  PetscCheck(which >= 0 && which < MISPC_GAMG_NSETTINGS, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "no PCGAMGMISPC setting %" PetscInt_FMT, which);
  PetscCall(PetscSNPrintf(what, sizeof what, "PCGAMGMISPCSet%s() (as -pc_gamg_mispc_%s)",
                          settings_info[which].name, settings_info[which].option));
  PetscCall(check_setting(pc, (int)which, v, what));
  *setting_field(m->set, (int)which) = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCGAMGMISPCGetSetting_MISPC(PC pc, PetscInt which, PetscInt *v) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  PetscFunctionBegin;
  PetscCheck(which >= 0 && which < MISPC_GAMG_NSETTINGS, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "no PCGAMGMISPC setting %" PetscInt_FMT, which);
  *v = *setting_field(m->set, (int)which);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Composes (or, on destroy, removes) "PCGAMGMISPCSet<Name>_C" and
 * "PCGAMGMISPCGet<Name>_C" of every setting. */
static PetscErrorCode compose_settings(PC pc, PetscBool remove) {
  char name[64];
  PetscFunctionBegin;
  for (int i = 0; i < MISPC_GAMG_NSETTINGS; ++i) {
    PetscCall(PetscSNPrintf(name, sizeof name, "PCGAMGMISPCSet%s_C", settings_info[i].name));
    PetscCall(PetscObjectComposeFunction((PetscObject)pc, name,
                                         remove ? NULL : PCGAMGMISPCSetSetting_MISPC));
    PetscCall(PetscSNPrintf(name, sizeof name, "PCGAMGMISPCGet%s_C", settings_info[i].name));
    PetscCall(PetscObjectComposeFunction((PetscObject)pc, name,
                                         remove ? NULL : PCGAMGMISPCGetSetting_MISPC));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The PC's settings (see MispcGAMGSettings): composed on it, with the
 * defaults, by the first creation of the type; found again by later ones. */
static PetscErrorCode pc_settings(PC pc, MispcGAMGSettings **set) {
  const char *key = "PCGAMGMISPCSettings";
  PetscContainer c;
  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)pc, key, (PetscObject *)&c));
  if (c) {
    PetscCall(PetscContainerGetPointer(c, (void **)set));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscNew(set));
  for (int i = 0; i < MISPC_GAMG_NSETTINGS; ++i) *setting_field(*set, i) = settings_info[i].def;
  PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)pc), &c));
  PetscCall(PetscContainerSetPointer(c, *set));
  PetscCall(MispcContainerFreeOnDestroy(c));
  PetscCall(PetscObjectCompose((PetscObject)pc, key, (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_GAMG_MISPC(PC pc) {
  PC_GAMG_MISPC *m = get_ctx(pc);
  PetscFunctionBegin;
  if (m) level_free(m);
  if (m) PetscCall(kept_near_null_free(pc));
  if (m) PetscCall(PetscContainerDestroy(&m->prod));
  PetscCall(compose_settings(pc, PETSC_TRUE));
  PetscCall(PetscFree(MispcGAMGSubctx(pc)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCGAMGMISPC - "mispc": a `PCGAMG` type (smoothed aggregation) whose setup steps are
   mispc's: the strength graph, deterministic MIS-2 aggregation and the tentative
   prolongator give the same aggregates and the same P0 (bit for bit) for any number
   of MPI ranks; the prolongator is smoothed with a rank-independent eigen-estimate.

   Options Database Keys:
+  -pc_gamg_type mispc                             - selects it (`PCGAMGSetType()` with
                                                     `PCGAMGMISPC`)
.  -pc_gamg_threshold <-1>                         - drop a_ij when |a_ij| <= t sqrt(|a_ii a_jj|);
                                                     t <= 0 keeps every stored entry
.  -pc_gamg_mispc_aggregation <mis2agg,mis2basic> - Kokkos Kernels Alg. 3 or Alg. 2,
                                                     see `PCGAMGMISPCSetAggregation()`
.  -pc_gamg_mispc_phase2_min_free <-1>             - unaggregated neighbours a secondary root of
                                                     mis2agg needs, see
                                                     `PCGAMGMISPCSetPhase2MinFree()`
.  -pc_gamg_mispc_aggressive_levels <0>            - levels (from the finest) whose aggregates
                                                     are aggregated once more,
                                                     see `PCGAMGMISPCSetAggressiveLevels()`
.  -pc_gamg_mispc_nsmooths <1>                     - prolongator smoothing steps (0: P0),
                                                     see `PCGAMGMISPCSetNSmooths()`
.  -pc_gamg_mispc_eig_estimate <power,gershgorin> - lambda_max(D^-1 A), omega = 4/(3 lambda),
                                                     see `PCGAMGMISPCSetEigEstimate()`
.  -pc_gamg_mispc_power_its <10>                   - iterations of the power estimate,
                                                     see `PCGAMGMISPCSetPowerIts()`
.  -pc_gamg_mispc_seed <0>                         - seed of the hashed MIS-2 priorities,
                                                     see `PCGAMGMISPCSetSeed()`
.  -pc_gamg_mispc_verify <false>                   - check every aggregation,
                                                     see `PCGAMGMISPCSetVerify()`
-  -pc_gamg_mispc_galerkin <true>                  - smoothing and coarse operators by
                                                     mispc's sparse products,
                                                     see `PCGAMGMISPCSetGalerkin()`

   Level: intermediate

   Notes:
   Nodes are the matrix block size's rows; the near-null space comes from
   `MatSetNearNullSpace()` (the constant first if it has it), else one constant per dof
   of a node. Strength: nodes I and J are joined when some entry of block (I, J) or
   (J, I) has |a_ij| > t sqrt(|a_ii a_jj|).

   The default eigen-estimate is 10 power iterations of D^-1 A from a fixed start vector
   (a hash of the global row), on the matrix's own device, rounded to float precision:
   its products and reductions round differently on other rank counts (about 1e-15
   relative), which the rounding removes unless the estimate lies that close to a float
   rounding boundary. The Gershgorin bound max_i sum_j |a_ij| / |a_ii|, summed per row in
   global column order, is the same bits on any number of ranks but loose on coarse
   levels (more iterations). The smoothing and GAMG's Galerkin products are mispc's
   (`mispc_smooth_prolongator()`, `mispc_galerkin_product()` on one rank: deterministic,
   the same bits on the host and the GPU, memory for P^T, A P and the coarse operator only;
   `mispc_dist_smooth_prolongator()`, `mispc_dist_galerkin_product()` on several ranks,
   on the host copies of the blocks: the one-rank bits), so with the same near-null space
   every coarse operator is the same bits on any number of ranks (`-info` prints a
   checksum of each). `MatNullSpaceCreateRigidBody()` orthonormalises its vectors with
   global dot products, so its near-null space, and the coarse values built on it, differ
   in the last bits across rank counts. With t <= 0 the aggregates depend only on the
   pattern and are the same on every level.

   On one rank with `MATAIJCUSPARSE` the strength graph, the aggregation, the smoothing
   and the Galerkin products run on the GPU; the tentative prolongator runs on the
   host. Several ranks run the host path (a cusparse matrix's blocks are read through
   their host copies; the products are made into Mats of the matrix's type).
   Not supported: -pc_gamg_use_aggs_in_asm.

   The setters (and their getters `PCGAMGMISPCGetNSmooths()` ...) are called after
   `PCSetType()` with `PCGAMG` and `PCGAMGSetType()` with `PCGAMGMISPC`, before `PCSetUp()`:
   the values are used when GAMG builds its levels (a setter called after the setup takes
   effect when the levels are built again, for a new operator). On any other PC a setter
   does nothing and a getter is an error. The PC keeps the values when GAMG creates the
   type again (-pc_gamg_type mispc read by `PCSetFromOptions()`); there the
   -pc_gamg_mispc_* options override them. A value out of range is the error
   `PETSC_ERR_ARG_OUTOFRANGE`, from the setter or from `PCSetFromOptions()`.

   Load with -dll_append libpetscmispc.so, or link libpetscmispc and call
   mispc_petsc_register() (needed to call the setters).

.seealso: `PCGAMG`, `PCGAMGSetType()`, `PCGAMGAGG`, `MATCOARSENMIS2AGG`, `PCMCGS`, `PCCLUSTERGS`,
          `PCGAMGMISPCSetAggregation()`, `PCGAMGMISPCSetAggressiveLevels()`,
          `PCGAMGMISPCSetNSmooths()`, `PCGAMGMISPCSetEigEstimate()`, `PCGAMGMISPCSetPowerIts()`,
          `PCGAMGMISPCSetSeed()`, `PCGAMGMISPCSetVerify()`, `PCGAMGMISPCAggregation`,
          `PCGAMGMISPCEigEstimate`
M*/
static PetscErrorCode PCCreateGAMG_MISPC(PC pc) {
  PC_GAMG_MISPC *m;
  PetscFunctionBegin;
  PetscCall(PetscNew(&m));
  PetscCall(pc_settings(pc, &m->set));
  MispcGAMGSubctx(pc) = m;
  MispcGAMGOps(pc)->setfromoptions = PCSetFromOptions_GAMG_MISPC;
  MispcGAMGOps(pc)->destroy = PCDestroy_GAMG_MISPC;
  MispcGAMGOps(pc)->view = PCView_GAMG_MISPC;
  MispcGAMGOps(pc)->creategraph = PCGAMGCreateGraph_MISPC;
  MispcGAMGOps(pc)->coarsen = PCGAMGCoarsen_MISPC;
  MispcGAMGOps(pc)->prolongator = PCGAMGProlongator_MISPC;
  MispcGAMGOps(pc)->optprolongator = PCGAMGOptProlongator_MISPC;
  MispcGAMGOps(pc)->createdefaultdata = PCSetData_MISPC;
  PetscCall(compose_settings(pc, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcRegisterGAMG(void) {
  PetscFunctionBegin;
  PetscCall(PCGAMGRegister(PCGAMGMISPC, PCCreateGAMG_MISPC));
  PetscCall(PetscLogEventRegister("MispcGAMGGraph", PC_CLASSID, &ev_graph));
  PetscCall(PetscLogEventRegister("MispcGAMGCoarsen", PC_CLASSID, &ev_coarsen));
  PetscCall(PetscLogEventRegister("MispcGAMGProl", PC_CLASSID, &ev_prol));
  PetscCall(PetscLogEventRegister("MispcGAMGProlQR", PC_CLASSID, &ev_prol_qr));
  PetscCall(PetscLogEventRegister("MispcGAMGProlMat", PC_CLASSID, &ev_prol_mat));
  PetscCall(PetscLogEventRegister("MispcGAMGEigEst", PC_CLASSID, &ev_eig));
  PetscCall(PetscLogEventRegister("MispcGAMGSmoothP", PC_CLASSID, &ev_smooth));
  PetscFunctionReturn(PETSC_SUCCESS);
}
