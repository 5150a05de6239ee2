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
/* Host MIS-2 worklists in chunks (mis2_dist.c): a phase visits list[0..n)
 * in mis2_chunks(n) chunks of MIS2_CHUNK entries (chunk c: entries
 * [c MIS2_CHUNK, min(n, (c + 1) MIS2_CHUNK))), keeps the live entries of a
 * chunk at its front, in order, and their count in cnt[c];
 * mis2_gather_chunks then writes every chunk's kept entries, in chunk
 * order, to out[0..k) and returns k (cnt: mis2_chunks(n) + 1 entries,
 * turned into offsets; out must not overlap list): the live entries of the
 * list in their order, for any thread count. */
#define MIS2_CHUNK 1024
static inline int64_t mis2_chunks(int64_t n) {
  return (n + MIS2_CHUNK - 1) / MIS2_CHUNK;
}
/* The end of chunk c of a list of n entries (it starts at c MIS2_CHUNK). */
static inline int64_t mis2_chunk_end(int64_t c, int64_t n) {
  return (c + 1) * MIS2_CHUNK < n ? (c + 1) * MIS2_CHUNK : n;
}
int64_t mis2_gather_chunks(const int32_t *list, int64_t n, int64_t *cnt, int32_t *out, int nt);
mispc_status mispc_mis_to_list_cuda(mispc_context *ctx, int64_t n, const uint8_t *in_set,
                                    int32_t *list, int64_t *count);

#ifdef __cplusplus
}
#endif
#endif
