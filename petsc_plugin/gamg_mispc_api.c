/* The public setters and getters of the PCGAMG type "mispc" (PCGAMGMISPC,
 * mispc_petsc.h): PetscTryMethod / PetscUseMethod on the functions the type
 * composes when GAMG creates it (gamg_mispc.c), as PETSc's own PCs do. Each
 * pair is written by MISPC_GAMG_ACCESSORS below its manual pages: the ten
 * pairs differ only in name, type and setting number, and gamg_mispc.c's
 * table of settings holds their ranges and options. */
#include <petsc/private/pcimpl.h>

#include "gamg_mispc.h"
#include "plugin_internal.h"

/* PCGAMGMISPCSet<Name>(PC, Type) and PCGAMGMISPCGet<Name>(PC, Type *) of the
 * setting `which` (a MispcGAMGSetting); Valid picks PETSc's
 * PetscValidLogicalCollective<Valid> for Type. The value travels as a
 * PetscInt; the setter composed by the type checks its range. */
#define MISPC_GAMG_ACCESSORS(Name, Type, Valid, which)                                             \
  PetscErrorCode PCGAMGMISPCSet##Name(PC pc, Type v) {                                             \
    PetscFunctionBegin;                                                                            \
    PetscValidHeaderSpecific(pc, PC_CLASSID, 1);                                                   \
    PetscValidLogicalCollective##Valid(pc, v, 2);                                                  \
    PetscTryMethod(pc, "PCGAMGMISPCSet" #Name "_C", (PC, PetscInt, PetscInt),                      \
                   (pc, (PetscInt)(which), (PetscInt)v));                                          \
    PetscFunctionReturn(PETSC_SUCCESS);                                                            \
  }                                                                                                \
  PetscErrorCode PCGAMGMISPCGet##Name(PC pc, Type *v) {                                            \
    PetscInt value = 0;                                                                            \
    PetscFunctionBegin;                                                                            \
    PetscValidHeaderSpecific(pc, PC_CLASSID, 1);                                                   \
    PetscUseMethod(pc, "PCGAMGMISPCGet" #Name "_C", (PC, PetscInt, PetscInt *),                    \
                   (pc, (PetscInt)(which), &value));                                               \
    *v = (Type)value;                                                                              \
    PetscFunctionReturn(PETSC_SUCCESS);                                                            \
  }

/*@
  PCGAMGMISPCSetAggregation - Sets the MIS-2 aggregation of a `PCGAMGMISPC`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- agg - `PC_GAMG_MISPC_MIS2AGG` (Kokkos Kernels Alg. 3, the default) or
          `PC_GAMG_MISPC_MIS2BASIC` (Alg. 2)

  Options Database Key:
. -pc_gamg_mispc_aggregation <mis2agg> - the same from the options database

  Level: intermediate

  Note:
  Alg. 3 makes MIS-2 roots and their neighbours, then secondary roots among the rest and a
  clean-up; Alg. 2 lets the leftovers join a neighbouring aggregate. Another value is the
  error `PETSC_ERR_ARG_OUTOFRANGE`.

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCGetAggregation()`, `PCGAMGMISPCAggregation`,
          `MATCOARSENMIS2AGG`
@*/
/*@
  PCGAMGMISPCGetAggregation - Gets the MIS-2 aggregation of a `PCGAMGMISPC`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. agg - the aggregation algorithm

  Level: intermediate

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCSetAggregation()`
@*/
MISPC_GAMG_ACCESSORS(Aggregation, PCGAMGMISPCAggregation, Enum, MISPC_GAMG_AGGREGATION)

/*@
  PCGAMGMISPCSetNSmooths - Sets the number of prolongator smoothing steps of a `PCGAMGMISPC`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- n - the number of steps: 0 (the tentative prolongator P0) or more

  Options Database Key:
. -pc_gamg_mispc_nsmooths <1> - the same from the options database

  Level: intermediate

  Note:
  P = (I - omega D^-1 A)^n P0 with omega = 4 / (3 lambda); n = 0 gives sparser coarse
  operators and usually more iterations. A negative n is the error
  `PETSC_ERR_ARG_OUTOFRANGE`.

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCGetNSmooths()`, `PCGAMGMISPCSetEigEstimate()`
@*/
/*@
  PCGAMGMISPCGetNSmooths - Gets the number of prolongator smoothing steps of a `PCGAMGMISPC`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. n - how many times P0 is smoothed

  Level: intermediate

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCSetNSmooths()`
@*/
MISPC_GAMG_ACCESSORS(NSmooths, PetscInt, Int, MISPC_GAMG_NSMOOTHS)

