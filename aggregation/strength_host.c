/* Strength graph on the host: node-level amalgamation of the strong
 * off-diagonal entries, symmetrized (mispc_strength_graph in aggregation.h).
 * D = the directed node pattern (distinct strong blocks per node row, found
 * with a marker array per thread), then S = D + D^T merged row by row: the
 * same sorted pattern as mispc_csr_from_coo(..., MISPC_COO_SYMMETRIC |
 * MISPC_COO_DROP_DIAG) on the strong entries, without sorting every entry. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "agg_backend.h"
#include "rows_host.h"

/* Merges two sorted duplicate-free lists into out (if not NULL); returns
 * the length of the union. */
static int64_t merge_rows(const int32_t *a, int64_t na, const int32_t *b, int64_t nb,
                          int32_t *out) {
  int64_t i = 0, j = 0, k = 0;
  while (i < na || j < nb) {
    int32_t x;
    if (j >= nb || (i < na && a[i] < b[j]))
      x = a[i++];
    else if (i >= na || b[j] < a[i])
      x = b[j++];
    else
      x = a[i++], ++j;
    if (out) out[k] = x;
    ++k;
  }
  return k;
}

mispc_status agg_strength_host(mispc_context *ctx, const mispc_csr *A, double theta, int bs,
                               mispc_csr *S) {
  const int64_t n = A->nrows, nn = n / bs;
  int nt = mispc_host_threads(ctx);
  const int keep_all = theta == 0 || !A->values; /* even stored zeros */
  const double *val = A->values;
  double *diag = NULL;
  int64_t *drp = NULL, *trp = NULL;
  int32_t *dci = NULL, *tci = NULL;
  mispc_csr R = {nn, nn, 0, NULL, NULL, NULL, MISPC_MEM_HOST, 1};
  int failed = 0;
  drp = (int64_t *)calloc((size_t)nn + 2, sizeof(int64_t));
  trp = (int64_t *)calloc((size_t)nn + 2, sizeof(int64_t));
  if (!keep_all) diag = (double *)malloc(sizeof(double) * (size_t)(n + 1));
  if (!drp || !trp || (!keep_all && !diag) ||
      mispc_mem_alloc_n(ctx, MISPC_MEM_HOST, nn + 1, sizeof(int64_t), (void **)&R.rowptr,
                        "strength row offsets"))
    failed = 1;
  if (!failed && !keep_all) {
    /* a_ii: stored diagonal entries summed (duplicates add up as everywhere
     * else in mispc); 0 when the row stores none */
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t i = 0; i < n; ++i) diag[i] = agg_diag_sum(A, i);
  }
  int mt = nt; /* threads holding a marker array of nn entries */
  if (nn > 0 && (int64_t)mt * nn > MARK_BUDGET)
    mt = MARK_BUDGET / nn < 1 ? 1 : (int)(MARK_BUDGET / nn);
  /* D: node I -> the distinct J != I with a strong entry in block (I, J).
   * Pass 0 counts, pass 1 writes and sorts. */
  for (int pass = 0; pass < 2 && !failed; ++pass) {
#pragma omp parallel reduction(| : failed) num_threads(mt)
    {
      int32_t *mark = (int32_t *)malloc(sizeof(int32_t) * (size_t)(nn + 1));
      if (!mark) failed = 1;
      for (int64_t J = 0; mark && J < nn; ++J) mark[J] = -1;
#pragma omp for schedule(dynamic, 512)
      for (int64_t I = 0; I < nn; ++I) {
        if (!mark) continue;
        int32_t *row = pass ? dci + drp[I] : NULL;
        int64_t cnt = 0;
        for (int64_t i = I * bs; i < (I + 1) * bs; ++i)
          for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
            const int32_t j = A->colidx[p], J = j / bs;
            if (J == I || mark[J] == I) continue;
            if (!keep_all && !(fabs(val[p]) > theta * sqrt(fabs(diag[i] * diag[j])))) continue;
            mark[J] = (int32_t)I;
            if (row) row[cnt] = J;
            ++cnt;
          }
        if (row)
          mispc_sort_i32(row, cnt);
        else
          drp[I + 1] = cnt;
      }
      free(mark);
    }
    if (pass == 0 && !failed) {
      for (int64_t I = 0; I < nn; ++I) drp[I + 1] += drp[I];
      dci = (int32_t *)malloc(sizeof(int32_t) * (size_t)(drp[nn] + 1));
      if (!dci) failed = 1;
    }
  }
  /* T = D^T: filled in increasing row order, so its rows come out sorted. */
  if (!failed) {
    const int64_t m = drp[nn];
    tci = (int32_t *)malloc(sizeof(int32_t) * (size_t)(m + 1));
    if (!tci) failed = 1;
    for (int64_t p = 0; !failed && p < m; ++p) trp[dci[p] + 2]++;
    for (int64_t J = 0; !failed && J < nn; ++J) trp[J + 2] += trp[J + 1];
    for (int64_t I = 0; !failed && I < nn; ++I)
      for (int64_t p = drp[I]; p < drp[I + 1]; ++p) tci[trp[dci[p] + 1]++] = (int32_t)I;
  }
  /* S = D + D^T, row by row. */
  if (!failed) {
    R.rowptr[0] = 0;
#pragma omp parallel for schedule(dynamic, 1024) num_threads(nt)
    for (int64_t I = 0; I < nn; ++I)
      R.rowptr[I + 1] =
          merge_rows(dci + drp[I], drp[I + 1] - drp[I], tci + trp[I], trp[I + 1] - trp[I], NULL);
    for (int64_t I = 0; I < nn; ++I) R.rowptr[I + 1] += R.rowptr[I];
    R.nnz = R.rowptr[nn];
    if (mispc_mem_alloc_n(ctx, MISPC_MEM_HOST, R.nnz, sizeof(int32_t), (void **)&R.colidx,
                          "strength columns"))
      failed = 1;
  }
  if (!failed) {
#pragma omp parallel for schedule(dynamic, 1024) num_threads(nt)
    for (int64_t I = 0; I < nn; ++I)
      merge_rows(dci + drp[I], drp[I + 1] - drp[I], tci + trp[I], trp[I + 1] - trp[I],
                 R.colidx + R.rowptr[I]);
  }
  free(diag);
  free(drp);
  free(trp);
  free(dci);
  free(tci);
  if (failed) {
    mispc_csr_free(ctx, &R);
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory building the strength graph");
  }
  *S = R;
  return MISPC_SUCCESS;
}
