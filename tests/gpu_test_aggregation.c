/* Aggregation on the GPU: strength graph, automatic strength threshold,
 * aggregates (both algorithms, all phases) and coarse graph bit-identical to
 * the host; device aggregates pass verification. Skips without a GPU. */
#include "mis_test_graphs.h" /* mispc_csr_from_coo (internal) */
#include "test_util.h"
#include "tuning.h"

static mispc_context *ctx;

static int same_pattern(const mispc_csr *h, const mispc_csr *d) {
  mispc_csr b;
  if (mispc_csr_copy(ctx, d, MISPC_MEM_HOST, &b)) return 0;
  int same = h->nrows == b.nrows && h->nnz == b.nnz &&
             !memcmp(h->rowptr, b.rowptr, sizeof(int64_t) * (size_t)(h->nrows + 1)) &&
             (!h->nnz || !memcmp(h->colidx, b.colidx, sizeof(int32_t) * (size_t)h->nnz));
  mispc_csr_free(ctx, &b);
  return same;
}

static int same_aggs(const mispc_aggregates *h, const mispc_aggregates *d) {
  if (h->naggs != d->naggs || h->n != d->n) return 0;
  int32_t *a = malloc(sizeof(int32_t) * (size_t)(h->n + 1)),
          *r = malloc(sizeof(int32_t) * (size_t)(h->naggs + 1));
  int same = !mispc_memcpy(ctx, a, MISPC_MEM_HOST, d->agg, MISPC_MEM_DEVICE,
                           sizeof(int32_t) * (size_t)h->n) &&
             !mispc_memcpy(ctx, r, MISPC_MEM_HOST, d->root, MISPC_MEM_DEVICE,
                           sizeof(int32_t) * (size_t)h->naggs) &&
             !memcmp(a, h->agg, sizeof(int32_t) * (size_t)h->n) &&
             !memcmp(r, h->root, sizeof(int32_t) * (size_t)h->naggs);
  for (int k = 0; k < 3; ++k)
    same = same && h->phase_aggs[k] == d->phase_aggs[k] && h->phase_done[k] == d->phase_done[k];
  same = same && !h->parent == !d->parent; /* split families (max_size) */
  if (same && h->parent)
    same = !mispc_memcpy(ctx, r, MISPC_MEM_HOST, d->parent, MISPC_MEM_DEVICE,
                         sizeof(int32_t) * (size_t)h->naggs) &&
           !memcmp(r, h->parent, sizeof(int32_t) * (size_t)h->naggs);
  free(a);
  free(r);
  return same;
}

static void check_spec(const char *spec, double theta, int bs) {
  mispc_csr A, DA, S, DS, C, DC;
  CHECK_OK(ctx, mispc_generate(ctx, spec, 5, &A));
  CHECK_OK(ctx, mispc_csr_copy(ctx, &A, MISPC_MEM_DEVICE, &DA));
  CHECK_OK(ctx, mispc_strength_graph(ctx, &A, theta, bs, &S));
  CHECK_OK(ctx, mispc_strength_graph(ctx, &DA, theta, bs, &DS));
  CHECK_MSG(same_pattern(&S, &DS), "%s: device strength graph differs", spec);
  /* algorithm, isolated vertices collected; 4, 5: mis2agg with phase2_min_free 8, 27 */
  for (int variant = 0; variant < 6; ++variant) {
    const int algo = variant < 4 ? variant & 1 : 0;
    mispc_agg_options o;
    mispc_agg_options_default(&o);
    o.algo = algo ? MISPC_AGG_MIS2BASIC : MISPC_AGG_MIS2AGG;
    o.isolated = variant >> 1 == 1 ? MISPC_ISOLATED_COLLECT : MISPC_ISOLATED_SINGLETONS;
    if (variant >= 4) o.phase2_min_free = variant == 4 ? 8 : 27;
    mispc_aggregates ha, da;
    CHECK_OK(ctx, mispc_aggregate(ctx, &S, &o, &ha));
    CHECK_OK(ctx, mispc_aggregate(ctx, &DS, &o, &da));
    CHECK_MSG(same_aggs(&ha, &da), "%s algo %d: device aggregates differ", spec, algo);
    CHECK_OK(ctx, mispc_verify_aggregation(ctx, &DS, &da));
    CHECK_OK(ctx, mispc_coarse_graph(ctx, &S, &ha, &C));
    CHECK_OK(ctx, mispc_coarse_graph(ctx, &DS, &da, &DC));
    CHECK_MSG(same_pattern(&C, &DC), "%s algo %d: device coarse graph differs", spec, algo);
    mispc_agg_stats st;
    CHECK_OK(ctx, mispc_aggregates_stats(ctx, &da, &st));
    CHECK(st.naggs == ha.naggs);
    printf("  %-26s %s%s (phase2_min_free %d): %lld nodes -> %lld aggregates (mean %.2f, "
           "singletons %lld)\n",
           spec, algo ? "mis2basic" : "mis2agg", variant >> 1 == 1 ? " collect" : "",
           o.phase2_min_free, (long long)S.nrows, (long long)st.naggs, st.mean_size,
           (long long)st.singletons);
    mispc_aggregates_free(ctx, &ha);
    mispc_aggregates_free(ctx, &da);
    mispc_csr_free(ctx, &C);
    mispc_csr_free(ctx, &DC);
  }
  mispc_csr_free(ctx, &A);
  mispc_csr_free(ctx, &DA);
  mispc_csr_free(ctx, &S);
  mispc_csr_free(ctx, &DS);
}

