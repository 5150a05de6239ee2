/* Coloring and MIS-1 of a subset on the GPU: identical to the host, proper.
 * Skips without a GPU. */
#include "mis_test_graphs.h"
#include "tuning.h"

static mispc_context *ctx;

/* H = the graph of spec: "complete:M" (the complete graph of M vertices),
 * "clique:M:P" (that and a path of P vertices beside it), "star:L" (a hub
 * and L leaves), a generator's (with this seed) or what mispc_load reads. */
static void load_graph(const char *spec, uint64_t seed, mispc_csr *H) {
  if (!strncmp(spec, "star:", 5))
    *H = star_graph(ctx, (int32_t)atoi(spec + 5));
  else if (!strncmp(spec, "complete:", 9))
    *H = clique_graph(ctx, (int32_t)atoi(spec + 9));
  else if (!strncmp(spec, "clique:", 7)) {
    char *end;
    const int32_t m = (int32_t)strtol(spec + 7, &end, 10); /* before end is read */
    *H = clique_path_graph(ctx, m, (int32_t)atoi(end + 1));
  } else if (!strncmp(spec, "gen:", 4))
    *H = generated_graph(ctx, spec, seed);
  else
    CHECK_OK(ctx, mispc_load(ctx, spec, H));
}

static void test_gpu_coloring_equals_host(void) {
  /* without the shared-memory kernel (case 5): clique:32:100 (rows of 31,
   * the polled pass's longest short rows, 9 entries a row on average: 32
   * colors) and clique:33:100 (rows of 32: wide rows, by their warps).
   * Hubs: gen:kron:14 (the polled pass, wide rows listed), gen:kron:12:48
   * (57 entries a row: the counted pass finds a hub, then the polled pass),
   * star:70000 (in hash order about 35,000 leaves before the hub: the polled
   * pass gives up, one MIS-1 a color; largest degree first: polled). */
  const char *specs[] = {"gen:laplace3d:40",    "gen:elasticity3d:8", "gen:kron:14",
                         "gen:random:100000:8", "gen:grid3d27:30",    "gen:roadgrid:300:0.3",
                         "clique:32:100",       "clique:33:100",      "gen:kron:12:48",
                         "star:70000"};
  for (size_t i = 0; i < sizeof specs / sizeof *specs; ++i) {
    mispc_csr H, D;
    load_graph(specs[i], 2, &H);
    CHECK_OK(ctx, mispc_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &D));
    size_t n = (size_t)H.nrows;
    /* 2: greedy, 3: one launch a round, 4: three passes of recoloring, 5: no
     * shared-memory kernel */
    for (int largest = 0; largest <= 5; ++largest) {
      mispc_coloring_options o;
      mispc_coloring_options_default(&o);
      if (largest == 1) o.mis.priority = MISPC_PRIORITY_LARGEST_DEGREE;
      if (largest == 2) o.algo = MISPC_COLORING_GREEDY;
      mispc_tuning t = {0};
      t.mis_no_persistent = largest == 3;
      if (largest == 4) o.recolor = 3;
      t.mis_no_smem = largest == 5;
      mispc_coloring hc, dc;
      CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
      CHECK_OK(ctx, mispc_color(ctx, &H, &o, &hc));
      CHECK_OK(ctx, mispc_color(ctx, &D, &o, &dc));
      mispc_context_set_tuning_(ctx, NULL);
      CHECK_OK(ctx, mispc_verify_coloring(ctx, &D, &dc));
      int32_t *g = malloc(sizeof(int32_t) * (n + 1));
      CHECK_OK(ctx, mispc_memcpy(ctx, g, MISPC_MEM_HOST, dc.color, MISPC_MEM_DEVICE,
                                 sizeof(int32_t) * n));
      CHECK_MSG(hc.ncolors == dc.ncolors && !memcmp(g, hc.color, sizeof(int32_t) * n),
                "%s: GPU coloring differs from host", specs[i]);
      printf("  %-24s %-8s %3d colors\n", specs[i],
             largest == 5   ? "no-smem"
             : largest == 4 ? "recolor3"
             : largest == 3 ? "rounds"
             : largest == 2 ? "greedy"
             : largest == 1 ? "largest"
                            : "hash",
             dc.ncolors);
      free(g);
      mispc_coloring_free(ctx, &hc);
      mispc_coloring_free(ctx, &dc);
    }
    /* MIS-1 of a subset, every key mode */
    uint8_t *sub = random_subset(H.nrows, 50), *hs = malloc(n), *gs = malloc(n), *dsub, *ds;
    CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, n, (void **)&dsub));
    CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, n, (void **)&ds));
    CHECK_OK(ctx, mispc_memcpy(ctx, dsub, MISPC_MEM_DEVICE, sub, MISPC_MEM_HOST, n));
    mispc_priority pr[3] = {MISPC_PRIORITY_DEGREE, MISPC_PRIORITY_HASH,
                            MISPC_PRIORITY_LARGEST_DEGREE};
    for (int k = 0; k < 3; ++k)
      for (int np = 0; np <= 2; ++np) {
        mispc_mis_options o;
        mispc_mis_options_default(&o);
        o.priority = pr[k];
        mispc_tuning t = {0};
        t.mis_no_persistent = np == 1;
        t.mis_no_sync_free = np == 2;
        mispc_mis_result hr, gr;
        CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
        CHECK_OK(ctx, mispc_mis1_subset(ctx, &H, &o, sub, hs, &hr));
        CHECK_OK(ctx, mispc_mis1_subset(ctx, &D, &o, dsub, ds, &gr));
        mispc_context_set_tuning_(ctx, NULL);
        CHECK_OK(ctx, mispc_memcpy(ctx, gs, MISPC_MEM_HOST, ds, MISPC_MEM_DEVICE, n));
        /* the sync-free pass (np == 0, graphs without hubs) reports no rounds */
        CHECK_MSG(!memcmp(hs, gs, n) && (hr.rounds == gr.rounds || (np == 0 && gr.rounds == 0)) &&
                      hr.set_size == gr.set_size,
                  "%s: subset MIS-1 (priority %d) GPU != host", specs[i], (int)pr[k]);
      }
    mispc_free(ctx, MISPC_MEM_DEVICE, dsub);
    mispc_free(ctx, MISPC_MEM_DEVICE, ds);
    free(sub);
    free(hs);
    free(gs);
    mispc_csr_free(ctx, &H);
    mispc_csr_free(ctx, &D);
  }
}

