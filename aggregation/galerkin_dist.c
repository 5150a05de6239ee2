/* Galerkin coarse operator Ac = P^T (A P) of a distributed matrix (host),
 * row for row and bit for bit the one-process mispc_galerkin_product of the
 * whole A and P. That call sums every entry of A P over A's row in column
 * order (then P's row in storage order), and every entry of Ac over the
 * fine rows i of P^T's row in increasing i (then A P's row in column
 * order), starting from 0.0 and rounding each product (-ffp-contract=off).
 * Here each rank forms the A P rows of its fine rows, the diagonal and
 * off-diagonal blocks merged in global column order, with the P rows of its
 * ghost columns routed from their owners; then every product P(i, I) *
 * (A P)(i, J) travels to the rank of coarse row I. Ranks send in increasing
 * i and arrive in rank order (ranges tile in rank order), so the owner adds
 * them in the one-process order without sorting them. The row-independent
 * loops (A P, the first ranks' sums, the coarse rows, the smoothing) run on
 * the host threads, each row computed whole by one thread and the threads'
 * outputs joined in row order: the same bits for any thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agg_dist.h"
#include "parts_host.h"

static const char *const galerkin_who = "mispc_dist_galerkin_product";

/* The caller's output zeroed, or the error of a NULL one. */
static mispc_status zero_output(mispc_context *ctx, void *out, size_t bytes, const char *who) {
  if (!out) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: output is NULL", who);
  memset(out, 0, bytes);
  return MISPC_SUCCESS;
}

/* Per-rank checks: a built host matrix with values and sorted blocks, a
 * prolongator of A's local rows whose columns lie in [0, ncols) without a
 * column repeated next to itself (mispc_csr_multiply refuses those). */
static mispc_status check_local(mispc_context *ctx, const mispc_dist_csr *A,
                                const mispc_dist_prolongator *P, const char *who) {
  const int64_t nloc = A->rend - A->rstart;
  if (!A->halo || !A->ranges)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: A not built", who);
  if (A->diag.mem != MISPC_MEM_HOST || A->offd.mem != MISPC_MEM_HOST)
    return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED,
                        "%s: host matrices only (A is in device memory)", who);
  if ((A->diag.nnz > 0 && !A->diag.values) || (A->offd.nnz > 0 && !A->offd.values))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: A has no values", who);
  if (!P || P->nrows != nloc || P->ncols < 0 || P->ncols > INT32_MAX || !P->rowptr ||
      P->cstart < 0 || P->cend < P->cstart)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "%s: P has %lld rows, A %lld local rows (or P is not built)", who,
                        P ? (long long)P->nrows : -1ll, (long long)nloc);
  if (P->rowptr[0] != 0 || (P->rowptr[nloc] > 0 && (!P->gcol || !P->values)))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: P is not a CSR matrix", who);
  for (int64_t i = 0; i < nloc; ++i) {
    if (P->rowptr[i + 1] < P->rowptr[i])
      return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: P's row pointers decrease at row %lld",
                          who, (long long)(A->rstart + i));
    for (int64_t q = P->rowptr[i]; q < P->rowptr[i + 1]; ++q) {
      if (P->gcol[q] < 0 || P->gcol[q] >= P->ncols)
        return mispc_seterr(ctx, MISPC_ERR_INDEX_RANGE,
                            "%s: P(%lld, %lld) outside its %lld columns", who,
                            (long long)(A->rstart + i), (long long)P->gcol[q], (long long)P->ncols);
      if (q > P->rowptr[i] && P->gcol[q] == P->gcol[q - 1])
        return mispc_seterr(ctx, MISPC_ERR_DUPLICATE, "%s: row %lld of P repeats column %lld", who,
                            (long long)(A->rstart + i), (long long)P->gcol[q]);
    }
    /* merged in global column order below: each block's row must be in it */
    const mispc_csr *b[2] = {&A->diag, &A->offd};
    for (int k = 0; k < 2; ++k)
      for (int64_t q = b[k]->rowptr[i] + 1; q < b[k]->rowptr[i + 1]; ++q)
        if (b[k]->colidx[q] < b[k]->colidx[q - 1])
          return mispc_seterr(ctx, MISPC_ERR_UNSORTED, "%s: row %lld of A is not sorted", who,
                              (long long)(A->rstart + i));
  }
  return MISPC_SUCCESS;
}

/* The coarse rows of every rank (P + 1 offsets into *ranges): the
 * prolongator's aggregates [cstart, cend) times its k = ncols / naggs
 * columns an aggregate, as mispc_dist_tentative_prolongator numbers them.
 * Collective; the same ncols everywhere and ranges that tile [0, ncols). */
static mispc_status coarse_ranges(mispc_context *ctx, MPI_Comm comm,
                                  const mispc_dist_prolongator *P, int np, int64_t **ranges) {
  const char *const who = galerkin_who;
  int64_t mine[3] = {P->ncols, -P->ncols, P->cend - P->cstart}, mx[2] = {0, 0}, naggs = 0;
  int64_t *all = (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * np));
  *ranges = (int64_t *)malloc(sizeof(int64_t) * (size_t)(np + 1));
  mispc_status s = all && *ranges ? MISPC_SUCCESS
                                  : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  s = mispc_dist_agree(ctx, comm, s);
  if (!s &&
      (MPI_Allreduce(mine, mx, 2, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS ||
       MPI_Allreduce(mine + 2, &naggs, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
       MPI_Allgather(&P->cstart, 1, MPI_INT64_T, all, 1, MPI_INT64_T, comm) != MPI_SUCCESS ||
       MPI_Allgather(&P->cend, 1, MPI_INT64_T, all + np, 1, MPI_INT64_T, comm) != MPI_SUCCESS))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: MPI reduction failed", who);
  const int64_t nc = P->ncols;
  if (!s && mx[0] != -mx[1])
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: inconsistent coarse sizes (%lld and %lld)",
                     who, (long long)-mx[1], (long long)mx[0]);
  else if (!s && (naggs == 0 ? nc != 0 : nc % naggs != 0))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "%s: %lld coarse columns are no multiple of the %lld aggregates of P's "
                     "[cstart, cend)",
                     who, (long long)nc, (long long)naggs);
  const int64_t k = naggs ? nc / naggs : 0;
  for (int p = 0; !s && p < np; ++p) {
    if (all[p] != (p ? all[np + p - 1] : 0))
      s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                       "%s: P's aggregate ranges [cstart, cend) do not tile in rank order (rank "
                       "%d starts at %lld)",
                       who, p, (long long)all[p]);
    (*ranges)[p] = all[p] * k;
  }
  if (!s) (*ranges)[np] = nc;
  free(all);
  s = mispc_dist_agree(ctx, comm, s);
  if (s) free(*ranges), *ranges = NULL;
  return s;
}

