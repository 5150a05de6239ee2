/* Distributed coloring on the host (docs/DISTRIBUTED.md, "Coloring"):
 * greedy coloring in a fixed global order, computed by Jones-Plassmann
 * rounds. The greedy coloring in an order is unique, so the colors equal
 * those of mispc_color on one process (coloring.c explains why its MIS
 * classes are greedy in key order) whatever the partition and the number of
 * rounds; the round count itself is not part of the contract. Iterated
 * greedy recoloring (coloring_recolor.c) recolors class by class from the
 * last, each class once its ghosts' new colors have arrived. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csr_build.h"
#include "dist_internal.h"
#include "mis_common.h"

/* The colors of a rank's neighbours, for recolor_visit. */
typedef struct nbr_view {
  const mispc_dist_csr *g;
  const int32_t *col, *gcol; /* colors of owned / ghost vertices */
} nbr_view;

/* Recolor visit: smallest color not taken by neighbours of an old class above c. */
static int32_t recolor_visit(const nbr_view *w, const int32_t *old, const int32_t *gold, int64_t v,
                             int32_t c) {
  const mispc_dist_csr *g = w->g;
  for (int32_t base = 0;; base += 64) {
    uint64_t taken = 0;
    for (int64_t p = g->diag.rowptr[v]; p < g->diag.rowptr[v + 1]; ++p) {
      const int32_t u = g->diag.colidx[p], cu = w->col[u];
      if (old[u] > c && cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
    }
    for (int64_t p = g->offd.rowptr[v]; p < g->offd.rowptr[v + 1]; ++p) {
      const int32_t j = g->offd.colidx[p], cu = w->gcol[j];
      if (gold[j] > c && cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
    }
    if (~taken) return base + __builtin_ctzll(~taken);
  }
}

static mispc_status max_over(mispc_context *ctx, MPI_Comm comm, int32_t *v) {
  int32_t in = *v;
  if (MPI_Allreduce(&in, v, 1, MPI_INT32_T, MPI_MAX, comm) != MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Allreduce failed");
  return MISPC_SUCCESS;
}

/* The release lists of the ghosts: for ghost j, the owned rows that hold
 * it (the off-diagonal block by column), in tptr (ng + 1) / trow. */
static mispc_status ghost_rows(mispc_context *ctx, const mispc_dist_csr *g, int64_t **tptr,
                               int32_t **trow) {
  const int64_t nloc = g->rend - g->rstart, nnz = g->offd.rowptr[nloc];
  *tptr = (int64_t *)mispc_host_alloc_n(ctx, g->nghost + 1, sizeof(int64_t), "ghost rows");
  *trow = (int32_t *)mispc_host_alloc_n(ctx, nnz + 1, sizeof(int32_t), "ghost rows");
  int32_t *rowof = (int32_t *)mispc_host_alloc_n(ctx, nnz + 1, sizeof(int32_t), "ghost rows");
  mispc_status s = *tptr && *trow && rowof ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
  if (!s) /* the entries by column, then each entry's row */
    s = mispc_order_by_key_host(ctx, nnz, g->offd.colidx, (int32_t)g->nghost, *trow, *tptr);
  if (!s) {
    for (int64_t v = 0; v < nloc; ++v)
      for (int64_t p = g->offd.rowptr[v]; p < g->offd.rowptr[v + 1]; ++p) rowof[p] = (int32_t)v;
    for (int64_t k = 0; k < nnz; ++k) (*trow)[k] = rowof[(*trow)[k]];
  }
  free(rowof);
  return s;
}

/* The color of v once all its earlier neighbours have theirs: those with a
 * color now are exactly them (a later neighbour waits for v), so no key is
 * compared; the owned neighbours still without one are the later ones,
 * whose counts the same scan lowers (those it frees go onto the queue). */
static int32_t color_release(const mispc_dist_csr *g, int32_t *col, const int32_t *gcol,
                             int32_t *pred, int32_t *queue, int64_t *tail, int64_t v) {
  const mispc_csr *A = &g->diag, *B = &g->offd;
  for (int32_t base = 0;; base += 64) {
    uint64_t taken = 0;
    for (int64_t p = A->rowptr[v]; p < A->rowptr[v + 1]; ++p) {
      const int32_t u = A->colidx[p], cu = col[u];
      if (u == v) continue;
      if (cu < 0) {
        if (base == 0 && --pred[u] == 0) queue[(*tail)++] = u;
      } else if (cu >= base && cu - base < 64) {
        taken |= 1ull << (cu - base);
      }
    }
    for (int64_t p = B->rowptr[v]; p < B->rowptr[v + 1]; ++p) {
      const int32_t cu = gcol[B->colidx[p]];
      if (cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
    }
    if (~taken) return base + __builtin_ctzll(~taken);
  }
}

/* Greedy coloring in (key, global id) order, Jones-Plassmann by release
 * counts: pred[v] counts v's earlier neighbours without a color; a vertex
 * at 0 takes the smallest color none of them has and releases its owned
 * later neighbours in the same scan (color_release), so the rank colors
 * all it can in one pass over its ready vertices (a queue), each row read
 * twice in all (the count, with keys; the color and release, without).
 * Then a round sends only the boundary colors it made
 * (mispc_halo_exchange_sparse), and each ghost that got its color releases
 * the owned rows that hold it (ghost_rows). The rounds are those of the
 * chains that cross ranks; the visits before (a vertex visited again
 * whenever the earlier neighbour it had waited on got its color, then
 * stopped at the next one; every boundary color sent each round) took
 * Elasticity3D_30 on 2 ranks 52-56 ms, kron:18 495-532 (docs/
 * DISTRIBUTED.md, "Coloring"). The first uncolored vertex in the order is
 * ready after each exchange, so a round that colors nothing anywhere
 * means a pattern that is not symmetric (the caller vouched for it): the
 * call fails instead of spinning. */
static mispc_status color_jp(mispc_context *ctx, const mispc_dist_csr *g, int mode, uint64_t seed,
                             int32_t *col, int32_t *gcol, int32_t *ncolors) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  const mispc_csr *A = &g->diag;
  uint32_t *key = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(nloc + 1));
  uint32_t *gkey = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(ng + 1));
  int32_t *pred = (int32_t *)malloc(sizeof(int32_t) * (size_t)(nloc + 1));
  int32_t *queue = (int32_t *)malloc(sizeof(int32_t) * (size_t)(nloc + 1));
  int32_t *got = (int32_t *)malloc(sizeof(int32_t) * (size_t)(ng + 1)); /* ghosts colored now */
  /* the plan's send entries by owned vertex (eptr / ent) */
  const int64_t ns_all = g->halo->nsend;
  int64_t *sent = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ns_all + 1));
  int64_t *eptr = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nloc + 1));
  int32_t *ent = (int32_t *)malloc(sizeof(int32_t) * (size_t)(ns_all + 1));
  int64_t *tptr = NULL;
  int32_t *trow = NULL;
  mispc_status s = key && gkey && pred && queue && got && sent && eptr && ent
                       ? ghost_rows(ctx, g, &tptr, &trow)
                       : MISPC_ERR_ALLOC;
  if (!s) s = mispc_order_by_key_host(ctx, ns_all, g->halo->sidx, (int32_t)nloc, ent, eptr);
  if (s) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in coloring");
  s = mispc_dist_agree(ctx, g->comm, s);
  if (!s) {
    for (int64_t v = 0; v < nloc; ++v) {
      const int64_t deg = mispc_dist_row_len(g, v);
      key[v] = mis1_key(mode, seed, g->rstart + v, deg);
      col[v] = -1;
    }
    for (int64_t j = 0; j < ng; ++j) gcol[j] = -1;
    s = mispc_halo_exchange(ctx, g->halo, key, gkey, sizeof *key);
  }
  int64_t head = 0, tail = 0, mine = nloc;
  for (int64_t v = 0; !s && v < nloc; ++v) {
    const uint32_t kv = key[v];
    const int64_t gv = g->rstart + v;
    int32_t n = 0;
    for (int64_t p = A->rowptr[v]; p < A->rowptr[v + 1]; ++p) {
      const int32_t u = A->colidx[p];
      n += u != v && mis1_before(key[u], g->rstart + u, kv, gv);
    }
    for (int64_t p = g->offd.rowptr[v]; p < g->offd.rowptr[v + 1]; ++p) {
      const int32_t j = g->offd.colidx[p];
      n += mis1_before(gkey[j], g->garray[j], kv, gv);
    }
    pred[v] = n;
    if (!n) queue[tail++] = (int32_t)v;
  }
  int64_t left = nloc, before = -1;
  int32_t top = -1;
  if (!s) s = mispc_dist_sum(ctx, g->halo, g->comm, &left);
  for (int r = 1; !s && left > 0; ++r) {
    const int64_t first = head; /* this round's colors: queue[first .. head) */
    while (head < tail) {       /* the rank's ready vertices, and those they release */
      const int32_t v = queue[head++];
      const int32_t c = color_release(g, col, gcol, pred, queue, &tail, v);
      col[v] = c;
      top = c > top ? c : top;
      --mine;
    }
    /* the new boundary colors only; each ghost that got its color releases
     * the owned rows that hold it */
    int64_t ns = 0, ngot = 0;
    for (int64_t k = first; k < head; ++k)
      for (int64_t p = eptr[queue[k]]; p < eptr[queue[k] + 1]; ++p) sent[ns++] = ent[p];
    s = mispc_halo_exchange_sparse(ctx, g->halo, sent, ns, col, gcol, got, &ngot);
    for (int64_t i = 0; !s && i < ngot; ++i) {
      const int32_t j = got[i];
      for (int64_t p = tptr[j]; p < tptr[j + 1]; ++p) {
        const int32_t v = trow[p];
        if (col[v] < 0 && --pred[v] == 0) queue[tail++] = v;
      }
    }
    left = mine;
    if (!s) s = mispc_dist_sum(ctx, g->halo, g->comm, &left);
    if (!s && left == before)
      s = mispc_seterr(ctx, MISPC_ERR_UNSYMMETRIC,
                       "mispc_dist_color: a round colored nothing (the pattern must be symmetric "
                       "without repeated entries)");
    before = left;
    mispc_logf(ctx, 2, "dist coloring round %d: %lld vertices left", r, (long long)left);
  }
  if (!s) s = max_over(ctx, g->comm, &top);
  if (!s) *ncolors = top + 1;
  free(got);
  free(sent);
  free(eptr);
  free(ent);
  free(queue);
  free(pred);
  free(tptr);
  free(trow);
  free(key);
  free(gkey);
  return mispc_dist_agree(ctx, g->comm, s);
}

