/* Error paths shared by the whole API (issue 33): the overflow-safe size
 * helper behind every allocation, the rule for a NULL context in every public
 * call, the thread-count cap and out-of-range enum options. */
#include <stdint.h>
#include <unistd.h>

#include "../src/internal.h"
#include "test_util.h"

static mispc_context *ctx;
static mispc_csr G;            /* a valid host graph (gen:laplace2d:6, 36 vertices) */
static uint8_t set[64];        /* membership output */
static unsigned char out[512]; /* every output struct points here; must stay untouched */
#define OUT(T) ((T *)(void *)out)

static void test_size_mul(void) {
  size_t b = 1;
  CHECK_STATUS(ctx, mispc_size_mul(ctx, 10, 8, &b, "x"), MISPC_SUCCESS);
  CHECK(b == 80);
  CHECK_STATUS(ctx, mispc_size_mul(ctx, 0, 8, &b, "x"), MISPC_SUCCESS);
  CHECK(b == 0);
  CHECK_STATUS(ctx, mispc_size_mul(ctx, (int64_t)1 << 62, 8, &b, "CSR values"), MISPC_ERR_OVERFLOW);
  CHECK(b == 0);
  CHECK(strstr(mispc_context_error(ctx), "CSR values") != NULL);
  CHECK_STATUS(ctx, mispc_size_mul(ctx, -1, 4, &b, "x"), MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_size_mul(ctx, INT64_MAX, 1, &b, "x"), MISPC_SUCCESS);
  CHECK(mispc_host_alloc_n(ctx, (int64_t)1 << 62, 4, "huge") == NULL);

  /* The reproducer: nnz = 2^62 used to allocate 0 bytes and succeed. */
  mispc_csr A;
  CHECK_STATUS(ctx, mispc_csr_alloc(ctx, MISPC_MEM_HOST, 10, 10, (int64_t)1 << 62, 1, &A),
               MISPC_ERR_OVERFLOW);
  CHECK(A.rowptr == NULL && A.colidx == NULL && A.values == NULL);
  CHECK(strstr(mispc_context_error(ctx), "overflows") != NULL);
  CHECK_STATUS(ctx, mispc_csr_alloc(ctx, MISPC_MEM_HOST, 10, 10, (int64_t)1 << 62, 0, &A),
               MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_csr_alloc(ctx, MISPC_MEM_HOST, INT64_MAX, 10, 1, 0, &A),
               MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_csr_alloc(ctx, MISPC_MEM_HOST, INT64_MAX / 4, 10, 1, 0, &A),
               MISPC_ERR_OVERFLOW);
  CHECK_STATUS(ctx, mispc_csr_alloc(ctx, MISPC_MEM_HOST, 3, 3, 5, 1, &A), MISPC_SUCCESS);
  mispc_csr_free(ctx, &A);
}

/* ---- NULL context: one call per public function that takes a context ---- */
typedef struct null_case {
  const char *name;
  mispc_status (*call)(void);
} null_case;

static double vec[64];
static mispc_aggregates aggs_in;
static mispc_coloring color_in;

#define NC(name, expr)                                                                             \
  static mispc_status nc_##name(void) {                                                            \
    return expr;                                                                                   \
  }
NC(set_stream, mispc_context_set_stream(NULL, NULL))
NC(get_stream, mispc_context_get_stream(NULL, (void **)out))
NC(set_verbosity, mispc_context_set_verbosity(NULL, 1))
NC(set_logger, mispc_context_set_logger(NULL, NULL, NULL))
NC(set_num_threads, mispc_context_set_num_threads(NULL, 1))
NC(set_read_allowance, mispc_context_set_read_allowance(NULL, 1))
NC(malloc_, mispc_malloc(NULL, MISPC_MEM_HOST, 8, (void **)out))
NC(memcpy_, mispc_memcpy(NULL, out, MISPC_MEM_HOST, vec, MISPC_MEM_HOST, 8))
NC(device_peak, mispc_context_device_peak(NULL, (int64_t *)out))
NC(csr_alloc, mispc_csr_alloc(NULL, MISPC_MEM_HOST, 2, 2, 2, 1, OUT(mispc_csr)))
NC(widen, mispc_widen_int32(NULL, MISPC_MEM_HOST, 2, (const int32_t *)vec, (int64_t *)out))
NC(csr_copy, mispc_csr_copy(NULL, &G, MISPC_MEM_HOST, OUT(mispc_csr)))
NC(csr_check, mispc_csr_check(NULL, &G, MISPC_CHECK_GRAPH))
NC(csr_stats, mispc_csr_get_stats(NULL, &G, OUT(mispc_csr_stats)))
NC(symmetrize, mispc_csr_symmetrize(NULL, &G, 0, OUT(mispc_csr)))
NC(sort_rows, mispc_csr_sort_rows(NULL, OUT(mispc_csr)))
NC(read_mtx, mispc_read_mtx(NULL, MISPC_TEST_DATA "/bcsstk13.mtx", OUT(mispc_csr)))
NC(write_mtx, mispc_write_mtx(NULL, MISPC_TEST_TMP "/null_ctx.mtx", &G))
NC(read_metis, mispc_read_metis(NULL, MISPC_TEST_DATA "/fe_4elt2.metis.graph", OUT(mispc_csr)))
NC(load, mispc_load(NULL, "gen:path:4", OUT(mispc_csr)))
NC(gen_laplace2d, mispc_gen_laplace2d(NULL, 3, OUT(mispc_csr)))
NC(gen_laplace3d, mispc_gen_laplace3d(NULL, 3, OUT(mispc_csr)))
NC(gen_elasticity3d, mispc_gen_elasticity3d(NULL, 2, OUT(mispc_csr)))
NC(gen_aniso2d, mispc_gen_aniso2d(NULL, 3, 0.1, 0, OUT(mispc_csr)))
NC(gen_aniso3d, mispc_gen_aniso3d(NULL, 3, 0.1, OUT(mispc_csr)))
NC(gen_kronecker, mispc_gen_kronecker(NULL, 4, 4, 0, OUT(mispc_csr)))
NC(gen_random, mispc_gen_random(NULL, 10, 3, 0, OUT(mispc_csr)))
NC(gen_path, mispc_gen_path(NULL, 4, OUT(mispc_csr)))
NC(gen_roadgrid, mispc_gen_roadgrid(NULL, 4, 0.3, 0, OUT(mispc_csr)))
NC(gen_grid2d, mispc_gen_grid2d(NULL, 3, OUT(mispc_csr)))
NC(gen_grid3d27, mispc_gen_grid3d27(NULL, 3, OUT(mispc_csr)))
NC(generate, mispc_generate(NULL, "gen:path:4", 0, OUT(mispc_csr)))
NC(laplacian, mispc_laplacian_from_graph(NULL, &G, 0, OUT(mispc_csr)))
NC(mis1, mispc_mis1(NULL, &G, NULL, set, OUT(mispc_mis_result)))
NC(mis2, mispc_mis2(NULL, &G, NULL, set, OUT(mispc_mis_result)))
NC(mis1_subset, mispc_mis1_subset(NULL, &G, NULL, set, set, OUT(mispc_mis_result)))
NC(mis2_subset, mispc_mis2_subset(NULL, &G, NULL, set, set, OUT(mispc_mis_result)))
NC(mis_to_list, mispc_mis_to_list(NULL, &G, set, (int32_t *)out, (int64_t *)vec))
NC(verify_mis, mispc_verify_mis(NULL, &G, 1, set))
NC(strength, mispc_strength_graph(NULL, &G, 0, 1, OUT(mispc_csr)))
NC(aggregate, mispc_aggregate(NULL, &G, NULL, OUT(mispc_aggregates)))
NC(aggs_stats, mispc_aggregates_stats(NULL, &aggs_in, OUT(mispc_agg_stats)))
NC(verify_agg, mispc_verify_aggregation(NULL, &G, &aggs_in))
NC(coarse_graph, mispc_coarse_graph(NULL, &G, &aggs_in, OUT(mispc_csr)))
NC(tentative, mispc_tentative_prolongator(NULL, &aggs_in, 1, 1, NULL, OUT(mispc_csr), vec))
NC(rbm, mispc_rigid_body_modes(NULL, 2, vec, (double *)out))
NC(color, mispc_color(NULL, &G, NULL, OUT(mispc_coloring)))
NC(verify_coloring, mispc_verify_coloring(NULL, &G, &color_in))
NC(gs_create, mispc_gs_create(NULL, NULL, (mispc_gs **)out))
NC(gs_symbolic, mispc_gs_symbolic(NULL, (mispc_gs *)out, &G))
NC(gs_numeric, mispc_gs_numeric(NULL, (mispc_gs *)out, &G))
NC(gs_apply, mispc_gs_apply(NULL, (mispc_gs *)out, &G, vec, vec, 0))

