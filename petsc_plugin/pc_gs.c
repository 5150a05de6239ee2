/* PCMCGS (-pc_type mcgs) and PCCLUSTERGS (-pc_type clustergs): point and
 * cluster multicolor Gauss-Seidel / SGS / SOR from mispc_gs_*
 * (papers/KokkosKernels-MIS2-aggregation-clusterGS-2022.txt §III-C, Alg. 4).
 *
 * On several ranks, point and cluster GS are exact
 * (-pc_mcgs_exact / -pc_clustergs_exact, the default): mispc_dist_gs sweeps
 * the whole matrix color by color with the halo between colors (a cluster
 * whole on the rank of its smallest row), so the output is the one-rank
 * output bit for bit (docs/DISTRIBUTED.md; on GPU matrices the setup runs
 * on host copies and the sweeps on the GPU). With exact false each rank sweeps its diagonal block
 * and couplings to other ranks use the previous iterate, as PETSc's parallel SOR
 * (SOR_LOCAL_*_SWEEP): with zero initial guess the first sweep is purely local, later sweeps use b
 * - A_offdiag x_ghost. */
#include <limits.h>
#include <petsc/private/pcimpl.h>

#include "mispc/config.h"
#include "plugin_internal.h"
#if MISPC_ENABLE_MPI
#include "mispc/dist.h"
#endif

/* What the user sets (options database or the PCMCGSSet* / PCClusterGSSet*
 * functions); a change after setup makes the next use redo the setup. */
typedef struct {
  PetscInt sweeps;
  PetscReal omega;
  PCMCGSSweepType type;
  PetscBool exact; /* several ranks: the distributed sweep */
  mispc_agg_algo coarsen;
  PetscReal strength_threshold; /* MISPC_GS_THETA_ANISOTROPIC (default) or _AUTO: automatic */
  PetscInt block_size;          /* 0: the matrix's block size */
  PetscInt lines;               /* mispc_gs_options.line_clusters: MISPC_GS_AUTO (default), 0, 1 */
  PetscInt block_solve;         /* mispc_gs_options.block_solve: MISPC_GS_AUTO (default), 0, 1 */
  PetscInt seed;
  mispc_coloring_algo coloring;
  PetscInt recolor; /* -1: by kind (mispc_gs_recolor_passes) */
} GSSettings;

typedef struct {
  mispc_gs_kind kind;
  GSSettings set;
  /* setup */
  mispc_context *mctx;
  mispc_gs *gs;
  MispcLocalCSR L;
  PetscBool have_symbolic;
  PetscLogDouble block_pass; /* block_solve: flops of a pass over this rank's clusters, else 0 */
  PetscMPIInt nranks;
  Vec w, xl, wl; /* work for several sweeps on several ranks */
  PetscBool use_dist;
#if MISPC_ENABLE_MPI
  mispc_dist_gs *dgs;
  mispc_dist_csr D; /* wraps the two blocks (descriptors refreshed at each use) */
  MispcLocalCSR Lo; /* the off-diagonal block */
  int64_t *garray;  /* 64-bit copy of the block's garray */
  PetscBool have_dist;
#endif
} PC_MispcGS;

const char *const PCMCGSSweepTypes[] = {"forward",         "backward",       "symmetric",
                                        "PCMCGSSweepType", "PC_MCGS_SWEEP_", NULL};
static const char *const coarsen_names[] = {"mis2agg", "mis2basic", "MispcCoarsen", "", NULL};
static const char *const coloring_names[] = {"mis", "greedy", "MispcColoring", "", NULL};

/* The options of each kind, written out (NULL: not an option of that kind). */
typedef struct {
  const char *title, *man;
  const char *sweeps, *omega, *type, *symmetric, *backward, *exact, *seed, *coloring, *recolor,
      *coarsen, *strength_threshold, *block_size, *lines, *block_solve;
} GSOptionNames;

static const GSOptionNames point_options = {
    .title = "Point multicolor Gauss-Seidel (mispc)",
    .man = "PCMCGS",
    .sweeps = "-pc_mcgs_sweeps",
    .omega = "-pc_mcgs_omega",
    .type = "-pc_mcgs_type",
    .symmetric = "-pc_mcgs_symmetric",
    .backward = "-pc_mcgs_backward",
    .exact = "-pc_mcgs_exact",
    .seed = "-pc_mcgs_seed",
    .coloring = "-pc_mcgs_coloring",
    .recolor = "-pc_mcgs_recolor",
};

static const GSOptionNames cluster_options = {
    .title = "Cluster multicolor Gauss-Seidel (mispc)",
    .man = "PCCLUSTERGS",
    .sweeps = "-pc_clustergs_sweeps",
    .omega = "-pc_clustergs_omega",
    .type = "-pc_clustergs_type",
    .symmetric = "-pc_clustergs_symmetric",
    .backward = "-pc_clustergs_backward",
    .exact = "-pc_clustergs_exact",
    .seed = "-pc_clustergs_seed",
    .coloring = "-pc_clustergs_coloring",
    .recolor = "-pc_clustergs_recolor",
    .coarsen = "-pc_clustergs_coarsen",
    .strength_threshold = "-pc_clustergs_strength_threshold",
    .block_size = "-pc_clustergs_block_size",
    .lines = "-pc_clustergs_line_clusters",
    .block_solve = "-pc_clustergs_block_solve",
};