/* Rows unsorted, with repeated columns and an unsymmetric pattern and values:
 * the strength graph (blocks of 2, with and without a threshold) and the
 * coarse graph of given labels (a few scattered) from the GPU
 * equal the host's, so the per-row repeat window before the sort does not
 * change the result (rows here have more than its 8 distinct values). */
static void test_gpu_graphs_unsorted_rows(void) {
  enum { n = 2000, per_row = 40 };
  int64_t *rowptr = malloc(sizeof(int64_t) * (n + 1));
  int32_t *col = malloc(sizeof(int32_t) * n * per_row), *agg = malloc(sizeof(int32_t) * n);
  double *val = malloc(sizeof(double) * n * per_row);
  uint64_t h = 12345;
  for (int i = 0; i <= n; ++i) rowptr[i] = (int64_t)i * per_row;
  for (int i = 0; i < n; ++i) {
    agg[i] = (int32_t)(i % 13 == 0 ? (i * 7) % 150 : (i / 7) % 150);
    for (int k = 0; k < per_row; ++k) {
      h = h * 6364136223846793005ull + 1442695040888963407ull;
      const int p = i * per_row + k;
      /* a diagonal, then near and far columns, some repeated */
      col[p] = k == 0
                   ? i
                   : (int32_t)((k % 3 ? i + (int64_t)(h >> 59) - 16 + n : (int64_t)(h >> 33)) % n);
      val[p] = k == 0 ? 50.0 : -1.0 - (double)(h >> 60);
    }
  }
  mispc_csr A, DA;
  CHECK_OK(ctx, mispc_csr_wrap(MISPC_MEM_HOST, n, n, (int64_t)n * per_row, rowptr, col, val, &A));
  CHECK_OK(ctx, mispc_csr_copy(ctx, &A, MISPC_MEM_DEVICE, &DA));
  const double thetas[] = {0, 0.25};
  for (int t = 0; t < 2; ++t) {
    mispc_csr S, DS;
    CHECK_OK(ctx, mispc_strength_graph(ctx, &A, thetas[t], 2, &S));
    CHECK_OK(ctx, mispc_strength_graph(ctx, &DA, thetas[t], 2, &DS));
    CHECK(S.nnz > 0);
    CHECK_MSG(same_pattern(&S, &DS), "unsorted rows, theta %g: device strength graph differs",
              thetas[t]);
    mispc_csr_free(ctx, &S);
    mispc_csr_free(ctx, &DS);
  }
  mispc_aggregates ha = {0}, da = {0};
  ha.n = da.n = n;
  ha.naggs = da.naggs = 150;
  ha.agg = agg;
  ha.mem = MISPC_MEM_HOST;
  da.mem = MISPC_MEM_DEVICE;
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(int32_t) * n, (void **)&da.agg));
  CHECK_OK(ctx,
           mispc_memcpy(ctx, da.agg, MISPC_MEM_DEVICE, agg, MISPC_MEM_HOST, sizeof(int32_t) * n));
  mispc_csr C, DC;
  CHECK_OK(ctx, mispc_coarse_graph(ctx, &A, &ha, &C));
  CHECK_OK(ctx, mispc_coarse_graph(ctx, &DA, &da, &DC));
  CHECK(C.nnz > 0);
  CHECK_MSG(same_pattern(&C, &DC), "unsorted rows: device coarse graph differs");
  mispc_free(ctx, MISPC_MEM_DEVICE, da.agg);
  mispc_csr_free(ctx, &C);
  mispc_csr_free(ctx, &DC);
  mispc_csr_free(ctx, &DA);
  free(rowptr);
  free(col);
  free(val);
  free(agg);
}

/* Blocks of 2 whose two rows name the same nodes (so the GPU tries the node
 * graph from the first rows, without a sort): node I's rows reach nodes I and
 * I + 1 (mod m) only, an unsymmetric node pattern, and with `shuffled` the
 * second entry pair comes first (unsorted rows). The GPU must notice and
 * build the symmetric strength graph the host does; its sorted, symmetric
 * twin (I - 1 too) takes the fast path and must give the same graph. */
