/* Host Gauss-Seidel setup: the sweep-ordered copy the host sweeps read
 * (gs_internal.h, struct gs_host_copy). The symbolic setup lays out the
 * pattern and where each value lies in A, so a numeric refresh only
 * gathers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csr_build.h"
#include "gs_internal.h"

void gs_host_copy_free(mispc_context *ctx, mispc_gs *gs) {
  struct gs_host_copy *h = &gs->h;
  void *p[] = {h->rlen,    h->zrlen,  h->perm,   h->rows,   h->cl,     h->ptr,     h->zptr,
               h->diag_at, h->wdiag,  h->t,      h->col[0], h->col[1], h->col[2],  h->col[3],
               h->src[0],  h->src[1], h->src[2], h->src[3], h->val[0], h->val[1],  h->val[2],
               h->val[3],  h->pptr,   h->sptr,   h->prlen,  h->srlen,  h->bound_cl};
  for (size_t k = 0; k < sizeof p / sizeof *p; ++k) mispc_pool_free(ctx, MISPC_MEM_HOST, p[k]);
  memset(h, 0, sizeof *h);
  if (gs->mem == MISPC_MEM_HOST) gs_exact_free(ctx, gs, MISPC_MEM_HOST);
}

/* Which part of cluster row i an entry (column j) goes to, as
 * gs_update_cluster_row (gs_row_update.h): 0 lower (earlier row of its cluster c),
 * 1 outside the cluster or the diagonal, 2 upper (later row of the
 * cluster). */
static inline int row_part(const int32_t *row_cluster, int32_t c, int32_t i, int32_t j) {
  return row_cluster[j] != c || j == i ? 1 : j < i ? 0 : 2;
}

#define ALLOC(ptr, count, elem, what)                                                              \
  if (!s) s = mispc_pool_alloc_n(ctx, MISPC_MEM_HOST, (count), (elem), (void **)&(ptr), what)

/* Point GS: whether the entry of row i (color ci) in column j (color cj)
 * is in the row's lower part (gs_row_update.h, gs_update_row): j of an
 * earlier color. */
static inline int point_lower(int32_t cj, int32_t ci) {
  return cj < ci;
}

/* Cluster GS: whether the first forward pass from x = 0 reads the entry
 * of row i in column j: j of its cluster's rows before i (updated in this
 * pass before i) or of a cluster of another color not later than i's
 * (rcolor: a row's cluster's color; neighbouring clusters have different
 * colors, those of earlier colors are updated before). The others (i
 * itself, later rows of the cluster, clusters of later colors) still hold
 * x = 0: their products are +-0 (finite a_ij, as for point GS), which
 * leave a nonzero running sum as it is, and x_i = +0 + s w_i absorbs the
 * sign of a zero one. */
static inline int cluster_zero_reads(const int32_t *rc, const int32_t *rcolor, int32_t i,
                                     int32_t j) {
  return rc[j] == rc[i] ? j < i : rcolor[j] <= rcolor[i];
}

/* Point GS, one thread, rows of at most 32 entries: h->perm (rows by color,
 * each color's rows increasing) reordered by (level, color, lower part's
 * length, row), level(i) the largest of i / GS_BLOCK_ROWS and the levels of
 * i's neighbours of earlier colors. A row then comes after its neighbours
 * of earlier colors and before those of later ones, as in the
 * color-by-color order: every row reads the same x as there (the same
 * bits), but a pass moves through b and x about once instead of once a
 * color, the colors' fronts a few mesh layers apart. Inside a (level,
 * color) the rows of one lower length come together (any order of one
 * color's rows gives the same bits), so the loops over a row's two parts
 * run the same number of times from one row to the next and their branches
 * are predicted (the 2-core VM, one thread, symmetric point sweep from x =
 * 0 of gen:laplace3d:50: 1.47-1.50 ms an apply in rows by (level, color,
 * row), 1.00 so).
 *
 * The distributed sweep (dist; A has its ghosts' columns after the rows)
 * orders so only its free rows, then the others color by color (by lower
 * length). A row is bound (not free) where it is sent to another rank
 * (sent, NULL: none), has a ghost of an earlier color, or has a bound
 * neighbour of an earlier color: the bound rows hold every row of a color
 * the exchanges read or write, and the free rows' earlier-colored
 * neighbours are free. So a forward pass sweeps the free rows before its
 * first exchange and the bound ones color by color between the exchanges,
 * a backward pass the bound ones color by color and the free ones after
 * its last exchange: every row reads the x of the color-by-color order
 * (the same bits), and most of a rank's rows are swept in one pass through
 * b and x. h->rows[c] then places color c's bound rows (h->rows[0] = the
 * free count). One process's rows are all free.
 * Returns the free rows' count, 0 (the order as it is) if the keys would be
 * too many or memory is short. */