/* colors of D (device) against the host's coloring of H with options o
 * under tuning t; returns the number of colors. */
static int32_t small_case(const char *what, const mispc_csr *H, const mispc_csr *D,
                          const mispc_coloring_options *o, const mispc_tuning *t) {
  const size_t n = (size_t)H->nrows;
  mispc_coloring hc, dc;
  CHECK_OK(ctx, mispc_color(ctx, H, o, &hc));
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, t));
  CHECK_OK(ctx, mispc_color(ctx, D, o, &dc));
  mispc_context_set_tuning_(ctx, NULL);
  CHECK_OK(ctx, mispc_verify_coloring(ctx, D, &dc));
  int32_t *g = malloc(sizeof(int32_t) * (n + 1));
  CHECK_OK(ctx,
           mispc_memcpy(ctx, g, MISPC_MEM_HOST, dc.color, MISPC_MEM_DEVICE, sizeof(int32_t) * n));
  CHECK_MSG(hc.ncolors == dc.ncolors && !memcmp(g, hc.color, sizeof(int32_t) * n),
            "%s (blocks %d, lanes %d, priority %d, algo %d, skip %d): GPU coloring differs from "
            "host (%d / %d colors)",
            what, t->mis_smem_blocks, t->mis_smem_lanes, (int)o->mis.priority, (int)o->algo,
            o->mis.skip_validation, dc.ncolors, hc.ncolors);
  const int32_t nc = dc.ncolors;
  free(g);
  mispc_coloring_free(ctx, &hc);
  mispc_coloring_free(ctx, &dc);
  return nc;
}

/* Small graphs take the shared-memory kernel (mis/mis_smem_cuda.cu: one
 * cluster, hubs included): the host's colors for every cluster size it
 * takes (1 block, 2 to 16 with distributed shared memory), lane widths,
 * priorities, greedy order, with and without validation; a complete graph
 * of 70 vertices needs colors past the first 64-bit window; gen:kron:12
 * (97k entries, hubs) takes the kernel by default only because the global
 * pass found hubs. */