/* P's rows for A's columns, columns as local ids into the sorted list cmap
 * of the coarse columns they hold: rows 0 .. nloc-1 are this rank's, nloc +
 * j the row of ghost j (garray[j]), routed from its owner along the halo's
 * send lists. */
typedef struct prow_table {
  int64_t *ptr; /* nloc + nghost + 1 */
  int32_t *col; /* local coarse ids */
  double *val;
  int32_t *cmap; /* local coarse id -> global (sorted) */
  int64_t ncmap;
} prow_table;

static void prow_table_free(prow_table *t) {
  free(t->ptr), free(t->col), free(t->val), free(t->cmap);
  memset(t, 0, sizeof *t);
}

static mispc_status gather_p_rows(mispc_context *ctx, const mispc_dist_csr *A,
                                  const mispc_dist_prolongator *P, const char *who, prow_table *t) {
  const mispc_halo *h = A->halo;
  const int64_t nloc = A->rend - A->rstart, ng = A->nghost;
  int64_t nrec = 0;
  for (int64_t e = 0; e < h->nsend; ++e) nrec += P->rowptr[h->sidx[e] + 1] - P->rowptr[h->sidx[e]];
  /* records (global row, global column, value bits), to each destination
   * in send-list order and each row in P's order */
  int64_t *rec = (int64_t *)mispc_host_alloc_n(ctx, 3 * nrec + 1, sizeof(int64_t), "P rows sent");
  int *dest = (int *)mispc_host_alloc_n(ctx, nrec + 1, sizeof(int), "P rows sent");
  mispc_status s = rec && dest ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
  s = mispc_dist_agree(ctx, A->comm, s);
  int64_t m = 0;
  for (int d = 0; !s && d < h->ndst; ++d)
    for (int64_t e = h->sdispl[d]; e < h->sdispl[d + 1]; ++e) {
      const int64_t v = h->sidx[e];
      for (int64_t q = P->rowptr[v]; q < P->rowptr[v + 1]; ++q, ++m) {
        rec[3 * m] = A->rstart + v;
        rec[3 * m + 1] = P->gcol[q];
        memcpy(&rec[3 * m + 2], &P->values[q], sizeof(double));
        dest[m] = h->dst[d];
      }
    }
  int64_t *got = NULL, ngot = 0;
  if (!s) s = mispc_dist_route(ctx, A->comm, 3, nrec, rec, dest, &got, &ngot);
  free(rec);
  free(dest);
  if (s) return s;
  const int64_t nown = P->rowptr[nloc], ntot = nown + ngot;
  int64_t *gidx = (int64_t *)mispc_host_alloc_n(ctx, ngot + 1, sizeof(int64_t), "ghost P rows");
  int32_t *cols = (int32_t *)mispc_host_alloc_n(ctx, ntot + 1, sizeof(int32_t), "P columns");
  t->ptr = (int64_t *)calloc((size_t)(nloc + ng + 2), sizeof(int64_t));
  t->col = (int32_t *)mispc_host_alloc_n(ctx, ntot + 1, sizeof(int32_t), "P rows");
  t->val = (double *)mispc_host_alloc_n(ctx, ntot + 1, sizeof(double), "P rows");
  s = gidx && cols && t->ptr && t->col && t->val
          ? MISPC_SUCCESS
          : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  /* a ghost's records come from its owner only, consecutive and in its row
   * order: a stable counting sort by ghost keeps each row as sent */
  for (int64_t r = 0; !s && r < ngot; ++r) {
    gidx[r] = mispc_lower_bound_i64(A->garray, 0, ng, got[3 * r]);
    if (gidx[r] >= ng || A->garray[gidx[r]] != got[3 * r])
      s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "%s: P row %lld arrived but is no ghost", who,
                       (long long)got[3 * r]);
    else
      t->ptr[nloc + gidx[r] + 1]++;
  }
  for (int64_t i = 0; !s && i < nloc; ++i) t->ptr[i + 1] = P->rowptr[i + 1] - P->rowptr[i];
  for (int64_t i = 0; !s && i < nloc + ng; ++i) t->ptr[i + 1] += t->ptr[i];
  for (int64_t q = 0; !s && q < nown; ++q) cols[q] = (int32_t)P->gcol[q], t->val[q] = P->values[q];
  for (int64_t r = 0; !s && r < ngot; ++r) {
    const int64_t at = t->ptr[nloc + gidx[r]]++;
    cols[at] = (int32_t)got[3 * r + 1];
    memcpy(&t->val[at], &got[3 * r + 2], sizeof(double));
  }
  for (int64_t j = nloc + ng; !s && j > nloc; --j) t->ptr[j] = t->ptr[j - 1]; /* undo the fill */
  if (!s) t->ptr[nloc] = nown;
  free(got);
  free(gidx);
  /* local coarse ids in increasing global id (so their order is the global
   * one), by a marker over the span of the columns held */
  int32_t lo = INT32_MAX, hi = -1;
  for (int64_t q = 0; !s && q < ntot; ++q) {
    if (cols[q] < lo) lo = cols[q];
    if (cols[q] > hi) hi = cols[q];
  }
  const int64_t span = hi >= lo ? (int64_t)hi - lo + 1 : 0;
  int32_t *local = s ? NULL : (int32_t *)calloc((size_t)span + 1, sizeof(int32_t));
  t->cmap = s ? NULL : (int32_t *)mispc_host_alloc_n(ctx, ntot + 1, sizeof(int32_t), "P columns");
  if (!s && (!t->cmap || !local))
    s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  if (!s) {
    for (int64_t q = 0; q < ntot; ++q) local[cols[q] - lo] = 1;
    int64_t u = 0;
    for (int64_t j = 0; j < span; ++j)
      if (local[j]) t->cmap[u] = (int32_t)(lo + j), local[j] = (int32_t)u++;
    t->ncmap = u;
    for (int64_t q = 0; q < ntot; ++q) t->col[q] = local[cols[q] - lo];
  }
  free(local);
  free(cols);
  s = mispc_dist_agree(ctx, A->comm, s);
  if (s) prow_table_free(t);
  return s;
}

