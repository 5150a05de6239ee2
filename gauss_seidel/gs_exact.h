/* Internal: exact cluster solves (mispc_gs_options.block_solve), block
 * Gauss-Seidel with the clusters as blocks. A cluster C's update is
 *   x_C = A_CC^{-1} (b_C - A_C,out x_out),
 * by an LU factor of A_CC without pivoting in the cluster's row order
 * (increasing row id, as the cluster's rows are swept one after another),
 * kept in envelope (skyline) storage: row k of a cluster stores L_kj and
 * U_jk for j from first_k (its leftmost entry inside the cluster) to k - 1,
 * then 1 / U_kk (a multiply, not a division, on the solves' critical
 * path). A pattern-symmetric A_CC fills only inside that envelope, so a
 * line ordered along itself costs 3 values a row (block relaxation: Saad,
 * Iterative Methods for Sparse Linear Systems, 2nd ed., ch. 4).
 *
 * These functions are the arithmetic every backend runs (the host a
 * cluster at a time; the GPU a thread a row for the outside sums and a
 * thread a cluster for the rest, or a warp by columns in the same order for
 * dense factors: gs_exact_cuda.cu), in files built without contraction (-ffp-contract=off, nvcc
 * --fmad=false), so host and GPU agree bit for bit. A cluster is the sweep positions q0 .. q1 - 1
 * of the handle's order; perm[q] is the row at q, iperm the inverse (row -> position) for rows <
 * nrows (columns at or past nrows are the distributed sweep's ghosts, always outside). */
#ifndef MISPC_GS_EXACT_H
#define MISPC_GS_EXACT_H

#include <stdint.h>

#include "mispc/hash.h" /* MISPC_HD */

/* The kind gs_diag_kind's callers report for a pivot of an exact cluster
 * factor that is zero, not finite or (require_positive) negative: the
 * cluster's block is singular or not positive definite. */
#define GS_EXACT_BAD_PIVOT 6
/* ... and for an entry of A_CC whose mirror entry is missing (A's pattern
 * is not symmetric inside the cluster). */
#define GS_EXACT_ASYMMETRIC 7

/* Pattern, pass 1: for each position q of the cluster, the count of row
 * perm[q]'s entries outside the cluster (ocount[q]), its envelope's first
 * local index (first[q]) and its envelope size 2 (k - first) + 1
 * (ecount[q]). */
MISPC_HD void gs_exact_count(const int64_t *rowptr, const int32_t *colidx, int64_t nrows,
                             const int32_t *row_cluster, const int32_t *perm, const int32_t *iperm,
                             int64_t q0, int64_t q1, int64_t *ocount, int32_t *first,
                             int64_t *ecount) {
  for (int64_t q = q0; q < q1; ++q) {
    const int32_t i = perm[q], c = row_cluster[i];
    const int64_t k = q - q0;
    int64_t f = k, out = 0;
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; ++p) {
      const int32_t j = colidx[p];
      if (j < nrows && row_cluster[j] == c) {
        const int64_t kj = iperm[j] - q0;
        f = kj < f ? kj : f;
      } else {
        ++out;
      }
    }
    ocount[q] = out;
    first[q] = (int32_t)f;
    ecount[q] = 2 * (k - f) + 1;
  }
}

/* Pattern, pass 2: the outside entries of each row in storage order, their
 * column (colmap[j] for j < nrows where colmap is given, else j) and their
 * offset in the row of A. */
MISPC_HD void gs_exact_fill(const int64_t *rowptr, const int32_t *colidx, int64_t nrows,
                            const int32_t *row_cluster, const int32_t *perm, const int32_t *colmap,
                            int64_t q0, int64_t q1, const int64_t *optr, int32_t *ocol,
                            int32_t *osrc) {
  for (int64_t q = q0; q < q1; ++q) {
    const int32_t i = perm[q], c = row_cluster[i];
    int64_t o = optr[q];
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; ++p) {
      const int32_t j = colidx[p];
      if (j < nrows && row_cluster[j] == c) continue;
      ocol[o] = colmap && j < nrows ? colmap[j] : j;
      osrc[o++] = (int32_t)(p - rowptr[i]);
    }
  }
}

/* Numeric, part 1: gathers the outside values and A_CC's into lu (the
 * factor's places). Returns 0, or q * 8 + GS_EXACT_ASYMMETRIC + 1 for the
 * first position q whose mirror entry is missing. */
