/* Distributed MIS-2 aggregation on the host (docs/DISTRIBUTED.md,
 * "Aggregation"): the phases of aggregate_host.c over a row-partitioned
 * graph, giving mispc_aggregate's labels for any partition.
 *   phase 1: roots = distributed MIS-2; the k-th root in global id order gets
 *            id k (exclusive scan of per-rank counts: ranks hold increasing
 *            id ranges); a vertex takes the id of the root in N[v] (at most
 *            one: roots are distance-2 independent), ghosts' root ids by halo;
 *   phase 2: MIS-2 of the unaggregated subgraph; members with >= 2
 *            unaggregated neighbours (ghosts included) are numbered after all
 *            phase-1 ids, and take their unaggregated neighbours;
 *   phase 3: a leftover joins the aggregate holding most of its neighbours
 *            (ties: smaller size, then smaller id), or for mis2basic the
 *            aggregate of its smallest-global-id aggregated neighbour. Sizes
 *            of aggregates that span ranks are summed at the root (reverse
 *            halo), then sent to every member and from there to the ghosts.
 * The vertex loops run on the context's threads (mispc_host_threads); each
 * writes only its own vertex's entries and the counts are integer sums, so
 * the labels do not depend on the thread count. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agg_backend.h"
#include "dist_internal.h"

typedef struct agg_work {
  const mispc_dist_csr *g;
  int64_t nloc, ng;
  int64_t *rootid, *grootid; /* id of the aggregate a root heads, else -1 */
  int32_t *gagg;             /* ghost labels */
  uint8_t *flag, *gflag;     /* unaggregated (on entry to phase 2) */
} agg_work;

mispc_status agg_dist_scan_count(mispc_context *ctx, MPI_Comm comm, int64_t mine, int64_t *first,
                                 int64_t *total) {
  int64_t before = 0, all = 0;
  if (MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
      MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI scan of root counts failed");
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  *first = rank ? before : 0;
  *total = all;
  return MISPC_SUCCESS;
}

/* Roots with set[v] (and, in phase 2, the root rule) get ids base + first + k
 * in local id order; every vertex v with take(v) joins the root in N[v]. */
static mispc_status label_roots(mispc_context *ctx, agg_work *w, const uint8_t *is_root,
                                int64_t base, int phase2, int32_t *agg, int64_t *naggs) {
  const mispc_dist_csr *g = w->g;
  const int nt = mispc_host_threads(ctx);
  int64_t count = 0, first = 0, total = 0;
#pragma omp parallel for reduction(+ : count) schedule(static) num_threads(nt)
  for (int64_t v = 0; v < w->nloc; ++v) count += is_root[v] != 0;
  MISPC_TRY(agg_dist_scan_count(ctx, g->comm, count, &first, &total));
  int64_t k = base + first;
  /* phase 2 writes its roots' ids over phase 1's and keeps the others: a
   * vertex free after phase 1 has no phase-1 root in N[v] (it would have
   * joined it), so its join sees only phase-2 roots, and phase 3 finds the
   * roots of both phases in one array, exchanged here once */
  for (int64_t v = 0; v < w->nloc; ++v)
    if (is_root[v])
      w->rootid[v] = k++;
    else if (!phase2)
      w->rootid[v] = -1;
  MISPC_TRY(mispc_halo_exchange(ctx, g->halo, w->rootid, w->grootid, sizeof(int64_t)));
  /* each vertex writes only its own label (threads: the same labels) */
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t v = 0; v < w->nloc; ++v) {
    if (phase2 ? !w->flag[v] : agg[v] >= 0) continue; /* phase 2: free on entry only */
    int64_t id = w->rootid[v];
    for (int64_t p = g->diag.rowptr[v]; p < g->diag.rowptr[v + 1] && id < 0; ++p)
      id = w->rootid[g->diag.colidx[p]];
    for (int64_t p = g->offd.rowptr[v]; p < g->offd.rowptr[v + 1] && id < 0; ++p)
      id = w->grootid[g->offd.colidx[p]];
    if (id >= 0) agg[v] = (int32_t)id;
  }
  *naggs = base + total;
  return MISPC_SUCCESS;
}

/* Phase-2 roots: members free on entry with >= min_free free neighbours
 * (self loops not counted). */
