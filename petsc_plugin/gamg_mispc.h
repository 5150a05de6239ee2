/* Internal to libpetscmispc: the PCGAMG type "mispc" (gamg_mispc.c). */
#ifndef MISPC_GAMG_MISPC_H
#define MISPC_GAMG_MISPC_H

#include <petscpc.h>

/* Registers -pc_gamg_type mispc and its -log_view events (register.c calls it). */
PetscErrorCode MispcRegisterGAMG(void);

#endif
