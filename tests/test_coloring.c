/* Coloring on the host: proper colorings on every generator, determinism
 * across thread counts, exact color counts on graphs where they are forced,
 * the greedy algorithm against a plain reference, and error paths. */
#include "mis_test_graphs.h"

static mispc_context *ctx;

static int color_checked(const mispc_csr *G, const mispc_coloring_options *o, mispc_coloring *c,
                         const char *what) {
  mispc_status s = mispc_color(ctx, G, o, c);
  CHECK_MSG(s == MISPC_SUCCESS, "%s: %s", what, mispc_context_error(ctx));
  if (s) return -1;
  s = mispc_verify_coloring(ctx, G, c);
  CHECK_MSG(s == MISPC_SUCCESS, "%s verify: %s", what, mispc_context_error(ctx));
  return c->ncolors;
}

/* Reference for MISPC_COLORING_GREEDY, written without the library's mark
 * array: v takes the first color that no lower neighbour has. */
static int32_t greedy_reference(const mispc_csr *G, int32_t *col) {
  int32_t nc = 0;
  for (int64_t v = 0; v < G->nrows; ++v) {
    int32_t c = 0;
    for (int taken = 1; taken; c += taken) {
      taken = 0;
      for (int64_t p = G->rowptr[v]; p < G->rowptr[v + 1] && !taken; ++p)
        taken = G->colidx[p] < v && col[G->colidx[p]] == c;
    }
    col[v] = c;
    if (c >= nc) nc = c + 1;
  }
  return nc;
}

/* One pass of iterated greedy recoloring, as its definition reads and
 * sequentially: vertices ordered by decreasing old color (then id), each
 * taking the first color no neighbour already recolored has. */
static int32_t recolor_reference(const mispc_csr *G, const int32_t *old, int32_t nold,
                                 int32_t *col) {
  const int64_t n = G->nrows;
  int32_t nc = 0;
  for (int64_t v = 0; v < n; ++v) col[v] = -1;
  for (int32_t k = nold - 1; k >= 0; --k)
    for (int64_t v = 0; v < n; ++v) {
      if (old[v] != k) continue;
      int32_t c = 0;
      for (int taken = 1; taken; c += taken) {
        taken = 0;
        for (int64_t p = G->rowptr[v]; p < G->rowptr[v + 1] && !taken; ++p)
          taken = G->colidx[p] != v && col[G->colidx[p]] == c;
      }
      col[v] = c;
      if (c >= nc) nc = c + 1;
    }
  return nc;
}

/* Recoloring passes: each equals the sequential reference applied to the
 * previous pass's colors, never adds a color, and the result is the same for
 * any thread count. */
static void test_coloring_recolor(void) {
  const char *specs[] = {"gen:laplace3d:12", "gen:elasticity3d:4", "gen:kron:11",
                         "gen:random:3000:8", "gen:roadgrid:40:0.3"};
  for (size_t i = 0; i < sizeof specs / sizeof *specs; ++i) {
    mispc_csr G;
    CHECK_OK(ctx, mispc_generate(ctx, specs[i], 3, &G));
    const size_t bytes = sizeof(int32_t) * (size_t)(G.nrows + 1);
    int32_t *prev = malloc(bytes), *ref = malloc(bytes);
    mispc_coloring_options o;
    mispc_coloring_options_default(&o);
    mispc_coloring c;
    int32_t nprev = color_checked(&G, &o, &c, specs[i]);
    memcpy(prev, c.color, bytes - 4);
    mispc_coloring_free(ctx, &c);
    for (int passes = 1; passes <= 3; ++passes) {
      o.recolor = passes;
      const int32_t nc = color_checked(&G, &o, &c, specs[i]);
      const int32_t nref = recolor_reference(&G, prev, nprev, ref);
      CHECK_MSG(nc == nref && nc <= nprev && !memcmp(c.color, ref, bytes - 4),
                "%s, %d passes: %d colors, reference %d, before %d, or classes differ", specs[i],
                passes, nc, nref, nprev);
      mispc_context *one;
      CHECK_OK(NULL, mispc_context_create(&one));
      CHECK_OK(one, mispc_context_set_num_threads(one, 1));
      mispc_coloring c1;
      CHECK_OK(one, mispc_color(one, &G, &o, &c1));
      CHECK_MSG(c1.ncolors == nc && !memcmp(c1.color, c.color, bytes - 4),
                "%s, %d passes: one thread differs", specs[i], passes);
      mispc_coloring_free(one, &c1);
      mispc_context_destroy(one);
      printf("  %-22s recolor %d: %d -> %d colors\n", specs[i], passes, nprev, nc);
      memcpy(prev, c.color, bytes - 4);
      nprev = nc;
      mispc_coloring_free(ctx, &c);
    }
    free(prev);
    free(ref);
    mispc_csr_free(ctx, &G);
  }
}

/* The definition of MISPC_COLORING_MIS, one mispc_mis1_subset call per
 * color: color c is the MIS-1 of the vertices without a color yet. */
static int32_t mis_per_color_reference(const mispc_csr *G, const mispc_mis_options *mis,
                                       int32_t *col) {
  const size_t n = (size_t)G->nrows;
  uint8_t *left = malloc(n + 1), *set = malloc(n + 1);
  memset(left, 1, n);
  int64_t remaining = G->nrows;
  int32_t c = 0;
  for (; remaining > 0; ++c) {
    mispc_mis_result r;
    CHECK_OK(ctx, mispc_mis1_subset(ctx, G, mis, left, set, &r));
    if (r.set_size <= 0) break;
    for (size_t v = 0; v < n; ++v)
      if (set[v]) col[v] = c, left[v] = 0;
    remaining -= r.set_size;
  }
  free(left);
  free(set);
  return c;
}

/* The one-pass coloring gives exactly the classes of the MIS-1 calls, for
 * every priority and two seeds. */
static void test_coloring_equals_mis_per_color(void) {
  const char *specs[] = {"gen:laplace3d:12",  "gen:elasticity3d:4", "gen:kron:11",
                         "gen:random:3000:8", "gen:grid3d27:8",     "gen:roadgrid:40:0.3"};
  const mispc_priority pr[3] = {MISPC_PRIORITY_HASH, MISPC_PRIORITY_LARGEST_DEGREE,
                                MISPC_PRIORITY_DEGREE};
  for (size_t i = 0; i < sizeof specs / sizeof *specs; ++i) {
    mispc_csr G;
    CHECK_OK(ctx, mispc_generate(ctx, specs[i], 3, &G));
    int32_t *ref = malloc(sizeof(int32_t) * (size_t)(G.nrows + 1));
    for (int k = 0; k < 3; ++k)
      for (uint64_t seed = 0; seed <= 1; ++seed) {
        mispc_coloring_options o;
        mispc_coloring_options_default(&o);
        o.mis.priority = pr[k];
        o.mis.seed = seed * 12345;
        mispc_coloring c;
        const int nc = color_checked(&G, &o, &c, specs[i]);
        const int32_t nref = mis_per_color_reference(&G, &o.mis, ref);
        CHECK_MSG(nc == nref && !memcmp(c.color, ref, sizeof(int32_t) * (size_t)G.nrows),
                  "%s priority %d seed %llu: %d colors, MIS-1 per color %d, or classes differ",
                  specs[i], (int)pr[k], (unsigned long long)o.mis.seed, nc, nref);
        mispc_coloring_free(ctx, &c);
      }
    free(ref);
    mispc_csr_free(ctx, &G);
  }
}

static void test_coloring_proper_on_every_generator(void) {
  const char *specs[] = {"gen:laplace2d:40",       "gen:laplace3d:15",    "gen:elasticity3d:5",
                         "gen:aniso2d:30:0.01:30", "gen:kron:12",         "gen:random:5000:8",
                         "gen:path:1000",          "gen:roadgrid:60:0.3", "gen:grid3d27:10"};
  for (size_t i = 0; i < sizeof specs / sizeof *specs; ++i) {
    mispc_csr G;
    CHECK_OK(ctx, mispc_generate(ctx, specs[i], 7, &G));
    mispc_csr_stats st;
    CHECK_OK(ctx, mispc_csr_get_stats(ctx, &G, &st));
    for (int variant = 0; variant <= 2; ++variant) { /* hash, largest degree first, greedy */
      mispc_coloring_options o;
      mispc_coloring_options_default(&o);
      if (variant == 1) o.mis.priority = MISPC_PRIORITY_LARGEST_DEGREE;
      if (variant == 2) o.algo = MISPC_COLORING_GREEDY;
      mispc_coloring c;
      int k = color_checked(&G, &o, &c, specs[i]);
      /* a color class is an MIS of what is left, and a greedy vertex has at most
       * max degree lower neighbours: at most max degree + 1 colors */
      CHECK_MSG(k >= 1 && k <= st.deg_max + 1, "%s: %d colors, max degree %lld", specs[i], k,
                (long long)st.deg_max);
      if (variant == 2 && k > 0) {
        int32_t *ref = malloc(sizeof(int32_t) * (size_t)(G.nrows + 1));
        const int32_t nref = greedy_reference(&G, ref);
        CHECK_MSG(k == nref && !memcmp(c.color, ref, sizeof(int32_t) * (size_t)G.nrows),
                  "%s: greedy differs from the reference (%d vs %d colors)", specs[i], k, nref);
        free(ref);
      }
      printf("  %-26s %-8s %3d colors\n", specs[i],
             variant == 2   ? "greedy"
             : variant == 1 ? "largest"
                            : "hash",
             k);
      mispc_coloring_free(ctx, &c);
    }
    mispc_csr_free(ctx, &G);
  }
}

static void test_coloring_deterministic_across_threads(void) {
  mispc_csr G;
  CHECK_OK(ctx, mispc_generate(ctx, "gen:kron:13", 1, &G));
  mispc_coloring a, b;
  mispc_context_set_num_threads(ctx, 1);
  color_checked(&G, NULL, &a, "1 thread");
  mispc_context_set_num_threads(ctx, 2);
  color_checked(&G, NULL, &b, "2 threads");
  mispc_context_set_num_threads(ctx, 0);
  CHECK(a.ncolors == b.ncolors && !memcmp(a.color, b.color, sizeof(int32_t) * (size_t)a.n));
  mispc_coloring_free(ctx, &a);
  mispc_coloring_free(ctx, &b);
  mispc_csr_free(ctx, &G);
}

static void test_coloring_forced_counts(void) {
  mispc_coloring c;
  /* no edges: one color; n = 0: no colors */
  int64_t rp[6] = {0, 0, 0, 0, 0, 0};
  mispc_csr E;
  mispc_csr_wrap(MISPC_MEM_HOST, 5, 5, 0, rp, NULL, NULL, &E);
  CHECK(color_checked(&E, NULL, &c, "edgeless") == 1);
  mispc_coloring_free(ctx, &c);
  E.nrows = E.ncols = 0;
  CHECK_OK(ctx, mispc_color(ctx, &E, NULL, &c));
  CHECK(c.ncolors == 0);
  mispc_coloring_free(ctx, &c);
  /* clique K_20: 20 colors; star: 2 colors */
  mispc_csr K = clique_graph(ctx, 20), S = star_graph(ctx, 50);
  CHECK(color_checked(&K, NULL, &c, "clique") == 20);
  mispc_coloring_free(ctx, &c);
  CHECK(color_checked(&S, NULL, &c, "star") == 2);
  mispc_coloring_free(ctx, &c);
  mispc_csr_free(ctx, &K);
  mispc_csr_free(ctx, &S);
}

static void test_coloring_greedy(void) {
  mispc_coloring_options o;
  mispc_coloring_options_default(&o);
  o.algo = MISPC_COLORING_GREEDY;
  /* forced counts: a 7-point grid in natural order is red-black; clique, star, edgeless */
  mispc_csr L, K = clique_graph(ctx, 20), S = star_graph(ctx, 50);
  CHECK_OK(ctx, mispc_generate(ctx, "gen:laplace3d:12", 0, &L));
  mispc_coloring c;
  CHECK(color_checked(&L, &o, &c, "greedy laplace3d") == 2);
  mispc_coloring_free(ctx, &c);
  CHECK(color_checked(&K, &o, &c, "greedy clique") == 20);
  mispc_coloring_free(ctx, &c);
  CHECK(color_checked(&S, &o, &c, "greedy star") == 2);
  mispc_coloring_free(ctx, &c);
  int64_t rp[6] = {0, 0, 0, 0, 0, 0};
  mispc_csr E;
  mispc_csr_wrap(MISPC_MEM_HOST, 5, 5, 0, rp, NULL, NULL, &E);
  CHECK(color_checked(&E, &o, &c, "greedy edgeless") == 1);
  mispc_coloring_free(ctx, &c);
  E.nrows = E.ncols = 0;
  CHECK_OK(ctx, mispc_color(ctx, &E, &o, &c));
  CHECK(c.ncolors == 0);
  mispc_coloring_free(ctx, &c);
  /* an unsymmetric pattern is rejected as for MIS coloring */
  mispc_csr U = one_way_pair();
  CHECK_STATUS(ctx, mispc_color(ctx, &U, &o, &c), MISPC_ERR_UNSYMMETRIC);
  mispc_csr_free(ctx, &L);
  mispc_csr_free(ctx, &K);
  mispc_csr_free(ctx, &S);
}

static void test_coloring_errors(void) {
  mispc_coloring c;
  mispc_csr U = one_way_pair();
  CHECK_STATUS(ctx, mispc_color(ctx, &U, NULL, &c), MISPC_ERR_UNSYMMETRIC);
  CHECK_STATUS(ctx, mispc_color(ctx, &U, NULL, NULL), MISPC_ERR_INVALID_ARG);
  mispc_coloring_options o;
  mispc_coloring_options_default(&o);
  o.mis.priority = MISPC_PRIORITY_HASH_PER_ROUND;
  mispc_csr P;
  CHECK_OK(ctx, mispc_generate(ctx, "gen:path:6", 0, &P));
  CHECK_STATUS(ctx, mispc_color(ctx, &P, &o, &c), MISPC_ERR_INVALID_ARG);
  mispc_coloring_options_default(&o);
  o.algo = (mispc_coloring_algo)7;
  CHECK_STATUS(ctx, mispc_color(ctx, &P, &o, &c), MISPC_ERR_INVALID_ARG);
  mispc_coloring_options_default(&o);
  o.recolor = -1;
  CHECK_STATUS(ctx, mispc_color(ctx, &P, &o, &c), MISPC_ERR_INVALID_ARG);
  CHECK(strstr(mispc_context_error(ctx), "recolor") != NULL);
  /* verify rejects an improper coloring, an out-of-range color and an empty class */
  int32_t bad[6] = {0, 0, 1, 0, 1, 0};
  mispc_coloring h = {6, 2, bad, MISPC_MEM_HOST};
  CHECK_STATUS(ctx, mispc_verify_coloring(ctx, &P, &h), MISPC_ERR_VERIFY);
  CHECK(strstr(mispc_context_error(ctx), "share color") != NULL);
  int32_t good[6] = {0, 1, 0, 1, 0, 1};
  h.color = good;
  CHECK_OK(ctx, mispc_verify_coloring(ctx, &P, &h));
  h.ncolors = 3; /* color 2 unused */
  CHECK_STATUS(ctx, mispc_verify_coloring(ctx, &P, &h), MISPC_ERR_VERIFY);
  good[5] = 7;
  h.ncolors = 2;
  CHECK_STATUS(ctx, mispc_verify_coloring(ctx, &P, &h), MISPC_ERR_VERIFY);
  mispc_csr_free(ctx, &P);
}

int main(void) {
  if (mispc_context_create(&ctx)) return 1;
  RUN_TEST(test_coloring_proper_on_every_generator);
  RUN_TEST(test_coloring_equals_mis_per_color);
  RUN_TEST(test_coloring_deterministic_across_threads);
  RUN_TEST(test_coloring_forced_counts);
  RUN_TEST(test_coloring_greedy);
  RUN_TEST(test_coloring_recolor);
  RUN_TEST(test_coloring_errors);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
