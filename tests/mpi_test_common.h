/* Shared by the distributed tests under mpiexec (mpi_test_dist.c,
 * mpi_test_galerkin.c, mpi_test_errors.c): their start and end, the uneven
 * row ranges they split inputs by, and a near-null space made up for the
 * prolongator checks. */
#ifndef MISPC_MPI_TEST_COMMON_H
#define MISPC_MPI_TEST_COMMON_H

#include <mpi.h>

#include "test_util.h"

/* MPI started, *rank and *nranks of MPI_COMM_WORLD, and the standard output
 * of every rank but 0 silenced (rank 0 reports): 0, or 1 where that failed. */
static inline int mpi_test_start(int *argc, char ***argv, int *rank, int *nranks) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, nranks);
  return *rank != 0 && !freopen("/dev/null", "w", stdout);
}

/* The checks failed on all ranks together (collective). */
static inline int mpi_test_failed_anywhere(void) {
  int failed = test_failed_, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return any;
}

/* The test's exit status (any: mpi_test_failed_anywhere, after the report),
 * MPI finalized. */
static inline int mpi_test_finish(int any) {
  int rc = TEST_FINISH();
  MPI_Finalize();
  return any ? 1 : rc;
}

/* Rank `rank` of `nranks`: uneven ranges of [0, n), weights 1, 2, 3, 1, 2,
 * 3, ... and none for rank 1 when nranks >= 3 (a rank without rows). */
static inline void mpi_test_split(int rank, int nranks, int64_t n, int64_t *rstart, int64_t *rend) {
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
static inline void mpi_test_modes(mispc_context *ctx, int64_t n, int k, int64_t r0, int64_t r1,
                                  double **B, double **Bl) {
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
