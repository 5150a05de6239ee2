/* Small hand-made graphs and the sequential greedy oracles shared by the
 * host and GPU MIS tests. */
#ifndef MISPC_MIS_TEST_GRAPHS_H
#define MISPC_MIS_TEST_GRAPHS_H

#include <stdlib.h>
#include <string.h>

#include "../mis/mis_common.h"
#include "csr_build.h"
#include "test_util.h"

/* Builds a symmetric pattern from an undirected edge list. */
static inline mispc_csr graph_from_edges(mispc_context *ctx, int64_t n, int64_t m,
                                         const int32_t *eu, const int32_t *ev) {
  mispc_csr G;
  mispc_status s = mispc_csr_from_coo(ctx, n, n, m, eu, ev, NULL, MISPC_COO_SYMMETRIC, &G);
  if (s) {
    fprintf(stderr, "graph_from_edges: %s\n", mispc_context_error(ctx));
    exit(1);
  }
  return G;
}

/* The graph of a generator spec; exits on failure. */
static inline mispc_csr generated_graph(mispc_context *ctx, const char *spec, uint64_t seed) {
  mispc_csr A;
  mispc_status s = mispc_generate(ctx, spec, seed, &A);
  if (s) {
    fprintf(stderr, "%s: %s\n", spec, mispc_context_error(ctx));
    exit(1);
  }
  return A;
}

/* The 2-vertex pattern with the one entry (0, 1): not symmetric. */
static inline mispc_csr one_way_pair(void) {
  static int64_t rp[3] = {0, 1, 1};
  static int32_t ci[1] = {1};
  mispc_csr U;
  mispc_csr_wrap(MISPC_MEM_HOST, 2, 2, 1, rp, ci, NULL, &U);
  return U;
}

static inline mispc_csr star_graph(mispc_context *ctx, int32_t leaves) {
  int32_t *u = malloc(sizeof(int32_t) * (size_t)leaves),
          *v = malloc(sizeof(int32_t) * (size_t)leaves);
  for (int32_t i = 0; i < leaves; ++i) u[i] = 0, v[i] = i + 1;
  mispc_csr G = graph_from_edges(ctx, leaves + 1, leaves, u, v);
  free(u);
  free(v);
  return G;
}

/* The complete graph of n vertices and, numbered after it, a path of
 * `path` vertices apart from it. */
static inline mispc_csr clique_path_graph(mispc_context *ctx, int32_t n, int32_t path) {
  int64_t m = (int64_t)n * (n - 1) / 2 + (path > 0 ? path - 1 : 0), k = 0;
  int32_t *u = malloc(sizeof(int32_t) * (size_t)(m + 1)),
          *v = malloc(sizeof(int32_t) * (size_t)(m + 1));
  for (int32_t i = 0; i < n; ++i)
    for (int32_t j = i + 1; j < n; ++j) u[k] = i, v[k++] = j;
  for (int32_t i = n; i + 1 < n + path; ++i) u[k] = i, v[k++] = i + 1;
  mispc_csr G = graph_from_edges(ctx, (int64_t)n + path, m, u, v);
  free(u);
  free(v);
  return G;
}

static inline mispc_csr clique_graph(mispc_context *ctx, int32_t n) {
  return clique_path_graph(ctx, n, 0);
}

typedef struct oracle_item {
  uint64_t key;
  int32_t v;
} oracle_item;

static int oracle_cmp(const void *a, const void *b) {
  const oracle_item *x = (const oracle_item *)a, *y = (const oracle_item *)b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->v > y->v) - (x->v < y->v);
}

/* Sequential greedy MIS at distance k, visiting vertices in (key, id) order.
 * k = 1 with MIS-1 keys; k = 2 with fixed MIS-2 tuples (Blelloch et al.:
 * the parallel algorithms with fixed priorities must equal it). */
static inline void greedy_mis(const mispc_csr *G, int k, const uint64_t *key, uint8_t *set) {
  int64_t n = G->nrows;
  oracle_item *it = malloc(sizeof(oracle_item) * (size_t)(n + 1));
  uint8_t *blocked = calloc((size_t)n + 1, 1);
  for (int64_t v = 0; v < n; ++v) it[v].key = key[v], it[v].v = (int32_t)v;
  qsort(it, (size_t)n, sizeof(oracle_item), oracle_cmp);
  for (int64_t v = 0; v < n; ++v) set[v] = 0;
  for (int64_t t = 0; t < n; ++t) {
    int32_t v = it[t].v;
    if (blocked[v]) continue;
    set[v] = 1;
    blocked[v] = 1;
    for (int64_t p = G->rowptr[v]; p < G->rowptr[v + 1]; ++p) {
      int32_t u = G->colidx[p];
      blocked[u] = 1;
      if (k == 2)
        for (int64_t q = G->rowptr[u]; q < G->rowptr[u + 1]; ++q) blocked[G->colidx[q]] = 1;
    }
  }
  free(it);
  free(blocked);
}

/* MIS-1 keys of a key mode (MIS1_KEY_*; MIS1_KEY_LINES with its class). */
static inline uint64_t *mis1_keys(const mispc_csr *G, int mode, uint64_t seed) {
  uint64_t *k = malloc(sizeof(uint64_t) * (size_t)(G->nrows + 1));
  for (int64_t v = 0; v < G->nrows; ++v) {
    const int64_t b = G->rowptr[v], m = G->rowptr[v + 1] - b;
    const uint32_t cls = mode == MIS1_KEY_LINES ? mis1_line_class_row(G->colidx + b, m, v) : 1u;
    k[v] = mis1_key_of(mode, seed, v, m, cls);
  }
  return k;
}

static inline uint64_t *mis2_fixed_keys(const mispc_csr *G, uint64_t seed) {
  uint64_t *k = malloc(sizeof(uint64_t) * (size_t)(G->nrows + 1));
  int b = mis2_id_bits(G->nrows);
  for (int64_t v = 0; v < G->nrows; ++v) k[v] = mis2_tuple(0, seed, 0, v, b, mis2_word_bits(b));
  return k;
}

/* G with every edge that touches a vertex outside `subset` removed (same ids). */
static inline mispc_csr induced_subgraph(mispc_context *ctx, const mispc_csr *G,
                                         const uint8_t *subset) {
  int32_t *u = malloc(sizeof(int32_t) * (size_t)(G->nnz + 1)),
          *w = malloc(sizeof(int32_t) * (size_t)(G->nnz + 1));
  int64_t m = 0;
  for (int64_t i = 0; i < G->nrows; ++i)
    for (int64_t p = G->rowptr[i]; p < G->rowptr[i + 1]; ++p)
      if (subset[i] && subset[G->colidx[p]]) u[m] = (int32_t)i, w[m++] = G->colidx[p];
  mispc_csr S;
  if (mispc_csr_from_coo(ctx, G->nrows, G->ncols, m, u, w, NULL, 0, &S)) exit(1);
  free(u);
  free(w);
  return S;
}

/* A deterministic pseudo-random subset with about `percent` % of the vertices. */
static inline uint8_t *random_subset(int64_t n, int percent) {
  uint8_t *s = malloc((size_t)n + 1);
  for (int64_t v = 0; v < n; ++v)
    s[v] = (mispc_hash3(99, 1, (uint64_t)v) % 100) < (uint64_t)percent;
  return s;
}

#endif