/*@
  PCGAMGMISPCSetEigEstimate - Sets the estimate of lambda_max(D^-1 A) for the prolongator smoothing
of a `PCGAMGMISPC`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- eig - `PC_GAMG_MISPC_EIG_POWER` or `PC_GAMG_MISPC_EIG_GERSHGORIN`

  Options Database Key:
. -pc_gamg_mispc_eig_estimate <power> - the same from the options database

  Level: intermediate

  Note:
  Power iterations (the default) run from a fixed start vector, see
  `PCGAMGMISPCSetPowerIts()`; the Gershgorin bound max_i sum_j |a_ij| / |a_ii| is the same
  bits on any number of ranks but loose on coarse levels. Another value is the error
  `PETSC_ERR_ARG_OUTOFRANGE`.

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCGetEigEstimate()`, `PCGAMGMISPCEigEstimate`,
          `PCGAMGMISPCSetNSmooths()`
@*/
/*@
  PCGAMGMISPCGetEigEstimate - Gets the estimate of lambda_max(D^-1 A) for the prolongator smoothing
of a `PCGAMGMISPC`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. eig - `PC_GAMG_MISPC_EIG_POWER` or `PC_GAMG_MISPC_EIG_GERSHGORIN`

  Level: intermediate

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCSetEigEstimate()`
@*/
MISPC_GAMG_ACCESSORS(EigEstimate, PCGAMGMISPCEigEstimate, Enum, MISPC_GAMG_EIG_ESTIMATE)

/*@
  PCGAMGMISPCSetPowerIts - Sets the number of power iterations of the eigen-estimate of a
`PCGAMGMISPC`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- its - how many iterations, at least 1

  Options Database Key:
. -pc_gamg_mispc_power_its <10> - the same from the options database

  Level: intermediate

  Note:
  Used by `PC_GAMG_MISPC_EIG_POWER` only. Less than 1 is the error
  `PETSC_ERR_ARG_OUTOFRANGE`.

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCGetPowerIts()`, `PCGAMGMISPCSetEigEstimate()`
@*/
/*@
  PCGAMGMISPCGetPowerIts - Gets the number of power iterations of the eigen-estimate of a
`PCGAMGMISPC`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. its - how many power iterations the estimate makes

  Level: intermediate

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCSetPowerIts()`
@*/
MISPC_GAMG_ACCESSORS(PowerIts, PetscInt, Int, MISPC_GAMG_POWER_ITS)

/*@
  PCGAMGMISPCSetAggressiveLevels - Sets the number of aggressive levels of a `PCGAMGMISPC`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- n - levels counted from the finest, 0 (the default) or more

  Options Database Key:
. -pc_gamg_mispc_aggressive_levels <0> - the same from the options database

  Level: intermediate

  Note:
  On the n finest levels the aggregates are aggregated again (MIS-2 aggregation of their
  quotient graph): far fewer coarse points and a cheaper hierarchy, usually more
  iterations. A negative n is the error `PETSC_ERR_ARG_OUTOFRANGE`.

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCGetAggressiveLevels()`,
`PCGAMGSetAggressiveLevels()`
@*/
/*@
  PCGAMGMISPCGetAggressiveLevels - Gets the number of aggressive levels of a `PCGAMGMISPC`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. n - how many of the finest levels aggregate twice

  Level: intermediate

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCSetAggressiveLevels()`
@*/
MISPC_GAMG_ACCESSORS(AggressiveLevels, PetscInt, Int, MISPC_GAMG_AGGRESSIVE_LEVELS)

/*@
  PCGAMGMISPCSetSeed - Sets the seed of the hashed MIS-2 priorities of a `PCGAMGMISPC`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- seed - any seed from 0

  Options Database Key:
. -pc_gamg_mispc_seed <0> - the same from the options database

  Level: intermediate

  Note:
  For a given seed the aggregates are deterministic and the same for any number of
  ranks. A negative seed is the error `PETSC_ERR_ARG_OUTOFRANGE`.

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCGetSeed()`, `PCGAMGMISPCSetAggregation()`
@*/
/*@
  PCGAMGMISPCGetSeed - Gets the seed of the hashed MIS-2 priorities of a `PCGAMGMISPC`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. seed - the seed of the priorities

  Level: intermediate

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCSetSeed()`
@*/
MISPC_GAMG_ACCESSORS(Seed, PetscInt, Int, MISPC_GAMG_SEED)

/*@
  PCGAMGMISPCSetVerify - Sets whether a `PCGAMGMISPC` checks every aggregation.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- verify - `PETSC_TRUE` to check every aggregation

  Options Database Key:
. -pc_gamg_mispc_verify <false> - the same from the options database

  Level: intermediate

  Note:
  Checks that every node lies in one aggregate and that aggregates are connected; a bad
  aggregation is then an error. For debugging.

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCGetVerify()`, `PCGAMGMISPCSetAggregation()`
@*/
/*@
  PCGAMGMISPCGetVerify - Gets whether a `PCGAMGMISPC` checks every aggregation.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. verify - whether aggregations are checked

  Level: intermediate

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCSetVerify()`
@*/
MISPC_GAMG_ACCESSORS(Verify, PetscBool, Bool, MISPC_GAMG_VERIFY)

