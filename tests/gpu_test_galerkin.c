/* Sparse transpose and product, prolongator smoothing and the Galerkin
 * operator on the GPU: bit-identical to the host on random matrices (rows
 * sorted or not), on products whose rows overflow the shared hash table
 * (all rows, or one hub row among short ones), and on the prolongators of
 * smoothed aggregation; tentative prolongators (P0 and the coarse
 * near-null space) from device aggregates; device error paths. Skips
 * without a GPU. */
#include "galerkin_inputs.h"

static mispc_context *ctx;

static int same_as_host(const mispc_csr *h, const mispc_csr *d) {
  mispc_csr b;
  if (d->mem != MISPC_MEM_DEVICE || mispc_csr_copy(ctx, d, MISPC_MEM_HOST, &b)) return 0;
  int same = h->nrows == b.nrows && h->ncols == b.ncols && h->nnz == b.nnz &&
             !memcmp(h->rowptr, b.rowptr, sizeof(int64_t) * (size_t)(h->nrows + 1)) &&
             (!h->nnz || (!memcmp(h->colidx, b.colidx, sizeof(int32_t) * (size_t)h->nnz) &&
                          !memcmp(h->values, b.values, sizeof(double) * (size_t)h->nnz)));
  mispc_csr_free(ctx, &b);
  return same;
}

static void to_device(const mispc_csr *h, mispc_csr *d) {
  CHECK_OK(ctx, mispc_csr_copy(ctx, h, MISPC_MEM_DEVICE, d));
}

/* C = A B and A^T on both sides */
static void compare_product(const mispc_csr *A, const mispc_csr *B, const char *name) {
  mispc_csr dA, dB, C, dC, T, dT;
  to_device(A, &dA);
  to_device(B, &dB);
  CHECK_OK(ctx, mispc_csr_multiply(ctx, A, B, &C));
  CHECK_OK(ctx, mispc_csr_multiply(ctx, &dA, &dB, &dC));
  CHECK_MSG(same_as_host(&C, &dC), "%s: device product differs", name);
  CHECK_OK(ctx, mispc_csr_transpose(ctx, A, &T));
  CHECK_OK(ctx, mispc_csr_transpose(ctx, &dA, &dT));
  CHECK_MSG(same_as_host(&T, &dT), "%s: device transpose differs", name);
  mispc_csr *all[] = {&dA, &dB, &C, &dC, &T, &dT};
  for (size_t i = 0; i < 6; ++i) mispc_csr_free(ctx, all[i]);
}

static void test_random(void) {
  for (int c = 0; c < 6; ++c) {
    mispc_csr A, B;
    const int64_t m = 100 + 331 * c, k = 50 + 97 * c, n = 20 + 400 * c;
    gi_random(ctx, m, k, 3 + 4 * c, 0, c & 1, 10 + (uint64_t)c, &A);
    gi_random(ctx, k, n, 2 + 3 * c, 0, c & 1, 20 + (uint64_t)c, &B);
    char name[32];
    snprintf(name, sizeof name, "random %d", c);
    compare_product(&A, &B, name);
    mispc_csr_free(ctx, &A);
    mispc_csr_free(ctx, &B);
  }
}

/* rows whose rows of B average more than 64 entries take the wide tier
 * (128 threads, sorted in place); with a hub row beside them the block tier
 * and the sort of the long rows only; a row of many products but few
 * columns is counted by a block and summed by a warp */
static void test_wide_rows(void) {
  const char *names[] = {"wide rows", "wide rows and a hub row", "many products, few columns"};
  for (int c = 0; c < 3; ++c) {
    mispc_csr A, B;
    if (c == 0)
      gi_random(ctx, 2000, 600, 4, 0, 0, 31, &A);
    else
      gi_arrow(ctx, c == 1 ? 3000 : 20000, &A);
    const int64_t ncols[] = {400, 2000, 300};
    const int per_row[] = {160, 160, 8};
    gi_random(ctx, A.ncols, ncols[c], per_row[c], 0, 1, 41 + (uint64_t)c, &B);
    compare_product(&A, &B, names[c]);
    mispc_csr_free(ctx, &A);
    mispc_csr_free(ctx, &B);
  }
}

static void test_long_rows(void) {
  /* 700: every row has 700 columns (over the shared limit, fits its table);
   * 1500: every row fills the shared table */
  const int64_t sizes[] = {700, 1500};
  for (int s = 0; s < 2; ++s) {
    mispc_csr A;
    gi_arrow(ctx, sizes[s], &A);
    compare_product(&A, &A, sizes[s] == 700 ? "arrow 700" : "arrow 1500");
    mispc_csr_free(ctx, &A);
  }
  /* one hub row among short ones: its columns (about B's column count) pick
   * the tier: block (2000), block counting and global values (6000), global
   * (12000) */
  const int64_t hub_cols[] = {2000, 6000, 12000};
  for (int h = 0; h < 3; ++h) {
    mispc_csr A, B;
    const int64_t n = h == 0 ? 3000 : 20000;
    gi_arrow(ctx, n, &A);
    gi_random(ctx, n, hub_cols[h], 3, 0, 1, 77 + (uint64_t)h, &B);
    char name[48];
    snprintf(name, sizeof name, "hub row of ~%lld columns", (long long)hub_cols[h]);
    compare_product(&A, &B, name);
    mispc_csr_free(ctx, &A);
    mispc_csr_free(ctx, &B);
  }
}

static void check_spec(const char *spec, int bs) {
  mispc_csr A, P0, P, Ac, dA, dP0, dP, dAc;
  gi_prolongators(ctx, spec, bs, &A, &P0, &P);
  to_device(&A, &dA);
  to_device(&P0, &dP0);
  CHECK_OK(ctx, mispc_smooth_prolongator(ctx, &dA, &dP0, 4.0 / 3.0 / 2.5, &dP));
  CHECK_MSG(same_as_host(&P, &dP), "%s: device smoothed P differs", spec);
  CHECK_OK(ctx, mispc_galerkin_product(ctx, &A, &P, &Ac));
  CHECK_OK(ctx, mispc_galerkin_product(ctx, &dA, &dP, &dAc));
  CHECK_MSG(same_as_host(&Ac, &dAc), "%s: device Galerkin product differs", spec);
  mispc_csr *all[] = {&A, &P0, &P, &Ac, &dA, &dP0, &dP, &dAc};
  for (size_t i = 0; i < 8; ++i) mispc_csr_free(ctx, all[i]);
}

static void test_galerkin(void) {
  check_spec("gen:laplace3d:20", 1);
  check_spec("gen:elasticity3d:8", 3);
}

/* A host array of `bytes` on the device (NULL stays NULL). */
static void *device_copy(const void *h, size_t bytes) {
  void *d = NULL;
  if (!h) return NULL;
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, bytes, &d));
  CHECK_OK(ctx, mispc_memcpy(ctx, d, MISPC_MEM_DEVICE, h, MISPC_MEM_HOST, bytes));
  return d;
}

/* P0 and the coarse near-null space from device aggregates and a device B:
 * the host's bits. */
