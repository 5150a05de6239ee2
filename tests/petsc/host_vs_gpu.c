/* PCApply of mcgs / clustergs on the GPU (aijcusparse, CUDA vectors) against
 * the same PC on the host (seqaij): mispc's contract is bit-identical output.
 * Links PETSc only (the plugin arrives through -dll_append). Applies each PC
 * twice on the GPU (run-to-run determinism) and between the applies runs
 * PETSc vector work on the same vectors, so a missing stream ordering shows.
 *
 *   host_vs_gpu -dll_append libpetscmispc.so -pc_type mcgs|clustergs [-n N]
 *   exit 0: identical; 1: different (max difference printed); 77: no GPU */
#include <petscksp.h>
#include <petscversion.h>

#include "laplace3d.h"

#if defined(PETSC_HAVE_CUDA)
/* 7-point Laplacian with a varying diagonal (so rows differ), n^3 rows */
static PetscErrorCode build(PetscInt n, MatType type, Mat *A) {
  PetscInt N = n * n * n;
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, N, N, N, N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 7, NULL));
  PetscCall(laplace3d_rows(*A, n, 0.001));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode max_diff(Vec a, Vec b, PetscReal *d) {
  Vec t;
  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &t));
  PetscCall(VecWAXPY(t, -1.0, a, b));
  PetscCall(VecNorm(t, NORM_INFINITY, d));
  PetscCall(VecDestroy(&t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode compare(PetscInt n, PetscBool *same) {
  Mat Ah, Ad;
  PC ph, pd;
  Vec bh, xh, bd, xd, xd2, yd, xcmp;
  PetscRandom rnd;
  PetscReal d1, d2;
  PetscFunctionBegin;
  PetscCall(build(n, MATSEQAIJ, &Ah));
  PetscCall(build(n, MATSEQAIJCUSPARSE, &Ad));
  PetscCall(MatCreateVecs(Ah, &xh, &bh));
  PetscCall(MatCreateVecs(Ad, &xd, &bd));
  PetscCall(VecDuplicate(xd, &xd2));
  PetscCall(VecDuplicate(xd, &yd));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(bh, rnd));
  PetscCall(VecCopy(bh, bd)); /* to the GPU */
  PetscCall(PCCreate(PETSC_COMM_SELF, &ph));
  PetscCall(PCSetOperators(ph, Ah, Ah));
  PetscCall(PCSetFromOptions(ph));
  PetscCall(PCSetUp(ph));
  PetscCall(PCApply(ph, bh, xh));
  PetscCall(PCCreate(PETSC_COMM_SELF, &pd));
  PetscCall(PCSetOperators(pd, Ad, Ad));
  PetscCall(PCSetFromOptions(pd));
  PetscCall(PCSetUp(pd));
  /* b on the GPU produced by a kernel just before the apply, x read right after */
  PetscCall(VecScale(bd, 2.0));
  PetscCall(PCApply(pd, bd, xd));
  PetscCall(VecScale(xd, 0.5));
  PetscCall(MatMult(Ad, xd, yd)); /* GPU work between the applies */
  PetscCall(VecScale(bd, 0.5));
  PetscCall(PCApply(pd, bd, xd2));
  PetscCall(VecDuplicate(xh, &xcmp));
  PetscCall(VecCopy(xd, xcmp)); /* back to the host */
  PetscCall(max_diff(xh, xcmp, &d1));
  PetscCall(VecCopy(xd2, xcmp));
  PetscCall(max_diff(xh, xcmp, &d2));
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "n %" PetscInt_FMT ": max |x_host - x_gpu| first apply %g, second %g\n", n,
                        (double)d1, (double)d2));
  *same = d1 == 0 && d2 == 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(VecDestroy(&xcmp));
  PetscCall(PCDestroy(&ph));
  PetscCall(PCDestroy(&pd));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&bh));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&bd));
  PetscCall(VecDestroy(&xd));
  PetscCall(VecDestroy(&xd2));
  PetscCall(VecDestroy(&yd));
  PetscCall(MatDestroy(&Ah));
  PetscCall(MatDestroy(&Ad));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

int main(int argc, char **argv) {
  PetscBool same = PETSC_FALSE;
  PetscInt n = 30;
  PetscCall(PetscInitialize(&argc, &argv, NULL, "PC on the GPU vs on the host"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(compare(n, &same));
#else
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "PETSc without CUDA: skipped\n"));
  PetscCall(PetscFinalize());
  return 77;
#endif
  PetscCall(PetscFinalize());
  return same ? 0 : 1;
}
