/* GPU core: host <-> device copies and device-side validation (same verdicts
 * and messages as the host). Skips without a GPU. */
#include "test_util.h"

static mispc_context *ctx;

static void test_copy_round_trip(void) {
  const char *specs[] = {"gen:laplace3d:20", "gen:kron:12", "gen:elasticity3d:4", "gen:path:1"};
  for (size_t i = 0; i < sizeof specs / sizeof *specs; ++i) {
    mispc_csr H, D, D2, B;
    CHECK_OK(ctx, mispc_generate(ctx, specs[i], 1, &H));
    CHECK_OK(ctx, mispc_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &D));
    CHECK(D.mem == MISPC_MEM_DEVICE && D.owned);
    CHECK_OK(ctx, mispc_csr_copy(ctx, &D, MISPC_MEM_DEVICE, &D2)); /* device -> device */
    CHECK_OK(ctx, mispc_csr_copy(ctx, &D2, MISPC_MEM_HOST, &B));
    CHECK_MSG(csr_same_bits(&H, &B), "%s: round trip differs", specs[i]);
    mispc_csr_stats sh, sd;
    CHECK_OK(ctx, mispc_csr_get_stats(ctx, &H, &sh));
    CHECK_OK(ctx, mispc_csr_get_stats(ctx, &D, &sd));
    CHECK(sh.nnz == sd.nnz && sh.deg_max == sd.deg_max &&
          sh.symmetric_pattern == sd.symmetric_pattern);
    mispc_csr_free(ctx, &H);
    mispc_csr_free(ctx, &D);
    mispc_csr_free(ctx, &D2);
    mispc_csr_free(ctx, &B);
  }
}

/* Each bad matrix must fail on the device with the host's status and message. */
static void expect_same_verdict(const mispc_csr *H, unsigned checks, mispc_status expected) {
  char host_msg[1024];
  CHECK_STATUS(ctx, mispc_csr_check(ctx, H, checks), expected);
  snprintf(host_msg, sizeof host_msg, "%s", mispc_context_error(ctx));
  mispc_csr D;
  CHECK_OK(ctx, mispc_csr_copy(ctx, H, MISPC_MEM_DEVICE, &D));
  mispc_context_clear_error(ctx);
  CHECK_STATUS(ctx, mispc_csr_check(ctx, &D, checks), expected);
  if (expected != MISPC_SUCCESS)
    CHECK_MSG(!strcmp(host_msg, mispc_context_error(ctx)), "host '%s' vs device '%s'", host_msg,
              mispc_context_error(ctx));
  mispc_csr_free(ctx, &D);
}

