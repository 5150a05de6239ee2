/* Aggregation on the host: strength graphs, both algorithms against a
 * sequential reference of the documented semantics on every generator,
 * verification, determinism across thread counts, coarse graphs, the
 * tentative prolongator (constant and rigid-body near-null spaces), edge
 * cases and error paths. */
#include <math.h>

#include "../aggregation/agg_backend.h"
#include "mis_test_graphs.h"

static mispc_context *ctx;

static mispc_csr gen(const char *spec) {
  return generated_graph(ctx, spec, 7);
}

static mispc_csr strength(const mispc_csr *A, double theta, int bs) {
  mispc_csr S;
  mispc_status s = mispc_strength_graph(ctx, A, theta, bs, &S);
  if (s) {
    fprintf(stderr, "strength graph: %s\n", mispc_context_error(ctx));
    exit(1);
  }
  return S;
}

static int64_t degree(const mispc_csr *G, int64_t v) { /* self loops not counted */
  int64_t d = 0;
  for (int64_t p = G->rowptr[v]; p < G->rowptr[v + 1]; ++p) d += G->colidx[p] != v;
  return d;
}

static mispc_agg_options agg_opts(mispc_agg_algo algo) {
  mispc_agg_options o;
  mispc_agg_options_default(&o);
  o.algo = algo;
  return o;
}

static const char *algo_name(mispc_agg_algo algo) {
  return algo == MISPC_AGG_MIS2AGG ? "mis2agg" : "mis2basic";
}

/* ---- sequential reference of aggregation.h ---------------------------------------------- */

/* Straight from the text of aggregation.h, one vertex at a time; uses the
 * library's MIS-2 (tested on its own in test_mis.c). Returns naggs; *p1 gets
 * the number of phase-1 aggregates. */
static int64_t ref_aggregate(const mispc_csr *G, mispc_agg_algo algo, int32_t *agg, int32_t *root,
                             int64_t *p1) {
  int64_t n = G->nrows, k = 0;
  mispc_mis_options mo;
  mispc_mis_options_default(&mo);
  uint8_t *set = calloc(1, (size_t)n + 1), *free_ = calloc(1, (size_t)n + 1);
  if (mispc_mis2(ctx, G, &mo, set, NULL)) exit(1);
  for (int64_t v = 0; v < n; ++v) agg[v] = -1;
  for (int64_t v = 0; v < n; ++v) {
    if (!set[v]) continue;
    root[k] = (int32_t)v;
    agg[v] = (int32_t)k;
    for (int64_t p = G->rowptr[v]; p < G->rowptr[v + 1]; ++p) {
      CHECK(agg[G->colidx[p]] < 0 || agg[G->colidx[p]] == k); /* disjoint stars */
      agg[G->colidx[p]] = (int32_t)k;
    }
    ++k;
  }
  *p1 = k;
  int64_t left = 0;
  for (int64_t v = 0; v < n; ++v) left += (free_[v] = agg[v] < 0);
  if (algo == MISPC_AGG_MIS2AGG && left > 0) {
    if (mispc_mis2_subset(ctx, G, &mo, free_, set, NULL)) exit(1);
    for (int64_t v = 0; v < n; ++v) {
      if (!set[v]) continue;
      int64_t c = 0;
      for (int64_t p = G->rowptr[v]; p < G->rowptr[v + 1]; ++p)
        c += G->colidx[p] != v && free_[G->colidx[p]];
      if (c < 2) continue;
      root[k] = (int32_t)v;
      agg[v] = (int32_t)k;
      for (int64_t p = G->rowptr[v]; p < G->rowptr[v + 1]; ++p)
        if (free_[G->colidx[p]]) agg[G->colidx[p]] = (int32_t)k;
      ++k;
    }
  }
  /* phase 3 / leftovers, with the labels frozen */
  int32_t *tent = calloc(1, sizeof(int32_t) * (size_t)(n + 1));
  int64_t *size = calloc((size_t)k + 1, sizeof(int64_t)), *cnt = calloc((size_t)k + 1, 8);
  memcpy(tent, agg, sizeof(int32_t) * (size_t)n);
  for (int64_t v = 0; v < n; ++v)
    if (tent[v] >= 0) size[tent[v]]++;
  for (int64_t v = 0; v < n; ++v) {
    if (tent[v] >= 0) continue;
    int32_t best = -1;
    for (int64_t p = G->rowptr[v]; p < G->rowptr[v + 1]; ++p) {
      int32_t u = G->colidx[p];
      if (u != v && tent[u] >= 0) cnt[tent[u]]++;
    }
    for (int64_t p = G->rowptr[v]; p < G->rowptr[v + 1]; ++p) {
      int32_t u = G->colidx[p], a = tent[u];
      if (u == v || a < 0) continue;
      if (algo == MISPC_AGG_MIS2BASIC) {
        if (best < 0) best = a; /* rows are sorted: first = smallest id */
        continue;
      }
      if (best < 0 || cnt[a] > cnt[best] ||
          (cnt[a] == cnt[best] && (size[a] < size[best] || (size[a] == size[best] && a < best))))
        best = a;
    }
    for (int64_t p = G->rowptr[v]; p < G->rowptr[v + 1]; ++p)
      if (tent[G->colidx[p]] >= 0) cnt[tent[G->colidx[p]]] = 0;
    CHECK_MSG(best >= 0, "reference: vertex %lld has no aggregated neighbour", (long long)v);
    agg[v] = best;
  }
  free(tent);
  free(size);
  free(cnt);
  free(set);
  free(free_);
  return k;
}

/* ---- checks shared by the generator tests -------------------------------------------------- */

/* Aggregates G, then checks: verify, stats, the reference, phase-1 roots =
 * MIS-2, no singletons but isolated vertices (mis2agg), phase counters. */
static void aggregate_checked(const mispc_csr *G, mispc_agg_algo algo, const char *what,
                              mispc_aggregates *out) {
  mispc_agg_options o = agg_opts(algo);
  mispc_status s = mispc_aggregate(ctx, G, &o, out);
  CHECK_MSG(s == MISPC_SUCCESS, "%s %s: %s", what, algo_name(algo), mispc_context_error(ctx));
  if (s) {
    memset(out, 0, sizeof *out);
    return;
  }
  const int64_t n = G->nrows;
  CHECK(out->n == n && out->mem == MISPC_MEM_HOST);
  s = mispc_verify_aggregation(ctx, G, out);
  CHECK_MSG(s == MISPC_SUCCESS, "%s %s verify: %s", what, algo_name(algo),
            mispc_context_error(ctx));
  /* the reference gives the same labels and roots */
  int32_t *ra = calloc((size_t)n + 1, sizeof(int32_t)),
          *rr = calloc((size_t)n + 1, sizeof(int32_t));
  int64_t p1 = 0, rn = ref_aggregate(G, algo, ra, rr, &p1);
  CHECK_MSG(rn == out->naggs && !memcmp(ra, out->agg, sizeof(int32_t) * (size_t)n) &&
                !memcmp(rr, out->root, sizeof(int32_t) * (size_t)rn),
            "%s %s: differs from the sequential reference (%lld vs %lld aggregates)", what,
            algo_name(algo), (long long)out->naggs, (long long)rn);
  CHECK(out->phase_aggs[0] == p1);
  /* phase-1 roots are exactly the MIS-2 members, in increasing id */
  uint8_t *set = calloc(1, (size_t)n + 1);
  int32_t *list = calloc(1, sizeof(int32_t) * (size_t)(n + 1));
  int64_t cnt = -1;
  CHECK_OK(ctx, mispc_mis2(ctx, G, &o.mis, set, NULL));
  CHECK_OK(ctx, mispc_mis_to_list(ctx, G, set, list, &cnt));
  CHECK_MSG(cnt == out->phase_aggs[0] &&
                !memcmp(list, out->root, sizeof(int32_t) * (size_t)(cnt > 0 ? cnt : 0)),
            "%s %s: phase-1 roots are not the MIS-2 members", what, algo_name(algo));
  /* phase counters */
  CHECK(out->phase_aggs[0] <= out->phase_aggs[1] && out->phase_aggs[1] <= out->phase_aggs[2] &&
        out->phase_aggs[2] == out->naggs);
  CHECK(out->phase_done[0] <= out->phase_done[1] && out->phase_done[2] == n);
  if (algo == MISPC_AGG_MIS2BASIC) CHECK(out->phase_aggs[1] == out->phase_aggs[0]);
  /* sizes */
  mispc_agg_stats st;
  CHECK_OK(ctx, mispc_aggregates_stats(ctx, out, &st));
  int64_t hsum = 0, singles = 0;
  for (int k = 0; k < 32; ++k) hsum += st.hist[k];
  CHECK(st.naggs == out->naggs && hsum == out->naggs && st.hist[0] == 0);
  CHECK(st.singletons == st.hist[1]);
  CHECK(n == 0 || fabs(st.mean_size * (double)st.naggs - (double)n) < 1e-6);
  int64_t *size = calloc((size_t)out->naggs + 1, sizeof(int64_t));
  for (int64_t v = 0; v < n; ++v) size[out->agg[v]]++;
  for (int64_t v = 0; v < n; ++v)
    if (size[out->agg[v]] == 1) {
      ++singles;
      if (algo == MISPC_AGG_MIS2AGG)
        CHECK_MSG(degree(G, v) == 0, "%s mis2agg: singleton %lld has degree %lld", what,
                  (long long)v, (long long)degree(G, v));
    }
  CHECK(singles == st.singletons);
  free(size);
  free(set);
  free(list);
  free(ra);
  free(rr);
}