static void test_gpu_coloring_small_equals_host(void) {
  const char *specs[] = {"gen:laplace2d:32", "gen:laplace3d:12",
                         "gen:kron:10",      "gen:random:2000:8",
                         "gen:grid3d27:12",  "gen:path:300",
                         "complete:70",      MISPC_TEST_DATA "/PGPgiantcompo.metis.graph",
                         "gen:kron:12"};
  const int blocks[] = {0, 1, 2, 4, 8, 16};
  const int lanes[] = {0, 1, 4, 32};
  for (size_t i = 0; i < sizeof specs / sizeof *specs; ++i) {
    mispc_csr H, D;
    load_graph(specs[i], 0, &H);
    CHECK_OK(ctx, mispc_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &D));
    int32_t nc = 0;
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; ++b)
      for (int v = 0; v < 8; ++v) {
        mispc_coloring_options o;
        mispc_coloring_options_default(&o);
        o.mis.priority = v % 3 == 1 ? MISPC_PRIORITY_LARGEST_DEGREE : MISPC_PRIORITY_HASH;
        if (v % 3 == 2) o.algo = MISPC_COLORING_GREEDY;
        o.mis.skip_validation = v & 1;
        o.mis.seed = (uint64_t)v;
        mispc_tuning t = {0};
        t.mis_smem_blocks = blocks[b];
        t.mis_smem_lanes = lanes[(v >> 1) & 3];
        nc = small_case(specs[i], &H, &D, &o, &t);
      }
    printf("  %-40s %3d colors (last case)\n", specs[i], nc);
    CHECK_MSG(strcmp(specs[i], "complete:70") || nc == 70, "K70: %d colors", nc);
    mispc_csr_free(ctx, &H);
    mispc_csr_free(ctx, &D);
  }
}

/* A pattern that is not symmetric, passed with skip_validation: the
 * shared-memory kernel's and the counted pass's counts of earlier
 * neighbours cannot match, the polled pass's sum over the entries is not 0
 * (no_smem: the global passes), and the call must fail (in at most a few
 * seconds) instead of hanging or returning a coloring. */
static void test_gpu_coloring_unsymmetric_fails(void) {
  for (int64_t n = 2; n <= 64; n *= 2) {
    int64_t rp[65];
    int32_t ci[64];
    for (int64_t v = 0; v < n; ++v) /* edges v -> v + 1 only */
      rp[v] = v < n - 1 ? v : n - 1, ci[v] = (int32_t)(v + 1);
    rp[n - 1] = n - 1, rp[n] = n - 1;
    mispc_csr H, D;
    mispc_csr_wrap(MISPC_MEM_HOST, n, n, n - 1, rp, ci, NULL, &H);
    CHECK_OK(ctx, mispc_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &D));
    mispc_coloring_options o;
    mispc_coloring_options_default(&o);
    mispc_coloring c;
    CHECK_STATUS(ctx, mispc_color(ctx, &D, &o, &c), MISPC_ERR_UNSYMMETRIC); /* validated */
    o.mis.skip_validation = 1;
    for (int no_smem = 0; no_smem <= 1; ++no_smem) {
      mispc_tuning t = {0};
      t.mis_no_smem = no_smem;
      CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
      mispc_status s = mispc_color(ctx, &D, &o, &c);
      mispc_context_set_tuning_(ctx, NULL);
      CHECK_MSG(s != MISPC_SUCCESS, "n = %lld, no_smem %d: unsymmetric pattern colored",
                (long long)n, no_smem);
      if (!s) mispc_coloring_free(ctx, &c);
    }
    mispc_csr_free(ctx, &D);
  }
}

int main(void) {
  test_require_gpu_or_skip();
  if (mispc_context_create(&ctx)) return 1;
  RUN_TEST(test_gpu_coloring_equals_host);
  RUN_TEST(test_gpu_coloring_small_equals_host);
  RUN_TEST(test_gpu_coloring_unsymmetric_fails);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
