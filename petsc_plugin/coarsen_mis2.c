/* MatCoarsen types "mis2agg" and "mis2basic" for PCGAMG: mispc's deterministic
 * MIS-2 aggregation (papers/KokkosKernels-MIS2-aggregation-clusterGS-2022.txt
 * Alg. 3 and Alg. 2) of the graph GAMG gives its coarsener.
 *
 * Each rank aggregates the vertices it owns using the edges of its diagonal
 * block; edges to other ranks are not used (so no aggregate crosses ranks and
 * GAMG needs no ghost lookup). GAMG's coarse grid has one point per aggregate.
 *
 * Our options live in a composed container, not in MatCoarsen's subctx: PETSc
 * 3.18's GAMG writes the MISK distance into subctx whatever the type. */
#include <petsc/private/matimpl.h>

#include "plugin_internal.h"

typedef struct {
  mispc_agg_algo algo;
  PetscInt seed;
  PetscBool verify;
  /* last result, for MatCoarsenView */
  PetscInt nlocal, naggs, singletons, max_size;
  int rounds[2];
} MispcCoarsen;

static PetscErrorCode get_ctx(MatCoarsen cg, MispcCoarsen **mc) {
  PetscContainer c;
  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)cg, "MispcCoarsen", (PetscObject *)&c));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "mispc coarsener context missing");
  PetscCall(PetscContainerGetPointer(c, (void **)mc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenApply_Mispc(MatCoarsen cg) {
  MispcCoarsen *mc;
  Mat G = cg->graph, Gd;
  PetscBool gpu;
  PetscInt rstart;
  mispc_context *ctx = NULL;
  MispcLocalCSR L = {0};
  mispc_aggregates aggs = {0};
  mispc_csr sym = {0};
  int32_t *agg = NULL, *root = NULL;
  PetscCoarsenData *lists;
  PetscFunctionBegin;
  PetscCall(get_ctx(cg, &mc));
  PetscCall(PetscLogEventBegin(MISPC_EventCoarsen, cg, G, 0, 0));
  PetscCall(MispcLocalBlock(G, &Gd, &gpu));
  PetscCall(MatGetOwnershipRange(G, &rstart, NULL));
  PetscCall(MispcContextCreate((PetscObject)cg, gpu, &ctx));
  PetscCall(MispcLocalCSRBegin(ctx, G, PETSC_FALSE, PETSC_TRUE, &L));

  mispc_agg_options ao;
  mispc_agg_options_default(&ao);
  ao.algo = mc->algo;
  ao.mis.seed = (uint64_t)mc->seed;
  const mispc_csr *graph = &L.csr;
  /* GAMG's graph is symmetric unless the matrix is not; symmetrize then (host) */
  mispc_status s = mispc_csr_check(ctx, graph, MISPC_CHECK_SORTED | MISPC_CHECK_SYMMETRIC);
  if (s == MISPC_ERR_UNSYMMETRIC && !gpu) {
    mispc_context_clear_error(ctx);
    s = mispc_csr_symmetrize(ctx, graph, 1, &sym);
    graph = &sym;
  }
  if (!s) s = mispc_aggregate(ctx, graph, &ao, &aggs);
  if (!s && mc->verify) s = mispc_verify_aggregation(ctx, graph, &aggs);
  PetscCall(MispcLocalCSREnd(&L));
  if (s) {
    PetscErrorCode ierr = MispcErrorCode(s, mispc_context_error(ctx));
    (void)PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, ierr,
                     PETSC_ERROR_INITIAL, "mispc: %s (%s)", mispc_context_error(ctx),
                     mispc_strerror(s));
    mispc_csr_free(ctx, &sym);
    mispc_aggregates_free(ctx, &aggs);
    (void)MispcLocalCSRDestroy(ctx, &L);
    mispc_context_destroy(ctx);
    return ierr;
  }
  const PetscInt n = (PetscInt)aggs.n, na = (PetscInt)aggs.naggs;
  PetscCall(PetscMalloc2(n, &agg, na, &root));
  MispcCall(ctx, mispc_memcpy(ctx, agg, MISPC_MEM_HOST, aggs.agg, aggs.mem, sizeof(int32_t) * n));
  MispcCall(ctx,
            mispc_memcpy(ctx, root, MISPC_MEM_HOST, aggs.root, aggs.mem, sizeof(int32_t) * na));
  /* one list per root (local id), holding the global ids of its members */
  PetscCall(PetscCDCreate(n, &lists));
  for (PetscInt v = 0; v < n; ++v) PetscCall(PetscCDAppendID(lists, root[agg[v]], rstart + v));
  cg->agg_lists = lists;
#if PETSC_VERSION_GE(3, 20, 0)
  {
    /* GAMG reads ghost null-space data through the "ghost adjacency" matrix
     * that MISK attaches on several ranks; ours has no off-rank members, so it
     * is an empty nloc x N matrix with the graph's layout (owned by the lists). */
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)G), &size));
    if (size > 1) {
      Mat ghost;
      PetscCall(MatCreateAIJ(PetscObjectComm((PetscObject)G), n, n, PETSC_DETERMINE,
                             PETSC_DETERMINE, 0, NULL, 0, NULL, &ghost));
      PetscCall(MatAssemblyBegin(ghost, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(ghost, MAT_FINAL_ASSEMBLY));
      PetscCall(PetscCDSetMat(lists, ghost));
    }
  }
