/* The context's internal tuning (tuning.h): one table of knobs, their names
 * for the bench tool's --tune NAME=VALUE, and the values each accepts. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

typedef struct knob {
  const char *name;   /* the field's name */
  size_t offset;      /* of the int field in mispc_tuning */
  const char *values; /* "a|b|c": the values allowed (a word's position is its value
                         where words are given); NULL: any integer >= 0 */
  const char *what;
} knob;

/* The largest value of a knob without a list of values (NAME=VALUE). */
#define KNOB_INT_MAX 1048576
#define KNOB_STR_(x) #x
#define KNOB_STR(x)  KNOB_STR_(x)

#define KNOB(field, values, what)                                                                  \
  { #field, offsetof(mispc_tuning, field), values, what }
static const knob knobs[] = {
    KNOB(mis_no_early_exit, "0|1", "MIS-1: scan every neighbour"),
    KNOB(mis_no_warp_mapping, "0|1", "MIS (GPU): a thread a vertex regardless of degree"),
    KNOB(mis_force_warp_mapping, "0|1", "MIS-2 (GPU): a warp a vertex regardless of degree"),
    KNOB(mis_no_worklist, "0|1", "MIS (GPU): every vertex every round"),
    KNOB(mis_no_persistent, "0|1", "MIS, coloring (GPU): a launch a round"),
    KNOB(mis_no_sync_free, "0|1", "MIS-1 (GPU): rounds instead of the sync-free pass"),
    KNOB(mis_no_smem, "0|1", "MIS, coloring (GPU): no shared-memory kernel on small graphs"),
    KNOB(mis_smem_blocks, "0|1|2|4|8|16", "MIS, coloring (GPU): shared-memory blocks, 0 auto"),
    KNOB(mis_smem_lanes, "0|1|2|4|8|16|32", "MIS, coloring (GPU): shared-memory lanes a vertex"),
    KNOB(mis1_lanes, "0|1|2|4|8|16|32", "MIS-1 (GPU): lanes a low-degree vertex, 0 auto"),
    KNOB(mis2_cover_lanes, "0|1|2|4|8|16|32",
         "MIS-2, cover priority (GPU): lanes a vertex, 0 auto"),
    KNOB(mis2_hub_row, NULL, "MIS-2 (GPU): column of rows over N entries in chunks (0: 1024)"),
    KNOB(agg_hash_row, NULL, "aggregation (GPU): phase 3 hashes rows up to N entries (0: 2048)"),
    KNOB(gs_lanes, "0|1|2|4|8|16|32", "GS (GPU): lanes a row (point) or chain (cluster)"),
    KNOB(gs_sum_lanes, "0|2|4|8", "cluster GS (GPU): lanes a row's fixed sum"),
    KNOB(gs_block_clusters, NULL, "cluster GS (GPU): clusters a block, 0 auto"),
    KNOB(gs_chain_global, "0|1", "cluster GS (GPU): chains read from global memory"),
    KNOB(gs_chain_stream, NULL, "cluster GS (GPU): chains streamed in tiles of N entries"),
    KNOB(gs_no_graph, "0|1", "GS (GPU): a launch a color, no CUDA graph"),
    KNOB(gs_chain_rows, "0|1", "cluster GS (GPU): chain values through row offsets"),
    KNOB(gs_exact_unstaged, "0|1", "GS exact solves (GPU): dense chains from global memory"),
    KNOB(gs_exact_unfused, "0|1", "GS exact solves (GPU): outside sums and chains apart"),
    KNOB(gs_cluster_order, "auto|id|size", "cluster GS (GPU): each color's cluster order"),
    KNOB(gs_line_rounds, NULL, "cluster GS: line clusters merge at most N rounds (0: whole lines)"),
    KNOB(gs_row_order, "0|1",
         "GS (host, one thread, color by color): rows in id order a color, no free rows first when "
         "distributed"),
    KNOB(dist_rounds_on_one_rank, "0|1", "distributed calls: rounds and halo on one rank too"),
    KNOB(dist_graph_rounds, "0|1", "distributed GPU MIS-2 over NCCL: a CUDA graph a round"),
    KNOB(dist_lsa_rounds, "0|1|2",
         "distributed GPU MIS-2 (hash, cover), coloring over NCCL: one kernel (0 auto, 1 on, 2 "
         "off)"),
    KNOB(dist_color_lanes, "0|1|8|32",
         "distributed GPU coloring in one kernel: lanes a vertex, 0 auto"),
    KNOB(dist_color_barriers, "0|1",
         "distributed GPU coloring in one kernel: a barrier a pass (0: polled, no barriers)"),
    KNOB(dist_agg_scan_labels, "0|1",
         "distributed GPU aggregation: roots numbered a phase at a time"),
    KNOB(dist_gs_host_setup, "0|1",
         "distributed GS of device matrices: the whole setup on the host copies"),
    KNOB(dist_pick_sort_rows, NULL,
         "distributed aggregation: phase 3 sorts the labels of rows over N (0: GPU 256, host 64)"),
    KNOB(dist_ghost_search, "0|1",
         "distributed graphs: ghost indices by a search (the path over 2^31 vertices)"),
    KNOB(dist_check_pairs, "0|1",
         "distributed graph check: (row, column) pairs (the path over 2^31 vertices)"),
};
#undef KNOB
#define NKNOBS (sizeof knobs / sizeof *knobs)

static int *field(mispc_tuning *t, const knob *k) {
  return (int *)((char *)t + k->offset);
}

/* The value of word w in k's list ("a|b|c"): its number where the list has
 * numbers, else its position; -1 when w is not in the list. */
static int list_value(const knob *k, const char *w, size_t len) {
  int pos = 0;
  for (const char *p = k->values; *p; ++pos) {
    const char *e = strchr(p, '|');
    const size_t l = e ? (size_t)(e - p) : strlen(p);
    if (l == len && !strncmp(p, w, len)) return (p[0] >= '0' && p[0] <= '9') ? atoi(p) : pos;
    p += l + (e ? 1 : 0);
  }
  return -1;
}

/* 1 when v is allowed for k. */
static int allowed(const knob *k, int v) {
  if (!k->values) return v >= 0;
  int pos = 0;
  for (const char *p = k->values; *p; ++pos) {
    const char *e = strchr(p, '|');
    const size_t l = e ? (size_t)(e - p) : strlen(p);
    if ((p[0] >= '0' && p[0] <= '9') ? atoi(p) == v : pos == v) return 1;
    p += l + (e ? 1 : 0);
  }
  return 0;
}

mispc_status mispc_context_set_tuning_(mispc_context *ctx, const mispc_tuning *t) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!t) {
    memset(&ctx->tuning, 0, sizeof ctx->tuning);
    return MISPC_SUCCESS;
  }
  mispc_tuning c = *t;
  for (size_t i = 0; i < NKNOBS; ++i) {
    const int v = *field(&c, &knobs[i]);
    if (!allowed(&knobs[i], v))
      return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "tuning: %s = %d is not one of %s",
                          knobs[i].name, v, knobs[i].values ? knobs[i].values : "0, 1, 2, ...");
  }
  ctx->tuning = c;
  return MISPC_SUCCESS;
}