static void phase2_roots(agg_work *w, const uint8_t *set, int min_free, int nt, uint8_t *is_root) {
  const mispc_dist_csr *g = w->g;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t v = 0; v < w->nloc; ++v) {
    is_root[v] = 0;
    if (!set[v] || !w->flag[v]) continue;
    int cnt = 0;
    for (int64_t p = g->diag.rowptr[v]; p < g->diag.rowptr[v + 1] && cnt < min_free; ++p)
      cnt += g->diag.colidx[p] != v && w->flag[g->diag.colidx[p]];
    for (int64_t p = g->offd.rowptr[v]; p < g->offd.rowptr[v + 1] && cnt < min_free; ++p)
      cnt += w->gflag[g->offd.colidx[p]];
    is_root[v] = cnt >= min_free;
  }
}

/* The root of v's aggregate among N[v]: -1 - (owned id) or ghost index j >= 0;
 * returns 0 if not found (cannot happen after phases 1 and 2). */
static int find_root(const agg_work *w, const int32_t *agg, int64_t v, int64_t *own, int64_t *gh) {
  const mispc_dist_csr *g = w->g;
  *own = *gh = -1;
  if (w->rootid[v] == agg[v]) return *own = v, 1;
  for (int64_t p = g->diag.rowptr[v]; p < g->diag.rowptr[v + 1]; ++p)
    if (w->rootid[g->diag.colidx[p]] == agg[v]) return *own = g->diag.colidx[p], 1;
  for (int64_t p = g->offd.rowptr[v]; p < g->offd.rowptr[v + 1]; ++p)
    if (w->grootid[g->offd.colidx[p]] == agg[v]) return *gh = g->offd.colidx[p], 1;
  return 0;
}

/* Size after phase 2 of the aggregate of every aggregated owned vertex and
 * ghost (agg: this rank's labels, w->gagg the ghosts'). The aggregates of
 * phases 1 and 2 are stars (every member joined the root in its N[v]), so
 * each root counts its own: itself and its neighbours with its label,
 * ghosts included; the roots' sizes go to the ghosts' copies and each
 * member takes its root's. As aggregate_dist_cuda.cu's root_sizes. */
static mispc_status aggregate_sizes(mispc_context *ctx, agg_work *w, const int32_t *agg,
                                    int64_t *asize, int64_t *gsize) {
  const mispc_dist_csr *g = w->g;
  const int64_t nloc = w->nloc, ng = w->ng;
  const int nt = mispc_host_threads(ctx);
  int64_t *cnt = (int64_t *)calloc((size_t)nloc + 1, sizeof(int64_t));
  int64_t *gcnt = (int64_t *)calloc((size_t)ng + 1, sizeof(int64_t));
  mispc_status s =
      cnt && gcnt ? MISPC_SUCCESS : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in phase 3");
  s = mispc_dist_agree(ctx, g->comm, s);
  /* Roots of phase 2 replaced none of phase 1: rootid holds both phases. */
  if (!s)
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t v = 0; v < nloc; ++v) {
      const int32_t a = agg[v];
      if (a < 0 || w->rootid[v] != a) continue;
      int64_t c = 1;
      for (int64_t p = g->diag.rowptr[v]; p < g->diag.rowptr[v + 1]; ++p)
        c += g->diag.colidx[p] != v && agg[g->diag.colidx[p]] == a;
      for (int64_t p = g->offd.rowptr[v]; p < g->offd.rowptr[v + 1]; ++p)
        c += w->gagg[g->offd.colidx[p]] == a;
      cnt[v] = c;
    }
  if (!s) s = mispc_halo_exchange(ctx, g->halo, cnt, gcnt, sizeof(int64_t));
  if (!s)
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t v = 0; v < nloc; ++v) {
      int64_t o, j;
      asize[v] = 0;
      if (agg[v] >= 0 && find_root(w, agg, v, &o, &j)) asize[v] = o >= 0 ? cnt[o] : gcnt[j];
    }
  if (!s) s = mispc_halo_exchange(ctx, w->g->halo, asize, gsize, sizeof(int64_t));
  free(cnt);
  free(gcnt);
  return s;
}

/* Leftovers with rows of more than this many entries (tuning
 * dist_pick_sort_rows moves it) pick by pick_sorted: counting each
 * candidate over the row, as the loop in phase3 does, is the degree squared
 * (a power-law graph's hubs). */
#define PICK_SORT_ROWS 64

/* Phase 3's pick for leftover v from its neighbours' keys (label << 32 |
 * aggregate size; labels < 2^31, so the keys are non-negative int64),
 * sorted: a run of one label is its count. The candidates,
 * counts, sizes and order of phase3's loop, so the same label (as
 * aggregate_dist_cuda.cu's pick_sorted); keys holds the row. */
