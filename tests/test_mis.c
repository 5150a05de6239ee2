/* MIS-1 / MIS-2 on the host: independence and maximality on every generator,
 * the exact greedy oracle, determinism across thread counts, edge cases and
 * error paths. */
#include "../mis/mis_backend.h" /* mis2_gather_chunks */
#include "../mis/mis_common.h"  /* mis2_cover_tuple */
#include "mis_test_graphs.h"
#include "tuning.h"

static mispc_context *ctx;

static mispc_csr gen(const char *spec) {
  return generated_graph(ctx, spec, 7);
}

/* Runs MIS-k, checks status, verify, set size and returns rounds. */
static int run_checked(const mispc_csr *G, int k, const mispc_mis_options *o, uint8_t *set,
                       const char *what) {
  mispc_mis_result r = {-1, -1};
  mispc_status s = k == 1 ? mispc_mis1(ctx, G, o, set, &r) : mispc_mis2(ctx, G, o, set, &r);
  CHECK_MSG(s == MISPC_SUCCESS, "%s MIS-%d: %s", what, k, mispc_context_error(ctx));
  if (s) return -1;
  s = mispc_verify_mis(ctx, G, k, set);
  CHECK_MSG(s == MISPC_SUCCESS, "%s MIS-%d verify: %s", what, k, mispc_context_error(ctx));
  int64_t c = 0;
  for (int64_t v = 0; v < G->nrows; ++v) c += set[v];
  CHECK_MSG(c == r.set_size, "%s MIS-%d: reported size %lld, counted %lld", what, k,
            (long long)r.set_size, (long long)c);
  return r.rounds;
}

static const char *specs[] = {"gen:laplace2d:31",       "gen:laplace3d:12", "gen:elasticity3d:5",
                              "gen:aniso2d:20:0.01:30", "gen:aniso3d:9",    "gen:kron:12",
                              "gen:random:5000:8",      "gen:path:1000",    "gen:roadgrid:60:0.3",
                              "gen:grid2d:40",          "gen:grid3d27:10"};

static void test_mis_valid_on_every_generator(void) {
  for (size_t i = 0; i < sizeof specs / sizeof *specs; ++i) {
    mispc_csr G = gen(specs[i]);
    uint8_t *set = malloc((size_t)G.nrows + 1);
    mispc_mis_options o;
    mispc_mis_options_default(&o);
    run_checked(&G, 1, &o, set, specs[i]);
    run_checked(&G, 2, &o, set, specs[i]);
    o.priority = MISPC_PRIORITY_HASH;
    run_checked(&G, 1, &o, set, specs[i]);
    run_checked(&G, 2, &o, set, specs[i]);
    free(set);
    mispc_csr_free(ctx, &G);
  }
}

/* The default key's line class (issue 31, item 3): on a 27-point grid whose
 * lines have an even length the default set holds at least 9.7 % of the
 * vertices (degree and hash alone: 8.67 % on grid3d27:60) and at least the
 * degree key's set on the other meshes. (That the class depends on the set
 * of neighbour ids only, not on how a partition splits a row, is checked by
 * the distributed tests: MIS-1 on 1..7 ranks equals the one-process set.) */
static void test_mis1_line_class(void) {
  const char *g[] = {"gen:grid3d27:40", "gen:laplace3d:30", "gen:grid2d:100", "gen:roadgrid:60"};
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i) {
    mispc_csr G = gen(g[i]);
    const size_t n = (size_t)G.nrows;
    uint8_t *set = malloc(n + 1), *deg = malloc(n + 1);
    mispc_mis_options o;
    mispc_mis_options_default(&o);
    run_checked(&G, 1, &o, set, g[i]);
    o.priority = MISPC_PRIORITY_DEGREE;
    run_checked(&G, 1, &o, deg, g[i]);
    int64_t size = 0, size_deg = 0;
    for (size_t v = 0; v < n; ++v) size += set[v], size_deg += deg[v];
    CHECK_MSG(size >= size_deg, "%s: default set %lld < degree key's %lld", g[i], (long long)size,
              (long long)size_deg);
    if (i == 0)
      CHECK_MSG(size * 1000 >= (int64_t)n * 97, "%s: default set %.2f %% < 9.7 %%", g[i],
                100.0 * (double)size / (double)n);
    free(set);
    free(deg);
    mispc_csr_free(ctx, &G);
  }
}

/* The line class of one row from the one-process form (a sorted row) and
 * from the distributed one (owned columns + base, ghosts through garray,
 * any split) is the same, up to rows of MIS1_LINE_MAX_DEG + 1 entries: a
 * line vertex with 65 neighbours and no self loop was class 1 on several
 * ranks and class 0 on one. */
