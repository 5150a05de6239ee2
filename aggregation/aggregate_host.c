/* Host (OpenMP) steps of mispc_aggregate: phase 1 and 2 root numbering and
 * labelling, the unaggregated mask and the phase-3 / leftover rule. Every
 * step either writes disjoint entries or reads only labels copied on entry,
 * so results do not depend on the thread count (agg_backend.h). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "agg_backend.h"
#include "csr_build.h"

/* Numbers the vertices with flag[v] & bit in increasing id: root[base + k] =
 * k-th such vertex. A chunked scan: counts per chunk, offsets, then fill;
 * the result does not depend on the chunking. Returns the count. */
static int64_t number_flagged(int nt, int64_t n, const uint8_t *flag, uint8_t bit, int64_t base,
                              int32_t *root, int64_t *chunk_count, int nchunks) {
  int64_t len = (n + nchunks - 1) / nchunks;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int c = 0; c < nchunks; ++c) {
    int64_t lo = (int64_t)c * len, hi = lo + len < n ? lo + len : n, k = 0;
    for (int64_t v = lo; v < hi; ++v) k += (flag[v] & bit) != 0;
    chunk_count[c] = k;
  }
  int64_t total = 0;
  for (int c = 0; c < nchunks; ++c) {
    int64_t k = chunk_count[c];
    chunk_count[c] = total;
    total += k;
  }
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int c = 0; c < nchunks; ++c) {
    int64_t lo = (int64_t)c * len, hi = lo + len < n ? lo + len : n, k = base + chunk_count[c];
    for (int64_t v = lo; v < hi; ++v)
      if (flag[v] & bit) root[k++] = (int32_t)v;
  }
  return total;
}

static int scan_chunks(int nt, int64_t n) {
  int64_t c = (int64_t)nt * 4;
  if (c > n) c = n;
  return c < 1 ? 1 : (int)c;
}

mispc_status agg_phase1_host(mispc_context *ctx, const mispc_csr *g, const uint8_t *in_set,
                             int32_t *agg, int32_t *root, int64_t *naggs) {
  int64_t n = g->nrows;
  int nt = mispc_host_threads(ctx), nchunks = scan_chunks(nt, n);
  int64_t *cc = (int64_t *)mispc_host_alloc_n(ctx, nchunks, sizeof(int64_t), "scan chunks");
  if (!cc) return MISPC_ERR_ALLOC;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t v = 0; v < n; ++v) agg[v] = -1;
  /* in_set holds 0 or 1; any nonzero byte counts as a member */
  int64_t m = number_flagged(nt, n, in_set, 0xff, 0, root, cc, nchunks);
  free(cc);
  /* Members are distance-2 independent, so their closed neighbourhoods are
   * disjoint and the writes below never collide. */
#pragma omp parallel for schedule(dynamic, 1024) num_threads(nt)
  for (int64_t k = 0; k < m; ++k) {
    int32_t r = root[k];
    agg[r] = (int32_t)k;
    for (int64_t p = g->rowptr[r]; p < g->rowptr[r + 1]; ++p) agg[g->colidx[p]] = (int32_t)k;
  }
  *naggs = m;
  return MISPC_SUCCESS;
}

mispc_status agg_unaggregated_host(mispc_context *ctx, int64_t n, const int32_t *agg, uint8_t *mask,
                                   int64_t *count) {
  int nt = mispc_host_threads(ctx);
  int64_t c = 0;
#pragma omp parallel for schedule(static) reduction(+ : c) num_threads(nt)
  for (int64_t v = 0; v < n; ++v) {
    mask[v] = agg[v] < 0;
    c += agg[v] < 0;
  }
  *count = c;
  return MISPC_SUCCESS;
}

enum { FREE_ON_ENTRY = 1, NEW_ROOT = 2 };

mispc_status agg_phase2_host(mispc_context *ctx, const mispc_csr *g, const uint8_t *in_set,
                             int min_free, int32_t *agg, int32_t *root, int64_t *naggs) {
  int64_t n = g->nrows, base = *naggs;
  int nt = mispc_host_threads(ctx), nchunks = scan_chunks(nt, n);
  uint8_t *flag = (uint8_t *)mispc_host_alloc_n(ctx, n, 1, "phase-2 flags");
  int64_t *cc = (int64_t *)mispc_host_alloc_n(ctx, nchunks, sizeof(int64_t), "scan chunks");
  if (!flag || !cc) {
    free(flag);
    free(cc);
    return MISPC_ERR_ALLOC;
  }
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t v = 0; v < n; ++v) flag[v] = agg[v] < 0 ? FREE_ON_ENTRY : 0;
    /* Roots: members (unaggregated by construction) with >= min_free
     * unaggregated neighbours, self loops not counted. */
