/* Experiment: the dependency structure of mispc_color's greedy coloring in
 * key order (MISPC_COLORING_MIS, hash priority), for the GPU passes'
 * design on graphs with hubs. A vertex can take its color only once every
 * earlier neighbour (key order) has one, so the longest chain of earlier
 * neighbours ("depth") bounds the number of sequential steps of any pass
 * without a shortcut; each step through a hub costs a scan of the hub's row
 * in the passes built so far (gauss_seidel/coloring_cuda.cu).
 *
 * For each graph it prints: vertices, entries, the hub degree
 * (mis1_hub_degree: 8 x mean + 32), hubs and their entries, colors, depth,
 * the hubs on a longest chain, the longest chain of hubs alone (every step
 * hub to hub), and the rounds ECL-GC's shortcut rule needs when run
 * synchronously (shortcut_rounds: exact sets; wide sets published as
 * intervals; and with batched tests). The colors are computed here in key
 * order and checked bit for bit against mispc_color on the host (so the key
 * below is the library's), and the shortcut's colors against them.
 *
 * From the repository root:
 * Build: gcc -O2 -std=c11 -Iinclude -Ibuild/include -Imis \
 *   bench/experiments/color_depth.c -Lbuild -lmispc -Wl,-rpath,$PWD/build -o color_depth
 * Run:   ./color_depth SPEC...   (e.g. gen:kron:16 gen:laplace3d:50)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mis_common.h" /* the library's keys, order and hub degree */
#include "mispc/mispc.h"

static const uint32_t *g_key;
static int by_key(const void *a, const void *b) {
  const int32_t u = *(const int32_t *)a, v = *(const int32_t *)b;
  if (g_key[u] != g_key[v]) return g_key[u] < g_key[v] ? -1 : 1;
  return (u > v) - (u < v);
}
static int before(const uint32_t *key, int32_t u, int32_t v) {
  return mis1_before(key[u], u, key[v], v);
}

/* Rounds of ECL-GC's shortcut rule run synchronously (every undecided
 * vertex updates from the sets of the round before, as the stalest reads of
 * a GPU pass would), generalized to sets of any size: v's set starts as
 * colors 0 .. k (k earlier neighbours); a masked neighbour whose set misses
 * v's leaves the mask and takes v's highest color with it, a decided one
 * (a set of one) leaves with its color; v decides on its lowest color once
 * no neighbour it read has that color in its set, or once its mask is
 * empty. With wide >= 0, a vertex of more than `wide` earlier neighbours
 * publishes only [lowest, highest] of its set (readers test that interval);
 * with batch > 0, a visit tests each run of `batch` neighbours against its
 * set as it was before the run and takes the highest colors out after
 * those tests (as lanes reading at once would); with async (a seed), each
 * sweep visits the vertices in a random order and publishes every visit at
 * once (rounds are then sweeps). Returns the rounds until all decide (*ok:
 * every vertex got the greedy color `color`). */