static void test_device_validation(void) {
  mispc_csr G;
  CHECK_OK(ctx, mispc_generate(ctx, "gen:laplace2d:30", 1, &G));
  expect_same_verdict(&G, MISPC_CHECK_GRAPH, MISPC_SUCCESS);
  expect_same_verdict(&G, MISPC_CHECK_GRAPH | MISPC_CHECK_NO_SELF_LOOPS, MISPC_ERR_SELF_LOOP);
  /* break symmetry: move one off-diagonal entry of row 100 */
  int64_t p = G.rowptr[100];
  int32_t save = G.colidx[p];
  G.colidx[p] = save - 1; /* row 100 stays sorted (its first entry is 70) */
  expect_same_verdict(&G, MISPC_CHECK_GRAPH, MISPC_ERR_UNSYMMETRIC);
  G.colidx[p] = G.colidx[p + 1]; /* duplicate */
  expect_same_verdict(&G, MISPC_CHECK_GRAPH, MISPC_ERR_DUPLICATE);
  G.colidx[p] = G.colidx[p + 1] + 1; /* out of order */
  expect_same_verdict(&G, MISPC_CHECK_GRAPH, MISPC_ERR_UNSORTED);
  G.colidx[p] = 1 << 20; /* out of range */
  expect_same_verdict(&G, MISPC_CHECK_INDICES, MISPC_ERR_INDEX_RANGE);
  G.colidx[p] = save;
  expect_same_verdict(&G, MISPC_CHECK_GRAPH, MISPC_SUCCESS);
  G.rowptr[G.nrows] -= 1; /* offsets do not end at nnz */
  expect_same_verdict(&G, MISPC_CHECK_INDICES, MISPC_ERR_INDEX_RANGE);
  G.rowptr[G.nrows] += 1;
  /* one more entry below the diagonal, (100, 5), without its (5, 100): every
   * entry above the diagonal still has its transpose (the device searches
   * only those and compares the counts above and below) */
  {
    const int64_t n = G.nrows, nnz = G.nnz + 1;
    int64_t *rp2 = malloc(sizeof(int64_t) * (size_t)(n + 1));
    int32_t *ci2 = malloc(sizeof(int32_t) * (size_t)nnz);
    int64_t q = 0;
    for (int64_t i = 0; i < n; ++i) {
      rp2[i] = q;
      int added = i != 100;
      for (int64_t p2 = G.rowptr[i]; p2 < G.rowptr[i + 1]; ++p2) {
        if (!added && G.colidx[p2] > 5) ci2[q++] = 5, added = 1;
        ci2[q++] = G.colidx[p2];
      }
    }
    rp2[n] = q;
    CHECK(q == nnz);
    mispc_csr E;
    mispc_csr_wrap(MISPC_MEM_HOST, n, n, nnz, rp2, ci2, NULL, &E);
    expect_same_verdict(&E, MISPC_CHECK_GRAPH, MISPC_ERR_UNSYMMETRIC);
    free(rp2);
    free(ci2);
  }
  mispc_csr_free(ctx, &G);
  /* a graph with hubs: rows of more than 4 times the mean length are checked
   * by a whole block (src/csr_check_cuda.cu); break the longest row three ways */
  CHECK_OK(ctx, mispc_generate(ctx, "gen:kron:12", 1, &G));
  int64_t hub = 0;
  for (int64_t i = 0; i < G.nrows; ++i)
    if (G.rowptr[i + 1] - G.rowptr[i] > G.rowptr[hub + 1] - G.rowptr[hub]) hub = i;
  const int64_t hb = G.rowptr[hub], he = G.rowptr[hub + 1];
  CHECK_MSG(he - hb > 4 * (G.nnz / G.nrows) && he - hb > 32,
            "kron:12's longest row has %lld entries (mean %lld)", (long long)(he - hb),
            (long long)(G.nnz / G.nrows));
  expect_same_verdict(&G, MISPC_CHECK_GRAPH, MISPC_SUCCESS);
  const int64_t mid = hb + (he - hb) / 2;
  save = G.colidx[mid];
  G.colidx[mid] = G.colidx[mid + 1]; /* duplicate */
  expect_same_verdict(&G, MISPC_CHECK_GRAPH, MISPC_ERR_DUPLICATE);
  G.colidx[mid] = (int32_t)G.nrows; /* out of range */
  expect_same_verdict(&G, MISPC_CHECK_INDICES, MISPC_ERR_INDEX_RANGE);
  G.colidx[mid] = save;
  /* the row's last column one higher: (hub, last + 1) has no transpose (the
   * graph was symmetric and the row did not hold last + 1) */
  const int32_t last = G.colidx[he - 1];
  if (last + 1 < G.nrows && last + 1 != hub) {
    G.colidx[he - 1] = last + 1;
    expect_same_verdict(&G, MISPC_CHECK_GRAPH, MISPC_ERR_UNSYMMETRIC);
    G.colidx[he - 1] = last;
  }
  mispc_csr_free(ctx, &G);
  /* non-square */
  int64_t rp[3] = {0, 1, 1};
  int32_t ci[1] = {2};
  mispc_csr R;
  mispc_csr_wrap(MISPC_MEM_HOST, 2, 3, 1, rp, ci, NULL, &R);
  expect_same_verdict(&R, MISPC_CHECK_SQUARE, MISPC_ERR_NOT_SQUARE);
}

static void test_device_memory_helpers(void) {
  void *d = NULL;
  int h[4] = {1, 2, 3, 4}, b[4] = {0};
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof h, &d));
  CHECK_OK(ctx, mispc_memcpy(ctx, d, MISPC_MEM_DEVICE, h, MISPC_MEM_HOST, sizeof h));
  CHECK_OK(ctx, mispc_memcpy(ctx, b, MISPC_MEM_HOST, d, MISPC_MEM_DEVICE, sizeof h));
  CHECK(!memcmp(h, b, sizeof h));
  mispc_free(ctx, MISPC_MEM_DEVICE, d);
  /* an impossible allocation is an error, not a crash */
  CHECK_STATUS(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, (size_t)1 << 50, &d), MISPC_ERR_CUDA);
  CHECK(strstr(mispc_context_error(ctx), "device allocation of user buffer") != NULL);
}