static void check_uniform_blocks(int variant) {
  enum { m = 500, n = 2 * m };
  const int per_row = variant == 2 ? 6 : 4;
  int64_t *rowptr = malloc(sizeof(int64_t) * (n + 1));
  int32_t *col = malloc(sizeof(int32_t) * n * per_row);
  for (int i = 0; i <= n; ++i) rowptr[i] = (int64_t)i * per_row;
  for (int i = 0; i < n; ++i) {
    const int I = i / 2, nb[3] = {(I + m - 1) % m, I, (I + 1) % m};
    int32_t *c = col + (size_t)i * per_row, k = 0;
    if (variant == 2) { /* symmetric, sorted: nodes I - 1, I, I + 1 in order */
      int order[3] = {0, 1, 2};
      for (int a = 0; a < 3; ++a)
        for (int b = a + 1; b < 3; ++b)
          if (nb[order[b]] < nb[order[a]]) {
            const int t = order[a];
            order[a] = order[b];
            order[b] = t;
          }
      for (int a = 0; a < 3; ++a) c[k++] = 2 * nb[order[a]], c[k++] = 2 * nb[order[a]] + 1;
    } else {
      const int lo = I < nb[2] ? I : nb[2], hi = I < nb[2] ? nb[2] : I;
      const int first = variant == 1 ? hi : lo, second = variant == 1 ? lo : hi;
      c[k++] = 2 * first, c[k++] = 2 * first + 1, c[k++] = 2 * second, c[k++] = 2 * second + 1;
    }
  }
  mispc_csr A, DA, S, DS;
  CHECK_OK(ctx, mispc_csr_wrap(MISPC_MEM_HOST, n, n, (int64_t)n * per_row, rowptr, col, NULL, &A));
  CHECK_OK(ctx, mispc_csr_copy(ctx, &A, MISPC_MEM_DEVICE, &DA));
  CHECK_OK(ctx, mispc_strength_graph(ctx, &A, 0, 2, &S));
  CHECK_OK(ctx, mispc_strength_graph(ctx, &DA, 0, 2, &DS));
  CHECK(S.nrows == m && S.nnz == 2 * m); /* a cycle of m nodes, both ways */
  CHECK_MSG(same_pattern(&S, &DS), "uniform blocks, variant %d: device strength graph differs",
            variant);
  mispc_csr_free(ctx, &S);
  mispc_csr_free(ctx, &DS);
  mispc_csr_free(ctx, &DA);
  free(rowptr);
  free(col);
}

static void test_gpu_strength_uniform_blocks(void) {
  for (int variant = 0; variant < 3; ++variant) check_uniform_blocks(variant);
}

/* A copy of the generated matrix `spec` with sorted rows, changed by `kind`
 * (h, a hash of (i, j), is not symmetric in i and j):
 *   0  as generated;
 *   1  values scaled by 1..4 and some set to 0, unsymmetrically;
 *   2  rows i % 7 == 3 empty, and rows i % 5 == 1 without their diagonal;
 *   3  off-diagonal (i, j > i) dropped where h % 3 == 0 (unsymmetric pattern);
 *   4  entries where h % 4 == 0 repeated, one copy 1000 times weaker (before
 *      or after the other), so a row's first strong copy is not always its
 *      first copy. */
typedef struct variant {
  int64_t *rowptr;
  int32_t *col;
  double *val;
  mispc_csr A;
} variant;

static uint32_t hash_ij(int64_t i, int64_t j) {
  uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull + (uint64_t)j * 0xc2b2ae3d27d4eb4full;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  return (uint32_t)(x >> 32);
}

static void make_variant(const char *spec, int kind, variant *v) {
  mispc_csr G;
  CHECK_OK(ctx, mispc_generate(ctx, spec, 5, &G));
  const int64_t n = G.nrows;
  v->rowptr = malloc(sizeof(int64_t) * (size_t)(n + 1));
  v->col = malloc(sizeof(int32_t) * (size_t)(2 * G.nnz + 1));
  v->val = malloc(sizeof(double) * (size_t)(2 * G.nnz + 1));
  int64_t q = 0;
  v->rowptr[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = G.rowptr[i]; p < G.rowptr[i + 1] && !(kind == 2 && i % 7 == 3); ++p) {
      const int32_t j = G.colidx[p];
      const uint32_t h = hash_ij(i, j);
      double a = G.values[p];
      if (kind == 1 && j != i) a = h % 11 == 0 ? 0.0 : a * (double)(1 + h % 4);
      if ((kind == 2 && j == i && i % 5 == 1) || (kind == 3 && j > i && h % 3 == 0)) continue;
      if (kind == 4 && h % 4 == 0 && (h >> 8) % 2) v->col[q] = j, v->val[q++] = a * 1e-3;
      v->col[q] = j, v->val[q++] = a;
      if (kind == 4 && h % 4 == 0 && !((h >> 8) % 2)) v->col[q] = j, v->val[q++] = a * 1e-3;
    }
    v->rowptr[i + 1] = q;
  }
  CHECK_OK(ctx, mispc_csr_wrap(MISPC_MEM_HOST, n, n, q, v->rowptr, v->col, v->val, &v->A));
  mispc_csr_free(ctx, &G);
}