/* Coarse graph against brute force: an edge A-B iff a fine edge joins them. */
static void check_coarse(const mispc_csr *G, const mispc_aggregates *a, const char *what) {
  mispc_csr C;
  mispc_status s = mispc_coarse_graph(ctx, G, a, &C);
  CHECK_MSG(s == MISPC_SUCCESS, "%s coarse graph: %s", what, mispc_context_error(ctx));
  if (s) return;
  CHECK(C.nrows == a->naggs && C.ncols == a->naggs && !C.values && C.mem == MISPC_MEM_HOST);
  CHECK_OK(ctx, mispc_csr_check(ctx, &C, MISPC_CHECK_GRAPH | MISPC_CHECK_NO_SELF_LOOPS));
  int64_t na = a->naggs;
  if (na <= 3000) {
    uint8_t *adj = calloc((size_t)(na * na + 1), 1);
    for (int64_t i = 0; i < G->nrows; ++i)
      for (int64_t p = G->rowptr[i]; p < G->rowptr[i + 1]; ++p) {
        int32_t x = a->agg[i], y = a->agg[G->colidx[p]];
        if (x != y) adj[x * na + y] = adj[y * na + x] = 1;
      }
    int64_t expect = 0, bad = 0;
    for (int64_t k = 0; k < na * na; ++k) expect += adj[k];
    for (int64_t x = 0; x < na; ++x)
      for (int64_t p = C.rowptr[x]; p < C.rowptr[x + 1]; ++p) bad += !adj[x * na + C.colidx[p]];
    CHECK_MSG(C.nnz == expect && bad == 0, "%s: coarse graph has %lld entries, expected %lld", what,
              (long long)C.nnz, (long long)expect);
    free(adj);
  }
  mispc_csr_free(ctx, &C);
}

static int same_csr(const mispc_csr *x, const mispc_csr *y) {
  return x->nrows == y->nrows && x->ncols == y->ncols && x->nnz == y->nnz &&
         !memcmp(x->rowptr, y->rowptr, sizeof(int64_t) * (size_t)(x->nrows + 1)) &&
         !memcmp(x->colidx, y->colidx, sizeof(int32_t) * (size_t)x->nnz);
}

/* Bit-identical aggregates, counters included, with 1 and 2 threads. */
static void check_threads(const mispc_csr *G, mispc_agg_algo algo, const char *what) {
  mispc_agg_options o = agg_opts(algo);
  mispc_aggregates a1, a2;
  mispc_csr c1, c2;
  mispc_context_set_num_threads(ctx, 1);
  CHECK_OK(ctx, mispc_aggregate(ctx, G, &o, &a1));
  CHECK_OK(ctx, mispc_coarse_graph(ctx, G, &a1, &c1));
  mispc_context_set_num_threads(ctx, 2);
  CHECK_OK(ctx, mispc_aggregate(ctx, G, &o, &a2));
  CHECK_OK(ctx, mispc_coarse_graph(ctx, G, &a2, &c2));
  mispc_context_set_num_threads(ctx, 0);
  int same = a1.naggs == a2.naggs && !memcmp(a1.agg, a2.agg, sizeof(int32_t) * (size_t)a1.n) &&
             !memcmp(a1.root, a2.root, sizeof(int32_t) * (size_t)a1.naggs) &&
             !memcmp(a1.phase_aggs, a2.phase_aggs, sizeof a1.phase_aggs) &&
             !memcmp(a1.phase_done, a2.phase_done, sizeof a1.phase_done) &&
             !memcmp(a1.mis_rounds, a2.mis_rounds, sizeof a1.mis_rounds);
  CHECK_MSG(same, "%s %s: 1 and 2 threads differ", what, algo_name(algo));
  CHECK_MSG(same_csr(&c1, &c2), "%s %s: coarse graphs differ between 1 and 2 threads", what,
            algo_name(algo));
  mispc_aggregates_free(ctx, &a1);
  mispc_aggregates_free(ctx, &a2);
  mispc_csr_free(ctx, &c1);
  mispc_csr_free(ctx, &c2);
}

/* Strength graph by brute force on a dense node matrix. */
static void check_strength_brute(const mispc_csr *A, double theta, int bs, const mispc_csr *S,
                                 const char *what) {
  int64_t n = A->nrows, nn = n / bs;
  double *d = calloc((size_t)n + 1, sizeof(double));
  uint8_t *adj = calloc((size_t)(nn * nn + 1), 1);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
      if (A->colidx[p] == i && A->values) d[i] += A->values[p];
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
      int64_t j = A->colidx[p], I = i / bs, J = j / bs;
      if (I == J) continue;
      if (theta == 0 || !A->values || fabs(A->values[p]) > theta * sqrt(fabs(d[i] * d[j])))
        adj[I * nn + J] = adj[J * nn + I] = 1;
    }
  int64_t expect = 0, bad = 0;
  for (int64_t k = 0; k < nn * nn; ++k) expect += adj[k];
  CHECK(S->nrows == nn && S->ncols == nn && !S->values);
  for (int64_t x = 0; x < S->nrows; ++x)
    for (int64_t p = S->rowptr[x]; p < S->rowptr[x + 1]; ++p) bad += !adj[x * nn + S->colidx[p]];
  CHECK_MSG(S->nnz == expect && bad == 0, "%s: strength graph has %lld entries, expected %lld",
            what, (long long)S->nnz, (long long)expect);
  CHECK_OK(ctx, mispc_csr_check(ctx, S, MISPC_CHECK_GRAPH | MISPC_CHECK_NO_SELF_LOOPS));
  free(d);
  free(adj);
}

/* ---- tests ----------------------------------------------------------------------------------- */

typedef struct spec_case {
  const char *spec;
  int bs;
  double theta;
} spec_case;

static const spec_case cases[] = {{"gen:laplace2d:30", 1, 0},    {"gen:laplace3d:12", 1, 0},
                                  {"gen:elasticity3d:5", 3, 0},  {"gen:aniso2d:30:0.001", 1, 0.05},
                                  {"gen:kron:11", 1, 0},         {"gen:random:3000:6", 1, 0},
                                  {"gen:roadgrid:50:0.3", 1, 0}, {"gen:path:1000", 1, 0}};

static void test_aggregation_on_every_generator(void) {
  for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
    const spec_case *sc = &cases[c];
    mispc_csr A = gen(sc->spec), S = strength(&A, sc->theta, sc->bs);
    if (S.nrows <= 3000) check_strength_brute(&A, sc->theta, sc->bs, &S, sc->spec);
    if (sc->bs == 3) CHECK(S.nrows == 125);
    if (sc->theta > 0) {
      mispc_csr S0 = strength(&A, 0, sc->bs);
      CHECK_MSG(S.nnz < S0.nnz, "%s: theta %g keeps %lld of %lld entries", sc->spec, sc->theta,
                (long long)S.nnz, (long long)S0.nnz);
      mispc_csr_free(ctx, &S0);
    }
    for (int algo = 0; algo <= 1; ++algo) {
      mispc_aggregates a;
      aggregate_checked(&S, (mispc_agg_algo)algo, sc->spec, &a);
      if (a.n == S.nrows) check_coarse(&S, &a, sc->spec);
      check_threads(&S, (mispc_agg_algo)algo, sc->spec);
      mispc_aggregates_free(ctx, &a);
    }
    mispc_csr_free(ctx, &S);
    mispc_csr_free(ctx, &A);
  }
}

static void test_matrix_with_diagonal_as_graph(void) {
  /* a matrix straight from the generator: self loops ignored everywhere */
  mispc_csr A = gen("gen:laplace2d:20");
  for (int algo = 0; algo <= 1; ++algo) {
    mispc_aggregates a;
    aggregate_checked(&A, (mispc_agg_algo)algo, "laplace2d:20 with diagonal", &a);
    if (a.n == A.nrows) check_coarse(&A, &a, "laplace2d:20 with diagonal");
    /* same aggregates as on its strength graph (same pattern minus loops) */
    mispc_csr S = strength(&A, 0, 1);
    mispc_aggregates b;
    mispc_agg_options o = agg_opts((mispc_agg_algo)algo);
    CHECK_OK(ctx, mispc_aggregate(ctx, &S, &o, &b));
    CHECK(a.naggs == b.naggs && !memcmp(a.agg, b.agg, sizeof(int32_t) * (size_t)a.n));
    mispc_aggregates_free(ctx, &a);
    mispc_aggregates_free(ctx, &b);
    mispc_csr_free(ctx, &S);
  }
  mispc_csr_free(ctx, &A);
}

static void test_strength_graph_semantics(void) {
  /* 4 x 4: row 3 has no diagonal; (2,3) and (3,2) are stored zeros; (3,1)
   * has no transpose entry. */
  int32_t I[] = {0, 0, 0, 1, 1, 2, 2, 2, 3, 3};
  int32_t J[] = {0, 1, 2, 0, 1, 0, 2, 3, 2, 1};
  double V[] = {4, -1, -0.01, -1, 4, -0.01, 4, 0, 0, -5};
  mispc_csr A;
  CHECK_OK(ctx, mispc_csr_from_coo(ctx, 4, 4, 10, I, J, V, 0, &A));
  /* theta 0: every stored off-diagonal entry, zeros included, symmetrized */
  mispc_csr S = strength(&A, 0, 1);
  int64_t rp0[] = {0, 2, 4, 6, 8};
  int32_t ci0[] = {1, 2, 0, 3, 0, 3, 1, 2};
  CHECK(S.nnz == 8 && !memcmp(S.rowptr, rp0, sizeof rp0) && !memcmp(S.colidx, ci0, sizeof ci0));
  mispc_csr_free(ctx, &S);
  /* theta 0.1: 0-1 strong (1 > 0.4), 0-2 weak, 2-3 a zero (0 > 0 fails),
   * 3-1 strong against a missing diagonal (5 > 0) */
  S = strength(&A, 0.1, 1);
  int64_t rp1[] = {0, 1, 3, 3, 4};
  int32_t ci1[] = {1, 0, 3, 1};
  CHECK(S.nnz == 4 && !memcmp(S.rowptr, rp1, sizeof rp1) && !memcmp(S.colidx, ci1, sizeof ci1));
  check_strength_brute(&A, 0.1, 1, &S, "4x4 theta 0.1");
  mispc_csr_free(ctx, &S);
  /* blocks of 2: node 0 = rows 0-1, node 1 = rows 2-3 */
  S = strength(&A, 0, 2);
  CHECK(S.nrows == 2 && S.nnz == 2 && S.colidx[0] == 1 && S.colidx[1] == 0);
  mispc_csr_free(ctx, &S);
  /* a pattern input: theta is ignored */
  mispc_csr P = A;
  P.values = NULL;
  P.owned = 0;
  S = strength(&P, 0.9, 1);
  CHECK(S.nnz == 8);
  mispc_csr_free(ctx, &S);
  /* theta huge: only 1-3 stays strong, against row 3's missing diagonal */
  S = strength(&A, 1e6, 1);
  CHECK(S.nrows == 4 && S.nnz == 2 && S.colidx[0] == 3 && S.colidx[1] == 1);
  mispc_aggregates a;
  CHECK_OK(ctx, mispc_aggregate(ctx, &S, NULL, &a));
  CHECK(a.naggs == 3 && a.agg[1] == a.agg[3]); /* 0 and 2 are isolated singletons */
  mispc_aggregates_free(ctx, &a);
  mispc_csr_free(ctx, &S);
  /* elasticity by brute force, with a threshold too */
  mispc_csr E = gen("gen:elasticity3d:4");
  for (int t = 0; t < 2; ++t) {
    S = strength(&E, t ? 0.05 : 0, 3);
    check_strength_brute(&E, t ? 0.05 : 0, 3, &S, "elasticity3d:4");
    mispc_csr_free(ctx, &S);
  }
  /* determinism of the strength graph across thread counts */
  mispc_context_set_num_threads(ctx, 1);
  mispc_csr S1 = strength(&E, 0.02, 3);
  mispc_context_set_num_threads(ctx, 2);
  mispc_csr S2 = strength(&E, 0.02, 3);
  mispc_context_set_num_threads(ctx, 0);
  CHECK(same_csr(&S1, &S2));
  mispc_csr_free(ctx, &S1);
  mispc_csr_free(ctx, &S2);
  mispc_csr_free(ctx, &E);
  mispc_csr_free(ctx, &A);
}

/* mispc_strength_auto against the definition written another way
 * (|a_ij| / sqrt(|a_ii a_jj|), to rounding), and what it promises: every
 * row with a positive coupling keeps one in the strength graph at theta, and
 * weak_max < 0 exactly where that graph is the theta = 0 one. */
static void check_strength_auto(const mispc_csr *A, const char *what) {
  double th, w;
  CHECK_OK(ctx, mispc_strength_auto(ctx, A, &th, &w));
  double *d = calloc((size_t)A->nrows + 1, sizeof(double)), mn = INFINITY, wr = -1;
  for (int64_t i = 0; i < A->nrows; ++i)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
      if (A->colidx[p] == i) d[i] += A->values[p];
  for (int64_t i = 0; i < A->nrows; ++i) {
    double m = 0;
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
      if (A->colidx[p] != i) m = fmax(m, fabs(A->values[p]) / sqrt(fabs(d[i] * d[A->colidx[p]])));
    if (m > 0 && m < mn) mn = m;
  }
  const double ref = mn < INFINITY ? 2 * mn / 3 : 0;
  for (int64_t i = 0; i < A->nrows; ++i)
    for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p) {
      const double t = fabs(A->values[p]) / sqrt(fabs(d[i] * d[A->colidx[p]]));
      if (A->colidx[p] != i && t <= ref * (1 + 1e-14) && t > wr) wr = t;
    }
  CHECK_MSG(fabs(th - ref) <= 1e-14 * ref && (w < 0) == (wr < 0) && fabs(w - wr) <= 1e-14 * ref,
            "%s: theta %.17g weak %.17g, expected %.17g and %.17g", what, th, w, ref, wr);
  mispc_csr S = strength(A, th, 1), S0 = strength(A, 0, 1);
  int64_t lonely = 0;
  for (int64_t i = 0; i < A->nrows; ++i)
    lonely += S.rowptr[i + 1] == S.rowptr[i] && S0.rowptr[i + 1] > S0.rowptr[i];
  CHECK_MSG(lonely == 0, "%s: %lld rows lose every coupling at theta %g", what, (long long)lonely,
            th);
  CHECK_MSG((w < 0) == same_csr(&S, &S0), "%s: weak_max %g but the graphs %s", what, w,
            same_csr(&S, &S0) ? "agree" : "differ");
  /* the same bits for any thread count */
  double th1, w1;
  mispc_context_set_num_threads(ctx, 1);
  CHECK_OK(ctx, mispc_strength_auto(ctx, A, &th1, &w1));
  mispc_context_set_num_threads(ctx, 0);
  CHECK_MSG(!memcmp(&th, &th1, 8) && !memcmp(&w, &w1, 8), "%s: 1 thread differs", what);
  mispc_csr_free(ctx, &S);
  mispc_csr_free(ctx, &S0);
  free(d);
}

static void test_strength_auto(void) {
  const char *specs[] = {"gen:laplace3d:6",       "gen:aniso2d:12:0.001",
                         "gen:aniso2d:12:0.1:30", "gen:aniso3d:6:0.01",
                         "gen:elasticity3d:3",    MISPC_TEST_DATA "/bcsstk13.mtx"};
  for (int k = 0; k < (int)(sizeof specs / sizeof *specs); ++k) {
    mispc_csr A;
    CHECK_OK(ctx, mispc_load(ctx, specs[k], &A));
    check_strength_auto(&A, specs[k]);
    double th, w;
    CHECK_OK(ctx, mispc_strength_auto(ctx, &A, &th, &w));
    if (k == 0) /* every coupling 1/6: nothing below 2/3 of it */
      CHECK_MSG(fabs(th - 1.0 / 9) < 1e-15 && w == -1, "laplace3d: %g %g", th, w);
    if (k == 1) /* weak couplings 0.001 / 2.002 against 2/3 of 1 / 2.002 */
      CHECK_MSG(fabs(w / th - 0.0015) < 1e-12, "aniso2d: weak / theta %g", w / th);
    mispc_csr_free(ctx, &A);
  }
  /* the 4 x 4 of test_strength_graph_semantics: row 3 has no diagonal (its
   * couplings inf or NaN) and the stored zeros give NaN: none counts, so
   * theta = 2/3 of row 2's 0.01 / 4 and nothing is at or below it */
  int32_t I[] = {0, 0, 0, 1, 1, 2, 2, 2, 3, 3};
  int32_t J[] = {0, 1, 2, 0, 1, 0, 2, 3, 2, 1};
  double V[] = {4, -1, -0.01, -1, 4, -0.01, 4, 0, 0, -5}, th, w;
  mispc_csr A;
  CHECK_OK(ctx, mispc_csr_from_coo(ctx, 4, 4, 10, I, J, V, 0, &A));
  CHECK_OK(ctx, mispc_strength_auto(ctx, &A, &th, &w));
  CHECK_MSG(th == 0.0025 * (2.0 / 3.0) && w == -1, "4x4: theta %.17g weak %g", th, w);
  mispc_csr P = A; /* a pattern: 0 and -1 */
  P.values = NULL;
  P.owned = 0;
  CHECK_OK(ctx, mispc_strength_auto(ctx, &P, &th, &w));
  CHECK(th == 0 && w == -1);
  CHECK_STATUS(ctx, mispc_strength_auto(ctx, &A, NULL, &w), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_strength_auto(ctx, &A, &th, NULL), MISPC_ERR_INVALID_ARG);
  mispc_csr R = A; /* 3 x 4 */
  R.nrows = 3;
  R.owned = 0;
  CHECK_STATUS(ctx, mispc_strength_auto(ctx, &R, &th, &w), MISPC_ERR_NOT_SQUARE);
  mispc_csr_free(ctx, &A);
}

static void test_strength_graph_errors(void) {
  mispc_csr A = gen("gen:laplace2d:3"), S; /* 9 x 9 */
  CHECK_STATUS(ctx, mispc_strength_graph(ctx, &A, 0, 2, &S), MISPC_ERR_INVALID_ARG);
  CHECK(strstr(mispc_context_error(ctx), "divide") != NULL);
  CHECK_STATUS(ctx, mispc_strength_graph(ctx, &A, 0, 0, &S), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_strength_graph(ctx, &A, -0.1, 1, &S), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_strength_graph(ctx, &A, NAN, 1, &S), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_strength_graph(ctx, &A, 0, 1, NULL), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_strength_graph(ctx, NULL, 0, 1, &S), MISPC_ERR_INVALID_ARG);
  mispc_csr R = A;
  R.nrows = 3; /* 3 x 9: first three rows */
  R.owned = 0;
  CHECK_STATUS(ctx, mispc_strength_graph(ctx, &R, 0, 1, &S), MISPC_ERR_NOT_SQUARE);
  CHECK_OK(ctx, mispc_strength_graph(ctx, &A, 0, 9, &S)); /* one node */
  CHECK(S.nrows == 1 && S.nnz == 0);
  mispc_csr_free(ctx, &S);
  mispc_csr_free(ctx, &A);
}