static int64_t level_order(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A,
                           const int32_t *rcolor, int dist, const uint8_t *sent) {
  struct gs_host_copy *h = &gs->h;
  const int64_t n = gs->n, ncol = gs->ncolors;
  const int64_t nfk = ((n - 1) / GS_BLOCK_ROWS + 1) * ncol, nkeys = nfk + ncol;
  if (n < 2 || nkeys > 4 * n + 1024 || nkeys > INT32_MAX) return 0;
  int32_t *level = NULL, *perm = NULL, *lower = NULL, *by_lower = NULL;
  int64_t *at = NULL, nfree = 0;
  mispc_status s = MISPC_SUCCESS;
  ALLOC(level, n, 4, "sweep levels");
  ALLOC(perm, n, 4, "sweep order");
  ALLOC(lower, n, 4, "sweep order");
  ALLOC(by_lower, n, 4, "sweep order");
  ALLOC(at, (nkeys > 33 ? nkeys : 33) + 1, 8, "sweep levels");
  if (!s) {
    for (int64_t c = 0; c < ncol; ++c) /* colors in order: earlier colors' levels are known */
      for (int64_t q = h->rows[c]; q < h->rows[c + 1]; ++q) {
        const int32_t i = h->perm[q];
        int32_t l = (int32_t)(i / GS_BLOCK_ROWS), m = 0;
        int bound = sent && sent[i];
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
          const int32_t j = A->colidx[p];
          if (!point_lower(rcolor[j], (int32_t)c)) continue;
          ++m;
          if (j >= n || level[j] < 0)
            bound = 1;
          else if (level[j] > l)
            l = level[j];
        }
        level[i] = bound ? -1 : l;
        lower[i] = m < 32 ? m : 32;
        nfree += !bound;
      }
    for (int64_t i = 0; i < n; ++i) /* keys: the free rows', then the bound rows' colors */
      level[i] = (int32_t)(level[i] < 0 ? nfk + rcolor[i] : level[i] * ncol + rcolor[i]);
    /* rows by (lower length, row), then (stable) by key */
    s = mispc_order_by_key_host(ctx, n, lower, 33, by_lower, at);
    for (int64_t k = 0; !s && k < n; ++k) lower[k] = level[by_lower[k]];
    if (!s) s = mispc_order_by_key_host(ctx, n, lower, (int32_t)nkeys, perm, at);
    for (int64_t k = 0; !s && k < n; ++k) h->perm[k] = by_lower[perm[k]];
    if (!s && dist) { /* at[nfk + c]: where the bound rows of color c start */
      for (int64_t c = 0; c <= ncol; ++c) h->rows[c] = c < ncol ? at[nfk + c] : n;
    }
  }
  mispc_pool_free(ctx, MISPC_MEM_HOST, level);
  mispc_pool_free(ctx, MISPC_MEM_HOST, perm);
  mispc_pool_free(ctx, MISPC_MEM_HOST, lower);
  mispc_pool_free(ctx, MISPC_MEM_HOST, by_lower);
  mispc_pool_free(ctx, MISPC_MEM_HOST, at);
  return s ? 0 : nfree;
}

/* Point GS swept color by color on one thread (the distributed sweep,
 * rows over 32 entries): each color's rows (h->perm, by color, rows
 * increasing) by the length of their lower part (at most 32 apart),
 * stably, as level_order does inside a (level, color): one color's rows in
 * any order give the same bits, and rows of one length one after another
 * run the loops over a row's two parts the same number of times (predicted
 * branches). Several threads keep id order (each its rows' range of x; on
 * the 2-core VM the sorted order was no faster there). Leaves the order as
 * it is where memory is short or the keys too many. */