static void free_variant(variant *v) {
  free(v->rowptr);
  free(v->col);
  free(v->val);
}

/* Host and device strength graphs of A (with and without its values) at
 * several thresholds are the same; returns the host graphs' total entries. */
static int64_t check_strength(const mispc_csr *A, int bs, const char *what) {
  const double thetas[] = {0, 0.02, 0.25};
  mispc_csr DA;
  int64_t total = 0;
  CHECK_OK(ctx, mispc_csr_copy(ctx, A, MISPC_MEM_DEVICE, &DA));
  for (int t = 0; t < 4; ++t) {
    mispc_csr H = *A, D = DA, S, DS;
    if (t == 3) H.values = D.values = NULL; /* a pattern */
    const double theta = t < 3 ? thetas[t] : 0.25;
    CHECK_OK(ctx, mispc_strength_graph(ctx, &H, theta, bs, &S));
    CHECK_OK(ctx, mispc_strength_graph(ctx, &D, theta, bs, &DS));
    CHECK_MSG(same_pattern(&S, &DS), "%s, bs %d, theta %g%s: device strength graph differs", what,
              bs, theta, t == 3 ? " (pattern)" : "");
    total += S.nnz;
    mispc_csr_free(ctx, &S);
    mispc_csr_free(ctx, &DS);
  }
  mispc_csr_free(ctx, &DA);
  return total;
}

/* The strength graph's per-row filter (sorted rows, no sort) against the host:
 * points and nodes of 2 and 3 rows, thresholds 0, 0.02, 0.25 and none (a
 * pattern), symmetric and unsymmetric values and patterns (the merge of the
 * transpose's extra entries), empty rows, missing diagonals, repeated
 * columns, rows longer than a warp. */
static void test_gpu_strength_filter(void) {
  const struct {
    const char *spec;
    int bs[2];
  } mats[] = {{"gen:laplace3d:20", {1, 2}},
              {"gen:elasticity3d:8", {1, 3}},
              {"gen:aniso2d:60:0.001:30", {1, 2}}};
  for (int m = 0; m < 3; ++m)
    for (int kind = 0; kind <= 4; ++kind) {
      variant v;
      make_variant(mats[m].spec, kind, &v);
      for (int b = 0; b < 2; ++b) {
        char what[96];
        snprintf(what, sizeof what, "%s variant %d", mats[m].spec, kind);
        const int64_t total = check_strength(&v.A, mats[m].bs[b], what);
        CHECK(total > 0);
      }
      free_variant(&v);
    }
}

/* Rows of thousands of entries (hubs), whose orphans the whole device
 * counts in chunks (graphs_cuda.cu, count_orphans_long): vertex 0 is joined
 * to every vertex both ways; vertex 1 to 2 .. n - 1, of which only the even
 * ones list 1 back (orphans in a long row), and every seventh vertex lists 2
 * without 2 listing it (orphans into a long row's transpose); a diagonal a
 * row, values of both signs. Host and device strength graphs agree at every
 * threshold and as a pattern, and the graph is symmetric (the merge added
 * the orphans' mirrors). */
static void test_gpu_strength_hub_rows(void) {
  const int32_t n = 7000;
  int64_t cap = 8 * (int64_t)n, q = 0;
  int64_t *rowptr = malloc(sizeof(int64_t) * (size_t)(n + 1));
  int32_t *col = malloc(sizeof(int32_t) * (size_t)cap);
  double *val = malloc(sizeof(double) * (size_t)cap);
  rowptr[0] = 0;
  for (int32_t i = 0; i < n; ++i) {
    for (int32_t j = 0; j < n; ++j) {
      int on = j == i || i == 0 || j == 0;         /* the diagonal, the symmetric hub 0 */
      on = on || (i == 1 && j >= 2);               /* hub 1's long row */
      on = on || (j == 1 && i >= 2 && i % 2 == 0); /* its mirror, even rows only */
      on = on || (j == 2 && i > 2 && i % 7 == 0);  /* into row 2, not mirrored */
      on = on || (i == 2 && j == 3) || (i == 3 && j == 2);
      if (!on) continue;
      col[q] = j;
      val[q++] = j == i ? 4.0 + i % 3 : ((i + j) % 5 == 0 ? 0.5 : -1.0) / (1.0 + (i + j) % 11);
    }
    rowptr[i + 1] = q;
  }
  CHECK(q <= cap);
  mispc_csr A;
  CHECK_OK(ctx, mispc_csr_wrap(MISPC_MEM_HOST, n, n, q, rowptr, col, val, &A));
  CHECK(rowptr[2] - rowptr[1] > 4096 && rowptr[1] - rowptr[0] > 4096); /* long rows */
  const int64_t total = check_strength(&A, 1, "hub rows");
  CHECK(total > 0);
  mispc_csr S;
  CHECK_OK(ctx, mispc_strength_graph(ctx, &A, 0, 1, &S));
  int64_t mirrored = 0; /* the graph is symmetric: every (i, j) has (j, i) */
  for (int32_t i = 0; i < n; ++i)
    for (int64_t p = S.rowptr[i]; p < S.rowptr[i + 1]; ++p) {
      const int32_t j = S.colidx[p];
      for (int64_t r = S.rowptr[j]; r < S.rowptr[j + 1]; ++r) mirrored += S.colidx[r] == i;
    }
  CHECK_MSG(mirrored == S.nnz, "hub rows: strength graph not symmetric (%lld of %lld)",
            (long long)mirrored, (long long)S.nnz);
  mispc_csr_free(ctx, &S);
  free(rowptr);
  free(col);
  free(val);
}

