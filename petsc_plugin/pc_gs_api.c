/* The public setters and getters of PCMCGS and PCCLUSTERGS (mispc_petsc.h):
 * PetscTryMethod / PetscUseMethod on the functions PCCreate composes
 * (pc_gs.c), as PETSc's own PCs do. */
#include <petsc/private/pcimpl.h>

#include "plugin_internal.h"

/*@
  PCMCGSSetSweeps - Sets the sweeps per application of a `PCMCGS`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- n - the value

  Options Database Key:
. -pc_mcgs_sweeps <1> - the same from the options database

  Level: intermediate

  Note:
  At least 1. Does nothing unless pc is a `PCMCGS`; called after `PCSetUp()`, it makes the
  next use set up again.

.seealso: [](ch_ksp), `PCMCGS`, `PCMCGSGetSweeps()`
@*/
PetscErrorCode PCMCGSSetSweeps(PC pc, PetscInt n) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, n, 2);
  PetscTryMethod(pc, "PCMCGSSetSweeps_C", (PC, PetscInt), (pc, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCMCGSGetSweeps - Gets the sweeps per application of a `PCMCGS`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. n - the value

  Level: intermediate

.seealso: [](ch_ksp), `PCMCGS`, `PCMCGSSetSweeps()`
@*/
PetscErrorCode PCMCGSGetSweeps(PC pc, PetscInt *n) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCMCGSGetSweeps_C", (PC, PetscInt *), (pc, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCMCGSSetOmega - Sets the relaxation factor of a `PCMCGS`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- omega - the value

  Options Database Key:
. -pc_mcgs_omega <1> - the same from the options database

  Level: intermediate

  Note:
  In (0, 2); 1 is Gauss-Seidel. Does nothing unless pc is a `PCMCGS`; called after
  `PCSetUp()`, it makes the next use set up again.

.seealso: [](ch_ksp), `PCMCGS`, `PCMCGSGetOmega()`
@*/
PetscErrorCode PCMCGSSetOmega(PC pc, PetscReal omega) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, omega, 2);
  PetscTryMethod(pc, "PCMCGSSetOmega_C", (PC, PetscReal), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCMCGSGetOmega - Gets the relaxation factor of a `PCMCGS`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. omega - the value

  Level: intermediate

.seealso: [](ch_ksp), `PCMCGS`, `PCMCGSSetOmega()`
@*/
PetscErrorCode PCMCGSGetOmega(PC pc, PetscReal *omega) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCMCGSGetOmega_C", (PC, PetscReal *), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCMCGSSetType - Sets the sweep of a `PCMCGS`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- type - the value

  Options Database Key:
. -pc_mcgs_type <symmetric> - the same from the options database

  Level: intermediate

  Note:
  `PC_MCGS_SWEEP_FORWARD`, `PC_MCGS_SWEEP_BACKWARD` or `PC_MCGS_SWEEP_SYMMETRIC` (forward
  then backward: SGS / SSOR, the default; keep it under `KSPCG`). Does nothing unless pc is
  a `PCMCGS`; called after `PCSetUp()`, it makes the next use set up again.

.seealso: [](ch_ksp), `PCMCGS`, `PCMCGSGetType()`
@*/
PetscErrorCode PCMCGSSetType(PC pc, PCMCGSSweepType type) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscTryMethod(pc, "PCMCGSSetType_C", (PC, PCMCGSSweepType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCMCGSGetType - Gets the sweep of a `PCMCGS`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - the value

  Level: intermediate

.seealso: [](ch_ksp), `PCMCGS`, `PCMCGSSetType()`
@*/
PetscErrorCode PCMCGSGetType(PC pc, PCMCGSSweepType *type) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCMCGSGetType_C", (PC, PCMCGSSweepType *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCMCGSSetExact - Sets whether several ranks sweep exactly of a `PCMCGS`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- exact - the value

  Options Database Key:
. -pc_mcgs_exact <true> - the same from the options database

  Level: intermediate

  Note:
  With `PETSC_TRUE` (the default), on several ranks (host or GPU matrices), the whole matrix is
  swept color by color with the halo between colors, so the output is the one-rank output
  bit for bit for any rank count. With `PETSC_FALSE` each rank sweeps
  its diagonal block and couplings to other ranks use the previous iterate. Does nothing
  unless pc is a `PCMCGS`; called after `PCSetUp()`, it makes the next use set up again.

.seealso: [](ch_ksp), `PCMCGS`, `PCMCGSGetExact()`
@*/
PetscErrorCode PCMCGSSetExact(PC pc, PetscBool exact) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, exact, 2);
  PetscTryMethod(pc, "PCMCGSSetExact_C", (PC, PetscBool), (pc, exact));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCMCGSGetExact - Gets whether several ranks sweep exactly of a `PCMCGS`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. exact - the value

  Level: intermediate

.seealso: [](ch_ksp), `PCMCGS`, `PCMCGSSetExact()`
@*/
PetscErrorCode PCMCGSGetExact(PC pc, PetscBool *exact) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCMCGSGetExact_C", (PC, PetscBool *), (pc, exact));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSSetSweeps - Sets the sweeps per application of a `PCCLUSTERGS`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- n - the value

  Options Database Key:
. -pc_clustergs_sweeps <1> - the same from the options database

  Level: intermediate

  Note:
  At least 1. Does nothing unless pc is a `PCCLUSTERGS`; called after `PCSetUp()`, it makes
  the next use set up again.

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSGetSweeps()`
@*/
PetscErrorCode PCClusterGSSetSweeps(PC pc, PetscInt n) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, n, 2);
  PetscTryMethod(pc, "PCClusterGSSetSweeps_C", (PC, PetscInt), (pc, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSGetSweeps - Gets the sweeps per application of a `PCCLUSTERGS`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. n - the value

  Level: intermediate

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSSetSweeps()`
@*/
PetscErrorCode PCClusterGSGetSweeps(PC pc, PetscInt *n) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCClusterGSGetSweeps_C", (PC, PetscInt *), (pc, n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSSetOmega - Sets the relaxation factor of a `PCCLUSTERGS`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- omega - the value

  Options Database Key:
. -pc_clustergs_omega <1> - the same from the options database

  Level: intermediate

  Note:
  In (0, 2); 1 is Gauss-Seidel. Does nothing unless pc is a `PCCLUSTERGS`; called after
  `PCSetUp()`, it makes the next use set up again.

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSGetOmega()`
@*/
PetscErrorCode PCClusterGSSetOmega(PC pc, PetscReal omega) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, omega, 2);
  PetscTryMethod(pc, "PCClusterGSSetOmega_C", (PC, PetscReal), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSGetOmega - Gets the relaxation factor of a `PCCLUSTERGS`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. omega - the value

  Level: intermediate

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSSetOmega()`
@*/
PetscErrorCode PCClusterGSGetOmega(PC pc, PetscReal *omega) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCClusterGSGetOmega_C", (PC, PetscReal *), (pc, omega));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSSetType - Sets the sweep of a `PCCLUSTERGS`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- type - the value

  Options Database Key:
. -pc_clustergs_type <symmetric> - the same from the options database

  Level: intermediate

  Note:
  `PC_MCGS_SWEEP_FORWARD`, `PC_MCGS_SWEEP_BACKWARD` or `PC_MCGS_SWEEP_SYMMETRIC` (forward
  then backward: SGS / SSOR, the default; keep it under `KSPCG`). Does nothing unless pc is
  a `PCCLUSTERGS`; called after `PCSetUp()`, it makes the next use set up again.

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSGetType()`
@*/
PetscErrorCode PCClusterGSSetType(PC pc, PCMCGSSweepType type) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscTryMethod(pc, "PCClusterGSSetType_C", (PC, PCMCGSSweepType), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSGetType - Gets the sweep of a `PCCLUSTERGS`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - the value

  Level: intermediate

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSSetType()`
@*/
PetscErrorCode PCClusterGSGetType(PC pc, PCMCGSSweepType *type) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCClusterGSGetType_C", (PC, PCMCGSSweepType *), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSSetBlockSize - Sets the rows per node clustered together of a `PCCLUSTERGS`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- bs - the value

  Options Database Key:
. -pc_clustergs_block_size <0> - the same from the options database

  Level: intermediate

  Note:
  0 (the default) takes the matrix block size, or 1 with the automatic strength threshold
  (`PCClusterGSSetStrengthThreshold()`); a positive size must divide the rows. Does
  nothing unless pc is a `PCCLUSTERGS`; called after `PCSetUp()`, it makes the next use set
  up again.

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSGetBlockSize()`
@*/
PetscErrorCode PCClusterGSSetBlockSize(PC pc, PetscInt bs) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, bs, 2);
  PetscTryMethod(pc, "PCClusterGSSetBlockSize_C", (PC, PetscInt), (pc, bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSGetBlockSize - Gets the rows per node clustered together of a `PCCLUSTERGS`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. bs - the value

  Level: intermediate

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSSetBlockSize()`
@*/
PetscErrorCode PCClusterGSGetBlockSize(PC pc, PetscInt *bs) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCClusterGSGetBlockSize_C", (PC, PetscInt *), (pc, bs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSSetStrengthThreshold - Sets the strength threshold of the clustering of a
  `PCCLUSTERGS`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- threshold - the value

  Options Database Key:
. -pc_clustergs_strength_threshold <-2> - the same from the options database

  Level: intermediate

  Note:
  Entries with |a_ij| <= threshold sqrt(|a_ii a_jj|) are dropped from the graph before
  clustering. -2 (the default) and -1 are chosen by each symbolic setup from the matrix:
  theta = 2/3 of the smallest, over the rows with a nonzero off-diagonal entry, of the row's
  largest |a_ij| / sqrt(|a_ii a_jj|); -2 uses theta on rows where the couplings at or below
  theta are set apart from it (every one at most 0.9 theta: anisotropic operators, and
  elasticity, whose displacement components each couple strongly along their own axis),
  else 0 on the matrix's nodes; -1 uses theta on rows wherever a coupling is at or below
  it. Lines and block solves are chosen where the operator is strongly anisotropic (every
  such coupling at most 0.1 theta; `PCClusterGSSetLineClusters()`). The same for any number of
  ranks, host or GPU (docs/GAUSS_SEIDEL.md, "Automatic threshold"). Other negative values
  are an error. Does nothing unless pc is a `PCCLUSTERGS`; called after `PCSetUp()`, it
  makes the next use set up again.

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSGetStrengthThreshold()`
@*/
PetscErrorCode PCClusterGSSetStrengthThreshold(PC pc, PetscReal threshold) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, threshold, 2);
  PetscTryMethod(pc, "PCClusterGSSetStrengthThreshold_C", (PC, PetscReal), (pc, threshold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSGetStrengthThreshold - Gets the strength threshold of the clustering of a
  `PCCLUSTERGS`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. threshold - the value

  Level: intermediate

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSSetStrengthThreshold()`
@*/
PetscErrorCode PCClusterGSGetStrengthThreshold(PC pc, PetscReal *threshold) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCClusterGSGetStrengthThreshold_C", (PC, PetscReal *), (pc, threshold));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSSetLineClusters - Grows the clusters of a `PCCLUSTERGS` along chains of
  clusters.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- flg - `PETSC_TRUE` to grow them

  Options Database Key:
. -pc_clustergs_line_clusters <auto> - the same from the options database

  Level: intermediate

  Notes:
  After the aggregation, clusters that touch at most two others are merged with their
  neighbours along such chains, round after round, until a round merges nothing. With a
  strength threshold (`PCClusterGSSetStrengthThreshold()`) on an anisotropic operator a
  cluster becomes a whole line of strong couplings, so a sweep acts like a line
  Gauss-Seidel; where every cluster touches more than two others nothing changes. The
  clusters are the same for any number of ranks. By default chosen at setup: on where the
  operator is strongly anisotropic (`PCClusterGSSetStrengthThreshold()`), else off, since on
  a GPU the rows of a cluster are swept one after another, so whole lines are long chains;
  this function makes the choice explicit. Does nothing unless pc is a `PCCLUSTERGS`;
  called after `PCSetUp()`, it makes the next use set up again.

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSGetLineClusters()`
@*/
PetscErrorCode PCClusterGSSetLineClusters(PC pc, PetscBool flg) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCClusterGSSetLineClusters_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSGetLineClusters - Tells whether the clusters of a `PCCLUSTERGS` grow along
  chains of clusters.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. flg - the value: as set, or where automatic the last setup's choice (false before one)

  Level: intermediate

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSSetLineClusters()`
@*/
PetscErrorCode PCClusterGSGetLineClusters(PC pc, PetscBool *flg) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCClusterGSGetLineClusters_C", (PC, PetscBool *), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSSetBlockSolve - Solves each cluster's block of a `PCCLUSTERGS` exactly
  (block Gauss-Seidel) instead of sweeping its rows one after another.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- flg - `PETSC_TRUE` to solve the blocks exactly

  Options Database Key:
. -pc_clustergs_block_solve <auto> - the same from the options database

  Level: intermediate

  Notes:
  A cluster C's update is x_C = A_CC^{-1} (b_C - A_C,out x_out), by an LU factor of A_CC
  without pivoting in the cluster's row order, kept in envelope storage (computed at the
  numeric setup). With `PCClusterGSSetLineClusters()` and a strength threshold on an
  anisotropic operator the clusters are whole lines and a sweep is a line Gauss-Seidel
  with exact line solves, which takes far fewer Krylov iterations than point
  Gauss-Seidel. Needs omega 1 and blocks whose LU needs no pivoting (an SPD matrix's);
  a zero or non-finite pivot is an error at the setup. Host and GPU give the same
  output, and so does any rank count. By default chosen at setup: on where the operator is
  strongly anisotropic and omega is 1 (`PCClusterGSSetStrengthThreshold()`), else off; this
  function makes the choice explicit. Does nothing unless pc is a `PCCLUSTERGS`; called
  after `PCSetUp()`, it makes the next use set up again.

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSGetBlockSolve()`,
          `PCClusterGSSetLineClusters()`
@*/
PetscErrorCode PCClusterGSSetBlockSolve(PC pc, PetscBool flg) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, flg, 2);
  PetscTryMethod(pc, "PCClusterGSSetBlockSolve_C", (PC, PetscBool), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSGetBlockSolve - Tells whether a `PCCLUSTERGS` solves its clusters' blocks
  exactly.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. flg - the value: as set, or where automatic the last setup's choice (false before one)

  Level: intermediate

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSSetBlockSolve()`
@*/
PetscErrorCode PCClusterGSGetBlockSolve(PC pc, PetscBool *flg) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCClusterGSGetBlockSolve_C", (PC, PetscBool *), (pc, flg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSSetCoarsen - Sets the aggregation that makes the clusters of a `PCCLUSTERGS`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- type - the value

  Options Database Key:
. -pc_clustergs_coarsen <mis2agg> - the same from the options database

  Level: intermediate

  Note:
  `MATCOARSENMIS2AGG` (the default) or `MATCOARSENMIS2BASIC`. Does nothing unless pc is a
  `PCCLUSTERGS`; called after `PCSetUp()`, it makes the next use set up again.

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSGetCoarsen()`
@*/
PetscErrorCode PCClusterGSSetCoarsen(PC pc, const char type[]) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscTryMethod(pc, "PCClusterGSSetCoarsen_C", (PC, const char[]), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSGetCoarsen - Gets the aggregation that makes the clusters of a `PCCLUSTERGS`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. type - the value

  Level: intermediate

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSSetCoarsen()`
@*/
PetscErrorCode PCClusterGSGetCoarsen(PC pc, const char **type) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCClusterGSGetCoarsen_C", (PC, const char **), (pc, type));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSSetExact - Sets whether several ranks sweep exactly of a `PCCLUSTERGS`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- exact - the value

  Options Database Key:
. -pc_clustergs_exact <true> - the same from the options database

  Level: intermediate

  Note:
  With `PETSC_TRUE` (the default), on several ranks (host or GPU matrices), the clusters and
  colors are the one-rank ones and each cluster is swept whole by the rank of its
  smallest row, so the output is the one-rank output bit for bit for any rank count.
  With `PETSC_FALSE` each rank clusters and sweeps its diagonal
  block and couplings to other ranks use the previous iterate. Does nothing unless pc is
  a `PCCLUSTERGS`; called after `PCSetUp()`, it makes the next use set up again.

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSGetExact()`, `PCMCGSSetExact()`
@*/
PetscErrorCode PCClusterGSSetExact(PC pc, PetscBool exact) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveBool(pc, exact, 2);
  PetscTryMethod(pc, "PCClusterGSSetExact_C", (PC, PetscBool), (pc, exact));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  PCClusterGSGetExact - Gets whether several ranks sweep exactly of a `PCCLUSTERGS`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. exact - the value

  Level: intermediate

.seealso: [](ch_ksp), `PCCLUSTERGS`, `PCClusterGSSetExact()`
@*/
PetscErrorCode PCClusterGSGetExact(PC pc, PetscBool *exact) {
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscUseMethod(pc, "PCClusterGSGetExact_C", (PC, PetscBool *), (pc, exact));
  PetscFunctionReturn(PETSC_SUCCESS);
}
