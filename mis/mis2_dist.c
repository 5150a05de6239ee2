/* Distributed MIS-2 on the host: the two-phase rounds of mis2_host.c
 * (Kokkos Kernels MIS-2 paper, Alg. 1, closed neighbourhoods) over a
 * row-partitioned graph (docs/DISTRIBUTED.md). Distance-2 information passes
 * through the ghost layer in two exchanges a round:
 *   column: M[v] = min of T over N[v] (ghost T from the last exchange);
 *   halo:   M of boundary vertices (8 bytes each);
 *   decide: from M over N[v], as on one process;
 *   halo:   the state of boundary vertices (1 byte: undecided / IN / OUT);
 *           a reader rebuilds an undecided ghost's tuple from (seed, round,
 *           global id), the tuple its owner drew.
 * Tuples hold global ids and use the global vertex count's bit split, so
 * they compare exactly as on one process: same set, same round count. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "mis_backend.h"
#include "mis_common.h"
#include "mis_dist_backend.h"

enum { UNDECIDED = 0, IN = 1, OUT = 2 };

static uint8_t state_of(uint64_t t) {
  return t == MIS2_IN ? IN : t == MIS2_OUT ? OUT : UNDECIDED;
}

/* Ghost tuples of round iter from their exchanged states (only the sent
 * vertices' states are packed, so only theirs are made; a vertex sent to
 * several ranks is written by each of its entries, the same byte). */
static mispc_status refresh_ghosts(mispc_context *ctx, const mispc_dist_csr *g, const uint64_t *T,
                                   uint8_t *own_state, uint8_t *gstate, uint64_t *gT, int per_round,
                                   uint64_t seed, int iter, int idbits, int wordbits, int nt) {
  const int32_t *sidx = g->halo->sidx;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t k = 0; k < g->halo->nsend; ++k) {
#pragma omp atomic write
    own_state[sidx[k]] = state_of(T[sidx[k]]);
  }
  MISPC_TRY(mispc_halo_exchange(ctx, g->halo, own_state, gstate, 1));
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t j = 0; j < g->nghost; ++j)
    gT[j] = gstate[j] == IN    ? MIS2_IN
            : gstate[j] == OUT ? MIS2_OUT
                               : mis2_tuple(per_round, seed, iter, g->garray[j], idbits, wordbits);
  return MISPC_SUCCESS;
}

