/* The one place where PETSc version differences live (3.18 .. current). */
#ifndef MISPC_PETSC_COMPAT_H
#define MISPC_PETSC_COMPAT_H

#include <petscversion.h>

#if defined(PETSC_USE_64BIT_INDICES)
#error                                                                                             \
    "libpetscmispc needs PETSc built with 32-bit PetscInt: mispc's local column indices are 32-bit"
#endif

/* PETSC_SUCCESS exists from 3.19 */
#if !PETSC_VERSION_GE(3, 19, 0)
#define PETSC_SUCCESS 0
#endif

/* setfromoptions hooks take PetscOptionItems * up to 3.22, a pointer typedef after */
#if PETSC_VERSION_GE(3, 23, 0)
typedef PetscOptionItems MispcOptionItems;
#else
typedef PetscOptionItems *MispcOptionItems;
#endif

/* GAMG's option that picks the coarsener: -[prefix]mat_coarsen_type up to 3.21,
 * -pc_gamg_mat_coarsen_type from 3.22 */
#if PETSC_VERSION_GE(3, 22, 0)
#define MISPC_GAMG_COARSEN_OPTION "-pc_gamg_mat_coarsen_type"
#else
#define MISPC_GAMG_COARSEN_OPTION "-mat_coarsen_type"
#endif

/* a container whose context is freed by PetscFree on destroy: renamed in 3.23 */
#if PETSC_VERSION_GE(3, 23, 0)
#define MispcContainerFreeOnDestroy(c) PetscContainerSetCtxDestroy((c), PetscCtxDestroyDefault)
#else
#define MispcContainerFreeOnDestroy(c)                                                             \
  PetscContainerSetUserDestroy((c), PetscContainerUserDestroyDefault)
#endif

/* PetscDeviceContext (and its stream handle) exists from 3.17; used on CUDA builds only */
#if defined(PETSC_HAVE_CUDA)
#include <cuda_runtime_api.h> /* cudaStreamLegacy */
#include <petscdevice.h>
#endif

#endif
