/* Line clusters on several ranks: gs_lines.c's rounds on the distributed
 * cluster graphs (mispc_dist_coarse_graph, mispc_dist_aggregate), so the
 * merged clusters are the one-process ones for any partition. Each graph's
 * rows lie in even ranges of its vertices; a round's merge reaches the
 * labels held elsewhere by one lookup at the owners (lookup_even). */
#include <stdlib.h>

#include "dist_internal.h"
#include "gs_dist_internal.h"

/* out[i] = table[key[i]] for the n-entry table split into even ranges over
 * the ranks of comm (this rank holds entries n r / P .. n (r + 1) / P - 1).
 * Collective. */
static mispc_status lookup_even(mispc_context *ctx, MPI_Comm comm, int64_t nkeys,
                                const int32_t *key, int64_t n, const int32_t *table, int32_t *out) {
  int P = 1, rank = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  const int64_t t0 = n * rank / P;
  int64_t *rec = (int64_t *)mispc_host_alloc_n(ctx, 3 * nkeys + 1, sizeof(int64_t), "lookups");
  int *dest = (int *)mispc_host_alloc_n(ctx, nkeys + 1, sizeof(int), "lookups");
  int64_t *got = NULL, *back = NULL, ngot = 0, nback = 0;
  int *rdest = NULL;
  mispc_status s = rec && dest ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
  for (int64_t i = 0; !s && i < nkeys; ++i) {
    rec[3 * i] = key[i], rec[3 * i + 1] = i, rec[3 * i + 2] = rank;
    dest[i] = mispc_dist_even_owner(key[i], n, P);
  }
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) s = mispc_dist_route(ctx, comm, 3, nkeys, rec, dest, &got, &ngot);
  if (!s) {
    rdest = (int *)mispc_host_alloc_n(ctx, ngot + 1, sizeof(int), "lookup answers");
    if (!rdest) s = MISPC_ERR_ALLOC;
  }
  for (int64_t k = 0; !s && k < ngot; ++k) { /* answer (index, value) in place */
    rdest[k] = (int)got[3 * k + 2];
    const int64_t v = table[got[3 * k] - t0];
    got[2 * k] = got[3 * k + 1], got[2 * k + 1] = v;
  }
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) s = mispc_dist_route(ctx, comm, 2, ngot, got, rdest, &back, &nback);
  for (int64_t k = 0; !s && k < nback; ++k) out[back[2 * k]] = (int32_t)back[2 * k + 1];
  free(rec), free(dest), free(got), free(back), free(rdest);
  return mispc_dist_agree(ctx, comm, s);
}

/* The chain graph of the distributed graph C (gs_line_graph_host's edges). */
static mispc_status line_graph_dist(mispc_context *ctx, const mispc_dist_csr *C,
                                    mispc_dist_csr *L) {
  const int64_t nloc = C->rend - C->rstart;
  const mispc_csr *d = &C->diag, *o = &C->offd;
  int64_t *deg = (int64_t *)mispc_host_alloc_n(ctx, nloc + 1, sizeof(int64_t), "degrees");
  int64_t *gdeg = (int64_t *)mispc_host_alloc_n(ctx, C->nghost + 1, sizeof(int64_t), "degrees");
  int64_t *rowptr = (int64_t *)mispc_host_alloc_n(ctx, nloc + 1, sizeof(int64_t), "chain graph");
  int64_t *gcol =
      (int64_t *)mispc_host_alloc_n(ctx, d->nnz + o->nnz + 1, sizeof(int64_t), "chain graph");
  mispc_status s = deg && gdeg && rowptr && gcol ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
  for (int64_t r = 0; !s && r < nloc; ++r)
    deg[r] = d->rowptr[r + 1] - d->rowptr[r] + o->rowptr[r + 1] - o->rowptr[r];
  s = mispc_dist_agree(ctx, C->comm, s);
  if (!s) s = mispc_halo_exchange(ctx, C->halo, deg, gdeg, sizeof(int64_t));
  if (!s) {
    int64_t q = 0;
    rowptr[0] = 0;
    for (int64_t r = 0; r < nloc; ++r) {
      if (deg[r] <= 2) {
        for (int64_t p = d->rowptr[r]; p < d->rowptr[r + 1]; ++p)
          if (deg[d->colidx[p]] <= 2) gcol[q++] = C->rstart + d->colidx[p];
        for (int64_t p = o->rowptr[r]; p < o->rowptr[r + 1]; ++p)
          if (gdeg[o->colidx[p]] <= 2) gcol[q++] = C->garray[o->colidx[p]];
      }
      rowptr[r + 1] = q;
    }
  }
  s = mispc_dist_agree(ctx, C->comm, s);
  if (!s)
    s = mispc_dist_csr_from_global(ctx, C->comm, C->nglobal, C->rstart, C->rend, rowptr, gcol, NULL,
                                   L);
  free(deg), free(gdeg), free(rowptr), free(gcol);
  return s;
}

mispc_status gs_grow_line_clusters_dist(mispc_context *ctx, const mispc_dist_csr *G,
                                        const mispc_agg_options *ao, int32_t *lab, int64_t *naggs) {
  const MPI_Comm comm = G->comm;
  const int64_t n0 = *naggs;
  mispc_dist_csr C = {0};
  int32_t *map = NULL, *m = NULL;
  mispc_status s = mispc_dist_coarse_graph(ctx, G, lab, n0, &C);
  const int64_t c0 = C.rstart, nc0 = C.rend - C.rstart;
  map = (int32_t *)mispc_host_alloc_n(ctx, nc0 + 1, sizeof(int32_t), "line clusters");
  if (!s && !map) s = MISPC_ERR_ALLOC;
  for (int64_t c = 0; !s && c < nc0; ++c) map[c] = (int32_t)(c0 + c);
  s = mispc_dist_agree(ctx, comm, s);
  int64_t nc = n0;
  const int rounds = ctx->tuning.gs_line_rounds ? ctx->tuning.gs_line_rounds : GS_LINE_ROUNDS;
  for (int round = 0; !s && round < rounds; ++round) {
    mispc_dist_csr L = {0}, next = {0};
    mispc_dist_agg_info mi = {0};
    s = line_graph_dist(ctx, &C, &L);
    m = s ? NULL
          : (int32_t *)mispc_host_alloc_n(ctx, C.rend - C.rstart + 1, sizeof(int32_t), "merge");
    if (!s && !m) s = MISPC_ERR_ALLOC;
    s = mispc_dist_agree(ctx, comm, s);
    if (!s) s = mispc_dist_aggregate(ctx, &L, ao, m, &mi);
    const int merged = !s && mi.naggs < nc;
    if (merged) s = lookup_even(ctx, comm, nc0, map, nc, m, map);
    if (merged && !s) s = mispc_dist_coarse_graph(ctx, &C, m, mi.naggs, &next);
    if (merged) nc = mi.naggs;
    mispc_dist_csr_free(ctx, &L);
    mispc_dist_csr_free(ctx, &C);
    free(m);
    m = NULL;
    C = next;
    if (!merged) break;
  }
  mispc_dist_csr_free(ctx, &C);
  const int64_t nloc = G->rend - G->rstart;
  if (!s && nc < n0) s = lookup_even(ctx, comm, nloc, lab, n0, map, lab);
  if (!s) *naggs = nc;
  free(map);
  return mispc_dist_agree(ctx, comm, s);
}
