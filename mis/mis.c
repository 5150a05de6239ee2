/* Entry points of MIS-1 / MIS-2: argument checks and backend choice by the
 * graph's memory space; verification of results. */
#include <stdlib.h>
#include <string.h>

#include "mis_backend.h"
#include "mis_common.h"

void mispc_mis_options_default(mispc_mis_options *opt) {
  if (opt) memset(opt, 0, sizeof *opt);
}

/* Fills *o from opt (or the defaults) and checks the arguments of an entry point. */
static mispc_status check_call(mispc_context *ctx, const mispc_csr *g,
                               const mispc_mis_options *user, mispc_mis_options *o, const void *out,
                               const char *name) {
  if (user)
    *o = *user;
  else
    mispc_mis_options_default(o);
  const mispc_mis_options *opt = o;
  MISPC_TRY(mispc_csr_check_desc(ctx, g, "graph"));
  if (!out) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: membership output is NULL", name);
  MISPC_TRY(mispc_check_graph_shape(ctx, g, name));
  if (opt->priority != MISPC_PRIORITY_DEFAULT && opt->priority != MISPC_PRIORITY_DEGREE &&
      opt->priority != MISPC_PRIORITY_HASH && opt->priority != MISPC_PRIORITY_HASH_PER_ROUND &&
      opt->priority != MISPC_PRIORITY_LARGEST_DEGREE && opt->priority != MISPC_PRIORITY_COVER)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "%s: priority %d is not a mispc_priority (DEFAULT, DEGREE, HASH, "
                        "HASH_PER_ROUND, LARGEST_DEGREE or COVER)",
                        name, (int)opt->priority);
  if (opt && (opt->max_rounds < 0 || opt->max_rounds > MIS1_MAX_ROUNDS))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: max_rounds must be in [0, %d], got %d",
                        name, MIS1_MAX_ROUNDS, opt->max_rounds);
  if (!(opt && opt->skip_validation)) MISPC_TRY(mispc_check_graph_for(ctx, g, name));
  return MISPC_SUCCESS;
}

/* MIS-k (k = 1, 2) of the vertices of subset (all when NULL): checks, then
 * the backend of the graph's memory space. */
static mispc_status mis_subset(mispc_context *ctx, const mispc_csr *graph,
                               const mispc_mis_options *opt, const uint8_t *subset, uint8_t *in_set,
                               mispc_mis_result *res, int k) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  mispc_mis_options o;
  MISPC_TRY(check_call(ctx, graph, opt, &o, in_set, k == 1 ? "mispc_mis1" : "mispc_mis2"));
  if (k == 1 && (o.priority == MISPC_PRIORITY_HASH_PER_ROUND || o.priority == MISPC_PRIORITY_COVER))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_mis1: per-round and cover priorities are MIS-2 options; use DEGREE "
                        "or HASH");
  if (k == 2 &&
      (o.priority == MISPC_PRIORITY_DEGREE || o.priority == MISPC_PRIORITY_LARGEST_DEGREE))
    return mispc_seterr(
        ctx, MISPC_ERR_INVALID_ARG,
        "mispc_mis2: degree priorities are MIS-1 options; use HASH_PER_ROUND or HASH");
  static mis_backend_fn *const backend[2][2] = {{mispc_mis1_host, mispc_mis1_cuda},
                                                {mispc_mis2_host, mispc_mis2_cuda}};
  /* MIS-1: the key mode; MIS-2: per-round priorities, or mis2_cover_key */
  const int key = k == 1                               ? mis1_key_mode(o.priority)
                  : o.priority == MISPC_PRIORITY_COVER ? mis2_cover_key
                                                       : o.priority != MISPC_PRIORITY_HASH;
  mispc_mis_result r = {0, 0};
  mispc_status s =
      backend[k - 1][graph->mem == MISPC_MEM_DEVICE](ctx, graph, &o, key, subset, in_set, &r);
  if (res) *res = r;
  return s;
}

mispc_status mispc_mis1(mispc_context *ctx, const mispc_csr *graph, const mispc_mis_options *opt,
                        uint8_t *in_set, mispc_mis_result *res) {
  return mis_subset(ctx, graph, opt, NULL, in_set, res, 1);
}

mispc_status mispc_mis1_subset(mispc_context *ctx, const mispc_csr *graph,
                               const mispc_mis_options *opt, const uint8_t *subset, uint8_t *in_set,
                               mispc_mis_result *res) {
  return mis_subset(ctx, graph, opt, subset, in_set, res, 1);
}