MISPC_HD uint64_t gs_exact_fill_values(const int64_t *rowptr, const int32_t *colidx,
                                       const double *values, int64_t nrows,
                                       const int32_t *row_cluster, const int32_t *perm,
                                       const int32_t *iperm, int64_t q0, int64_t q1,
                                       const int32_t *first, const int64_t *eptr,
                                       const int64_t *optr, const int32_t *osrc, double *oval,
                                       double *lu) {
  for (int64_t e = eptr[q0]; e < eptr[q1]; ++e) lu[e] = 0.0;
  for (int64_t q = q0; q < q1; ++q) {
    const int32_t i = perm[q], c = row_cluster[i];
    const int64_t k = q - q0, base = rowptr[i];
    for (int64_t o = optr[q]; o < optr[q + 1]; ++o) oval[o] = values[base + osrc[o]];
    for (int64_t p = base; p < rowptr[i + 1]; ++p) {
      const int32_t j = colidx[p];
      if (j >= nrows || row_cluster[j] != c) continue;
      const int64_t kj = iperm[j] - q0;
      if (kj <= k) { /* L_kj (a_kj for now) or the diagonal */
        lu[eptr[q] + (kj < k ? kj - first[q] : 2 * (k - first[q]))] = values[p];
      } else { /* U_k,kj: column kj's part of row kj */
        const int64_t fj = first[q0 + kj];
        if (k < fj) return (uint64_t)(q0 + kj) * 8 + GS_EXACT_ASYMMETRIC + 1;
        lu[eptr[q0 + kj] + (kj - fj) + (k - fj)] = values[p];
      }
    }
  }
  return 0;
}

/* Whether pivot d (and its inverse) is not usable: the factor fails there. */
MISPC_HD int gs_exact_bad_pivot(double d, double dinv, int require_positive) {
  return d == 0 || d != d || dinv - dinv != 0 || (require_positive && d < 0);
}

/* Numeric, part 2: A_CC's LU in place in lu, Doolittle a row at a time
 * (row k of L, then column k of U, each entry's subtractions in increasing
 * m, the pivots kept inverted). Returns 0, or q * 8 + GS_EXACT_BAD_PIVOT + 1
 * for the first position q whose pivot is zero, not finite or (with
 * require_positive) negative. The GPU's warp version (gs_exact_cuda.cu,
 * exact_factor_staged) makes the same subtractions in the same order. */
MISPC_HD uint64_t gs_exact_lu_rows(int64_t q0, int64_t q1, const int32_t *first,
                                   const int64_t *eptr, double *lu, int require_positive) {
  for (int64_t k = 0; k < q1 - q0; ++k) { /* Doolittle, row k of L and column k of U */
    const int64_t fk = first[q0 + k];
    double *Lk = lu + eptr[q0 + k], *Uk = Lk + (k - fk);
    for (int64_t j = fk; j < k; ++j) {
      const int64_t fj = first[q0 + j], m0 = fk > fj ? fk : fj;
      const double *Lj = lu + eptr[q0 + j], *Uj = Lj + (j - fj);
      double l = Lk[j - fk], u = Uk[j - fk];
      for (int64_t m = m0; m < j; ++m) {
        const double pl = Lk[m - fk] * Uj[m - fj];
        l = l - pl;
        const double pu = Lj[m - fj] * Uk[m - fk];
        u = u - pu;
      }
      Lk[j - fk] = l * Uj[j - fj]; /* Uj[j - fj]: 1 / U_jj */
      Uk[j - fk] = u;
    }
    double d = Uk[k - fk];
    for (int64_t m = fk; m < k; ++m) {
      const double pd = Lk[m - fk] * Uk[m - fk];
      d = d - pd;
    }
    const double dinv = 1.0 / d;
    Uk[k - fk] = dinv; /* kept inverted: a multiply on the solves' critical path */
    if (gs_exact_bad_pivot(d, dinv, require_positive))
      return (uint64_t)(q0 + k) * 8 + GS_EXACT_BAD_PIVOT + 1;
  }
  return 0;
}

/* Numeric: gathers the outside values and factors A_CC in place in lu.
 * Returns 0 if the factor exists, else q * 8 + kind + 1 for the position q
 * where it failed, kind GS_EXACT_BAD_PIVOT or GS_EXACT_ASYMMETRIC. */
MISPC_HD uint64_t gs_exact_factor(const int64_t *rowptr, const int32_t *colidx,
                                  const double *values, int64_t nrows, const int32_t *row_cluster,
                                  const int32_t *perm, const int32_t *iperm, int64_t q0, int64_t q1,
                                  const int32_t *first, const int64_t *eptr, const int64_t *optr,
                                  const int32_t *osrc, double *oval, double *lu,
                                  int require_positive) {
  const uint64_t r = gs_exact_fill_values(rowptr, colidx, values, nrows, row_cluster, perm, iperm,
                                          q0, q1, first, eptr, optr, osrc, oval, lu);
  return r ? r : gs_exact_lu_rows(q0, q1, first, eptr, lu, require_positive);
}

