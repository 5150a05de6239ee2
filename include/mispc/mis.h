/* Maximal independent sets at distance 1 and 2 (host and GPU).
 *
 * The graph must be square, with sorted, duplicate-free rows and a symmetric
 * pattern (mispc_csr_check(..., MISPC_CHECK_GRAPH)); self loops are ignored.
 * The backend follows the graph's memory space: host graphs run on the host
 * (OpenMP), device graphs on the GPU, and the result lives in the same space.
 * Results are bit-identical across backends, thread counts and runs. */
#ifndef MISPC_MIS_H
#define MISPC_MIS_H

#include <stdint.h>
#include "mispc/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mispc_priority {
  MISPC_PRIORITY_DEFAULT = 0,    /* MIS-1: degree, then line class, then hash (docs/MIS.md); MIS-2:
                                   HASH_PER_ROUND */
  MISPC_PRIORITY_DEGREE,         /* lower degree first, hash breaks ties, then id (ECL-MIS f) */
  MISPC_PRIORITY_HASH,           /* hash only, then id (fixed for the whole run) */
  MISPC_PRIORITY_HASH_PER_ROUND, /* MIS-2 only: new xorshift* hash each round (Kokkos) */
  MISPC_PRIORITY_LARGEST_DEGREE, /* MIS-1 only: higher degree first, hash, then id (coloring) */
  MISPC_PRIORITY_COVER           /* MIS-2 only: each round the vertex covering the most
                                    undecided vertices within distance 2 first, then a per-round hash,
                                    then id; fewer, larger aggregates (docs/MIS.md) */
} mispc_priority;

typedef struct mispc_mis_options {
  uint64_t seed; /* hash seed (default 0) */
  mispc_priority priority;
  int max_rounds;      /* 0: default limit (32767, the most the status words hold); a
                          non-zero limit makes the GPU's MIS-1 run rounds, not its sync-free pass */
  int skip_validation; /* 1: caller vouches for MISPC_CHECK_GRAPH (saves a pass) */
} mispc_mis_options;

MISPC_API void mispc_mis_options_default(mispc_mis_options *opt);

typedef struct mispc_mis_result {
  int64_t set_size; /* vertices in the set */
  int rounds;       /* synchronous rounds run; 0 where the GPU's MIS-1 ran its sync-free pass
                       (the same set as the rounds give, but no rounds to count) */
} mispc_mis_result;

/* in_set: n bytes in the graph's memory space; 1 for members, 0 otherwise. */
MISPC_API mispc_status mispc_mis1(mispc_context *ctx, const mispc_csr *graph,
                                  const mispc_mis_options *opt, uint8_t *in_set,
                                  mispc_mis_result *res);
MISPC_API mispc_status mispc_mis2(mispc_context *ctx, const mispc_csr *graph,
                                  const mispc_mis_options *opt, uint8_t *in_set,
                                  mispc_mis_result *res);

/* MIS-1 of the subgraph induced by the vertices with subset[v] != 0; the
 * degree priorities still use the degree in the whole graph. subset = NULL
 * is mispc_mis1. Coloring uses it for one color per call. */
MISPC_API mispc_status mispc_mis1_subset(mispc_context *ctx, const mispc_csr *graph,
                                         const mispc_mis_options *opt, const uint8_t *subset,
                                         uint8_t *in_set, mispc_mis_result *res);

/* MIS-2 of the subgraph induced by the vertices with subset[v] != 0 (n bytes
 * in the graph's memory space): distances count only paths inside the
 * subset; vertices outside it are never members. subset = NULL is mispc_mis2.
 * Aggregation uses it for its second pass over unaggregated vertices. */
MISPC_API mispc_status mispc_mis2_subset(mispc_context *ctx, const mispc_csr *graph,
                                         const mispc_mis_options *opt, const uint8_t *subset,
                                         uint8_t *in_set, mispc_mis_result *res);

/* Member ids in increasing order, from a membership array in the graph's
 * memory space; list must hold set_size entries in the same space. */
MISPC_API mispc_status mispc_mis_to_list(mispc_context *ctx, const mispc_csr *graph,
                                         const uint8_t *in_set, int32_t *list, int64_t *count);

/* Checks independence at distance k and maximality (k = 1 or 2) on the
 * host; device inputs are copied. MISPC_ERR_VERIFY with the offending
 * vertices in the context's message when wrong. */
MISPC_API mispc_status mispc_verify_mis(mispc_context *ctx, const mispc_csr *graph, int k,
                                        const uint8_t *in_set);

#ifdef __cplusplus
}
#endif
#endif
