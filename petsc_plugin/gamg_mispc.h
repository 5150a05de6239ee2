/* Internal to libpetscmispc: the PCGAMG type "mispc" (gamg_mispc.c). */
#ifndef MISPC_GAMG_MISPC_H
#define MISPC_GAMG_MISPC_H

#include <petscpc.h>

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
  MISPC_GAMG_NSETTINGS
} MispcGAMGSetting;

#endif