mispc_status mispc_context_get_tuning_(const mispc_context *ctx, mispc_tuning *t) {
  if (!ctx || !t) return MISPC_ERR_INVALID_ARG;
  *t = ctx->tuning;
  return MISPC_SUCCESS;
}

mispc_status mispc_tuning_parse_(mispc_context *ctx, mispc_tuning *t, const char *arg) {
  if (!t || !arg) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "tuning: NULL argument");
  const char *eq = strchr(arg, '=');
  const size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
  for (size_t i = 0; i < NKNOBS; ++i) {
    const knob *k = &knobs[i];
    if (strlen(k->name) != len) continue;
    size_t j = 0; /* '-' or '_' both match the name's '_' */
    while (j < len && (arg[j] == k->name[j] || (arg[j] == '-' && k->name[j] == '_'))) ++j;
    if (j < len) continue;
    if (!eq || !eq[1])
      return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "tuning: '%s' needs a value (%s=%s)", arg,
                          k->name, k->values ? k->values : "N");
    int v = -1;
    if (k->values)
      v = list_value(k, eq + 1, strlen(eq + 1));
    else {
      char *end = NULL;
      const long l = strtol(eq + 1, &end, 10);
      if (*end == '\0' && l >= 0 && l <= KNOB_INT_MAX) v = (int)l;
    }
    if (v < 0)
      return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "tuning: bad value '%s' for %s (%s)", eq + 1,
                          k->name,
                          k->values ? k->values : "an integer from 0 to " KNOB_STR(KNOB_INT_MAX));
    *field(t, k) = v;
    return MISPC_SUCCESS;
  }
  return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                      "tuning: unknown knob '%.*s' (mispc bench --help lists them)", (int)len, arg);
}

int mispc_tuning_knob_(int i, const char **name, const char **values, const char **what) {
  if (i < 0 || (size_t)i >= NKNOBS) return 0;
  if (name) *name = knobs[i].name;
  if (values) *values = knobs[i].values ? knobs[i].values : "N";
  if (what) *what = knobs[i].what;
  return 1;
}