static void test_null_context(void) {
  static const null_case cases[] = {
      {"mispc_context_set_stream", nc_set_stream},
      {"mispc_context_get_stream", nc_get_stream},
      {"mispc_context_set_verbosity", nc_set_verbosity},
      {"mispc_context_set_logger", nc_set_logger},
      {"mispc_context_set_num_threads", nc_set_num_threads},
      {"mispc_context_set_read_allowance", nc_set_read_allowance},
      {"mispc_malloc", nc_malloc_},
      {"mispc_memcpy", nc_memcpy_},
      {"mispc_context_device_peak", nc_device_peak},
      {"mispc_csr_alloc", nc_csr_alloc},
      {"mispc_widen_int32", nc_widen},
      {"mispc_csr_copy", nc_csr_copy},
      {"mispc_csr_check", nc_csr_check},
      {"mispc_csr_get_stats", nc_csr_stats},
      {"mispc_csr_symmetrize", nc_symmetrize},
      {"mispc_csr_sort_rows", nc_sort_rows},
      {"mispc_read_mtx", nc_read_mtx},
      {"mispc_write_mtx", nc_write_mtx},
      {"mispc_read_metis", nc_read_metis},
      {"mispc_load", nc_load},
      {"mispc_gen_laplace2d", nc_gen_laplace2d},
      {"mispc_gen_laplace3d", nc_gen_laplace3d},
      {"mispc_gen_elasticity3d", nc_gen_elasticity3d},
      {"mispc_gen_aniso2d", nc_gen_aniso2d},
      {"mispc_gen_aniso3d", nc_gen_aniso3d},
      {"mispc_gen_kronecker", nc_gen_kronecker},
      {"mispc_gen_random", nc_gen_random},
      {"mispc_gen_path", nc_gen_path},
      {"mispc_gen_roadgrid", nc_gen_roadgrid},
      {"mispc_gen_grid2d", nc_gen_grid2d},
      {"mispc_gen_grid3d27", nc_gen_grid3d27},
      {"mispc_generate", nc_generate},
      {"mispc_laplacian_from_graph", nc_laplacian},
      {"mispc_mis1", nc_mis1},
      {"mispc_mis2", nc_mis2},
      {"mispc_mis1_subset", nc_mis1_subset},
      {"mispc_mis2_subset", nc_mis2_subset},
      {"mispc_mis_to_list", nc_mis_to_list},
      {"mispc_verify_mis", nc_verify_mis},
      {"mispc_strength_graph", nc_strength},
      {"mispc_aggregate", nc_aggregate},
      {"mispc_aggregates_stats", nc_aggs_stats},
      {"mispc_verify_aggregation", nc_verify_agg},
      {"mispc_coarse_graph", nc_coarse_graph},
      {"mispc_tentative_prolongator", nc_tentative},
      {"mispc_rigid_body_modes", nc_rbm},
      {"mispc_color", nc_color},
      {"mispc_verify_coloring", nc_verify_coloring},
      {"mispc_gs_create", nc_gs_create},
      {"mispc_gs_symbolic", nc_gs_symbolic},
      {"mispc_gs_numeric", nc_gs_numeric},
      {"mispc_gs_apply", nc_gs_apply},
  };
  unsigned char before[sizeof out];
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    memset(out, 0xA5, sizeof out);
    memset(set, 0x5A, sizeof set);
    memcpy(before, out, sizeof out);
    mispc_status s = cases[k].call();
    CHECK_MSG(s == MISPC_ERR_INVALID_ARG, "%s(NULL, ...) returned %s", cases[k].name,
              mispc_strerror(s));
    CHECK_MSG(!memcmp(out, before, sizeof out), "%s(NULL, ...) wrote its output", cases[k].name);
    CHECK_MSG(set[0] == 0x5A && set[63] == 0x5A, "%s(NULL, ...) wrote the membership",
              cases[k].name);
  }
  /* destroy(NULL) is a no-op like free(NULL); the free calls and getters do
   * nothing with a NULL context (no crash, nothing freed or written). */
  CHECK(mispc_context_destroy(NULL) == MISPC_SUCCESS);
  mispc_csr_free(NULL, OUT(mispc_csr));
  mispc_aggregates_free(NULL, OUT(mispc_aggregates));
  mispc_coloring_free(NULL, OUT(mispc_coloring));
  mispc_gs_destroy(NULL, (mispc_gs *)out);
  mispc_free(NULL, MISPC_MEM_HOST, out);
  mispc_context_clear_error(NULL);
  CHECK(!memcmp(out, before, sizeof out));
  CHECK(mispc_context_verbosity(NULL) == 0 && mispc_context_num_threads(NULL) == 0);
  CHECK(!strcmp(mispc_context_error(NULL), ""));
}