static mispc_status recolor(mispc_context *ctx, const mispc_dist_csr *g, int passes, int32_t *col,
                            int32_t *gcol, int32_t *ncolors) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  int32_t *old = (int32_t *)malloc(sizeof(int32_t) * (size_t)(nloc + 1));
  int32_t *gold = (int32_t *)malloc(sizeof(int32_t) * (size_t)(ng + 1));
  mispc_status s = old && gold ? MISPC_SUCCESS
                               : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in recoloring");
  s = mispc_dist_agree(ctx, g->comm, s);
  nbr_view w = {g, col, gcol};
  for (int pass = 1; !s && pass <= passes; ++pass) {
    memcpy(old, col, sizeof(int32_t) * (size_t)nloc);
    memcpy(gold, gcol, sizeof(int32_t) * (size_t)ng);
    int32_t top = -1;
    for (int32_t c = *ncolors - 1; !s && c >= 0; --c) {
      for (int64_t v = 0; v < nloc; ++v)
        if (old[v] == c) {
          col[v] = recolor_visit(&w, old, gold, v, c);
          if (col[v] > top) top = col[v];
        }
      s = mispc_halo_exchange(ctx, g->halo, col, gcol, sizeof *col);
    }
    if (!s) s = max_over(ctx, g->comm, &top);
    if (!s) mispc_logf(ctx, 2, "dist recoloring pass %d: %d -> %d colors", pass, *ncolors, top + 1);
    if (!s) *ncolors = top + 1;
  }
  free(old);
  free(gold);
  return mispc_dist_agree(ctx, g->comm, s);
}