/* Row i of A as (P-table row, value) pairs in global column order: the
 * off-diagonal entries left of the diagonal block, the block, the rest. */
static int64_t merged_row(const mispc_dist_csr *A, int64_t i, int64_t *row, double *val) {
  const int64_t nloc = A->rend - A->rstart;
  const mispc_csr *D = &A->diag, *O = &A->offd;
  int64_t n = 0, q = O->rowptr[i];
  for (; q < O->rowptr[i + 1] && A->garray[O->colidx[q]] < A->rstart; ++q)
    row[n] = nloc + O->colidx[q], val[n++] = O->values[q];
  for (int64_t p = D->rowptr[i]; p < D->rowptr[i + 1]; ++p)
    row[n] = D->colidx[p], val[n++] = D->values[p];
  for (; q < O->rowptr[i + 1]; ++q) row[n] = nloc + O->colidx[q], val[n++] = O->values[q];
  return n;
}

/* Threads: the loops below whose items append entries (A P rows, product
 * records, coarse rows) run in parts of consecutive items, one a thread,
 * each part into arrays of its own; the parts are joined in item order.
 * Every item is computed as by one thread, so the result does not depend
 * on the thread count. A part holds items [i0, i1) and their n entries in
 * two arrays a and b (capacity cap), starting at off in the joined ones. */
typedef struct out_part {
  int64_t i0, i1, n, cap, off;
  void *a, *b;
} out_part;

/* np parts tiling [0, n) of about equal weight (part_first_row); NULL
 * when out of memory. */
static out_part *split_parts(int np, int64_t n, const int64_t *w0, const int64_t *w1) {
  out_part *p = (out_part *)calloc((size_t)np, sizeof *p);
  if (!p) return NULL;
  for (int k = 0; k < np; ++k) {
    p[k].i0 = part_first_row(w0, w1, n, k, np);
    p[k].i1 = part_first_row(w0, w1, n, k + 1, np);
  }
  return p;
}

static void free_parts(int np, out_part *p) {
  for (int k = 0; p && k < np; ++k) free(p[k].a), free(p[k].b);
  free(p);
}

/* The parts' entries in part order into *a and *b (ea and eb bytes an
 * entry; the one part's arrays themselves), *n of them; ptr, if given, holds
 * ptr[i + 1] of each item i relative to its part and is shifted to the
 * joined arrays. Frees the parts; nonzero when out of memory. */
static int join_parts(int np, out_part *p, size_t ea, size_t eb, int64_t *ptr, void **a, void **b,
                      int64_t *n) {
  int64_t tot = 0;
  for (int k = 0; k < np; ++k) p[k].off = tot, tot += p[k].n;
  *n = tot;
  if (np == 1) {
    *a = p[0].a, *b = p[0].b;
    p[0].a = p[0].b = NULL;
    free_parts(np, p);
    return 0;
  }
  *a = malloc(ea * (size_t)(tot + 1));
  *b = malloc(eb * (size_t)(tot + 1));
  if (!*a || !*b) {
    free(*a), free(*b);
    *a = *b = NULL;
    free_parts(np, p);
    return 1;
  }
#pragma omp parallel for schedule(static, 1) num_threads(np)
  for (int k = 0; k < np; ++k) {
    if (p[k].n) {
      memcpy((char *)*a + ea * (size_t)p[k].off, p[k].a, ea * (size_t)p[k].n);
      memcpy((char *)*b + eb * (size_t)p[k].off, p[k].b, eb * (size_t)p[k].n);
    }
    for (int64_t i = p[k].i0; ptr && i < p[k].i1; ++i) ptr[i + 1] += p[k].off;
    free(p[k].a), free(p[k].b);
    p[k].a = p[k].b = NULL;
  }
  free_parts(np, p);
  return 0;
}

/* Rows [i0, i1) of A P into the part's arrays (p->a columns, p->b values;
 * ptr[i + 1] relative to the part), as mispc_csr_multiply's host loop: a
 * dense accumulator over the row's pattern, each entry 0.0 plus its
 * products in the merged row's order (the first product of an entry sets
 * it to 0.0 and adds), in arrays that grow as needed. Nonzero when out of
 * memory. */
static int ap_rows(const mispc_dist_csr *A, const prow_table *t, int64_t wmax, out_part *pt,
                   int64_t *ptr) {
  int64_t *row = (int64_t *)malloc(sizeof(int64_t) * (size_t)wmax);
  double *val = (double *)malloc(sizeof(double) * (size_t)wmax);
  double *acc = (double *)malloc(sizeof(double) * (size_t)(t->ncmap + 1));
  int64_t *mark = (int64_t *)malloc(sizeof(int64_t) * (size_t)(t->ncmap + 1));
  pt->cap = 2 * (t->ptr[pt->i1] - t->ptr[pt->i0] + 1); /* a first guess: twice the rows of P */
  pt->a = malloc(sizeof(int32_t) * (size_t)pt->cap);
  pt->b = malloc(sizeof(double) * (size_t)pt->cap);
  int failed = !(row && val && acc && mark && pt->a && pt->b);
  for (int64_t c = 0; !failed && c < t->ncmap; ++c) mark[c] = -1;
  for (int64_t i = pt->i0; !failed && i < pt->i1; ++i) {
    const int64_t n = merged_row(A, i, row, val), used = pt->n;
    int64_t bound = 0; /* at most this many entries in row i */
    for (int64_t e = 0; e < n; ++e) bound += t->ptr[row[e] + 1] - t->ptr[row[e]];
    if (mispc_grow_pair(&pt->a, sizeof(int32_t), &pt->b, sizeof(double), used + bound, &pt->cap)) {
      failed = 1;
      break;
    }
    int32_t *cols = (int32_t *)pt->a + used;
    double *vals = (double *)pt->b + used;
    int64_t m = 0;
    for (int64_t e = 0; e < n; ++e)
      for (int64_t q = t->ptr[row[e]]; q < t->ptr[row[e] + 1]; ++q) {
        const int32_t c = t->col[q];
        if (mark[c] != i) mark[c] = i, acc[c] = 0.0, cols[m++] = c;
        acc[c] += val[e] * t->val[q];
      }
    mispc_sort_i32(cols, m);
    for (int64_t p = 0; p < m; ++p) vals[p] = acc[cols[p]];
    pt->n = used + m;
    ptr[i + 1] = pt->n;
  }
  free(row), free(val), free(acc), free(mark);
  return failed;
}

/* A P for this rank's rows (local coarse ids, sorted rows), each row by
 * ap_rows, the rows split among the host threads by A's entries. */
static mispc_status multiply_ap(mispc_context *ctx, const mispc_dist_csr *A, const prow_table *t,
                                const char *who, int64_t **apptr, int32_t **apcol, double **apval) {
  const int64_t nloc = A->rend - A->rstart;
  int64_t wmax = 1, nnz = 0;
  for (int64_t i = 0; i < nloc; ++i) {
    int64_t len =
        A->diag.rowptr[i + 1] - A->diag.rowptr[i] + A->offd.rowptr[i + 1] - A->offd.rowptr[i];
    if (len > wmax) wmax = len;
  }
  const int np = count_parts(ctx, nloc, t->ncmap, 16);
  out_part *pt = split_parts(np, nloc, A->diag.rowptr, A->offd.rowptr);
  *apptr = (int64_t *)calloc((size_t)nloc + 1, sizeof(int64_t));
  *apcol = NULL, *apval = NULL;
  int failed = !pt || !*apptr;
  if (!failed) {
#pragma omp parallel for schedule(static, 1) num_threads(np) reduction(| : failed)
    for (int k = 0; k < np; ++k) failed |= ap_rows(A, t, wmax, &pt[k], *apptr);
  }
  if (failed)
    free_parts(np, pt);
  else
    failed = join_parts(np, pt, sizeof(int32_t), sizeof(double), *apptr, (void **)apcol,
                        (void **)apval, &nnz);
  if (failed) {
    free(*apptr), free(*apcol), free(*apval);
    *apptr = NULL, *apcol = NULL, *apval = NULL;
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  }
  return MISPC_SUCCESS;
}

/* Product records in the order they are summed: those of the ranks before
 * this one (got[0 .. nlow)), this rank's own (mine), then the others. */
typedef struct products {
  const int64_t *got, *mine;
  int64_t nlow, ngot, nmine;
} products;

static const int64_t *product_at(const products *p, int64_t r) {
  if (r < p->nlow) return p->got + 3 * r;
  if (r < p->nlow + p->nmine) return p->mine + 3 * (r - p->nlow);
  return p->got + 3 * (r - p->nmine);
}

/* Coarse rows [i0, i1) of a part (local ids c; p->a global columns, p->b
 * values, rowptr[c + 1] relative to the part): the products of row c are
 * (bj, bv)[first[c] .. first[c + 1]) in the order they are summed (columns
 * less lo); each entry is 0.0 plus its products in that order, in a dense
 * accumulator over [lo, lo + span), and the row's columns are sorted.
 * Nonzero when out of memory. */
static int coarse_rows(const int32_t *bj, const double *bv, const int64_t *first, int64_t lo,
                       int64_t span, out_part *pt, int64_t *rowptr) {
  int64_t *mark = (int64_t *)malloc(sizeof(int64_t) * (size_t)(span + 1));
  double *acc = (double *)malloc(sizeof(double) * (size_t)(span + 1));
  int32_t *pat = (int32_t *)malloc(sizeof(int32_t) * (size_t)(span + 1));
  /* a row has at most as many entries as products */
  pt->cap = first[pt->i1] - first[pt->i0] + 1;
  pt->a = malloc(sizeof(int64_t) * (size_t)pt->cap);
  pt->b = malloc(sizeof(double) * (size_t)pt->cap);
  const int failed = !(mark && acc && pat && pt->a && pt->b);
  int64_t *gcol = (int64_t *)pt->a;
  double *values = (double *)pt->b;
  for (int64_t j = 0; !failed && j < span; ++j) mark[j] = -1;
  int64_t nnz = 0;
  for (int64_t c = pt->i0; !failed && c < pt->i1; ++c) {
    int64_t m = 0;
    for (int64_t r = first[c]; r < first[c + 1]; ++r) {
      const int32_t j = bj[r];
      if (mark[j] != c) {
        mark[j] = c, pat[m++] = j;
        acc[j] = 0.0 + bv[r]; /* the entry's first product: 0.0 + x */
      } else {
        acc[j] += bv[r];
      }
    }
    mispc_sort_i32(pat, m);
    for (int64_t q = 0; q < m; ++q) gcol[nnz + q] = lo + pat[q], values[nnz + q] = acc[pat[q]];
    nnz += m;
    rowptr[c + 1] = nnz;
  }
  pt->n = nnz;
  free(mark), free(acc), free(pat);
  return failed;
}

