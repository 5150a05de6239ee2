/* libpetscmispc: mispc's preconditioners and coarseners as PETSc plugins.
 *
 * Loaded at start-up:  -dll_append /path/libpetscmispc.so
 * or linked directly:  call mispc_petsc_register() after PetscInitialize().
 *
 * Registers
 *   PCMCGS      -pc_type mcgs       point multicolor Gauss-Seidel / SGS / SOR
 *   PCCLUSTERGS -pc_type clustergs  cluster multicolor Gauss-Seidel / SGS / SOR
 *   MatCoarsen  mis2agg, mis2basic  deterministic MIS-2 aggregation for PCGAMG
 * (-help lists their options). */
#ifndef MISPC_PETSC_H
#define MISPC_PETSC_H

#include <petscsys.h>

#define PCMCGS              "mcgs"
#define PCCLUSTERGS         "clustergs"
#define MATCOARSENMIS2AGG   "mis2agg"
#define MATCOARSENMIS2BASIC "mis2basic"

PETSC_EXTERN PetscErrorCode mispc_petsc_register(void);
/* The entry point PETSc calls for -dll_append .../libpetscmispc.so */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscmispc(void);

#endif
