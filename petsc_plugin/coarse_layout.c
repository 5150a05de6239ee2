/* Several ranks: where the coarse unknowns of -pc_gamg_type mispc live.
 * The library's distributed prolongator gives aggregate c to rank p for c in
 * [naggs p / P, naggs (p + 1) / P) (include/mispc/dist.h), ranks without
 * rows included. GAMG reduces the active processes of small levels (its
 * heuristic, -pc_gamg_rank_reduction_factors, or one process a device on a
 * PC that never saw PCSetFromOptions where CUDA devices exist) and counts
 * them from its own reductions: a coarse level spread over ranks it thinks
 * idle makes it skip the coarsest level's reduction to one process, and its
 * block Jacobi coarse solve is then no longer exact (a PCApply 15 % off the
 * one-rank one, 2026-11-26). So the coarse unknowns go to the ranks that
 * hold rows of the level, in even ranges among them; the numbering (global
 * ids, the one-process aggregate numbers) does not change, only their
 * owners, and with every rank holding rows nothing moves. */
#include <petscsys.h>

#include "gamg_mispc.h"
#include "mispc/config.h"
#include "plugin_internal.h"

#if MISPC_ENABLE_MPI

/* [*lo, *hi): the share of rank q of naggs ids in even ranges over the
 * active ranks (slot: active ranks before q). */
static void active_range(int64_t naggs, int nact, int slot, int active, int64_t *lo, int64_t *hi) {
  *lo = naggs * slot / nact;
  *hi = active ? naggs * (slot + 1) / nact : *lo;
}

PetscErrorCode MispcCoarseToActiveRanks(MPI_Comm comm, PetscInt nrows, int64_t naggs, int64_t c0,
                                        int64_t c1, PetscInt k, const double *Bc, int64_t *nc0,
                                        int64_t *nc1, PetscReal **Bc_out) {
  PetscMPIInt P, rank;
  int *act = NULL, *scount = NULL, *sdisp = NULL, *rcount = NULL, *rdisp = NULL;
  double *sbuf = NULL, *rbuf = NULL;
  const int64_t kk = (int64_t)k * k;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &P));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc5(P, &act, P, &scount, P + 1, &sdisp, P, &rcount, P + 1, &rdisp));
  const int mine = nrows > 0;
  PetscCallMPI(MPI_Allgather(&mine, 1, MPI_INT, act, 1, MPI_INT, comm));
  int nact = 0;
  for (int q = 0; q < P; ++q) nact += act[q];
  if (nact == 0) { /* no rows anywhere: every rank active, nothing to move */
    for (int q = 0; q < P; ++q) act[q] = 1;
    nact = P;
  }
  /* the new share of every rank, and this rank's */
  int64_t *lo = NULL, *hi = NULL;
  PetscCall(PetscMalloc2(P, &lo, P, &hi));
  for (int q = 0, slot = 0; q < P; slot += act[q], ++q)
    active_range(naggs, nact, slot, act[q], &lo[q], &hi[q]);
  *nc0 = lo[rank], *nc1 = hi[rank];
  /* old share of rank q: even ranges over all ranks; what overlaps moves */
  for (int q = 0; q < P; ++q) {
    const int64_t o0 = naggs * q / P, o1 = naggs * (q + 1) / P;
    const int64_t s = PetscMin(c1, hi[q]) - PetscMax(c0, lo[q]); /* mine to q */
    const int64_t r = PetscMin(o1, *nc1) - PetscMax(o0, *nc0);   /* q's to me */
    scount[q] = (int)(s > 0 ? s * kk : 0);
    rcount[q] = (int)(r > 0 ? r * kk : 0);
  }
  sdisp[0] = rdisp[0] = 0;
  for (int q = 0; q < P; ++q)
    sdisp[q + 1] = sdisp[q] + scount[q], rdisp[q + 1] = rdisp[q] + rcount[q];
  PetscCall(PetscMalloc2(sdisp[P] + 1, &sbuf, rdisp[P] + 1, &rbuf));
  /* aggregate by aggregate (increasing: the ranks' shares are increasing
   * too), its k x k block row by row of column-major Bc */
  const int64_t ldo = (c1 - c0) * k, ldn = (*nc1 - *nc0) * k;
  for (int64_t c = c0, t = 0; c < c1; ++c)
    for (PetscInt j = 0; j < k; ++j)
      for (PetscInt i = 0; i < k; ++i) sbuf[t++] = Bc[j * ldo + (c - c0) * k + i];
  PetscCallMPI(
      MPI_Alltoallv(sbuf, scount, sdisp, MPI_DOUBLE, rbuf, rcount, rdisp, MPI_DOUBLE, comm));
  PetscCall(PetscMalloc1(ldn * k + 1, Bc_out));
  for (int64_t c = *nc0, t = 0; c < *nc1; ++c)
    for (PetscInt j = 0; j < k; ++j)
      for (PetscInt i = 0; i < k; ++i) (*Bc_out)[j * ldn + (c - *nc0) * k + i] = rbuf[t++];
  PetscCall(PetscFree2(sbuf, rbuf));
  PetscCall(PetscFree2(lo, hi));
  PetscCall(PetscFree5(act, scount, sdisp, rcount, rdisp));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
