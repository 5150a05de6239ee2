/* Distributed Galerkin product under mpiexec: every rank's coarse rows of
 * mispc_dist_galerkin_product equal the rows of the one-process
 * mispc_galerkin_product of the whole A and P, columns and value bits, for
 * tentative prolongators (constant; rigid-body modes on 3-dof nodes) and
 * smoothed ones (and mispc_dist_smooth_prolongator's rows against the
 * one-process mispc_smooth_prolongator's), on uneven row ranges (rank 1 owns no rows when P >= 3);
 * the same with 1 and 3 host threads a rank; bad inputs fail on every rank.
 * Run with any P (ctest runs P = 1, 2, 3, 4, 7). Test-only shortcut: every rank makes the whole
 * matrices for the reference. */
#include <math.h>
#include <mpi.h>

#include "mispc/dist.h"
#include "mpi_test_common.h"
#include "test_util.h"

static int rank_, nranks_;
static int64_t rows_checked_;

/* Uneven ranges (mpi_test_split): rank 1 owns no rows when P >= 3. */
static void split(int64_t n, int64_t *rstart, int64_t *rend) {
  mpi_test_split(rank_, nranks_, n, rstart, rend);
}

/* Local row i of a distributed matrix as (global column, value) pairs in
 * global column order (n returned). */
static int64_t dist_row(const mispc_dist_csr *D, int64_t i, int64_t *col, double *val) {
  int64_t n = 0;
  for (int64_t p = D->diag.rowptr[i]; p < D->diag.rowptr[i + 1]; ++p)
    col[n] = D->rstart + D->diag.colidx[p], val[n++] = D->diag.values[p];
  for (int64_t p = D->offd.rowptr[i]; p < D->offd.rowptr[i + 1]; ++p)
    col[n] = D->garray[D->offd.colidx[p]], val[n++] = D->offd.values[p];
  for (int64_t a = 1; a < n; ++a) /* insertion sort: rows are short */
    for (int64_t b = a; b > 0 && col[b - 1] > col[b]; --b) {
      int64_t t = col[b];
      double v = val[b];
      col[b] = col[b - 1], val[b] = val[b - 1];
      col[b - 1] = t, val[b - 1] = v;
    }
  return n;
}

/* Every owned row of Ac against row rstart + i of the whole R: the same
 * columns, the same value bits; the rows of all ranks cover R. */
