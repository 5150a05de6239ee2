/* Distributed MIS-2 with the coverage priority on the host: the steps of
 * mis2_cover_host.c over a row-partitioned graph, the ghosts' values of
 * each step through one halo exchange (the "IN in N[v]" flags, T after the
 * OUT marking, c1, T after the tuples, M, T after the decide: six a round).
 * Tuples hold global ids and the global vertex count's bit split, and the
 * counts are over the whole graph: the one-process set and rounds. */
#include <omp.h>
#include <stdlib.h>

#include "mis_backend.h"
#include "mis_common.h"
#include "mis_dist_backend.h"

mispc_status mispc_dist_mis2_cover_host(mispc_context *ctx, const mispc_dist_csr *g,
                                        const mispc_mis_options *opt, const uint8_t *subset,
                                        uint8_t *in_set, mispc_mis_result *res) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  const int64_t *ar = g->diag.rowptr, *br = g->offd.rowptr;
  const int32_t *ac = g->diag.colidx, *bc = g->offd.colidx;
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  const int idbits = mis2_id_bits(g->nglobal), nt = mispc_host_threads(ctx);
  uint64_t *T = (uint64_t *)malloc(8 * (size_t)(nloc + 1)),
           *M = (uint64_t *)malloc(8 * (size_t)(nloc + 1));
  uint64_t *gT = (uint64_t *)malloc(8 * (size_t)(ng + 1)),
           *gM = (uint64_t *)malloc(8 * (size_t)(ng + 1));
  uint32_t *C = (uint32_t *)malloc(4 * (size_t)(nloc + 1)),
           *gC = (uint32_t *)malloc(4 * (size_t)(ng + 1));
  uint8_t *own = (uint8_t *)malloc((size_t)nloc + 1), *gsub = (uint8_t *)malloc((size_t)ng + 1);
  mispc_status s = MISPC_SUCCESS;
  if (!T || !M || !gT || !gM || !C || !gC || !own || !gsub)
    s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in distributed MIS-2");
  s = mispc_dist_agree(ctx, g->comm, s);
  int64_t left = 0;
  if (!s) {
#pragma omp parallel for schedule(static) reduction(+ : left) num_threads(nt)
    for (int64_t v = 0; v < nloc; ++v) {
      const int inside = !subset || subset[v];
      T[v] = inside ? (uint64_t)(g->rstart + v + 1) : MIS2_OUT; /* undecided */
      M[v] = inside ? MIS2_IN : MIS2_OUT;                       /* IN here: not OUT */
      own[v] = (uint8_t)inside;
      left += inside;
    }
    s = mispc_halo_exchange(ctx, g->halo, own, gsub, 1);
    if (!s) s = mispc_halo_exchange(ctx, g->halo, T, gT, 8);
    if (!s) s = mispc_dist_sum(ctx, g->halo, g->comm, &left);
  }
  int iter = 0;
  while (!s && left > 0) {
    if (iter >= max_rounds) {
      s = mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                       "mispc_dist_mis2: %lld vertices undecided after %d rounds", (long long)left,
                       iter);
      break;
    }
    if (iter > 0) { /* OUT within distance 2 of the set */
#pragma omp parallel for schedule(static) num_threads(nt)
      for (int64_t v = 0; v < nloc; ++v) {
        /* a column OUT of an earlier round saw an IN vertex, and IN stays
         * (outside the subset C is never read) */
        uint32_t in = M[v] == MIS2_OUT;
        for (int64_t p = ar[v]; p < ar[v + 1] && !in; ++p) in = T[ac[p]] == MIS2_IN;
        for (int64_t p = br[v]; p < br[v + 1] && !in; ++p) in = gT[bc[p]] == MIS2_IN;
        C[v] = in;
      }
      if ((s = mispc_halo_exchange(ctx, g->halo, C, gC, 4))) break;
#pragma omp parallel for schedule(static) num_threads(nt)
      for (int64_t v = 0; v < nloc; ++v) {
        if (!mis2_undecided(T[v])) continue;
        uint32_t out = C[v];
        for (int64_t p = ar[v]; p < ar[v + 1] && !out; ++p)
          out = (!subset || subset[ac[p]]) && C[ac[p]];
        for (int64_t p = br[v]; p < br[v + 1] && !out; ++p) out = gsub[bc[p]] && gC[bc[p]];
        if (out) T[v] = MIS2_OUT;
      }
      if ((s = mispc_halo_exchange(ctx, g->halo, T, gT, 8))) break;
    }
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t v = 0; v < nloc; ++v) { /* c1 */
      /* near the set: all of N[v] has just turned OUT */
      if (iter > 0 && C[v]) {
        C[v] = 0;
        continue;
      }
      uint32_t c = (uint32_t)mis2_undecided(T[v]);
      for (int64_t p = ar[v]; p < ar[v + 1]; ++p) c += ac[p] != v && mis2_undecided(T[ac[p]]);
      for (int64_t p = br[v]; p < br[v + 1]; ++p) c += (uint32_t)mis2_undecided(gT[bc[p]]);
      C[v] = c;
    }
    if ((s = mispc_halo_exchange(ctx, g->halo, C, gC, 4))) break;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t v = 0; v < nloc; ++v) { /* c2 and the tuples */
      if (!mis2_undecided(T[v])) continue;
      uint64_t c = C[v];
      for (int64_t p = ar[v]; p < ar[v + 1]; ++p)
        if (ac[p] != v && (!subset || subset[ac[p]])) c += C[ac[p]];
      for (int64_t p = br[v]; p < br[v + 1]; ++p)
        if (gsub[bc[p]]) c += gC[bc[p]];
      T[v] = mis2_cover_tuple(opt->seed, iter, g->rstart + v, c, idbits);
    }
    if ((s = mispc_halo_exchange(ctx, g->halo, T, gT, 8))) break;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t v = 0; v < nloc; ++v) { /* column */
      if (M[v] == MIS2_OUT) continue;
      uint64_t m = T[v];
      for (int64_t p = ar[v]; p < ar[v + 1]; ++p)
        if (T[ac[p]] < m) m = T[ac[p]];
      for (int64_t p = br[v]; p < br[v + 1]; ++p)
        if (gT[bc[p]] < m) m = gT[bc[p]];
      M[v] = m == MIS2_IN ? MIS2_OUT : m;
    }
    if ((s = mispc_halo_exchange(ctx, g->halo, M, gM, 8))) break;
    int64_t still = 0;