static void test_mis1_line_class_forms(void) {
  const int64_t v = 200;
  int64_t nb[80];
  int m = 0;
  for (int64_t u = v - 45; u <= v + 41; ++u) { /* runs of 3 centred 4k from v, and v +- 1 */
    const int64_t d = u - v;
    const int64_t c = (d + 400) % 4; /* position inside a 4-id period around centres v + 4k */
    if (d == -1 || d == 1 || (d <= -3 && c != 2) || (d >= 3 && c != 2)) nb[m++] = u;
  }
  CHECK_MSG(m == 65, "the row holds %d neighbours", m);
  for (int self = 0; self < 2; ++self)
    for (int drop = 0; drop < 2; ++drop) { /* drop: without v - 45 (a run of 2: class 1) */
      int32_t row[82];
      int n = 0;
      for (int i = drop; i < m; ++i) {
        if (self && nb[i] > v && (n == 0 || row[n - 1] < v)) row[n++] = (int32_t)v;
        row[n++] = (int32_t)nb[i];
      }
      const uint32_t one = mis1_line_class_row(row, n, v);
      if (!drop) /* 65 neighbours: a line vertex (v even: class 0), with v itself 66 entries */
        CHECK_MSG(self ? one == 1u : one == 0u, "row form: %u (self %d, %d entries)", one, self, n);
      /* owned block [100, 300) of a rank with base 100, the rest ghosts */
      for (int64_t base = 100; base <= 200; base += 100) {
        int32_t own[82], gh[82];
        int64_t garray[82];
        int no = 0, ng = 0;
        for (int i = 0; i < n; ++i)
          if (row[i] >= base && row[i] < base + 100)
            own[no++] = (int32_t)(row[i] - base);
          else
            garray[ng] = row[i], gh[ng] = ng, ++ng;
        const uint32_t dist = mis1_line_class(own, no, base, gh, ng, garray, v);
        CHECK_MSG(dist == one, "distributed form %u, row form %u (self %d, base %lld)", dist, one,
                  self, (long long)base);
      }
    }
}

static void test_mis1_equals_sequential_greedy(void) {
  const char *g[] = {"gen:laplace3d:10", "gen:kron:11", "gen:random:3000:6", "gen:roadgrid:40:0.3",
                     "gen:elasticity3d:4"};
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i) {
    mispc_csr G = gen(g[i]);
    uint8_t *set = malloc((size_t)G.nrows + 1), *ref = malloc((size_t)G.nrows + 1);
    /* hash, degree then hash, the default (degree, line class, hash) */
    const mispc_priority prio[] = {MISPC_PRIORITY_HASH, MISPC_PRIORITY_DEGREE,
                                   MISPC_PRIORITY_DEFAULT};
    const int mode[] = {MIS1_KEY_HASH, MIS1_KEY_LOW_DEGREE, MIS1_KEY_LINES};
    for (int pk = 0; pk < 3; ++pk)
      for (uint64_t seed = 0; seed < 3; ++seed) {
        mispc_mis_options o;
        mispc_mis_options_default(&o);
        o.seed = seed;
        o.priority = prio[pk];
        run_checked(&G, 1, &o, set, g[i]);
        uint64_t *key = mis1_keys(&G, mode[pk], seed);
        greedy_mis(&G, 1, key, ref);
        CHECK_MSG(!memcmp(set, ref, (size_t)G.nrows), "%s: MIS-1 differs from greedy (mode %d)",
                  g[i], mode[pk]);
        mispc_tuning t = {0};
        t.mis_no_early_exit = 1; /* same set without early exit */
        CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
        run_checked(&G, 1, &o, set, g[i]);
        mispc_context_set_tuning_(ctx, NULL);
        CHECK(!memcmp(set, ref, (size_t)G.nrows));
        free(key);
      }
    free(set);
    free(ref);
    mispc_csr_free(ctx, &G);
  }
}

static void test_mis2_fixed_priority_equals_greedy_on_square(void) {
  const char *g[] = {"gen:laplace2d:25", "gen:kron:10", "gen:random:2000:5", "gen:grid3d27:7"};
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i) {
    mispc_csr G = gen(g[i]);
    uint8_t *set = malloc((size_t)G.nrows + 1), *ref = malloc((size_t)G.nrows + 1);
    mispc_mis_options o;
    mispc_mis_options_default(&o);
    o.priority = MISPC_PRIORITY_HASH;
    o.seed = 11;
    run_checked(&G, 2, &o, set, g[i]);
    uint64_t *key = mis2_fixed_keys(&G, 11);
    greedy_mis(&G, 2, key, ref);
    CHECK_MSG(!memcmp(set, ref, (size_t)G.nrows), "%s: fixed MIS-2 differs from greedy on G^2",
              g[i]);
    free(key);
    free(set);
    free(ref);
    mispc_csr_free(ctx, &G);
  }
}

static void test_mis_deterministic_across_threads(void) {
  mispc_csr G = gen("gen:kron:13");
  size_t n = (size_t)G.nrows;
  uint8_t *a = malloc(n), *b = malloc(n);
  for (int k = 1; k <= 2; ++k) {
    mispc_context_set_num_threads(ctx, 1);
    int ra = run_checked(&G, k, NULL, a, "1 thread");
    mispc_context_set_num_threads(ctx, 2);
    int rb = run_checked(&G, k, NULL, b, "2 threads");
    CHECK(ra == rb);
    CHECK(!memcmp(a, b, n));
    rb = run_checked(&G, k, NULL, b, "2 threads again");
    CHECK(ra == rb && !memcmp(a, b, n));
  }
  mispc_context_set_num_threads(ctx, 0);
  free(a);
  free(b);
  mispc_csr_free(ctx, &G);
}

static void test_mis_edge_cases(void) {
  uint8_t set[64];
  mispc_mis_result r;
  /* n = 0 */
  int64_t rp0[1] = {0};
  mispc_csr E;
  mispc_csr_wrap(MISPC_MEM_HOST, 0, 0, 0, rp0, NULL, NULL, &E);
  for (int k = 1; k <= 2; ++k) {
    CHECK_OK(ctx, k == 1 ? mispc_mis1(ctx, &E, NULL, set, &r) : mispc_mis2(ctx, &E, NULL, set, &r));
    CHECK(r.set_size == 0 && r.rounds == 0);
  }
  /* n = 1, and isolated vertices: all in the set */
  int64_t rp5[6] = {0, 0, 0, 0, 0, 0};
  mispc_csr I;
  mispc_csr_wrap(MISPC_MEM_HOST, 5, 5, 0, rp5, NULL, NULL, &I);
  for (int k = 1; k <= 2; ++k) {
    run_checked(&I, k, NULL, set, "isolated");
    CHECK(set[0] && set[1] && set[2] && set[3] && set[4]);
    I.nrows = I.ncols = 1;
    run_checked(&I, k, NULL, set, "single vertex");
    CHECK(set[0] == 1);
    I.nrows = I.ncols = 5;
  }
  /* star: degree-aware MIS-1 takes the leaves; MIS-2 takes one vertex */
  mispc_csr S = star_graph(ctx, 20);
  run_checked(&S, 1, NULL, set, "star");
  CHECK(set[0] == 0 && set[1] == 1 && set[20] == 1);
  mispc_mis_result r2;
  CHECK_OK(ctx, mispc_mis2(ctx, &S, NULL, set, &r2));
  CHECK(r2.set_size == 1);
  mispc_csr_free(ctx, &S);
  /* clique: exactly one member at either distance */
  mispc_csr C = clique_graph(ctx, 30);
  CHECK_OK(ctx, mispc_mis1(ctx, &C, NULL, set, &r));
  CHECK(r.set_size == 1);
  CHECK_OK(ctx, mispc_mis2(ctx, &C, NULL, set, &r));
  CHECK(r.set_size == 1);
  mispc_csr_free(ctx, &C);
  /* self loops are ignored: triangle with loops on every vertex */
  int32_t eu[6] = {0, 1, 0, 0, 1, 2}, ev[6] = {1, 2, 2, 0, 1, 2};
  mispc_csr T = graph_from_edges(ctx, 3, 6, eu, ev);
  run_checked(&T, 1, NULL, set, "loops");
  CHECK(set[0] + set[1] + set[2] == 1);
  mispc_csr_free(ctx, &T);
  /* disconnected pieces: two paths and an isolated vertex */
  int32_t pu[4] = {0, 1, 3, 4}, pv[4] = {1, 2, 4, 5};
  mispc_csr P = graph_from_edges(ctx, 7, 4, pu, pv);
  run_checked(&P, 1, NULL, set, "pieces");
  CHECK(set[6] == 1);
  run_checked(&P, 2, NULL, set, "pieces");
  CHECK(set[6] == 1 && set[0] + set[1] + set[2] == 1 && set[3] + set[4] + set[5] == 1);
  mispc_csr_free(ctx, &P);
}

static void test_mis1_path_of_a_million_needs_few_rounds(void) {
  mispc_csr G = gen("gen:path:1000000");
  uint8_t *set = malloc((size_t)G.nrows);
  int r1 = run_checked(&G, 1, NULL, set, "path");
  CHECK_MSG(r1 > 0 && r1 <= 30, "MIS-1 on the 1M path took %d rounds", r1);
  int r2 = run_checked(&G, 2, NULL, set, "path");
  CHECK_MSG(r2 > 0 && r2 <= 40, "MIS-2 on the 1M path took %d rounds", r2);
  printf("  1M path: MIS-1 %d rounds, MIS-2 %d rounds\n", r1, r2);
  free(set);
  mispc_csr_free(ctx, &G);
}

static void test_mis_errors(void) {
  uint8_t set[8];
  mispc_mis_result r;
  /* unsymmetric pattern: 0 -> 1 only */
  mispc_csr U = one_way_pair();
  CHECK_STATUS(ctx, mispc_mis1(ctx, &U, NULL, set, &r), MISPC_ERR_UNSYMMETRIC);
  CHECK(strstr(mispc_context_error(ctx), "not symmetric") != NULL);
  CHECK_STATUS(ctx, mispc_mis2(ctx, &U, NULL, set, &r), MISPC_ERR_UNSYMMETRIC);
  mispc_csr S;
  CHECK_OK(ctx, mispc_csr_symmetrize(ctx, &U, 1, &S));
  CHECK_OK(ctx, mispc_mis1(ctx, &S, NULL, set, &r));
  CHECK(r.set_size == 1);
  mispc_csr_free(ctx, &S);
  /* non-square, NULL output, bad options */
  mispc_csr R;
  mispc_csr_wrap(MISPC_MEM_HOST, 2, 3, 1, U.rowptr, U.colidx, NULL, &R); /* 2 x 3 */
  CHECK_STATUS(ctx, mispc_mis1(ctx, &R, NULL, set, &r), MISPC_ERR_NOT_SQUARE);
  CHECK_STATUS(ctx, mispc_mis1(ctx, &U, NULL, NULL, &r), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_mis1(ctx, NULL, NULL, set, &r), MISPC_ERR_INVALID_ARG);
  mispc_mis_options o;
  mispc_mis_options_default(&o);
  o.priority = MISPC_PRIORITY_HASH_PER_ROUND;
  mispc_csr P = gen("gen:path:5");
  CHECK_STATUS(ctx, mispc_mis1(ctx, &P, &o, set, &r), MISPC_ERR_INVALID_ARG);
  o.priority = MISPC_PRIORITY_DEGREE;
  CHECK_STATUS(ctx, mispc_mis2(ctx, &P, &o, set, &r), MISPC_ERR_INVALID_ARG);
  o.priority = MISPC_PRIORITY_DEFAULT;
  o.max_rounds = -1;
  CHECK_STATUS(ctx, mispc_mis1(ctx, &P, &o, set, &r), MISPC_ERR_INVALID_ARG);
  /* round cap reached is reported, not hidden */
  mispc_csr L = gen("gen:path:2000");
  uint8_t *big = malloc(2000);
  o.max_rounds = 1;
  o.priority = MISPC_PRIORITY_HASH;
  CHECK_STATUS(ctx, mispc_mis1(ctx, &L, &o, big, &r), MISPC_ERR_NOT_CONVERGED);
  CHECK_STATUS(ctx, mispc_mis2(ctx, &L, &o, big, &r), MISPC_ERR_NOT_CONVERGED);
  free(big);
  mispc_csr_free(ctx, &L);
  /* verify rejects wrong sets */
  memset(set, 0, sizeof set);
  set[0] = set[1] = 1; /* adjacent on the path 0-1-2-3-4 */
  CHECK_STATUS(ctx, mispc_verify_mis(ctx, &P, 1, set), MISPC_ERR_VERIFY);
  memset(set, 0, sizeof set);
  set[0] = 1; /* 2, 3, 4 could join */
  CHECK_STATUS(ctx, mispc_verify_mis(ctx, &P, 1, set), MISPC_ERR_VERIFY);
  CHECK(strstr(mispc_context_error(ctx), "not maximal") != NULL);
  set[2] = 1; /* independent at distance 1, not 2 */
  set[4] = 1;
  CHECK_OK(ctx, mispc_verify_mis(ctx, &P, 1, set));
  CHECK_STATUS(ctx, mispc_verify_mis(ctx, &P, 2, set), MISPC_ERR_VERIFY);
  CHECK_STATUS(ctx, mispc_verify_mis(ctx, &P, 3, set), MISPC_ERR_INVALID_ARG);
  /* member list */
  int32_t list[8];
  int64_t cnt = 0;
  CHECK_OK(ctx, mispc_mis_to_list(ctx, &P, set, list, &cnt));
  CHECK(cnt == 3 && list[0] == 0 && list[1] == 2 && list[2] == 4);
  mispc_csr_free(ctx, &P);
}