/* Invalid indices: the device strength graph checks them in its first pass
 * over A (no pass of its own); it must fail as the host does, with the
 * host's status and message, on every path (nodes' first rows: bs 3 without
 * values; the filter by rows: bs 1; by nodes: bs 3 with values). */
static void test_gpu_strength_bad_indices(void) {
  const struct {
    int bs;
    double theta;
  } paths[] = {{3, 0.0}, {1, 0.0}, {1, 0.1}, {3, 0.1}};
  for (int k = 0; k < 4; ++k)
    for (int bad = 0; bad < 5; ++bad) {
      mispc_csr A, DA, S, DS;
      CHECK_OK(ctx, mispc_generate(ctx, "gen:elasticity3d:4", 5, &A));
      const int64_t n = A.nrows, r = n / 2 + 1; /* the second row of a node */
      const int64_t p = A.rowptr[r] + 2;
      if (bad == 0) A.colidx[p] = (int32_t)(n + 5); /* column out of range */
      if (bad == 1) A.colidx[p] = -3;
      if (bad == 2) A.rowptr[r] = A.rowptr[r + 1] + 1;                /* offsets not monotone */
      if (bad == 3) A.rowptr[n] = A.nnz - 1;                          /* not ending at nnz */
      if (bad == 4) A.colidx[A.rowptr[r - 1] + 1] = (int32_t)(n + 1); /* a node's first row */
      CHECK_OK(ctx, mispc_csr_copy(ctx, &A, MISPC_MEM_DEVICE, &DA));
      const mispc_status hs = mispc_strength_graph(ctx, &A, paths[k].theta, paths[k].bs, &S);
      char hmsg[512];
      snprintf(hmsg, sizeof hmsg, "%s", mispc_context_error(ctx));
      const mispc_status ds = mispc_strength_graph(ctx, &DA, paths[k].theta, paths[k].bs, &DS);
      CHECK_MSG(hs != MISPC_SUCCESS && ds == hs && !strcmp(hmsg, mispc_context_error(ctx)),
                "bs %d theta %g corruption %d: host %s (%s), device %s (%s)", paths[k].bs,
                paths[k].theta, bad, mispc_strerror(hs), hmsg, mispc_strerror(ds),
                mispc_context_error(ctx));
      if (!hs) mispc_csr_free(ctx, &S);
      if (!ds) mispc_csr_free(ctx, &DS);
      mispc_csr_free(ctx, &DA);
      mispc_csr_free(ctx, &A);
    }
}

static void test_gpu_aggregation_equals_host(void) {
  check_spec("gen:laplace3d:40", 0, 1);
  check_spec("gen:elasticity3d:12", 0, 3);
  check_spec("gen:aniso2d:200:0.001:30", 0.08, 1);
  check_spec("gen:kron:14", 0, 1);
  check_spec("gen:random:100000:6", 0, 1);
  check_spec("gen:roadgrid:300:0.3", 0, 1);
  check_spec("gen:path:100000", 0, 1);
}

/* Phase 3's leftovers with rows of more than 32 entries take the
 * shared-memory hash count up to agg_hash_row entries and the sorted labels
 * above it: every split (all sorted, mixed, the default) gives the host's
 * aggregates. The graphs have such leftovers (kron:12 199, kron:14 785,
 * bcsstk13 227 on the host). */