static int shortcut_rounds(const mispc_csr *g, const uint32_t *key, const int32_t *color, int wide,
                           int batch, int by_row, uint64_t async, int *ok) {
  const int64_t n = g->nrows;
  int64_t *off = malloc(sizeof *off * (size_t)(n + 1)), *lb = malloc(sizeof *lb * (size_t)(n + 1));
  int32_t *len = malloc(sizeof *len * (size_t)n), *k0 = malloc(sizeof *k0 * (size_t)n);
  off[0] = lb[0] = 0;
  for (int64_t v = 0; v < n; ++v) {
    int32_t k = 0;
    for (int64_t q = g->rowptr[v]; q < g->rowptr[v + 1]; ++q)
      k += g->colidx[q] != v && before(key, g->colidx[q], (int32_t)v);
    len[v] = k0[v] = k;
    lb[v + 1] = lb[v] + k;
    off[v + 1] = off[v] + (k + 1 + 63) / 64;
  }
  int32_t *list = malloc(sizeof *list * (size_t)(lb[n] + 1));
  uint64_t *A = calloc((size_t)off[n] + 1, 8), *B = calloc((size_t)off[n] + 1, 8);
  int32_t *size = malloc(sizeof *size * (size_t)n); /* |set| = |mask| + 1 */
  for (int64_t v = 0; v < n; ++v) {
    int64_t p = lb[v];
    for (int64_t q = g->rowptr[v]; q < g->rowptr[v + 1]; ++q)
      if (g->colidx[q] != v && before(key, g->colidx[q], (int32_t)v)) list[p++] = g->colidx[q];
    for (int32_t c = 0; c <= len[v]; ++c) A[off[v] + c / 64] |= 1ull << (c % 64);
    size[v] = len[v] + 1;
  }
  memcpy(B, A, 8 * (size_t)off[n]);
  int32_t *newsize = malloc(sizeof *newsize * (size_t)n);
  int32_t *plo = malloc(sizeof *plo * (size_t)n), *phi = malloc(sizeof *phi * (size_t)n);
  /* wide: more than `wide` earlier neighbours, or (by_row) row entries, as
   * coloring_cuda.cu's wide rows; by_row batches only those (short rows
   * a thread each, in order) */
  uint8_t *isw = malloc((size_t)n + 1);
  for (int64_t v = 0; v < n; ++v)
    isw[v] = wide >= 0 && (by_row ? g->rowptr[v + 1] - g->rowptr[v] > wide : k0[v] > wide);
  int64_t wmax = 1;
  for (int64_t v = 0; v < n; ++v)
    if (off[v + 1] - off[v] > wmax) wmax = off[v + 1] - off[v];
  uint64_t *pc0 = malloc(8 * (size_t)wmax);
  int64_t *perm = malloc(sizeof *perm * (size_t)(n + 1));
  for (int64_t v = 0; v < n; ++v) perm[v] = v;
  uint64_t rng = async;
  int rounds = 0;
  for (int64_t left = n; left > 0; ++rounds) {
    left = 0;
    for (int64_t u = 0; u < n; ++u) { /* what a wide vertex publishes: [lowest, highest] */
      if (!isw[u]) continue;
      const int64_t w = off[u + 1] - off[u];
      int64_t j = 0;
      while (!A[off[u] + j]) ++j;
      plo[u] = (int32_t)(64 * j + __builtin_ctzll(A[off[u] + j]));
      j = w - 1;
      while (!A[off[u] + j]) --j;
      phi[u] = (int32_t)(64 * j + 63 - __builtin_clzll(A[off[u] + j]));
    }
    for (int64_t i = n - 1; async && i > 0; --i) { /* a new random order each sweep */
      rng = rng * 6364136223846793005ull + 1442695040888963407ull;
      const int64_t j = (int64_t)((rng >> 33) % (uint64_t)(i + 1)), t = perm[i];
      perm[i] = perm[j], perm[j] = t;
    }
    for (int64_t pi = 0; pi < n; ++pi) {
      const int64_t v = perm[pi];
      newsize[v] = size[v];
      if (size[v] == 1) continue;
      uint64_t *pc = B + off[v];
      const int64_t w = off[v + 1] - off[v];
      int32_t kept = 0, drops = 0;
      memcpy(pc0, pc, 8 * (size_t)w);
      const int bt = by_row && !isw[v] ? 0 : batch;
      const uint64_t *pt = bt ? pc0 : pc; /* the set the tests read */
      for (int32_t i = 0; i < len[v]; ++i) {
        if (bt && i && i % bt == 0) { /* a new chunk reads the set as it is now */
          for (; drops > 0; --drops) {
            int64_t j = w - 1;
            while (!pc[j]) --j;
            pc[j] &= ~(1ull << (63 - __builtin_clzll(pc[j])));
          }
          memcpy(pc0, pc, 8 * (size_t)w);
        }
        const int32_t u = list[lb[v] + i];
        const uint64_t *np = A + off[u];
        const int64_t wu = off[u + 1] - off[u], m = w < wu ? w : wu;
        int meet = 0;
        if (isw[u] && size[u] > 1) /* published as an interval */
          for (int32_t c = plo[u]; c <= phi[u] && c < 64 * w && !meet; ++c)
            meet = (pt[c / 64] >> (c % 64)) & 1;
        else
          for (int64_t j = 0; j < m && !meet; ++j) meet = (pt[j] & np[j]) != 0;
        if (!meet && bt)
          ++drops;
        else if (!meet) { /* its highest color leaves */
          int64_t j = w - 1;
          while (!pc[j]) --j;
          pc[j] &= ~(1ull << (63 - __builtin_clzll(pc[j])));
        } else if (size[u] == 1) { /* decided: its color leaves */
          for (int64_t j = 0; j < m; ++j) pc[j] &= ~np[j];
        } else
          list[lb[v] + kept++] = u;
      }
      for (; drops > 0; --drops) { /* batch: the highest colors leave after the reads */
        int64_t j = w - 1;
        while (!pc[j]) --j;
        pc[j] &= ~(1ull << (63 - __builtin_clzll(pc[j])));
      }
      int64_t j0 = 0;
      while (!pc[j0]) ++j0;
      const int32_t lo = (int32_t)(64 * j0 + __builtin_ctzll(pc[j0]));
      /* the shortcut's test: lo in the set of a neighbour still masked (ECL-GC
       * tests the union over all it read; the dropped ones cannot hold lo) */
      int taken = 0;
      for (int32_t i = 0; i < kept && !taken; ++i) {
        const int32_t u = list[lb[v] + i];
        if (isw[u])
          taken = plo[u] <= lo && lo <= phi[u];
        else
          taken = lo / 64 < off[u + 1] - off[u] && ((A[off[u] + lo / 64] >> (lo % 64)) & 1);
      }
      len[v] = kept;
      if (kept && !taken) kept = 0; /* the shortcut */
      if (!kept) {
        memset(pc, 0, 8 * (size_t)w);
        pc[lo / 64] = 1ull << (lo % 64);
        newsize[v] = 1;
        len[v] = 0;
      } else {
        newsize[v] = kept + 1;
        ++left;
      }
      if (async) { /* published at once: later visits of this sweep read it */
        memcpy(A + off[v], pc, 8 * (size_t)w);
        size[v] = newsize[v];
        if (isw[v]) {
          int64_t j = 0;
          while (!pc[j]) ++j;
          plo[v] = (int32_t)(64 * j + __builtin_ctzll(pc[j]));
          j = w - 1;
          while (!pc[j]) --j;
          phi[v] = (int32_t)(64 * j + 63 - __builtin_clzll(pc[j]));
        }
      }
    }
    memcpy(A, B, 8 * (size_t)off[n]);
    memcpy(size, newsize, sizeof *size * (size_t)n);
  }
  *ok = 1;
  for (int64_t v = 0; v < n && *ok; ++v) {
    int64_t j = 0;
    while (!A[off[v] + j]) ++j;
    *ok = 64 * j + __builtin_ctzll(A[off[v] + j]) == color[v];
  }
  free(off);
  free(lb);
  free(len);
  free(k0);
  free(plo);
  free(phi);
  free(pc0);
  free(isw);
  free(perm);
  free(list);
  free(A);
  free(B);
  free(size);
  free(newsize);
  return rounds;
}

