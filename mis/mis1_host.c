/* MIS-1 on the host (OpenMP): the synchronous rounds of mis_common.h.
 *
 * Round r, for every undecided vertex v (in any order, in parallel):
 *   v is blocked if some neighbour u that was undecided at the start of round
 *   r comes before v (smaller key, then smaller id). Neighbours decided in an
 *   earlier round are OUT and ignored (an IN vertex marks all its neighbours
 *   OUT in its own round). Stop at the first blocking neighbour (early exit).
 *   An unblocked v becomes IN and marks its undecided neighbours OUT.
 * The stamps make every read answer the same question about the state at the
 * start of the round, so rounds, and the set, do not depend on thread timing;
 * the set equals sequential greedy in key order. Status words are accessed
 * with relaxed atomics because other threads write them during the round. */
#include <omp.h>
#include <stdlib.h>

#include "mis_backend.h"
#include "mis_common.h"

/* Returns 1 if v is still undecided after its turn in round r. */
static int mis1_visit(const mispc_csr *g, uint32_t *status, const uint32_t *key, int64_t v, int r,
                      int early_exit) {
  uint32_t kv = MIS_LOAD_RELAXED(&status[v]);
  if (mis1_is_decided(kv)) return 0;
  int blocked = 0;
  for (int64_t p = g->rowptr[v]; p < g->rowptr[v + 1]; ++p) {
    int32_t u = g->colidx[p];
    if (u == v) continue;
    uint32_t s = MIS_LOAD_RELAXED(&status[u]);
    uint32_t ku = s;
    if (mis1_is_decided(s)) {
      if (mis1_stamp_round(s) < r) continue; /* OUT since an earlier round (or outside) */
      ku = key[u];                           /* decided this round: use its start state */
    }
    if (mis1_before(ku, u, kv, v)) {
      blocked = 1;
      if (early_exit) break;
    }
  }
  if (blocked) return 1;
  MIS_STORE_RELAXED(&status[v], mis1_stamp(r, 0));
  for (int64_t p = g->rowptr[v]; p < g->rowptr[v + 1]; ++p) {
    int32_t u = g->colidx[p];
    if (u != v && !mis1_is_decided(MIS_LOAD_RELAXED(&status[u])))
      MIS_STORE_RELAXED(&status[u], mis1_stamp(r, 1));
  }
  return 0;
}

mispc_status mispc_mis1_host(mispc_context *ctx, const mispc_csr *g, const mispc_mis_options *opt,
                             int mode, const uint8_t *subset, uint8_t *in_set,
                             mispc_mis_result *res) {
  int64_t n = g->nrows;
  int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  uint32_t *status = (uint32_t *)mispc_host_alloc_n(ctx, n, 4, "MIS-1 status");
  uint32_t *key = (uint32_t *)mispc_host_alloc_n(ctx, n, 4, "MIS-1 keys");
  if (!status || !key) {
    free(status);
    free(key);
    return MISPC_ERR_ALLOC;
  }
  int nt = mispc_host_threads(ctx);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t v = 0; v < n; ++v)
    if (subset && !subset[v]) { /* outside: decided before round 0, never blocks */
      status[v] = MIS1_STAMP_EXCLUDED;
      key[v] = MIS1_KEY_NONE;
    } else {
      const int64_t b = g->rowptr[v], m = g->rowptr[v + 1] - b;
      const uint32_t cls = mode == MIS1_KEY_LINES ? mis1_line_class_row(g->colidx + b, m, v) : 1u;
      status[v] = key[v] = mis1_key_of(mode, opt->seed, v, m, cls);
    }
  int r = 0;
  int64_t undecided = 0;
#pragma omp parallel for schedule(static) reduction(+ : undecided) num_threads(nt)
  for (int64_t v = 0; v < n; ++v) undecided += !mis1_is_decided(status[v]);
  while (undecided > 0) {
    if (r >= max_rounds) {
      free(status);
      free(key);
      return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_mis1: %lld vertices undecided after %d rounds",
                          (long long)undecided, r);
    }
    int64_t left = 0;
#pragma omp parallel for schedule(dynamic, 2048) reduction(+ : left) num_threads(nt)
    for (int64_t v = 0; v < n; ++v)
      left += mis1_visit(g, status, key, v, r, !ctx->tuning.mis_no_early_exit);
    ++r;
    /* "left" counts vertices blocked this round; some may have been marked
     * OUT meanwhile, so count again from the settled state. */
    undecided = 0;
    if (left) {
#pragma omp parallel for schedule(static) reduction(+ : undecided) num_threads(nt)
      for (int64_t v = 0; v < n; ++v) undecided += !mis1_is_decided(status[v]);
    }
    mispc_logf(ctx, 2, "mis1 round %d: %lld undecided", r, (long long)undecided);
  }
  int64_t size = 0;
#pragma omp parallel for schedule(static) reduction(+ : size) num_threads(nt)
  for (int64_t v = 0; v < n; ++v) {
    in_set[v] = (uint8_t)mis1_in_set(status[v]);
    size += in_set[v];
  }
  free(status);
  free(key);
  res->set_size = size;
  res->rounds = r;
  return MISPC_SUCCESS;
}