static void test_mis2_subset_equals_mis2_of_induced_subgraph(void) {
  const char *g[] = {"gen:laplace3d:12", "gen:kron:11", "gen:elasticity3d:4"};
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i) {
    mispc_csr G = gen(g[i]);
    size_t n = (size_t)G.nrows;
    uint8_t *sub = random_subset(G.nrows, 60), *a = malloc(n), *b = malloc(n);
    mispc_csr S = induced_subgraph(ctx, &G, sub);
    mispc_mis_result r;
    CHECK_OK(ctx, mispc_mis2_subset(ctx, &G, NULL, sub, a, &r));
    CHECK_OK(ctx, mispc_mis2(ctx, &S, NULL, b, NULL));
    int same = 1, outside = 0;
    for (size_t v = 0; v < n; ++v) {
      if (sub[v] && a[v] != b[v]) same = 0;
      if (!sub[v] && a[v]) outside = 1;
    }
    CHECK_MSG(same, "%s: subset MIS-2 differs from MIS-2 of the induced subgraph", g[i]);
    CHECK(!outside);
    /* on the subgraph it is a valid MIS-2 once the outside is ignored */
    for (size_t v = 0; v < n; ++v) b[v] = sub[v] ? a[v] : 1; /* isolated outside vertices */
    CHECK_OK(ctx, mispc_verify_mis(ctx, &S, 2, b));
    mispc_csr_free(ctx, &S);
    free(sub);
    free(a);
    free(b);
    mispc_csr_free(ctx, &G);
  }
}

/* MISPC_PRIORITY_COVER: a valid MIS-2 on every graph, the same set and
 * rounds on 1 and 2 threads, fewer members than the per-round hash on
 * meshes (the vertex that covers the most undecided ones goes first), a
 * subset's set equal to the induced subgraph's, its round limit, and MIS-1
 * refuses it. */
static int64_t members(const uint8_t *set, int64_t n) {
  int64_t c = 0;
  for (int64_t v = 0; v < n; ++v) c += set[v];
  return c;
}
/* The cover rounds literally (docs/MIS.md), one vertex at a time: each
 * round marks OUT the undecided vertices within distance 2 of the set
 * (through vertices of the subset), counts, and lets in every undecided
 * vertex whose tuple is the least within distance 2. Returns the rounds. */
static int cover_reference(const mispc_csr *G, const uint8_t *sub, uint64_t seed, uint8_t *in) {
  const int64_t n = G->nrows;
  const size_t nb = n > 0 ? (size_t)n : 0; /* bytes a flag array (n >= 0: gcc cannot tell) */
  const int64_t *rp = G->rowptr;
  const int32_t *ci = G->colidx;
  uint8_t *st = malloc(nb + 1), *near = malloc(nb + 1); /* 0 undecided, 1 IN, 2 OUT */
  uint32_t *c1 = malloc((size_t)n * 4);
  uint64_t *t = malloc((size_t)n * 8);
  for (int64_t v = 0; v < n; ++v) st[v] = sub && !sub[v] ? 2 : 0;
  int rounds = 0;
  for (;;) {
    int64_t left = 0;
    for (int64_t v = 0; v < n; ++v) left += st[v] == 0;
    if (!left) break;
    memset(near, 0, nb); /* distance 1 and 2 from an IN vertex, relays in the subset */
    for (int64_t x = 0; x < n; ++x)
      if (st[x] == 1)
        for (int64_t p = rp[x]; p < rp[x + 1]; ++p) {
          const int32_t u = ci[p];
          near[u] = 1;
          if (st[u] != 2 || !sub || sub[u])
            for (int64_t q = rp[u]; q < rp[u + 1]; ++q) near[ci[q]] = 1;
        }
    for (int64_t v = 0; v < n; ++v)
      if (st[v] == 0 && near[v]) st[v] = 2;
    for (int64_t v = 0; v < n; ++v) {
      c1[v] = st[v] == 0;
      for (int64_t p = rp[v]; p < rp[v + 1]; ++p) c1[v] += ci[p] != v && st[ci[p]] == 0;
    }
    for (int64_t v = 0; v < n; ++v) {
      if (st[v]) continue;
      uint64_t c = c1[v];
      for (int64_t p = rp[v]; p < rp[v + 1]; ++p)
        if (ci[p] != v && (!sub || sub[ci[p]])) c += c1[ci[p]];
      t[v] = mis2_cover_tuple(seed, rounds, v, c, mis2_id_bits(n));
    }
    memset(near, 0, nb); /* near[v]: an undecided vertex of v's ball comes first */
    for (int64_t v = 0; v < n; ++v) {
      if (st[v]) continue;
      for (int64_t p = rp[v]; p < rp[v + 1] && !near[v]; ++p) {
        const int32_t u = ci[p];
        if (st[u] == 0 && t[u] < t[v]) near[v] = 1;
        if (u == v || (sub && !sub[u])) continue;
        for (int64_t q = rp[u]; q < rp[u + 1] && !near[v]; ++q)
          if (st[ci[q]] == 0 && t[ci[q]] < t[v]) near[v] = 1;
      }
    }
    for (int64_t v = 0; v < n; ++v)
      if (st[v] == 0 && !near[v]) st[v] = 1;
    ++rounds;
  }
  for (int64_t v = 0; v < n; ++v) in[v] = st[v] == 1;
  free(st);
  free(near);
  free(c1);
  free(t);
  return rounds;
}

static void test_mis2_cover(void) {
  const char *g[] = {"gen:grid3d27:20", "gen:laplace3d:20",  "gen:kron:12",
                     "gen:path:500",    "gen:random:3000:6", "gen:elasticity3d:5"};
  mispc_mis_options o;
  mispc_mis_options_default(&o);
  o.priority = MISPC_PRIORITY_COVER;
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i) {
    mispc_csr G = gen(g[i]);
    const int64_t n = G.nrows;
    uint8_t *a = malloc((size_t)n), *b = malloc((size_t)n);
    mispc_context_set_num_threads(ctx, 1);
    const int ra = run_checked(&G, 2, &o, a, g[i]);
    mispc_context_set_num_threads(ctx, 2);
    const int rb = run_checked(&G, 2, &o, b, g[i]);
    mispc_context_set_num_threads(ctx, 0);
    CHECK_MSG(ra == rb && !memcmp(a, b, (size_t)n), "%s: cover MIS-2 depends on the threads", g[i]);
    if (i < 2) { /* meshes: fewer members than the per-round hash */
      run_checked(&G, 2, NULL, b, g[i]);
      CHECK_MSG(members(a, n) < members(b, n), "%s: cover %lld members, per-round %lld", g[i],
                (long long)members(a, n), (long long)members(b, n));
    }
    free(a);
    free(b);
    mispc_csr_free(ctx, &G);
  }
  const char *h[] = {"gen:kron:11", "gen:grid3d27:12"};
  for (size_t i = 0; i < 2; ++i) {
    mispc_csr G = gen(h[i]);
    const size_t n = (size_t)G.nrows;
    uint8_t *sub = random_subset(G.nrows, 60), *a = malloc(n), *b = malloc(n);
    mispc_csr S = induced_subgraph(ctx, &G, sub);
    CHECK_OK(ctx, mispc_mis2_subset(ctx, &G, &o, sub, a, NULL));
    CHECK_OK(ctx, mispc_mis2(ctx, &S, &o, b, NULL));
    int same = 1, outside = 0;
    for (size_t v = 0; v < n; ++v) {
      if (sub[v] && a[v] != b[v]) same = 0;
      if (!sub[v] && a[v]) outside = 1;
    }
    CHECK_MSG(same && !outside, "%s: cover MIS-2 of a subset != that of the induced subgraph",
              h[i]);
    mispc_csr_free(ctx, &S);
    free(sub);
    free(a);
    free(b);
    mispc_csr_free(ctx, &G);
  }
  const char *f[] = {"gen:grid3d27:8", "gen:kron:9", "gen:random:500:6", "gen:laplace2d:20"};
  for (size_t i = 0; i < 4; ++i) /* the library against the literal rounds, whole and subsets */
    for (int part = 0; part <= 1; ++part) {
      mispc_csr G = gen(f[i]);
      const size_t n = (size_t)G.nrows;
      uint8_t *sub = part ? random_subset(G.nrows, 70) : NULL, *a = malloc(n), *b = malloc(n);
      mispc_mis_result r;
      o.seed = 5 + i;
      CHECK_OK(ctx, mispc_mis2_subset(ctx, &G, &o, sub, a, &r));
      const int rounds = cover_reference(&G, sub, o.seed, b);
      CHECK_MSG(!memcmp(a, b, n) && r.rounds == rounds,
                "%s%s: cover MIS-2 %d rounds, the literal rounds %d, sets %s", f[i],
                part ? " (subset)" : "", r.rounds, rounds, memcmp(a, b, n) ? "differ" : "equal");
      free(sub);
      free(a);
      free(b);
      mispc_csr_free(ctx, &G);
    }
  o.seed = 0;
  mispc_csr G = gen("gen:grid3d27:20");
  uint8_t *a = malloc((size_t)G.nrows);
  mispc_mis_result r;
  CHECK_STATUS(ctx, mispc_mis1(ctx, &G, &o, a, &r), MISPC_ERR_INVALID_ARG);
  CHECK_OK(ctx, mispc_mis2(ctx, &G, &o, a, &r));
  o.max_rounds = r.rounds; /* exactly its rounds pass, one fewer does not */
  CHECK_OK(ctx, mispc_mis2(ctx, &G, &o, a, &r));
  o.max_rounds = r.rounds - 1;
  CHECK_STATUS(ctx, mispc_mis2(ctx, &G, &o, a, &r), MISPC_ERR_NOT_CONVERGED);
  free(a);
  mispc_csr_free(ctx, &G);
}

static void test_mis1_subset_equals_mis1_of_induced_subgraph(void) {
  const char *g[] = {"gen:laplace3d:12", "gen:kron:11", "gen:random:3000:6"};
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i) {
    mispc_csr G = gen(g[i]);
    size_t n = (size_t)G.nrows;
    uint8_t *sub = random_subset(G.nrows, 60), *a = malloc(n), *b = malloc(n);
    mispc_csr S = induced_subgraph(ctx, &G, sub);
    mispc_mis_options o;
    mispc_mis_options_default(&o);
    o.priority = MISPC_PRIORITY_HASH; /* degree priorities see the whole graph's degree */
    CHECK_OK(ctx, mispc_mis1_subset(ctx, &G, &o, sub, a, NULL));
    CHECK_OK(ctx, mispc_mis1(ctx, &S, &o, b, NULL));
    int same = 1, outside = 0;
    for (size_t v = 0; v < n; ++v) {
      if (sub[v] && a[v] != b[v]) same = 0;
      if (!sub[v] && a[v]) outside = 1;
    }
    CHECK_MSG(same, "%s: subset MIS-1 differs from MIS-1 of the induced subgraph", g[i]);
    CHECK(!outside);
    mispc_csr_free(ctx, &S);
    free(sub);
    free(a);
    free(b);
    mispc_csr_free(ctx, &G);
  }
}

static void test_mis1_largest_degree_equals_greedy(void) {
  mispc_csr G = gen("gen:kron:11");
  size_t n = (size_t)G.nrows;
  uint8_t *set = malloc(n), *ref = malloc(n);
  mispc_mis_options o;
  mispc_mis_options_default(&o);
  o.priority = MISPC_PRIORITY_LARGEST_DEGREE;
  run_checked(&G, 1, &o, set, "largest degree");
  uint64_t *key = mis1_keys(&G, MIS1_KEY_HIGH_DEGREE, 0);
  greedy_mis(&G, 1, key, ref);
  CHECK(!memcmp(set, ref, n));
  free(key);
  free(set);
  free(ref);
  mispc_csr_free(ctx, &G);
}

/* The context's tuning (src/tuning.h): zero at creation, set and read back,
 * out-of-range values refused (the context keeps what it had), the bench
 * tool's NAME=VALUE parser. */
static void test_tuning_knobs(void) {
  mispc_tuning t, z = {0};
  CHECK_OK(ctx, mispc_context_get_tuning_(ctx, &t));
  CHECK(!memcmp(&t, &z, sizeof t));
  CHECK_OK(ctx, mispc_tuning_parse_(ctx, &t, "mis1_lanes=8"));
  CHECK_OK(ctx, mispc_tuning_parse_(ctx, &t, "gs-cluster-order=size"));
  CHECK_OK(ctx, mispc_tuning_parse_(ctx, &t, "gs_block_clusters=64"));
  CHECK_OK(ctx, mispc_tuning_parse_(ctx, &t, "mis2-hub-row=1048576")); /* the parser's largest */
  CHECK(t.mis1_lanes == 8 && t.gs_cluster_order == MISPC_TUNE_ORDER_SIZE &&
        t.gs_block_clusters == 64 && t.mis2_hub_row == 1048576);
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
  mispc_tuning u;
  CHECK_OK(ctx, mispc_context_get_tuning_(ctx, &u));
  CHECK(!memcmp(&t, &u, sizeof t));
  const char *bad[] = {"mis1_lanes=3",        "no_such_knob=1",          "gs_lanes",
                       "gs_chain_global=2",   "gs_cluster_order=random", "gs_block_clusters=-1",
                       "mis2_hub_row=1048577"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    mispc_tuning w = t;
    CHECK_MSG(mispc_tuning_parse_(ctx, &w, bad[i]) == MISPC_ERR_INVALID_ARG &&
                  !memcmp(&w, &t, sizeof t),
              "--tune %s accepted", bad[i]);
  }
  { /* an integer knob's message gives the range the parser takes */
    mispc_tuning w = t;
    CHECK(mispc_tuning_parse_(ctx, &w, "mis2_hub_row=x") == MISPC_ERR_INVALID_ARG);
    CHECK_MSG(strstr(mispc_context_error(ctx), "0 to 1048576") != NULL, "message: %s",
              mispc_context_error(ctx));
  }
  mispc_tuning w = t;
  w.gs_sum_lanes = 3;
  CHECK_STATUS(ctx, mispc_context_set_tuning_(ctx, &w), MISPC_ERR_INVALID_ARG);
  CHECK(strstr(mispc_context_error(ctx), "gs_sum_lanes") != NULL);
  CHECK_OK(ctx, mispc_context_get_tuning_(ctx, &u));
  CHECK(!memcmp(&t, &u, sizeof t));
  int n = 0;
  while (mispc_tuning_knob_(n, NULL, NULL, NULL)) ++n;
  CHECK(n == (int)(sizeof(mispc_tuning) / sizeof(int))); /* every field (all int) of mispc_tuning */
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, NULL));
  CHECK_OK(ctx, mispc_context_get_tuning_(ctx, &u));
  CHECK(!memcmp(&u, &z, sizeof u));
}

