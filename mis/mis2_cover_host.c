/* MIS-2 with the coverage priority on the host (MISPC_PRIORITY_COVER; the
 * definition is in mis_common.h, mis2_cover_tuple). Each step reads only what
 * the step before wrote, so the set and the round count do not depend on
 * the thread count; mis2_cover_cuda.cu runs the same steps. */
#include <omp.h>
#include <stdlib.h>

#include "mis_backend.h"
#include "mis_common.h"

mispc_status mispc_mis2_cover_host(mispc_context *ctx, const mispc_csr *g,
                                   const mispc_mis_options *opt, const uint8_t *subset,
                                   uint8_t *in_set, mispc_mis_result *res) {
  const int64_t n = g->nrows;
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  const int idbits = mis2_id_bits(n), nt = mispc_host_threads(ctx);
  const int64_t *rp = g->rowptr;
  const int32_t *ci = g->colidx;
  uint64_t *T = (uint64_t *)mispc_host_alloc_n(ctx, n, 8, "MIS-2 tuples");
  uint64_t *M = (uint64_t *)mispc_host_alloc_n(ctx, n, 8, "MIS-2 column minima");
  uint32_t *C = (uint32_t *)mispc_host_alloc_n(ctx, n, 4, "MIS-2 cover counts");
  if (!T || !M || !C) {
    free(T);
    free(M);
    free(C);
    return MISPC_ERR_ALLOC;
  }
  int64_t left = 0;
#pragma omp parallel for schedule(static) reduction(+ : left) num_threads(nt)
  for (int64_t v = 0; v < n; ++v) {
    const int inside = !subset || subset[v];
    T[v] = inside ? (uint64_t)(v + 1) : MIS2_OUT; /* undecided; its tuple comes below */
    M[v] = inside ? MIS2_IN : MIS2_OUT;           /* IN here: anything but OUT */
    left += inside;
  }
  int iter = 0;
  mispc_status st = MISPC_SUCCESS;
  while (left > 0) {
    if (iter >= max_rounds) {
      st = mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                        "mispc_mis2: %lld vertices undecided after %d rounds", (long long)left,
                        iter);
      break;
    }
    if (iter > 0) { /* OUT within distance 2 of the set: C = "an IN vertex in N[v]" */
#pragma omp parallel for schedule(static) num_threads(nt)
      for (int64_t v = 0; v < n; ++v) {
        /* a column OUT of an earlier round saw an IN vertex, and IN stays
         * (outside the subset C is never read) */
        uint32_t in = M[v] == MIS2_OUT;
        for (int64_t p = rp[v]; p < rp[v + 1] && !in; ++p) in = T[ci[p]] == MIS2_IN;
        C[v] = in;
      }
#pragma omp parallel for schedule(static) num_threads(nt)
      for (int64_t v = 0; v < n; ++v) {
        if (!mis2_undecided(T[v])) continue;
        uint32_t out = C[v];
        for (int64_t p = rp[v]; p < rp[v + 1] && !out; ++p)
          out = (!subset || subset[ci[p]]) && C[ci[p]];
        if (out) T[v] = MIS2_OUT;
      }
    }
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t v = 0; v < n; ++v) { /* c1 */
      /* near the set: all of N[v] has just turned OUT */
      if (iter > 0 && C[v]) {
        C[v] = 0;
        continue;
      }
      uint32_t c = (uint32_t)mis2_undecided(T[v]);
      for (int64_t p = rp[v]; p < rp[v + 1]; ++p) c += ci[p] != v && mis2_undecided(T[ci[p]]);
      C[v] = c;
    }
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t v = 0; v < n; ++v) { /* c2 and the tuples */
      if (!mis2_undecided(T[v])) continue;
      uint64_t c = C[v];
      for (int64_t p = rp[v]; p < rp[v + 1]; ++p)
        if (ci[p] != v && (!subset || subset[ci[p]])) c += C[ci[p]];
      T[v] = mis2_cover_tuple(opt->seed, iter, v, c, idbits);
    }
#pragma omp parallel for schedule(dynamic, 2048) num_threads(nt)
    for (int64_t v = 0; v < n; ++v) { /* column, as mis2_host.c */
      if (M[v] == MIS2_OUT) continue;
      uint64_t m = T[v];
      for (int64_t p = rp[v]; p < rp[v + 1]; ++p)
        if (T[ci[p]] < m) m = T[ci[p]];
      M[v] = m == MIS2_IN ? MIS2_OUT : m;
    }
    int64_t still = 0;
#pragma omp parallel for schedule(dynamic, 2048) reduction(+ : still) num_threads(nt)
    for (int64_t v = 0; v < n; ++v) { /* decide, as mis2_host.c; the undecided keep T */
      const uint64_t t = T[v];
      if (!mis2_undecided(t)) continue;
      int out = M[v] == MIS2_OUT, all_min = M[v] == t;
      mis2_cover_scan(ci, rp[v], rp[v + 1], M, subset, t, iter == 0, &out, &all_min);
      still += mis2_cover_verdict(&T[v], out, all_min);
    }
    ++iter;
    left = still;
    mispc_logf(ctx, 2, "mis2 (cover) round %d: %lld undecided", iter, (long long)left);
  }
  int64_t size = 0;
  if (!st) {
#pragma omp parallel for schedule(static) reduction(+ : size) num_threads(nt)
    for (int64_t v = 0; v < n; ++v) {
      in_set[v] = T[v] == MIS2_IN;
      size += in_set[v];
    }
    res->set_size = size;
    res->rounds = iter;
  }
  free(T);
  free(M);
  free(C);
  return st;
}
