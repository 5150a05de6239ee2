/* Deterministic distance-1 coloring (host and GPU): color classes that are
 * MIS-1s of the uncolored vertices (computed in one pass), or greedy in
 * vertex order. */
#ifndef MISPC_COLORING_H
#define MISPC_COLORING_H

#include <stdint.h>

#include "mispc/csr.h"
#include "mispc/mis.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mispc_coloring_algo {
  /* Color c is the MIS-1 (mispc_mis1_subset, the given priority) of the
   * subgraph induced by the vertices without a color yet, so every color
   * class is a maximal independent set of what was left (default). With
   * fixed keys that is greedy coloring in key order, so it is computed in
   * one pass (Jones-Plassmann: a vertex takes the smallest color its earlier
   * neighbours lack once they have one), not one MIS-1 call per color; on
   * the GPU, graphs with hubs of more than 131,072 entries or 65,536
   * vertices still make one MIS-1 call per color. Only
   * mis.priority, mis.seed and mis.skip_validation are read. */
  MISPC_COLORING_MIS = 0,
  /* Greedy in vertex order: v takes the smallest color that no neighbour
   * u < v has. Where the numbering follows a mesh it finds few, even classes
   * (24 on Elasticity3D_60 against 45 for MIS, 2 on a 7-point Laplacian
   * against 6). On the host, sequential (O(edges)); on the GPU, the
   * one-pass coloring with the same key for every vertex (so earlier means
   * lower id), whose chains of waits follow the numbering (on graphs with
   * hubs the pattern is colored on the host and the colors copied back). */
  MISPC_COLORING_GREEDY
} mispc_coloring_algo;

#define MISPC_COLORING_MAX_RECOLOR 64 /* most recoloring passes one call takes */

typedef struct mispc_coloring_options {
  /* Priority of the MIS-1 calls: MISPC_PRIORITY_HASH (default: random order,
   * fixed per seed) or MISPC_PRIORITY_LARGEST_DEGREE (largest degree first). */
  mispc_mis_options mis;
  mispc_coloring_algo algo; /* default MISPC_COLORING_MIS */
  /* Passes of iterated greedy recoloring after the coloring (Culberson): each
   * colors the vertices greedily again, class by class from the last class
   * to the first, which never adds a color and often removes the last,
   * smallest classes. Default 0; at most MISPC_COLORING_MAX_RECOLOR. */
  int recolor;
} mispc_coloring_options;

MISPC_API void mispc_coloring_options_default(mispc_coloring_options *opt);

/* color[v] in 0 .. ncolors-1, in the graph's memory space (owned; free with
 * mispc_coloring_free and the same context). */
typedef struct mispc_coloring {
  int64_t n;
  int32_t ncolors;
  int32_t *color;
  mispc_memspace mem;
} mispc_coloring;

/* Colors the graph with opt->algo (NULL: defaults); self loops are ignored.
 * Identical on host and GPU, for any thread count. */
MISPC_API mispc_status mispc_color(mispc_context *ctx, const mispc_csr *graph,
                                   const mispc_coloring_options *opt, mispc_coloring *out);
MISPC_API void mispc_coloring_free(mispc_context *ctx, mispc_coloring *c);

/* Every vertex has a color in range, adjacent vertices differ, no color class
 * is empty. MISPC_ERR_VERIFY naming the offending edge or color otherwise. */
MISPC_API mispc_status mispc_verify_coloring(mispc_context *ctx, const mispc_csr *graph,
                                             const mispc_coloring *c);

#ifdef __cplusplus
}
#endif
#endif
