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

#include "dist_internal.h"
#include "mis_common.h"

/* Smallest color not in the neighbours of v that pass `counts`, 64 at a time. */
typedef struct nbr_view {
  const mispc_dist_csr *g;
  const int32_t *col, *gcol; /* colors of owned / ghost vertices */
} nbr_view;

/* JP visit: the smallest color no earlier neighbour has, or -1 while an
 * earlier neighbour is uncolored (then *blocker names it: u >= 0 an owned
 * vertex, -1 - j ghost j). */
static int32_t jp_visit(const nbr_view *w, const uint32_t *key, const uint32_t *gkey, int64_t v,
                        int64_t *blocker) {
  const mispc_dist_csr *g = w->g;
  const uint32_t kv = key[v];
  const int64_t gv = g->rstart + v;
  for (int32_t base = 0;; base += 64) {
    uint64_t taken = 0;
    for (int64_t p = g->diag.rowptr[v]; p < g->diag.rowptr[v + 1]; ++p) {
      const int32_t u = g->diag.colidx[p];
      if (u == v || !mis1_before(key[u], g->rstart + u, kv, gv)) continue;
      const int32_t cu = w->col[u];
      if (cu < 0) {
        *blocker = u;
        return -1;
      }
      if (cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
    }
    for (int64_t p = g->offd.rowptr[v]; p < g->offd.rowptr[v + 1]; ++p) {
      const int32_t j = g->offd.colidx[p];
      if (!mis1_before(gkey[j], g->garray[j], kv, gv)) continue;
      const int32_t cu = w->gcol[j];
      if (cu < 0) {
        *blocker = -1 - (int64_t)j;
        return -1;
      }
      if (cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
    }
    if (~taken) return base + __builtin_ctzll(~taken);
  }
}

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

static mispc_status color_jp(mispc_context *ctx, const mispc_dist_csr *g, int mode, uint64_t seed,
                             int32_t *col, int32_t *gcol, int32_t *ncolors) {
  const int64_t nloc = g->rend - g->rstart, ng = g->nghost;
  uint32_t *key = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(nloc + 1));
  uint32_t *gkey = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)(ng + 1));
  /* blk[v]: the uncolored earlier neighbour that stopped v's last visit; v
   * is visited again only once it has a color (a visit before would stop
   * there again): kron:18 on 2 ranks takes 578 rounds, and each round had
   * scanned the rows of every vertex still waiting. work: the vertices
   * still uncolored, in the sweep's order (kept each round). */
  int64_t *blk = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nloc + 1));
  int32_t *work = (int32_t *)malloc(sizeof(int32_t) * (size_t)(nloc + 1));
  mispc_status s = key && gkey && blk && work
                       ? MISPC_SUCCESS
                       : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in coloring");
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
  /* The owned vertices in key order (mis1_before: key, then global id,
   * which local ids follow): a chain of earlier neighbours inside the rank
   * then resolves in one sweep, and a round waits only on chains that cross
   * ranks (Elasticity3D_30 on 2 ranks: 90 rounds in id order). By id where
   * the sort's memory is short: the same colors, more rounds. */
  uint64_t *sorted = !s && nloc > 0 ? mispc_key_order(key, nloc) : NULL;
  int64_t nwork = 0;
  for (int64_t k = 0; !s && k < nloc; ++k) {
    blk[k] = INT64_MAX; /* none yet */
    work[nwork++] = (int32_t)(sorted ? (int64_t)(sorted[k] & 0xFFFFFFFFu) : k);
  }
  free(sorted);
  nbr_view w = {g, col, gcol};
  int64_t left = nloc;
  int32_t top = -1;
  if (!s) s = mispc_dist_sum(ctx, g->halo, g->comm, &left);
  for (int r = 1; !s && left > 0; ++r) {
    int64_t kept = 0;
    for (int64_t k = 0; k < nwork; ++k) {
      const int32_t v = work[k];
      const int64_t b = blk[v];
      /* still waiting on it, or colored now */
      if (b == INT64_MAX || (b >= 0 ? col[b] : gcol[-1 - b]) >= 0)
        col[v] = jp_visit(&w, key, gkey, v, &blk[v]);
      if (col[v] < 0) work[kept++] = v;
      if (col[v] > top) top = col[v];
    }
    left = nwork = kept;
    s = mispc_halo_exchange(ctx, g->halo, col, gcol, sizeof *col);
    if (!s) s = mispc_dist_sum(ctx, g->halo, g->comm, &left);
    mispc_logf(ctx, 2, "dist coloring round %d: %lld vertices left", r, (long long)left);
  }
  if (!s) s = max_over(ctx, g->comm, &top);
  if (!s) *ncolors = top + 1;
  free(work);
  free(blk);
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
