/* Internal: host backends of the distributed MIS entry points (mis_dist.c
 * has validated the arguments). */
#ifndef MISPC_MIS_DIST_BACKEND_H
#define MISPC_MIS_DIST_BACKEND_H

#include "dist_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A backend. key: for MIS-1 the key mode (MIS1_KEY_*), for MIS-2 per_round;
 * subset: NULL or the vertices of the induced subgraph. */
typedef mispc_status mis_dist_backend_fn(mispc_context *ctx, const mispc_dist_csr *g,
                                         const mispc_mis_options *opt, int key,
                                         const uint8_t *subset, uint8_t *in_set,
                                         mispc_mis_result *res);
mis_dist_backend_fn mispc_dist_mis1_host, mispc_dist_mis2_host, mispc_dist_mis1_cuda,
    mispc_dist_mis2_cuda;
/* mispc_dist_mis2_cuda with the extras of mispc_dist_mis2_ex (x non-NULL). */
mispc_status mispc_dist_mis2_cuda_ex(mispc_context *ctx, const mispc_dist_csr *g,
                                     const mispc_mis_options *opt, int key, const uint8_t *subset,
                                     uint8_t *in_set, mispc_mis_result *res,
                                     mispc_dist_mis2_extra *x);

/* MIS-2 with MISPC_PRIORITY_COVER on the host (mis2_cover_dist.c). */
mispc_status mispc_dist_mis2_cover_host(mispc_context *ctx, const mispc_dist_csr *g,
                                        const mispc_mis_options *opt, const uint8_t *subset,
                                        uint8_t *in_set, mispc_mis_result *res);

/* The same on the GPU (mis2_cover_dist_cuda.cu); ghost_subset: NULL or a
 * device array that gets the ghosts' subset flags (mispc_dist_mis2_extra). */
mispc_status mispc_dist_mis2_cover_cuda(mispc_context *ctx, const mispc_dist_csr *g,
                                        const mispc_mis_options *opt, const uint8_t *subset,
                                        uint8_t *in_set, mispc_mis_result *res,
                                        uint8_t *ghost_subset);

/* The end of a host MIS call: the status agreed on every rank, then (on
 * success) the global set size from in_set and the round count in *res. */
mispc_status mis_dist_result(mispc_context *ctx, const mispc_dist_csr *g, mispc_status s,
                             const uint8_t *in_set, int rounds, mispc_mis_result *res);

/* Global id of column c of a local row in block b (0: diagonal, 1: off-diagonal). */
static inline int64_t dist_gid(const mispc_dist_csr *g, int b, int32_t c) {
  return b ? g->garray[c] : g->rstart + c;
}

#ifdef __cplusplus
}
#endif
#endif
