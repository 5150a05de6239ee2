/* Checking an aggregation and its size statistics (host; device inputs are
 * copied to the host first). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "agg_backend.h"
#include "csr_build.h"

/* Host copies (or borrowed host pointers) of the aggregate arrays. */
typedef struct host_aggs {
  int32_t *agg, *root, *parent; /* parent: with_root and a->parent only */
  int owned;
} host_aggs;

static void host_aggs_free(host_aggs *h) {
  if (h->owned) {
    free(h->agg);
    free(h->root);
    free(h->parent);
  }
  memset(h, 0, sizeof *h);
}

static mispc_status host_aggs_get(mispc_context *ctx, const mispc_aggregates *a, int with_root,
                                  host_aggs *h) {
  memset(h, 0, sizeof *h);
  if ((a->n > 0 && !a->agg) || (with_root && a->naggs > 0 && !a->root))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "aggregates have NULL arrays");
  const int with_parent = with_root && a->parent;
  if (a->mem == MISPC_MEM_HOST) {
    h->agg = a->agg;
    h->root = a->root;
    h->parent = with_parent ? a->parent : NULL;
    return MISPC_SUCCESS;
  }
  h->owned = 1;
  h->agg = (int32_t *)mispc_host_alloc_n(ctx, a->n, sizeof(int32_t), "aggregate ids");
  h->root = with_root
                ? (int32_t *)mispc_host_alloc_n(ctx, a->naggs, sizeof(int32_t), "aggregate roots")
                : NULL;
  h->parent = with_parent ? (int32_t *)mispc_host_alloc_n(ctx, a->naggs, sizeof(int32_t),
                                                          "aggregate parents")
                          : NULL;
  mispc_status s = (!h->agg || (with_root && !h->root) || (with_parent && !h->parent))
                       ? MISPC_ERR_ALLOC
                       : MISPC_SUCCESS;
  if (!s) s = mispc_mem_copy_n(ctx, h->agg, MISPC_MEM_HOST, a->agg, a->mem, a->n, sizeof(int32_t));
  if (!s && with_root)
    s = mispc_mem_copy_n(ctx, h->root, MISPC_MEM_HOST, a->root, a->mem, a->naggs, sizeof(int32_t));
  if (!s && with_parent)
    s = mispc_mem_copy_n(ctx, h->parent, MISPC_MEM_HOST, a->parent, a->mem, a->naggs,
                         sizeof(int32_t));
  if (s) host_aggs_free(h);
  return s;
}

static mispc_status check_aggs_desc(mispc_context *ctx, const mispc_aggregates *a,
                                    const char *who) {
  if (!a) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: aggregates are NULL", who);
  if (a->n < 0 || a->naggs < 0 || a->n > INT32_MAX)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "%s: bad sizes (%lld vertices, %lld aggregates)", who, (long long)a->n,
                        (long long)a->naggs);
  if (a->mem != MISPC_MEM_HOST && a->mem != MISPC_MEM_DEVICE)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: unknown memory space", who);
  return MISPC_SUCCESS;
}

