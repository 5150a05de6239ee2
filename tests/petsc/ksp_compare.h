/* Helpers of the PETSc setter tests (setters.c, gamg_setters.c): a KSP on A
 * configured by setters or from the options database under a prefix, one
 * solve and one PCApply to compare the two; the verdict of all ranks. */
#ifndef MISPC_TEST_KSP_COMPARE_H
#define MISPC_TEST_KSP_COMPARE_H

#include <string.h>
#include <petscksp.h>

#if !PETSC_VERSION_GE(3, 19, 0)
#define PETSC_SUCCESS 0
#endif

/* Iterations of a GMRES solve (b = A 1, x0 = 0) and one PCApply's output. */
static inline PetscErrorCode run(KSP ksp, Mat A, PetscInt *its, Vec y) {
  Vec x, b;
  PC pc;
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, b));
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCApply(pc, b, y));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode make_ksp(Mat A, const char *prefix, KSP *ksp) {
  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(*ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  if (prefix) {
    PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
    PetscCall(KSPSetFromOptions(*ksp));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* options (a string of "-option value" items) under prefix into the options
 * database. */
static inline PetscErrorCode insert_options(const char *options, const char *prefix) {
  char buf[1024], *tok, *save = NULL, all[2048] = "";
  PetscFunctionBegin;
  PetscCall(PetscStrncpy(buf, options, sizeof buf));
  for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char item[256];
    if (tok[0] == '-' && (tok[1] < '0' || tok[1] > '9'))
      PetscCall(PetscSNPrintf(item, sizeof item, " -%s%s", prefix, tok + 1));
    else
      PetscCall(PetscSNPrintf(item, sizeof item, " %s", tok));
    strncat(all, item, sizeof all - strlen(all) - 1);
  }
  PetscCall(PetscOptionsInsertString(NULL, all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One verdict for every rank (ok on all of them), printed as "name: ok" or
 * "name: FAILED". */
static inline PetscErrorCode all_ranks_ok(const char *name, PetscBool *ok) {
  int mine = *ok ? 1 : 0, all = 0;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
  *ok = all ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s\n", name, *ok ? "ok" : "FAILED"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif
