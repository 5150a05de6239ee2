/* Distributed MIS-1 on the host: the synchronous rounds of mis1_host.c over
 * a row-partitioned graph (docs/DISTRIBUTED.md).
 *
 * Round r, with every status as it was at the start of the round:
 *   select: an undecided v joins the set if no undecided neighbour (owned or
 *           ghost) comes before it in (key, global id) order;
 *   halo:   one bit per boundary vertex still undecided: did it join?
 *   remove: an undecided v with a neighbour in the set is OUT (the members
 *           mark their owned neighbours without ghosts as they join, in
 *           the select pass, as one process's stamps; rows with ghosts
 *           look at their neighbours after the first halo);
 *   halo:   one bit per boundary vertex still undecided: is it OUT now?
 *           (mispc_halo_exchange_flags: both sides know which boundary
 *           vertices are still undecided, so no ids travel), and the next
 *           round starts from the same state everywhere.
 * Keys depend on (seed, global id, global degree) only, so the set and the
 * round count are those of the one-process run for any partition. Ghost keys
 * never change: their degrees are exchanged once (cuMIS caches boundary
 * priorities). */
#include <omp.h>
#include <stdlib.h>

#include "mis_common.h"
#include "mis_dist_backend.h"

/* OUT_NOW: OUT since this round (a member's owned neighbour without
 * ghosts), OUT after the round's compaction; undecided at the round's
 * start for the select. */
enum { UNDECIDED = 0, IN = 1, OUT = 2, OUT_NOW = 3 };

/* Own vertex v's line class (mis_common.h) when the key has one. A row
 * without ghosts whose owned columns are sorted takes the one-process row
 * form on local ids (the class looks at id differences only, but its parity
 * at the global id), which reads fewer entries than gathering the global
 * ids (11-14 % of a call on one rank, perf on gen:kron:18 and
 * gen:laplace3d:80). test_mis1_line_class_forms checks that the two forms
 * agree on global ids; mpi_test_dist catches a wrong parity here. */
static uint32_t line_class(const mispc_dist_csr *g, int mode, int64_t v) {
  if (mode != MIS1_KEY_LINES) return 1u;
  const mispc_csr *A = &g->diag, *B = &g->offd;
  const int32_t *c = A->colidx + A->rowptr[v];
  const int64_t m = A->rowptr[v + 1] - A->rowptr[v], gm = B->rowptr[v + 1] - B->rowptr[v];
  if (gm == 0) {
    if (m > MIS1_LINE_MAX_DEG + 1) return 1u;
    int64_t p = 1;
    while (p < m && c[p - 1] < c[p]) ++p;
    if (p >= m) {
      const uint32_t cls = mis1_line_class_row(c, m, v);
      return cls == 1u ? 1u : 2u * (uint32_t)((g->rstart + v) & 1);
    }
  }
  return mis1_line_class(c, m, g->rstart, B->colidx + B->rowptr[v], gm, g->garray, g->rstart + v);
}

/* The class bits of a key (0 for modes without them). */
static uint32_t key_class(uint32_t key, int mode) {
  return mode == MIS1_KEY_LINES ? ((key - MIS1_DECIDED_LIMIT) >> 18) & 3u : 0u;
}