mispc_status mispc_dist_mis2_host(mispc_context *ctx, const mispc_dist_csr *g,
                                  const mispc_mis_options *opt, int per_round,
                                  const uint8_t *subset, uint8_t *in_set, mispc_mis_result *res) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  const mispc_csr *A = &g->diag, *B = &g->offd;
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  const int idbits = mis2_id_bits(g->nglobal), wordbits = mis2_word_bits(idbits);
  const int nt = mispc_host_threads(ctx);
  uint64_t *T = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)(nloc + 1));
  uint64_t *M = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)(nloc + 1));
  uint64_t *gT = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)(ng + 1));
  uint64_t *gM = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)(ng + 1));
  uint8_t *own = (uint8_t *)malloc((size_t)nloc + 1), *gstate = (uint8_t *)malloc((size_t)ng + 1);
  uint8_t *gsub = (uint8_t *)malloc((size_t)ng + 1);
  /* Worklists (as the device rounds): col, the vertices whose M is not OUT
   * (columns still to compute); und, the undecided ones. Their order never
   * matters: each phase reads only what the previous one wrote. A phase
   * keeps each chunk's live entries (mis2_gather_chunks, counts in cnt). */
  int32_t *lists = (int32_t *)malloc(sizeof(int32_t) * 3 * (size_t)(nloc + 1));
  int64_t *cnt = (int64_t *)malloc(sizeof(int64_t) * (size_t)(mis2_chunks(nloc) + 1));
  int32_t *col = NULL, *und = NULL, *spare = NULL; /* spare: the packing target */
  if (lists) col = lists, und = col + nloc + 1, spare = und + nloc + 1;
  int64_t ncol = 0, nund = 0;
  mispc_status s = MISPC_SUCCESS;
  if (!T || !M || !gT || !gM || !own || !gstate || !gsub || !lists || !cnt)
    s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in distributed MIS-2");
  s = mispc_dist_agree(ctx, g->comm, s);
  int64_t undecided = 0;
  if (!s) {
#pragma omp parallel for schedule(static) reduction(+ : undecided) num_threads(nt)
    for (int64_t v = 0; v < nloc; ++v) {
      int inside = !subset || subset[v];
      T[v] =
          inside ? mis2_tuple(per_round, opt->seed, 0, g->rstart + v, idbits, wordbits) : MIS2_OUT;
      M[v] = inside ? MIS2_IN : MIS2_OUT; /* IN here: anything but OUT */
      own[v] = (uint8_t)inside;
      undecided += inside;
    }
    for (int64_t v = 0; v < nloc; ++v)
      if (!subset || subset[v]) col[ncol++] = (int32_t)v;
    if (ncol) memcpy(und, col, sizeof(int32_t) * (size_t)ncol);
    nund = ncol;
    s = mispc_halo_exchange(ctx, g->halo, own, gsub, 1);
    if (!s)
      s = refresh_ghosts(ctx, g, T, own, gstate, gT, per_round, opt->seed, 0, idbits, wordbits, nt);
  }
  s = mispc_dist_agree(ctx, g->comm, s);
  /* Termination lags a round: the count travels while the next column
   * phase runs (harmless when nothing is left: M is not read then). */
  int64_t local = undecided;
  MPI_Request req = MPI_REQUEST_NULL;
  if (!s) s = mispc_dist_sum_start(ctx, g->comm, &local, &undecided, &req);
  int iter = 0;
  while (!s) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int64_t c = 0; c < mis2_chunks(ncol); ++c) {
      const int64_t lo = c * MIS2_CHUNK, hi = mis2_chunk_end(c, ncol);
      int64_t k = lo;
      for (int64_t i = lo; i < hi; ++i) {
        const int32_t v = col[i]; /* M[v] is not OUT (OUT is for good) */
        uint64_t m = T[v];
        for (int64_t p = A->rowptr[v]; p < A->rowptr[v + 1]; ++p) {
          uint64_t t = T[A->colidx[p]];
          if (t < m) m = t;
        }
        for (int64_t p = B->rowptr[v]; p < B->rowptr[v + 1]; ++p) {
          uint64_t t = gT[B->colidx[p]];
          if (t < m) m = t;
        }
        M[v] = m == MIS2_IN ? MIS2_OUT : m;
        if (M[v] != MIS2_OUT) col[k++] = v;
      }
      cnt[c] = k - lo;
    }
    ncol = mis2_gather_chunks(col, ncol, cnt, spare, nt);
    int32_t *swap = col;
    col = spare, spare = swap;
    s = mispc_dist_sum_wait(ctx, g->halo, &req);
    if (s || undecided == 0) break;
    if (iter >= max_rounds) {
      s = mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                       "mispc_dist_mis2: %lld vertices undecided after %d rounds",
                       (long long)undecided, iter);
      break;
    }
    s = mispc_halo_exchange(ctx, g->halo, M, gM, sizeof *M);
    if (s) break;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int64_t c = 0; c < mis2_chunks(nund); ++c) {
      const int64_t lo = c * MIS2_CHUNK, hi = mis2_chunk_end(c, nund);
      int64_t k = lo;
      for (int64_t i = lo; i < hi; ++i) {
        const int32_t v = und[i];
        T[v] = mis2_dist_decide(v, T[v], M, gM, A->rowptr, A->colidx, B->rowptr, B->colidx, subset,
                                gsub, per_round, opt->seed, iter, g->rstart + v, idbits, wordbits);
        if (mis2_undecided(T[v])) und[k++] = v;
      }
      cnt[c] = k - lo;
    }
    const int64_t left = mis2_gather_chunks(und, nund, cnt, spare, nt);
    swap = und;
    und = spare, spare = swap;
    nund = left;
    ++iter;
    s = refresh_ghosts(ctx, g, T, own, gstate, gT, per_round, opt->seed, iter, idbits, wordbits,
                       nt);
    if (s) break;
    mispc_logf(ctx, 2, "dist mis2 round %d: %lld undecided on this rank", iter, (long long)left);
    local = left;
    s = mispc_dist_sum_start(ctx, g->comm, &local, &undecided, &req);
  }
  if (req != MPI_REQUEST_NULL) MPI_Wait(&req, MPI_STATUS_IGNORE);
  for (int64_t v = 0; T && v < nloc; ++v) in_set[v] = T[v] == MIS2_IN;
  s = mis_dist_result(ctx, g, s, in_set, iter, res);
  free(T);
  free(M);
  free(gT);
  free(gM);
  free(own);
  free(gstate);
  free(gsub);
  free(lists);
  free(cnt);
  return s;
}
