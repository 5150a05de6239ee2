/* Internal to libpetscmispc: the PCGAMG type "mispc" (gamg_mispc.c). */
#ifndef MISPC_GAMG_MISPC_H
#define MISPC_GAMG_MISPC_H

#include <petscpc.h>

/* Several ranks (coarse_layout.c): the coarse unknowns [c0, c1) this rank
 * holds in the library's even ranges over all ranks, and their near-null
 * space Bc (k rows an aggregate, k columns, column-major), moved to even
 * ranges over the ranks with rows of the level (nrows > 0 here), the layout
 * GAMG's process reduction expects: [*nc0, *nc1) and *Bc_out (PetscMalloc,
 * the same layout). Collective; nothing moves where every rank has rows. */
PetscErrorCode MispcCoarseToActiveRanks(MPI_Comm comm, PetscInt nrows, int64_t naggs, int64_t c0,
                                        int64_t c1, PetscInt k, const double *Bc, int64_t *nc0,
                                        int64_t *nc1, PetscReal **Bc_out);

/* Registers -pc_gamg_type mispc and its -log_view events (register.c calls it). */
PetscErrorCode MispcRegisterGAMG(void);

/* The settings of PCGAMGMISPC, in the order -help lists their options. Each
 * has a public PCGAMGMISPCSet<Name> / PCGAMGMISPCGet<Name> (gamg_mispc_api.c),
 * which calls "PCGAMGMISPCSet<Name>_C" / "PCGAMGMISPCGet<Name>_C" with the
 * setting's number; the type composes one setter and one getter
 * (gamg_mispc.c: range checks, enumerations and booleans as PetscInt) under
 * every setting's names. */
typedef enum {
  MISPC_GAMG_AGGREGATION,
  MISPC_GAMG_NSMOOTHS,
  MISPC_GAMG_EIG_ESTIMATE,
  MISPC_GAMG_POWER_ITS,
  MISPC_GAMG_AGGRESSIVE_LEVELS,
  MISPC_GAMG_SEED,
  MISPC_GAMG_VERIFY,
  MISPC_GAMG_GALERKIN,
  MISPC_GAMG_PHASE2_MIN_FREE,
  MISPC_GAMG_PRIORITY,
  MISPC_GAMG_NSETTINGS
} MispcGAMGSetting;

#endif