static void compare_tentative(const mispc_aggregates *ha, int bs, int k, const double *B,
                              const char *name) {
  const int64_t ndof = ha->n * bs, nc = ha->naggs * k;
  mispc_aggregates da = *ha;
  da.mem = MISPC_MEM_DEVICE;
  da.root = da.parent = NULL;
  da.agg = device_copy(ha->agg, sizeof(int32_t) * (size_t)ha->n + 4);
  double *dB = device_copy(B, sizeof(double) * (size_t)(ndof * k));
  double *Bc = malloc(sizeof(double) * (size_t)(nc * k + 1)), *dBc = NULL;
  double *Bc2 = malloc(sizeof(double) * (size_t)(nc * k + 1));
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(double) * (size_t)(nc * k + 1),
                             (void **)&dBc));
  mispc_csr P, dP;
  CHECK_OK(ctx, mispc_tentative_prolongator(ctx, ha, bs, k, B, &P, Bc));
  CHECK_OK(ctx, mispc_tentative_prolongator(ctx, &da, bs, k, dB, &dP, dBc));
  CHECK_OK(ctx, mispc_memcpy(ctx, Bc2, MISPC_MEM_HOST, dBc, MISPC_MEM_DEVICE,
                             sizeof(double) * (size_t)(nc * k)));
  CHECK_MSG(same_as_host(&P, &dP), "%s: device P0 differs", name);
  CHECK_MSG(!memcmp(Bc, Bc2, sizeof(double) * (size_t)(nc * k)),
            "%s: device coarse near-null space differs", name);
  mispc_csr_free(ctx, &P);
  mispc_csr_free(ctx, &dP);
  mispc_free(ctx, MISPC_MEM_DEVICE, da.agg);
  mispc_free(ctx, MISPC_MEM_DEVICE, dB);
  mispc_free(ctx, MISPC_MEM_DEVICE, dBc);
  free(Bc);
  free(Bc2);
}

/* Aggregates of a generated problem (default options, or every vertex in
 * aggregate v % stride: a few huge ones) and B: rigid-body modes (bs 3,
 * k 6), the constant (NULL), or k hashed columns with column 1 a multiple
 * of column 0 (dependent: completed by unit vectors). */
static void test_tentative(void) {
  struct {
    const char *spec;
    int bs, k, stride, dependent;
  } cases[] = {{"gen:laplace3d:20", 1, 1, 0, 0},    {"gen:laplace3d:20", 1, 3, 0, 1},
               {"gen:laplace3d:20", 1, 2, 7, 0},    {"gen:elasticity3d:8", 3, 6, 0, 0},
               {"gen:elasticity3d:8", 3, 6, 50, 0}, {"gen:elasticity3d:8", 3, 6, 400, 0}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    mispc_csr A, S;
    mispc_aggregates ag;
    mispc_agg_options o;
    mispc_agg_options_default(&o);
    const int bs = cases[c].bs, k = cases[c].k;
    CHECK_OK(ctx, mispc_generate(ctx, cases[c].spec, 3, &A));
    CHECK_OK(ctx, mispc_strength_graph(ctx, &A, 0.0, bs, &S));
    CHECK_OK(ctx, mispc_aggregate(ctx, &S, &o, &ag));
    const int64_t nodes = A.nrows / bs, ndof = A.nrows;
    if (cases[c].stride) { /* stride 400 > 512 nodes / 2: aggregates of one node, 3 dofs < 6 */
      for (int64_t v = 0; v < nodes; ++v) ag.agg[v] = (int32_t)(v % cases[c].stride);
      ag.naggs = cases[c].stride < nodes ? cases[c].stride : nodes;
    }
    double *B = NULL;
    if (bs == 3) {
      int64_t side = 1;
      while (side * side * side < nodes) ++side;
      double *xyz = malloc(sizeof(double) * (size_t)(3 * nodes));
      B = malloc(sizeof(double) * (size_t)(6 * ndof));
      for (int64_t v = 0; v < nodes; ++v) {
        xyz[3 * v] = (double)(v % side) * 0.1;
        xyz[3 * v + 1] = (double)((v / side) % side) * 0.3;
        xyz[3 * v + 2] = (double)(v / (side * side)) * 0.7;
      }
      CHECK_OK(ctx, mispc_rigid_body_modes(ctx, nodes, xyz, B));
      free(xyz);
    } else if (k > 1) {
      B = malloc(sizeof(double) * (size_t)(k * ndof));
      for (int j = 0; j < k; ++j)
        for (int64_t i = 0; i < ndof; ++i)
          B[j * ndof + i] = (double)((uint64_t)(i + 1) * 2654435761u % 1000u + (uint64_t)j) / 999.0;
      if (cases[c].dependent)
        for (int64_t i = 0; i < ndof; ++i) B[ndof + i] = 3.0 * B[i];
    }
    char name[80];
    snprintf(name, sizeof name, "%s k=%d stride %d%s", cases[c].spec, k, cases[c].stride,
             cases[c].dependent ? " dependent" : "");
    compare_tentative(&ag, bs, k, B, name);
    free(B);
    mispc_aggregates_free(ctx, &ag);
    mispc_csr_free(ctx, &S);
    mispc_csr_free(ctx, &A);
  }
}

