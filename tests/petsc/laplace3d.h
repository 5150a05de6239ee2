/* The 7-point Laplacian on an n^3 grid (diagonal 6, -1 to each neighbour),
 * row 5's diagonal entry set to diag_5 (6 for the sound matrix), for the
 * PETSc test programs; laplace3d_rows fills the rows of a Mat made elsewhere. */
#ifndef MISPC_TEST_LAPLACE3D_H
#define MISPC_TEST_LAPLACE3D_H

#include <petscmat.h>

#if !PETSC_VERSION_GE(3, 19, 0)
#define PETSC_SUCCESS 0
#endif

/* Inserts this rank's rows of the 7-point Laplacian on an n^3 grid into A
 * (preallocated, not assembled): -1 to each neighbour, diagonal
 * 6 + vary * (r % 17) (vary 0: 6; vary > 0 makes the rows differ). */
static inline PetscErrorCode laplace3d_rows(Mat A, PetscInt n, double vary) {
  PetscInt rstart, rend;
  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; ++r) {
    PetscInt i = r % n, j = (r / n) % n, k = r / (n * n), cols[7], m = 0;
    PetscScalar v[7];
    if (k > 0) cols[m] = r - n * n, v[m++] = -1;
    if (j > 0) cols[m] = r - n, v[m++] = -1;
    if (i > 0) cols[m] = r - 1, v[m++] = -1;
    cols[m] = r, v[m++] = 6.0 + vary * (PetscScalar)(r % 17);
    if (i < n - 1) cols[m] = r + 1, v[m++] = -1;
    if (j < n - 1) cols[m] = r + n, v[m++] = -1;
    if (k < n - 1) cols[m] = r + n * n, v[m++] = -1;
    PetscCall(MatSetValues(A, 1, &r, m, cols, v, INSERT_VALUES));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscErrorCode laplace3d(PetscInt n, PetscScalar diag_5, Mat *A) {
  PetscInt N = n * n * n, rstart, rend;
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 7, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 7, NULL, 6, NULL));
  PetscCall(laplace3d_rows(*A, n, 0.0));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  if (rstart <= 5 && 5 < rend) PetscCall(MatSetValue(*A, 5, 5, diag_5, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif
