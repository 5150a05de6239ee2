/* Coarse levels of a distributed aggregation (host): the quotient graph and
 * the tentative prolongator, row for row those of mispc_coarse_graph and
 * mispc_tentative_prolongator. Coarse rows live in even ranges of the
 * one-process aggregate numbering; coarse edges and aggregate blocks travel
 * to their owners with mispc_dist_route. */
#include <stdlib.h>
#include <string.h>

#include "agg_backend.h"
#include "agg_dist.h"
#include "rows_host.h"

mispc_status agg_dist_check_labels(mispc_context *ctx, const mispc_dist_csr *g, const int32_t *agg,
                                   int64_t naggs, mispc_status bad, const char *who, void *out,
                                   size_t out_size, agg_ids *ids) {
  if (!ctx || !g || (out_size && !out)) return MISPC_ERR_INVALID_ARG;
  if (out) memset(out, 0, out_size);
  memset(ids, 0, sizeof *ids);
  mispc_status s = MISPC_SUCCESS;
  const int64_t nloc = g->rend - g->rstart;
  if (!g->halo)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: graph not built", who);
  else if (g->diag.mem != MISPC_MEM_HOST)
    s = mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "%s: host graphs only", who);
  else if (naggs < 0 || naggs > INT32_MAX || (nloc > 0 && !agg))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: bad labels or count %lld", who,
                     (long long)naggs);
  for (int64_t v = 0; !s && v < nloc; ++v)
    if (agg[v] < 0 || agg[v] >= naggs)
      s = mispc_seterr(ctx, bad, "%s: vertex %lld has aggregate id %d, outside [0, %lld)", who,
                       (long long)(g->rstart + v), agg[v], (long long)naggs);
  MISPC_TRY(mispc_dist_agree(ctx, g->comm, s));
  int rank = 0;
  MPI_Comm_size(g->comm, &ids->P);
  MPI_Comm_rank(g->comm, &rank);
  ids->c0 = naggs * rank / ids->P;
  ids->c1 = naggs * (rank + 1) / ids->P;
  return MISPC_SUCCESS;
}

/* Pair (a, l) of the coarse graph unless l is a itself or, with marks,
 * already seen in a's group (mark[l] == a). */
static inline void add_pair(int32_t *mark, int32_t a, int32_t l, int64_t *pairs, int64_t *m) {
  if (l == a || (mark && mark[l] == a)) return;
  if (mark) mark[l] = a;
  pairs[2 * *m] = a, pairs[2 * *m + 1] = l, ++*m;
}