static void test_device_errors(void) {
  mispc_csr A, B, dA, dB, C;
  gi_random(ctx, 50, 50, 5, 1, 0, 3, &A);
  gi_random(ctx, 50, 30, 4, 0, 0, 4, &B);
  int64_t r = 0;
  while (B.rowptr[r + 1] - B.rowptr[r] < 2) ++r;
  B.colidx[B.rowptr[r] + 1] = B.colidx[B.rowptr[r]];
  A.colidx[A.rowptr[0] + 1 < A.rowptr[1] ? A.rowptr[0] + 1 : A.rowptr[0]] = (int32_t)r;
  to_device(&A, &dA);
  to_device(&B, &dB);
  CHECK_STATUS(ctx, mispc_csr_multiply(ctx, &dA, &dB, &C), MISPC_ERR_DUPLICATE);
  CHECK_STATUS(ctx, mispc_csr_multiply(ctx, &A, &dB, &C), MISPC_ERR_INVALID_ARG); /* spaces */
  mispc_csr_free(ctx, &dA);
  mispc_csr_free(ctx, &dB);
  mispc_csr_free(ctx, &A);
  /* zero diagonal at row 17 */
  mispc_csr P0, dP0;
  gi_random(ctx, 50, 50, 5, 1, 0, 5, &A);
  gi_random(ctx, 50, 30, 4, 0, 0, 9, &P0);
  for (int64_t e = A.rowptr[17]; e < A.rowptr[18]; ++e)
    if (A.colidx[e] == 17) A.values[e] = 0.0;
  to_device(&A, &dA);
  to_device(&P0, &dP0);
  CHECK_STATUS(ctx, mispc_smooth_prolongator(ctx, &dA, &dP0, 0.5, &C), MISPC_ERR_INVALID_ARG);
  CHECK_MSG(strstr(mispc_context_error(ctx), "row 17") != NULL, "message: %s",
            mispc_context_error(ctx));
  mispc_csr *all[] = {&A, &B, &dA, &P0, &dP0};
  for (size_t i = 0; i < 5; ++i) mispc_csr_free(ctx, all[i]);
  /* an aggregate id outside [0, naggs) at vertex 5 */
  int32_t labels[8] = {0, 0, 1, 1, 2, 9, 2, 0};
  mispc_aggregates da = {0};
  da.n = 8;
  da.naggs = 3;
  da.mem = MISPC_MEM_DEVICE;
  da.agg = device_copy(labels, sizeof labels);
  CHECK_STATUS(ctx, mispc_tentative_prolongator(ctx, &da, 1, 1, NULL, &C, NULL),
               MISPC_ERR_INVALID_ARG);
  CHECK_MSG(strstr(mispc_context_error(ctx), "vertex 5 has aggregate id 9") != NULL, "message: %s",
            mispc_context_error(ctx));
  mispc_free(ctx, MISPC_MEM_DEVICE, da.agg);
}

int main(void) {
  test_require_gpu_or_skip();
  if (mispc_context_create(&ctx)) return 1;
  RUN_TEST(test_random);
  RUN_TEST(test_wide_rows);
  RUN_TEST(test_long_rows);
  RUN_TEST(test_galerkin);
  RUN_TEST(test_tentative);
  RUN_TEST(test_device_errors);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