static void test_num_threads(void) {
  CHECK_STATUS(ctx, mispc_context_set_num_threads(ctx, 3), MISPC_SUCCESS);
  static const int bad[] = {-1, -100000, MISPC_MAX_THREADS + 1, 100000, INT32_MAX};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    CHECK_STATUS(ctx, mispc_context_set_num_threads(ctx, bad[k]), MISPC_ERR_INVALID_ARG);
    CHECK(strstr(mispc_context_error(ctx), "number of threads") != NULL);
    CHECK(mispc_context_num_threads(ctx) == 3); /* unchanged */
  }
  CHECK_STATUS(ctx, mispc_context_set_num_threads(ctx, MISPC_MAX_THREADS), MISPC_SUCCESS);
  CHECK_STATUS(ctx, mispc_context_set_num_threads(ctx, 0), MISPC_SUCCESS);
  CHECK(mispc_context_num_threads(ctx) == 0);
}

static void test_priority_range(void) {
  mispc_mis_options o;
  mispc_mis_options_default(&o);
  mispc_mis_result r;
  static const int bad[] = {99, -1, MISPC_PRIORITY_COVER + 1};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
    o.priority = (mispc_priority)bad[k];
    memset(set, 0x5A, sizeof set);
    CHECK_STATUS(ctx, mispc_mis1(ctx, &G, &o, set, &r), MISPC_ERR_INVALID_ARG);
    CHECK(strstr(mispc_context_error(ctx), "priority") != NULL);
    CHECK(set[0] == 0x5A);
    CHECK_STATUS(ctx, mispc_mis2(ctx, &G, &o, set, &r), MISPC_ERR_INVALID_ARG);
  }
  o.priority = MISPC_PRIORITY_HASH;
  CHECK_STATUS(ctx, mispc_mis1(ctx, &G, &o, set, &r), MISPC_SUCCESS);
}

