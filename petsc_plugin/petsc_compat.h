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
#define MISPC_GAMG_COARSEN_PREFIX "-pc_gamg_mat_coarsen_" /* the coarsener's own options */
#else
#define MISPC_GAMG_COARSEN_OPTION "-mat_coarsen_type"
#define MISPC_GAMG_COARSEN_PREFIX "-mat_coarsen_"
#endif

/* a container whose context is freed by PetscFree on destroy: renamed in 3.23 */
#if PETSC_VERSION_GE(3, 23, 0)
#define MispcContainerFreeOnDestroy(c) PetscContainerSetCtxDestroy((c), PetscCtxDestroyDefault)
#else
#define MispcContainerFreeOnDestroy(c)                                                             \
  PetscContainerSetUserDestroy((c), PetscContainerUserDestroyDefault)
#endif

/* MISPC_CONTAINER_DESTROY(name, fn): a container destroy callback `name` that
 * calls fn(pointer held by the container), for either of PETSc's callback
 * conventions (the context's address from 3.23, the context before);
 * MispcContainerOnDestroy(c, name) installs it. */
#if PETSC_VERSION_GE(3, 23, 0)
#define MISPC_CONTAINER_DESTROY(name, fn)                                                          \
  static PetscErrorCode name(void *p_) {                                                           \
    fn(*(void **)p_);                                                                              \
    *(void **)p_ = NULL;                                                                           \
    return PETSC_SUCCESS;                                                                          \
  }
#define MispcContainerOnDestroy(c, name) PetscContainerSetCtxDestroy((c), name)
#else
#define MISPC_CONTAINER_DESTROY(name, fn)                                                          \
  static PetscErrorCode name(void *p_) {                                                           \
    fn(p_);                                                                                        \
    return PETSC_SUCCESS;                                                                          \
  }
#define MispcContainerOnDestroy(c, name) PetscContainerSetUserDestroy((c), name)
#endif

/* PetscDeviceContext (and its stream handle) exists from 3.17; used on CUDA builds only */
#if defined(PETSC_HAVE_CUDA)
#include <cuda_runtime_api.h> /* cudaStreamLegacy */
#include <petscdevice.h>
#endif

/* PCGAMG's private context (petsc/private/pcgamgimpl.h), for the GAMG type in
 * gamg_mispc.c. The fields used here have the same names in 3.18 .. 3.26:
 * ops, subctx, data (near-null space, column-major, leading dimension = local
 * rows), data_sz, data_cell_rows, data_cell_cols, threshold[], current_level,
 * use_aggs_in_asm. Only the prolongator hook changed: it lost its graph
 * argument in 3.21. */
#define MispcGAMGCtx(pc)          ((PC_GAMG *)((PC_MG *)(pc)->data)->innerctx)
#define MispcGAMGOps(pc)          (MispcGAMGCtx(pc)->ops)
#define MispcGAMGSubctx(pc)       (MispcGAMGCtx(pc)->subctx)
#define MispcGAMGLevel(pc)        (MispcGAMGCtx(pc)->current_level)
#define MispcGAMGThreshold(pc)    (MispcGAMGCtx(pc)->threshold[MispcGAMGCtx(pc)->current_level])
#define MispcGAMGUseAggsInASM(pc) (MispcGAMGCtx(pc)->use_aggs_in_asm)
#define MispcGAMGData(pc)         (MispcGAMGCtx(pc)->data)
#define MispcGAMGDataSize(pc)     (MispcGAMGCtx(pc)->data_sz)
#define MispcGAMGDataRows(pc)     (MispcGAMGCtx(pc)->data_cell_rows)
#define MispcGAMGDataCols(pc)     (MispcGAMGCtx(pc)->data_cell_cols)
#if PETSC_VERSION_GE(3, 21, 0)
#define MISPC_GAMG_PROLONGATOR_GRAPH_ARG
#else
#define MISPC_GAMG_PROLONGATOR_GRAPH_ARG Mat,
#endif

#endif