static void test_aggregation_edge_cases(void) {
  mispc_aggregates a;
  /* n = 0 */
  int64_t rp0[1] = {0};
  mispc_csr E;
  mispc_csr_wrap(MISPC_MEM_HOST, 0, 0, 0, rp0, NULL, NULL, &E);
  for (int algo = 0; algo <= 1; ++algo) {
    CHECK_OK(ctx, mispc_aggregate(ctx, &E, NULL, &a));
    CHECK(a.n == 0 && a.naggs == 0);
    CHECK_OK(ctx, mispc_verify_aggregation(ctx, &E, &a));
    mispc_agg_stats st;
    CHECK_OK(ctx, mispc_aggregates_stats(ctx, &a, &st));
    CHECK(st.naggs == 0 && st.mean_size == 0 && st.min_size == 0 && st.max_size == 0);
    mispc_csr C, P;
    CHECK_OK(ctx, mispc_coarse_graph(ctx, &E, &a, &C));
    CHECK(C.nrows == 0 && C.nnz == 0);
    mispc_csr_free(ctx, &C);
    CHECK_OK(ctx, mispc_tentative_prolongator(ctx, &a, 1, 1, NULL, &P, NULL));
    CHECK(P.nrows == 0 && P.ncols == 0 && P.nnz == 0);
    mispc_csr_free(ctx, &P);
    mispc_aggregates_free(ctx, &a);
  }
  /* isolated vertices: singletons, numbered in order */
  int64_t rp5[6] = {0, 0, 0, 0, 0, 0};
  mispc_csr I;
  mispc_csr_wrap(MISPC_MEM_HOST, 5, 5, 0, rp5, NULL, NULL, &I);
  for (int algo = 0; algo <= 1; ++algo) {
    aggregate_checked(&I, (mispc_agg_algo)algo, "isolated", &a);
    CHECK(a.naggs == 5);
    for (int v = 0; v < 5 && a.naggs == 5; ++v) CHECK(a.agg[v] == v && a.root[v] == v);
    check_coarse(&I, &a, "isolated");
    mispc_aggregates_free(ctx, &a);
  }
  /* disconnected: two paths, an isolated vertex, a triangle, an edge */
  int32_t du[] = {0, 1, 3, 4, 7, 8, 7, 10}, dv[] = {1, 2, 4, 5, 8, 9, 9, 11};
  mispc_csr D = graph_from_edges(ctx, 12, 8, du, dv);
  for (int algo = 0; algo <= 1; ++algo) {
    aggregate_checked(&D, (mispc_agg_algo)algo, "disconnected", &a);
    CHECK(a.naggs == 5);
    if (a.naggs == 5) {
      CHECK(a.agg[0] == a.agg[1] && a.agg[1] == a.agg[2]);
      CHECK(a.agg[3] == a.agg[4] && a.agg[4] == a.agg[5] && a.agg[3] != a.agg[0]);
      CHECK(a.agg[7] == a.agg[8] && a.agg[8] == a.agg[9] && a.agg[10] == a.agg[11]);
      CHECK(a.agg[6] != a.agg[5] && a.agg[6] != a.agg[7]);
    }
    check_coarse(&D, &a, "disconnected"); /* no coarse edges at all */
    mispc_aggregates_free(ctx, &a);
  }
  mispc_csr_free(ctx, &D);
  /* clique, star, triangle with self loops: one aggregate */
  mispc_csr C = clique_graph(ctx, 30), S = star_graph(ctx, 20);
  int32_t tu[6] = {0, 1, 0, 0, 1, 2}, tv[6] = {1, 2, 2, 0, 1, 2};
  mispc_csr T = graph_from_edges(ctx, 3, 6, tu, tv);
  const mispc_csr *one[] = {&C, &S, &T};
  const char *names[] = {"clique", "star", "looped triangle"};
  for (int g = 0; g < 3; ++g)
    for (int algo = 0; algo <= 1; ++algo) {
      aggregate_checked(one[g], (mispc_agg_algo)algo, names[g], &a);
      CHECK_MSG(a.naggs == 1, "%s: %lld aggregates", names[g], (long long)a.naggs);
      mispc_aggregates_free(ctx, &a);
    }
  mispc_csr_free(ctx, &C);
  mispc_csr_free(ctx, &S);
  mispc_csr_free(ctx, &T);
  /* a path of 5: MIS-2 {0 or so, ...}; every vertex aggregated either way */
  mispc_csr P = gen("gen:path:5");
  for (int algo = 0; algo <= 1; ++algo) {
    aggregate_checked(&P, (mispc_agg_algo)algo, "path:5", &a);
    mispc_aggregates_free(ctx, &a);
  }
  mispc_csr_free(ctx, &P);
}

/* The host steps on hand-made labels (agg_backend.h). */
static void test_backend_steps_by_hand(void) {
  /* Phase 3. Aggregates: 0 = {1, 2, 3}, 1 = {4, 5, 6, 7}, 2 = {0, 9, 10},
   * 3 = {8, 11, 12, 13}; 14 .. 17 free. 14: two neighbours in 1, one in 0
   * (count wins); 15: one each in 1 (size 4) and 2 (size 3); 16: one each in
   * 2 and 0, both of size 3 (lower id); 17: free neighbours 14, 15 (ignored:
   * labels as on entry), a self loop, and 7 in aggregate 1. */
  int32_t eu[] = {14, 14, 14, 15, 15, 16, 16, 17, 17, 17, 17, 1, 2, 4, 5, 6, 9, 0, 8, 11, 12},
          ev[] = {1, 4, 5, 6, 9, 0, 3, 14, 15, 7, 17, 2, 3, 5, 6, 7, 10, 9, 11, 12, 13};
  mispc_csr G = graph_from_edges(ctx, 18, 21, eu, ev);
  const int32_t tent[18] = {2, 0, 0, 0, 1, 1, 1, 1, 3, 2, 2, 3, 3, 3, -1, -1, -1, -1};
  const int32_t want_agg[4] = {1, 2, 0, 1}, want_basic[4] = {0, 1, 2, 1};
  int32_t lab[19];
  for (int basic = 0; basic <= 1; ++basic)
    for (int t = 1; t <= 2; ++t) {
      mispc_context_set_num_threads(ctx, t);
      memcpy(lab, tent, sizeof tent);
      CHECK_OK(ctx, agg_phase3_host(ctx, &G, lab, 4, basic));
      CHECK(!memcmp(lab, tent, sizeof(int32_t) * 14));
      const int32_t *w = basic ? want_basic : want_agg;
      CHECK_MSG(lab[14] == w[0] && lab[15] == w[1] && lab[16] == w[2] && lab[17] == w[3],
                "phase 3 (basic %d): got %d %d %d %d, expected %d %d %d %d", basic, lab[14],
                lab[15], lab[16], lab[17], w[0], w[1], w[2], w[3]);
    }
  mispc_context_set_num_threads(ctx, 0);
  mispc_csr_free(ctx, &G);
  /* a free vertex without aggregated neighbours is reported */
  int32_t ou[] = {0, 2}, ov[] = {1, 3};
  mispc_csr O = graph_from_edges(ctx, 4, 2, ou, ov);
  int32_t olab[4] = {0, 0, -1, -1};
  CHECK_STATUS(ctx, agg_phase3_host(ctx, &O, olab, 1, 0), MISPC_ERR_INVALID_ARG);
  CHECK(strstr(mispc_context_error(ctx), "vertex 2") != NULL);
  mispc_csr_free(ctx, &O);
  /* Phase 2 on the path 0-..-5 with a self loop on 2 and {0, 1} taken: a
   * member needs >= 2 free neighbours, the loop does not count. */
  int32_t pu[] = {0, 1, 2, 3, 4, 2}, pv[] = {1, 2, 3, 4, 5, 2};
  mispc_csr P = graph_from_edges(ctx, 6, 6, pu, pv);
  int32_t agg[6] = {0, 0, -1, -1, -1, -1}, root[6] = {0, -1, -1, -1, -1, -1};
  uint8_t set[6] = {0, 0, 1, 0, 0, 1}, mask[6];
  int64_t na = 1, left = -1;
  CHECK_OK(ctx, agg_phase2_host(ctx, &P, set, 2, agg, root, &na));
  CHECK(na == 1 && agg[2] == -1 && agg[5] == -1);
  uint8_t set3[6] = {0, 0, 0, 1, 0, 0};
  CHECK_OK(ctx, agg_phase2_host(ctx, &P, set3, 2, agg, root, &na));
  CHECK(na == 2 && root[1] == 3 && agg[2] == 1 && agg[3] == 1 && agg[4] == 1 && agg[5] == -1);
  CHECK_OK(ctx, agg_unaggregated_host(ctx, 6, agg, mask, &left));
  CHECK(left == 1 && mask[5] == 1 && mask[4] == 0);
  /* Phase 1: roots numbered by id, their stars labelled, the rest -1 */
  uint8_t set1[6] = {0, 0, 0, 0, 1, 1}; /* not an MIS-2, but disjoint stars */
  set1[5] = 0;
  set1[1] = 1;
  CHECK_OK(ctx, agg_phase1_host(ctx, &P, set1, agg, root, &na));
  CHECK(na == 2 && root[0] == 1 && root[1] == 4);
  CHECK(agg[0] == 0 && agg[1] == 0 && agg[2] == 0 && agg[3] == 1 && agg[4] == 1 && agg[5] == 1);
  mispc_csr_free(ctx, &P);
}