mispc_status mispc_dist_coarse_graph(mispc_context *ctx, const mispc_dist_csr *g,
                                     const int32_t *agg, int64_t naggs, mispc_dist_csr *coarse) {
  agg_ids id;
  MISPC_TRY(agg_dist_check_labels(ctx, g, agg, naggs, MISPC_ERR_INVALID_ARG,
                                  "mispc_dist_coarse_graph", coarse, sizeof *coarse, &id));
  const int64_t nloc = g->rend - g->rstart, ne = g->diag.nnz + g->offd.nnz;
  int32_t *gagg = (int32_t *)malloc(sizeof(int32_t) * (size_t)(g->nghost + 1));
  int64_t *pairs = (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * ne + 2));
  int *dest = (int *)malloc(sizeof(int) * (size_t)(ne + 1));
  mispc_status s = gagg && pairs && dest
                       ? MISPC_SUCCESS
                       : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in coarse graph");
  s = mispc_dist_agree(ctx, g->comm, s);
  if (!s) s = mispc_halo_exchange(ctx, g->halo, agg, gagg, sizeof(int32_t));
  int64_t m = 0;
  /* Each pair (agg[v], l) once, fewer records to send: the rows grouped by
   * label (one radix sort of the labels), a label's neighbouring labels
   * marked with the group they were last seen in, where a mark a label fits
   * the budget; else all pairs and a sort. (Laplace3D_60's clusters on 2
   * ranks: the sort of 756k pairs took 15 of the call's 46 ms.) */
  uint64_t *byl = !s && naggs <= MARK_BUDGET ? mispc_key_order((const uint32_t *)agg, nloc) : NULL;
  int32_t *mark = byl ? (int32_t *)malloc(sizeof(int32_t) * (size_t)(naggs + 1)) : NULL;
  for (int64_t c = 0; mark && c < naggs; ++c) mark[c] = -1;
  for (int64_t k = 0; !s && k < nloc; ++k) {
    const int64_t v = mark ? (int64_t)(byl[k] & 0xFFFFFFFFu) : k;
    const int32_t a = agg[v];
    for (int64_t p = g->diag.rowptr[v]; p < g->diag.rowptr[v + 1]; ++p)
      add_pair(mark, a, agg[g->diag.colidx[p]], pairs, &m);
    for (int64_t p = g->offd.rowptr[v]; p < g->offd.rowptr[v + 1]; ++p)
      add_pair(mark, a, gagg[g->offd.colidx[p]], pairs, &m);
  }
  if (!s && !mark) m = mispc_sort_unique_pairs(pairs, m);
  free(byl), free(mark);
  for (int64_t i = 0; !s && i < m; ++i) dest[i] = mispc_dist_even_owner(pairs[2 * i], naggs, id.P);
  if (!s) s = mispc_dist_csr_from_pairs(ctx, g->comm, naggs, id.c0, id.c1, pairs, m, dest, coarse);
  free(gagg);
  free(pairs);
  free(dest);
  return s;
}

void mispc_dist_prolongator_free(mispc_dist_prolongator *P) {
  if (!P) return;
  free(P->rowptr);
  free(P->gcol);
  free(P->values);
  free(P->Bc);
  memset(P, 0, sizeof *P);
}