mispc_status mispc_dist_color(mispc_context *ctx, const mispc_dist_csr *g,
                              const mispc_coloring_options *opt, int32_t *color, int32_t *ncolors) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!g || !g->halo)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_color: graph not built");
  mispc_coloring_options o;
  if (opt)
    o = *opt;
  else
    mispc_coloring_options_default(&o);
  const int64_t nloc = g->rend - g->rstart;
  mispc_status s = MISPC_SUCCESS;
  if ((!color && nloc > 0) || !ncolors)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_color: NULL output");
  else if (o.mis.priority != MISPC_PRIORITY_HASH &&
           o.mis.priority != MISPC_PRIORITY_LARGEST_DEGREE &&
           o.mis.priority != MISPC_PRIORITY_DEGREE)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "mispc_dist_color: priority must be HASH, LARGEST_DEGREE or DEGREE");
  else if (o.algo != MISPC_COLORING_MIS && o.algo != MISPC_COLORING_GREEDY)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_color: algo must be MIS or GREEDY");
  else if (o.recolor < 0 || o.recolor > MISPC_COLORING_MAX_RECOLOR)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_color: recolor must be in [0, %d]",
                     MISPC_COLORING_MAX_RECOLOR);
  int P = 0;
  MPI_Comm_size(g->comm, &P);
  if (!s && P == 1) { /* the whole graph, global ids as local ids: mispc_color's colors */
    mispc_coloring c;
    o.mis.skip_validation = 1;
    s = mispc_color(ctx, &g->diag, &o, &c);
    if (!s) /* colors in the graph's memory space */
      s = mispc_mem_copy(ctx, color, g->diag.mem, c.color, c.mem, sizeof(int32_t) * (size_t)nloc);
    if (!s) *ncolors = c.ncolors;
    mispc_coloring_free(ctx, &c);
    return s;
  }
  s = mispc_dist_agree(ctx, g->comm, s);
  if (s) return s;
  const int mode =
      o.algo == MISPC_COLORING_GREEDY ? MIS1_KEY_INDEX : mis1_coloring_key_mode(o.mis.priority);
  if (g->diag.mem != MISPC_MEM_HOST) /* coloring_dist_cuda.cu */
    return mispc_dist_color_cuda(ctx, g, mode, o.algo == MISPC_COLORING_GREEDY ? 0 : o.mis.seed,
                                 o.recolor, color, ncolors);
  int32_t *gcol = (int32_t *)malloc(sizeof(int32_t) * (size_t)(g->nghost + 1));
  s = mispc_dist_agree(ctx, g->comm,
                       gcol ? MISPC_SUCCESS
                            : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in coloring"));
  if (!s)
    s = color_jp(ctx, g, mode, o.algo == MISPC_COLORING_GREEDY ? 0 : o.mis.seed, color, gcol,
                 ncolors);
  if (!s && o.recolor > 0) s = recolor(ctx, g, o.recolor, color, gcol, ncolors);
  free(gcol);
  return s;
}