#pragma omp parallel for schedule(static) reduction(+ : still) num_threads(nt)
    for (int64_t v = 0; v < nloc; ++v) { /* decide; the undecided keep T */
      const uint64_t t = T[v];
      if (!mis2_undecided(t)) continue;
      int out = M[v] == MIS2_OUT, all_min = M[v] == t;
      mis2_cover_scan(ac, ar[v], ar[v + 1], M, subset, t, iter == 0, &out, &all_min);
      mis2_cover_scan(bc, br[v], br[v + 1], gM, gsub, t, iter == 0, &out, &all_min);
      still += mis2_cover_verdict(&T[v], out, all_min);
    }
    ++iter;
    if ((s = mispc_halo_exchange(ctx, g->halo, T, gT, 8))) break;
    left = still;
    mispc_logf(ctx, 2, "dist mis2 (cover) round %d: %lld undecided on this rank", iter,
               (long long)left);
    s = mispc_dist_sum(ctx, g->halo, g->comm, &left);
  }
  for (int64_t v = 0; T && v < nloc; ++v) in_set[v] = T[v] == MIS2_IN;
  s = mis_dist_result(ctx, g, s, in_set, iter, res);
  free(T);
  free(M);
  free(gT);
  free(gM);
  free(C);
  free(gC);
  free(own);
  free(gsub);
  return s;
}