static void lower_order(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A,
                        const int32_t *rcolor) {
  struct gs_host_copy *h = &gs->h;
  const int64_t n = gs->n, ncol = gs->ncolors, nkeys = 33 * ncol;
  if (n < 2 || nkeys > 4 * n + 1024 || nkeys > INT32_MAX) return;
  int32_t *key = NULL, *perm = NULL;
  int64_t *at = NULL;
  mispc_status s = MISPC_SUCCESS;
  ALLOC(key, n, 4, "sweep order");
  ALLOC(perm, n, 4, "sweep order");
  ALLOC(at, nkeys + 1, 8, "sweep order");
  if (!s) {
    for (int64_t c = 0; c < ncol; ++c)
      for (int64_t q = h->rows[c]; q < h->rows[c + 1]; ++q) {
        const int32_t i = h->perm[q];
        int32_t m = 0;
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
          m += point_lower(rcolor[A->colidx[p]], (int32_t)c);
        key[q] = (int32_t)(33 * c + (m < 32 ? m : 32));
      }
    s = mispc_order_by_key_host(ctx, n, key, (int32_t)nkeys, perm, at);
    for (int64_t k = 0; !s && k < n; ++k) key[k] = h->perm[perm[k]];
    if (!s) memcpy(h->perm, key, sizeof(int32_t) * (size_t)n);
  }
  mispc_pool_free(ctx, MISPC_MEM_HOST, key);
  mispc_pool_free(ctx, MISPC_MEM_HOST, perm);
  mispc_pool_free(ctx, MISPC_MEM_HOST, at);
}

/* Cluster GS, one thread: the clusters (ids, as gs->order) by (level,
 * color, position in `order`), level(C) the largest of C's first row /
 * GS_BLOCK_ROWS and the levels of C's neighbouring clusters of earlier
 * colors (clusters of one color share no edge). A cluster then comes after
 * its neighbours of earlier colors and before those of later ones, as in
 * the color-by-color order (level_order's argument for rows): every row
 * reads the same x, the same bits, and a pass moves through b and x about
 * once instead of once a color. The distributed sweep (A with ghost
 * columns; rcolor: every column's color) orders so only its free clusters,
 * then the bound ones by color, as level_order does for rows: bound where a
 * row is sent (sent, NULL: none) or has a ghost or a bound cluster's row of
 * an earlier color; *nfree receives the free clusters' count and bound_at
 * (ncolors + 1, NULL: not wanted) where each color's bound ones start. NULL (the
 * color order) if the keys would be too many or memory is short. */