/* The host MIS-2 worklists in chunks: each chunk's live entries kept at its
 * front (as a phase of mis2_dist.c does), then mis2_gather_chunks: the live
 * entries in order for any thread count (the parallel copy starts at 65,536
 * kept entries) and list length (a last chunk that is not full). */
static void test_mis2_gather_chunks_threads(void) {
  const int64_t n = 400000;
  int32_t *in = malloc(sizeof(int32_t) * (size_t)n), *ref = malloc(sizeof(int32_t) * (size_t)n);
  int32_t *buf = malloc(sizeof(int32_t) * (size_t)n), *out = malloc(sizeof(int32_t) * (size_t)n);
  uint64_t *word = malloc(sizeof(uint64_t) * (size_t)(2 * n));
  int64_t *cnt = malloc(sizeof(int64_t) * (size_t)(mis2_chunks(n) + 1));
  CHECK(in && ref && buf && out && word && cnt);
  if (!in || !ref || !buf || !out || !word || !cnt) goto done;
  uint64_t h = 12345;
  for (int64_t v = 0; v < 2 * n; ++v) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    const unsigned r = (unsigned)(h >> 61); /* 0..7 */
    word[v] = r == 0 ? MIS2_IN : r <= 3 ? MIS2_OUT : 100 + (uint64_t)v;
  }
  for (int64_t i = 0; i < n; ++i) in[i] = (int32_t)((i * 7) % (2 * n)); /* a scattered list */
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i)
    if (mis2_undecided(word[in[i]])) ref[k++] = in[i];
  CHECK(k > 65536 && k < n);
  const int threads[] = {1, 2, 3, 8};
  for (int t = 0; t < 4; ++t)
    for (int64_t len = 1000; len <= n; len = len == n ? n + 1 : (len * 10 > n ? n : len * 10)) {
      const int64_t use = len == 1000 ? 1000 + MIS2_CHUNK / 3 : len; /* a partial last chunk */
      memcpy(buf, in, sizeof(int32_t) * (size_t)use);
      int64_t want = 0;
      for (int64_t c = 0; c < mis2_chunks(use); ++c) {
        const int64_t lo = c * MIS2_CHUNK, hi = mis2_chunk_end(c, use);
        int64_t j = lo;
        for (int64_t i = lo; i < hi; ++i)
          if (mis2_undecided(word[buf[i]])) buf[j++] = buf[i];
        cnt[c] = j - lo;
        want += j - lo;
      }
      const int64_t got = mis2_gather_chunks(buf, use, cnt, out, threads[t]);
      CHECK_MSG(got == want && !memcmp(out, ref, sizeof(int32_t) * (size_t)want),
                "%d threads, %lld entries: %lld kept (want %lld) or a different order", threads[t],
                (long long)use, (long long)got, (long long)want);
    }
done:
  free(in), free(ref), free(buf), free(out), free(word), free(cnt);
}

int main(void) {
  if (mispc_context_create(&ctx)) return 1;
  RUN_TEST(test_mis2_gather_chunks_threads);
  RUN_TEST(test_tuning_knobs);
  RUN_TEST(test_mis_valid_on_every_generator);
  RUN_TEST(test_mis1_equals_sequential_greedy);
  RUN_TEST(test_mis1_line_class);
  RUN_TEST(test_mis1_line_class_forms);
  RUN_TEST(test_mis2_fixed_priority_equals_greedy_on_square);
  RUN_TEST(test_mis_deterministic_across_threads);
  RUN_TEST(test_mis_edge_cases);
  RUN_TEST(test_mis1_path_of_a_million_needs_few_rounds);
  RUN_TEST(test_mis_errors);
  RUN_TEST(test_mis2_subset_equals_mis2_of_induced_subgraph);
  RUN_TEST(test_mis1_subset_equals_mis1_of_induced_subgraph);
  RUN_TEST(test_mis2_cover);
  RUN_TEST(test_mis1_largest_degree_equals_greedy);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
