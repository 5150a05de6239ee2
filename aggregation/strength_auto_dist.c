/* mispc_dist_strength_auto (dist.h): the automatic strength threshold of a
 * row-partitioned host matrix, the one-process value (strength_auto.c) for
 * any rank count. Each rank scales its rows, gets the ghosts' diagonal
 * entries by the halo (the owner's sums, so the same r_j), and the row
 * maxima and the weak maximum over its diagonal and off-diagonal blocks
 * meet in MPI_MIN / MPI_MAX: exact, so the order of ranks does not matter. */
#include <math.h>
#include <stdlib.h>

#include "agg_backend.h"
#include "dist_internal.h"

/* Row i's largest s_ij (*m, 0 when none) and largest s_ij <= th (*w, -1
 * when none), over this rank's two blocks; ghosts' scales in rg. */
static void row_strength(const mispc_dist_csr *A, const double *r, const double *rg, int64_t i,
                         double th, double *m, double *w) {
  *m = 0;
  *w = -1;
  agg_strength_row(A->diag.colidx, A->diag.values, A->diag.rowptr[i], A->diag.rowptr[i + 1], 1, i,
                   r, r[i], th, m, w);
  agg_strength_row(A->offd.colidx, A->offd.values, A->offd.rowptr[i], A->offd.rowptr[i + 1], 1, -1,
                   rg, r[i], th, m, w);
}

mispc_status mispc_dist_strength_auto(mispc_context *ctx, const mispc_dist_csr *A, double *theta,
                                      double *weak_max) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!A || !theta || !weak_max)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_strength_auto: NULL argument");
  *theta = 0;
  *weak_max = -1;
  mispc_status s = MISPC_SUCCESS;
  if (!A->halo || !A->ranges)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_strength_auto: matrix not built");
  else if (A->diag.mem != MISPC_MEM_HOST)
    s = mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "mispc_dist_strength_auto: host matrices only");
  s = mispc_dist_agree(ctx, A->comm, s);
  if (s) return s;
  /* a pattern on any rank: 0 and -1 on all, as mispc_strength_auto */
  int novals = (A->diag.nnz && !A->diag.values) || (A->offd.nnz && !A->offd.values);
  if (MPI_Allreduce(MPI_IN_PLACE, &novals, 1, MPI_INT, MPI_MAX, A->comm) != MPI_SUCCESS)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Allreduce failed (automatic threshold)");
  s = mispc_dist_agree(ctx, A->comm, s);
  if (s || novals) return s;
  const int64_t n = A->rend - A->rstart;
  double *d = (double *)calloc((size_t)n + 1, sizeof(double));
  double *rg = (double *)calloc((size_t)A->nghost + 1, sizeof(double));
  if (!d || !rg) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory (automatic threshold)");
  s = mispc_dist_agree(ctx, A->comm, s);
  if (!s) {
    for (int64_t i = 0; i < n; ++i) d[i] = agg_diag_sum(&A->diag, i);
    s = mispc_dist_agree(ctx, A->comm, mispc_halo_exchange(ctx, A->halo, d, rg, sizeof(double)));
  }
  double ext[2] = {INFINITY, -1}; /* the smallest positive row maximum, the weak maximum */
  if (!s) {
    for (int64_t i = 0; i < n; ++i) d[i] = agg_strength_scale(d[i]);
    for (int64_t c = 0; c < A->nghost; ++c) rg[c] = agg_strength_scale(rg[c]);
    for (int64_t i = 0; i < n; ++i) {
      double m, w; /* a zero diagonal makes inf or NaN, which never counts */
      row_strength(A, d, rg, i, -INFINITY, &m, &w);
      if (m > 0 && m < ext[0]) ext[0] = m;
    }
    if (MPI_Allreduce(MPI_IN_PLACE, &ext[0], 1, MPI_DOUBLE, MPI_MIN, A->comm) != MPI_SUCCESS)
      s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Allreduce failed (automatic threshold)");
    s = mispc_dist_agree(ctx, A->comm, s);
  }
  if (!s) {
    const double th = agg_strength_theta(ext[0]);
    for (int64_t i = 0; i < n; ++i) {
      double m, w;
      row_strength(A, d, rg, i, th, &m, &w);
      if (w > ext[1]) ext[1] = w;
    }
    if (MPI_Allreduce(MPI_IN_PLACE, &ext[1], 1, MPI_DOUBLE, MPI_MAX, A->comm) != MPI_SUCCESS)
      s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Allreduce failed (automatic threshold)");
    s = mispc_dist_agree(ctx, A->comm, s);
    if (!s) *theta = th, *weak_max = ext[1];
  }
  free(d);
  free(rg);
  return s;
}