static int32_t *cluster_block_order(mispc_context *ctx, const mispc_gs *gs, const mispc_csr *A,
                                    const int32_t *rcolor, const uint8_t *sent, int64_t *bound_at,
                                    int64_t *nfree) {
  const int64_t n = gs->n, nc = gs->nclusters, ncol = gs->ncolors;
  const int64_t nfk = ((n - 1) / GS_BLOCK_ROWS + 1) * ncol, nkeys = nfk + ncol;
  *nfree = 0;
  if (n < 2 || nc < 2 || nkeys > 4 * n + 1024 || nkeys > INT32_MAX) return NULL;
  int32_t *ccolor = NULL, *level = NULL, *cord = NULL, *pos = NULL, *rcl = NULL;
  int64_t *at = NULL;
  mispc_status s = MISPC_SUCCESS;
  ALLOC(rcl, n, 4, "row clusters"); /* row -> cluster id (row_cluster: labels where distributed) */
  ALLOC(ccolor, nc, 4, "cluster colors");
  ALLOC(level, nc, 4, "cluster levels");
  ALLOC(cord, nc, 4, "cluster order");
  ALLOC(pos, nc, 4, "cluster order");
  ALLOC(at, nkeys + 1, 8, "cluster levels");
  if (!s) {
    for (int64_t c = 0; c < ncol; ++c)
      for (int64_t k = gs->color_ptr[c]; k < gs->color_ptr[c + 1]; ++k)
        ccolor[gs->order[k]] = (int32_t)c;
    for (int64_t id = 0; id < nc; ++id)
      for (int64_t r = gs->cl_ptr[id]; r < gs->cl_ptr[id + 1]; ++r)
        rcl[gs->cl_rows[r]] = (int32_t)id;
    for (int64_t k = 0; k < nc; ++k) { /* colors in order: earlier colors' levels are known */
      const int32_t id = gs->order[k], c = ccolor[id];
      int32_t l = (int32_t)(gs->cl_rows[gs->cl_ptr[id]] / GS_BLOCK_ROWS);
      int bound = 0;
      for (int64_t r = gs->cl_ptr[id]; r < gs->cl_ptr[id + 1]; ++r) {
        const int32_t i = gs->cl_rows[r];
        bound |= sent && sent[i];
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
          const int32_t j = A->colidx[p];
          if (rcolor[j] >= c) continue; /* its own cluster, or one of a later color */
          const int32_t d = j < n ? rcl[j] : -1;
          if (d < 0 || level[d] < 0)
            bound = 1;
          else if (level[d] > l)
            l = level[d];
        }
      }
      level[id] = bound ? -1 : l;
      *nfree += !bound;
    }
    for (int64_t k = 0; k < nc; ++k) { /* the key of `order`'s k-th cluster */
      const int32_t id = gs->order[k];
      cord[k] = (int32_t)(level[id] < 0 ? nfk + ccolor[id] : level[id] * ncol + ccolor[id]);
    }
    /* positions in `order` by (level, color, position), then their clusters */
    s = mispc_order_by_key_host(ctx, nc, cord, (int32_t)nkeys, pos, at);
    for (int64_t k = 0; !s && k < nc; ++k) cord[k] = gs->order[pos[k]];
    for (int64_t c = 0; !s && bound_at && c <= ncol; ++c) bound_at[c] = c < ncol ? at[nfk + c] : nc;
  }
  mispc_pool_free(ctx, MISPC_MEM_HOST, rcl);
  mispc_pool_free(ctx, MISPC_MEM_HOST, ccolor);
  mispc_pool_free(ctx, MISPC_MEM_HOST, level);
  mispc_pool_free(ctx, MISPC_MEM_HOST, pos);
  mispc_pool_free(ctx, MISPC_MEM_HOST, at);
  if (s) {
    mispc_pool_free(ctx, MISPC_MEM_HOST, cord);
    *nfree = 0;
    return NULL;
  }
  return cord;
}

/* The part of entry j of cluster row i (c: its cluster) in the copies:
 * row_part's, but 3 for one outside of an earlier color (rcolor: every
 * column's). */
static inline int cluster_part(const int32_t *rc, const int32_t *rcolor, int32_t c, int32_t i,
                               int32_t j) {
  const int part = row_part(rc, c, i, j);
  return part == 1 && j != i && rcolor[j] < rcolor[i] ? 3 : part;
}

/* Cluster row i into copy d (0 forward, 1 backward), its first `first`
 * entries at dst0 of copy d0 and the others at dst of copy d: the entries
 * of each part in gs_update_cluster_row's order for the direction, each in
 * storage order but the backward upper part, which goes from its end
 * (decreasing rows). Forward: the entries outside the cluster of earlier
 * colors, the diagonal and the rest outside, the later rows, then the
 * earlier ones; backward: outside of earlier colors, the earlier rows
 * (first: their number, where the split copies put them in copy [3]), the
 * diagonal and the rest outside, then the later rows. */
static void place_cluster_row(struct gs_host_copy *h, int d, const mispc_csr *A, const int32_t *rc,
                              const int32_t *rcolor, int32_t i, int d0, int64_t dst0, int64_t first,
                              int64_t dst) {
  /* parts in the copy's order: 0 lower, 1 diagonal or outside of a later
   * color, 2 upper, 3 outside of an earlier color */
  static const int order[2][4] = {{3, 1, 2, 0}, {3, 0, 1, 2}};
  const int64_t rb = A->rowptr[i], len = A->rowptr[i + 1] - rb;
  const int32_t c = rc[i];
  int64_t count[4] = {0, 0, 0, 0};
  for (int64_t k = 0; k < len; ++k) {
    const int32_t j = A->colidx[rb + k];
    ++count[cluster_part(rc, rcolor, c, i, j)];
  }
  int64_t at[4]; /* places in the row, 0 .. len */
  at[order[d][0]] = 0;
  for (int k = 1; k < 4; ++k) at[order[d][k]] = at[order[d][k - 1]] + count[order[d][k - 1]];
  int64_t up_end = len;
  for (int64_t k = 0; k < len; ++k) {
    const int32_t j = A->colidx[rb + k];
    const int part = cluster_part(rc, rcolor, c, i, j);
    const int64_t e = d == 1 && part == 2 ? --up_end : at[part]++;
    const int into = e < first ? d0 : d;
    const int64_t where = e < first ? dst0 + e : dst + e - first;
    h->col[into][where] = j;
    h->src[into][where] = (int32_t)k;
  }
}