mispc_status mispc_dist_tentative_prolongator(mispc_context *ctx, const mispc_dist_csr *g,
                                              const int32_t *agg, int64_t naggs, int block_size,
                                              int k, const double *B, mispc_dist_prolongator *P) {
  if (!ctx || !g || !P) return MISPC_ERR_INVALID_ARG;
  memset(P, 0, sizeof *P);
  const char *who = "mispc_dist_tentative_prolongator";
  mispc_status s = MISPC_SUCCESS;
  /* a rank without rows (GAMG's coarse levels on fewer ranks) has no B to read */
  if (block_size < 1 || k < 1 || block_size * k > 4096 || (!B && k != 1 && g->rend > g->rstart))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "%s: block size %d and %d vectors (B NULL needs k = 1) not supported", who,
                     block_size, k);
  s = mispc_dist_agree(ctx, g->comm, s);
  if (s) return s;
  agg_ids id;
  MISPC_TRY(agg_dist_check_labels(ctx, g, agg, naggs, MISPC_ERR_INVALID_ARG, who, NULL, 0, &id));
  const int np = id.P;
  const int bs = block_size, w = 2 + bs * k; /* label, node, B block (as bits) */
  const int64_t nloc = g->rend - g->rstart, ndof = nloc * bs;
  int64_t *rec = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nloc * w + 1));
  int *dest = (int *)malloc(sizeof(int) * (size_t)(nloc + 1));
  s = rec && dest ? MISPC_SUCCESS : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  s = mispc_dist_agree(ctx, g->comm, s);
  /* Every node's block of B to the rank of its aggregate. */
  for (int64_t v = 0; !s && v < nloc; ++v) {
    int64_t *r = rec + w * v;
    r[0] = agg[v];
    r[1] = g->rstart + v;
    for (int j = 0; j < k; ++j)
      for (int d = 0; d < bs; ++d) {
        const double x = B ? B[(int64_t)j * ndof + v * bs + d] : 1.0;
        memcpy(&r[2 + j * bs + d], &x, sizeof x);
      }
    dest[v] = mispc_dist_even_owner(agg[v], naggs, np);
  }
  int64_t *got = NULL, ngot = 0;
  if (!s) s = mispc_dist_route(ctx, g->comm, w, nloc, rec, dest, &got, &ngot);
  free(rec);
  free(dest);
  if (s) return s;
  /* Members of each aggregate in increasing node id, as mispc_tentative_prolongator
   * (qsort took about 3/4 of the call: Laplace3D_60 on 2 ranks, 19 of 4 ms on one) */
  s = mispc_dist_agree(ctx, g->comm,
                       agg_dist_sort_records(ctx, got, ngot, w, id.c0, id.c1 - id.c0, who));
  if (s) {
    free(got);
    return s;
  }
  const int64_t c0 = id.c0, c1 = id.c1, nc = naggs * k;
  P->cstart = c0;
  P->cend = c1;
  const int64_t ldc = (c1 - c0) * k;
  P->Bc = (double *)calloc((size_t)(ldc * k + 1), sizeof(double));
  int64_t *back = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ngot * w + 1));
  int *bdest = (int *)malloc(sizeof(int) * (size_t)(ngot + 1));
  double *Q = (double *)malloc(sizeof(double) * (size_t)(ngot * bs * k + 1));
  double *R = (double *)malloc(sizeof(double) * (size_t)(k * k));
  s = P->Bc && back && bdest && Q && R
          ? MISPC_SUCCESS
          : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  for (int64_t a = 0; !s && a < ngot;) {
    int64_t b = a;
    while (b < ngot && got[w * b] == got[w * a]) ++b;
    const int64_t c = got[w * a], m = (b - a) * bs;
    for (int j = 0; j < k; ++j)
      for (int64_t i = a, r = 0; i < b; ++i)
        for (int d = 0; d < bs; ++d, ++r) memcpy(&Q[j * m + r], &got[w * i + 2 + j * bs + d], 8);
    agg_block_qr(Q, m, k, R);
    /* Q's rows back to the members' ranks, R into Bc. */
    for (int64_t i = a, r = 0; i < b; ++i) {
      int64_t *o = back + w * i;
      o[0] = c;
      o[1] = got[w * i + 1];
      for (int d = 0; d < bs; ++d, ++r)
        for (int j = 0; j < k; ++j) memcpy(&o[2 + d * k + j], &Q[j * m + r], 8);
      bdest[i] = mispc_dist_owner(g->ranges, np, o[1]);
    }
    for (int j = 0; j < k; ++j)
      for (int i = 0; i < k; ++i) P->Bc[(int64_t)j * ldc + (c - c0) * k + i] = R[j * k + i];
    a = b;
  }
  free(got);
  free(Q);
  free(R);
  s = mispc_dist_agree(ctx, g->comm, s);
  int64_t *mine = NULL, nmine = 0;
  if (!s) s = mispc_dist_route(ctx, g->comm, w, ngot, back, bdest, &mine, &nmine);
  free(back);
  free(bdest);
  if (!s) {
    P->nrows = ndof;
    P->ncols = nc;
    P->rowptr = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ndof + 1));
    P->gcol = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ndof * k + 1));
    P->values = (double *)malloc(sizeof(double) * (size_t)(ndof * k + 1));
    if (!P->rowptr || !P->gcol || !P->values || nmine != nloc)
      s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  }
  for (int64_t i = 0; !s && i <= ndof; ++i) P->rowptr[i] = i * k;
  for (int64_t i = 0; !s && i < nmine; ++i) {
    const int64_t *o = mine + w * i, v = o[1] - g->rstart;
    for (int d = 0; d < bs; ++d)
      for (int j = 0; j < k; ++j) {
        const int64_t row = v * bs + d;
        P->gcol[row * k + j] = o[0] * k + j;
        memcpy(&P->values[row * k + j], &o[2 + d * k + j], 8);
      }
  }
  free(mine);
  s = mispc_dist_agree(ctx, g->comm, s);
  if (s) mispc_dist_prolongator_free(P);
  return s;
}