mispc_status mispc_dist_mis1_host(mispc_context *ctx, const mispc_dist_csr *g,
                                  const mispc_mis_options *opt, int mode, const uint8_t *subset,
                                  uint8_t *in_set, mispc_mis_result *res) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  const mispc_csr *A = &g->diag, *B = &g->offd;
  mispc_halo *h = g->halo;
  const int max_rounds = opt->max_rounds ? opt->max_rounds : MIS1_MAX_ROUNDS;
  uint8_t *st = (uint8_t *)malloc((size_t)nloc + 1), *gst = (uint8_t *)malloc((size_t)ng + 1);
  uint32_t *key = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(nloc + 1));
  uint32_t *gkey = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(ng + 1));
  int64_t *work = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nloc + 1));
  uint8_t *act = (uint8_t *)malloc((size_t)h->nsend + 1); /* boundary entries still undecided */
  uint16_t *code = (uint16_t *)malloc(sizeof(uint16_t) * (size_t)(nloc + 1));
  uint16_t *gcode = (uint16_t *)malloc(sizeof(uint16_t) * (size_t)(ng + 1));
  mispc_status s = MISPC_SUCCESS;
  if (!st || !gst || !key || !gkey || !work || !act || !code || !gcode)
    s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in distributed MIS-1");
  s = mispc_dist_agree(ctx, g->comm, s);
  const int nt = mispc_host_threads(ctx);
  int64_t nwork = 0;
  if (!s) {
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t v = 0; v < nloc; ++v) {
      int64_t deg = (A->rowptr[v + 1] - A->rowptr[v]) + (B->rowptr[v + 1] - B->rowptr[v]);
      int inside = !subset || subset[v];
      st[v] = inside ? UNDECIDED : OUT;
      key[v] = inside ? mis1_key_of(mode, opt->seed, g->rstart + v, deg, line_class(g, mode, v))
                      : MIS1_KEY_NONE;
    }
    for (int64_t v = 0; v < nloc; ++v)
      if (st[v] == UNDECIDED) work[nwork++] = v;
    /* Ghost keys once: the key is a function of (global id, degree capped at
     * MIS1_DEGREE_CAP, line class), so 2 bytes a boundary vertex carry degree
     * (12 bits), class (2 bits) and subset (0xFFFF: outside); hash keys
     * without a subset need nothing. */
    if (mode != MIS1_KEY_HASH || subset) {
#pragma omp parallel for schedule(static) num_threads(nt)
      for (int64_t v = 0; v < nloc; ++v) {
        int64_t deg = (A->rowptr[v + 1] - A->rowptr[v]) + (B->rowptr[v + 1] - B->rowptr[v]);
        const int64_t dq = deg > (int64_t)MIS1_DEGREE_CAP ? MIS1_DEGREE_CAP : deg;
        code[v] = st[v] == OUT ? 0xFFFF : (uint16_t)(dq | (int64_t)(key_class(key[v], mode) << 12));
      }
      s = mispc_halo_exchange(ctx, h, code, gcode, sizeof *code);
    } else
      for (int64_t j = 0; j < ng; ++j) gcode[j] = 0;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t j = 0; j < ng; ++j) {
      gst[j] = gcode[j] == 0xFFFF ? OUT : UNDECIDED;
      gkey[j] = gcode[j] == 0xFFFF ? MIS1_KEY_NONE
                                   : mis1_key_of(mode, opt->seed, g->garray[j], gcode[j] & 0xFFF,
                                                 (uint32_t)gcode[j] >> 12);
    }
    for (int64_t k = 0; k < h->nsend; ++k) act[k] = st[h->sidx[k]] == UNDECIDED;
  }
  s = mispc_dist_agree(ctx, g->comm, s);
  /* Termination lags a round: the count of round r's end travels while round
   * r + 1 selects (local work); with nothing left anywhere, nothing was
   * selected either. */
  int64_t local = nwork, undecided = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  if (!s) s = mispc_dist_sum_start(ctx, g->comm, &local, &undecided, &req);
  int r = 0;
  while (!s) {
    /* Select, each member marked IN at once, and its owned neighbours
     * without ghosts marked OUT_NOW at once (as one process's stamps): no
     * OUT is written in this pass and an undecided vertex has no member of
     * an earlier round next to it, so "not OUT" is "undecided at the round's
     * start" whatever the other threads have marked. A vertex with ghosts
     * (every boundary vertex: the pattern is symmetric) stays UNDECIDED or
     * IN here, so the IN exchange sends members only; it is marked after. */
#pragma omp parallel for schedule(dynamic, 1024) num_threads(nt)
    for (int64_t w = 0; w < nwork; ++w) {
      const int64_t v = work[w], gv = g->rstart + v;
      if (MIS_LOAD_RELAXED(&st[v]) != UNDECIDED) continue; /* OUT_NOW: a member's neighbour */
      const uint32_t kv = key[v];
      int blocked = 0;
      for (int64_t p = A->rowptr[v]; p < A->rowptr[v + 1] && !blocked; ++p) {
        const int32_t u = A->colidx[p];
        if (u != v && MIS_LOAD_RELAXED(&st[u]) != OUT && mis1_before(key[u], g->rstart + u, kv, gv))
          blocked = 1;
      }
      for (int64_t p = B->rowptr[v]; p < B->rowptr[v + 1] && !blocked; ++p) {
        const int32_t j = B->colidx[p];
        if (gst[j] == UNDECIDED && mis1_before(gkey[j], g->garray[j], kv, gv)) blocked = 1;
      }
      if (blocked) continue;
      MIS_STORE_RELAXED(&st[v], (uint8_t)IN);
      /* no later neighbour is IN (each has v before it); only OUT_NOW is
       * written, so the writes race harmlessly */
      for (int64_t p = A->rowptr[v]; p < A->rowptr[v + 1]; ++p) {
        const int32_t u = A->colidx[p];
        if (B->rowptr[u + 1] == B->rowptr[u] && MIS_LOAD_RELAXED(&st[u]) == UNDECIDED)
          MIS_STORE_RELAXED(&st[u], (uint8_t)OUT_NOW);
      }
    }
    s = mispc_dist_sum_wait(ctx, h, &req);
    if (s || undecided == 0) break;
    if (r >= max_rounds) {
      s = mispc_seterr(ctx, MISPC_ERR_NOT_CONVERGED,
                       "mispc_dist_mis1: %lld vertices undecided after %d rounds",
                       (long long)undecided, r);
      break;
    }
    s = mispc_halo_exchange_flags(ctx, h, st, act, UNDECIDED, IN, gst); /* 1 bit: became IN */
    if (s) break;
    /* The rows with ghosts still undecided: OUT next to a member, owned or
     * ghost (their owned members did not mark them). */
    if (ng > 0) {
#pragma omp parallel for schedule(dynamic, 1024) num_threads(nt)
      for (int64_t w = 0; w < nwork; ++w) {
        const int64_t v = work[w];
        if (B->rowptr[v + 1] == B->rowptr[v] || st[v] != UNDECIDED) continue;
        int hit = 0;
        for (int64_t p = B->rowptr[v]; p < B->rowptr[v + 1] && !hit; ++p)
          hit = gst[B->colidx[p]] == IN;
        for (int64_t p = A->rowptr[v]; p < A->rowptr[v + 1] && !hit; ++p)
          hit = st[A->colidx[p]] == IN; /* v itself is UNDECIDED */
        if (hit) st[v] = OUT;
      }
    }
    s = mispc_halo_exchange_flags(ctx, h, st, act, UNDECIDED, OUT, gst); /* 1 bit: became OUT */
    if (s) break;
    int64_t k = 0;
    for (int64_t w = 0; w < nwork; ++w) {
      const int64_t v = work[w];
      if (st[v] == OUT_NOW) st[v] = OUT;
      if (st[v] == UNDECIDED) work[k++] = v;
    }
    nwork = k;
    ++r;
    mispc_logf(ctx, 2, "dist mis1 round %d: %lld undecided on this rank", r, (long long)nwork);
    local = nwork;
    s = mispc_dist_sum_start(ctx, g->comm, &local, &undecided, &req);
  }
  if (req != MPI_REQUEST_NULL) MPI_Wait(&req, MPI_STATUS_IGNORE);
  for (int64_t v = 0; st && v < nloc; ++v) in_set[v] = st[v] == IN;
  s = mis_dist_result(ctx, g, s, in_set, r, res);
  free(st);
  free(gst);
  free(key);
  free(gkey);
  free(work);
  free(act);
  free(code);
  free(gcode);
  return s;
}
