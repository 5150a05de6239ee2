/* Internal tuning of the kernels, for benchmarks and tests (not installed).
 *
 * Every knob here changes how the work is laid out on the GPU (or, for
 * mis_no_early_exit, on the host), never a result: sets, aggregates, colors
 * and Gauss-Seidel vectors stay bit-identical for every value. They exist to
 * measure (ablations, lane counts) and to let the tests reach every code path.
 * A user has nothing to gain from them, so they are not part of the public
 * API (include/mispc/): the struct may change with any commit.
 *
 * The context holds one (ctx->tuning); it is all zeros when the context is
 * created, and zero means "the library's own choice" for every field. The
 * two functions below are exported from libmispc (the bench tool inside the
 * mispc executable and the tests link the shared library) but declared only
 * here; the trailing underscore marks them internal. */
#ifndef MISPC_TUNING_H
#define MISPC_TUNING_H

#include "mispc/context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mispc_tune_order {
  MISPC_TUNE_ORDER_AUTO = 0, /* largest first where clusters reach 32 rows, else id order */
  MISPC_TUNE_ORDER_ID,       /* each color's clusters in id order */
  MISPC_TUNE_ORDER_SIZE      /* each color's clusters largest first */
} mispc_tune_order;

typedef struct mispc_tuning {
  /* MIS ablations: 1 switches one optimisation off (GPU backend, except
   * mis_no_early_exit, which the host MIS-1 reads too). Read at every call. */
  int mis_no_early_exit;      /* MIS-1: scan all neighbours of every vertex */
  int mis_no_warp_mapping;    /* thread per vertex regardless of degree */
  int mis_force_warp_mapping; /* MIS-2: warp per vertex regardless of degree */
  int mis_no_worklist;        /* process all vertices every round */
  int mis_no_persistent;      /* one launch per round (MIS, GPU coloring) instead of one
                                 cooperative kernel */
  int mis_no_sync_free;       /* MIS-1: synchronous rounds even where the sync-free pass runs */
  int mis_no_smem;            /* MIS: no shared-memory cluster kernel on small graphs */
  int mis_smem_blocks;        /* MIS: 1, 2, 4, 8 or 16 blocks for the shared-memory kernel wherever
                                 the graph fits it (0: by the graph's size) */
  int mis_smem_lanes;   /* MIS: lanes a vertex in the shared-memory kernel, 1 .. 32 (0 auto) */
  int mis1_lanes;       /* MIS-1 lanes a low-degree vertex: 1, 2, 4, 8, 16 or 32
                           (0: by the mean degree) */
  int mis2_cover_lanes; /* MIS-2 with the cover priority (GPU): lanes a vertex, 1 .. 32, a
                           power of two (0: by the mean degree) */
  int agg_hash_row;     /* GPU aggregation: phase 3's leftovers with rows of 33 .. N entries
                           count their neighbours' labels in a shared-memory hash table, longer
                           ones sort them (0: 2048; 32 or less: every one sorts) */
  int mis2_hub_row;     /* MIS-2 worklist rounds (one process and host-driven distributed):
                           the column of a row of more than this many entries runs in chunks
                           of half of it over the grid (0: 1024; less than 32: 32) */
  /* Gauss-Seidel on the GPU, read by mispc_gs_symbolic (kept by the handle). */
  int gs_lanes;          /* point: lanes a row; cluster: lanes a cluster's chain; 1 .. 32,
                            a power of two (0: by the mean row / chain) */
  int gs_sum_lanes;      /* cluster: lanes a row's fixed sum, 2, 4 or 8 (0: by the mean row) */
  int gs_block_clusters; /* cluster: clusters a block, rounded down to a power of two, at most
                            the block's groups, and still halved to fit shared memory (0: auto) */
  int gs_chain_global;   /* cluster: 1 reads the chains from global memory instead of staging
                            them in shared memory */
  int gs_chain_stream;   /* cluster: N > 0 streams the chains through tiles of N entries (raised
                            to a cluster's size; where its rows fit in shared memory) */
  int gs_no_graph;       /* 1: the apply launches per color instead of replaying a CUDA graph */
  int gs_chain_rows;     /* cluster: 1 gathers chain values through row offsets instead of
                            their entries of A */
  int gs_exact_unstaged; /* exact solves: 1 walks dense clusters' chains in global memory
                            instead of staging each cluster in shared memory */
  int gs_exact_unfused;  /* exact solves: 1 launches the outside sums and the thread chains
                            apart instead of in one kernel a color */
  int gs_cluster_order;  /* cluster: a mispc_tune_order */
  int gs_line_rounds;    /* cluster, line clusters: at most this many merge rounds (0:
                            GS_LINE_ROUNDS, whole lines); a chain shrinks about threefold a
                            round, so r rounds cap lines near 3.6 * 3^r rows */
  int gs_row_order;      /* 1: host GS swept color by color on one thread keeps each color's
                            rows in id order (else by the length of their lower parts), and
                            the distributed sweep takes no free rows first (gs_host_copy.c) */
  /* Distributed layer. */
  int dist_rounds_on_one_rank; /* 1: one rank runs the distributed rounds and its transport
                                  instead of the one-process kernels (tests of a transport) */
  int dist_graph_rounds;       /* 1: GPU MIS-2 over NCCL replays each round as a captured CUDA
                                  graph (two captures a call; experimental, not yet run) */
  int dist_lsa_rounds;         /* GPU MIS-2 (hash and cover priorities) and coloring over NCCL
                                  run all rounds in one kernel a rank,
                                  storing ghosts into the other GPUs' memory (NCCL device API,
                                  LSA; falls back where a rank cannot): 0 where the ranks send at
                                  most an eighth of the vertices in all (MIS-2) or always (the
                                  coloring's passes), 1 always, 2 never */
  int dist_color_lanes;        /* the coloring's passes in one kernel: lanes a vertex, 1, 8 or 32
                                  (0: by the mean row) */
  int dist_color_barriers;     /* 1: the coloring in one kernel meets the other ranks at a barrier
                                  after each pass; 0: polled, each vertex colored as soon as its
                                  earlier neighbours, on any rank, have their colors */
  int dist_agg_scan_labels;    /* 1: GPU aggregation on several ranks numbers each phase's roots
                                  by an MPI scan (a host wait a phase) instead of provisional
                                  labels renumbered at the end (the path of graphs of 2^30
                                  vertices or more) */
  int dist_gs_host_setup;      /* 1: the distributed GS setup of device matrices runs all on its
                                  host copies (0: point GS colors, cluster GS aggregates on the
                                  GPU) */
  int dist_pick_sort_rows;     /* aggregation on several ranks: phase 3's leftovers with rows
                                  of more than this many entries pick from their neighbours'
                                  sorted labels (0: 256 on the GPU, at least 32 there; 64 on
                                  the host) */
  int dist_ghost_search;       /* 1: a distributed graph's ghost indices by a binary search an
                                  off-rank entry (the path of graphs over 2^31 vertices) instead
                                  of one sort of (column, entry) keys */
  int dist_check_pairs;        /* 1: mispc_dist_csr_check routes (row, column) pairs of two
                                  words (the path of graphs over 2^31 vertices) instead of one
                                  8-byte key an entry */
} mispc_tuning;

/* Copies *t into the context (checked: MISPC_ERR_INVALID_ARG naming the
 * field when a value is out of range; the context keeps its tuning then).
 * t = NULL restores the defaults (all zeros). */
MISPC_API mispc_status mispc_context_set_tuning_(mispc_context *ctx, const mispc_tuning *t);
/* The context's tuning. */
MISPC_API mispc_status mispc_context_get_tuning_(const mispc_context *ctx, mispc_tuning *t);

/* Sets one field of *t from "NAME=VALUE" (the bench tool's --tune): NAME
 * is the field's name ('-' may stand for '_'), VALUE one of those that
 * mispc_tuning_knob_ lists. MISPC_ERR_INVALID_ARG (message in ctx, which may
 * be NULL) for an unknown name or a bad value. */
MISPC_API mispc_status mispc_tuning_parse_(mispc_context *ctx, mispc_tuning *t, const char *arg);
/* Knob i (0, 1, ...): its name, its values ("0|1", "auto|id|size", "N" for
 * any integer >= 0) and a short description. 0 past the last knob. */
MISPC_API int mispc_tuning_knob_(int i, const char **name, const char **values, const char **what);

#ifdef __cplusplus
}
#endif
#endif