#pragma omp parallel for schedule(dynamic, 2048) num_threads(nt)
  for (int64_t v = 0; v < n; ++v) {
    if (!in_set[v] || !(flag[v] & FREE_ON_ENTRY)) continue;
    int cnt = 0;
    for (int64_t p = g->rowptr[v]; p < g->rowptr[v + 1] && cnt < min_free; ++p) {
      int32_t u = g->colidx[p];
      cnt += u != v && (flag[u] & FREE_ON_ENTRY);
    }
    if (cnt >= min_free) flag[v] |= NEW_ROOT;
  }
  int64_t m = number_flagged(nt, n, flag, NEW_ROOT, base, root, cc, nchunks);
  free(cc);
  /* New roots are distance-2 independent among the unaggregated vertices, so
   * the sets {root} + unaggregated neighbours are disjoint. */
#pragma omp parallel for schedule(dynamic, 1024) num_threads(nt)
  for (int64_t k = base; k < base + m; ++k) {
    int32_t r = root[k];
    agg[r] = (int32_t)k;
    for (int64_t p = g->rowptr[r]; p < g->rowptr[r + 1]; ++p) {
      int32_t u = g->colidx[p];
      if (flag[u] & FREE_ON_ENTRY) agg[u] = (int32_t)k;
    }
  }
  free(flag);
  *naggs = base + m;
  return MISPC_SUCCESS;
}

mispc_status agg_phase3_host(mispc_context *ctx, const mispc_csr *g, int32_t *agg, int64_t naggs,
                             int basic) {
  int64_t n = g->nrows;
  int nt = mispc_host_threads(ctx);
  /* Tentative labels: the labels as on entry, read-only below. */
  int32_t *tent = (int32_t *)mispc_host_alloc_n(ctx, n, sizeof(int32_t), "tentative labels");
  int64_t *size = basic ? NULL : (int64_t *)calloc((size_t)naggs + 1, sizeof(int64_t));
  if (!tent || (!basic && !size)) {
    free(tent);
    free(size);
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in aggregation phase 3");
  }
  memcpy(tent, agg, sizeof(int32_t) * (size_t)n);
  int64_t maxdeg = 0;
#pragma omp parallel for schedule(static) reduction(max : maxdeg) num_threads(nt)
  for (int64_t v = 0; v < n; ++v) {
    int64_t d = g->rowptr[v + 1] - g->rowptr[v];
    if (d > maxdeg) maxdeg = d;
    if (!basic && tent[v] >= 0) {
#pragma omp atomic
      size[tent[v]]++;
    }
  }
  int64_t orphan = n; /* smallest vertex without an aggregated neighbour */
  int failed = 0;
#pragma omp parallel reduction(min : orphan) reduction(| : failed) num_threads(nt)
  {
    int32_t *buf = basic ? NULL : (int32_t *)malloc(sizeof(int32_t) * (size_t)(maxdeg + 1));
    if (!basic && !buf) failed = 1;
#pragma omp for schedule(dynamic, 1024)
    for (int64_t v = 0; v < n; ++v) {
      if (tent[v] >= 0 || (!basic && !buf)) continue;
      int32_t best = -1;
      if (basic) {
        /* aggregate of the smallest-id aggregated neighbour */
        int32_t umin = -1;
        for (int64_t p = g->rowptr[v]; p < g->rowptr[v + 1]; ++p) {
          int32_t u = g->colidx[p];
          if (u != v && tent[u] >= 0 && (umin < 0 || u < umin)) umin = u;
        }
        if (umin >= 0) best = tent[umin];
      } else {
        /* labels of the aggregated neighbours, sorted: runs are the counts */
        int64_t m = 0;
        for (int64_t p = g->rowptr[v]; p < g->rowptr[v + 1]; ++p) {
          int32_t u = g->colidx[p];
          if (u != v && tent[u] >= 0) buf[m++] = tent[u];
        }
        mispc_sort_i32(buf, m);
        int64_t best_cnt = 0, best_size = 0;
        for (int64_t i = 0; i < m;) {
          int64_t j = i;
          while (j < m && buf[j] == buf[i]) ++j;
          int64_t cnt = j - i, sz = size[buf[i]];
          /* ids increase along buf: strict tests keep the smaller id on ties */
          if (cnt > best_cnt || (cnt == best_cnt && sz < best_size)) {
            best = buf[i];
            best_cnt = cnt;
            best_size = sz;
          }
          i = j;
        }
      }
      if (best >= 0)
        agg[v] = best;
      else if (v < orphan)
        orphan = v;
    }
    free(buf);
  }
  free(tent);
  free(size);
  if (failed)
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory in aggregation phase 3");
  if (orphan < n)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "aggregation phase 3: vertex %lld has no aggregated neighbour (the root "
                        "set is not a maximal distance-2 independent set)",
                        (long long)orphan);
  return MISPC_SUCCESS;
}