static int32_t pick_sorted(const agg_work *w, const int32_t *tent, const int64_t *asize,
                           const int64_t *gsize, int64_t v, int64_t *keys) {
  const mispc_dist_csr *g = w->g;
  int64_t m = 0;
  for (int64_t p = g->diag.rowptr[v]; p < g->diag.rowptr[v + 1]; ++p) {
    const int32_t c = g->diag.colidx[p];
    if (c != v && tent[c] >= 0) keys[m++] = (int64_t)tent[c] << 32 | (uint32_t)asize[c];
  }
  for (int64_t p = g->offd.rowptr[v]; p < g->offd.rowptr[v + 1]; ++p) {
    const int32_t c = g->offd.colidx[p];
    if (w->gagg[c] >= 0) keys[m++] = (int64_t)w->gagg[c] << 32 | (uint32_t)gsize[c];
  }
  qsort(keys, (size_t)m, sizeof *keys, mispc_cmp_i64);
  int32_t best = -1;
  int64_t best_cnt = 0, best_size = 0;
  for (int64_t i = 0, j; i < m; i = j) {
    for (j = i + 1; j < m && keys[j] >> 32 == keys[i] >> 32; ++j) {
    }
    const int32_t l = (int32_t)(keys[i] >> 32);
    const int64_t cnt = j - i, sz = (int64_t)(keys[i] & 0xffffffffu);
    if (cnt > best_cnt || (cnt == best_cnt && (sz < best_size || (sz == best_size && l < best))))
      best = l, best_cnt = cnt, best_size = sz;
  }
  return best;
}

static mispc_status phase3(mispc_context *ctx, agg_work *w, int basic, int32_t *agg) {
  const mispc_dist_csr *g = w->g;
  const int64_t nloc = w->nloc, ng = w->ng;
  const int nt = mispc_host_threads(ctx);
  int32_t *tent = (int32_t *)malloc(sizeof(int32_t) * (size_t)(nloc + 1));
  int64_t *asize = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nloc + 1));
  int64_t *gsize = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ng + 1));
  mispc_status s = tent && asize && gsize
                       ? MISPC_SUCCESS
                       : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in phase 3");
  s = mispc_dist_agree(ctx, g->comm, s);
  if (!s) {
    memcpy(tent, agg, sizeof(int32_t) * (size_t)nloc);
    s = mispc_halo_exchange(ctx, g->halo, tent, w->gagg, sizeof(int32_t));
  }
  if (!s && !basic) s = aggregate_sizes(ctx, w, tent, asize, gsize);
  /* long rows: a buffer of keys a thread (pick_sorted) */
  const int knob = ctx->tuning.dist_pick_sort_rows;
  const int64_t sort_rows = knob ? knob : PICK_SORT_ROWS;
  int64_t longest = 0;
  if (!s && !basic)
#pragma omp parallel for reduction(max : longest) schedule(static) num_threads(nt)
    for (int64_t v = 0; v < nloc; ++v) {
      const int64_t d = mispc_dist_row_len(g, v);
      if (tent[v] < 0 && d > longest) longest = d;
    }
  const int sorted = longest > sort_rows;
  /* each leftover writes only its own label; the orphan reported is the
   * lowest, as in one pass (threads: the same labels and message) */
  int64_t orphan = INT64_MAX, nsorted = 0;
  int failed = 0;
  if (!s)