mispc_status gs_host_pattern(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A, int may_block) {
  struct gs_host_copy *h = &gs->h;
  const int64_t n = gs->n, ncol = gs->ncolors, nnz = gs->nnz;
  const int cluster = gs->opt.kind == MISPC_GS_CLUSTER;
  const int32_t *rc = cluster ? gs->row_cluster : NULL;
  const int nt = mispc_host_threads(ctx);
  /* cluster GS's zero-pass copy. The handle's own sweep (may_block): with
   * rows longer than 32 (2-core VM, one thread, PETSc PCApply:
   * Elasticity3D_30 23.3 -> 20.6 ms a call) or set up for one thread
   * (clusters by level): there Laplace3D_100's first forward pass took 15 ->
   * 10.9 ms once its prefetch left the columns (gs_host.c, blocked_pass;
   * with them it cost 25.3 -> 26.2 ms an apply), Laplace3D_50 and the aniso
   * problems alike. The distributed sweep's (the ghosts' colors known;
   * gs_dist_cluster.c's first forward pass from x = 0): with rows longer
   * than 32 only (2 ranks of the VM, PETSc PCApply: Elasticity3D_30
   * 10.0-11.0 -> 8.5-8.9 ms a call with it, but Laplace3D_50 1.72-1.74 ->
   * 1.93-1.94; with the free clusters by level, 2026-12-01, `mispc gs
   * --kind cluster`, gen:laplace3d:60 one rank still 3.0 -> 3.2-3.3 ms an
   * apply with it), also on a rank without ghosts (gen:elasticity3d:20 on
   * nodes, one rank with --dist: 1.96-1.97 -> 1.44-1.51 ms) */
  int64_t maxlen = 0; /* the longest row */
  for (int64_t i = 0; i < n; ++i)
    maxlen = A->rowptr[i + 1] - A->rowptr[i] > maxlen ? A->rowptr[i + 1] - A->rowptr[i] : maxlen;
  /* exact cluster solves read their own arrays (gs_exact_host.c), not the
   * row sweep's copies: only the order, the clusters' places and the
   * diagonal's are built (and no values gathered) */
  const int copies = !gs_exact(gs);
  const int zcopy =
      copies && cluster && (may_block ? A->ncols == n && (maxlen > 32 || nt == 1) : maxlen > 32);
  /* the handle's own sweep, not the distributed one's: point GS's rows by
   * level and its first forward pass's sums */
  const int own = A->ncols == n && may_block;
  int32_t *rcolor = NULL; /* every column's color: the rows', then the ghosts' */
  mispc_status s = MISPC_SUCCESS;
  ALLOC(rcolor, A->ncols + 1, 4, "row colors");
  ALLOC(h->perm, n + 1, 4, "sweep order");
  ALLOC(h->rows, ncol + 1, 8, "color rows");
  ALLOC(h->ptr, n + 1, 8, "sorted rows");
  /* copy [2]'s rows: cluster GS's zero pass, point GS's lower parts */
  if (zcopy || (copies && !cluster)) ALLOC(h->zptr, n + 1, 8, "sorted rows");
  ALLOC(h->wdiag, n + 1, 8, "omega over the sorted diagonal");
  ALLOC(h->diag_at, n + 1, 4, "diagonal places");
  for (int d = 0; d < 2; ++d) /* point GS's copies: once their lengths are known */
    if (copies && cluster) {
      ALLOC(h->col[d], nnz + 1, 4, "sorted columns");
      ALLOC(h->val[d], nnz + 1, 8, "sorted values");
      ALLOC(h->src[d], nnz + 1, 4, "value places");
    }
  /* cluster GS with long rows: copy [1] in two (struct gs_host_copy, split) */
  const int split = copies && cluster && maxlen >= GS_RESUME_MIN_ROW;
  /* the first forward pass's sums: point GS (the distributed sweep's too:
   * gs_dist.c goes on from them) and split cluster copies (gs_dist_cluster.c
   * alike; unsplit ones never keep sums: gs_host.c, pass_copy) */
  if (copies && (!cluster || split)) ALLOC(h->t, n + 1, 8, "first pass sums");
  if (split) {
    ALLOC(h->pptr, n + 1, 8, "backward rows' first parts");
    ALLOC(h->sptr, n + 1, 8, "backward rows' last parts");
  }
  if (cluster) ALLOC(h->cl, gs->nclusters + 1, 8, "cluster rows");
  if (s) {
    mispc_pool_free(ctx, MISPC_MEM_HOST, rcolor);
    return s;
  }
  for (int64_t g = 0; g < A->ncols - n; ++g) /* the distributed sweep's ghosts' colors */
    rcolor[n + g] = gs->ghost_color ? gs->ghost_color[g] : INT32_MAX;
  if (cluster) { /* the clusters of `order` one after another, each its rows of cl_rows */
    const int64_t nc = gs->nclusters;
    for (int64_t c = 0; c < ncol; ++c) /* a row's color: its cluster's */
      for (int64_t k = gs->color_ptr[c]; k < gs->color_ptr[c + 1]; ++k)
        for (int64_t r = gs->cl_ptr[gs->order[k]]; r < gs->cl_ptr[gs->order[k] + 1]; ++r)
          rcolor[gs->cl_rows[r]] = (int32_t)c;
    /* one pass: a copy's columns and values, b, x, the permutation, omega / a_ii */
    h->prefetch = (double)nnz * 12.0 + (double)n * 28.0 > GS_PREFETCH_MIN_BYTES;
    /* set up for one thread, rows of at most 255 entries (a byte a row for
     * its length): clusters by level (cluster_block_order); the distributed
     * sweep's: its free clusters by level (exact block solves too) */
    const int dist_free = !may_block && nt == 1 && maxlen <= 255 && !ctx->tuning.gs_row_order;
    if (dist_free) ALLOC(h->bound_cl, ncol + 1, 8, "bound clusters");
    int64_t nfree = 0;
    int32_t *cord =
        !s && (may_block || dist_free) && nt == 1 && maxlen <= 255
            ? cluster_block_order(ctx, gs, A, rcolor, gs->sent_rows, h->bound_cl, &nfree)
            : NULL;
    if (!cord && h->bound_cl) {
      mispc_pool_free(ctx, MISPC_MEM_HOST, h->bound_cl);
      h->bound_cl = NULL;
    }
    const int32_t *ord = cord ? cord : gs->order;
    h->blocked = cord && may_block;
    /* blocked, rows longer than 32 (Elasticity3D_30, the 2-core VM, one
     * thread, PETSc PCApply 3 rounds): 22.6-23.4 ms a call without the
     * prefetch, 28.8-30.9 with it */
    if (cord && maxlen > 32) h->prefetch = 0;
    h->cl[0] = 0;
    for (int64_t k = 0; k < nc; ++k)
      h->cl[k + 1] = h->cl[k] + (gs->cl_ptr[ord[k] + 1] - gs->cl_ptr[ord[k]]);
    for (int64_t c = 0; c <= ncol; ++c) /* blocked: no color's rows are contiguous */
      h->rows[c] =
          h->blocked ? (c ? n : 0) : h->cl[h->bound_cl ? h->bound_cl[c] : gs->color_ptr[c]];
    if (h->bound_cl) h->nfree = h->cl[nfree]; /* the free clusters' rows first */
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t k = 0; k < nc; ++k)
      memcpy(h->perm + h->cl[k], gs->cl_rows + gs->cl_ptr[ord[k]],
             sizeof(int32_t) * (size_t)(h->cl[k + 1] - h->cl[k]));
    mispc_pool_free(ctx, MISPC_MEM_HOST, cord);
  } else {
    memcpy(h->perm, gs->order, sizeof(int32_t) * (size_t)n);
    memcpy(h->rows, gs->color_ptr, sizeof(int64_t) * (size_t)(ncol + 1));
  }
  if (!cluster) { /* row colors: the lower parts and level_order */
    for (int64_t c = 0; c < ncol; ++c)
      for (int64_t q = h->rows[c]; q < h->rows[c + 1]; ++q) rcolor[h->perm[q]] = (int32_t)c;
    /* set up for one thread, rows of at most 32 entries (longer ones, read
     * backward through memory, ran slower so): rows by level (level_order) */
    const int dist = !may_block; /* its free rows by level, bound ones by color */
    if (copies && nt == 1 && maxlen <= 32 && (own || (dist && !ctx->tuning.gs_row_order))) {
      const int64_t nfree = level_order(ctx, gs, A, rcolor, dist, gs->sent_rows);
      h->blocked = own && nfree == n;
      h->nfree = dist ? nfree : 0;
    }
    if (copies && !h->blocked && !h->nfree && nt == 1 && !ctx->tuning.gs_row_order)
      lower_order(ctx, gs, A, rcolor);
  }
  h->ptr[0] = 0;
  if (h->zptr) h->zptr[0] = 0;
  if (split) h->pptr[0] = h->sptr[0] = 0;
    /* row lengths (their running sums after), lower parts, a_ii's place */
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t q = 0; q < n; ++q) {
    const int32_t i = h->perm[q];
    const int64_t rb = A->rowptr[i], len = A->rowptr[i + 1] - rb;
    int64_t zlen = 0, first = 0;
    int32_t diag = -1;
    for (int64_t k = 0; k < len; ++k) {
      const int32_t j = A->colidx[rb + k];
      if (j == i && diag < 0) diag = (int32_t)k;
      if (zcopy) zlen += cluster_zero_reads(rc, rcolor, i, j);
      if (!cluster && copies) zlen += point_lower(rcolor[j], rcolor[i]);
      if (split) {
        const int part = cluster_part(rc, rcolor, rc[i], i, j);
        first += part == 3 || part == 0;
      }
    }
    h->ptr[q + 1] = cluster ? len : len - zlen; /* point: the others */
    if (h->zptr) h->zptr[q + 1] = zlen;
    if (split) h->pptr[q + 1] = first, h->sptr[q + 1] = len - first;
    h->diag_at[q] = diag;
  }
  for (int64_t q = 0; q < n; ++q) h->ptr[q + 1] += h->ptr[q];
  if (h->zptr) {
    for (int64_t q = 0; q < n; ++q) h->zptr[q + 1] += h->zptr[q];
  }
  if (split) {
    for (int64_t q = 0; q < n; ++q) h->pptr[q + 1] += h->pptr[q], h->sptr[q + 1] += h->sptr[q];
    ALLOC(h->col[3], h->pptr[n] + 1, 4, "sorted columns");
    ALLOC(h->val[3], h->pptr[n] + 1, 8, "sorted values");
    ALLOC(h->src[3], h->pptr[n] + 1, 4, "value places");
  }
  if (zcopy && h->zptr[n] > nnz / 4 * 3) {
    /* it would save less than a quarter of the entries: x = 0 and copy 0
     * instead, no third copy */
    mispc_pool_free(ctx, MISPC_MEM_HOST, h->zptr);
    h->zptr = NULL;
  } else if (h->zptr) {
    ALLOC(h->col[2], h->zptr[n] + 1, 4, "sorted columns");
    ALLOC(h->val[2], h->zptr[n] + 1, 8, "sorted values");
    ALLOC(h->src[2], h->zptr[n] + 1, 4, "value places");
  }
  if (copies && !cluster) { /* point: the others */
    ALLOC(h->col[0], h->ptr[n] + 1, 4, "sorted columns");
    ALLOC(h->val[0], h->ptr[n] + 1, 8, "sorted values");
    ALLOC(h->src[0], h->ptr[n] + 1, 4, "value places");
  }
  if ((h->blocked || h->nfree) && copies) {
    ALLOC(h->rlen, n + 1, 1, "row lengths");
    if (h->zptr) ALLOC(h->zrlen, n + 1, 1, "row lengths");
    if (split) ALLOC(h->prlen, n + 1, 1, "row lengths");
    if (split) ALLOC(h->srlen, n + 1, 1, "row lengths");
  }
  if (!s && copies) {
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t q = 0; q < n; ++q) {
      if (h->rlen) h->rlen[q] = (uint8_t)(h->ptr[q + 1] - h->ptr[q]);
      if (h->zrlen) h->zrlen[q] = (uint8_t)(h->zptr[q + 1] - h->zptr[q]);
      if (h->prlen) h->prlen[q] = (uint8_t)(h->pptr[q + 1] - h->pptr[q]);
      if (h->srlen) h->srlen[q] = (uint8_t)(h->sptr[q + 1] - h->sptr[q]);
      const int32_t i = h->perm[q];
      const int64_t rb = A->rowptr[i], len = A->rowptr[i + 1] - rb;
      if (cluster) {
        place_cluster_row(h, 0, A, rc, rcolor, i, 0, 0, 0, h->ptr[q]);
        if (split)
          place_cluster_row(h, 1, A, rc, rcolor, i, 3, h->pptr[q], h->pptr[q + 1] - h->pptr[q],
                            h->sptr[q]);
        else
          place_cluster_row(h, 1, A, rc, rcolor, i, 1, 0, 0, h->ptr[q]);
        if (h->zptr) /* copy [0]'s row without the entries whose x are still 0 */
          for (int64_t p = h->ptr[q], e = h->zptr[q]; p < h->ptr[q + 1]; ++p)
            if (cluster_zero_reads(rc, rcolor, i, h->col[0][p])) {
              h->col[2][e] = h->col[0][p];
              h->src[2][e++] = h->src[0][p];
            }
        continue;
      }
      /* the lower part into copy [2], the others into [0], in storage order */
      for (int64_t k = 0, lo = h->zptr[q], hi = h->ptr[q]; k < len; ++k) {
        const int32_t j = A->colidx[rb + k];
        const int d = point_lower(rcolor[j], rcolor[i]) ? 2 : 0;
        const int64_t e = d ? lo++ : hi++;
        h->col[d][e] = j;
        h->src[d][e] = (int32_t)k;
      }
    }
  }
  mispc_pool_free(ctx, MISPC_MEM_HOST, rcolor);
  if (!s && gs_exact(gs)) s = gs_exact_pattern_host(ctx, gs, A);
  return s;
}

