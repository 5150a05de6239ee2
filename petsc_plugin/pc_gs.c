/* PCMCGS (-pc_type mcgs) and PCCLUSTERGS (-pc_type clustergs): point and
 * cluster multicolor Gauss-Seidel / SGS / SOR from mispc_gs_*
 * (papers/KokkosKernels-MIS2-aggregation-clusterGS-2022.txt §III-C, Alg. 4).
 *
 * On several ranks, point GS on host matrices is exact (-pc_mcgs_exact, the
 * default): mispc_dist_gs sweeps the whole matrix color by color with the
 * halo between colors, so the output is the one-rank output bit for bit
 * (docs/DISTRIBUTED.md). Otherwise (cluster GS, GPU matrices, or exact
 * false) each rank sweeps its diagonal block and couplings to other ranks
 * use the previous iterate, as PETSc's parallel SOR (SOR_LOCAL_*_SWEEP):
 * with zero initial guess the first sweep is purely local, later sweeps use
 * b - A_offdiag x_ghost. */
#include <limits.h>
#include <petsc/private/pcimpl.h>

#include "mispc/config.h"
#include "plugin_internal.h"
#if MISPC_ENABLE_MPI
#include "mispc/dist.h"
#endif

typedef struct {
  mispc_gs_kind kind;
  PetscInt sweeps;
  PetscReal omega;
  PetscBool symmetric, backward;
  mispc_agg_algo coarsen;
  PetscReal strength_threshold;
  PetscInt block_size; /* 0: the matrix's block size */
  PetscInt seed;
  mispc_coloring_algo coloring;
  PetscInt recolor; /* -1: by kind (mispc_gs_recolor_passes) */
  /* setup */
  mispc_context *mctx;
  mispc_gs *gs;
  MispcLocalCSR L;
  PetscBool have_symbolic;
  PetscInt used_block_size;
  PetscMPIInt nranks;
  Vec w, xl, wl;   /* work for several sweeps on several ranks */
  PetscBool exact; /* several ranks: the distributed sweep (rank-independent output) */
  PetscBool use_dist;
#if MISPC_ENABLE_MPI
  mispc_dist_gs *dgs;
  mispc_dist_csr D; /* wraps the two blocks (descriptors refreshed at each use) */
  MispcLocalCSR Lo; /* the off-diagonal block */
  int64_t *garray;  /* 64-bit copy of the block's garray */
  PetscBool have_dist;
#endif
} PC_MispcGS;

static const char *const coarsen_names[] = {"mis2agg", "mis2basic", "MispcCoarsen", "", NULL};
static const char *const sweep_names[] = {"forward", "backward", "symmetric"};
static const char *const coloring_names[] = {"mis", "greedy", "MispcColoring", "", NULL};

static const char *prefix_of(const PC_MispcGS *g) {
  return g->kind == MISPC_GS_CLUSTER ? "clustergs" : "mcgs";
}

static PetscErrorCode reset_setup(PC pc) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  PetscFunctionBegin;
  if (g->mctx) {
    mispc_gs_destroy(g->mctx, g->gs);
    PetscCall(MispcLocalCSRDestroy(g->mctx, &g->L));
  }
  g->gs = NULL;
#if MISPC_ENABLE_MPI
  if (g->mctx) {
    mispc_dist_gs_destroy(g->mctx, g->dgs);
    if (g->have_dist) mispc_dist_csr_free(g->mctx, &g->D);
    PetscCall(MispcLocalCSRDestroy(g->mctx, &g->Lo));
  }
  g->dgs = NULL;
  g->have_dist = PETSC_FALSE;
  PetscCall(PetscFree(g->garray));
