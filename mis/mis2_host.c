/* MIS-2 on the host (OpenMP). Tuples live in 64-bit words here whatever
 * their width (mis_common.h), which orders them exactly as the GPU does. */
/* MIS-2 on the host (OpenMP): papers/KokkosKernels-MIS2-aggregation-clusterGS-
 * 2022.txt Alg. 1 with closed neighbourhoods. Each round has two
 * synchronous phases (no thread reads what another writes in the same phase),
 * so the result and the round count are independent of thread count.
 *   column: M[v] = min of T over N[v]; an IN minimum turns M[v] into OUT
 *           (v is adjacent to the set, so all of N[v] is within distance 2);
 *   decide: v is OUT if some M over N[v] is OUT; IN if every M over N[v]
 *           equals T[v] (v is the radius-2 minimum); else it draws a new
 *           priority for the next round. */
#include <omp.h>
#include <stdlib.h>

#include "mis_backend.h"
#include "mis_common.h"

mispc_status mispc_mis2_host(mispc_context *ctx, const mispc_csr *g, const mispc_mis_options *opt,
                             int per_round, const uint8_t *subset, uint8_t *in_set,
                             mispc_mis_result *res) {
  if (per_round == mis2_cover_key) return mispc_mis2_cover_host(ctx, g, opt, subset, in_set, res);
  int64_t n = g->nrows;
  int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  int idbits = mis2_id_bits(n), wordbits = mis2_word_bits(idbits);
  uint64_t *T = (uint64_t *)mispc_host_alloc_n(ctx, n, 8, "MIS-2 tuples");
  uint64_t *M = (uint64_t *)mispc_host_alloc_n(ctx, n, 8, "MIS-2 column minima");
  if (!T || !M) {
    free(T);
    free(M);
    return MISPC_ERR_ALLOC;
  }
  int nt = mispc_host_threads(ctx);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t v = 0; v < n; ++v) {
    int inside = !subset || subset[v];
    /* Outside the subset: OUT for good, and never a column (no relay). */
    T[v] = inside ? mis2_tuple(per_round, opt->seed, 0, v, idbits, wordbits) : MIS2_OUT;
    M[v] = inside ? MIS2_IN : MIS2_OUT; /* IN here: anything but OUT */
  }
  int iter = 0;
  int64_t undecided = 0;
#pragma omp parallel for schedule(static) reduction(+ : undecided) num_threads(nt)
  for (int64_t v = 0; v < n; ++v) undecided += T[v] != MIS2_OUT;
  while (undecided > 0) {
    if (iter >= max_rounds) {
      free(T);
      free(M);
      return mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                          "mispc_mis2: %lld vertices undecided after %d rounds",
                          (long long)undecided, iter);
    }
#pragma omp parallel for schedule(dynamic, 2048) num_threads(nt)
    for (int64_t v = 0; v < n; ++v) {
      if (M[v] == MIS2_OUT) continue; /* permanently OUT: not in worklist 2 */
      uint64_t m = T[v];
      for (int64_t p = g->rowptr[v]; p < g->rowptr[v + 1]; ++p) {
        uint64_t t = T[g->colidx[p]];
        if (t < m) m = t;
      }
      M[v] = m == MIS2_IN ? MIS2_OUT : m;
    }
    int64_t left = 0;
#pragma omp parallel for schedule(dynamic, 2048) reduction(+ : left) num_threads(nt)
    for (int64_t v = 0; v < n; ++v) {
      uint64_t t = T[v];
      if (t == MIS2_IN || t == MIS2_OUT) continue;
      int out = M[v] == MIS2_OUT, all_min = M[v] == t;
      /* Round 0 has no IN vertex, so no column is OUT: stop at the first mismatch. */
      for (int64_t p = g->rowptr[v]; p < g->rowptr[v + 1] && !out && (all_min || iter > 0); ++p) {
        int32_t u = g->colidx[p];
        if (subset && !subset[u]) continue; /* not part of the subgraph */
        uint64_t m = M[u];
        out = m == MIS2_OUT;
        all_min &= m == t;
      }
      if (out)
        T[v] = MIS2_OUT;
      else if (all_min)
        T[v] = MIS2_IN;
      else {
        T[v] = mis2_tuple(per_round, opt->seed, iter + 1, v, idbits, wordbits);
        ++left;
      }
    }
    ++iter;
    undecided = left;
    mispc_logf(ctx, 2, "mis2 round %d: %lld undecided", iter, (long long)undecided);
  }
  int64_t size = 0;
#pragma omp parallel for schedule(static) reduction(+ : size) num_threads(nt)
  for (int64_t v = 0; v < n; ++v) {
    in_set[v] = T[v] == MIS2_IN;
    size += in_set[v];
  }
  free(T);
  free(M);
  res->set_size = size;
  res->rounds = iter;
  return MISPC_SUCCESS;
}