static void compare_rows(const mispc_dist_csr *Ac, const mispc_csr *R, const char *what) {
  int64_t *col = malloc(sizeof(int64_t) * (size_t)(R->ncols + 1)), bad = 0;
  double *val = malloc(sizeof(double) * (size_t)(R->ncols + 1));
  for (int64_t i = 0; i < Ac->rend - Ac->rstart; ++i) {
    const int64_t c = Ac->rstart + i, m = dist_row(Ac, i, col, val),
                  len = R->rowptr[c + 1] - R->rowptr[c];
    bad += m != len;
    for (int64_t q = 0; q < m && q < len; ++q) {
      bad += col[q] != R->colidx[R->rowptr[c] + q];
      bad += memcmp(&val[q], &R->values[R->rowptr[c] + q], sizeof(double)) != 0;
    }
  }
  int64_t owned = Ac->rend - Ac->rstart, all = 0;
  MPI_Allreduce(&owned, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK_MSG(bad == 0 && all == R->nrows && Ac->nglobal == R->nrows,
            "%s: Galerkin product differs on rank %d of %d (%lld bad entries, %lld of %lld rows)",
            what, rank_, nranks_, (long long)bad, (long long)all, (long long)R->nrows);
  rows_checked_ += owned;
  free(col);
  free(val);
}

/* This rank's rows [r0, r1) of a whole prolongator W, with the coarse rows
 * of the tentative one T (test-only: the smoothed prolongator sliced). */
static void slice_prolongator(const mispc_csr *W, int64_t r0, int64_t r1,
                              const mispc_dist_prolongator *T, mispc_dist_prolongator *out) {
  memset(out, 0, sizeof *out);
  const int64_t n = r1 - r0, base = W->rowptr[r0], nnz = W->rowptr[r1] - base;
  out->nrows = n;
  out->ncols = W->ncols;
  out->cstart = T->cstart;
  out->cend = T->cend;
  out->rowptr = malloc(sizeof(int64_t) * (size_t)(n + 1));
  out->gcol = malloc(sizeof(int64_t) * (size_t)(nnz + 1));
  out->values = malloc(sizeof(double) * (size_t)(nnz + 1));
  for (int64_t i = 0; i <= n; ++i) out->rowptr[i] = W->rowptr[r0 + i] - base;
  for (int64_t q = 0; q < nnz; ++q)
    out->gcol[q] = W->colidx[base + q], out->values[q] = W->values[base + q];
}

/* This rank's rows of the distributed smoothing against the one-process
 * rows (sliced): sizes, ranges, columns and value bits. */
static void compare_prolongators(const mispc_dist_prolongator *D, const mispc_dist_prolongator *R,
                                 const char *what) {
  int64_t bad = D->nrows != R->nrows || D->ncols != R->ncols || D->cstart != R->cstart ||
                D->cend != R->cend || D->Bc != NULL;
  for (int64_t i = 0; !bad && i < D->nrows; ++i) {
    bad += D->rowptr[i + 1] - D->rowptr[i] != R->rowptr[i + 1] - R->rowptr[i];
    for (int64_t q = 0; !bad && q < D->rowptr[i + 1] - D->rowptr[i]; ++q) {
      bad += D->gcol[D->rowptr[i] + q] != R->gcol[R->rowptr[i] + q];
      bad +=
          memcmp(&D->values[D->rowptr[i] + q], &R->values[R->rowptr[i] + q], sizeof(double)) != 0;
    }
  }
  CHECK_MSG(bad == 0, "%s: smoothed prolongator differs on rank %d of %d", what, rank_, nranks_);
  rows_checked_ += D->nrows;
}

/* A of spec (block size bs), aggregated on its strength graph, P tentative
 * with k vectors (rigid-body modes of made-up coordinates when k = 6) and
 * smoothed (omega): the distributed Ac against the one-process one. */
static void check_galerkin(mispc_context *ctx, const char *spec, int bs, int k) {
  mispc_csr A, G;
  CHECK_OK(ctx, mispc_load(ctx, spec, &A));
  CHECK_OK(ctx, mispc_strength_graph(ctx, &A, 0.0, bs, &G));
  const int64_t n = G.nrows;
  int64_t r0, r1;
  split(n, &r0, &r1);
  mispc_dist_csr D, DA, Ac;
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &G, r0, r1, &D));
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &A, r0 * bs, r1 * bs, &DA));
  mispc_aggregates a;
  CHECK_OK(ctx, mispc_aggregate(ctx, &G, NULL, &a));
  int32_t *lab = malloc(sizeof(int32_t) * (size_t)(r1 - r0 + 1));
  mispc_dist_agg_info info;
  CHECK_OK(ctx, mispc_dist_aggregate(ctx, &D, NULL, lab, &info));
  CHECK(info.naggs == a.naggs);
  double *B, *Bl;
  mpi_test_modes(ctx, n, k, r0, r1, &B, &Bl);
  mispc_csr Ps, Pm, R;
  mispc_dist_prolongator Pd, Pdm;
  CHECK_OK(ctx, mispc_tentative_prolongator(ctx, &a, bs, k, B, &Ps, NULL));
  CHECK_OK(ctx, mispc_dist_tentative_prolongator(ctx, &D, lab, info.naggs, bs, k, Bl, &Pd));
  char what[512];
  /* tentative */
  CHECK_OK(ctx, mispc_galerkin_product(ctx, &A, &Ps, &R));
  CHECK_OK(ctx, mispc_dist_galerkin_product(ctx, &DA, &Pd, &Ac));
  CHECK(Ac.rstart == Pd.cstart * k && Ac.rend == Pd.cend * k);
  snprintf(what, sizeof what, "%s (bs %d, k %d, tentative P)", spec, bs, k);
  compare_rows(&Ac, &R, what);
  if (rank_ == 0)
    printf("  %s on %d ranks: Ac %lld x %lld, %lld entries\n", what, nranks_, (long long)R.nrows,
           (long long)R.ncols, (long long)R.nnz);
  mispc_dist_csr_free(ctx, &Ac);
  mispc_csr_free(ctx, &R);
  /* smoothed: wider rows of P, reaching across ranks; the distributed
   * smoothing gives the one-process rows */
  CHECK_OK(ctx, mispc_smooth_prolongator(ctx, &A, &Ps, 0.6, &Pm));
  slice_prolongator(&Pm, r0 * bs, r1 * bs, &Pd, &Pdm);
  mispc_dist_prolongator Pds;
  CHECK_OK(ctx, mispc_dist_smooth_prolongator(ctx, &DA, &Pd, 0.6, &Pds));
  snprintf(what, sizeof what, "%s (bs %d, k %d, smoothing)", spec, bs, k);
  compare_prolongators(&Pds, &Pdm, what);
  mispc_dist_prolongator_free(&Pds);
  CHECK_OK(ctx, mispc_galerkin_product(ctx, &A, &Pm, &R));
  CHECK_OK(ctx, mispc_dist_galerkin_product(ctx, &DA, &Pdm, &Ac));
  snprintf(what, sizeof what, "%s (bs %d, k %d, smoothed P)", spec, bs, k);
  compare_rows(&Ac, &R, what);
  mispc_dist_csr_free(ctx, &Ac);
  mispc_csr_free(ctx, &R);
  mispc_dist_prolongator_free(&Pdm);
  mispc_csr_free(ctx, &Pm);
  mispc_dist_prolongator_free(&Pd);
  mispc_csr_free(ctx, &Ps);
  free(B), free(Bl), free(lab);
  mispc_aggregates_free(ctx, &a);
  mispc_dist_csr_free(ctx, &DA);
  mispc_dist_csr_free(ctx, &D);
  mispc_csr_free(ctx, &G);
  mispc_csr_free(ctx, &A);
}