static void test_gpu_phase3_paths(void) {
  const char *specs[] = {"gen:kron:12", "gen:kron:14", MISPC_TEST_DATA "/bcsstk13.mtx",
                         "gen:elasticity3d:6"};
  const int rows[] = {0, 32, 48, 120, 700};
  for (int g = 0; g < 4; ++g) {
    mispc_csr A, S, DS;
    CHECK_OK(ctx, strncmp(specs[g], "gen:", 4) ? mispc_load(ctx, specs[g], &A)
                                               : mispc_generate(ctx, specs[g], 5, &A));
    CHECK_OK(ctx, mispc_strength_graph(ctx, &A, 0, 1, &S));
    CHECK_OK(ctx, mispc_csr_copy(ctx, &S, MISPC_MEM_DEVICE, &DS));
    mispc_agg_options o;
    mispc_agg_options_default(&o);
    mispc_aggregates ha;
    CHECK_OK(ctx, mispc_aggregate(ctx, &S, &o, &ha));
    for (int r = 0; r < 5; ++r) {
      mispc_tuning t = {0};
      t.agg_hash_row = rows[r];
      CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
      mispc_aggregates da;
      CHECK_OK(ctx, mispc_aggregate(ctx, &DS, &o, &da));
      CHECK_MSG(same_aggs(&ha, &da), "%s, agg_hash_row %d: device aggregates differ", specs[g],
                rows[r]);
      CHECK_OK(ctx, mispc_verify_aggregation(ctx, &DS, &da));
      mispc_aggregates_free(ctx, &da);
      mispc_context_set_tuning_(ctx, NULL);
    }
    mispc_aggregates_free(ctx, &ha);
    mispc_csr_free(ctx, &DS);
    mispc_csr_free(ctx, &S);
    mispc_csr_free(ctx, &A);
  }
}

/* Aggregation with MIS-2's cover priority (fewer, larger aggregates): the
 * host's labels, both algorithms. */
static void test_gpu_aggregation_cover(void) {
  const char *specs[] = {"gen:grid3d27:12", "gen:kron:12", "gen:elasticity3d:8"};
  for (int g = 0; g < 3; ++g) {
    mispc_csr A, S, DS;
    CHECK_OK(ctx, mispc_generate(ctx, specs[g], 5, &A));
    CHECK_OK(ctx, mispc_strength_graph(ctx, &A, 0, g == 2 ? 3 : 1, &S));
    CHECK_OK(ctx, mispc_csr_copy(ctx, &S, MISPC_MEM_DEVICE, &DS));
    for (int algo = 0; algo <= 1; ++algo) {
      mispc_agg_options o;
      mispc_agg_options_default(&o);
      o.algo = algo ? MISPC_AGG_MIS2BASIC : MISPC_AGG_MIS2AGG;
      o.mis.priority = MISPC_PRIORITY_COVER;
      mispc_aggregates ha, da;
      CHECK_OK(ctx, mispc_aggregate(ctx, &S, &o, &ha));
      CHECK_OK(ctx, mispc_aggregate(ctx, &DS, &o, &da));
      CHECK_MSG(same_aggs(&ha, &da), "%s algo %d: cover aggregates differ", specs[g], algo);
      CHECK_OK(ctx, mispc_verify_aggregation(ctx, &DS, &da));
      mispc_aggregates_free(ctx, &ha);
      mispc_aggregates_free(ctx, &da);
    }
    mispc_csr_free(ctx, &DS);
    mispc_csr_free(ctx, &S);
    mispc_csr_free(ctx, &A);
  }
}

/* Isolated vertices (one with a self loop) and a graph of nothing else:
 * MISPC_ISOLATED_COLLECT on the GPU gives the host's labels and roots. */
static void test_gpu_isolated_collected(void) {
  const int32_t I[] = {1, 2, 3, 7, 6}, J[] = {2, 3, 4, 7, 8};
  mispc_csr G[2], D;
  CHECK_OK(ctx, mispc_csr_from_coo(ctx, 9, 9, 5, I, J, NULL, MISPC_COO_SYMMETRIC, &G[0]));
  CHECK_OK(ctx, mispc_csr_from_coo(ctx, 5, 5, 0, NULL, NULL, NULL, 0, &G[1]));
  for (int g = 0; g < 2; ++g) {
    CHECK_OK(ctx, mispc_csr_copy(ctx, &G[g], MISPC_MEM_DEVICE, &D));
    for (int algo = 0; algo <= 1; ++algo) {
      mispc_agg_options o;
      mispc_agg_options_default(&o);
      o.algo = algo ? MISPC_AGG_MIS2BASIC : MISPC_AGG_MIS2AGG;
      o.isolated = MISPC_ISOLATED_COLLECT;
      mispc_aggregates ha, da;
      CHECK_OK(ctx, mispc_aggregate(ctx, &G[g], &o, &ha));
      CHECK_OK(ctx, mispc_aggregate(ctx, &D, &o, &da));
      CHECK_MSG(same_aggs(&ha, &da), "graph %d algo %d: device aggregates differ", g, algo);
      CHECK(ha.root[ha.naggs - 1] == 0 && (g == 1 ? ha.naggs == 1 : ha.agg[5] == ha.agg[7]));
      CHECK_OK(ctx, mispc_verify_aggregation(ctx, &D, &da));
      mispc_aggregates_free(ctx, &ha);
      mispc_aggregates_free(ctx, &da);
    }
    mispc_csr_free(ctx, &D);
    mispc_csr_free(ctx, &G[g]);
  }
}