/* Coarse rows [c0, c1) from the products (row, column, value bits) in the
 * order of p, which is the order they are summed in: the products are
 * moved by row (a stable counting sort, the column less lo and the value
 * of each in arrays of their own, so that a row reads its products in
 * sequence), then each row's pattern is its columns sorted and each entry
 * 0.0 plus its products, in a dense accumulator over the span of the
 * columns received (at most the coarse columns, as mispc_csr_multiply's);
 * the rows split among the host threads by their products (coarse_rows). */
static mispc_status sum_coarse_rows(mispc_context *ctx, MPI_Comm comm, int64_t nc, int64_t c0,
                                    int64_t c1, const products *pr, mispc_dist_csr *Ac) {
  const char *const who = galerkin_who;
  const int64_t nr = c1 - c0, ngot = pr->ngot + pr->nmine;
  int64_t lo = nc, hi = -1;
  for (int64_t r = 0; r < ngot; ++r) {
    const int64_t j = product_at(pr, r)[1];
    if (j < lo) lo = j;
    if (j > hi) hi = j;
  }
  const int64_t span = hi >= lo ? hi - lo + 1 : 0;
  int64_t *first = (int64_t *)calloc((size_t)nr + 2, sizeof(int64_t));
  int32_t *bj = (int32_t *)mispc_host_alloc_n(ctx, ngot + 1, sizeof(int32_t), "coarse rows");
  double *bv = (double *)mispc_host_alloc_n(ctx, ngot + 1, sizeof(double), "coarse rows");
  int64_t *rowptr = (int64_t *)calloc((size_t)nr + 1, sizeof(int64_t));
  int64_t *gcol = NULL, nnz = 0;
  double *values = NULL;
  mispc_status s = first && bj && bv && rowptr
                       ? MISPC_SUCCESS
                       : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  for (int64_t r = 0; !s && r < ngot; ++r) {
    const int64_t I = product_at(pr, r)[0];
    if (I < c0 || I >= c1) {
      s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "%s: coarse row %lld arrived outside [%lld, %lld)",
                       who, (long long)I, (long long)c0, (long long)c1);
      break;
    }
    first[I - c0 + 1]++;
  }
  for (int64_t c = 0; !s && c < nr; ++c) first[c + 1] += first[c];
  for (int64_t r = 0; !s && r < ngot; ++r) {
    const int64_t *g = product_at(pr, r);
    const int64_t at = first[g[0] - c0]++;
    bj[at] = (int32_t)(g[1] - lo);
    memcpy(&bv[at], &g[2], sizeof(double));
  }
  for (int64_t c = nr; !s && c > 0; --c) first[c] = first[c - 1];
  if (!s) first[0] = 0;
  const int np = s ? 1 : count_parts(ctx, nr, span, 20);
  out_part *pt = s ? NULL : split_parts(np, nr, first, NULL);
  int failed = !s && !pt;
  if (!s && !failed) {
#pragma omp parallel for schedule(static, 1) num_threads(np) reduction(| : failed)
    for (int k = 0; k < np; ++k) failed |= coarse_rows(bj, bv, first, lo, span, &pt[k], rowptr);
  }
  if (!s && !failed)
    failed = join_parts(np, pt, sizeof(int64_t), sizeof(double), rowptr, (void **)&gcol,
                        (void **)&values, &nnz);
  else
    free_parts(np, pt);
  if (!s && failed) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) s = mispc_dist_csr_from_global(ctx, comm, nc, c0, c1, rowptr, gcol, values, Ac);
  free(first), free(bj), free(bv), free(rowptr), free(gcol), free(values);
  return s;
}

/* first[c] for the local coarse ids c of this rank's P rows: whether this
 * rank is the lowest one whose P has an entry in column cmap[c]. Each rank
 * asks the column's owner, which answers with the lowest rank that asked
 * (arrivals come in rank order). */
static mispc_status first_columns(mispc_context *ctx, const mispc_dist_csr *A, const prow_table *t,
                                  const int64_t *ranges, int np, int rank, uint8_t **first) {
  const int64_t nloc = A->rend - A->rstart;
  uint8_t *used = (uint8_t *)calloc((size_t)t->ncmap + 1, 1);
  *first = (uint8_t *)calloc((size_t)t->ncmap + 1, 1);
  int64_t nq = 0;
  mispc_status s = used && *first ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
  for (int64_t q = 0; !s && q < t->ptr[nloc]; ++q)
    if (!used[t->col[q]]) used[t->col[q]] = 1, ++nq;
  int64_t *ask = s ? NULL : (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * nq + 1));
  int *dest = s ? NULL : (int *)malloc(sizeof(int) * (size_t)(nq + 1));
  if (!s && (!ask || !dest)) s = MISPC_ERR_ALLOC;
  int64_t m = 0;
  for (int64_t c = 0; !s && c < t->ncmap; ++c)
    if (used[c]) {
      ask[2 * m] = t->cmap[c], ask[2 * m + 1] = rank;
      dest[m++] = mispc_dist_owner(ranges, np, t->cmap[c]);
    }
  s = mispc_dist_agree(
      ctx, A->comm, s ? mispc_seterr(ctx, s, "out of memory in %s", galerkin_who) : MISPC_SUCCESS);
  int64_t *got = NULL, ngot = 0, *ans = NULL, nans = 0;
  if (!s) s = mispc_dist_route(ctx, A->comm, 2, nq, ask, dest, &got, &ngot);
  /* the answer to each question: (column, the lowest rank that asked) */
  int *back = s ? NULL : (int *)malloc(sizeof(int) * (size_t)(ngot + 1));
  if (!s && !back) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", galerkin_who);
  const int64_t c0 = s ? 0 : ranges[rank], span = s ? 0 : ranges[rank + 1] - ranges[rank];
  int *low = s ? NULL : (int *)malloc(sizeof(int) * (size_t)(span + 1));
  if (!s && !low) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", galerkin_who);
  for (int64_t j = 0; !s && j < span; ++j) low[j] = np;
  for (int64_t r = 0; !s && r < ngot; ++r) {
    const int64_t I = got[2 * r] - c0;
    if (I < 0 || I >= span) {
      s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "%s: column %lld asked of the wrong rank",
                       galerkin_who, (long long)got[2 * r]);
      break;
    }
    if (got[2 * r + 1] < low[I]) low[I] = (int)got[2 * r + 1];
  }
  for (int64_t r = 0; !s && r < ngot; ++r) {
    back[r] = (int)got[2 * r + 1];
    got[2 * r + 1] = low[got[2 * r] - c0];
  }
  s = mispc_dist_agree(ctx, A->comm, s);
  if (!s) s = mispc_dist_route(ctx, A->comm, 2, ngot, got, back, &ans, &nans);
  /* answers come back in the order asked (one owner a column) */
  for (int64_t r = 0; !s && r < nans; ++r) {
    const int64_t c = mispc_lower_bound_i32(t->cmap, 0, t->ncmap, (int32_t)ans[2 * r]);
    if (c < t->ncmap && t->cmap[c] == ans[2 * r]) (*first)[c] = ans[2 * r + 1] == rank;
  }
  free(used), free(ask), free(dest), free(got), free(back), free(low), free(ans);
  if (s) free(*first), *first = NULL;
  return s;
}