#endif
  g->use_dist = PETSC_FALSE;
  if (g->mctx) mispc_context_destroy(g->mctx);
  g->mctx = NULL;
  g->have_symbolic = PETSC_FALSE;
  PetscCall(VecDestroy(&g->w));
  PetscCall(VecDestroy(&g->xl));
  PetscCall(VecDestroy(&g->wl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_MispcGS(PC pc) {
  PetscFunctionBegin;
  PetscCall(reset_setup(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCDestroy_MispcGS(PC pc) {
  PetscFunctionBegin;
  PetscCall(reset_setup(pc));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_MispcGS(PC pc, MispcOptionItems PetscOptionsObject) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  char name[64];
  PetscInt c = (PetscInt)g->coarsen, col = (PetscInt)g->coloring;
  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, g->kind == MISPC_GS_CLUSTER
                                                ? "Cluster multicolor Gauss-Seidel (mispc)"
                                                : "Point multicolor Gauss-Seidel (mispc)");
#define OPT(suffix) (PetscSNPrintf(name, sizeof name, "-pc_%s_%s", prefix_of(g), suffix), name)
  PetscCall(PetscOptionsInt(OPT("sweeps"), "Sweeps per application", "PCMCGS", g->sweeps,
                            &g->sweeps, NULL));
  PetscCall(PetscOptionsReal(OPT("omega"), "Relaxation factor (1: Gauss-Seidel)", "PCMCGS",
                             g->omega, &g->omega, NULL));
  PetscCall(PetscOptionsBool(OPT("symmetric"), "Symmetric sweeps (SGS/SSOR; needed under CG)",
                             "PCMCGS", g->symmetric, &g->symmetric, NULL));
  PetscCall(PetscOptionsBool(OPT("backward"), "Backward sweeps (when not symmetric)", "PCMCGS",
                             g->backward, &g->backward, NULL));
  PetscCall(PetscOptionsInt(OPT("seed"), "Seed of the hashed priorities", "PCMCGS", g->seed,
                            &g->seed, NULL));
  PetscCall(PetscOptionsBool(OPT("exact"),
                             "Several ranks: sweep the whole matrix color by color (output "
                             "independent of the rank count; point GS on host matrices)",
                             "PCMCGS", g->exact, &g->exact, NULL));
  PetscCall(PetscOptionsEList(
      OPT("coloring"), "Colors: MIS-1 classes (in one pass), or greedy in row (cluster) order",
      "PCMCGS", coloring_names, 2, coloring_names[col], &col, NULL));
  g->coloring = (mispc_coloring_algo)col;
  PetscCall(PetscOptionsInt(OPT("recolor"),
                            "Passes of iterated greedy recoloring (fewer colors; -1: 1 for "
                            "mcgs, 2 for clustergs)",
                            "PCMCGS", g->recolor, &g->recolor, NULL));
  if (g->kind == MISPC_GS_CLUSTER) {
    PetscCall(PetscOptionsEList(OPT("coarsen"), "Clusters: MIS-2 aggregation algorithm",
                                "PCCLUSTERGS", coarsen_names, 2, coarsen_names[c], &c, NULL));
    g->coarsen = (mispc_agg_algo)c;
    PetscCall(PetscOptionsReal(OPT("strength_threshold"),
                               "Drop |a_ij| <= t sqrt(|a_ii a_jj|) before clustering",
                               "PCCLUSTERGS", g->strength_threshold, &g->strength_threshold, NULL));
    PetscCall(PetscOptionsInt(OPT("block_size"),
                              "Rows per node for clustering (0: the matrix block size)",
                              "PCCLUSTERGS", g->block_size, &g->block_size, NULL));
  }
#undef OPT
  PetscOptionsHeadEnd();
  /* Messages name the option as given, with the PC's prefix. */
  const char *pre = NULL;
  PetscCall(PCGetOptionsPrefix(pc, &pre));
#define OPT(suffix)                                                                                \
  (PetscSNPrintf(name, sizeof name, "-%spc_%s_%s", pre ? pre : "", prefix_of(g), suffix), name)
  PetscCheck(g->sweeps >= 1, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
             "%s must be >= 1, got %" PetscInt_FMT, OPT("sweeps"), g->sweeps);
  PetscCheck(g->recolor >= -1 && g->recolor <= MISPC_COLORING_MAX_RECOLOR,
             PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
             "%s must be -1 (default) or 0 to %d, got %" PetscInt_FMT, OPT("recolor"),
             MISPC_COLORING_MAX_RECOLOR, g->recolor);
  PetscCheck(g->omega > 0 && g->omega < 2, PetscObjectComm((PetscObject)pc),
             PETSC_ERR_ARG_OUTOFRANGE, "%s must be in (0, 2), got %g", OPT("omega"),
             (double)g->omega);
  /* 0 (the default) takes the matrix's block size; the library checks that
   * a positive size divides the rows. */
  PetscCheck(g->block_size >= 0 && g->block_size <= INT_MAX, PetscObjectComm((PetscObject)pc),
             PETSC_ERR_ARG_OUTOFRANGE,
             "%s must be 0 (the matrix block size) or a positive number of rows per node, got "
             "%" PetscInt_FMT,
             OPT("block_size"), g->block_size);
#undef OPT
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if MISPC_ENABLE_MPI
/* The two blocks of an MPIAIJ matrix as the distributed matrix D (its halo
 * plan made once, the block descriptors refreshed at every use). */
static PetscErrorCode dist_begin(PC pc, PetscBool widen) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  Mat A = pc->pmat, Ad, Ao;
  const PetscInt *garray;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(MispcLocalCSRBegin(g->mctx, A, PETSC_TRUE, widen, &g->L));
  PetscCall(MispcBlockCSRBegin(g->mctx, Ao, PETSC_FALSE, PETSC_TRUE, widen, &g->Lo));
  if (!g->have_dist) {
    PetscInt N, rstart, nghost;
    PetscCall(MatGetSize(A, &N, NULL));
    PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
    PetscCall(MatGetSize(Ao, NULL, &nghost));
    PetscCall(PetscMalloc1(nghost + 1, &g->garray));
    for (PetscInt j = 0; j < nghost; ++j) g->garray[j] = garray[j];
    MispcCall(g->mctx, mispc_dist_csr_wrap(g->mctx, PetscObjectComm((PetscObject)pc), N, rstart,
                                           &g->L.csr, &g->Lo.csr, nghost, g->garray, &g->D));
    g->have_dist = PETSC_TRUE;
  }
  g->D.diag = g->L.csr;
  g->D.offd = g->Lo.csr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode dist_end(PC pc) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  PetscFunctionBegin;
  PetscCall(MispcLocalCSREnd(&g->L));
  PetscCall(MispcLocalCSREnd(&g->Lo));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

static PetscErrorCode PCSetUp_MispcGS(PC pc) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  Mat A = pc->pmat;
  Mat Ad;
  PetscBool gpu;
  PetscInt bs;
  PetscFunctionBegin;
  PetscCall(MispcLocalBlock(A, &Ad, &gpu));
  const PetscBool reuse = (PetscBool)(pc->setupcalled && g->have_symbolic &&
                                      pc->flag == SAME_NONZERO_PATTERN && g->L.gpu == gpu);
  if (!reuse) {
    PetscCall(reset_setup(pc));
    PetscCall(MispcContextCreate((PetscObject)pc, gpu, &g->mctx));
    mispc_gs_options o;
    mispc_gs_options_default(&o);
    o.kind = g->kind;
    o.sweep = g->symmetric  ? MISPC_GS_SYMMETRIC
              : g->backward ? MISPC_GS_BACKWARD
                            : MISPC_GS_FORWARD;
    o.omega = g->omega;
    o.clusters = g->coarsen;
    o.coloring.mis.seed = (uint64_t)g->seed;
    o.coloring.algo = g->coloring;
    o.coloring.recolor = (int)g->recolor;
    o.strength_threshold = g->strength_threshold;
    PetscCall(MatGetBlockSize(A, &bs));
    o.block_size = (int)(g->block_size > 0 ? g->block_size : bs);
    g->used_block_size = o.block_size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &g->nranks));
#if MISPC_ENABLE_MPI
    g->use_dist = (PetscBool)(g->nranks > 1 && g->exact && !gpu && g->kind == MISPC_GS_POINT);
#endif
    /* several ranks, rank-local sweeps: outer loop in PCApply */
    o.sweeps = g->nranks > 1 && !g->use_dist ? 1 : (int)g->sweeps;
#if MISPC_ENABLE_MPI
    if (g->use_dist) {
      MispcCall(g->mctx, mispc_dist_gs_create(g->mctx, &o, &g->dgs));
      PetscCall(PetscLogEventBegin(MISPC_EventGSSymbolic, pc, A, 0, 0));
      PetscCall(dist_begin(pc, PETSC_TRUE));
      mispc_status s = mispc_dist_gs_symbolic(g->mctx, g->dgs, &g->D);
      PetscCall(dist_end(pc));
      MispcCall(g->mctx, s);
      PetscCall(PetscLogEventEnd(MISPC_EventGSSymbolic, pc, A, 0, 0));
      g->have_symbolic = PETSC_TRUE;
    }
#endif
    if (!g->use_dist) MispcCall(g->mctx, mispc_gs_create(g->mctx, &o, &g->gs));
  }
#if MISPC_ENABLE_MPI
  if (g->use_dist) {
    PetscCall(PetscLogEventBegin(MISPC_EventGSNumeric, pc, A, 0, 0));
    PetscCall(dist_begin(pc, PETSC_FALSE));
    mispc_status s = mispc_dist_gs_numeric(g->mctx, g->dgs, &g->D);
    PetscCall(dist_end(pc));
    /* the same message on every rank: the failing rank and global row */
    PetscCheck(s == MISPC_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "mispc: %s",
               mispc_context_error(g->mctx));
    PetscCall(PetscLogEventEnd(MISPC_EventGSNumeric, pc, A, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (!reuse) {
    PetscCall(PetscLogEventBegin(MISPC_EventGSSymbolic, pc, A, 0, 0));
    PetscCall(MispcLocalCSRBegin(g->mctx, A, PETSC_TRUE, PETSC_TRUE, &g->L));
    mispc_status s = mispc_gs_symbolic(g->mctx, g->gs, &g->L.csr);
    PetscCall(MispcLocalCSREnd(&g->L));
    MispcCall(g->mctx, s);
    PetscCall(PetscLogEventEnd(MISPC_EventGSSymbolic, pc, A, 0, 0));
    g->have_symbolic = PETSC_TRUE;
    if (g->nranks > 1 && g->sweeps > 1) {
      PetscCall(MatCreateVecs(A, &g->w, NULL));
      PetscCall(MatCreateVecs(Ad, &g->xl, &g->wl));
    }
  }
  PetscCall(PetscLogEventBegin(MISPC_EventGSNumeric, pc, A, 0, 0));
  if (g->L.gpu) PetscCall(MispcContextUsePetscStream(g->mctx));
  PetscCall(MispcLocalCSRBegin(g->mctx, A, PETSC_TRUE, PETSC_FALSE, &g->L));
  mispc_status s = mispc_gs_numeric(g->mctx, g->gs, &g->L.csr);
  PetscCall(MispcLocalCSREnd(&g->L));
  if (s != MISPC_SUCCESS) {
    PetscMPIInt rank;
    PetscInt rstart;
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)pc), &rank));
    PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT,
            "mispc: %s (rank %d, local row numbers; global = local + %" PetscInt_FMT ")",
            mispc_context_error(g->mctx), rank, rstart);
  }
  PetscCall(PetscLogEventEnd(MISPC_EventGSNumeric, pc, A, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One mispc apply on the local block: x_local (+)= sweeps on b_local. */
static PetscErrorCode local_apply(PC pc, Vec b, Vec x, PetscBool zero_guess) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  const PetscScalar *ba;
  PetscScalar *xa;
  PetscMemType mb, mx;
  PetscFunctionBegin;
  if (g->L.gpu) {
    PetscCall(MispcContextUsePetscStream(g->mctx));
    PetscCall(VecGetArrayReadAndMemType(b, &ba, &mb));
    if (zero_guess)
      PetscCall(VecGetArrayWriteAndMemType(x, &xa, &mx));
    else
      PetscCall(VecGetArrayAndMemType(x, &xa, &mx));
    PetscCheck(PetscMemTypeDevice(mb) && PetscMemTypeDevice(mx), PETSC_COMM_SELF,
               PETSC_ERR_ARG_WRONG,
               "mispc: the matrix is on the GPU but the vectors are not (use -vec_type cuda or "
               "MatCreateVecs)");
  } else {
    PetscCall(VecGetArrayRead(b, &ba));
    if (zero_guess)
      PetscCall(VecGetArrayWrite(x, &xa));
    else
      PetscCall(VecGetArray(x, &xa));
  }
  PetscCall(MispcLocalCSRBegin(g->mctx, pc->pmat, PETSC_TRUE, PETSC_FALSE, &g->L));
  mispc_status s =
      mispc_gs_apply(g->mctx, g->gs, &g->L.csr, (const double *)ba, (double *)xa, zero_guess);
  PetscCall(MispcLocalCSREnd(&g->L));
  if (g->L.gpu) {
    PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
    if (zero_guess)
      PetscCall(VecRestoreArrayWriteAndMemType(x, &xa));
    else
      PetscCall(VecRestoreArrayAndMemType(x, &xa));
  } else {
    PetscCall(VecRestoreArrayRead(b, &ba));
    if (zero_guess)
      PetscCall(VecRestoreArrayWrite(x, &xa));
    else
      PetscCall(VecRestoreArray(x, &xa));
  }
  MispcCall(g->mctx, s);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCApply_MispcGS(PC pc, Vec b, Vec x) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MISPC_EventGSApply, pc, b, x, 0));
#if MISPC_ENABLE_MPI
  if (g->use_dist) { /* all sweeps over the whole matrix: the one-rank output */
    const PetscScalar *ba;
    PetscScalar *xa;
    PetscCall(VecGetArrayRead(b, &ba));
    PetscCall(VecGetArrayWrite(x, &xa));
    PetscCall(dist_begin(pc, PETSC_FALSE));
    mispc_status s =
        mispc_dist_gs_apply(g->mctx, g->dgs, &g->D, (const double *)ba, (double *)xa, 1);
    PetscCall(dist_end(pc));
    PetscCall(VecRestoreArrayWrite(x, &xa));
    PetscCall(VecRestoreArrayRead(b, &ba));
    MispcCall(g->mctx, s);
    PetscCall(PetscLogEventEnd(MISPC_EventGSApply, pc, b, x, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(local_apply(pc, b, x, PETSC_TRUE));
  if (g->nranks > 1) {
    Mat Ad;
    PetscBool gpu;
    PetscCall(MispcLocalBlock(pc->pmat, &Ad, &gpu));
    for (PetscInt k = 1; k < g->sweeps; ++k) {
      /* w = b - (A x - A_d x_local) = b - A_o x_ghost */
      PetscCall(MatMult(pc->pmat, x, g->w));
      PetscCall(VecGetLocalVectorRead(x, g->xl));
      PetscCall(MatMult(Ad, g->xl, g->wl));
      PetscCall(VecRestoreLocalVectorRead(x, g->xl));
      PetscCall(VecAYPX(g->w, -1.0, b)); /* w = b - A x */
      PetscCall(VecGetLocalVector(g->w, g->xl));
      PetscCall(VecAXPY(g->xl, 1.0, g->wl));
      PetscCall(VecRestoreLocalVector(g->w, g->xl));
      PetscCall(local_apply(pc, g->w, x, PETSC_FALSE));
    }
  }
  PetscCall(PetscLogEventEnd(MISPC_EventGSApply, pc, b, x, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_MispcGS(PC pc, PetscViewer viewer) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  PetscBool ascii;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  const int sw = g->symmetric ? 2 : g->backward ? 1 : 0;
  mispc_gs_options vo;
  mispc_gs_options_default(&vo);
  vo.kind = g->kind;
  vo.coloring.recolor = (int)g->recolor;
  PetscCall(PetscViewerASCIIPrintf(
      viewer,
      "  mispc %s multicolor Gauss-Seidel: %s sweeps, %" PetscInt_FMT
      " per application, omega %g, %s coloring, %d recoloring passes\n",
      g->kind == MISPC_GS_CLUSTER ? "cluster" : "point", sweep_names[sw], g->sweeps,
      (double)g->omega, coloring_names[g->coloring], mispc_gs_recolor_passes(&vo)));
  if (g->kind == MISPC_GS_CLUSTER)
    PetscCall(PetscViewerASCIIPrintf(
        viewer, "  clusters: %s aggregates, strength threshold %g, block size %" PetscInt_FMT "\n",
        coarsen_names[g->coarsen], (double)g->strength_threshold,
        g->have_symbolic ? g->used_block_size : g->block_size));
#if MISPC_ENABLE_MPI
  if (g->have_symbolic && g->use_dist) {
    mispc_gs_info info;
    int64_t bytes = 0;
    MispcCall(g->mctx, mispc_dist_gs_get_info(g->dgs, &info, &bytes));
    PetscCall(PetscViewerASCIIPrintf(
        viewer,
        "  %d ranks, exact: the whole matrix swept color by color (the one-rank output for any "
        "rank count), host; colors %d; rank 0 sent %lld bytes in the last application\n",
        (int)g->nranks, (int)info.ncolors, (long long)bytes));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (g->have_symbolic) {
    mispc_gs_info info;
    MispcCall(g->mctx, mispc_gs_get_info(g->gs, &info));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  backend: %s\n",
                                     g->L.gpu ? "GPU (CUDA, matrix and vectors read in place)"
                                              : "host (OpenMP)"));
    if (g->nranks > 1)
      PetscCall(PetscViewerASCIIPrintf(
          viewer,
          "  %d ranks: each rank sweeps its diagonal block; off-rank couplings use the previous "
          "iterate (as PETSc's parallel SOR; -pc_mcgs_exact makes point GS on host matrices "
          "exact); rank 0 below\n",
          (int)g->nranks));
    PetscCall(PetscViewerASCIIPrintf(
        viewer, "  rows %" PetscInt_FMT ", entries %" PetscInt_FMT ", colors %d\n", g->L.nrows,
        g->L.nnz, (int)info.ncolors));
    if (g->kind == MISPC_GS_CLUSTER)
      PetscCall(PetscViewerASCIIPrintf(
          viewer,
          "  clusters %lld (rows per cluster: mean %.2f, min %lld, max %lld), singletons %lld\n",
          (long long)info.nclusters,
          info.nclusters ? (double)g->L.nrows / (double)info.nclusters : 0.0,
          (long long)info.min_cluster, (long long)info.max_cluster, (long long)info.singletons));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  setup: symbolic %.3g s, numeric %.3g s\n",
                                     info.symbolic_seconds, info.numeric_seconds));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode create_common(PC pc, mispc_gs_kind kind) {
  PC_MispcGS *g;
  PetscFunctionBegin;
  PetscCall(PetscNew(&g));
  g->kind = kind;
  g->sweeps = 1;
  g->omega = 1.0;
  g->symmetric = PETSC_TRUE;
  g->coarsen = MISPC_AGG_MIS2AGG;
  g->seed = 0;
  g->recolor = MISPC_GS_RECOLOR_BY_KIND;
  g->exact = PETSC_TRUE;
  pc->data = (void *)g;
  pc->ops->setup = PCSetUp_MispcGS;
  pc->ops->apply = PCApply_MispcGS;
  pc->ops->reset = PCReset_MispcGS;
  pc->ops->destroy = PCDestroy_MispcGS;
  pc->ops->setfromoptions = PCSetFromOptions_MispcGS;
  pc->ops->view = PCView_MispcGS;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCCreate_MCGS(PC pc) {
  PetscFunctionBegin;
  PetscCall(create_common(pc, MISPC_GS_POINT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCCreate_ClusterGS(PC pc) {
  PetscFunctionBegin;
  PetscCall(create_common(pc, MISPC_GS_CLUSTER));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcRegisterPCs(void) {
  PetscFunctionBegin;
  PetscCall(PCRegister(PCMCGS, PCCreate_MCGS));
  PetscCall(PCRegister(PCCLUSTERGS, PCCreate_ClusterGS));
  PetscFunctionReturn(PETSC_SUCCESS);
}
