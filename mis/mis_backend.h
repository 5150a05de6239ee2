/* Internal: backends behind mispc_mis1 / mispc_mis2 (not installed). The
 * entry points in mis.c have validated arguments before these are called. */
#ifndef MISPC_MIS_BACKEND_H
#define MISPC_MIS_BACKEND_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A backend. key: for MIS-1 the key mode (MIS1_KEY_*), for MIS-2 per_round
 * (priority re-drawn each round); subset: NULL or the vertices of the induced
 * subgraph. */
typedef mispc_status mis_backend_fn(mispc_context *ctx, const mispc_csr *g,
                                    const mispc_mis_options *opt, int key, const uint8_t *subset,
                                    uint8_t *in_set, mispc_mis_result *res);
mis_backend_fn mispc_mis1_host, mispc_mis2_host, mispc_mis1_cuda, mispc_mis2_cuda;
/* MIS-2 with MISPC_PRIORITY_COVER (key mis2_cover_key): called by the two above */
mispc_status mispc_mis2_cover_host(mispc_context *ctx, const mispc_csr *g,
                                   const mispc_mis_options *opt, const uint8_t *subset,
                                   uint8_t *in_set, mispc_mis_result *res);
mispc_status mispc_mis2_cover_cuda(mispc_context *ctx, const mispc_csr *g,
                                   const mispc_mis_options *opt, const uint8_t *subset,
                                   uint8_t *in_set, mispc_mis_result *res);
/* Host MIS-2 worklists: out[0..k) = the entries v of in[0..n) whose
 * word[v] is neither x nor y, in order (nt threads); returns k. out must
 * not overlap in. */
int64_t mis2_keep_live_host(const int32_t *in, int64_t n, const uint64_t *word, uint64_t x,
                            uint64_t y, int32_t *out, int nt);
mispc_status mispc_mis_to_list_cuda(mispc_context *ctx, int64_t n, const uint8_t *in_set,
                                    int32_t *list, int64_t *count);

#ifdef __cplusplus
}
#endif
#endif
