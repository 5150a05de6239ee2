/* Checks and size statistics of a distributed aggregation (host), with
 * nothing gathered: per-aggregate facts are collected at the aggregate's
 * rank (even ranges of the ids, as the coarse levels), connectivity by
 * min-id propagation inside each aggregate over the halo. */
#include <stdlib.h>
#include <string.h>

#include "agg_dist.h"

mispc_status agg_dist_route_by_id(mispc_context *ctx, const mispc_dist_csr *g, const int32_t *agg,
                                  int64_t naggs, const int64_t *value, int64_t **got, int64_t *ngot,
                                  const char *who) {
  int P = 0;
  MPI_Comm_size(g->comm, &P);
  const int64_t nloc = g->rend - g->rstart;
  int64_t *rec = (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * nloc + 2));
  int *dest = (int *)malloc(sizeof(int) * (size_t)(nloc + 1));
  mispc_status s =
      rec && dest ? MISPC_SUCCESS : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  s = mispc_dist_agree(ctx, g->comm, s);
  for (int64_t v = 0; !s && v < nloc; ++v) {
    rec[2 * v] = agg[v];
    rec[2 * v + 1] = value ? value[v] : g->rstart + v;
    dest[v] = mispc_dist_even_owner(agg[v], naggs, P);
  }
  if (!s) s = mispc_dist_route(ctx, g->comm, 2, nloc, rec, dest, got, ngot);
  free(rec);
  free(dest);
  return s;
}

mispc_status mispc_dist_aggregates_stats(mispc_context *ctx, const mispc_dist_csr *g,
                                         const int32_t *agg, int64_t naggs, mispc_agg_stats *st) {
  agg_ids id;
  MISPC_TRY(agg_dist_check_labels(ctx, g, agg, naggs, MISPC_ERR_VERIFY,
                                  "mispc_dist_aggregates_stats", st, sizeof *st, &id));
  int64_t *got = NULL, ngot = 0;
  MISPC_TRY(agg_dist_route_by_id(ctx, g, agg, naggs, NULL, &got, &ngot, "verify"));
  const int64_t c0 = id.c0, c1 = id.c1;
  int64_t *size = (int64_t *)calloc((size_t)(c1 - c0 + 1), sizeof(int64_t));
  mispc_status s = size ? MISPC_SUCCESS : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory");
  s = mispc_dist_agree(ctx, g->comm, s);
  /* local figures: min, -max, singletons, histogram; then reductions */
  int64_t mn = INT64_MAX, mx = 0, loc[33];
  memset(loc, 0, sizeof loc);
  for (int64_t i = 0; !s && i < ngot; ++i) size[got[2 * i] - c0]++;
  for (int64_t c = 0; !s && c < c1 - c0; ++c) {
    const int64_t z = size[c];
    mn = z < mn ? z : mn;
    mx = z > mx ? z : mx;
    loc[0] += z == 1;
    loc[1 + (z < 31 ? z : 31)]++;
  }
  int64_t gmn = 0, gmx = 0, glob[33];
  if (!s && (MPI_Allreduce(&mn, &gmn, 1, MPI_INT64_T, MPI_MIN, g->comm) != MPI_SUCCESS ||
             MPI_Allreduce(&mx, &gmx, 1, MPI_INT64_T, MPI_MAX, g->comm) != MPI_SUCCESS ||
             MPI_Allreduce(loc, glob, 33, MPI_INT64_T, MPI_SUM, g->comm) != MPI_SUCCESS))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Allreduce failed");
  if (!s) {
    st->naggs = naggs;
    st->min_size = naggs ? gmn : 0;
    st->max_size = gmx;
    st->singletons = glob[0];
    for (int k = 0; k < 32; ++k) st->hist[k] = glob[1 + k];
    st->mean_size = naggs ? (double)g->nglobal / (double)naggs : 0.0;
  }
  free(got);
  free(size);
  return s;
}

mispc_status mispc_dist_verify_aggregation(mispc_context *ctx, const mispc_dist_csr *g,
                                           const int32_t *agg, int64_t naggs) {
  agg_ids id;
  MISPC_TRY(agg_dist_check_labels(ctx, g, agg, naggs, MISPC_ERR_VERIFY,
                                  "mispc_dist_verify_aggregation", NULL, 0, &id));
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  int32_t *gagg = (int32_t *)malloc(sizeof(int32_t) * (size_t)(ng + 1));
  int64_t *comp = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nloc + 1));
  int64_t *gcomp = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ng + 1));
  mispc_status s = gagg && comp && gcomp
                       ? MISPC_SUCCESS
                       : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in verify");
  s = mispc_dist_agree(ctx, g->comm, s);
  if (!s) s = mispc_halo_exchange(ctx, g->halo, agg, gagg, sizeof(int32_t));
  /* Components inside aggregates: every vertex takes the smallest global id
   * reachable through its aggregate, one halo exchange a sweep. */
  for (int64_t v = 0; !s && v < nloc; ++v) comp[v] = g->rstart + v;
  for (int64_t changed = 1; !s && changed;) {
    s = mispc_halo_exchange(ctx, g->halo, comp, gcomp, sizeof(int64_t));
    changed = 0;
    for (int64_t v = 0; !s && v < nloc; ++v) {
      int64_t c = comp[v];
      for (int64_t p = g->diag.rowptr[v]; p < g->diag.rowptr[v + 1]; ++p)
        if (agg[g->diag.colidx[p]] == agg[v] && comp[g->diag.colidx[p]] < c)
          c = comp[g->diag.colidx[p]];
      for (int64_t p = g->offd.rowptr[v]; p < g->offd.rowptr[v + 1]; ++p)
        if (gagg[g->offd.colidx[p]] == agg[v] && gcomp[g->offd.colidx[p]] < c)
          c = gcomp[g->offd.colidx[p]];
      changed += c != comp[v];
      comp[v] = c;
    }
    if (!s) s = mispc_dist_sum(ctx, g->halo, g->comm, &changed);
  }
  /* At each aggregate's rank: (id, component) pairs, one component an id. */
  int64_t *got = NULL, ngot = 0;
  if (!s) s = agg_dist_route_by_id(ctx, g, agg, naggs, comp, &got, &ngot, "verify");
  free(gagg);
  free(comp);
  free(gcomp);
  if (s) return s;
  ngot = mispc_sort_unique_pairs(got, ngot);
  int64_t expect = id.c0;
  for (int64_t i = 0; !s && i < ngot; ++i) {
    const int64_t c = got[2 * i];
    if (c > expect)
      s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "aggregate %lld is empty", (long long)expect);
    else if (i > 0 && got[2 * i - 2] == c)
      s = mispc_seterr(ctx, MISPC_ERR_VERIFY,
                       "aggregate %lld is not connected (vertices %lld and %lld are apart)",
                       (long long)c, (long long)got[2 * i - 1], (long long)got[2 * i + 1]);
    expect = c + 1;
  }
  if (!s && expect < id.c1)
    s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "aggregate %lld is empty", (long long)expect);
  free(got);
  return mispc_dist_agree(ctx, g->comm, s);
}