static const GSOptionNames *options_of(const PC_MispcGS *g) {
  return g->kind == MISPC_GS_CLUSTER ? &cluster_options : &point_options;
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

static PetscBool settings_equal(const GSSettings *a, const GSSettings *b) {
  return (PetscBool)(a->sweeps == b->sweeps && a->omega == b->omega && a->type == b->type &&
                     a->exact == b->exact && a->coarsen == b->coarsen &&
                     a->strength_threshold == b->strength_threshold &&
                     a->block_size == b->block_size && a->lines == b->lines && a->seed == b->seed &&
                     a->block_solve == b->block_solve && a->coloring == b->coloring &&
                     a->recolor == b->recolor);
}

/* New settings: a setup made with the old ones is dropped (PCApply sets up
 * again when PCSetUp does not). */
static PetscErrorCode change_settings(PC pc, const GSSettings *s) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  PetscFunctionBegin;
  if (!settings_equal(&g->set, s)) {
    PetscCall(reset_setup(pc));
    g->set = *s;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Range checks shared by the options and the setters; `name` is the option
 * (with the PC's prefix) or the setter. */
static PetscErrorCode check_settings(PC pc, const GSSettings *s, const char *sweeps,
                                     const char *omega, const char *recolor,
                                     const char *block_size) {
  MPI_Comm comm = PetscObjectComm((PetscObject)pc);
  PetscFunctionBegin;
  PetscCheck(s->sweeps >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s must be >= 1, got %" PetscInt_FMT,
             sweeps, s->sweeps);
  PetscCheck(s->omega > 0 && s->omega < 2, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "%s must be in (0, 2), got %g", omega, (double)s->omega);
  PetscCheck(s->recolor >= -1 && s->recolor <= MISPC_COLORING_MAX_RECOLOR, comm,
             PETSC_ERR_ARG_OUTOFRANGE, "%s must be -1 (default) or 0 to %d, got %" PetscInt_FMT,
             recolor, MISPC_COLORING_MAX_RECOLOR, s->recolor);
  /* 0 (the default) takes the matrix's block size; the library checks that
   * a positive size divides the rows. */
  PetscCheck(s->strength_threshold >= 0 || s->strength_threshold == MISPC_GS_THETA_AUTO ||
                 s->strength_threshold == MISPC_GS_THETA_ANISOTROPIC,
             comm, PETSC_ERR_ARG_OUTOFRANGE,
             "the strength threshold must be >= 0, -1 (automatic) or -2 (automatic where "
             "the weak couplings are set apart), got %g",
             (double)s->strength_threshold);
  PetscCheck(s->block_size >= 0 && s->block_size <= INT_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "%s must be 0 (the matrix block size) or a positive number of rows per node, got "
             "%" PetscInt_FMT,
             block_size, s->block_size);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCReset_MispcGS(PC pc) {
  PetscFunctionBegin;
  PetscCall(reset_setup(pc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode compose_setters(PC pc, mispc_gs_kind kind, PetscBool remove);

static PetscErrorCode PCDestroy_MispcGS(PC pc) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  PetscFunctionBegin;
  PetscCall(reset_setup(pc));
  PetscCall(compose_setters(pc, g->kind, PETSC_TRUE));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "-" + the PC's prefix + the option without its "-" */
static PetscErrorCode prefixed(PC pc, const char *option, char *buf, size_t len) {
  const char *pre = NULL;
  PetscFunctionBegin;
  PetscCall(PCGetOptionsPrefix(pc, &pre));
  PetscCall(PetscSNPrintf(buf, len, "-%s%s", pre ? pre : "", option + 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCSetFromOptions_MispcGS(PC pc, MispcOptionItems PetscOptionsObject) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  const GSOptionNames *o = options_of(g);
  GSSettings s = g->set;
  PetscInt c = (PetscInt)s.coarsen, col = (PetscInt)s.coloring, nt = 0;
  PCMCGSSweepType t = s.type;
  PetscBool sym = (PetscBool)(t == PC_MCGS_SWEEP_SYMMETRIC),
            bwd = (PetscBool)(t == PC_MCGS_SWEEP_BACKWARD), set_t = PETSC_FALSE,
            set_s = PETSC_FALSE, set_b = PETSC_FALSE;
  char n_sweeps[256], n_omega[256], n_recolor[256], n_bs[256], n_type[256], n_sym[256], n_bwd[256];
  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, o->title);
  PetscCall(
      PetscOptionsInt(o->sweeps, "Sweeps per application", o->man, s.sweeps, &s.sweeps, NULL));
  PetscCall(PetscOptionsReal(o->omega, "Relaxation factor (1: Gauss-Seidel)", o->man, s.omega,
                             &s.omega, NULL));
  PetscCall(PetscOptionsEnum(o->type,
                             "Sweep: forward, backward or symmetric (SGS/SSOR; needed under CG)",
                             o->man, PCMCGSSweepTypes, (PetscEnum)t, (PetscEnum *)&t, &set_t));
  PetscCall(PetscOptionsBool(o->symmetric, "Symmetric sweeps (the same as type symmetric)", o->man,
                             sym, &sym, &set_s));
  PetscCall(PetscOptionsBool(o->backward, "Backward sweeps (the same as type backward)", o->man,
                             bwd, &bwd, &set_b));
  PetscCall(
      PetscOptionsInt(o->seed, "Seed of the hashed priorities", o->man, s.seed, &s.seed, NULL));
  if (o->exact)
    PetscCall(PetscOptionsBool(o->exact,
                               "Several ranks: sweep the whole matrix color by color (output "
                               "independent of the rank count)",
                               o->man, s.exact, &s.exact, NULL));
  PetscCall(PetscOptionsEList(
      o->coloring, "Colors: MIS-1 classes (in one pass), or greedy in row (cluster) order", o->man,
      coloring_names, 2, coloring_names[col], &col, NULL));
  s.coloring = (mispc_coloring_algo)col;
  PetscCall(PetscOptionsInt(o->recolor,
                            "Passes of iterated greedy recoloring (fewer colors; -1: 1 for "
                            "mcgs, 2 for clustergs)",
                            o->man, s.recolor, &s.recolor, NULL));
  if (o->coarsen) {
    PetscCall(PetscOptionsEList(o->coarsen, "Clusters: MIS-2 aggregation algorithm", o->man,
                                coarsen_names, 2, coarsen_names[c], &c, NULL));
    s.coarsen = (mispc_agg_algo)c;
    PetscBool lines = (PetscBool)(s.lines == 1), block = (PetscBool)(s.block_solve == 1), set_l,
              set_bl;
    PetscCall(PetscOptionsReal(
        o->strength_threshold,
        "Drop |a_ij| <= t sqrt(|a_ii a_jj|) before clustering. -2 (default): the automatic "
        "threshold (2/3 of the smallest row maximum of |a_ij| / sqrt(|a_ii a_jj|)) on rows where "
        "the couplings below it are set apart from it (all at most 0.9 of it: anisotropic "
        "operators, elasticity), else 0; -1: the automatic threshold on rows wherever a "
        "coupling falls below it",
        o->man, s.strength_threshold, &s.strength_threshold, NULL));
    PetscCall(PetscOptionsInt(o->block_size,
                              "Rows per node for clustering (0: the matrix block size; rows where "
                              "the automatic threshold drops a coupling)",
                              o->man, s.block_size, &s.block_size, NULL));
    PetscCall(PetscOptionsBool(o->lines,
                               "Grow clusters along chains of clusters (whole lines of strong "
                               "couplings with a strength threshold; default: automatic, on for "
                               "strongly anisotropic operators)",
                               o->man, lines, &lines, &set_l));
    PetscCall(PetscOptionsBool(o->block_solve,
                               "Solve each cluster's block exactly (block Gauss-Seidel; needs "
                               "omega 1; default: automatic, on for strongly anisotropic "
                               "operators)",
                               o->man, block, &block, &set_bl));
    if (set_l) s.lines = lines;
    if (set_bl) s.block_solve = block;
  }
  /* listed for -help; read (under the prefix, then without) when the setup
   * creates its context (MispcContextCreate) */
  PetscCall(PetscOptionsInt("-mispc_num_threads",
                            "Host OpenMP threads (0: OpenMP's default; also read without the "
                            "PC's prefix)",
                            o->man, nt, &nt, NULL));
  PetscOptionsHeadEnd();
  /* Messages name the option as given, with the PC's prefix. */
  PetscCall(prefixed(pc, o->sweeps, n_sweeps, sizeof n_sweeps));
  PetscCall(prefixed(pc, o->omega, n_omega, sizeof n_omega));
  PetscCall(prefixed(pc, o->recolor, n_recolor, sizeof n_recolor));
  PetscCall(prefixed(pc, o->block_size ? o->block_size : o->sweeps, n_bs, sizeof n_bs));
  PetscCall(prefixed(pc, o->type, n_type, sizeof n_type));
  PetscCall(prefixed(pc, o->symmetric, n_sym, sizeof n_sym));
  PetscCall(prefixed(pc, o->backward, n_bwd, sizeof n_bwd));
  /* The sweep: -type, or the old booleans; a conflict is an error, not a
   * silent choice (-backward alone gives backward sweeps). */
  if (set_t) {
    PetscCheck(!set_s || sym == (t == PC_MCGS_SWEEP_SYMMETRIC), PetscObjectComm((PetscObject)pc),
               PETSC_ERR_ARG_INCOMP, "%s %s conflicts with %s %s", n_type, PCMCGSSweepTypes[t],
               n_sym, sym ? "true" : "false");
    PetscCheck(!set_b || bwd == (t == PC_MCGS_SWEEP_BACKWARD), PetscObjectComm((PetscObject)pc),
               PETSC_ERR_ARG_INCOMP, "%s %s conflicts with %s %s", n_type, PCMCGSSweepTypes[t],
               n_bwd, bwd ? "true" : "false");
  } else {
    PetscCheck(!(set_s && set_b && sym && bwd), PetscObjectComm((PetscObject)pc),
               PETSC_ERR_ARG_INCOMP,
               "%s true conflicts with %s true: give one, or %s forward|backward|symmetric", n_sym,
               n_bwd, n_type);
    if (set_s && sym)
      t = PC_MCGS_SWEEP_SYMMETRIC;
    else if (set_b && bwd)
      t = PC_MCGS_SWEEP_BACKWARD;
    else {
      if (set_s && t == PC_MCGS_SWEEP_SYMMETRIC) t = PC_MCGS_SWEEP_FORWARD; /* symmetric false */
      if (set_b && t == PC_MCGS_SWEEP_BACKWARD) t = PC_MCGS_SWEEP_FORWARD;  /* backward false */
    }
  }
  s.type = t;
  PetscCall(check_settings(pc, &s, n_sweeps, n_omega, n_recolor, n_bs));
  PetscCall(change_settings(pc, &s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if MISPC_ENABLE_MPI
/* The two blocks of an MPIAIJ matrix as the distributed matrix D (its halo
 * plan made once, the block descriptors refreshed at every use). */
static PetscErrorCode dist_begin(PC pc, PetscBool widen) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  Mat A = pc->pmat, Ad, Ao;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(MispcLocalCSRBegin(g->mctx, A, PETSC_TRUE, widen, &g->L));
  PetscCall(MispcBlockCSRBegin(g->mctx, Ao, g->L.gpu, PETSC_TRUE, widen, &g->Lo));
  if (!g->have_dist) {
    PetscInt N, rstart, nghost;
    PetscCall(MispcMPIAIJLayout(A, &Ad, &Ao, &N, &rstart, &nghost, &g->garray));
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

/* g->block_pass from the setup's counts: 2 flops an outside entry and an
 * off-diagonal factor value, 1 a row (rows: this rank's; several ranks
 * sweep a few rows of other ranks' near the boundaries, not counted). */
static PetscErrorCode set_block_pass(PC_MispcGS *g, const mispc_gs_info *info, PetscInt rows) {
  PetscFunctionBegin;
  g->block_pass = 0;
  if (info->factor_values > 0)
    g->block_pass = 2.0 * (PetscLogDouble)info->outside_entries +
                    2.0 * (PetscLogDouble)info->factor_values - (PetscLogDouble)rows;
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
    o.sweep = g->set.type == PC_MCGS_SWEEP_SYMMETRIC  ? MISPC_GS_SYMMETRIC
              : g->set.type == PC_MCGS_SWEEP_BACKWARD ? MISPC_GS_BACKWARD
                                                      : MISPC_GS_FORWARD;
    o.omega = g->set.omega;
    o.clusters = g->set.coarsen;
    o.coloring.mis.seed = (uint64_t)g->set.seed;
    o.coloring.algo = g->set.coloring;
    o.coloring.recolor = (int)g->set.recolor;
    /* automatic ones (negative) resolved by the library's symbolic setup from the matrix:
     * the same on host and GPU matrices and for any rank count */
    o.line_clusters = (int)g->set.lines;
    o.block_solve = (int)g->set.block_solve;
    o.strength_threshold = g->set.strength_threshold;
    PetscCall(MatGetBlockSize(A, &bs));
    o.block_size = (int)(g->set.block_size > 0 ? g->set.block_size : bs);
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &g->nranks));
#if MISPC_ENABLE_MPI
    g->use_dist = (PetscBool)(g->nranks > 1 && g->set.exact);
#endif
    /* several ranks, rank-local sweeps: outer loop in PCApply */
    o.sweeps = g->nranks > 1 && !g->use_dist ? 1 : (int)g->set.sweeps;
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
    PetscCheck(s == MISPC_SUCCESS, PETSC_COMM_SELF, MispcErrorCode(s, mispc_context_error(g->mctx)),
               "mispc: %s", mispc_context_error(g->mctx));
    PetscCall(PetscLogFlops((PetscLogDouble)g->L.nrows)); /* omega / a_ii */
    PetscCall(PetscLogEventEnd(MISPC_EventGSNumeric, pc, A, 0, 0));
    {
      mispc_gs_info info;
      MispcCall(g->mctx, mispc_dist_gs_get_info(g->dgs, &info, NULL));
      PetscCall(set_block_pass(g, &info, g->L.nrows));
    }
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
    if (g->nranks > 1 && g->set.sweeps > 1) {
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
    SETERRQ(PETSC_COMM_SELF, MispcErrorCode(s, mispc_context_error(g->mctx)),
            "mispc: %s (rank %d, local row numbers; global = local + %" PetscInt_FMT ")",
            mispc_context_error(g->mctx), rank, rstart);
  }
  PetscCall(PetscLogFlops((PetscLogDouble)g->L.nrows)); /* omega / a_ii */
  PetscCall(PetscLogEventEnd(MISPC_EventGSNumeric, pc, A, 0, 0));
  {
    mispc_gs_info info;
    MispcCall(g->mctx, mispc_gs_get_info(g->gs, &info));
    PetscCall(set_block_pass(g, &info, g->L.nrows));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Flops of `sweeps` sweeps over nnz entries: 2 a entry a direction
 * (multiply-add), as -log_view reports them; with block solves 2 an
 * outside entry and an off-diagonal factor value and 1 a row (the setup's
 * counts, g->block_pass, this rank's). Point GS from x = 0 on one rank,
 * or on several with the host's distributed sweeps (gs_dist.c, the same
 * passes): a symmetric sweep's two passes read each entry once (the
 * forward pass its lower parts, the backward one the rest;
 * docs/GAUSS_SEIDEL.md), so the first sweep counts one pass. */
static PetscLogDouble sweep_flops(const PC_MispcGS *g, PetscInt sweeps, PetscInt nnz,
                                  PetscBool zero_guess) {
  const int dirs = g->set.type == PC_MCGS_SWEEP_SYMMETRIC ? 2 : 1;
  const PetscLogDouble pass = g->block_pass > 0 ? g->block_pass : 2.0 * (PetscLogDouble)nnz;
  const PetscBool once = zero_guess && dirs == 2 && g->kind == MISPC_GS_POINT &&
                         (g->nranks == 1 || g->use_dist) && g->block_pass <= 0 && sweeps > 0;
  return (PetscLogDouble)dirs * (PetscLogDouble)sweeps * pass - (once ? pass : 0.0);
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
  /* one sweep in mispc_gs_apply on several ranks (the outer loop is PCApply's) */
  PetscCall(PetscLogFlops(sweep_flops(g, g->nranks > 1 ? 1 : g->set.sweeps, g->L.nnz, zero_guess)));
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
  /* a setter changed the settings after PCSetUp, which does not run again
   * while the matrix is unchanged */
  if (!g->have_symbolic) PetscCall(PCSetUp_MispcGS(pc));
  PetscCall(PetscLogEventBegin(MISPC_EventGSApply, pc, b, x, 0));
#if MISPC_ENABLE_MPI
  if (g->use_dist) { /* all sweeps over the whole matrix: the one-rank output */
    const PetscScalar *ba;
    PetscScalar *xa;
    PetscMemType mb, mx;
    PetscCall(VecGetArrayReadAndMemType(b, &ba, &mb));
    PetscCall(VecGetArrayWriteAndMemType(x, &xa, &mx));
    PetscCall(dist_begin(pc, PETSC_FALSE));
    PetscCheck(PetscMemTypeDevice(mb) == g->L.gpu && PetscMemTypeDevice(mx) == g->L.gpu,
               PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
               "mispc: the matrix and the vectors must both be on the GPU or both on the host "
               "(use -vec_type cuda or MatCreateVecs)");
    if (g->L.gpu) PetscCall(MispcContextUsePetscStream(g->mctx));
    mispc_status s =
        mispc_dist_gs_apply(g->mctx, g->dgs, &g->D, (const double *)ba, (double *)xa, 1);
    PetscCall(dist_end(pc));
    /* from x = 0: the host's rounds go on from the first forward pass's
     * sums, the GPU's read every entry each pass */
    PetscCall(PetscLogFlops(
        sweep_flops(g, g->set.sweeps, g->L.nnz + g->Lo.nnz, g->L.gpu ? PETSC_FALSE : PETSC_TRUE)));
    PetscCall(VecRestoreArrayWriteAndMemType(x, &xa));
    PetscCall(VecRestoreArrayReadAndMemType(b, &ba));
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
    for (PetscInt k = 1; k < g->set.sweeps; ++k) {
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

/* mispc_gs_info of the last symbolic setup (one rank's or the distributed handle's). */
static PetscErrorCode last_info(PC_MispcGS *g, mispc_gs_info *info) {
  PetscFunctionBegin;
#if MISPC_ENABLE_MPI
  if (g->use_dist) MispcCall(g->mctx, mispc_dist_gs_get_info(g->dgs, info, NULL));
#endif
  if (!g->use_dist) MispcCall(g->mctx, mispc_gs_get_info(g->gs, info));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -pc_view's line on the clusters: the options as set, and after a
 * symbolic setup the ones it used (automatic ones resolved). */
static PetscErrorCode view_clusters(PC pc, PetscViewer viewer) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  mispc_gs_info info;
  char th[128];
  PetscFunctionBegin;
  if (!g->have_symbolic) {
    PetscCall(PetscViewerASCIIPrintf(
        viewer,
        "  clusters: %s aggregates, strength threshold %s, line clusters %s, block solves %s\n",
        coarsen_names[g->set.coarsen], g->set.strength_threshold < 0 ? "auto" : "as set",
        g->set.lines < 0 ? "auto"
        : g->set.lines   ? "on"
                         : "off",
        g->set.block_solve < 0 ? "auto"
        : g->set.block_solve   ? "on"
                               : "off"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(last_info(g, &info));
  if (g->set.strength_threshold < 0 && info.auto_weak_max < 0)
    PetscCall(PetscSNPrintf(th, sizeof th, "auto: 0 (no coupling below %g)", info.auto_theta));
  else if (g->set.strength_threshold < 0 && info.strength_threshold > 0)
    PetscCall(PetscSNPrintf(th, sizeof th, "auto: %g (weakest coupling below it %.3g of it)",
                            info.strength_threshold, info.auto_weak_max / info.auto_theta));
  else if (g->set.strength_threshold < 0)
    PetscCall(PetscSNPrintf(th, sizeof th,
                            "auto: 0 (weakest coupling below %g %.3g of it: over %g, not set "
                            "apart)",
                            info.auto_theta, info.auto_weak_max / info.auto_theta,
                            MISPC_GS_WEAK_APART));
  else
    PetscCall(PetscSNPrintf(th, sizeof th, "%g", info.strength_threshold));
  PetscCall(PetscViewerASCIIPrintf(
      viewer, "  clusters: %s aggregates, strength threshold %s, block size %d%s%s%s\n",
      coarsen_names[g->set.coarsen], th, info.block_size,
      info.line_clusters ? ", grown along lines" : "",
      info.block_solve ? ", each solved exactly (block Gauss-Seidel)" : "",
      /* automatic lines or block solves are on only where the library found the
       * operator strongly anisotropic */
      (g->set.lines < 0 && info.line_clusters) || (g->set.block_solve < 0 && info.block_solve)
          ? " (auto: strongly anisotropic)"
          : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCView_MispcGS(PC pc, PetscViewer viewer) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  PetscBool ascii;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  mispc_gs_options vo;
  mispc_gs_options_default(&vo);
  vo.kind = g->kind;
  vo.coloring.recolor = (int)g->set.recolor;
  PetscCall(
      PetscViewerASCIIPrintf(viewer,
                             "  mispc %s multicolor Gauss-Seidel: %s sweeps, %" PetscInt_FMT
                             " per application, omega %g, %s coloring, %d recoloring passes\n",
                             g->kind == MISPC_GS_CLUSTER ? "cluster" : "point",
                             PCMCGSSweepTypes[g->set.type], g->set.sweeps, (double)g->set.omega,
                             coloring_names[g->set.coloring], mispc_gs_recolor_passes(&vo)));
  if (g->kind == MISPC_GS_CLUSTER) PetscCall(view_clusters(pc, viewer));
#if MISPC_ENABLE_MPI
  if (g->have_symbolic && g->use_dist) {
    mispc_gs_info info;
    int64_t bytes = 0;
    MispcCall(g->mctx, mispc_dist_gs_get_info(g->dgs, &info, &bytes));
    PetscCall(PetscViewerASCIIPrintf(
        viewer,
        "  %d ranks, exact: the whole matrix swept color by color (the one-rank output for any "
        "rank count), %s%s; colors %d; rank 0 sent %lld bytes in the last application\n",
        (int)g->nranks, g->L.gpu ? "sweeps on the GPU (setup on the host), halo " : "host",
        !g->L.gpu                                           ? ""
        : !strcmp(mispc_dist_transport_name(&g->D), "nccl") ? "over NCCL"
                                                            : "staged through the host (MPI)",
        (int)info.ncolors, (long long)bytes));
    if (g->kind == MISPC_GS_CLUSTER)
      PetscCall(PetscViewerASCIIPrintf(
          viewer,
          "  clusters %lld (rows per cluster: min %lld, max %lld), singletons %lld; each swept "
          "by the rank of its smallest row\n",
          (long long)info.nclusters, (long long)info.min_cluster, (long long)info.max_cluster,
          (long long)info.singletons));
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
          "iterate (as PETSc's parallel SOR; -pc_mcgs_exact makes it "
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

/* The setters and getters behind PCMCGSSet* / PCClusterGSSet* (pc_gs_api.c):
 * one implementation for both kinds, composed under each kind's names.
 * GS_FIELD_ACCESSORS: a setter and a getter of one field of GSSettings; the
 * setter checks the ranges the options share (check_settings) and makes the
 * next use set up again if the value changed (change_settings). */
#define GS_FIELD_ACCESSORS(Name, Type, field)                                                      \
  static PetscErrorCode PCGSSet##Name##_MispcGS(PC pc, Type v) {                                   \
    GSSettings s = ((PC_MispcGS *)pc->data)->set;                                                  \
    PetscFunctionBegin;                                                                            \
    s.field = v;                                                                                   \
    PetscCall(check_settings(pc, &s, "sweeps", "omega", "recolor", "block size"));                 \
    PetscCall(change_settings(pc, &s));                                                            \
    PetscFunctionReturn(PETSC_SUCCESS);                                                            \
  }                                                                                                \
  static PetscErrorCode PCGSGet##Name##_MispcGS(PC pc, Type *v) {                                  \
    PetscFunctionBegin;                                                                            \
    *v = ((PC_MispcGS *)pc->data)->set.field;                                                      \
    PetscFunctionReturn(PETSC_SUCCESS);                                                            \
  }
GS_FIELD_ACCESSORS(Sweeps, PetscInt, sweeps)
GS_FIELD_ACCESSORS(Omega, PetscReal, omega)
GS_FIELD_ACCESSORS(Exact, PetscBool, exact)
GS_FIELD_ACCESSORS(BlockSize, PetscInt, block_size)
GS_FIELD_ACCESSORS(StrengthThreshold, PetscReal, strength_threshold)
#undef GS_FIELD_ACCESSORS

/* lines and block_solve: a setter makes them explicit; a getter gives the
 * setting, or where automatic the last symbolic setup's choice (PETSC_FALSE
 * before one). */
#define GS_FLAG_ACCESSORS(Name, field, info_field)                                                 \
  static PetscErrorCode PCGSSet##Name##_MispcGS(PC pc, PetscBool v) {                              \
    GSSettings s = ((PC_MispcGS *)pc->data)->set;                                                  \
    PetscFunctionBegin;                                                                            \
    s.field = v ? 1 : 0;                                                                           \
    PetscCall(change_settings(pc, &s));                                                            \
    PetscFunctionReturn(PETSC_SUCCESS);                                                            \
  }                                                                                                \
  static PetscErrorCode PCGSGet##Name##_MispcGS(PC pc, PetscBool *v) {                             \
    PC_MispcGS *g = (PC_MispcGS *)pc->data;                                                        \
    mispc_gs_info info;                                                                            \
    PetscFunctionBegin;                                                                            \
    *v = (PetscBool)(g->set.field == 1);                                                           \
    if (g->set.field < 0 && g->have_symbolic) {                                                    \
      PetscCall(last_info(g, &info));                                                              \
      *v = (PetscBool)(info.info_field != 0);                                                      \
    }                                                                                              \
    PetscFunctionReturn(PETSC_SUCCESS);                                                            \
  }
GS_FLAG_ACCESSORS(LineClusters, lines, line_clusters)
GS_FLAG_ACCESSORS(BlockSolve, block_solve, block_solve)
#undef GS_FLAG_ACCESSORS

static PetscErrorCode PCGSSetType_MispcGS(PC pc, PCMCGSSweepType t) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  GSSettings s = g->set;
  PetscFunctionBegin;
  PetscCheck(t == PC_MCGS_SWEEP_FORWARD || t == PC_MCGS_SWEEP_BACKWARD ||
                 t == PC_MCGS_SWEEP_SYMMETRIC,
             PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
             "sweep type must be PC_MCGS_SWEEP_FORWARD, _BACKWARD or _SYMMETRIC, got %d", (int)t);
  s.type = t;
  PetscCall(change_settings(pc, &s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCGSGetType_MispcGS(PC pc, PCMCGSSweepType *t) {
  PetscFunctionBegin;
  *t = ((PC_MispcGS *)pc->data)->set.type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCGSSetCoarsen_MispcGS(PC pc, const char type[]) {
  PC_MispcGS *g = (PC_MispcGS *)pc->data;
  GSSettings s = g->set;
  PetscBool agg, basic;
  PetscFunctionBegin;
  PetscCall(PetscStrcmp(type, MATCOARSENMIS2AGG, &agg));
  PetscCall(PetscStrcmp(type, MATCOARSENMIS2BASIC, &basic));
  PetscCheck(agg || basic, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_UNKNOWN_TYPE,
             "clusters: " MATCOARSENMIS2AGG " or " MATCOARSENMIS2BASIC ", got %s",
             type ? type : "(null)");
  s.coarsen = agg ? MISPC_AGG_MIS2AGG : MISPC_AGG_MIS2BASIC;
  PetscCall(change_settings(pc, &s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode PCGSGetCoarsen_MispcGS(PC pc, const char **type) {
  PetscFunctionBegin;
  *type = coarsen_names[((PC_MispcGS *)pc->data)->set.coarsen];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Composes (or, on destroy, removes) the kind's setters and getters. */
static PetscErrorCode compose_setters(PC pc, mispc_gs_kind kind, PetscBool remove) {
  PetscObject o = (PetscObject)pc;
  const PetscBool c = (PetscBool)(kind == MISPC_GS_CLUSTER);
#define COMPOSE(name, fn) PetscCall(PetscObjectComposeFunction(o, name, remove ? NULL : (fn)))
  PetscFunctionBegin;
  COMPOSE(c ? "PCClusterGSSetSweeps_C" : "PCMCGSSetSweeps_C", PCGSSetSweeps_MispcGS);
  COMPOSE(c ? "PCClusterGSGetSweeps_C" : "PCMCGSGetSweeps_C", PCGSGetSweeps_MispcGS);
  COMPOSE(c ? "PCClusterGSSetOmega_C" : "PCMCGSSetOmega_C", PCGSSetOmega_MispcGS);
  COMPOSE(c ? "PCClusterGSGetOmega_C" : "PCMCGSGetOmega_C", PCGSGetOmega_MispcGS);
  COMPOSE(c ? "PCClusterGSSetType_C" : "PCMCGSSetType_C", PCGSSetType_MispcGS);
  COMPOSE(c ? "PCClusterGSGetType_C" : "PCMCGSGetType_C", PCGSGetType_MispcGS);
  if (c) {
    COMPOSE("PCClusterGSSetBlockSize_C", PCGSSetBlockSize_MispcGS);
    COMPOSE("PCClusterGSGetBlockSize_C", PCGSGetBlockSize_MispcGS);
    COMPOSE("PCClusterGSSetStrengthThreshold_C", PCGSSetStrengthThreshold_MispcGS);
    COMPOSE("PCClusterGSGetStrengthThreshold_C", PCGSGetStrengthThreshold_MispcGS);
    COMPOSE("PCClusterGSSetLineClusters_C", PCGSSetLineClusters_MispcGS);
    COMPOSE("PCClusterGSGetLineClusters_C", PCGSGetLineClusters_MispcGS);
    COMPOSE("PCClusterGSSetBlockSolve_C", PCGSSetBlockSolve_MispcGS);
    COMPOSE("PCClusterGSGetBlockSolve_C", PCGSGetBlockSolve_MispcGS);
    COMPOSE("PCClusterGSSetCoarsen_C", PCGSSetCoarsen_MispcGS);
    COMPOSE("PCClusterGSGetCoarsen_C", PCGSGetCoarsen_MispcGS);
  }
  COMPOSE(c ? "PCClusterGSSetExact_C" : "PCMCGSSetExact_C", PCGSSetExact_MispcGS);
  COMPOSE(c ? "PCClusterGSGetExact_C" : "PCMCGSGetExact_C", PCGSGetExact_MispcGS);
#undef COMPOSE
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode create_common(PC pc, mispc_gs_kind kind) {
  PC_MispcGS *g;
  PetscFunctionBegin;
  PetscCall(PetscNew(&g));
  g->kind = kind;
  g->set.sweeps = 1;
  g->set.omega = 1.0;
  g->set.type = PC_MCGS_SWEEP_SYMMETRIC;
  g->set.coarsen = MISPC_AGG_MIS2AGG;
  g->set.seed = 0;
  g->set.coloring = MISPC_COLORING_MIS;
  g->set.recolor = MISPC_GS_RECOLOR_BY_KIND;
  g->set.exact = PETSC_TRUE;
  /* cluster kind: clusters, lines and block solves chosen from the matrix
   * (docs/GAUSS_SEIDEL.md, "Automatic threshold"); unused by the point kind */
  g->set.strength_threshold = MISPC_GS_THETA_ANISOTROPIC;
  g->set.lines = MISPC_GS_AUTO;
  g->set.block_solve = MISPC_GS_AUTO;
  pc->data = (void *)g;
  pc->ops->setup = PCSetUp_MispcGS;
  pc->ops->apply = PCApply_MispcGS;
  pc->ops->reset = PCReset_MispcGS;
  pc->ops->destroy = PCDestroy_MispcGS;
  pc->ops->setfromoptions = PCSetFromOptions_MispcGS;
  pc->ops->view = PCView_MispcGS;
  PetscCall(compose_setters(pc, kind, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCMCGS - point multicolor Gauss-Seidel, SOR or symmetric SOR (mispc): the rows are
   colored with mispc's MIS-1 coloring (or greedily) and each color is swept in parallel,
   on the host (OpenMP) or, for `MATAIJCUSPARSE` matrices with CUDA vectors, on the GPU.

   Options Database Keys:
+  -pc_mcgs_sweeps <1>         - sweeps per application, see `PCMCGSSetSweeps()`
.  -pc_mcgs_omega <1>          - relaxation factor in (0, 2), see `PCMCGSSetOmega()`
.  -pc_mcgs_type <symmetric>   - forward, backward or symmetric, see `PCMCGSSetType()`
.  -pc_mcgs_symmetric <true>   - the same as -pc_mcgs_type symmetric (false: forward)
.  -pc_mcgs_backward <false>   - the same as -pc_mcgs_type backward (an error together
                                 with -pc_mcgs_symmetric true)
.  -pc_mcgs_exact <true>       - several ranks: sweep the whole matrix
                                 color by color, so the output is the one-rank output
                                 bit for bit, see `PCMCGSSetExact()`
.  -pc_mcgs_seed <0>           - seed of the hashed priorities of the coloring
.  -pc_mcgs_coloring <mis>     - mis (MIS-1 classes) or greedy (in row order)
.  -pc_mcgs_recolor <-1>       - passes of greedy recoloring, -1 (1 pass) or 0 to 64
-  -mispc_num_threads <n>      - host OpenMP threads, 0 (OpenMP's default) to 4096;
                                 read under the PC's prefix, then without it

   Level: intermediate

   Notes:
   Needs an AIJ matrix (`MATSEQAIJ`, `MATMPIAIJ`, `MATAIJCUSPARSE`) with a nonzero
   diagonal: a zero or missing diagonal entry is the error `PETSC_ERR_MAT_LU_ZRPVT`,
   a NaN or infinite one `PETSC_ERR_FP`.

   Symmetric sweeps are the default (a PC does not know its `KSP`); keep them under
   `KSPCG`.

   The symbolic setup (graph and colors) is redone only when the nonzero pattern
   changes; `SAME_NONZERO_PATTERN` reruns only the numeric part (the diagonal).

   On several ranks without -pc_mcgs_exact each rank sweeps its
   diagonal block and couplings to other ranks use the previous iterate, as `PCSOR`'s
   local sweeps.

   Load with -dll_append libpetscmispc.so, or link libpetscmispc and call
   mispc_petsc_register().

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCSOR`, `PCMCGSSetSweeps()`, `PCMCGSSetOmega()`,
          `PCMCGSSetType()`, `PCMCGSSetExact()`, `PCMCGSSweepType`
M*/
static PetscErrorCode PCCreate_MCGS(PC pc) {
  PetscFunctionBegin;
  PetscCall(create_common(pc, MISPC_GS_POINT));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*MC
   PCCLUSTERGS - cluster multicolor Gauss-Seidel, SOR or symmetric SOR (mispc): the
   clusters are MIS-2 aggregates of the matrix graph, the cluster graph is colored, the
   clusters of a color are swept in parallel and the rows inside a cluster in order
   (reversed on backward sweeps).

   Options Database Keys:
+  -pc_clustergs_sweeps <1>             - sweeps per application,
                                          see `PCClusterGSSetSweeps()`
.  -pc_clustergs_omega <1>              - relaxation factor in (0, 2),
                                          see `PCClusterGSSetOmega()`
.  -pc_clustergs_type <symmetric>       - forward, backward or symmetric,
                                          see `PCClusterGSSetType()`
.  -pc_clustergs_symmetric <true>       - the same as -pc_clustergs_type symmetric
                                          (false: forward)
.  -pc_clustergs_backward <false>       - the same as -pc_clustergs_type backward (an
                                          error with -pc_clustergs_symmetric true)
.  -pc_clustergs_coarsen <mis2agg>      - the clusters: mis2agg or mis2basic,
                                          see `PCClusterGSSetCoarsen()`
.  -pc_clustergs_strength_threshold <-2> - drop |a_ij| <= t sqrt(|a_ii a_jj|) before
                                          clustering; -2: automatic where the weak
                                          couplings are set apart (anisotropy,
                                          elasticity), else 0; -1: automatic
                                          wherever a coupling is weak,
                                          see `PCClusterGSSetStrengthThreshold()`
.  -pc_clustergs_block_size <0>         - rows per node clustered together (0: the
                                          matrix block size; rows where the automatic
                                          threshold is used), see `PCClusterGSSetBlockSize()`
.  -pc_clustergs_line_clusters <auto>   - grow clusters along chains of clusters (with a
                                          strength threshold: whole lines of strong
                                          couplings); automatic: on where strongly
                                          anisotropic, see `PCClusterGSSetLineClusters()`
.  -pc_clustergs_block_solve <auto>     - solve each cluster's block exactly (block
                                          Gauss-Seidel; with line clusters, exact line
                                          solves); automatic: on where strongly
                                          anisotropic, see `PCClusterGSSetBlockSolve()`
.  -pc_clustergs_exact <true>           - several ranks: the one-rank
                                          output bit for bit, see `PCClusterGSSetExact()`
.  -pc_clustergs_seed <0>               - seed of the hashed priorities
.  -pc_clustergs_coloring <mis>         - colors of the clusters: mis or greedy
.  -pc_clustergs_recolor <-1>           - passes of greedy recoloring, -1 (2 passes)
                                          or 0 to 64
-  -mispc_num_threads <n>               - host OpenMP threads, 0 (OpenMP's default)
                                          to 4096; read under the PC's prefix, then
                                          without it

   Level: intermediate

   Notes:
   Needs an AIJ matrix (`MATSEQAIJ`, `MATMPIAIJ`, `MATAIJCUSPARSE`) with a nonzero
   diagonal: a zero or missing diagonal entry is the error `PETSC_ERR_MAT_LU_ZRPVT`,
   a NaN or infinite one `PETSC_ERR_FP`.

   On several ranks the sweep is exact by default (host and GPU matrices): the clusters,
   their colors and the output are the one-rank ones bit for bit for any rank count
   (each cluster is swept whole by the rank of its smallest row, which receives the
   rows of other ranks once). With -pc_clustergs_exact false each
   rank clusters and sweeps its diagonal block and couplings to other ranks use the
   previous iterate, as `PCSOR`'s local sweeps, so iteration counts change with the
   rank count.

   A `PCMG` / `PCGAMG` smoother with -mg_levels_pc_type clustergs.

.seealso: [](ch_ksp), `PCMCGS`, `PCSOR`, `PCGAMG`, `MATCOARSENMIS2AGG`,
          `PCClusterGSSetSweeps()`, `PCClusterGSSetOmega()`, `PCClusterGSSetType()`,
          `PCClusterGSSetBlockSize()`, `PCClusterGSSetStrengthThreshold()`,
`PCClusterGSSetLineClusters()`, `PCClusterGSSetBlockSolve()`, `PCClusterGSSetCoarsen()`,
          `PCClusterGSSetExact()`
M*/
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