static void test_identity(void) {
  mispc_context *ctx;
  mispc_context_create(&ctx);
  check_galerkin(ctx, "gen:laplace3d:12", 1, 1);
  check_galerkin(ctx, "gen:elasticity3d:5", 3, 6);
  check_galerkin(ctx, "gen:elasticity3d:5", 3, 1);
  check_galerkin(ctx, "gen:aniso2d:20:0.01:30", 1, 1);
  check_galerkin(ctx, MISPC_TEST_DATA "/bcsstk13.mtx", 1, 1);
  mispc_context_destroy(ctx);
}

/* The host threads split the rows of A P, the first ranks' sums, the coarse
 * rows and the smoothing (in parts of 128 rows or more): with 1 and 3
 * threads a rank, on matrices large enough for several parts, every result
 * still equals the one-process one bit for bit. */
static void test_threads(void) {
  static const int nts[] = {1, 3};
  for (size_t k = 0; k < sizeof nts / sizeof nts[0]; ++k) {
    mispc_context *ctx;
    mispc_context_create(&ctx);
    CHECK_OK(ctx, mispc_context_set_num_threads(ctx, nts[k]));
    if (rank_ == 0) printf("  %d threads a rank:\n", nts[k]);
    check_galerkin(ctx, "gen:laplace3d:24", 1, 1);
    check_galerkin(ctx, "gen:elasticity3d:9", 3, 6);
    mispc_context_destroy(ctx);
  }
}

