/* Registration: PC types, MatCoarsen types and -log_view events. */
#include <petscpc.h>

#include "gamg_mispc.h"
#include "plugin_internal.h"

PetscLogEvent MISPC_EventGSSymbolic, MISPC_EventGSNumeric, MISPC_EventGSApply, MISPC_EventCoarsen,
    MISPC_EventCoarsenGraph, MISPC_EventCoarsenAgg, MISPC_EventCoarsenLists, MISPC_EventProduct,
    MISPC_EventMatFromCSR;

PetscErrorCode mispc_petsc_register(void) {
  static PetscBool registered = PETSC_FALSE;
  PetscFunctionBegin;
  if (registered) PetscFunctionReturn(PETSC_SUCCESS);
  registered = PETSC_TRUE;
  PetscCall(PCInitializePackage());
  PetscCall(MatInitializePackage());
  PetscCall(MispcRegisterPCs());
  PetscCall(MispcRegisterCoarseners());
  PetscCall(MispcRegisterGAMG());
  /* clustergs: the automatic strength threshold (a symbolic setup, before MispcGSSymbolic) */
  PetscCall(PetscLogEventRegister("MispcGSSymbolic", PC_CLASSID, &MISPC_EventGSSymbolic));
  PetscCall(PetscLogEventRegister("MispcGSNumeric", PC_CLASSID, &MISPC_EventGSNumeric));
  PetscCall(PetscLogEventRegister("MispcGSApply", PC_CLASSID, &MISPC_EventGSApply));
  PetscCall(PetscLogEventRegister("MispcMIS2Coarsen", MAT_COARSEN_CLASSID, &MISPC_EventCoarsen));
  /* the phases of MispcMIS2Coarsen on several ranks */
  PetscCall(PetscLogEventRegister("MispcCrsGraph", MAT_COARSEN_CLASSID, &MISPC_EventCoarsenGraph));
  PetscCall(
      PetscLogEventRegister("MispcCrsAggregate", MAT_COARSEN_CLASSID, &MISPC_EventCoarsenAgg));
  PetscCall(PetscLogEventRegister("MispcCrsLists", MAT_COARSEN_CLASSID, &MISPC_EventCoarsenLists));
  /* the GAMG type's sparse products (galerkin_ptap.c) and their Mats */
  PetscCall(PetscLogEventRegister("MispcSpProduct", MAT_CLASSID, &MISPC_EventProduct));
  PetscCall(PetscLogEventRegister("MispcMatFromCSR", MAT_CLASSID, &MISPC_EventMatFromCSR));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PetscDLLibraryRegister_petscmispc(void) {
  PetscFunctionBegin;
  PetscCall(mispc_petsc_register());
  PetscFunctionReturn(PETSC_SUCCESS);
}
