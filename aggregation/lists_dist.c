/* Aggregate member lists gathered at each aggregate's head, the rank owning
 * its smallest member (host). What a PETSc GAMG coarsener hands over
 * (PetscCoarsenData: one list per local head): heads chosen by global id
 * make the lists, and the coarse numbering GAMG gives them (rank, then
 * local index = increasing head id), the same for any partition. Two routes:
 * (label, vertex) to the aggregate's even owner, which sorts and finds the
 * head, then (head, vertex) to the head's rank. */
#include <stdlib.h>
#include <string.h>

#include "agg_dist.h"

void mispc_dist_agg_lists_free(mispc_dist_agg_lists *l) {
  if (!l) return;
  free(l->head);
  free(l->offset);
  free(l->member);
  memset(l, 0, sizeof *l);
}

/* Records compared by their first two words (key, value). */
static int cmp_key_value(const void *a, const void *b) {
  const int64_t *x = (const int64_t *)a, *y = (const int64_t *)b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

mispc_status agg_dist_sort_records(mispc_context *ctx, int64_t *rec, int64_t n, int width,
                                   int64_t base, int64_t range, const char *who) {
  const size_t rb = sizeof(int64_t) * (size_t)width;
  int64_t *tmp = (int64_t *)malloc(rb * (size_t)n + 1);
  int64_t *start = (int64_t *)calloc((size_t)(range + 1), sizeof(int64_t));
  if (!tmp || !start) {
    free(tmp);
    free(start);
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  }
  int inside = 1;
  for (int64_t i = 0; i < n && inside; ++i) {
    const int64_t key = rec[width * i] - base;
    if (key < 0 || key >= range)
      inside = 0;
    else
      start[key + 1]++;
  }
  if (inside) {
    for (int64_t k = 0; k < range; ++k) start[k + 1] += start[k];
    for (int64_t i = 0; i < n; ++i)
      memcpy(tmp + width * start[rec[width * i] - base]++, rec + width * i, rb);
    memcpy(rec, tmp, rb * (size_t)n);
  }
  free(tmp);
  free(start);
  int sorted = inside;
  for (int64_t i = 1; sorted && i < n; ++i)
    sorted = cmp_key_value(rec + width * (i - 1), rec + width * i) < 0;
  if (!sorted) qsort(rec, (size_t)n, rb, cmp_key_value);
  return MISPC_SUCCESS;
}

mispc_status mispc_dist_aggregate_lists(mispc_context *ctx, const mispc_dist_csr *g,
                                        const int32_t *agg, int64_t naggs,
                                        mispc_dist_agg_lists *lists) {
  const char *who = "mispc_dist_aggregate_lists";
  agg_ids id;
  MISPC_TRY(agg_dist_check_labels(ctx, g, agg, naggs, MISPC_ERR_INVALID_ARG, who, lists,
                                  sizeof *lists, &id));
  int64_t *got = NULL, ngot = 0;
  mispc_status s = agg_dist_route_by_id(ctx, g, agg, naggs, NULL, &got, &ngot, who);
  if (s) return s;
  /* (label, vertex) sorted: each aggregate's first vertex is its head */
  s = agg_dist_sort_records(ctx, got, ngot, 2, id.c0, id.c1 - id.c0, who);
  int *hdest = s ? NULL : (int *)malloc(sizeof(int) * (size_t)(ngot + 1));
  if (!s && !hdest) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  s = mispc_dist_agree(ctx, g->comm, s);
  for (int64_t i = 0, head = -1, label = -1; !s && i < ngot; ++i) {
    if (got[2 * i] != label) label = got[2 * i], head = got[2 * i + 1];
    got[2 * i] = head;
    hdest[i] = mispc_dist_owner(g->ranges, id.P, head);
  }
  int64_t *mine = NULL, nmine = 0;
  if (!s) s = mispc_dist_route(ctx, g->comm, 2, ngot, got, hdest, &mine, &nmine);
  free(got);
  free(hdest);
  if (s) return s;
  /* from several ranks in rank order: sort by (head, member) */
  s = mispc_dist_agree(
      ctx, g->comm,
      agg_dist_sort_records(ctx, mine, nmine, 2, g->rstart, g->rend - g->rstart, who));
  if (s) {
    free(mine);
    return s;
  }
  int64_t nl = 0;
  for (int64_t i = 0; i < nmine; ++i) nl += i == 0 || mine[2 * i] != mine[2 * i - 2];
  lists->head = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nl + 1));
  lists->offset = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nl + 1));
  lists->member = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nmine + 1));
  s = lists->head && lists->offset && lists->member
          ? MISPC_SUCCESS
          : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in %s", who);
  s = mispc_dist_agree(ctx, g->comm, s);
  if (s) {
    free(mine);
    mispc_dist_agg_lists_free(lists);
    return s;
  }
  nl = 0;
  for (int64_t i = 0; i < nmine; ++i) {
    if (i == 0 || mine[2 * i] != mine[2 * i - 2]) {
      lists->head[nl] = mine[2 * i];
      lists->offset[nl++] = i;
    }
    lists->member[i] = mine[2 * i + 1];
  }
  lists->offset[nl] = nmine;
  lists->nlists = nl;
  free(mine);
  return MISPC_SUCCESS;
}