static int run(mispc_context *ctx, const char *spec) {
  mispc_csr g;
  if (mispc_load(ctx, spec, &g)) {
    fprintf(stderr, "%s: %s\n", spec, mispc_context_error(ctx));
    return 1;
  }
  const int64_t n = g.nrows;
  const int64_t hub_degree = mis1_hub_degree(g.nnz, n);
  uint32_t *key = malloc(sizeof *key * (size_t)n);
  int32_t *order = malloc(sizeof *order * (size_t)n), *color = malloc(sizeof *color * (size_t)n);
  int32_t *depth = malloc(sizeof *depth * (size_t)n),
          *hubs_on = malloc(sizeof *hubs_on * (size_t)n);
  int32_t *hub_depth = malloc(sizeof *hub_depth * (size_t)n);
  uint8_t *seen = calloc((size_t)n + 1, 1);
  int64_t hubs = 0, hub_entries = 0, maxdeg = 0;
  for (int64_t v = 0; v < n; ++v) {
    key[v] = mis1_key(MIS1_KEY_HASH, 0, v, g.rowptr[v + 1] - g.rowptr[v]);
    order[v] = (int32_t)v;
    const int64_t d = g.rowptr[v + 1] - g.rowptr[v];
    if (d > maxdeg) maxdeg = d;
    if (d > hub_degree) ++hubs, hub_entries += d;
  }
  g_key = key;
  qsort(order, (size_t)n, sizeof *order, by_key);
  int32_t ncolors = 0, maxdepth = 0, maxhubdepth = 0, hubs_longest = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int32_t v = order[i];
    const int hub = g.rowptr[v + 1] - g.rowptr[v] > hub_degree;
    int32_t d = 0, h = 0, hd = 0;
    for (int64_t q = g.rowptr[v]; q < g.rowptr[v + 1]; ++q) {
      const int32_t u = g.colidx[q];
      if (u == v || !before(key, u, v)) continue;
      seen[color[u]] = 1;
      /* the longest chain; among the longest, the most hubs on it */
      if (depth[u] > d || (depth[u] == d && hubs_on[u] > h)) d = depth[u], h = hubs_on[u];
      if (hub && g.rowptr[u + 1] - g.rowptr[u] > hub_degree && hub_depth[u] > hd) hd = hub_depth[u];
    }
    int32_t c = 0;
    while (seen[c]) ++c;
    color[v] = c;
    for (int64_t q = g.rowptr[v]; q < g.rowptr[v + 1]; ++q) {
      const int32_t u = g.colidx[q];
      if (u != v && before(key, u, v)) seen[color[u]] = 0;
    }
    depth[v] = d + 1;
    hubs_on[v] = h + hub;
    hub_depth[v] = hub ? hd + 1 : 0;
    if (c + 1 > ncolors) ncolors = c + 1;
    if (depth[v] > maxdepth || (depth[v] == maxdepth && hubs_on[v] > hubs_longest))
      maxdepth = depth[v], hubs_longest = hubs_on[v];
    if (hub_depth[v] > maxhubdepth) maxhubdepth = hub_depth[v];
  }
  int sc_ok = 0, sw_ok = 0, sb_ok = 0;
  const int sc = shortcut_rounds(&g, key, color, -1, 0, 0, 0, &sc_ok);
  /* vertices with more than 31 earlier neighbours publish [lowest, highest]
   * only; then also each visit's tests against the set before it, the
   * highest colors leaving after them (lanes reading at once) */
  const int sw = shortcut_rounds(&g, key, color, 31, 0, 0, 0, &sw_ok);
  const int sb = shortcut_rounds(&g, key, color, 31, 1 << 30, 0, 0, &sb_ok);
  int s32_ok = 0; /* batches of 32 neighbours, as a warp's loads */
  const int s32 = shortcut_rounds(&g, key, color, 31, 32, 0, 0, &s32_ok);
  /* as the GPU pass of branch wip/wide-shortcut: rows over 31 entries wide,
   * batches of 32 for them, short rows in order */
  int sg_ok = 0;
  const int sg = shortcut_rounds(&g, key, color, 31, 32, 1, 0, &sg_ok);
  /* and that form with visits in random orders, each published at once (five
   * seeds: the colors must not depend on the schedule) */
  int sa_ok = 1, sa_max = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    int o = 0;
    const int r = shortcut_rounds(&g, key, color, 31, 32, 1, seed * 0x9E3779B97F4A7C15ull, &o);
    sa_ok &= o;
    if (r > sa_max) sa_max = r;
  }
  sc_ok &= sw_ok && sb_ok && s32_ok && sg_ok && sa_ok;
  /* the library's colors on the host: the same, or the key above is not its */
  mispc_coloring_options o;
  mispc_coloring_options_default(&o);
  o.mis.priority = MISPC_PRIORITY_HASH;
  mispc_coloring lc;
  int same = 0;
  if (!mispc_color(ctx, &g, &o, &lc)) {
    same = lc.ncolors == ncolors && !memcmp(lc.color, color, sizeof *color * (size_t)n);
    mispc_coloring_free(ctx, &lc);
  }
  printf(
      "%-26s %9lld %11lld %6lld %7lld %10lld %8lld %6d %6d %10d %10d %9d %9d %9d %9d %9d %9d %s\n",
      spec, (long long)n, (long long)g.nnz, (long long)hub_degree, (long long)hubs,
      (long long)hub_entries, (long long)maxdeg, ncolors, maxdepth, hubs_longest, maxhubdepth, sc,
      sw, sb, s32, sg, sa_max, same && sc_ok ? "same" : "DIFFERS");
  free(key);
  free(order);
  free(color);
  free(depth);
  free(hubs_on);
  free(hub_depth);
  free(seen);
  mispc_csr_free(ctx, &g);
  return !(same && sc_ok);
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    fprintf(argc < 2 ? stderr : stdout, "usage: color_depth SPEC...\n");
    return argc < 2 ? 2 : 0;
  }
  mispc_context *ctx;
  if (mispc_context_create(&ctx)) return 1;
  printf("%-26s %9s %11s %6s %7s %10s %8s %6s %6s %10s %10s %9s %9s %9s %9s %9s %9s %s\n", "graph",
         "vertices", "entries", "hubdeg", "hubs", "hub-ent", "maxdeg", "colors", "depth",
         "hubs-on-it", "hub-chain", "shortcut", "intervals", "batch", "batch32", "gpu-form",
         "async", "check");
  int bad = 0;
  for (int i = 1; i < argc; ++i) bad |= run(ctx, argv[i]);
  mispc_context_destroy(ctx);
  return bad;
}