/* mispc_verify_aggregation rejects a (MISPC_ERR_VERIFY), its message
 * containing want (unless NULL). */
static void expect_rejected(const mispc_csr *P, const mispc_aggregates *a, const char *want) {
  CHECK_STATUS(ctx, mispc_verify_aggregation(ctx, P, a), MISPC_ERR_VERIFY);
  if (want)
    CHECK_MSG(strstr(mispc_context_error(ctx), want) != NULL, "expected \"%s\" in: %s", want,
              mispc_context_error(ctx));
}

static void test_verify_rejects_bad_aggregations(void) {
  mispc_csr P = gen("gen:path:6"); /* 0-1-2-3-4-5 */
  int32_t agg[6], root[4];
  mispc_aggregates a;
  memset(&a, 0, sizeof a);
  a.n = 6;
  a.agg = agg;
  a.root = root;
  a.mem = MISPC_MEM_HOST;
#define SET(A0, A1, A2, A3, A4, A5, NA, R0, R1)                                                    \
  do {                                                                                             \
    int32_t t_[6] = {A0, A1, A2, A3, A4, A5};                                                      \
    memcpy(agg, t_, sizeof t_);                                                                    \
    a.naggs = NA;                                                                                  \
    root[0] = R0;                                                                                  \
    root[1] = R1;                                                                                  \
  } while (0)
  SET(0, 0, 0, 1, 1, 1, 2, 1, 4);
  CHECK_OK(ctx, mispc_verify_aggregation(ctx, &P, &a));
  mispc_agg_stats st;
  CHECK_OK(ctx, mispc_aggregates_stats(ctx, &a, &st));
  CHECK(st.naggs == 2 && st.min_size == 3 && st.max_size == 3 && st.hist[3] == 2 &&
        st.mean_size == 3.0 && st.singletons == 0);
  /* label out of range */
  SET(0, 0, 0, 1, 1, 2, 2, 1, 4);
  expect_rejected(&P, &a, "vertex 5");
  CHECK_STATUS(ctx, mispc_aggregates_stats(ctx, &a, &st), MISPC_ERR_INVALID_ARG);
  SET(0, 0, -1, 1, 1, 1, 2, 1, 4); /* unaggregated */
  expect_rejected(&P, &a, "vertex 2");
  /* disconnected aggregate: {0, 2} */
  SET(0, 1, 0, 1, 1, 1, 2, 0, 3);
  expect_rejected(&P, &a, "not connected");
  CHECK(strstr(mispc_context_error(ctx), "aggregate 0") != NULL &&
        strstr(mispc_context_error(ctx), "vertex 2") != NULL);
  /* roots adjacent */
  SET(0, 0, 0, 1, 1, 1, 2, 2, 3);
  expect_rejected(&P, &a, "adjacent");
  /* roots at distance 2 (through vertex 2) */
  SET(0, 0, 1, 1, 1, 1, 2, 1, 3);
  expect_rejected(&P, &a, "distance 2");
  /* ... fine if the second is a secondary root and the middle vertex lies in
   * a phase-1 aggregate, as mis2agg produces */
  SET(0, 0, 0, 1, 1, 1, 2, 1, 3);
  a.phase_aggs[0] = 1;
  CHECK_OK(ctx, mispc_verify_aggregation(ctx, &P, &a));
  a.phase_aggs[0] = 0;
  expect_rejected(&P, &a, NULL);
  /* empty aggregate, root outside its aggregate, too many aggregates */
  SET(0, 0, 0, 2, 2, 2, 3, 1, 4);
  root[2] = 4;
  expect_rejected(&P, &a, "aggregate 1 is empty");
  SET(0, 0, 0, 1, 1, 1, 2, 1, 1);
  expect_rejected(&P, &a, "aggregate 1");
  SET(0, 0, 0, 1, 1, 1, 2, 1, 9);
  expect_rejected(&P, &a, NULL);
  a.naggs = 7;
  expect_rejected(&P, &a, NULL);
  /* size mismatch is a usage error */
  SET(0, 0, 0, 1, 1, 1, 2, 1, 4);
  a.n = 5;
  CHECK_STATUS(ctx, mispc_verify_aggregation(ctx, &P, &a), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_verify_aggregation(ctx, &P, NULL), MISPC_ERR_INVALID_ARG);
  mispc_csr C;
  CHECK_STATUS(ctx, mispc_coarse_graph(ctx, &P, &a, &C), MISPC_ERR_INVALID_ARG);
#undef SET
  mispc_csr_free(ctx, &P);
}

/* mis2agg's secondary roots sit at distance 2 from phase-1 roots, so the
 * roots of mis2agg are not distance-2 independent as a whole: verify checks
 * per phase (see verify.c). Shown on a real run. */
static void test_mis2agg_secondary_roots_at_distance_two(void) {
  mispc_csr G = gen("gen:laplace3d:12");
  mispc_csr S = strength(&G, 0, 1);
  mispc_agg_options o = agg_opts(MISPC_AGG_MIS2AGG);
  mispc_aggregates a;
  CHECK_OK(ctx, mispc_aggregate(ctx, &S, &o, &a));
  CHECK(a.phase_aggs[1] > a.phase_aggs[0]);
  CHECK_OK(ctx, mispc_verify_aggregation(ctx, &S, &a));
  int64_t saved = a.phase_aggs[0];
  a.phase_aggs[0] = 0; /* all roots treated as phase 1 */
  CHECK_STATUS(ctx, mispc_verify_aggregation(ctx, &S, &a), MISPC_ERR_VERIFY);
  a.phase_aggs[0] = saved;
  mispc_aggregates_free(ctx, &a);
  mispc_csr_free(ctx, &S);
  mispc_csr_free(ctx, &G);
}

static void test_aggregation_errors(void) {
  mispc_aggregates a;
  mispc_csr U = one_way_pair();
  CHECK_STATUS(ctx, mispc_aggregate(ctx, &U, NULL, &a), MISPC_ERR_UNSYMMETRIC);
  mispc_csr P = gen("gen:path:10");
  mispc_agg_options o = agg_opts((mispc_agg_algo)7);
  CHECK_STATUS(ctx, mispc_aggregate(ctx, &P, &o, &a), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_aggregate(ctx, &P, NULL, NULL), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_aggregate(ctx, NULL, NULL, &a), MISPC_ERR_INVALID_ARG);
  mispc_csr_free(ctx, &P);
}

static void test_coarse_graph_small_brute_force(void) {
  const char *g[] = {"gen:random:300:4", "gen:grid2d:15", "gen:kron:8"};
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i) {
    mispc_csr G = gen(g[i]);
    for (int algo = 0; algo <= 1; ++algo) {
      mispc_aggregates a;
      aggregate_checked(&G, (mispc_agg_algo)algo, g[i], &a);
      check_coarse(&G, &a, g[i]);
      mispc_aggregates_free(ctx, &a);
    }
    mispc_csr_free(ctx, &G);
  }
}

static void test_multilevel_coarsening(void) {
  mispc_csr G = gen("gen:laplace3d:20"), S = strength(&G, 0, 1);
  mispc_csr_free(ctx, &G);
  int levels = 0;
  while (S.nrows > 10 && levels < 10) {
    mispc_aggregates a;
    CHECK_OK(ctx, mispc_aggregate(ctx, &S, NULL, &a));
    CHECK_OK(ctx, mispc_verify_aggregation(ctx, &S, &a));
    CHECK(a.naggs < S.nrows);
    mispc_csr C;
    CHECK_OK(ctx, mispc_coarse_graph(ctx, &S, &a, &C));
    printf("  level %d: %lld vertices -> %lld aggregates\n", levels, (long long)S.nrows,
           (long long)a.naggs);
    mispc_aggregates_free(ctx, &a);
    mispc_csr_free(ctx, &S);
    S = C;
    ++levels;
  }
  CHECK(levels >= 2 && S.nrows <= 10);
  mispc_csr_free(ctx, &S);
}

/* ---- tentative prolongator ------------------------------------------------------------------ */

/* Checks P (rows of k entries in the aggregate's columns), P^T P (block
 * diagonal, 0/1 on the diagonal, 1 where full[c]), and P * Bc == B. */
static void check_prolongator(const mispc_aggregates *a, int bs, int k, const double *B,
                              const mispc_csr *P, const double *Bc, const uint8_t *full, double tol,
                              const char *what) {
  const int64_t ndof = a->n * bs, nc = a->naggs * k;
  CHECK(P->nrows == ndof && P->ncols == nc && P->nnz == ndof * k && P->values);
  int rows_ok = 1;
  for (int64_t r = 0; r < ndof; ++r) {
    if (P->rowptr[r + 1] - P->rowptr[r] != k) rows_ok = 0;
    for (int j = 0; j < k; ++j)
      if (P->colidx[P->rowptr[r] + j] != a->agg[r / bs] * k + j) rows_ok = 0;
  }
  CHECK_MSG(rows_ok, "%s: P rows do not hold k entries in their aggregate's columns", what);
  if (!rows_ok) return;
  double *ptp = calloc((size_t)(a->naggs * k * k + 1), sizeof(double));
  for (int64_t r = 0; r < ndof; ++r) {
    const double *v = P->values + r * k;
    double *blk = ptp + (int64_t)a->agg[r / bs] * k * k;
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j) blk[i * k + j] += v[i] * v[j];
  }
  double err_orth = 0;
  int64_t not_full = 0;
  for (int64_t c = 0; c < a->naggs; ++c)
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j) {
        double x = ptp[c * k * k + i * k + j];
        if (i != j) {
          err_orth = fmax(err_orth, fabs(x));
        } else if (full && full[c]) {
          err_orth = fmax(err_orth, fabs(x - 1));
        } else {
          err_orth = fmax(err_orth, fmin(fabs(x), fabs(x - 1)));
          not_full += fabs(x) < 0.5;
        }
      }
  CHECK_MSG(err_orth < tol, "%s: P^T P differs from I by %g", what, err_orth);
  /* P * Bc == B */
  double err = 0;
  for (int64_t r = 0; r < ndof; ++r) {
    int64_t c = a->agg[r / bs];
    for (int j = 0; j < k; ++j) {
      double s = 0;
      for (int i = 0; i < k; ++i) s += P->values[r * k + i] * Bc[(int64_t)j * nc + c * k + i];
      double b = B ? B[(int64_t)j * ndof + r] : 1.0;
      err = fmax(err, fabs(s - b));
    }
  }
  CHECK_MSG(err < tol, "%s: P Bc differs from B by %g", what, err);
  printf("  %-28s %lld x %lld, |P^T P - I| %.1e, |P Bc - B| %.1e, dropped columns %lld\n", what,
         (long long)ndof, (long long)nc, err_orth, err, (long long)not_full);
  free(ptp);
}

