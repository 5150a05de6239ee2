/* A PETSc program that does not link mispc: the plugin arrives only through
 * -dll_append. Solves the 7-point Laplacian on an n^3 grid (b = A*1, x0 = 0)
 * with whatever KSP/PC the options say, and fails (exit 1) unless the solve
 * converges and the true residual is below 100 * rtol.
 *
 *   -n N            grid size (default 30)
 *   -expect_error S instead of solving, set up the PC (options, then setup)
 *                   on a broken matrix and pass only if it fails with a
 *                   message containing S: -broken zerodiag (a_55 = 0) |
 *                   nandiag (a_55 = NaN) | nonsquare (10 x 12) | none (a
 *                   sound 6^3 Laplacian, for bad options)
 *   -expect_code C  with -expect_error: and with PETSc error code C
 *   -pc_prefix P    with -expect_error: the PC's options prefix
 *   -reuse          after the solve, scale A by 2 (same pattern) and solve again */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <petscksp.h>

#include "laplace3d.h"

/* Sets up a PC (type from options) on a broken matrix; prints PETSc's message. */
static PetscErrorCode expect_error(const char *broken, const char *want, PetscInt code,
                                   const char *prefix, PetscBool *ok) {
  Mat A;
  PC pc;
  PetscFunctionBegin;
  if (!strcmp(broken, "nonsquare")) {
    PetscCall(
        MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 10, 12, 1, NULL, 1, NULL, &A));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  } else {
    const PetscScalar d5 = !strcmp(broken, "zerodiag")  ? 0.0
                           : !strcmp(broken, "nandiag") ? (PetscScalar)NAN
                                                        : 6.0;
    PetscCall(laplace3d(6, d5, &A));
  }
  PetscCall(PCCreate(PETSC_COMM_WORLD, &pc));
  if (prefix[0]) PetscCall(PCSetOptionsPrefix(pc, prefix));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscErrorCode ierr = PCSetFromOptions(pc);
  if (!ierr) ierr = PCSetUp(pc);
  PetscCall(PetscPopErrorHandler());
  const char *text = NULL;
  char *spec = NULL;
  /* char ** in PETSc 3.18, const char ** in 3.26: through void *, no cast warning in either */
  PetscCall(PetscErrorMessage(ierr, &text, (void *)&spec));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PC setup returned %d: %s\n", (int)ierr,
                        spec ? spec : "(none)"));
  *ok = (PetscBool)(ierr != 0 && spec && strstr(spec, want) && (code < 0 || ierr == code));
  if (code >= 0 && ierr != code)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "wanted error code %" PetscInt_FMT "\n", code));
  PetscCall(PCDestroy(&pc));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode solve(Mat A, KSP ksp, PetscBool *ok) {
  Vec x, b, r;
  PetscInt its;
  PetscReal rtol, rnorm, bnorm;
  KSPConvergedReason reason;
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, b));
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
  PetscCall(MatResidual(A, b, x, r));
  PetscCall(VecNorm(r, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  *ok = (PetscBool)(reason > 0 && rnorm <= 100 * rtol * bnorm);
  PetscCall(PetscPrintf(
      PETSC_COMM_WORLD, "iterations %" PetscInt_FMT " reason %s true residual %.3e: %s\n", its,
      KSPConvergedReasons[reason], (double)(rnorm / bnorm), *ok ? "converged" : "FAILED"));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -apply_checksum: one PCApply on b_i = hash(i) and an order-free checksum
 * of the output's bits (the sum over global rows of a hash of (i, x_i)), so
 * runs on different rank counts can be compared bit for bit. */
static uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

static PetscErrorCode apply_checksum(Mat A, KSP ksp) {
  Vec x, b;
  PC pc;
  PetscInt r0, r1;
  PetscScalar *ba;
  const PetscScalar *xa;
  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecGetOwnershipRange(b, &r0, &r1));
  PetscCall(VecGetArray(b, &ba));
  for (PetscInt i = r0; i < r1; ++i) ba[i - r0] = (double)(mix64((uint64_t)i) >> 11) / 9e15 - 0.5;
  PetscCall(VecRestoreArray(b, &ba));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetUp(pc));
  PetscCall(PCApply(pc, b, x));
  uint64_t sum = 0, all = 0;
  PetscCall(VecGetArrayRead(x, &xa));
  for (PetscInt i = r0; i < r1; ++i) {
    uint64_t bits;
    memcpy(&bits, &xa[i - r0], 8);
    sum += mix64((uint64_t)i ^ mix64(bits));
  }
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCallMPI(MPI_Allreduce(&sum, &all, 1, MPI_UINT64_T, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PCApply checksum %016llx\n", (unsigned long long)all));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv) {
  PetscInt n = 30;
  char broken[32] = "", want[256] = "", prefix[64] = "";
  PetscInt code = -1;
  PetscBool has_err, reuse = PETSC_FALSE, ok = PETSC_FALSE;
  PetscCall(PetscInitialize(&argc, &argv, NULL, "plain PETSc KSP test program"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-expect_error", want, sizeof want, &has_err));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-broken", broken, sizeof broken, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-reuse", &reuse, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-expect_code", &code, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pc_prefix", prefix, sizeof prefix, NULL));
  if (has_err) {
    PetscCall(expect_error(broken, want, code, prefix, &ok));
  } else {
    Mat A;
    KSP ksp;
    PetscCall(laplace3d(n, 6.0, &A));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetFromOptions(ksp));
    PetscBool checksum = PETSC_FALSE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-apply_checksum", &checksum, NULL));
    if (checksum) PetscCall(apply_checksum(A, ksp));
    PetscCall(solve(A, ksp, &ok));
    if (ok && reuse) {
      PetscCall(MatScale(A, 2.0)); /* same pattern: only the numeric setup runs again */
      PetscCall(KSPSetOperators(ksp, A, A));
      PetscCall(solve(A, ksp, &ok));
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscFinalize());
  return ok ? 0 : 1;
}
