/* Shared by the distributed tests under mpiexec (mpi_test_dist.c,
 * mpi_test_galerkin.c): the uneven row ranges they split inputs by, and a
 * near-null space made up for the prolongator checks. */
#ifndef MISPC_MPI_TEST_COMMON_H
#define MISPC_MPI_TEST_COMMON_H

#include "test_util.h"

/* Rank `rank` of `nranks`: uneven ranges of [0, n), weights 1, 2, 3, 1, 2,
 * 3, ... and none for rank 1 when nranks >= 3 (a rank without rows). */
static void mpi_test_split(int rank, int nranks, int64_t n, int64_t *rstart, int64_t *rend) {
  int64_t total = 0, before = 0;
  for (int p = 0; p < nranks; ++p) {
    int64_t w = (nranks >= 3 && p == 1) ? 0 : (p % 3) + 1;
    if (p < rank) before += w;
    total += w;
  }
  int64_t w = (nranks >= 3 && rank == 1) ? 0 : (rank % 3) + 1;
  *rstart = n * before / total;
  *rend = n * (before + w) / total;
}

/* The k = 6 rigid-body modes of n 3-dof nodes at coordinates made up by a
 * hash (any B will do): *B (3 n x 6, column-major) and *Bl, the rows of the
 * nodes [r0, r1) (leading dimension 3 (r1 - r0)). Both NULL for k = 1 (the
 * constant). The caller frees them. */
static void mpi_test_modes(mispc_context *ctx, int64_t n, int k, int64_t r0, int64_t r1, double **B,
                           double **Bl) {
  *B = *Bl = NULL;
  if (k <= 1) return;
  const int64_t ndof = 3 * n, nl = 3 * (r1 - r0);
  double *xyz = malloc(sizeof(double) * (size_t)(3 * n + 1));
  for (int64_t i = 0; i < 3 * n; ++i)
    xyz[i] = (double)(mispc_hash3(5, 0, (uint64_t)i) >> 11) / 9e15;
  *B = malloc(sizeof(double) * (size_t)(ndof * k + 1));
  CHECK_OK(ctx, mispc_rigid_body_modes(ctx, n, xyz, *B));
  free(xyz);
  *Bl = malloc(sizeof(double) * (size_t)(nl * k + 1));
  for (int j = 0; j < k; ++j)
    for (int64_t r = 0; r < nl; ++r) (*Bl)[j * nl + r] = (*B)[j * ndof + r0 * 3 + r];
}

#endif