static void test_prolongator_constant(void) {
  mispc_csr G = gen("gen:laplace2d:10");
  for (int algo = 0; algo <= 1; ++algo) {
    mispc_aggregates a;
    mispc_agg_options o = agg_opts((mispc_agg_algo)algo);
    CHECK_OK(ctx, mispc_aggregate(ctx, &G, &o, &a));
    mispc_csr P;
    double *Bc = calloc(1, sizeof(double) * (size_t)a.naggs);
    CHECK_OK(ctx, mispc_tentative_prolongator(ctx, &a, 1, 1, NULL, &P, Bc));
    uint8_t *full = calloc(1, (size_t)a.naggs);
    memset(full, 1, (size_t)a.naggs);
    check_prolongator(&a, 1, 1, NULL, &P, Bc, full, 1e-12, "constant, laplace2d:10");
    /* entries are 1/sqrt(size), Bc = sqrt(size) */
    int64_t *size = calloc((size_t)a.naggs, sizeof(int64_t));
    for (int64_t v = 0; v < a.n; ++v) size[a.agg[v]]++;
    int ok = 1;
    for (int64_t v = 0; v < a.n; ++v)
      ok &= fabs(P.values[v] - 1 / sqrt((double)size[a.agg[v]])) < 1e-14;
    for (int64_t c = 0; c < a.naggs; ++c) ok &= fabs(Bc[c] - sqrt((double)size[c])) < 1e-13;
    CHECK(ok);
    /* Bc is optional */
    mispc_csr P2;
    CHECK_OK(ctx, mispc_tentative_prolongator(ctx, &a, 1, 1, NULL, &P2, NULL));
    CHECK(P2.nnz == P.nnz && !memcmp(P2.values, P.values, sizeof(double) * (size_t)P.nnz));
    mispc_csr_free(ctx, &P2);
    /* same P with 1 and 2 threads */
    mispc_context_set_num_threads(ctx, 1);
    CHECK_OK(ctx, mispc_tentative_prolongator(ctx, &a, 1, 1, NULL, &P2, NULL));
    mispc_context_set_num_threads(ctx, 0);
    CHECK(!memcmp(P2.values, P.values, sizeof(double) * (size_t)P.nnz));
    mispc_csr_free(ctx, &P2);
    free(size);
    free(full);
    free(Bc);
    mispc_csr_free(ctx, &P);
    mispc_aggregates_free(ctx, &a);
  }
  mispc_csr_free(ctx, &G);
}

static void test_prolongator_blocks_and_dependent_columns(void) {
  mispc_csr G = gen("gen:random:200:4");
  mispc_aggregates a;
  CHECK_OK(ctx, mispc_aggregate(ctx, &G, NULL, &a));
  const int bs = 2, k = 3;
  const int64_t ndof = a.n * bs, nc = a.naggs * k;
  /* column 0 constant, column 1 a ramp, column 2 = 2 * column 0 + column 1
   * (dependent: R_22 = 0, so P Bc reproduces it, and P's column 2 is a unit
   * vector orthonormalised against the others, not zero, where the aggregate
   * has room: more than 2 dofs) */
  double *B = calloc(1, sizeof(double) * (size_t)(ndof * k)),
         *Bc = calloc(1, sizeof(double) * (size_t)(nc * k));
  for (int64_t r = 0; r < ndof; ++r) {
    B[r] = 1;
    B[ndof + r] = (double)(r % 7) - 3.0 + 0.1 * (double)(r % 3);
    B[2 * ndof + r] = 2 * B[r] + B[ndof + r];
  }
  mispc_csr P;
  CHECK_OK(ctx, mispc_tentative_prolongator(ctx, &a, bs, k, B, &P, Bc));
  check_prolongator(&a, bs, k, B, &P, Bc, NULL, 1e-11, "bs 2, dependent third vector");
  double *norm3 = calloc((size_t)a.naggs, sizeof(double));
  int64_t *dofs = calloc((size_t)a.naggs, sizeof(int64_t));
  for (int64_t r = 0; r < ndof; ++r) {
    norm3[a.agg[r / bs]] += P.values[r * k + 2] * P.values[r * k + 2];
    dofs[a.agg[r / bs]]++;
  }
  int completed = 1;
  for (int64_t c = 0; c < a.naggs; ++c)
    completed &= dofs[c] > 2 ? fabs(norm3[c] - 1) < 1e-12 : norm3[c] == 0;
  CHECK_MSG(completed, "dependent column not completed to a unit column");
  free(norm3);
  free(dofs);
  for (int64_t c = 0; c < a.naggs; ++c) CHECK(Bc[2 * nc + c * k + 2] == 0); /* R[2][2] */
  mispc_csr_free(ctx, &P);
  /* errors */
  CHECK_STATUS(ctx, mispc_tentative_prolongator(ctx, &a, 1, 2, NULL, &P, NULL),
               MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_tentative_prolongator(ctx, &a, 0, 1, NULL, &P, NULL),
               MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_tentative_prolongator(ctx, &a, 1, 0, B, &P, NULL), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_tentative_prolongator(ctx, NULL, 1, 1, NULL, &P, NULL),
               MISPC_ERR_INVALID_ARG);
  a.agg[3] = (int32_t)a.naggs;
  CHECK_STATUS(ctx, mispc_tentative_prolongator(ctx, &a, 1, 1, NULL, &P, NULL),
               MISPC_ERR_INVALID_ARG);
  free(B);
  free(Bc);
  mispc_aggregates_free(ctx, &a);
  mispc_csr_free(ctx, &G);
}

static void test_prolongator_rigid_body_modes(void) {
  const int N = 4;
  const double h = 1.0 / (N + 1);
  mispc_csr A = gen("gen:elasticity3d:4"), S = strength(&A, 0, 3);
  CHECK(S.nrows == N * N * N);
  double *xyz = calloc(1, sizeof(double) * 3 * (size_t)S.nrows);
  for (int kk = 0; kk < N; ++kk)
    for (int j = 0; j < N; ++j)
      for (int i = 0; i < N; ++i) {
        int64_t v = i + N * (j + N * kk);
        xyz[3 * v] = (i + 1) * h;
        xyz[3 * v + 1] = (j + 1) * h;
        xyz[3 * v + 2] = (kk + 1) * h;
      }
  const int64_t ndof = 3 * S.nrows;
  double *B = calloc(1, sizeof(double) * 6 * (size_t)ndof);
  CHECK_OK(ctx, mispc_rigid_body_modes(ctx, S.nrows, xyz, B));
  /* spot check: node 5's rotation about z is (-y, x, 0) */
  CHECK(B[5 * ndof + 15] == -xyz[16] && B[5 * ndof + 16] == xyz[15] && B[5 * ndof + 17] == 0);
  CHECK(B[0 * ndof + 15] == 1 && B[0 * ndof + 16] == 0 && B[4 * ndof + 15] == xyz[17]);
  /* rigid-body modes are in the kernel of the free (unconstrained) operator;
   * here the check is on P only */
  for (int algo = 0; algo <= 1; ++algo) {
    mispc_aggregates a;
    mispc_agg_options o = agg_opts((mispc_agg_algo)algo);
    CHECK_OK(ctx, mispc_aggregate(ctx, &S, &o, &a));
    const int64_t nc = a.naggs * 6;
    double *Bc = calloc(1, sizeof(double) * (size_t)(nc * 6));
    mispc_csr P;
    CHECK_OK(ctx, mispc_tentative_prolongator(ctx, &a, 3, 6, B, &P, Bc));
    /* full rank where the aggregate's nodes are not collinear */
    uint8_t *full = calloc((size_t)a.naggs, 1);
    for (int64_t c = 0; c < a.naggs; ++c) {
      int64_t first = -1, second = -1;
      for (int64_t v = 0; v < a.n && !full[c]; ++v) {
        if (a.agg[v] != c) continue;
        if (first < 0) {
          first = v;
        } else if (second < 0) {
          second = v;
        } else {
          double u[3], w[3];
          for (int d = 0; d < 3; ++d) {
            u[d] = xyz[3 * second + d] - xyz[3 * first + d];
            w[d] = xyz[3 * v + d] - xyz[3 * first + d];
          }
          double cx = u[1] * w[2] - u[2] * w[1], cy = u[2] * w[0] - u[0] * w[2],
                 cz = u[0] * w[1] - u[1] * w[0];
          full[c] = fabs(cx) + fabs(cy) + fabs(cz) > 1e-9;
        }
      }
    }
    check_prolongator(&a, 3, 6, B, &P, Bc, full, 1e-10,
                      algo ? "rigid body, mis2basic" : "rigid body, mis2agg");
    free(full);
    free(Bc);
    mispc_csr_free(ctx, &P);
    mispc_aggregates_free(ctx, &a);
  }
  CHECK_STATUS(ctx, mispc_rigid_body_modes(ctx, 3, NULL, B), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_rigid_body_modes(ctx, -1, xyz, B), MISPC_ERR_INVALID_ARG);
  CHECK_OK(ctx, mispc_rigid_body_modes(ctx, 0, NULL, NULL));
  free(B);
  free(xyz);
  mispc_csr_free(ctx, &S);
  mispc_csr_free(ctx, &A);
}