int agg_isolated_vertex(const mispc_csr *g, int32_t v) {
  for (int64_t p = g->rowptr[v]; p < g->rowptr[v + 1]; ++p)
    if (g->colidx[p] != v) return 0;
  return 1;
}

mispc_status agg_collect_isolated_host(mispc_context *ctx, const mispc_csr *g, mispc_aggregates *a,
                                       int64_t *removed) {
  const int64_t na = a->naggs, n = a->n;
  *removed = 0;
  int32_t *newid = (int32_t *)mispc_host_alloc_n(ctx, na + 1, sizeof(int32_t), "new ids");
  if (!newid) return MISPC_ERR_ALLOC;
  /* an isolated vertex is a phase-1 root alone in its aggregate, and only
   * such aggregates have an isolated root */
  int64_t kept = 0, first = -1;
  for (int64_t c = 0; c < na; ++c) {
    const int iso = agg_isolated_vertex(g, a->root[c]);
    newid[c] = iso ? -1 : (int32_t)kept;
    kept += !iso;
    if (iso && first < 0) first = c;
  }
  if (first >= 0) {
    const int nt = mispc_host_threads(ctx);
    const int32_t last = (int32_t)kept, iso_root = a->root[first];
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t v = 0; v < n; ++v) {
      const int32_t c = newid[a->agg[v]];
      a->agg[v] = c >= 0 ? c : last;
    }
    for (int64_t c = 0; c < na; ++c) /* newid[c] <= c: in place, ascending */
      if (newid[c] >= 0) a->root[newid[c]] = a->root[c];
    a->root[last] = iso_root;
    *removed = na - kept;
    a->naggs = kept + 1;
  }
  free(newid);
  return MISPC_SUCCESS;
}

mispc_status agg_split_host(mispc_context *ctx, mispc_aggregates *a, int64_t B, int64_t *added) {
  const int64_t na = a->naggs, n = a->n;
  *added = 0;
  /* members per aggregate in increasing id */
  int64_t *off = (int64_t *)mispc_host_alloc_n(ctx, na + 1, sizeof(int64_t), "aggregate offsets");
  int32_t *mem = (int32_t *)mispc_host_alloc_n(ctx, n, sizeof(int32_t), "members");
  mispc_status s =
      off && mem ? mispc_order_by_key_host(ctx, n, a->agg, (int32_t)na, mem, off) : MISPC_ERR_ALLOC;
  int64_t extra = 0;
  for (int64_t c = 0; !s && c < na; ++c) {
    const int64_t m = off[c + 1] - off[c];
    extra += m > B ? (m + B - 1) / B - 1 : 0;
  }
  if (!s && extra > 0)
    s = mispc_pool_alloc_n(ctx, a->mem, n + 1, sizeof(int32_t), (void **)&a->parent,
                           "aggregate parents");
  if (!s && extra > 0) {
    for (int64_t c = 0; c < na; ++c) a->parent[c] = (int32_t)c;
    int64_t next = na; /* new ids by aggregate, then piece */
    for (int64_t c = 0; c < na; ++c) {
      const int64_t b = off[c], m = off[c + 1] - b;
      if (m <= B) continue;
      const int64_t p = (m + B - 1) / B;
      int64_t rr = 0; /* the root's rank among the members */
      while (mem[b + rr] != a->root[c]) ++rr;
      const int64_t jr = ((rr + 1) * p - 1) / m;
      for (int64_t j = 0; j < p; ++j) {
        if (j == jr) continue;
        const int64_t lo = j * m / p, hi = (j + 1) * m / p, id = next++;
        for (int64_t r = lo; r < hi; ++r) a->agg[mem[b + r]] = (int32_t)id;
        a->root[id] = mem[b + lo];
        a->parent[id] = (int32_t)c;
      }
    }
    a->naggs = next;
    *added = extra;
  }
  free(off);
  free(mem);
  return s;
}