#endif

  mispc_agg_stats st;
  MispcCall(ctx, mispc_aggregates_stats(ctx, &aggs, &st));
  mc->nlocal = n;
  mc->naggs = na;
  mc->singletons = (PetscInt)st.singletons;
  mc->max_size = (PetscInt)st.max_size;
  mc->rounds[0] = aggs.mis_rounds[0];
  mc->rounds[1] = aggs.mis_rounds[1];
  PetscCall(PetscInfo(
      cg, "%s: %" PetscInt_FMT " local vertices -> %" PetscInt_FMT " aggregates (%s)\n",
      mc->algo == MISPC_AGG_MIS2AGG ? "mis2agg" : "mis2basic", n, na, gpu ? "GPU" : "host"));
  PetscCall(PetscFree2(agg, root));
  mispc_csr_free(ctx, &sym);
  mispc_aggregates_free(ctx, &aggs);
  PetscCall(MispcLocalCSRDestroy(ctx, &L));
  mispc_context_destroy(ctx);
  PetscCall(PetscLogEventEnd(MISPC_EventCoarsen, cg, G, 0, 0));
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
  PetscCall(PetscOptionsBool("-mat_coarsen_mispc_verify", "Verify every aggregation",
                             "MATCOARSENMIS2AGG", mc->verify, &mc->verify, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatCoarsenView_Mispc(MatCoarsen cg, PetscViewer viewer) {
  MispcCoarsen *mc;
  PetscBool ascii;
  PetscFunctionBegin;
  PetscCall(get_ctx(cg, &mc));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (ascii)
    PetscCall(PetscViewerASCIIPrintf(
        viewer,
        "  mispc %s: %" PetscInt_FMT " local vertices, %" PetscInt_FMT " aggregates, %" PetscInt_FMT
        " singletons, largest %" PetscInt_FMT ", MIS-2 rounds %d + %d\n",
        mc->algo == MISPC_AGG_MIS2AGG ? "mis2agg" : "mis2basic", mc->nlocal, mc->naggs,
        mc->singletons, mc->max_size, mc->rounds[0], mc->rounds[1]));
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
.  -mat_coarsen_mispc_seed <0>       - seed of the hashed MIS-2 priorities
-  -mat_coarsen_mispc_verify <false> - check every aggregation (mispc_verify_aggregation)

   Level: intermediate

   Notes:
   Each rank aggregates the vertices it owns with the edges of its diagonal block, so no
   aggregate crosses ranks; GAMG's coarse grid has one point per aggregate. An
   unsymmetric graph is symmetrized first (host). Host (`MATAIJ`) and GPU
   (`MATAIJCUSPARSE`) graphs; the aggregates are deterministic (hashed priorities).

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
.  -mat_coarsen_mispc_seed <0>         - seed of the hashed MIS-2 priorities
-  -mat_coarsen_mispc_verify <false>   - check every aggregation (mispc_verify_aggregation)

   Level: intermediate

   Note:
   As `MATCOARSENMIS2AGG` (rank-local, deterministic aggregates), with the simpler
   algorithm of the paper.

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
