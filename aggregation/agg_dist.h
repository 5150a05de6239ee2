/* Internal: checks shared by the distributed aggregation files. */
#ifndef MISPC_AGG_DIST_H
#define MISPC_AGG_DIST_H

#include "dist_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A built host graph and labels in [0, naggs) on every rank (collective);
 * a label out of range is `bad` (MISPC_ERR_VERIFY for verify calls,
 * MISPC_ERR_INVALID_ARG for consumers), naming the vertex. */
mispc_status agg_dist_check_labels(mispc_context *ctx, const mispc_dist_csr *g, const int32_t *agg,
                                   int64_t naggs, mispc_status bad, const char *who);

#ifdef __cplusplus
}
#endif
#endif