/*@
  PCGAMGMISPCSetGalerkin - Sets whether a `PCGAMGMISPC` smooths its prolongators and forms its
  coarse operators with mispc's sparse products.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- galerkin - `PETSC_TRUE` (the default) for mispc's products, `PETSC_FALSE` for PETSc's
             `MatMatMult()` and `MatPtAP()`

  Options Database Key:
. -pc_gamg_mispc_galerkin <true> - the same from the options database

  Level: intermediate

  Note:
  mispc's products (`mispc_smooth_prolongator()`, `mispc_galerkin_product()`) run on the
  matrices' own arrays, on the GPU for `MATSEQAIJCUSPARSE`; they are deterministic, give the
  same bits on the host and the GPU, and need memory for P^T, A P and the coarse operator only.
  On several ranks `mispc_dist_smooth_prolongator()` and `mispc_dist_galerkin_product()` run
  on the host copies of the blocks and give the one-rank bits for any rank count.

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCGetGalerkin()`, `PCGAMGMISPCSetNSmooths()`
@*/
/*@
  PCGAMGMISPCGetGalerkin - Gets whether a `PCGAMGMISPC` uses mispc's sparse products.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. galerkin - whether mispc's products are used

  Level: intermediate

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCSetGalerkin()`
@*/
MISPC_GAMG_ACCESSORS(Galerkin, PetscBool, Bool, MISPC_GAMG_GALERKIN)

/*@
  PCGAMGMISPCSetPhase2MinFree - Sets how many unaggregated neighbours a secondary root of
  mis2agg's phase 2 needs in a `PCGAMGMISPC`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- n - -1 (the default: 8, or no secondary roots on a level whose near-null space has more
      vectors than the matrix has dofs a node, as elasticity with rigid-body modes), or a
      count; 2 or less is Kokkos Kernels Alg. 3 as published

  Options Database Key:
. -pc_gamg_mispc_phase2_min_free <-1> - the same from the options database

  Level: advanced

  Note:
  Larger counts root fewer secondary aggregates and leave more vertices to phase 3, which
  adds them to neighbouring aggregates: fewer, larger aggregates and a smaller operator
  complexity, usually a few more iterations (`mispc_agg_options.phase2_min_free`; the same
  aggregates on the host, the GPU and any number of ranks). Only `mis2agg` has a phase 2.
  A value below -1 is the error `PETSC_ERR_ARG_OUTOFRANGE`.

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCGetPhase2MinFree()`,
`PCGAMGMISPCSetAggregation()`
@*/
/*@
  PCGAMGMISPCGetPhase2MinFree - Gets the phase-2 setting of a `PCGAMGMISPC`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. n - the setting (-1: chosen per level)

  Level: advanced

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCSetPhase2MinFree()`
@*/
MISPC_GAMG_ACCESSORS(Phase2MinFree, PetscInt, Int, MISPC_GAMG_PHASE2_MIN_FREE)

/*@
  PCGAMGMISPCSetPriority - Sets the MIS-2 priority of the aggregation of a `PCGAMGMISPC`.

  Logically Collective

  Input Parameters:
+ pc - the preconditioner context
- p - `PC_GAMG_MISPC_PRIORITY_HASH` (the default: a new hash each round),
      `PC_GAMG_MISPC_PRIORITY_COVER` (the vertex covering the most undecided vertices within
      distance 2 first) or `PC_GAMG_MISPC_PRIORITY_AUTO` (cover on a level whose near-null
      space has more vectors than the matrix has dofs a node, as elasticity with rigid-body
      modes, else hash)

  Options Database Key:
. -pc_gamg_mispc_priority <hash> - the same from the options database

  Level: advanced

  Note:
  The cover priority gives fewer, larger aggregates in more MIS-2 rounds
  (`MISPC_PRIORITY_COVER`); where each aggregate carries several coarse unknowns the smaller
  Galerkin products pay for the rounds. The same aggregates on the host, the GPU and any
  number of ranks. Another value is the error `PETSC_ERR_ARG_OUTOFRANGE`.

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCGetPriority()`, `PCGAMGMISPCPriority`
@*/
/*@
  PCGAMGMISPCGetPriority - Gets the MIS-2 priority setting of a `PCGAMGMISPC`.

  Not Collective

  Input Parameter:
. pc - the preconditioner context

  Output Parameter:
. p - the setting (auto: chosen per level)

  Level: advanced

.seealso: [](ch_ksp), `PCGAMGMISPC`, `PCGAMGMISPCSetPriority()`
@*/
MISPC_GAMG_ACCESSORS(Priority, PCGAMGMISPCPriority, Enum, MISPC_GAMG_PRIORITY)