mispc_status mispc_verify_aggregation(mispc_context *ctx, const mispc_csr *graph,
                                      const mispc_aggregates *a) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  MISPC_TRY(mispc_csr_check_desc(ctx, graph, "graph"));
  MISPC_TRY(check_aggs_desc(ctx, a, "verify aggregation"));
  if (graph->nrows != graph->ncols)
    return mispc_seterr(ctx, MISPC_ERR_NOT_SQUARE, "verify aggregation: graph is %lld x %lld",
                        (long long)graph->nrows, (long long)graph->ncols);
  const int64_t n = a->n, na = a->naggs;
  if (n != graph->nrows)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "verify aggregation: %lld labels for a graph of %lld vertices",
                        (long long)n, (long long)graph->nrows);
  if (na > n)
    return mispc_seterr(ctx, MISPC_ERR_VERIFY,
                        "%lld aggregates for %lld vertices: some aggregate is empty", (long long)na,
                        (long long)n);
  mispc_csr g;
  MISPC_TRY(mispc_csr_host_view(ctx, graph, &g));
  host_aggs h;
  mispc_status s = host_aggs_get(ctx, a, 1, &h);
  if (s) {
    mispc_csr_free(ctx, &g);
    return s;
  }
  /* The graph itself must be well formed for the walks below. */
  s = mispc_csr_check(ctx, &g, MISPC_CHECK_SQUARE | MISPC_CHECK_INDICES);
  int nt = mispc_host_threads(ctx);
  const int32_t *agg = h.agg, *root = h.root;
  int64_t *off = NULL;
  int32_t *members = NULL, *queue = NULL;
  uint8_t *seen = NULL;
  if (!s) {
    off = (int64_t *)calloc((size_t)na + 2, sizeof(int64_t));
    members = (int32_t *)mispc_host_alloc_n(ctx, n, sizeof(int32_t), "aggregate members");
    queue = (int32_t *)mispc_host_alloc_n(ctx, n, sizeof(int32_t), "BFS queue");
    seen = (uint8_t *)calloc((size_t)n + 1, 1);
    if (!off || !members || !queue || !seen)
      s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory verifying an aggregation");
  }
  /* 1. Every label is a valid aggregate id. */
  if (!s) {
    int64_t bad = n;
#pragma omp parallel for schedule(static) reduction(min : bad) num_threads(nt)
    for (int64_t v = 0; v < n; ++v)
      if ((agg[v] < 0 || agg[v] >= na) && v < bad) bad = v;
    if (bad < n)
      s = mispc_seterr(ctx, MISPC_ERR_VERIFY,
                       "vertex %lld has aggregate id %d, outside [0, %lld) (not aggregated?)",
                       (long long)bad, agg[bad], (long long)na);
  }
  /* 2. Sizes (members listed per aggregate in increasing id), non-empty
   * aggregates, roots inside their own aggregate. */
  /* off[k] .. off[k+1] are the members of aggregate k */
  if (!s) s = mispc_order_by_key_host(ctx, n, agg, (int32_t)na, members, off);
  if (!s) {
    for (int64_t k = 0; k < na && !s; ++k) {
      int32_t r = root[k];
      if (off[k + 1] == off[k])
        s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "aggregate %lld is empty", (long long)k);
      else if (r < 0 || r >= n)
        s = mispc_seterr(ctx, MISPC_ERR_VERIFY, "aggregate %lld has root %d, outside [0, %lld)",
                         (long long)k, r, (long long)n);
      else if (agg[r] != k)
        s = mispc_seterr(ctx, MISPC_ERR_VERIFY,
                         "aggregate %lld: its root %d belongs to aggregate %d", (long long)k, r,
                         agg[r]);
    }
  }
  /* 2b. Split aggregates (max_size): parents in range, each family's head
   * its own parent; the checks below then work on families (lab = the
   * head's id), whose members are listed anew. */
  const int32_t *lab = agg;
  int32_t *fam = NULL;
  if (!s && h.parent) {
    for (int64_t k = 0; k < na && !s; ++k) {
      const int32_t q = h.parent[k];
      if (q < 0 || q >= na || h.parent[q] != q)
        s = mispc_seterr(ctx, MISPC_ERR_VERIFY,
                         "aggregate %lld has parent %d, not the head of a family in [0, %lld)",
                         (long long)k, q, (long long)na);
    }
    fam = s ? NULL : (int32_t *)mispc_host_alloc_n(ctx, n, sizeof(int32_t), "aggregate families");
    if (!s && !fam) s = MISPC_ERR_ALLOC;
    if (!s) {
      for (int64_t v = 0; v < n; ++v) fam[v] = h.parent[agg[v]];
      s = mispc_order_by_key_host(ctx, n, fam, (int32_t)na, members, off);
      lab = fam;
    }
  }
  /* 3. Each aggregate (family) is connected: BFS from the root inside it.
   * Aggregate k queues only its own members, in queue[off[k] ..]; the ids
   * that are not a family's head have none. */
  if (!s) {
    int64_t bad = na;
#pragma omp parallel for schedule(dynamic, 256) reduction(min : bad) num_threads(nt)
    for (int64_t k = 0; k < na; ++k) {
      if (off[k + 1] == off[k]) continue; /* a piece of a family, not its head */
      int32_t *q = queue + off[k];
      int64_t head = 0, tail = 0;
      q[tail++] = root[k];
      seen[root[k]] = 1;
      while (head < tail) {
        int32_t v = q[head++];
        for (int64_t p = g.rowptr[v]; p < g.rowptr[v + 1]; ++p) {
          int32_t u = g.colidx[p];
          if (lab[u] == k && !seen[u]) {
            seen[u] = 1;
            q[tail++] = u;
          }
        }
      }
      if (tail == 1 && tail != off[k + 1] - off[k] && agg_isolated_vertex(&g, root[k])) {
        /* MISPC_ISOLATED_COLLECT: an aggregate of isolated vertices only */
        for (int64_t p = off[k]; p < off[k + 1]; ++p)
          if (agg_isolated_vertex(&g, members[p]))
            seen[members[p]] = 1, tail += members[p] != root[k];
      }
      if (tail != off[k + 1] - off[k] && k < bad) bad = k;
    }
    if (bad < na) {
      int32_t lost = -1;
      for (int64_t p = off[bad]; p < off[bad + 1] && lost < 0; ++p)
        if (!seen[members[p]]) lost = members[p];
      s = mispc_seterr(ctx, MISPC_ERR_VERIFY,
                       "aggregate %lld (root %d, %lld vertices) is not connected: vertex %d "
                       "cannot be reached from the root inside the aggregate",
                       (long long)bad, root[bad], (long long)(off[bad + 1] - off[bad]), lost);
    }
  }
  /* 4. Roots. mis2agg's secondary roots lie at distance 2 from phase-1 roots
   * (every vertex left after phase 1 does), so the checks are: no two roots
   * adjacent; phase-1 roots (ids < phase_aggs[0]) pairwise at distance >= 3;
   * later roots pairwise at distance >= 3 through vertices outside the phase-1
   * aggregates. phase_aggs[0] outside [1, naggs] (hand-made aggregates): all
   * roots count as phase 1, i.e. all are distance-2 independent. Checked per
   * closed neighbourhood N[u]: at most one phase-1 root, at most one later
   * root when u is outside the phase-1 aggregates, no root next to a root. */
  if (!s) {
    int64_t p1 = a->phase_aggs[0] >= 1 && a->phase_aggs[0] <= na ? a->phase_aggs[0] : na;
    int64_t bad = n;
    /* seen[] now marks roots: 1 phase 1, 2 later */
    memset(seen, 0, (size_t)n);
    for (int64_t k = 0; k < na; ++k) /* families' heads only */
      if (lab == agg || h.parent[k] == k) seen[root[k]] = k < p1 ? 1 : 2;
#pragma omp parallel for schedule(dynamic, 2048) reduction(min : bad) num_threads(nt)
    for (int64_t u = 0; u < n; ++u) {
      int c[3] = {0, 0, 0}, adjacent = 0;
      c[seen[u]]++;
      for (int64_t p = g.rowptr[u]; p < g.rowptr[u + 1]; ++p) {
        int32_t w = g.colidx[p];
        if (w == u) continue; /* self loops do not count */
        c[seen[w]]++;
        adjacent |= seen[u] && seen[w];
      }
      if ((adjacent || c[1] >= 2 || (lab[u] >= p1 && c[2] >= 2)) && u < bad) bad = u;
    }
    if (bad < n) {
      /* name the two roots: a root and its root neighbour, or two roots of
       * one class next to bad */
      int32_t r[2] = {-1, -1};
      int m = 0, cls = 0;
      if (seen[bad]) {
        r[m++] = (int32_t)bad;
      } else {
        int c1 = 0;
        for (int64_t p = g.rowptr[bad]; p < g.rowptr[bad + 1]; ++p)
          c1 += g.colidx[p] != bad && seen[g.colidx[p]] == 1;
        cls = c1 >= 2 ? 1 : 2;
      }
      for (int64_t p = g.rowptr[bad]; p < g.rowptr[bad + 1] && m < 2; ++p) {
        int32_t w = g.colidx[p];
        if (w != bad && seen[w] && (cls == 0 || seen[w] == cls)) r[m++] = w;
      }
      if (cls == 0)
        s = mispc_seterr(ctx, MISPC_ERR_VERIFY,
                         "roots %d (aggregate %d) and %d (aggregate %d) are adjacent", r[0],
                         agg[r[0]], r[1], agg[r[1]]);
      else
        s = mispc_seterr(ctx, MISPC_ERR_VERIFY,
                         "%s roots %d (aggregate %d) and %d (aggregate %d) are at distance 2 "
                         "through vertex %lld: not distance-2 independent",
                         cls == 1 ? "phase-1" : "secondary", r[0], agg[r[0]], r[1], agg[r[1]],
                         (long long)bad);
    }
  }
  free(off);
  free(members);
  free(queue);
  free(seen);
  free(fam);
  host_aggs_free(&h);
  mispc_csr_free(ctx, &g);
  return s;
}

