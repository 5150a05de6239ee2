/* libpetscmispc: mispc's preconditioners and coarseners as PETSc plugins.
 *
 * Loaded at start-up:  -dll_append /path/libpetscmispc.so
 * or linked directly:  call mispc_petsc_register() after PetscInitialize().
 *
 * Registers
 *   PCMCGS      -pc_type mcgs       point multicolor Gauss-Seidel / SGS / SOR
 *   PCCLUSTERGS -pc_type clustergs  cluster multicolor Gauss-Seidel / SGS / SOR
 *   MatCoarsen  mis2agg, mis2basic  deterministic MIS-2 aggregation for PCGAMG
 *   PCGAMGMISPC -pc_gamg_type mispc smoothed aggregation with mispc's graph,
 *                                   aggregates and tentative prolongator
 * (-help lists their options; the manual pages are the MC comments in
 * pc_gs.c, coarsen_mis2.c and gamg_mispc.c, the user manual docs/PETSC.md).
 *
 * The setters below configure a PC without the options database, as
 * PCSORSetOmega does for PCSOR: each does nothing on a PC of another type
 * (PetscTryMethod); each getter is an error on a PC of another type
 * (PetscUseMethod). A setter called after PCSetUp makes the next PCSetUp
 * redo the whole setup. Applications that call them link libpetscmispc and
 * call mispc_petsc_register() first. */
#ifndef MISPC_PETSC_H
#define MISPC_PETSC_H

#include <petscpc.h>

#define PCMCGS              "mcgs"
#define PCCLUSTERGS         "clustergs"
#define MATCOARSENMIS2AGG   "mis2agg"
#define MATCOARSENMIS2BASIC "mis2basic"

PETSC_EXTERN PetscErrorCode mispc_petsc_register(void);
/* The entry point PETSc calls for -dll_append .../libpetscmispc.so */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscmispc(void);

/* The sweep of PCMCGS and PCCLUSTERGS (-pc_mcgs_type, -pc_clustergs_type):
 * forward (GS / SOR), backward, or symmetric (forward then backward:
 * SGS / SSOR, the default; keep it under CG). */
typedef enum {
  PC_MCGS_SWEEP_FORWARD,
  PC_MCGS_SWEEP_BACKWARD,
  PC_MCGS_SWEEP_SYMMETRIC
} PCMCGSSweepType;
/* "forward", "backward", "symmetric", then PETSc's enum-name tail */
PETSC_EXTERN const char *const PCMCGSSweepTypes[];

/* PCMCGS: point multicolor Gauss-Seidel */
PETSC_EXTERN PetscErrorCode PCMCGSSetSweeps(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCMCGSGetSweeps(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCMCGSSetOmega(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCMCGSGetOmega(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCMCGSSetType(PC, PCMCGSSweepType);
PETSC_EXTERN PetscErrorCode PCMCGSGetType(PC, PCMCGSSweepType *);
PETSC_EXTERN PetscErrorCode PCMCGSSetExact(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCMCGSGetExact(PC, PetscBool *);

/* PCCLUSTERGS: cluster multicolor Gauss-Seidel */
PETSC_EXTERN PetscErrorCode PCClusterGSSetSweeps(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCClusterGSGetSweeps(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCClusterGSSetOmega(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCClusterGSGetOmega(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCClusterGSSetType(PC, PCMCGSSweepType);
PETSC_EXTERN PetscErrorCode PCClusterGSGetType(PC, PCMCGSSweepType *);
PETSC_EXTERN PetscErrorCode PCClusterGSSetBlockSize(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCClusterGSGetBlockSize(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCClusterGSSetStrengthThreshold(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCClusterGSGetStrengthThreshold(PC, PetscReal *);
PETSC_EXTERN PetscErrorCode PCClusterGSSetLineClusters(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCClusterGSGetLineClusters(PC, PetscBool *);
PETSC_EXTERN PetscErrorCode PCClusterGSSetBlockSolve(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCClusterGSGetBlockSolve(PC, PetscBool *);
/* the clusters: MATCOARSENMIS2AGG or MATCOARSENMIS2BASIC */
PETSC_EXTERN PetscErrorCode PCClusterGSSetCoarsen(PC, const char[]);
PETSC_EXTERN PetscErrorCode PCClusterGSGetCoarsen(PC, const char **);
PETSC_EXTERN PetscErrorCode PCClusterGSSetExact(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCClusterGSGetExact(PC, PetscBool *);

/* PCGAMGMISPC: the PCGAMG type "mispc" (PCGAMGSetType(pc, PCGAMGMISPC)). Its
 * setters work between PCGAMGSetType and PCSetUp; the PC keeps their values
 * when GAMG creates the type again (-pc_gamg_type mispc read by
 * PCSetFromOptions), and -pc_gamg_mispc_* options override them there. */
#define PCGAMGMISPC "mispc"
/* -pc_gamg_mispc_aggregation: Kokkos Kernels Alg. 3 (default) or Alg. 2 */
typedef enum { PC_GAMG_MISPC_MIS2AGG, PC_GAMG_MISPC_MIS2BASIC } PCGAMGMISPCAggregation;
/* "mis2agg", "mis2basic", then PETSc's enum-name tail */
PETSC_EXTERN const char *const PCGAMGMISPCAggregations[];
/* -pc_gamg_mispc_eig_estimate: lambda_max(D^-1 A) for the prolongator smoothing,
 * a Gershgorin bound or power iterations (default) */
typedef enum { PC_GAMG_MISPC_EIG_GERSHGORIN, PC_GAMG_MISPC_EIG_POWER } PCGAMGMISPCEigEstimate;
/* "gershgorin", "power", then PETSc's enum-name tail */
PETSC_EXTERN const char *const PCGAMGMISPCEigEstimates[];
/* -pc_gamg_mispc_priority: the MIS-2 priority of the aggregation, the
 * per-round hash (default), the cover priority (fewer, larger aggregates) or
 * auto (cover where the near-null space has more vectors than dofs a node) */
typedef enum {
  PC_GAMG_MISPC_PRIORITY_AUTO,
  PC_GAMG_MISPC_PRIORITY_HASH,
  PC_GAMG_MISPC_PRIORITY_COVER
} PCGAMGMISPCPriority;
/* "auto", "hash", "cover", then PETSc's enum-name tail */
PETSC_EXTERN const char *const PCGAMGMISPCPriorities[];

/* the setters (each does nothing unless pc is a PCGAMG of type mispc) */
PETSC_EXTERN PetscErrorCode PCGAMGMISPCSetAggregation(PC, PCGAMGMISPCAggregation);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCSetNSmooths(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCSetEigEstimate(PC, PCGAMGMISPCEigEstimate);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCSetPowerIts(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCSetAggressiveLevels(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCSetSeed(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCSetVerify(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCSetGalerkin(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCSetPhase2MinFree(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCSetPriority(PC, PCGAMGMISPCPriority);
/* the getters (each is an error unless pc is a PCGAMG of type mispc) */
PETSC_EXTERN PetscErrorCode PCGAMGMISPCGetAggregation(PC, PCGAMGMISPCAggregation *);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCGetNSmooths(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCGetEigEstimate(PC, PCGAMGMISPCEigEstimate *);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCGetPowerIts(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCGetAggressiveLevels(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCGetSeed(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCGetVerify(PC, PetscBool *);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCGetGalerkin(PC, PetscBool *);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCGetPhase2MinFree(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCGAMGMISPCGetPriority(PC, PCGAMGMISPCPriority *);

#endif