static void test_mis2agg_vs_mis2basic(void) {
  mispc_csr G = gen("gen:laplace3d:20"), S = strength(&G, 0, 1);
  mispc_agg_stats st[2];
  for (int algo = 0; algo <= 1; ++algo) {
    mispc_aggregates a;
    mispc_agg_options o = agg_opts((mispc_agg_algo)algo);
    CHECK_OK(ctx, mispc_aggregate(ctx, &S, &o, &a));
    CHECK_OK(ctx, mispc_verify_aggregation(ctx, &S, &a));
    CHECK_OK(ctx, mispc_aggregates_stats(ctx, &a, &st[algo]));
    printf("  laplace3d:20 %-9s: %lld aggregates, mean %.2f, min %lld, max %lld, singletons "
           "%lld (phases: %lld / %lld / %lld)\n",
           algo_name((mispc_agg_algo)algo), (long long)st[algo].naggs, st[algo].mean_size,
           (long long)st[algo].min_size, (long long)st[algo].max_size,
           (long long)st[algo].singletons, (long long)a.phase_aggs[0],
           (long long)(a.phase_aggs[1] - a.phase_aggs[0]), (long long)a.phase_done[1]);
    mispc_aggregates_free(ctx, &a);
  }
  CHECK(st[0].singletons == 0);
  CHECK(st[0].naggs > st[1].naggs); /* mis2agg adds secondary aggregates */
  mispc_csr_free(ctx, &S);
  mispc_csr_free(ctx, &G);
}

/* phase2_min_free: values below 2 are Alg. 3; a larger one roots fewer
 * secondary aggregates (none above every degree), every aggregation still
 * verifies, and phase 3 places the rest. */
static void test_phase2_min_free(void) {
  mispc_csr G = gen("gen:laplace3d:20"), S = strength(&G, 0, 1);
  const int ks[] = {0, 2, 4, 8, 27};
  int64_t secondary[5], naggs[5];
  mispc_aggregates a0 = {0};
  for (int t = 0; t < 5; ++t) {
    mispc_aggregates a;
    mispc_agg_options o = agg_opts(MISPC_AGG_MIS2AGG);
    o.phase2_min_free = ks[t];
    CHECK_OK(ctx, mispc_aggregate(ctx, &S, &o, &a));
    CHECK_OK(ctx, mispc_verify_aggregation(ctx, &S, &a));
    secondary[t] = a.phase_aggs[1] - a.phase_aggs[0];
    naggs[t] = a.naggs;
    printf("  laplace3d:20 phase2_min_free %2d: %lld aggregates (%lld secondary)\n", ks[t],
           (long long)naggs[t], (long long)secondary[t]);
    if (t == 0)
      a0 = a;
    else if (t == 1) {
      CHECK(a.naggs == a0.naggs && !memcmp(a.agg, a0.agg, sizeof(int32_t) * (size_t)a.n));
      mispc_aggregates_free(ctx, &a);
    } else {
      CHECK(secondary[t] <= secondary[t - 1] && naggs[t] <= naggs[t - 1]);
      mispc_aggregates_free(ctx, &a);
    }
  }
  CHECK(secondary[1] > 0 && secondary[3] < secondary[1] && secondary[4] == 0);
  mispc_aggregates_free(ctx, &a0);
  mispc_csr_free(ctx, &S);
  mispc_csr_free(ctx, &G);
}

/* With threshold 0 the strength graph on nodes of bs rows is the matrix's
 * node pattern without self loops, so the coarse graph of node aggregates
 * over it equals the coarse graph of the matrix over the same aggregates
 * expanded to rows (cluster GS builds its cluster graph from the nodes,
 * gauss_seidel/gs.c). Uniform blocks (elasticity), and a scalar matrix read
 * as blocks of 2 and 4 whose rows differ inside a node. */
static void test_coarse_graph_of_nodes_equals_rows(void) {
  const struct {
    const char *spec;
    int bs;
  } node_cases[] = {{"gen:elasticity3d:6", 3}, {"gen:laplace3d:12", 2}, {"gen:random:4000:6", 4}};
  for (size_t c = 0; c < sizeof node_cases / sizeof *node_cases; ++c) {
    mispc_csr A = gen(node_cases[c].spec), S = strength(&A, 0, node_cases[c].bs);
    mispc_aggregates a, rows;
    CHECK_OK(ctx, mispc_aggregate(ctx, &S, NULL, &a));
    rows = a;
    rows.n = A.nrows;
    rows.root = NULL;
    rows.agg = malloc(sizeof(int32_t) * (size_t)A.nrows);
    for (int64_t i = 0; i < A.nrows; ++i) rows.agg[i] = a.agg[i / node_cases[c].bs];
    mispc_csr from_nodes, from_rows;
    CHECK_OK(ctx, mispc_coarse_graph(ctx, &S, &a, &from_nodes));
    CHECK_OK(ctx, mispc_coarse_graph(ctx, &A, &rows, &from_rows));
    CHECK_MSG(same_csr(&from_nodes, &from_rows),
              "%s bs %d: coarse graph from nodes (%lld entries) != from rows (%lld)",
              node_cases[c].spec, node_cases[c].bs, (long long)from_nodes.nnz,
              (long long)from_rows.nnz);
    check_coarse(&A, &rows, node_cases[c].spec);
    free(rows.agg);
    mispc_csr_free(ctx, &from_nodes);
    mispc_csr_free(ctx, &from_rows);
    mispc_aggregates_free(ctx, &a);
    mispc_csr_free(ctx, &S);
    mispc_csr_free(ctx, &A);
  }
}

/* MISPC_ISOLATED_COLLECT against the default on graphs with and without
 * isolated vertices: the isolated ones share the last aggregate (rooted at
 * the smallest), every other vertex keeps its aggregate under an
 * order-preserving renumbering, and the result verifies. */
static void check_collect(const mispc_csr *G, mispc_agg_algo algo, const char *what) {
  mispc_agg_options o = agg_opts(algo);
  mispc_aggregates s, c;
  CHECK_OK(ctx, mispc_aggregate(ctx, G, &o, &s));
  o.isolated = MISPC_ISOLATED_COLLECT;
  CHECK_OK(ctx, mispc_aggregate(ctx, G, &o, &c));
  const int64_t n = G->nrows;
  int64_t niso = 0, first = -1;
  for (int64_t v = 0; v < n; ++v)
    if (degree(G, v) == 0) first = first < 0 ? v : first, ++niso;
  CHECK_MSG(c.naggs == (niso ? s.naggs - niso + 1 : s.naggs), "%s: %lld aggregates, %lld isolated",
            what, (long long)c.naggs, (long long)niso);
  CHECK(c.phase_aggs[0] == s.phase_aggs[0] - niso && c.phase_aggs[1] == s.phase_aggs[1] - niso &&
        c.phase_aggs[2] == c.naggs);
  /* the map from the default's ids to the collected ones, order-preserving */
  int32_t *map = (int32_t *)malloc(sizeof(int32_t) * (size_t)(s.naggs + 1));
  for (int64_t k = 0; k < s.naggs; ++k) map[k] = -1;
  int ok = 1;
  for (int64_t v = 0; v < n && ok; ++v) {
    if (degree(G, v) == 0) {
      ok = c.agg[v] == c.naggs - 1;
      continue;
    }
    int32_t *m = &map[s.agg[v]];
    if (*m < 0) *m = c.agg[v];
    ok = *m == c.agg[v] && c.agg[v] < c.naggs - (niso > 0);
  }
  for (int64_t k = 0, last = -1; k < s.naggs && ok; ++k)
    if (map[k] >= 0) ok = map[k] > last && c.root[map[k]] == s.root[k], last = map[k];
  CHECK_MSG(ok, "%s: collected labels are not the default's renumbered", what);
  if (niso) CHECK(c.root[c.naggs - 1] == first);
  CHECK_OK(ctx, mispc_verify_aggregation(ctx, G, &c));
  mispc_agg_stats st;
  CHECK_OK(ctx, mispc_aggregates_stats(ctx, &c, &st));
  CHECK(niso < 2 || st.singletons == 0 || algo == MISPC_AGG_MIS2BASIC);
  /* the coarse graph: the collected aggregate is one isolated vertex */
  mispc_csr C;
  CHECK_OK(ctx, mispc_coarse_graph(ctx, G, &c, &C));
  if (niso) CHECK(C.rowptr[C.nrows] == C.rowptr[C.nrows - 1]);
  mispc_csr_free(ctx, &C);
  free(map);
  mispc_aggregates_free(ctx, &s);
  mispc_aggregates_free(ctx, &c);
}