/* gen:grid3d27:1000 (10^9 rows, 2.6e10 entries, ~120 GB) fails before any
 * allocation on a machine with less memory, instead of taking 8 GB first. */
static void test_generator_memory(void) {
  const double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
  if (have > 100e9) return; /* the request would fit: not a test of the check */
  mispc_csr A;
  const double t0 = mispc_wtime();
  CHECK_STATUS(ctx, mispc_generate(ctx, "gen:grid3d27:1000", 0, &A), MISPC_ERR_ALLOC);
  CHECK(strstr(mispc_context_error(ctx), "GB of memory of this machine") != NULL);
  CHECK(mispc_wtime() - t0 < 1.0);
  CHECK(A.rowptr == NULL);
}

/* The pattern-symmetry check (src/csr_check.c: one pass of row cursors,
 * then the search for the message) against a dense reference on random
 * 12-vertex patterns: symmetric ones pass, and with one entry removed the
 * error names the lowest row holding an entry without its mirror. */
static void test_symmetry_check(void) {
  enum { N = 12 };
  uint64_t r = 12345;
  for (int trial = 0; trial < 3000; ++trial) {
    unsigned char a[N][N] = {{0}};
    for (int i = 0; i < N; ++i)
      for (int j = i; j < N; ++j) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        if ((r >> 33) % 4 == 0) a[i][j] = a[j][i] = 1;
      }
    int drop_i = -1, drop_j = -1;
    if (trial % 2) { /* remove one entry off the diagonal, if any */
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      const int start = (int)((r >> 33) % (N * N));
      for (int k = 0; k < N * N && drop_i < 0; ++k) {
        const int i = (start + k) % (N * N) / N, j = (start + k) % N;
        if (i != j && a[i][j]) a[i][j] = 0, drop_i = i, drop_j = j;
      }
    }
    int64_t nnz = 0;
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) nnz += a[i][j];
    mispc_csr A;
    CHECK_OK(ctx, mispc_csr_alloc(ctx, MISPC_MEM_HOST, N, N, nnz, 0, &A));
    A.rowptr[0] = 0;
    for (int i = 0, p = 0; i < N; ++i) {
      for (int j = 0; j < N; ++j)
        if (a[i][j]) A.colidx[p++] = j;
      A.rowptr[i + 1] = p;
    }
    const mispc_status s = mispc_csr_check(ctx, &A, MISPC_CHECK_SORTED | MISPC_CHECK_SYMMETRIC);
    if (drop_i < 0) {
      CHECK_MSG(s == MISPC_SUCCESS, "trial %d: a symmetric pattern fails: %s", trial,
                mispc_context_error(ctx));
    } else { /* (drop_j, drop_i) lost its mirror: row drop_j is the one */
      char want[64];
      snprintf(want, sizeof want, "entry (%d, %d) has no", drop_j, drop_i);
      CHECK_MSG(s == MISPC_ERR_UNSYMMETRIC && strstr(mispc_context_error(ctx), want),
                "trial %d: removed (%d, %d): status %d, '%s'", trial, drop_i, drop_j, (int)s,
                mispc_context_error(ctx));
    }
    mispc_csr_free(ctx, &A);
  }
}

int main(void) {
  CHECK_OK(NULL, mispc_context_create(&ctx));
  CHECK_OK(ctx, mispc_gen_laplace2d(ctx, 6, &G));
  CHECK_OK(ctx, mispc_aggregate(ctx, &G, NULL, &aggs_in));
  CHECK_OK(ctx, mispc_color(ctx, &G, NULL, &color_in));
  RUN_TEST(test_size_mul);
  RUN_TEST(test_null_context);
  RUN_TEST(test_num_threads);
  RUN_TEST(test_priority_range);
  RUN_TEST(test_generator_memory);
  RUN_TEST(test_symmetry_check);
  mispc_coloring_free(ctx, &color_in);
  mispc_aggregates_free(ctx, &aggs_in);
  mispc_csr_free(ctx, &G);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