/* Sums of presum_first for the local coarse ids I of a part: records (I,
 * J, value bits) in p->a, the owner of each I in p->b, in arrays that grow
 * as needed. (ti, tv) are P^T's rows of the first columns (tptr). Nonzero
 * when out of memory. */
static int presum_part(const prow_table *t, const int64_t *tptr, const int64_t *ti,
                       const double *tv, const int64_t *apptr, const int32_t *apcol,
                       const double *apval, const int64_t *ranges, int np, out_part *pt) {
  const int64_t nc = t->ncmap;
  int64_t *mark = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nc + 1));
  double *acc = (double *)malloc(sizeof(double) * (size_t)(nc + 1));
  int32_t *pat = (int32_t *)malloc(sizeof(int32_t) * (size_t)(nc + 1));
  int failed = !(mark && acc && pat);
  for (int64_t c = 0; !failed && c < nc; ++c) mark[c] = -1;
  for (int64_t I = pt->i0; !failed && I < pt->i1; ++I) {
    if (tptr[I] == tptr[I + 1]) continue;
    int64_t m = 0;
    for (int64_t e = tptr[I]; e < tptr[I + 1]; ++e) {
      const int64_t i = ti[e];
      const double p = tv[e];
      for (int64_t q = apptr[i]; q < apptr[i + 1]; ++q) {
        const int32_t J = apcol[q];
        if (mark[J] != I) mark[J] = I, acc[J] = 0.0, pat[m++] = J;
        acc[J] += p * apval[q];
      }
    }
    if (mispc_grow_pair(&pt->a, 3 * sizeof(int64_t), &pt->b, sizeof(int), pt->n + m, &pt->cap)) {
      failed = 1;
      break;
    }
    const int r = mispc_dist_owner(ranges, np, t->cmap[I]);
    int64_t *out = (int64_t *)pt->a;
    int *dest = (int *)pt->b;
    for (int64_t k = 0, n = pt->n; k < m; ++k, ++n) {
      out[3 * n] = t->cmap[I];
      out[3 * n + 1] = t->cmap[pat[k]];
      memcpy(&out[3 * n + 2], &acc[pat[k]], sizeof(double));
      dest[n] = r;
    }
    pt->n += m;
  }
  free(mark), free(acc), free(pat);
  return failed;
}

/* The products of the columns this rank is first in (first[c]), summed
 * here: for each such coarse row I and column J, 0.0 plus P(i, I) * (A P)(i,
 * J) over this rank's rows i in increasing order, which is the beginning of
 * the one-process sum (the other ranks' rows come after). The rows I are
 * split among the host threads by their entries of P (presum_part): records
 * (I, J, value bits) and the owner of each I in *parts (*nparts of them, in
 * order of I; not joined: the caller moves them into its buffers). */
static mispc_status presum_first(mispc_context *ctx, const mispc_dist_csr *A, const prow_table *t,
                                 const uint8_t *first, const int64_t *apptr, const int32_t *apcol,
                                 const double *apval, const int64_t *ranges, int np,
                                 out_part **parts, int *nparts) {
  const int64_t nloc = A->rend - A->rstart, nc = t->ncmap;
  *parts = NULL, *nparts = 0;
  int64_t *tptr = (int64_t *)calloc((size_t)nc + 2, sizeof(int64_t));
  mispc_status s = tptr ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
  /* P^T of the first columns: each column's (row, value) in increasing row */
  for (int64_t q = 0; !s && q < t->ptr[nloc]; ++q)
    if (first[t->col[q]]) tptr[t->col[q] + 1]++;
  for (int64_t c = 0; !s && c < nc; ++c) tptr[c + 1] += tptr[c];
  const int64_t nt = s ? 0 : tptr[nc];
  int64_t *ti = s ? NULL : (int64_t *)mispc_host_alloc_n(ctx, nt + 1, sizeof(int64_t), "P^T");
  double *tv = s ? NULL : (double *)mispc_host_alloc_n(ctx, nt + 1, sizeof(double), "P^T");
  if (!s && (!ti || !tv)) s = MISPC_ERR_ALLOC;
  for (int64_t i = 0; !s && i < nloc; ++i)
    for (int64_t q = t->ptr[i]; q < t->ptr[i + 1]; ++q)
      if (first[t->col[q]]) {
        const int64_t at = tptr[t->col[q]]++;
        ti[at] = i, tv[at] = t->val[q];
      }
  for (int64_t c = nc; !s && c > 0; --c) tptr[c] = tptr[c - 1];
  if (!s) tptr[0] = 0;
  const int npt = s ? 1 : count_parts(ctx, nc, nc, 20);
  out_part *pt = s ? NULL : split_parts(npt, nc, tptr, NULL);
  int failed = !s && !pt;
  if (!s && !failed) {
#pragma omp parallel for schedule(static, 1) num_threads(npt) reduction(| : failed)
    for (int k = 0; k < npt; ++k)
      failed |= presum_part(t, tptr, ti, tv, apptr, apcol, apval, ranges, np, &pt[k]);
  }
  free(tptr), free(ti), free(tv);
  if (s || failed) {
    free_parts(npt, pt);
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", galerkin_who);
  }
  *parts = pt, *nparts = npt;
  return MISPC_SUCCESS;
}