/* A cluster's update, in two steps. The cluster's values live in xc[0 ..
 * q1 - q0) (the GPU: its slice of x in sweep order; the host: a buffer its
 * caller scatters to x after), the outside ones in x, at the columns
 * gs_exact_fill laid out.
 *
 * Step 1, row q: t = b - A_q,out x_out, one entry after another in storage
 * order (b read at bat[q] where bat is given: the host's rows in A's
 * numbering; else at q, the GPU's sweep order). The rows of a color are
 * independent here (no two clusters of a color touch), so the GPU gives a
 * thread a row. */
MISPC_HD double gs_exact_outside(int64_t q, const int32_t *bat, const int64_t *optr,
                                 const int32_t *ocol, const double *oval, const double *b,
                                 const double *x) {
  double t = b[bat ? bat[q] : q];
  for (int64_t o = optr[q]; o < optr[q + 1]; ++o) {
    const double prod = oval[o] * x[ocol[o]];
    t = t - prod;
  }
  return t;
}

/* Step 2, the cluster q0 .. q1 - 1 with xc holding step 1's t: L y = t
 * forward and U z = y backward (column by column), y and z kept in xc.
 * x_rows (or NULL): each new value also written at x_rows[perm[q]]. */
MISPC_HD void gs_exact_chain(int64_t q0, int64_t q1, const int32_t *perm, const int32_t *first,
                             const int64_t *eptr, const double *lu, double *xc, double *x_rows) {
  /* The neighbouring row's value (y_k-1 forward, row k-1's value after
   * column k backward) stays in a register, and what the next row reads
   * that the chain does not change (its place in lu, its first column, its
   * start value, the entries on the chain) is loaded one row ahead: a
   * line's chain then waits on its arithmetic, not on a memory round trip a
   * row (a GPU thread issues in order). The same values and operations, so
   * the same bits. */
  const int64_t s = q1 - q0;
  if (s <= 0) return;
  /* forward, row k: fk, ek (first, eptr), xk (step 1's t), lk (L_k,k-1) */
  int64_t fk = first[q0], ek = eptr[q0];
  double xk = xc[0], lk = 0.0, prev = 0.0;
  for (int64_t k = 0; k < s; ++k) {
    int64_t fn = 0, en = 0;
    double xn = 0.0, ln = 0.0;
    if (k + 1 < s) { /* row k + 1: not written by row k */
      fn = first[q0 + k + 1], en = eptr[q0 + k + 1];
      xn = xc[k + 1];
      if (fn <= k) ln = lu[en + (k - fn)];
    }
    const double *Lk = lu + ek;
    double t = xk;
    for (int64_t m = fk; m < k - 1; ++m) {
      const double prod = Lk[m - fk] * xc[m];
      t = t - prod;
    }
    if (fk < k) {
      const double prod = lk * prev;
      t = t - prod;
    }
    xc[k] = t;
    prev = t;
    fk = fn, ek = en, xk = xn, lk = ln;
  }
  /* backward, column k: fk, ek, xk (row k's value), ik (1 / U_kk), uk (U_k-1,k) */
  fk = first[q1 - 1], ek = eptr[q1 - 1];
  xk = xc[s - 1];
  double ik = lu[ek + 2 * (s - 1 - fk)], uk = fk < s - 1 ? lu[ek + 2 * (s - 1 - fk) - 1] : 0.0;
  for (int64_t k = s - 1; k >= 0; --k) {
    int64_t f1 = 0, e1 = 0;
    double x1 = 0.0, i1 = 0.0, u1 = 0.0;
    if (k >= 1) { /* row k - 1: column k changes it only through x1 below */
      f1 = first[q0 + k - 1], e1 = eptr[q0 + k - 1];
      x1 = xc[k - 1];
      i1 = lu[e1 + 2 * (k - 1 - f1)];
      if (f1 < k - 1) u1 = lu[e1 + 2 * (k - 1 - f1) - 1];
    }
    const double z = xk * ik;
    xc[k] = z;
    if (x_rows) x_rows[perm[q0 + k]] = z;
    const double *Uk = lu + ek + (k - fk);
    for (int64_t m = fk; m < k - 1; ++m) {
      const double prod = Uk[m - fk] * z;
      xc[m] = xc[m] - prod;
    }
    if (fk < k) { /* column k is the last to change row k - 1 */
      const double prod = uk * z;
      x1 = x1 - prod;
    }
    fk = f1, ek = e1, xk = x1, ik = i1, uk = u1;
  }
}

#endif
