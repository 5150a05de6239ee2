/* Internal: checks shared by the distributed aggregation files. */
#ifndef MISPC_AGG_DIST_H
#define MISPC_AGG_DIST_H

#include "dist_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rank count P of a distributed aggregation and this rank's share
 * [c0, c1) of the aggregate ids [0, naggs): the even ranges that
 * agg_dist_route_by_id and the coarse levels send them to. */
typedef struct agg_ids {
  int P;
  int64_t c0, c1;
} agg_ids;

/* The entry checks of the distributed aggregate consumers: ctx and g given,
 * the output `out` (out_size bytes, cleared first; NULL and 0 when the call
 * has none) given, a built host graph and labels in [0, naggs) on every rank
 * (collective); a label out of range is `bad` (MISPC_ERR_VERIFY for verify
 * calls, MISPC_ERR_INVALID_ARG for consumers), naming the vertex. On success
 * *ids holds the rank count and this rank's share of the ids. */
mispc_status agg_dist_check_labels(mispc_context *ctx, const mispc_dist_csr *g, const int32_t *agg,
                                   int64_t naggs, mispc_status bad, const char *who, void *out,
                                   size_t out_size, agg_ids *ids);

/* The number of the first local root among all ranks' roots (an exclusive
 * scan of mine), and the total (collective). */
mispc_status agg_dist_scan_count(mispc_context *ctx, MPI_Comm comm, int64_t mine, int64_t *first,
                                 int64_t *total);

/* (id, value) records of every owned vertex, value[v] (or its global id
 * when value is NULL) labelled agg[v], routed to the rank of the id (even
 * ranges of [0, naggs)) into *got (2 * *ngot entries, in rank order; the
 * caller frees it). Collective; `who` names the call in an allocation error. */
mispc_status agg_dist_route_by_id(mispc_context *ctx, const mispc_dist_csr *g, const int32_t *agg,
                                  int64_t naggs, const int64_t *value, int64_t **got, int64_t *ngot,
                                  const char *who);

/* Records of `width` int64 words ordered by their first two words (key,
 * value) in O(n + range) where every key is in [base, base + range): a
 * stable counting sort by key, where qsort took most of the calls. The
 * routes deliver each key's records in increasing value (source rank order,
 * and each source sends in increasing vertex order), so the result is
 * (key, value) ordered; a scan checks that and sorts fully if not (or if a
 * key is out of range), so the result never depends on the argument.
 * `who` names the call in an allocation error. */
mispc_status agg_dist_sort_records(mispc_context *ctx, int64_t *rec, int64_t n, int width,
                                   int64_t base, int64_t range, const char *who);

#ifdef __cplusplus
}
#endif
#endif