/* The pool's peak: 0 before any device allocation, at least what was held
 * at once, and not lower after frees. */
static void test_device_peak(void) {
  mispc_context *c = NULL;
  CHECK(mispc_context_create(&c) == MISPC_SUCCESS);
  if (!c) return;
  int64_t peak = -1;
  void *a = NULL, *b = NULL;
  CHECK_OK(c, mispc_context_device_peak(c, &peak));
  CHECK_MSG(peak == 0, "peak %lld before any device allocation", (long long)peak);
  CHECK_OK(c, mispc_malloc(c, MISPC_MEM_DEVICE, (size_t)3 << 20, &a));
  CHECK_OK(c, mispc_malloc(c, MISPC_MEM_DEVICE, (size_t)5 << 20, &b));
  CHECK_OK(c, mispc_context_device_peak(c, &peak));
  CHECK_MSG(peak >= (int64_t)8 << 20, "peak %lld with 8 MiB held", (long long)peak);
  mispc_free(c, MISPC_MEM_DEVICE, a);
  mispc_free(c, MISPC_MEM_DEVICE, b);
  const int64_t before = peak; /* a high-water mark: freeing does not lower it */
  CHECK_OK(c, mispc_malloc(c, MISPC_MEM_DEVICE, (size_t)1 << 20, &a));
  CHECK_OK(c, mispc_context_device_peak(c, &peak));
  CHECK_MSG(peak >= before, "peak %lld after frees, %lld before", (long long)peak,
            (long long)before);
  mispc_free(c, MISPC_MEM_DEVICE, a);
  CHECK_STATUS(c, mispc_context_device_peak(c, NULL), MISPC_ERR_INVALID_ARG);
  mispc_context_destroy(c);
}

/* 32-bit row offsets (PETSc, cuSPARSE) widened on the device equal the host's. */
static void test_device_widen_int32(void) {
  enum { N = 100003 };
  int32_t *h = malloc(sizeof(int32_t) * N), *d32 = NULL;
  int64_t *w = malloc(sizeof(int64_t) * N), *d64 = NULL;
  for (int i = 0; i < N; ++i) h[i] = (int32_t)(i * 37) - (i % 7 == 0 ? 2000000000 : 0);
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(int32_t) * N, (void **)&d32));
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(int64_t) * N, (void **)&d64));
  CHECK_OK(ctx, mispc_memcpy(ctx, d32, MISPC_MEM_DEVICE, h, MISPC_MEM_HOST, sizeof(int32_t) * N));
  CHECK_OK(ctx, mispc_widen_int32(ctx, MISPC_MEM_DEVICE, N, d32, d64));
  CHECK_OK(ctx, mispc_memcpy(ctx, w, MISPC_MEM_HOST, d64, MISPC_MEM_DEVICE, sizeof(int64_t) * N));
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += w[i] != (int64_t)h[i];
  CHECK_MSG(bad == 0, "%d widened entries differ", bad);
  mispc_free(ctx, MISPC_MEM_DEVICE, d32);
  mispc_free(ctx, MISPC_MEM_DEVICE, d64);
  free(h);
  free(w);
}

/* mispc_random_vector on the device: the host's bits. */
static void test_device_random_vector(void) {
  enum { N = 100003 };
  double *h = malloc(sizeof(double) * N), *b = malloc(sizeof(double) * N), *d = NULL;
  CHECK_OK(ctx, mispc_random_vector(ctx, MISPC_MEM_HOST, N, 12345, 3, h));
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(double) * N, (void **)&d));
  CHECK_OK(ctx, mispc_random_vector(ctx, MISPC_MEM_DEVICE, N, 12345, 3, d));
  CHECK_OK(ctx, mispc_memcpy(ctx, b, MISPC_MEM_HOST, d, MISPC_MEM_DEVICE, sizeof(double) * N));
  CHECK(!memcmp(h, b, sizeof(double) * N));
  mispc_free(ctx, MISPC_MEM_DEVICE, d);
  free(h);
  free(b);
}

int main(void) {
  test_require_gpu_or_skip();
  if (mispc_context_create(&ctx)) return 1;
  RUN_TEST(test_copy_round_trip);
  RUN_TEST(test_device_validation);
  RUN_TEST(test_device_memory_helpers);
  RUN_TEST(test_device_peak);
  RUN_TEST(test_device_widen_int32);
  RUN_TEST(test_device_random_vector);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