/* Bad inputs on one rank fail on every rank with that rank's message. */
static void test_errors(void) {
  mispc_context *ctx;
  mispc_context_create(&ctx);
  mispc_csr A, G;
  CHECK_OK(ctx, mispc_load(ctx, "gen:laplace2d:12", &A));
  CHECK_OK(ctx, mispc_strength_graph(ctx, &A, 0.0, 1, &G));
  int64_t r0, r1;
  split(A.nrows, &r0, &r1);
  mispc_dist_csr D, Ac;
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &A, r0, r1, &D));
  mispc_dist_csr DG;
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &G, r0, r1, &DG));
  int32_t *lab = malloc(sizeof(int32_t) * (size_t)(r1 - r0 + 1));
  mispc_dist_agg_info info;
  CHECK_OK(ctx, mispc_dist_aggregate(ctx, &DG, NULL, lab, &info));
  mispc_dist_prolongator P;
  CHECK_OK(ctx, mispc_dist_tentative_prolongator(ctx, &DG, lab, info.naggs, 1, 1, NULL, &P));
  const int last = nranks_ - 1;
  char want[64];
  snprintf(want, sizeof want, "rank %d: ", last);
  /* a device matrix on the last rank (its memory space marked only: the
   * call must refuse it before reading it) */
  mispc_dist_csr Dd = D;
  if (rank_ == last) Dd.diag.mem = MISPC_MEM_DEVICE;
  CHECK_STATUS(ctx, mispc_dist_galerkin_product(ctx, &Dd, &P, &Ac), MISPC_ERR_UNSUPPORTED);
  CHECK_MSG(strstr(mispc_context_error(ctx), "mispc_dist_galerkin_product") != NULL &&
                (nranks_ == 1 || !strncmp(mispc_context_error(ctx), want, strlen(want))),
            "message '%s'", mispc_context_error(ctx));
  if (mispc_have_gpu()) { /* a real device copy, on every rank */
    mispc_dist_csr DD;
    CHECK_OK(ctx, mispc_dist_csr_copy(ctx, &D, MISPC_MEM_DEVICE, &DD));
    CHECK_STATUS(ctx, mispc_dist_galerkin_product(ctx, &DD, &P, &Ac), MISPC_ERR_UNSUPPORTED);
    mispc_dist_csr_free(ctx, &DD);
  }
  /* P with a row too few on the last rank */
  if (rank_ == last) P.nrows--;
  CHECK_STATUS(ctx, mispc_dist_galerkin_product(ctx, &D, &P, &Ac), MISPC_ERR_INVALID_ARG);
  CHECK(!strncmp(mispc_context_error(ctx), want, strlen(want)) || nranks_ == 1);
  if (rank_ == last) P.nrows++;
  /* a column out of range on the last rank with rows, then inconsistent
   * coarse sizes on the last rank (one rank: no multiple of the aggregates) */
  int has = P.nrows > 0 ? rank_ : -1, lastp = -1;
  MPI_Allreduce(&has, &lastp, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank_ == lastp) P.gcol[0] += P.ncols;
  CHECK_STATUS(ctx, mispc_dist_galerkin_product(ctx, &D, &P, &Ac), MISPC_ERR_INDEX_RANGE);
  CHECK(strstr(mispc_context_error(ctx), "outside its") != NULL);
  if (rank_ == lastp) P.gcol[0] -= P.ncols;
  if (rank_ == last) P.ncols++;
  CHECK_STATUS(ctx, mispc_dist_galerkin_product(ctx, &D, &P, &Ac), MISPC_ERR_INVALID_ARG);
  if (rank_ == last) P.ncols--;
  /* smoothing: omega not finite; a zero diagonal on the last rank with
   * rows, named on every rank */
  mispc_dist_prolongator Psm;
  CHECK_STATUS(ctx, mispc_dist_smooth_prolongator(ctx, &D, &P, NAN, &Psm), MISPC_ERR_INVALID_ARG);
  CHECK(strstr(mispc_context_error(ctx), "omega") != NULL);
  double *dz = NULL, keep = 0;
  for (int64_t q = 0; rank_ == lastp && q < D.diag.rowptr[1]; ++q)
    if (D.diag.colidx[q] == 0) dz = &D.diag.values[q];
  if (dz) keep = *dz, *dz = 0.0;
  CHECK_STATUS(ctx, mispc_dist_smooth_prolongator(ctx, &D, &P, 0.5, &Psm), MISPC_ERR_INVALID_ARG);
  CHECK_MSG(strstr(mispc_context_error(ctx), "diagonal entry of row") != NULL, "message '%s'",
            mispc_context_error(ctx));
  if (dz) *dz = keep;
  /* the right inputs still work */
  CHECK_OK(ctx, mispc_dist_smooth_prolongator(ctx, &D, &P, 0.5, &Psm));
  mispc_dist_prolongator_free(&Psm);
  CHECK_OK(ctx, mispc_dist_galerkin_product(ctx, &D, &P, &Ac));
  mispc_dist_csr_free(ctx, &Ac);
  mispc_dist_prolongator_free(&P);
  free(lab);
  mispc_dist_csr_free(ctx, &DG);
  mispc_dist_csr_free(ctx, &D);
  mispc_csr_free(ctx, &G);
  mispc_csr_free(ctx, &A);
  mispc_context_destroy(ctx);
}

int main(int argc, char **argv) {
  if (mpi_test_start(&argc, &argv, &rank_, &nranks_)) return 1;
  RUN_TEST(test_identity);
  RUN_TEST(test_threads);
  RUN_TEST(test_errors);
  int any = mpi_test_failed_anywhere();
  int64_t rows = 0;
  MPI_Allreduce(&rows_checked_, &rows, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0)
    printf("%d ranks: %lld coarse and smoothed-prolongator rows compared bit for bit, %d checks "
           "failed over all ranks\n",
           nranks_, (long long)rows, any);
  return mpi_test_finish(any);
}