mispc_status mispc_mis2(mispc_context *ctx, const mispc_csr *graph, const mispc_mis_options *opt,
                        uint8_t *in_set, mispc_mis_result *res) {
  return mis_subset(ctx, graph, opt, NULL, in_set, res, 2);
}

mispc_status mispc_mis2_subset(mispc_context *ctx, const mispc_csr *graph,
                               const mispc_mis_options *opt, const uint8_t *subset, uint8_t *in_set,
                               mispc_mis_result *res) {
  return mis_subset(ctx, graph, opt, subset, in_set, res, 2);
}

mispc_status mispc_mis_to_list(mispc_context *ctx, const mispc_csr *graph, const uint8_t *in_set,
                               int32_t *list, int64_t *count) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  MISPC_TRY(mispc_csr_check_desc(ctx, graph, "graph"));
  if (!in_set || !list || !count)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_mis_to_list: NULL argument");
  if (graph->mem == MISPC_MEM_DEVICE)
    return mispc_mis_to_list_cuda(ctx, graph->nrows, in_set, list, count);
  int64_t c = 0;
  for (int64_t v = 0; v < graph->nrows; ++v)
    if (in_set[v]) list[c++] = (int32_t)v;
  *count = c;
  return MISPC_SUCCESS;
}

/* Distance-k check on the host. dist2 marks: for each member, walk its
 * distance-<=k ball; any other member found breaks independence; every
 * vertex must be reached by some member's ball (maximality). */
mispc_status mispc_verify_mis(mispc_context *ctx, const mispc_csr *graph, int k,
                              const uint8_t *in_set) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  MISPC_TRY(mispc_csr_check_desc(ctx, graph, "graph"));
  if (k != 1 && k != 2)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_verify_mis: k must be 1 or 2, got %d",
                        k);
  if (!in_set) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_verify_mis: NULL set");
  mispc_csr g;
  MISPC_TRY(mispc_csr_host_view(ctx, graph, &g));
  int64_t n = g.nrows;
  uint8_t *set = (uint8_t *)in_set;
  mispc_status s = MISPC_SUCCESS;
  if (graph->mem == MISPC_MEM_DEVICE) {
    set = (uint8_t *)mispc_host_alloc_n(ctx, n, 1, "membership copy");
    if (!set) s = MISPC_ERR_ALLOC;
    if (!s) s = mispc_mem_copy_n(ctx, set, MISPC_MEM_HOST, in_set, MISPC_MEM_DEVICE, n, 1);
  }
  /* covered[v]: v is within distance k of a member (members cover themselves). */
  uint8_t *covered = s ? NULL : (uint8_t *)calloc((size_t)n + 1, 1);
  if (!s && !covered) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in verify");
  int64_t bad_u = -1, bad_v = -1;
  for (int64_t v = 0; !s && v < n && bad_u < 0; ++v) {
    if (set[v] > 1) {
      s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "membership of vertex %lld is %d (not 0/1)",
                       (long long)v, set[v]);
      break;
    }
    if (!set[v]) continue;
    covered[v] = 1;
    for (int64_t p = g.rowptr[v]; p < g.rowptr[v + 1] && bad_u < 0; ++p) {
      int32_t u = g.colidx[p];
      if (u == v) continue;
      if (set[u]) bad_u = v, bad_v = u;
      covered[u] = 1;
      if (k == 2)
        for (int64_t q = g.rowptr[u]; q < g.rowptr[u + 1]; ++q) {
          int32_t w = g.colidx[q];
          if (w == v) continue;
          if (set[w]) {
            bad_u = v, bad_v = w;
            break;
          }
          covered[w] = 1;
        }
    }
  }
  if (!s && bad_u >= 0)
    s = mispc_seterr(ctx, MISPC_ERR_VERIFY,
                     "not independent at distance %d: members %lld and %lld are too close", k,
                     (long long)bad_u, (long long)bad_v);
  for (int64_t v = 0; !s && v < n; ++v)
    if (!covered[v])
      s = mispc_seterr(ctx, MISPC_ERR_VERIFY,
                       "not maximal at distance %d: vertex %lld could join the set", k,
                       (long long)v);
  free(covered);
  if (set != in_set) free(set);
  mispc_csr_free(ctx, &g);
  return s;
}