#pragma omp parallel reduction(min : orphan) reduction(| : failed) reduction(+ : nsorted) \
    num_threads(nt)
  {
    int64_t *keys = sorted ? (int64_t *)malloc(sizeof(int64_t) * (size_t)longest) : NULL;
    if (sorted && !keys) failed = 1;
#pragma omp for schedule(static)
    for (int64_t v = 0; v < nloc; ++v) {
      if (tent[v] >= 0) continue;
      if (!basic && mispc_dist_row_len(g, v) > sort_rows) {
        ++nsorted;
        const int32_t l = keys ? pick_sorted(w, tent, asize, gsize, v, keys) : -1;
        if (l >= 0)
          agg[v] = l;
        else if (keys && g->rstart + v < orphan)
          orphan = g->rstart + v;
        continue;
      }
      int32_t best = -1;
      int64_t best_cnt = 0, best_size = 0, umin = -1;
      /* Candidates: labels of aggregated neighbours; counts by rescanning (rows are short). */
      for (int b = 0; b < 2; ++b) {
        const mispc_csr *B = b ? &g->offd : &g->diag;
        for (int64_t p = B->rowptr[v]; p < B->rowptr[v + 1]; ++p) {
          const int32_t c = B->colidx[p];
          const int64_t gu = b ? g->garray[c] : g->rstart + c;
          const int32_t l = b ? w->gagg[c] : tent[c];
          if ((!b && c == v) || l < 0) continue;
          if (basic) {
            if (umin < 0 || gu < umin) umin = gu, best = l;
            continue;
          }
          const int64_t sz = b ? gsize[c] : asize[c];
          int64_t cnt = 0;
          for (int b2 = 0; b2 < 2; ++b2) {
            const mispc_csr *B2 = b2 ? &g->offd : &g->diag;
            for (int64_t q = B2->rowptr[v]; q < B2->rowptr[v + 1]; ++q) {
              const int32_t c2 = B2->colidx[q];
              if (!b2 && c2 == v) continue;
              cnt += (b2 ? w->gagg[c2] : tent[c2]) == l;
            }
          }
          if (cnt > best_cnt ||
              (cnt == best_cnt && (sz < best_size || (sz == best_size && l < best))))
            best = l, best_cnt = cnt, best_size = sz;
        }
      }
      if (best >= 0)
        agg[v] = best;
      else if (g->rstart + v < orphan)
        orphan = g->rstart + v;
    }
    free(keys);
  }
  if (!s && failed) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory in phase 3");
  if (!s && sorted)
    mispc_logf(ctx, 2,
               "  dist aggregation (host) phase 3: %lld leftovers of rows over %lld entries pick "
               "from sorted labels",
               (long long)nsorted, (long long)sort_rows);
  if (!s && orphan != INT64_MAX)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                     "aggregation phase 3: vertex %lld has no aggregated neighbour (the root set "
                     "is not a maximal distance-2 independent set)",
                     (long long)orphan);
  free(tent);
  free(asize);
  free(gsize);
  return mispc_dist_agree(ctx, g->comm, s);
}

/* One rank: mispc_aggregate on the diagonal block (its labels by contract;
 * on the GPU for device graphs), labels copied to the graph's memory space. */
static mispc_status one_rank(mispc_context *ctx, const mispc_dist_csr *g, mispc_agg_options *o,
                             int32_t *agg, mispc_dist_agg_info *info) {
  mispc_aggregates a;
  o->mis.skip_validation = 1;
  mispc_status s = mispc_aggregate(ctx, &g->diag, o, &a);
  if (!s) s = mispc_mem_copy(ctx, agg, g->diag.mem, a.agg, a.mem, sizeof(int32_t) * (size_t)a.n);
  if (!s && info) {
    info->naggs = a.naggs;
    for (int k = 0; k < 3; ++k)
      info->phase_aggs[k] = a.phase_aggs[k], info->phase_done[k] = a.phase_done[k];
    info->mis_rounds[0] = a.mis_rounds[0];
    info->mis_rounds[1] = a.mis_rounds[1];
  }
  mispc_aggregates_free(ctx, &a);
  return s;
}