/* max_size on the GPU: the host's pieces, roots and parents, bit for bit,
 * with and without the isolated vertices collected; the result verifies. */
static void test_gpu_max_size_splits(void) {
  const char *specs[] = {"gen:kron:14", "gen:laplace3d:20"};
  const int64_t bounds[] = {2, 16, 64};
  for (int g = 0; g < 2; ++g) {
    mispc_csr G, D;
    CHECK_OK(ctx, mispc_generate(ctx, specs[g], 5, &G));
    CHECK_OK(ctx, mispc_csr_copy(ctx, &G, MISPC_MEM_DEVICE, &D));
    for (int v = 0; v < 12; ++v) {
      mispc_agg_options o;
      mispc_agg_options_default(&o);
      o.algo = v & 1 ? MISPC_AGG_MIS2BASIC : MISPC_AGG_MIS2AGG;
      o.isolated = v & 2 ? MISPC_ISOLATED_COLLECT : MISPC_ISOLATED_SINGLETONS;
      o.max_size = bounds[v >> 2];
      mispc_aggregates ha, da;
      CHECK_OK(ctx, mispc_aggregate(ctx, &G, &o, &ha));
      CHECK_OK(ctx, mispc_aggregate(ctx, &D, &o, &da));
      CHECK_MSG(same_aggs(&ha, &da), "%s variant %d: device pieces differ", specs[g], v);
      CHECK_OK(ctx, mispc_verify_aggregation(ctx, &D, &da));
      mispc_aggregates_free(ctx, &ha);
      mispc_aggregates_free(ctx, &da);
    }
    mispc_csr_free(ctx, &G);
    mispc_csr_free(ctx, &D);
  }
}

/* Small graphs (1k-64k vertices), where the GPU aggregation keeps its counts
 * on the device and reads them once (docs/AGGREGATION.md, "Host round
 * trips"): both algorithms, isolated vertices kept or collected, with and
 * without max_size, equal the host's, MIS-2 rounds included; graphs with
 * nothing left after phase 1 (isolated vertices, disjoint edges) report no
 * phase-2 rounds, as the host that skips phase 2. */
static void check_small(const mispc_csr *S, const char *what) {
  mispc_csr DS;
  CHECK_OK(ctx, mispc_csr_copy(ctx, S, MISPC_MEM_DEVICE, &DS));
  for (int v = 0; v < 8; ++v) {
    mispc_agg_options o;
    mispc_agg_options_default(&o);
    o.algo = v & 1 ? MISPC_AGG_MIS2BASIC : MISPC_AGG_MIS2AGG;
    o.isolated = v & 2 ? MISPC_ISOLATED_COLLECT : MISPC_ISOLATED_SINGLETONS;
    o.max_size = v & 4 ? 16 : 0;
    mispc_aggregates ha, da;
    CHECK_OK(ctx, mispc_aggregate(ctx, S, &o, &ha));
    CHECK_OK(ctx, mispc_aggregate(ctx, &DS, &o, &da));
    CHECK_MSG(same_aggs(&ha, &da), "%s variant %d: device aggregates differ", what, v);
    CHECK_MSG(!memcmp(ha.mis_rounds, da.mis_rounds, sizeof ha.mis_rounds),
              "%s variant %d: MIS-2 rounds host %d + %d, device %d + %d", what, v, ha.mis_rounds[0],
              ha.mis_rounds[1], da.mis_rounds[0], da.mis_rounds[1]);
    CHECK_OK(ctx, mispc_verify_aggregation(ctx, &DS, &da));
    mispc_aggregates_free(ctx, &ha);
    mispc_aggregates_free(ctx, &da);
  }
  mispc_csr_free(ctx, &DS);
}

static void test_gpu_small_graphs(void) {
  const char *specs[] = {"gen:laplace2d:32",
                         "gen:kron:12",
                         "gen:random:16000:8",
                         "gen:laplace3d:20",
                         MISPC_TEST_DATA "/bcsstk13.mtx",
                         MISPC_TEST_DATA "/fe_4elt2.metis.graph"};
  for (int g = 0; g < 6; ++g) {
    mispc_csr A, S;
    CHECK_OK(ctx, strncmp(specs[g], "gen:", 4) ? mispc_load(ctx, specs[g], &A)
                                               : mispc_generate(ctx, specs[g], 5, &A));
    CHECK_OK(ctx, mispc_strength_graph(ctx, &A, 0, 1, &S));
    check_small(&S, specs[g]);
    mispc_csr_free(ctx, &S);
    mispc_csr_free(ctx, &A);
  }
  /* 5 isolated vertices and 20 disjoint edges (phase 1 covers them whole);
   * a star of 40 */
  int32_t I[39], J[39];
  mispc_csr G[3];
  CHECK_OK(ctx, mispc_csr_from_coo(ctx, 5, 5, 0, NULL, NULL, NULL, 0, &G[0]));
  for (int k = 0; k < 20; ++k) I[k] = 2 * k, J[k] = 2 * k + 1;
  CHECK_OK(ctx, mispc_csr_from_coo(ctx, 40, 40, 20, I, J, NULL, MISPC_COO_SYMMETRIC, &G[1]));
  for (int k = 0; k < 39; ++k) I[k] = 0, J[k] = k + 1;
  CHECK_OK(ctx, mispc_csr_from_coo(ctx, 40, 40, 39, I, J, NULL, MISPC_COO_SYMMETRIC, &G[2]));
  const char *names[] = {"isolated vertices", "disjoint edges", "star"};
  for (int g = 0; g < 3; ++g) {
    check_small(&G[g], names[g]);
    mispc_csr_free(ctx, &G[g]);
  }
}