static void test_isolated_vertices_collected(void) {
  /* a path 1-2-3-4, isolated 0, 5 and 7 (7 with a self loop), edge 6-8 */
  const int32_t I[] = {1, 2, 3, 7, 6}, J[] = {2, 3, 4, 7, 8};
  mispc_csr G;
  CHECK_OK(ctx, mispc_csr_from_coo(ctx, 9, 9, 5, I, J, NULL, MISPC_COO_SYMMETRIC, &G));
  for (int algo = 0; algo < 2; ++algo) {
    check_collect(&G, (mispc_agg_algo)algo, "path + isolated");
    mispc_csr K = gen("gen:kron:12"), L = gen("gen:laplace2d:20");
    check_collect(&K, (mispc_agg_algo)algo, "gen:kron:12");
    check_collect(&L, (mispc_agg_algo)algo, "gen:laplace2d:20 (none isolated)");
    mispc_csr_free(ctx, &K);
    mispc_csr_free(ctx, &L);
  }
  mispc_aggregates a;
  mispc_agg_options o;
  mispc_agg_options_default(&o);
  o.isolated = MISPC_ISOLATED_COLLECT;
  CHECK_OK(ctx, mispc_aggregate(ctx, &G, &o, &a));
  const int32_t last = (int32_t)a.naggs - 1;
  CHECK(a.agg[0] == last && a.agg[5] == last && a.agg[7] == last && a.root[last] == 0);
  mispc_aggregates_free(ctx, &a);
  /* the verification, by hand: {1, 2, 3, 4} root 2, {6, 8} root 6, the
   * isolated {0, 5, 7} root 0 pass; 4 among the isolated does not */
  int32_t hagg[9] = {2, 0, 0, 0, 0, 2, 1, 2, 1}, hroot[3] = {2, 6, 0};
  mispc_aggregates h;
  memset(&h, 0, sizeof h);
  h.n = 9, h.naggs = 3, h.agg = hagg, h.root = hroot, h.mem = MISPC_MEM_HOST;
  CHECK_OK(ctx, mispc_verify_aggregation(ctx, &G, &h));
  hagg[4] = 2;
  expect_rejected(&G, &h, "not connected");
  CHECK(strstr(mispc_context_error(ctx), "vertex 4") != NULL);
  /* only isolated vertices: one aggregate */
  mispc_csr E;
  CHECK_OK(ctx, mispc_csr_from_coo(ctx, 5, 5, 0, NULL, NULL, NULL, 0, &E));
  CHECK_OK(ctx, mispc_aggregate(ctx, &E, &o, &a));
  CHECK(a.naggs == 1 && a.root[0] == 0 && a.phase_aggs[0] == 0);
  CHECK_OK(ctx, mispc_verify_aggregation(ctx, &E, &a));
  mispc_aggregates_free(ctx, &a);
  o.isolated = (mispc_agg_isolated)7;
  CHECK_STATUS(ctx, mispc_aggregate(ctx, &G, &o, &a), MISPC_ERR_INVALID_ARG);
  mispc_csr_free(ctx, &E);
  mispc_csr_free(ctx, &G);
}

/* max_size: the default's aggregates split into families of pieces of at
 * most B vertices (sizes floor / ceil of m / p, consecutive members), the
 * family heads keep the default's ids and roots, parent names the family,
 * verification passes, and the result does not depend on the threads. */
static void check_split(const mispc_csr *G, mispc_agg_algo algo, int64_t B, const char *what) {
  mispc_agg_options o = agg_opts(algo);
  o.isolated = MISPC_ISOLATED_COLLECT;
  mispc_aggregates s, t, t2;
  CHECK_OK(ctx, mispc_aggregate(ctx, G, &o, &s));
  o.max_size = B;
  CHECK_OK(ctx, mispc_aggregate(ctx, G, &o, &t));
  const int64_t n = G->nrows;
  int64_t *size = (int64_t *)calloc((size_t)(s.naggs + t.naggs + 2), sizeof(int64_t)),
          *tsize = size + s.naggs + 1, extra = 0;
  for (int64_t v = 0; v < n; ++v) size[s.agg[v]]++, tsize[t.agg[v]]++;
  for (int64_t c = 0; c < s.naggs; ++c) extra += size[c] > B ? (size[c] + B - 1) / B - 1 : 0;
  CHECK_MSG(t.naggs == s.naggs + extra && (extra > 0) == (t.parent != NULL),
            "%s B %lld: %lld aggregates, expected %lld", what, (long long)B, (long long)t.naggs,
            (long long)(s.naggs + extra));
  int ok = 1;
  for (int64_t v = 0; v < n && ok; ++v)
    ok = (t.parent ? t.parent[t.agg[v]] : t.agg[v]) == s.agg[v] && tsize[t.agg[v]] <= B;
  for (int64_t k = 0; k < t.naggs && ok; ++k) {
    const int32_t q = t.parent ? t.parent[k] : (int32_t)k;
    const int64_t m = size[q], p = m > B ? (m + B - 1) / B : 1;
    ok = (k < s.naggs ? q == k && t.root[k] == s.root[k] : q < k) &&
         (tsize[k] == m / p || tsize[k] == (m + p - 1) / p);
  }
  CHECK_MSG(ok, "%s B %lld: pieces are not the default's aggregates split", what, (long long)B);
  CHECK_OK(ctx, mispc_verify_aggregation(ctx, G, &t));
  mispc_context_set_num_threads(ctx, 2);
  CHECK_OK(ctx, mispc_aggregate(ctx, G, &o, &t2));
  mispc_context_set_num_threads(ctx, 0);
  CHECK(t2.naggs == t.naggs && !memcmp(t2.agg, t.agg, sizeof(int32_t) * (size_t)n) &&
        !memcmp(t2.root, t.root, sizeof(int32_t) * (size_t)t.naggs) &&
        (!t.parent || !memcmp(t2.parent, t.parent, sizeof(int32_t) * (size_t)t.naggs)));
  free(size);
  mispc_aggregates_free(ctx, &s);
  mispc_aggregates_free(ctx, &t);
  mispc_aggregates_free(ctx, &t2);
}

static void test_max_size_splits(void) {
  /* a star: hub 0 with 20 leaves, and a path 21-22-23 */
  int32_t I[22], J[22];
  for (int k = 0; k < 20; ++k) I[k] = 0, J[k] = k + 1;
  I[20] = 21, J[20] = 22, I[21] = 22, J[21] = 23;
  mispc_csr S, K = gen("gen:kron:12"), L = gen("gen:laplace2d:20");
  CHECK_OK(ctx, mispc_csr_from_coo(ctx, 24, 24, 22, I, J, NULL, MISPC_COO_SYMMETRIC, &S));
  for (int algo = 0; algo < 2; ++algo) {
    check_split(&S, (mispc_agg_algo)algo, 5, "star");
    check_split(&S, (mispc_agg_algo)algo, 21, "star (fits)");
    check_split(&K, (mispc_agg_algo)algo, 8, "gen:kron:12");
    check_split(&K, (mispc_agg_algo)algo, 2, "gen:kron:12");
    check_split(&L, (mispc_agg_algo)algo, 4, "gen:laplace2d:20");
  }
  /* the star by hand: 21 members, 5 pieces of 4 or 5; the hub's keeps id 0 */
  mispc_agg_options o;
  mispc_agg_options_default(&o);
  o.max_size = 5;
  mispc_aggregates a;
  CHECK_OK(ctx, mispc_aggregate(ctx, &S, &o, &a));
  CHECK(a.naggs == 6 && a.parent && a.agg[0] == a.agg[1] && a.parent[a.naggs - 1] == a.agg[0]);
  /* verification: a piece made its own family head is a disconnected
   * aggregate; a parent that is not a head is refused */
  const int32_t piece = (int32_t)a.naggs - 1, head = a.parent[piece];
  a.parent[piece] = piece;
  expect_rejected(&S, &a, NULL);
  a.parent[piece] = head;
  CHECK_OK(ctx, mispc_verify_aggregation(ctx, &S, &a));
  a.parent[head] = piece;
  expect_rejected(&S, &a, "not the head of a family");
  mispc_aggregates_free(ctx, &a);
  o.max_size = 1;
  CHECK_STATUS(ctx, mispc_aggregate(ctx, &S, &o, &a), MISPC_ERR_INVALID_ARG);
  o.max_size = -2;
  CHECK_STATUS(ctx, mispc_aggregate(ctx, &S, &o, &a), MISPC_ERR_INVALID_ARG);
  mispc_csr_free(ctx, &S);
  mispc_csr_free(ctx, &K);
  mispc_csr_free(ctx, &L);
}

int main(void) {
  if (mispc_context_create(&ctx)) return 1;
  RUN_TEST(test_aggregation_on_every_generator);
  RUN_TEST(test_matrix_with_diagonal_as_graph);
  RUN_TEST(test_strength_graph_semantics);
  RUN_TEST(test_strength_graph_errors);
  RUN_TEST(test_strength_auto);
  RUN_TEST(test_aggregation_edge_cases);
  RUN_TEST(test_backend_steps_by_hand);
  RUN_TEST(test_verify_rejects_bad_aggregations);
  RUN_TEST(test_mis2agg_secondary_roots_at_distance_two);
  RUN_TEST(test_aggregation_errors);
  RUN_TEST(test_coarse_graph_small_brute_force);
  RUN_TEST(test_coarse_graph_of_nodes_equals_rows);
  RUN_TEST(test_multilevel_coarsening);
  RUN_TEST(test_prolongator_constant);
  RUN_TEST(test_prolongator_blocks_and_dependent_columns);
  RUN_TEST(test_prolongator_rigid_body_modes);
  RUN_TEST(test_mis2agg_vs_mis2basic);
  RUN_TEST(test_phase2_min_free);
  RUN_TEST(test_isolated_vertices_collected);
  RUN_TEST(test_max_size_splits);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