/* Rows ahead whose values gs_host_values prefetches. */
enum { kAhead = 8 };

mispc_status gs_host_values(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A, int64_t *bad_row,
                            int *bad_kind) {
  const struct gs_host_copy *h = &gs->h;
  const int64_t n = gs->n;
  const int nt = mispc_host_threads(ctx);
  const int rp = gs->opt.require_positive_diagonal;
  const double omega = gs->opt.omega;
  uint64_t first_bad = UINT64_MAX; /* the least (row << 3 | kind), as gs_diag_host's first row */
#pragma omp parallel for schedule(static) num_threads(nt) reduction(min : first_bad)
  for (int64_t q = 0; q < n; ++q) {
    /* rows of A in sweep order are scattered: fetch ahead (their row
     * pointers further ahead) so the loads of several rows overlap */
    if (q + 2 * kAhead < n) __builtin_prefetch(A->rowptr + h->perm[q + 2 * kAhead]);
    if (q + kAhead < n) __builtin_prefetch(A->values + A->rowptr[h->perm[q + kAhead]]);
    const int32_t i = h->perm[q];
    const int64_t base = A->rowptr[i];
    for (int d = 0; d < 4; ++d) {
      const int64_t *ptr = d == 2              ? h->zptr
                           : d == 3            ? h->pptr
                           : d == 1 && h->sptr ? h->sptr
                                               : h->ptr;
      if (h->src[d])
        for (int64_t p = ptr[q]; p < ptr[q + 1]; ++p) h->val[d][p] = A->values[base + h->src[d][p]];
    }
    const int32_t at = h->diag_at[q];
    const int kind =
        gs_diag_kind(at >= 0, at >= 0 ? A->values[base + at] : 0.0, rp, omega, &h->wdiag[q]);
    if (kind) {
      const uint64_t key = (uint64_t)i << 3 | (uint64_t)kind;
      first_bad = key < first_bad ? key : first_bad;
    }
  }
  *bad_row = first_bad == UINT64_MAX ? -1 : (int64_t)(first_bad >> 3);
  *bad_kind = first_bad == UINT64_MAX ? 0 : (int)(first_bad & 7);
  if (gs_exact(gs)) return gs_exact_values_host(ctx, gs, A, bad_row, bad_kind);
  return MISPC_SUCCESS;
}