mispc_status mispc_aggregates_stats(mispc_context *ctx, const mispc_aggregates *a,
                                    mispc_agg_stats *st) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!st) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_aggregates_stats: NULL output");
  memset(st, 0, sizeof *st);
  MISPC_TRY(check_aggs_desc(ctx, a, "mispc_aggregates_stats"));
  host_aggs h;
  MISPC_TRY(host_aggs_get(ctx, a, 0, &h));
  const int64_t n = a->n, na = a->naggs;
  int64_t *size = (int64_t *)calloc((size_t)na + 1, sizeof(int64_t));
  if (!size) {
    host_aggs_free(&h);
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory for aggregate sizes");
  }
  mispc_status s = MISPC_SUCCESS;
  for (int64_t v = 0; v < n && !s; ++v) {
    if (h.agg[v] < 0 || h.agg[v] >= na)
      s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                       "mispc_aggregates_stats: vertex %lld has aggregate id %d, outside [0, %lld)",
                       (long long)v, h.agg[v], (long long)na);
    else
      size[h.agg[v]]++;
  }
  if (!s) {
    st->naggs = na;
    st->min_size = na ? size[0] : 0;
    for (int64_t k = 0; k < na; ++k) {
      int64_t z = size[k];
      if (z < st->min_size) st->min_size = z;
      if (z > st->max_size) st->max_size = z;
      st->singletons += z == 1;
      st->hist[z < 31 ? z : 31]++;
    }
    st->mean_size = na ? (double)n / (double)na : 0.0;
  }
  free(size);
  host_aggs_free(&h);
  return s;
}