mispc_status mispc_dist_verify_coloring(mispc_context *ctx, const mispc_dist_csr *g,
                                        const int32_t *color, int32_t ncolors) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!g || !g->halo)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_verify_coloring: graph not built");
  const int64_t nloc = g->rend - g->rstart;
  int64_t *count = (int64_t *)calloc((size_t)(ncolors > 0 ? ncolors : 0) + 1, sizeof(int64_t));
  int32_t *gcol = (int32_t *)malloc(sizeof(int32_t) * (size_t)(g->nghost + 1));
  mispc_status s = MISPC_SUCCESS;
  if (!count || !gcol)
    s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in verify");
  else if (ncolors < 0 || (!color && nloc > 0))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_verify_coloring: bad arguments");
  else if (g->diag.mem != MISPC_MEM_HOST)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "mispc_dist_verify_coloring: host graphs and colors only (copy them)");
  for (int64_t v = 0; !s && v < nloc; ++v)
    if (color[v] < 0 || color[v] >= ncolors)
      s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "vertex %lld has color %d outside [0, %d)",
                       (long long)(g->rstart + v), color[v], ncolors);
  s = mispc_dist_agree(ctx, g->comm, s);
  /* ncolors sizes the reduction of class counts below: the same on every rank
   * (every rank sees the same extremes, so they agree without a message). */
  int nc_range[2] = {ncolors, -ncolors};
  if (!s && MPI_Allreduce(MPI_IN_PLACE, nc_range, 2, MPI_INT, MPI_MAX, g->comm) != MPI_SUCCESS)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Allreduce failed");
  if (!s && nc_range[0] != -nc_range[1])
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "mispc_dist_verify_coloring: ncolors differs across ranks (%d to %d)",
                     -nc_range[1], nc_range[0]);
  if (!s) s = mispc_halo_exchange(ctx, g->halo, color, gcol, sizeof *color);
  for (int64_t v = 0; !s && v < nloc; ++v) {
    count[color[v]]++;
    for (int64_t p = g->diag.rowptr[v]; !s && p < g->diag.rowptr[v + 1]; ++p) {
      int32_t u = g->diag.colidx[p];
      if (u != v && color[u] == color[v])
        s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "adjacent vertices %lld and %lld share color %d",
                         (long long)(g->rstart + v), (long long)(g->rstart + u), color[v]);
    }
    for (int64_t p = g->offd.rowptr[v]; !s && p < g->offd.rowptr[v + 1]; ++p) {
      int32_t j = g->offd.colidx[p];
      if (gcol[j] == color[v])
        s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "adjacent vertices %lld and %lld share color %d",
                         (long long)(g->rstart + v), (long long)g->garray[j], color[v]);
    }
  }
  s = mispc_dist_agree(ctx, g->comm, s);
  if (!s && ncolors > 0 &&
      MPI_Allreduce(MPI_IN_PLACE, count, ncolors, MPI_INT64_T, MPI_SUM, g->comm) != MPI_SUCCESS)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Allreduce failed");
  for (int32_t k = 0; !s && k < ncolors; ++k)
    if (!count[k]) s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "color %d is empty", k);
  free(count);
  free(gcol);
  return mispc_dist_agree(ctx, g->comm, s);
}