mispc_status mispc_dist_galerkin_product(mispc_context *ctx, const mispc_dist_csr *A,
                                         const mispc_dist_prolongator *P, mispc_dist_csr *Ac) {
  const char *const who = galerkin_who;
  if (!ctx || !A) return MISPC_ERR_INVALID_ARG;
  mispc_status s = zero_output(ctx, Ac, sizeof *Ac, who);
  if (!s) s = check_local(ctx, A, P, who);
  MISPC_TRY(mispc_dist_agree(ctx, A->comm, s));
  int np = 1, rank = 0;
  MPI_Comm_size(A->comm, &np);
  MPI_Comm_rank(A->comm, &rank);
  int64_t *ranges = NULL;
  MISPC_TRY(coarse_ranges(ctx, A->comm, P, np, &ranges));
  double t0 = mispc_wtime();
  prow_table t;
  memset(&t, 0, sizeof t);
  s = gather_p_rows(ctx, A, P, who, &t);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist Galerkin product: ghost rows of P");
  int64_t *apptr = NULL, *rec = NULL, *mine = NULL;
  int32_t *apcol = NULL;
  double *apval = NULL;
  int *dest = NULL;
  if (!s) s = mispc_dist_agree(ctx, A->comm, multiply_ap(ctx, A, &t, who, &apptr, &apcol, &apval));
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist Galerkin product: A P");
  /* every product P(i, I) * (A P)(i, J) to the rank of I, in increasing i,
   * then J: the order in which mispc_csr_multiply sums P^T (A P); this
   * rank's own stay here (mine) and take their place between the arrivals
   * of lower and higher ranks (nlow: those of the lower ranks) */
  const int64_t nloc = A->rend - A->rstart;
  /* the columns this rank is the first (lowest) rank in are summed here and
   * travel as one record an entry (presum_first); the others' products one
   * by one, as below */
  uint8_t *first = NULL;
  out_part *sums = NULL;
  int nsum = 0;
  if (!s) s = first_columns(ctx, A, &t, ranges, np, rank, &first);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist Galerkin product: first ranks of the columns");
  if (!s)
    s = mispc_dist_agree(
        ctx, A->comm,
        presum_first(ctx, A, &t, first, apptr, apcol, apval, ranges, np, &sums, &nsum));
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist Galerkin product: first ranks' sums");
  /* The records are written by threads, each the records of one part of
   * the sums (c < nsum) or of one slice of the rows (i in [ib[c], ib[c +
   * 1])), from the counts of mine and of the others' before it (om[nsum +
   * c], orr[nsum + c] for the slices), as the serial loops would: the same
   * records in the same places. */
  const int nch = count_parts(ctx, nloc, 0, 0);
  int64_t *cnt = (int64_t *)calloc((size_t)np * 2, sizeof(int64_t)), nrec = 0, nmine = 0;
  int64_t *chunk = (int64_t *)malloc(sizeof(int64_t) * (size_t)(3 * (nch + nsum) + 1));
  int64_t *ib = chunk, *om = ib + nch + 1, *orr = om + nsum + nch;
  if (!s && (!cnt || !chunk)) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  for (int c = 0; !s && c <= nch; ++c) ib[c] = nloc * c / nch;
  for (int c = 0; !s && c < nsum; ++c) {
    const int *pd = (const int *)sums[c].b;
    om[c] = nmine, orr[c] = nrec;
    for (int64_t k = 0; k < sums[c].n; ++k) {
      cnt[pd[k]]++;
      *(pd[k] == rank ? &nmine : &nrec) += 1;
    }
  }
  for (int c = 0; !s && c < nch; ++c) {
    om[nsum + c] = nmine, orr[nsum + c] = nrec;
    for (int64_t i = ib[c]; !s && i < ib[c + 1]; ++i)
      for (int64_t q = P->rowptr[i]; q < P->rowptr[i + 1]; ++q) {
        if (first[t.col[q]]) continue;
        const int64_t b = apptr[i + 1] - apptr[i];
        if (nrec + nmine > INT64_MAX / 3 - b) {
          s = mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "%s: too many products on rank %d", who, rank);
          break;
        }
        const int r = mispc_dist_owner(ranges, np, P->gcol[q]);
        cnt[r] += b;
        *(r == rank ? &nmine : &nrec) += b;
      }
  }
  if (!s) {
    rec = (int64_t *)mispc_host_alloc_n(ctx, 3 * nrec + 1, sizeof(int64_t), "products");
    mine = (int64_t *)mispc_host_alloc_n(ctx, 3 * nmine + 1, sizeof(int64_t), "products");
    dest = (int *)mispc_host_alloc_n(ctx, nrec + 1, sizeof(int), "products");
    if (!rec || !mine || !dest) s = MISPC_ERR_ALLOC;
  }
  s = mispc_dist_agree(ctx, A->comm, s);
  if (!s && MPI_Alltoall(cnt, 1, MPI_INT64_T, cnt + np, 1, MPI_INT64_T, A->comm) != MPI_SUCCESS)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: MPI_Alltoall failed", who);
  s = mispc_dist_agree(ctx, A->comm, s);
  products pr = {NULL, mine, 0, 0, nmine};
  for (int p = 0; !s && p < rank; ++p) pr.nlow += cnt[np + p];
  free(cnt);
  if (!s) {
#pragma omp parallel for schedule(static, 1) num_threads(nsum)
    for (int c = 0; c < nsum; ++c) {
      const int64_t *part = (const int64_t *)sums[c].a;
      const int *pd = (const int *)sums[c].b;
      int64_t k = om[c], m = orr[c];
      for (int64_t e = 0; e < sums[c].n; ++e) {
        int64_t *o = pd[e] == rank ? mine + 3 * k++ : rec + 3 * m;
        memcpy(o, part + 3 * e, 3 * sizeof(int64_t));
        if (pd[e] != rank) dest[m++] = pd[e];
      }
    }
#pragma omp parallel for schedule(static, 1) num_threads(nch)
    for (int c = 0; c < nch; ++c) {
      int64_t k = om[nsum + c], m = orr[nsum + c];
      for (int64_t i = ib[c]; i < ib[c + 1]; ++i)
        for (int64_t q = P->rowptr[i]; q < P->rowptr[i + 1]; ++q) {
          if (first[t.col[q]]) continue;
          const int64_t I = P->gcol[q];
          const double p = P->values[q];
          const int r = mispc_dist_owner(ranges, np, I);
          for (int64_t e = apptr[i]; e < apptr[i + 1]; ++e) {
            const double x = p * apval[e];
            int64_t *o = r == rank ? mine + 3 * k++ : rec + 3 * m;
            o[0] = I;
            o[1] = t.cmap[apcol[e]];
            memcpy(&o[2], &x, sizeof x);
            if (r != rank) dest[m++] = r;
          }
        }
    }
  }
  free_parts(nsum, sums);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist Galerkin product: product records");
  free(chunk);
  free(apptr), free(apcol), free(apval), free(first);
  prow_table_free(&t);
  int64_t *got = NULL;
  if (!s) s = mispc_dist_route(ctx, A->comm, 3, nrec, rec, dest, &got, &pr.ngot);
  free(rec), free(dest);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist Galerkin product: products routed");
  pr.got = got;
  if (!s) s = sum_coarse_rows(ctx, A->comm, P->ncols, ranges[rank], ranges[rank + 1], &pr, Ac);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist Galerkin product: P^T (A P)");
  free(mine);
  free(got);
  free(ranges);
  return s;
}