mispc_status mispc_dist_aggregate(mispc_context *ctx, const mispc_dist_csr *g,
                                  const mispc_agg_options *opt, int32_t *agg,
                                  mispc_dist_agg_info *info) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!g || !g->halo)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_aggregate: graph not built");
  mispc_agg_options o;
  if (opt)
    o = *opt;
  else
    mispc_agg_options_default(&o);
  agg_work w = {g, g->rend - g->rstart, g->nghost, NULL, NULL, NULL, NULL, NULL};
  mispc_status s = MISPC_SUCCESS;
  if (o.algo != MISPC_AGG_MIS2AGG && o.algo != MISPC_AGG_MIS2BASIC)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_aggregate: unknown algorithm %d",
                     (int)o.algo);
  else if (o.isolated != MISPC_ISOLATED_SINGLETONS)
    s = mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED,
                     "mispc_dist_aggregate: isolated vertices stay singletons on several ranks "
                     "(MISPC_ISOLATED_COLLECT is one process only)");
  else if (o.max_size != 0)
    s = mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED,
                     "mispc_dist_aggregate: aggregate sizes are not bounded on several ranks "
                     "(max_size is one process only)");
  else if (!agg && w.nloc > 0)
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_dist_aggregate: output is NULL");
  int P = 0;
  MPI_Comm_size(g->comm, &P);
  if (!s && P == 1) /* the whole graph, global ids as local ids */
    return one_rank(ctx, g, &o, agg, info);
  s = mispc_dist_agree(ctx, g->comm, s);
  if (s) return s;
  if (g->diag.mem != MISPC_MEM_HOST) /* aggregate_dist_cuda.cu */
    return mispc_dist_aggregate_cuda(ctx, g, &o, agg, info);
  uint8_t *set = (uint8_t *)malloc((size_t)w.nloc + 1),
          *is_root =
              (uint8_t *)calloc((size_t)w.nloc + 1, 1); /* calloc: gcc -Wmaybe-uninitialized */
  w.rootid = (int64_t *)malloc(sizeof(int64_t) * (size_t)(w.nloc + 1));
  w.grootid = (int64_t *)malloc(sizeof(int64_t) * (size_t)(w.ng + 1));
  w.gagg = (int32_t *)malloc(sizeof(int32_t) * (size_t)(w.ng + 1));
  w.flag = (uint8_t *)malloc((size_t)w.nloc + 1);
  w.gflag = (uint8_t *)malloc((size_t)w.ng + 1);
  if (!set || !is_root || !w.rootid || !w.grootid || !w.gagg || !w.flag || !w.gflag)
    s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in distributed aggregation");
  s = mispc_dist_agree(ctx, g->comm, s);
  mispc_dist_agg_info in;
  memset(&in, 0, sizeof in);
  mispc_mis_result r = {0, 0};
  int64_t naggs = 0, left = 0;
  const int nt = mispc_host_threads(ctx);
  double t = mispc_wtime(); /* -vv: each phase's time (mispc_log_phase) */
  if (!s)
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t v = 0; v < w.nloc; ++v) agg[v] = -1;
  if (!s) s = mispc_dist_mis2(ctx, g, &o.mis, NULL, set, &r);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t, "dist aggregation (host): phase 1 MIS-2");
  if (!s) s = label_roots(ctx, &w, set, 0, 0, agg, &naggs);
  if (!s)
#pragma omp parallel for reduction(+ : left) schedule(static) num_threads(nt)
    for (int64_t v = 0; v < w.nloc; ++v) left += (w.flag[v] = agg[v] < 0);
  if (!s) s = mispc_dist_sum(ctx, g->halo, g->comm, &left);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t, "dist aggregation (host): phase 1 labels");
  in.mis_rounds[0] = r.rounds;
  in.phase_aggs[0] = naggs;
  in.phase_done[0] = g->nglobal - left;
  if (!s && o.algo == MISPC_AGG_MIS2AGG && left > 0) {
    s = mispc_dist_mis2(ctx, g, &o.mis, w.flag, set, &r);
    mispc_log_phase(ctx, MISPC_MEM_HOST, &t, "dist aggregation (host): phase 2 MIS-2");
    if (!s) s = mispc_halo_exchange(ctx, g->halo, w.flag, w.gflag, 1);
    if (!s) {
      phase2_roots(&w, set, agg_phase2_min_free(&o), nt, is_root);
      s = label_roots(ctx, &w, is_root, naggs, 1, agg, &naggs);
    }
    left = 0;
    if (!s)
#pragma omp parallel for reduction(+ : left) schedule(static) num_threads(nt)
      for (int64_t v = 0; v < w.nloc; ++v) left += agg[v] < 0;
    if (!s) s = mispc_dist_sum(ctx, g->halo, g->comm, &left);
    in.mis_rounds[1] = r.rounds;
    mispc_log_phase(ctx, MISPC_MEM_HOST, &t, "dist aggregation (host): phase 2 labels");
  }
  in.phase_aggs[1] = naggs;
  in.phase_done[1] = g->nglobal - left;
  if (!s && left > 0) s = phase3(ctx, &w, o.algo == MISPC_AGG_MIS2BASIC, agg);
  mispc_log_phase(ctx, MISPC_MEM_HOST, &t, "dist aggregation (host): phase 3");
  in.phase_aggs[2] = in.naggs = naggs;
  in.phase_done[2] = g->nglobal;
  free(set);
  free(is_root);
  free(w.rootid);
  free(w.grootid);
  free(w.gagg);
  free(w.flag);
  free(w.gflag);
  if (!s && info) *info = in;
  return s;
}