/* mispc_strength_auto on the GPU: theta and weak_max bit for bit the host's,
 * on matrices with values (anisotropic, isotropic, elasticity, a real one)
 * and on a pattern (0 and -1 on both); and what each says of its matrix:
 * theta > 0 with values, no coupling at or below it for Laplace 3D (weak_max
 * < 0), all of them at most 0.1 theta for the anisotropic ones, more for
 * Elasticity 3D. */
static void test_gpu_strength_auto(void) {
  enum { ANY, ISOTROPIC, ANISOTROPIC, ELASTICITY, PATTERN };
  const struct {
    const char *spec;
    int expect;
  } mats[] = {{"gen:aniso2d:40:0.001", ANISOTROPIC},  {"gen:aniso3d:12:0.01", ANISOTROPIC},
              {"gen:laplace3d:10", ISOTROPIC},        {"gen:elasticity3d:5", ELASTICITY},
              {MISPC_TEST_DATA "/bcsstk13.mtx", ANY}, {"gen:kron:10", PATTERN}};
  for (size_t m = 0; m < sizeof mats / sizeof *mats; ++m) {
    const char *spec = mats[m].spec;
    mispc_csr A, DA;
    CHECK_OK(ctx, strncmp(spec, "gen:", 4) ? mispc_load(ctx, spec, &A)
                                           : mispc_generate(ctx, spec, 5, &A));
    CHECK_MSG(!A.values == (mats[m].expect == PATTERN), "%s: values %s", spec,
              A.values ? "present" : "missing");
    CHECK_OK(ctx, mispc_csr_copy(ctx, &A, MISPC_MEM_DEVICE, &DA));
    double th = -2, w = -2, dth = -3, dw = -3;
    CHECK_OK(ctx, mispc_strength_auto(ctx, &A, &th, &w));
    CHECK_OK(ctx, mispc_strength_auto(ctx, &DA, &dth, &dw));
    CHECK_MSG(!memcmp(&th, &dth, sizeof th) && !memcmp(&w, &dw, sizeof w),
              "%s: host theta %.17g weak_max %.17g, GPU %.17g %.17g", spec, th, w, dth, dw);
    switch (mats[m].expect) {
    case PATTERN:
      CHECK_MSG(th == 0 && w == -1, "%s (pattern): theta %g weak_max %g, want 0 and -1", spec, th,
                w);
      break;
    case ISOTROPIC:
      CHECK_MSG(th > 0 && w < 0, "%s: theta %g weak_max %g, want > 0 and < 0", spec, th, w);
      break;
    case ANISOTROPIC:
      CHECK_MSG(th > 0 && w >= 0 && w <= 0.1 * th,
                "%s: theta %g weak_max %g, want > 0 and in [0, 0.1 theta]", spec, th, w);
      break;
    case ELASTICITY:
      CHECK_MSG(th > 0 && w > 0.1 * th, "%s: theta %g weak_max %g, want > 0 and > 0.1 theta", spec,
                th, w);
      break;
    default:
      CHECK_MSG(th > 0, "%s: theta %g, want > 0", spec, th);
    }
    printf("  %-40s theta %.6g weak_max %.6g\n", spec, th, w);
    mispc_csr_free(ctx, &A);
    mispc_csr_free(ctx, &DA);
  }
}

int main(void) {
  test_require_gpu_or_skip();
  if (mispc_context_create(&ctx)) return 1;
  RUN_TEST(test_gpu_aggregation_equals_host);
  RUN_TEST(test_gpu_graphs_unsorted_rows);
  RUN_TEST(test_gpu_strength_uniform_blocks);
  RUN_TEST(test_gpu_strength_filter);
  RUN_TEST(test_gpu_strength_hub_rows);
  RUN_TEST(test_gpu_strength_bad_indices);
  RUN_TEST(test_gpu_phase3_paths);
  RUN_TEST(test_gpu_aggregation_cover);
  RUN_TEST(test_gpu_isolated_collected);
  RUN_TEST(test_gpu_max_size_splits);
  RUN_TEST(test_gpu_small_graphs);
  RUN_TEST(test_gpu_strength_auto);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