/* Row i of W = A P0 (local coarse ids, sorted) becomes row i of P as
 * mispc_smooth_prolongator's host rows: -(s * w) with s = omega / a_ii,
 * then P0's entries added in P0's order. Returns the row's diagonal test
 * (0: missing, zero or not finite). */
static int smooth_row(const mispc_dist_csr *A, const prow_table *t, int64_t i, double omega,
                      const int32_t *wcol, double *wval, int64_t b, int64_t e) {
  double d = 0;
  for (int64_t q = A->diag.rowptr[i]; q < A->diag.rowptr[i + 1]; ++q)
    if (A->diag.colidx[q] == i) {
      d = A->diag.values[q];
      break;
    }
  if (!(d != 0) || !isfinite(d)) return 0;
  const double s = omega / d;
  for (int64_t q = b; q < e; ++q) wval[q] = -(s * wval[q]);
  for (int64_t p = t->ptr[i]; p < t->ptr[i + 1]; ++p) {
    const int64_t at = mispc_lower_bound_i32(wcol, b, e, t->col[p]);
    wval[at] = t->val[p] + wval[at];
  }
  return 1;
}

mispc_status mispc_dist_smooth_prolongator(mispc_context *ctx, const mispc_dist_csr *A,
                                           const mispc_dist_prolongator *P0, double omega,
                                           mispc_dist_prolongator *P) {
  static const char *const who = "mispc_dist_smooth_prolongator";
  if (!ctx || !A) return MISPC_ERR_INVALID_ARG;
  mispc_status s = zero_output(ctx, P, sizeof *P, who);
  if (!s && !isfinite(omega))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: omega %g", who, omega);
  if (!s) s = check_local(ctx, A, P0, who);
  MISPC_TRY(mispc_dist_agree(ctx, A->comm, s));
  double t0 = mispc_wtime();
  prow_table t;
  memset(&t, 0, sizeof t);
  MISPC_TRY(gather_p_rows(ctx, A, P0, who, &t));
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist prolongator smoothing: ghost rows of P0");
  int64_t *wptr = NULL;
  int32_t *wcol = NULL;
  double *wval = NULL;
  s = mispc_dist_agree(ctx, A->comm, multiply_ap(ctx, A, &t, who, &wptr, &wcol, &wval));
  const int64_t nloc = A->rend - A->rstart;
  const int nt = mispc_host_threads(ctx);
  int64_t bad = nloc; /* the first bad row, as one thread would stop at */
  if (!s) {
#pragma omp parallel for schedule(static) num_threads(nt) reduction(min : bad)
    for (int64_t i = 0; i < nloc; ++i)
      if (i < bad && !smooth_row(A, &t, i, omega, wcol, wval, wptr[i], wptr[i + 1])) bad = i;
  }
  if (!s && bad < nloc)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "%s: diagonal entry of row %lld is missing, zero or not finite (D^-1 is "
                     "needed)",
                     who, (long long)(A->rstart + bad));
  const int64_t nnz = s ? 0 : wptr[nloc];
  int64_t *gcol = s ? NULL : (int64_t *)mispc_host_alloc_n(ctx, nnz + 1, sizeof(int64_t), who);
  if (!s && !gcol) s = MISPC_ERR_ALLOC;
  if (!s) {
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t q = 0; q < nnz; ++q) gcol[q] = t.cmap[wcol[q]];
  }
  free(wcol);
  prow_table_free(&t);
  s = mispc_dist_agree(ctx, A->comm, s);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t0, "dist prolongator smoothing: A P0, rows");
  if (s) {
    free(wptr), free(wval), free(gcol);
    return s;
  }
  P->nrows = nloc;
  P->ncols = P0->ncols;
  P->rowptr = wptr;
  P->gcol = gcol;
  P->values = wval;
  P->cstart = P0->cstart;
  P->cend = P0->cend;
  return MISPC_SUCCESS;
}
