/* MIS on the GPU: bit-identical to the host (membership and rounds) for
 * every priority and ablation switch, valid, greedy-exact, and error paths.
 * Skips without a GPU. */
#include "mis_test_graphs.h"
#include "tuning.h"

static mispc_context *ctx;

/* t: the context's tuning for this comparison (the GPU ablations, lanes).
 * spec: a generator (seed 3) or a file. */
static void compare_backends(const char *spec, const mispc_mis_options *o, const mispc_tuning *t,
                             int k) {
  mispc_csr H, D;
  if (strncmp(spec, "gen:", 4) ? mispc_load(ctx, spec, &H) : mispc_generate(ctx, spec, 3, &H)) {
    CHECK_MSG(0, "%s: %s", spec, mispc_context_error(ctx));
    return;
  }
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, t));
  size_t n = (size_t)H.nrows;
  uint8_t *hs = malloc(n + 1), *gs = malloc(n + 1), *ds = NULL;
  CHECK_OK(ctx, mispc_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &D));
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, n + 1, (void **)&ds));
  mispc_mis_result hr, gr, gr2;
  mispc_status sh = k == 1 ? mispc_mis1(ctx, &H, o, hs, &hr) : mispc_mis2(ctx, &H, o, hs, &hr);
  mispc_status sg = k == 1 ? mispc_mis1(ctx, &D, o, ds, &gr) : mispc_mis2(ctx, &D, o, ds, &gr);
  CHECK_MSG(sh == MISPC_SUCCESS && sg == MISPC_SUCCESS, "%s MIS-%d: %s", spec, k,
            mispc_context_error(ctx));
  CHECK_OK(ctx, mispc_memcpy(ctx, gs, MISPC_MEM_HOST, ds, MISPC_MEM_DEVICE, n));
  CHECK_MSG(!memcmp(hs, gs, n), "%s MIS-%d: GPU membership differs from host", spec, k);
  /* MIS-1's sync-free pass (GPU, graphs without hubs) has no rounds to report */
  const int sync_free = k == 1 && gr.rounds == 0 && !t->mis_no_sync_free && !t->mis_no_worklist &&
                        !t->mis_no_persistent && !o->max_rounds;
  CHECK_MSG((hr.rounds == gr.rounds || sync_free) && hr.set_size == gr.set_size,
            "%s MIS-%d: host %d rounds / %lld, GPU %d rounds / %lld", spec, k, hr.rounds,
            (long long)hr.set_size, gr.rounds, (long long)gr.set_size);
  CHECK_OK(ctx, mispc_verify_mis(ctx, &D, k, ds)); /* verify takes device input too */
  /* run to run */
  sg = k == 1 ? mispc_mis1(ctx, &D, o, ds, &gr2) : mispc_mis2(ctx, &D, o, ds, &gr2);
  CHECK_OK(ctx, mispc_memcpy(ctx, gs, MISPC_MEM_HOST, ds, MISPC_MEM_DEVICE, n));
  CHECK(sg == MISPC_SUCCESS && !memcmp(hs, gs, n) && gr2.rounds == gr.rounds);
  /* member list on the device equals the host's */
  int32_t *hl = malloc(sizeof(int32_t) * (n + 1)), *gl = malloc(sizeof(int32_t) * (n + 1));
  int32_t *dl = NULL;
  int64_t hc = 0, gc = 0;
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(int32_t) * (n + 1), (void **)&dl));
  CHECK_OK(ctx, mispc_mis_to_list(ctx, &H, hs, hl, &hc));
  CHECK_OK(ctx, mispc_mis_to_list(ctx, &D, ds, dl, &gc));
  CHECK(hc == gc);
  if (hc == gc) {
    CHECK_OK(ctx, mispc_memcpy(ctx, gl, MISPC_MEM_HOST, dl, MISPC_MEM_DEVICE,
                               sizeof(int32_t) * (size_t)gc));
    CHECK(!memcmp(hl, gl, sizeof(int32_t) * (size_t)gc));
  }
  mispc_free(ctx, MISPC_MEM_DEVICE, dl);
  free(hl);
  free(gl);
  mispc_free(ctx, MISPC_MEM_DEVICE, ds);
  free(hs);
  free(gs);
  mispc_csr_free(ctx, &H);
  mispc_csr_free(ctx, &D);
  mispc_context_set_tuning_(ctx, NULL);
}

static const char *specs[] = {"gen:laplace3d:30",     "gen:elasticity3d:8",
                              "gen:kron:14",          "gen:random:50000:8",
                              "gen:roadgrid:200:0.3", "gen:path:1000000",
                              "gen:grid3d27:20",      "gen:aniso2d:64:0.001:30",
                              "gen:grid2d:1",         NULL};

static void test_gpu_equals_host_all_variants(void) {
  for (size_t i = 0; specs[i]; ++i)
    for (int k = 1; k <= 2; ++k)
      for (int v = 0; v < 8; ++v) {
        mispc_mis_options o;
        mispc_mis_options_default(&o);
        mispc_tuning t = {0};
        o.seed = (uint64_t)v;
        if (v == 1) o.priority = MISPC_PRIORITY_HASH;
        if (v == 2) t.mis_no_early_exit = 1;
        if (v == 3) t.mis_no_warp_mapping = 1;
        if (v == 4) t.mis_force_warp_mapping = 1;
        if (v == 5) t.mis_no_worklist = 1;
        if (v == 6) t.mis_no_persistent = 1, t.mis_no_worklist = v & 1;
        if (v == 7) t.mis_no_sync_free = 1; /* rounds on every graph: counts must match */
        compare_backends(specs[i], &o, &t, k);
      }
}

/* MIS-1 of spec with group width `lanes` (tuning.mis1_lanes) against the
 * host, three runs with seeds seed, seed + 1, seed + 2: the defaults, then
 * (ablations) without the worklist and without the persistent kernel, or
 * (else) the hash priority and without the sync-free pass (rounds: counts
 * must match). */
static void compare_mis1_lanes(const char *spec, int lanes, uint64_t seed, int ablations) {
  for (int v = 0; v < 3; ++v) {
    mispc_mis_options o;
    mispc_mis_options_default(&o);
    mispc_tuning t = {0};
    t.mis1_lanes = lanes;
    o.seed = seed + (uint64_t)v;
    if (ablations) {
      t.mis_no_worklist = v == 1;
      t.mis_no_persistent = v == 2;
    } else {
      if (v == 1) o.priority = MISPC_PRIORITY_HASH;
      if (v == 2) t.mis_no_sync_free = 1;
    }
    compare_backends(spec, &o, &t, 1);
  }
}

/* Every MIS-1 group width (the context's tuning.mis1_lanes, read at each
 * call) gives the host's result; the default uses only 1 and 8. */
static void test_gpu_mis1_lanes_equal_host(void) {
  const char *g[] = {"gen:grid3d27:20", "gen:kron:14", "gen:laplace3d:30", "gen:elasticity3d:8"};
  const int lanes[] = {1, 2, 4, 8, 16, 32};
  for (size_t l = 0; l < sizeof lanes / sizeof *lanes; ++l)
    for (size_t i = 0; i < sizeof g / sizeof *g; ++i)
      compare_mis1_lanes(g[i], lanes[l], (uint64_t)l, 1);
}

/* A generated graph on host and device, a random vertex subset of it (both
 * sides) and result buffers: the set-up of the subset tests. */
typedef struct subset_case {
  mispc_csr H, D;
  size_t n;
  uint8_t *sub, *hs, *gs; /* host: subset, host result, GPU result copied back */
  uint8_t *dsub, *ds;     /* device: subset, GPU result */
} subset_case;

static void subset_case_open(subset_case *c, const char *spec, uint64_t seed, int percent) {
  memset(c, 0, sizeof *c);
  CHECK_OK(ctx, mispc_generate(ctx, spec, seed, &c->H));
  c->n = (size_t)c->H.nrows;
  c->sub = random_subset(c->H.nrows, percent);
  c->hs = malloc(c->n);
  c->gs = malloc(c->n);
  CHECK_OK(ctx, mispc_csr_copy(ctx, &c->H, MISPC_MEM_DEVICE, &c->D));
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, c->n, (void **)&c->dsub));
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, c->n, (void **)&c->ds));
  CHECK_OK(ctx, mispc_memcpy(ctx, c->dsub, MISPC_MEM_DEVICE, c->sub, MISPC_MEM_HOST, c->n));
}

/* The GPU result into c->gs; 1 if it equals the host result c->hs. */
static int subset_case_same(subset_case *c) {
  CHECK_OK(ctx, mispc_memcpy(ctx, c->gs, MISPC_MEM_HOST, c->ds, MISPC_MEM_DEVICE, c->n));
  return !memcmp(c->hs, c->gs, c->n);
}

/* MIS-2 of c's subset (options o, NULL: the defaults) on the host and,
 * under tuning t, on the GPU: 1 where the sets, their sizes and the round
 * counts agree. */
static int subset_mis2_same(subset_case *c, const mispc_mis_options *o, const mispc_tuning *t) {
  mispc_mis_result hr, gr;
  CHECK_OK(ctx, mispc_mis2_subset(ctx, &c->H, o, c->sub, c->hs, &hr));
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, t));
  CHECK_OK(ctx, mispc_mis2_subset(ctx, &c->D, o, c->dsub, c->ds, &gr));
  mispc_context_set_tuning_(ctx, NULL);
  return subset_case_same(c) && hr.rounds == gr.rounds && hr.set_size == gr.set_size;
}

static void subset_case_close(subset_case *c) {
  mispc_free(ctx, MISPC_MEM_DEVICE, c->dsub);
  mispc_free(ctx, MISPC_MEM_DEVICE, c->ds);
  free(c->sub);
  free(c->hs);
  free(c->gs);
  mispc_csr_free(ctx, &c->D);
  mispc_csr_free(ctx, &c->H);
}

/* The sync-free MIS-1 pass runs on meshes (no rounds reported) and not on a
 * graph with hubs; on a subset (as coloring calls it) it gives the host's set. */
static void test_gpu_mis1_sync_free_rule_and_subset(void) {
  const char *g[] = {"gen:laplace3d:30", "gen:random:200000:8", "gen:kron:14"};
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i) {
    subset_case c;
    subset_case_open(&c, g[i], 7, 60);
    const int hubs = strstr(g[i], "kron") != NULL;
    mispc_mis_result hr, gr;
    CHECK_OK(ctx, mispc_mis1(ctx, &c.H, NULL, c.hs, &hr));
    CHECK_OK(ctx, mispc_mis1(ctx, &c.D, NULL, c.ds, &gr));
    CHECK_MSG(subset_case_same(&c) && hr.set_size == gr.set_size, "%s: GPU MIS-1 != host", g[i]);
    CHECK_MSG(hr.rounds > 0 && gr.rounds == (hubs ? hr.rounds : 0),
              "%s: host %d rounds, GPU %d (expected %s)", g[i], hr.rounds, gr.rounds,
              hubs ? "the rounds" : "the sync-free pass");
    CHECK_OK(ctx, mispc_mis1_subset(ctx, &c.H, NULL, c.sub, c.hs, &hr));
    CHECK_OK(ctx, mispc_mis1_subset(ctx, &c.D, NULL, c.dsub, c.ds, &gr));
    CHECK_MSG(subset_case_same(&c) && hr.set_size == gr.set_size, "%s: subset MIS-1 GPU != host",
              g[i]);
    for (size_t v = 0; v < c.n; ++v)
      if (c.gs[v] && !c.sub[v]) {
        CHECK_MSG(0, "%s: member %zu outside the subset", g[i], v);
        break;
      }
    subset_case_close(&c);
  }
}

/* Small graphs (1k to 64k vertices), where every vertex gets a lane group of
 * its own and the sync-free pass keeps rows in shared memory (mis1_cuda.cu),
 * and small graphs with hubs (the rounds): the host's sets and rounds for
 * every group width, the rounds on graphs without hubs, and a subset. */
static void test_gpu_small_graphs_equal_host(void) {
  const char *g[] = {"gen:laplace2d:32",
                     "gen:laplace3d:20",
                     "gen:kron:12",
                     "gen:random:16000:8",
                     "gen:grid3d27:12",
                     "gen:laplace2d:250",
                     "gen:kron:16",
                     "gen:random:2000:24",
                     MISPC_TEST_DATA "/bcsstk13.mtx",
                     MISPC_TEST_DATA "/fe_4elt2.metis.graph"};
  const int lanes[] = {0, 1, 2, 4, 8, 16, 32};
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i) {
    for (size_t l = 0; l < sizeof lanes / sizeof *lanes; ++l)
      compare_mis1_lanes(g[i], lanes[l], (uint64_t)l, 0);
    mispc_mis_options o;
    mispc_mis_options_default(&o);
    mispc_tuning t = {0};
    compare_backends(g[i], &o, &t, 2);
  }
  for (size_t i = 0; i < 4; ++i) { /* subsets, as the coloring calls MIS-1 */
    subset_case c;
    subset_case_open(&c, g[i], 11, 70);
    mispc_mis_result hr, gr;
    CHECK_OK(ctx, mispc_mis1_subset(ctx, &c.H, NULL, c.sub, c.hs, &hr));
    CHECK_OK(ctx, mispc_mis1_subset(ctx, &c.D, NULL, c.dsub, c.ds, &gr));
    CHECK_MSG(subset_case_same(&c) && hr.set_size == gr.set_size, "%s: subset MIS-1 GPU != host",
              g[i]);
    subset_case_close(&c);
  }
}

/* MIS-2 on small graphs, where every vertex gets a thread (a group of 8
 * lanes on the warp mapping) of its own and the persistent kernel keeps its
 * words and row (mis2_cuda.cu, kept_body): the host's set and rounds for
 * both mappings, both priorities, several seeds, a subset, the round limit,
 * and the worklist rounds (no persistent kernel, no worklist) on the same
 * graphs. */
static void test_gpu_mis2_small_graphs_equal_host(void) {
  const char *g[] = {"gen:laplace2d:32",
                     "gen:laplace3d:20",
                     "gen:kron:12",
                     "gen:random:16000:8",
                     "gen:laplace2d:250",
                     "gen:random:2000:24",
                     "gen:grid3d27:12",
                     "gen:path:3000",
                     MISPC_TEST_DATA "/bcsstk13.mtx",
                     MISPC_TEST_DATA "/fe_4elt2.metis.graph"};
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i)
    for (int v = 0; v < 6; ++v) {
      mispc_mis_options o;
      mispc_mis_options_default(&o);
      mispc_tuning t = {0};
      o.seed = (uint64_t)(7 * i + v);
      if (v & 1) o.priority = MISPC_PRIORITY_HASH_PER_ROUND;
      if (v == 2) t.mis_force_warp_mapping = 1;
      if (v == 3) t.mis_no_warp_mapping = 1;
      if (v == 4) t.mis_no_persistent = 1;
      if (v == 5) t.mis_force_warp_mapping = t.mis_no_worklist = 1;
      compare_backends(g[i], &o, &t, 2);
    }
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i) {
    if (strncmp(g[i], "gen:", 4)) continue; /* subset_case generates */
    subset_case c;
    subset_case_open(&c, g[i], 5, 60);
    /* the round limit: exactly the host's rounds pass, one fewer does not */
    mispc_mis_result hr, gr;
    CHECK_OK(ctx, mispc_mis2(ctx, &c.H, NULL, c.hs, &hr));
    mispc_mis_options o;
    mispc_mis_options_default(&o);
    o.max_rounds = hr.rounds;
    CHECK_OK(ctx, mispc_mis2(ctx, &c.D, &o, c.ds, &gr));
    CHECK_MSG(subset_case_same(&c) && gr.rounds == hr.rounds, "%s: MIS-2 at its round limit", g[i]);
    o.max_rounds = hr.rounds - 1;
    if (o.max_rounds > 0)
      CHECK_STATUS(ctx, mispc_mis2(ctx, &c.D, &o, c.ds, &gr), MISPC_ERR_NOT_CONVERGED);
    for (int warp = 0; warp <= 1; ++warp) {
      mispc_tuning t = {0};
      t.mis_force_warp_mapping = warp;
      CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
      CHECK_OK(ctx, mispc_mis2_subset(ctx, &c.H, NULL, c.sub, c.hs, &hr));
      CHECK_OK(ctx, mispc_mis2_subset(ctx, &c.D, NULL, c.dsub, c.ds, &gr));
      mispc_context_set_tuning_(ctx, NULL);
      CHECK_MSG(subset_case_same(&c) && hr.rounds == gr.rounds && hr.set_size == gr.set_size,
                "%s: small subset MIS-2 GPU != host (warp %d)", g[i], warp);
    }
    subset_case_close(&c);
  }
}

/* MIS-2 with hub rows in chunks over the grid (mis_cuda.cuh heavy_column;
 * tuning mis2_hub_row): rows of more than 32 entries cut into chunks of 16,
 * and the default (1024: kron:16 and kron:18 have longer rows), on the
 * worklist rounds (two launches a round, every vertex every round, and the
 * persistent kernel on kron:18, too large for the kept one), both mappings,
 * both priorities, and a subset: the host's set and rounds. */
static void test_gpu_mis2_hub_chunks_equal_host(void) {
  const char *g[] = {"gen:kron:12", "gen:kron:16", "gen:random:300:200", "gen:laplace3d:20",
                     MISPC_TEST_DATA "/bcsstk13.mtx"};
  const int rows[] = {32, 0};
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i)
    for (int r = 0; r < 2; ++r)
      for (int v = 0; v < 4; ++v) {
        mispc_mis_options o;
        mispc_mis_options_default(&o);
        mispc_tuning t = {0};
        t.mis2_hub_row = rows[r];
        o.seed = (uint64_t)(5 * i + v);
        if (v & 1) o.priority = MISPC_PRIORITY_HASH_PER_ROUND;
        t.mis_no_persistent = v < 3;
        if (v == 1) t.mis_force_warp_mapping = 1;
        if (v == 2) t.mis_no_warp_mapping = 1;
        if (v == 3) t.mis_no_worklist = t.mis_force_warp_mapping = 1;
        compare_backends(g[i], &o, &t, 2);
      }
  for (int r = 0; r < 2; ++r) { /* the persistent kernel's rounds */
    mispc_mis_options o;
    mispc_mis_options_default(&o);
    mispc_tuning t = {0};
    t.mis2_hub_row = rows[r];
    compare_backends("gen:kron:18", &o, &t, 2);
    subset_case c;
    subset_case_open(&c, "gen:kron:16", 9, 70);
    mispc_mis_result hr, gr;
    t.mis_no_persistent = 1;
    CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
    CHECK_OK(ctx, mispc_mis2_subset(ctx, &c.H, NULL, c.sub, c.hs, &hr));
    CHECK_OK(ctx, mispc_mis2_subset(ctx, &c.D, NULL, c.dsub, c.ds, &gr));
    mispc_context_set_tuning_(ctx, NULL);
    CHECK_MSG(subset_case_same(&c) && hr.rounds == gr.rounds && hr.set_size == gr.set_size,
              "kron:16 subset MIS-2 with hub chunks (rows over %d): GPU != host", rows[r]);
    subset_case_close(&c);
  }
}

/* The shared-memory kernel (mis_smem_cuda.cu) with each cluster size it
 * takes (mis_smem_blocks; 1 block, 2, 4, 8, 16 with distributed shared memory,
 * 1 to 32 lanes a vertex (mis_smem_lanes),
 * the columns in shared memory or, where they do not fit, read from global
 * memory; blocks that own no vertex): the host's set for MIS-1 (its
 * sync-free pass, which reports no rounds, and its rounds, with the host's
 * count, under mis_no_sync_free or a round limit) and the host's set and
 * rounds for MIS-2, every priority, subsets, and the round limit. */
static void test_gpu_smem_cluster_sizes_equal_host(void) {
  const char *g[] = {"gen:laplace2d:32",
                     "gen:laplace3d:20",
                     "gen:kron:12",
                     "gen:random:16000:8",
                     "gen:grid3d27:12",
                     "gen:path:3000",
                     "gen:random:300:200",
                     "gen:kron:16",
                     MISPC_TEST_DATA "/bcsstk13.mtx",
                     MISPC_TEST_DATA "/PGPgiantcompo.metis.graph"};
  const int blocks[] = {1, 2, 4, 8, 16}, lanes[] = {0, 1, 4, 32};
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i)
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; ++b)
      for (int v = 0; v < 8; ++v) {
        mispc_mis_options o;
        mispc_mis_options_default(&o);
        mispc_tuning t = {0};
        t.mis_smem_blocks = blocks[b];
        t.mis_smem_lanes = lanes[(v >> 1) & 3];
        o.seed = (uint64_t)(3 * i + b + v);
        const int k = 1 + (v & 1);
        if (v == 2) o.priority = MISPC_PRIORITY_HASH;
        if (v == 3) o.priority = MISPC_PRIORITY_HASH_PER_ROUND;
        if (v == 4) o.priority = MISPC_PRIORITY_DEGREE;
        compare_backends(g[i], &o, &t, k);
        for (int rounds = 0; k == 1 && rounds <= 1; ++rounds) { /* sync-free: 0 rounds */
          mispc_csr H, D;
          const int gen = !strncmp(g[i], "gen:", 4);
          CHECK_OK(ctx, gen ? mispc_generate(ctx, g[i], 3, &H) : mispc_load(ctx, g[i], &H));
          CHECK_OK(ctx, mispc_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &D));
          uint8_t *hs = malloc((size_t)H.nrows), *ds = NULL;
          CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, (size_t)H.nrows, (void **)&ds));
          mispc_mis_result hr, gr;
          mispc_tuning tr = t;
          tr.mis_no_sync_free = rounds;
          CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &tr));
          CHECK_OK(ctx, mispc_mis1(ctx, &H, &o, hs, &hr));
          CHECK_OK(ctx, mispc_mis1(ctx, &D, &o, ds, &gr));
          uint8_t *gs = malloc((size_t)H.nrows);
          CHECK_OK(ctx,
                   mispc_memcpy(ctx, gs, MISPC_MEM_HOST, ds, MISPC_MEM_DEVICE, (size_t)H.nrows));
          const int same = !memcmp(hs, gs, (size_t)H.nrows);
          free(gs);
          CHECK_MSG(hr.set_size == gr.set_size && same, "%s, %d blocks, %s: MIS-1 GPU != host",
                    g[i], blocks[b], rounds ? "rounds" : "sync-free");
          if (H.nrows <= 65536 && H.nnz <= 1000000 && blocks[b] <= 8) /* 16: where allowed */
            CHECK_MSG(gr.rounds == (rounds ? hr.rounds : 0) && hr.rounds > 0,
                      "%s, %d blocks, %s: %d rounds, host %d", g[i], blocks[b],
                      rounds ? "rounds" : "sync-free", gr.rounds, hr.rounds);
          mispc_context_set_tuning_(ctx, NULL);
          mispc_free(ctx, MISPC_MEM_DEVICE, ds);
          free(hs);
          mispc_csr_free(ctx, &D);
          mispc_csr_free(ctx, &H);
        }
      }
  for (size_t i = 0; i < 6; ++i) /* subsets and the round limit */
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; ++b) {
      subset_case c;
      subset_case_open(&c, g[i], 13 + b, 60);
      mispc_tuning t = {0};
      t.mis_smem_blocks = blocks[b];
      t.mis_smem_lanes = lanes[b & 3];
      t.mis_no_sync_free = (int)(b & 1); /* MIS-1: rounds (the host's count) or none */
      CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
      for (int k = 1; k <= 2; ++k) {
        mispc_mis_result hr, gr;
        CHECK_OK(ctx, k == 1 ? mispc_mis1_subset(ctx, &c.H, NULL, c.sub, c.hs, &hr)
                             : mispc_mis2_subset(ctx, &c.H, NULL, c.sub, c.hs, &hr));
        CHECK_OK(ctx, k == 1 ? mispc_mis1_subset(ctx, &c.D, NULL, c.dsub, c.ds, &gr)
                             : mispc_mis2_subset(ctx, &c.D, NULL, c.dsub, c.ds, &gr));
        const int want = k == 1 && !t.mis_no_sync_free ? 0 : hr.rounds;
        CHECK_MSG(subset_case_same(&c) && gr.rounds == want && hr.set_size == gr.set_size,
                  "%s, %d blocks: subset MIS-%d GPU != host (%d rounds, want %d)", g[i], blocks[b],
                  k, gr.rounds, want);
        CHECK_OK(ctx, k == 1 ? mispc_mis1(ctx, &c.H, NULL, c.hs, &hr)
                             : mispc_mis2(ctx, &c.H, NULL, c.hs, &hr));
        mispc_mis_options o;
        mispc_mis_options_default(&o);
        o.max_rounds = hr.rounds; /* exactly the host's rounds pass, one fewer does not */
        CHECK_OK(ctx, k == 1 ? mispc_mis1(ctx, &c.D, &o, c.ds, &gr)
                             : mispc_mis2(ctx, &c.D, &o, c.ds, &gr));
        CHECK_MSG(subset_case_same(&c) && gr.rounds == hr.rounds, "%s: MIS-%d at its round limit",
                  g[i], k);
        o.max_rounds = hr.rounds - 1;
        if (o.max_rounds > 0)
          CHECK_STATUS(ctx,
                       k == 1 ? mispc_mis1(ctx, &c.D, &o, c.ds, &gr)
                              : mispc_mis2(ctx, &c.D, &o, c.ds, &gr),
                       MISPC_ERR_NOT_CONVERGED);
      }
      mispc_context_set_tuning_(ctx, NULL);
      subset_case_close(&c);
    }
  /* MIS-2 of a subset where blocks with hub rows (over 192 entries) read
   * their copies of T, M and the subset flags: graphs small enough for the
   * copies beside the columns, subsets of several densities */
  const char *hubs[] = {"gen:kron:10", "gen:kron:11", "gen:kron:9"};
  for (size_t i = 0; i < sizeof hubs / sizeof *hubs; ++i)
    for (int b = 8; b <= 16; b *= 2)
      for (int percent = 30; percent <= 90; percent += 30) {
        subset_case c;
        subset_case_open(&c, hubs[i], (uint64_t)(b + percent), percent);
        mispc_tuning t = {0};
        t.mis_smem_blocks = b;
        CHECK_MSG(subset_mis2_same(&c, NULL, &t), "%s, %d blocks, %d%% subset: MIS-2 GPU != host",
                  hubs[i], b, percent);
        subset_case_close(&c);
      }
}

/* The last "shared-memory kernel" line of a call (verbosity 2), "" when the
 * persistent kernels ran. */
static char smem_line[256];
static void catch_smem_line(void *user, const char *line) {
  (void)user;
  if (strstr(line, "shared-memory kernel")) snprintf(smem_line, sizeof smem_line, "%s", line);
}

/* Which kernel takes MIS-k of spec (generated, seed 3) under tuning t:
 * copies the log line into what (empty for the persistent kernels) and
 * checks the set and rounds against the host. */
static void which_kernel(const char *spec, int k, const mispc_tuning *t, char *what, size_t len) {
  mispc_csr H, D;
  CHECK_OK(ctx, mispc_generate(ctx, spec, 3, &H));
  CHECK_OK(ctx, mispc_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &D));
  size_t n = (size_t)H.nrows;
  uint8_t *hs = malloc(n), *gs = malloc(n), *ds = NULL;
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, n, (void **)&ds));
  mispc_mis_result hr, gr;
  CHECK_OK(ctx, k == 1 ? mispc_mis1(ctx, &H, NULL, hs, &hr) : mispc_mis2(ctx, &H, NULL, hs, &hr));
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, t));
  mispc_context_set_logger(ctx, catch_smem_line, NULL);
  mispc_context_set_verbosity(ctx, 2);
  smem_line[0] = 0;
  CHECK_OK(ctx, k == 1 ? mispc_mis1(ctx, &D, NULL, ds, &gr) : mispc_mis2(ctx, &D, NULL, ds, &gr));
  mispc_context_set_verbosity(ctx, 0);
  mispc_context_set_logger(ctx, NULL, NULL);
  mispc_context_set_tuning_(ctx, NULL);
  snprintf(what, len, "%s", smem_line);
  CHECK_OK(ctx, mispc_memcpy(ctx, gs, MISPC_MEM_HOST, ds, MISPC_MEM_DEVICE, n));
  CHECK_MSG(!memcmp(hs, gs, n) && hr.set_size == gr.set_size &&
                (hr.rounds == gr.rounds ||
                 (k == 1 && gr.rounds == 0 && (!what[0] || strstr(what, "sync-free")))),
            "%s MIS-%d: GPU != host (%s)", spec, k, what[0] ? what : "persistent kernels");
  mispc_free(ctx, MISPC_MEM_DEVICE, ds);
  free(hs);
  free(gs);
  mispc_csr_free(ctx, &D);
  mispc_csr_free(ctx, &H);
}

/* The automatic choice at its edges (paths: 2 (n - 1) entries; 6,144
 * entries: one block, 24,576 (MIS-1: 49,152): a cluster, one more: the
 * persistent kernels;
 * 65,536 vertices fit, 65,537 do not), the knobs, and that a forced size
 * runs where the words fit (a path of 65,536 vertices on 8 blocks). */
static void test_gpu_smem_choice(void) {
  char w[256];
  mispc_tuning t = {0};
  for (int k = 1; k <= 2; ++k) {
    which_kernel("gen:path:3073", k, &t, w, sizeof w);
    CHECK_MSG(strstr(w, ", 1 block,") != NULL, "path:3073 MIS-%d: '%s'", k, w);
    CHECK_MSG(!strstr(w, "sync-free") == (k == 2), "path:3073 MIS-%d: '%s'", k, w);
    if (k == 1) { /* the rounds (the host's count) in the same kernel */
      t.mis_no_sync_free = 1;
      which_kernel("gen:path:3073", k, &t, w, sizeof w);
      CHECK_MSG(strstr(w, ", 1 block,") && !strstr(w, "sync-free"), "path:3073 rounds: '%s'", w);
      t.mis_no_sync_free = 0;
    }
    which_kernel("gen:path:3074", k, &t, w, sizeof w);
    CHECK_MSG(strstr(w, "16 blocks") || strstr(w, "8 blocks"), "path:3074 MIS-%d: '%s'", k, w);
    /* the last path a cluster takes, and the first it does not */
    const char *last = k == 1 ? "gen:path:24577" : "gen:path:12289";
    const char *past = k == 1 ? "gen:path:24578" : "gen:path:12290";
    which_kernel(last, k, &t, w, sizeof w);
    CHECK_MSG(strstr(w, "16 blocks") || strstr(w, "8 blocks"), "%s MIS-%d: '%s'", last, k, w);
    which_kernel(past, k, &t, w, sizeof w);
    CHECK_MSG(!w[0], "%s MIS-%d: '%s'", past, k, w);
    t.mis_smem_blocks = 8;
    which_kernel("gen:path:65536", k, &t, w, sizeof w);
    CHECK_MSG(strstr(w, "8 blocks") != NULL, "path:65536 on 8 blocks, MIS-%d: '%s'", k, w);
    which_kernel("gen:path:65537", k, &t, w, sizeof w);
    CHECK_MSG(!w[0], "path:65537 MIS-%d: '%s'", k, w);
    t.mis_smem_blocks = 4;
    which_kernel("gen:laplace3d:20", k, &t, w, sizeof w);
    CHECK_MSG(strstr(w, "4 blocks") != NULL, "laplace3d:20 on 4 blocks, MIS-%d: '%s'", k, w);
    t.mis_smem_blocks = 0;
    t.mis_no_smem = 1;
    which_kernel("gen:laplace2d:32", k, &t, w, sizeof w);
    CHECK_MSG(!w[0], "mis_no_smem MIS-%d: '%s'", k, w);
    t.mis_no_smem = 0;
    t.mis_no_early_exit = 1; /* an ablation of the persistent kernels */
    which_kernel("gen:laplace2d:32", k, &t, w, sizeof w);
    CHECK_MSG(!w[0], "mis_no_early_exit MIS-%d: '%s'", k, w);
    t.mis_no_early_exit = 0;
  }
}

/* The done word and the result words in the context's pinned scratch, over
 * calls of both kernels and a call that grows the scratch (the
 * one-launch-a-round rounds keep their counts there): each call's set size
 * counts its own members (in_set prefilled with 0xAA); and a round limit
 * gives the host's error text. */
static void test_gpu_smem_result_words(void) {
  mispc_csr H, D;
  CHECK_OK(ctx, mispc_generate(ctx, "gen:laplace2d:32", 3, &H));
  CHECK_OK(ctx, mispc_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &D));
  const size_t n = (size_t)H.nrows;
  uint8_t *gs = malloc(n), *ds = NULL;
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, n, (void **)&ds));
  for (int step = 0; step < 6; ++step) {
    mispc_tuning t = {0};
    mispc_mis_options o;
    mispc_mis_options_default(&o);
    const int k = 1 + (step & 1);
    if (step == 2) t.mis_no_persistent = 1, o.max_rounds = MIS1_MAX_ROUNDS;
    if (step == 3) t.mis_no_smem = 1;
    CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
    memset(gs, 0xAA, n);
    CHECK_OK(ctx, mispc_memcpy(ctx, ds, MISPC_MEM_DEVICE, gs, MISPC_MEM_HOST, n));
    mispc_mis_result r = {-1, -1};
    CHECK_OK(ctx, k == 1 ? mispc_mis1(ctx, &D, &o, ds, &r) : mispc_mis2(ctx, &D, &o, ds, &r));
    mispc_context_set_tuning_(ctx, NULL);
    CHECK_OK(ctx, mispc_memcpy(ctx, gs, MISPC_MEM_HOST, ds, MISPC_MEM_DEVICE, n));
    int64_t members = 0, bad = 0;
    for (size_t v = 0; v < n; ++v) members += gs[v] == 1, bad += gs[v] > 1;
    /* MIS-1 without a round limit: the sync-free pass, no rounds */
    CHECK_MSG(!bad && members == r.set_size && (r.rounds > 0 || (k == 1 && !o.max_rounds)),
              "step %d MIS-%d: %lld members, set size %lld, %lld bytes neither 0 nor 1", step, k,
              (long long)members, (long long)r.set_size, (long long)bad);
  }
  for (int k = 1; k <= 2; ++k) { /* the host's words after a round limit */
    mispc_mis_options o;
    mispc_mis_options_default(&o);
    o.max_rounds = 1;
    mispc_mis_result r;
    uint8_t *hs = malloc(n);
    CHECK_STATUS(ctx, k == 1 ? mispc_mis1(ctx, &H, &o, hs, &r) : mispc_mis2(ctx, &H, &o, hs, &r),
                 MISPC_ERR_NOT_CONVERGED);
    char host[256];
    snprintf(host, sizeof host, "%s", mispc_context_error(ctx));
    CHECK_STATUS(ctx, k == 1 ? mispc_mis1(ctx, &D, &o, ds, &r) : mispc_mis2(ctx, &D, &o, ds, &r),
                 MISPC_ERR_NOT_CONVERGED);
    CHECK_MSG(!strcmp(host, mispc_context_error(ctx)), "MIS-%d round limit: host '%s', GPU '%s'", k,
              host, mispc_context_error(ctx));
    free(hs);
  }
  mispc_free(ctx, MISPC_MEM_DEVICE, ds);
  free(gs);
  mispc_csr_free(ctx, &D);
  mispc_csr_free(ctx, &H);
}

static void test_gpu_star_and_clique(void) {
  mispc_csr S = star_graph(ctx, 5000), C = clique_graph(ctx, 300), D;
  uint8_t *ds = NULL, hs[6000];
  mispc_mis_result r;
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, 6000, (void **)&ds));
  CHECK_OK(ctx, mispc_csr_copy(ctx, &S, MISPC_MEM_DEVICE, &D));
  CHECK_OK(ctx, mispc_mis1(ctx, &D, NULL, ds, &r)); /* hub has degree 5000: warp path */
  CHECK(r.set_size == 5000);
  CHECK_OK(ctx, mispc_memcpy(ctx, hs, MISPC_MEM_HOST, ds, MISPC_MEM_DEVICE, 5001));
  CHECK(hs[0] == 0 && hs[1] == 1 && hs[5000] == 1);
  CHECK_OK(ctx, mispc_mis2(ctx, &D, NULL, ds, &r));
  CHECK(r.set_size == 1);
  mispc_csr_free(ctx, &D);
  CHECK_OK(ctx, mispc_csr_copy(ctx, &C, MISPC_MEM_DEVICE, &D));
  CHECK_OK(ctx, mispc_mis1(ctx, &D, NULL, ds, &r));
  CHECK(r.set_size == 1);
  CHECK_OK(ctx, mispc_mis2(ctx, &D, NULL, ds, &r));
  CHECK(r.set_size == 1);
  mispc_csr_free(ctx, &D);
  mispc_free(ctx, MISPC_MEM_DEVICE, ds);
  mispc_csr_free(ctx, &S);
  mispc_csr_free(ctx, &C);
}

/* The exact oracle: GPU MIS-1 is sequential greedy in key order, through the
 * rounds (Kronecker: hubs) and through the sync-free pass (meshes, random). */
static void test_gpu_mis1_equals_greedy(void) {
  const char *g[] = {"gen:kron:15",      "gen:laplace3d:30", "gen:random:100000:8",
                     "gen:laplace2d:32", "gen:kron:12",      "gen:random:16000:8"};
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i) {
    mispc_csr H, D;
    CHECK_OK(ctx, mispc_generate(ctx, g[i], 5, &H));
    size_t n = (size_t)H.nrows;
    uint8_t *ref = malloc(n), *gs = malloc(n), *ds = NULL;
    CHECK_OK(ctx, mispc_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &D));
    CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, n, (void **)&ds));
    mispc_mis_result r;
    CHECK_OK(ctx, mispc_mis1(ctx, &D, NULL, ds, &r));
    CHECK_OK(ctx, mispc_memcpy(ctx, gs, MISPC_MEM_HOST, ds, MISPC_MEM_DEVICE, n));
    uint64_t *key = mis1_keys(&H, MIS1_KEY_LINES, 0); /* the default */
    greedy_mis(&H, 1, key, ref);
    CHECK_MSG(!memcmp(ref, gs, n), "%s: GPU MIS-1 differs from sequential greedy", g[i]);
    free(key);
    free(ref);
    free(gs);
    mispc_free(ctx, MISPC_MEM_DEVICE, ds);
    mispc_csr_free(ctx, &D);
    mispc_csr_free(ctx, &H);
  }
}

static void test_gpu_edge_cases_and_errors(void) {
  uint8_t *ds = NULL;
  mispc_mis_result r;
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, 16, (void **)&ds));
  mispc_csr U = one_way_pair(), D, E;
  CHECK_OK(ctx, mispc_csr_copy(ctx, &U, MISPC_MEM_DEVICE, &D));
  CHECK_STATUS(ctx, mispc_mis1(ctx, &D, NULL, ds, &r), MISPC_ERR_UNSYMMETRIC);
  CHECK(strstr(mispc_context_error(ctx), "not symmetric") != NULL);
  CHECK_STATUS(ctx, mispc_mis2(ctx, &D, NULL, ds, &r), MISPC_ERR_UNSYMMETRIC);
  mispc_csr_free(ctx, &D);
  int64_t rp0[1] = {0};
  mispc_csr_wrap(MISPC_MEM_HOST, 0, 0, 0, rp0, NULL, NULL, &E);
  CHECK_OK(ctx, mispc_csr_copy(ctx, &E, MISPC_MEM_DEVICE, &D));
  CHECK_OK(ctx, mispc_mis1(ctx, &D, NULL, ds, &r));
  CHECK(r.set_size == 0 && r.rounds == 0);
  CHECK_OK(ctx, mispc_mis2(ctx, &D, NULL, ds, &r));
  CHECK(r.set_size == 0);
  mispc_csr_free(ctx, &D);
  /* round cap on the GPU */
  mispc_csr P;
  CHECK_OK(ctx, mispc_generate(ctx, "gen:path:2000", 0, &P));
  uint8_t *dp = NULL;
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, 2000, (void **)&dp));
  CHECK_OK(ctx, mispc_csr_copy(ctx, &P, MISPC_MEM_DEVICE, &D));
  mispc_mis_options o;
  mispc_mis_options_default(&o);
  o.priority = MISPC_PRIORITY_DEGREE; /* the default's line class takes a path in one round */
  o.max_rounds = 1;
  CHECK_STATUS(ctx, mispc_mis1(ctx, &D, &o, dp, &r), MISPC_ERR_NOT_CONVERGED);
  o.priority = MISPC_PRIORITY_DEFAULT;
  CHECK_STATUS(ctx, mispc_mis2(ctx, &D, &o, dp, &r), MISPC_ERR_NOT_CONVERGED);
  mispc_free(ctx, MISPC_MEM_DEVICE, dp);
  mispc_csr_free(ctx, &D);
  mispc_csr_free(ctx, &P);
  mispc_free(ctx, MISPC_MEM_DEVICE, ds);
}

static void test_gpu_mis2_subset_equals_host(void) {
  const char *g[] = {"gen:laplace3d:30", "gen:elasticity3d:8", "gen:kron:14",
                     "gen:random:200000:8"};
  for (size_t i = 0; i < sizeof g / sizeof *g; ++i) {
    subset_case c;
    subset_case_open(&c, g[i], 3, 55);
    for (int np = 0; np <= 1; ++np) {
      mispc_tuning t = {0};
      t.mis_no_persistent = np;
      CHECK_MSG(subset_mis2_same(&c, NULL, &t), "%s: subset MIS-2 GPU != host", g[i]);
    }
    subset_case_close(&c);
  }
}

/* MISPC_PRIORITY_COVER (its own kernels, mis2_cover_cuda.cu): the host's
 * set and rounds on whole graphs and on subsets, with every group width of
 * its kernels (tuning.mis2_cover_lanes; 0: its own choice), in one
 * persistent launch and (mis_no_persistent) a launch a step; and its round
 * limit, both ways, as the host's. */
static void test_gpu_mis2_cover_equals_host(void) {
  const char *g[] = {"gen:grid3d27:20",
                     "gen:kron:14",
                     "gen:laplace3d:30",
                     "gen:random:100000:8",
                     "gen:elasticity3d:8",
                     "gen:path:3000",
                     MISPC_TEST_DATA "/bcsstk13.mtx"};
  /* lanes, then whether a launch a step */
  const int lanes[][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1},  {2, 0},
                          {4, 0}, {8, 0}, {8, 1}, {16, 0}, {32, 0}};
  mispc_mis_options o;
  mispc_mis_options_default(&o);
  o.priority = MISPC_PRIORITY_COVER;
  for (size_t l = 0; l < sizeof lanes / sizeof *lanes; ++l) {
    mispc_tuning t = {0};
    t.mis2_cover_lanes = lanes[l][0];
    t.mis_no_persistent = lanes[l][1];
    for (size_t i = 0; i < sizeof g / sizeof *g; ++i) {
      o.seed = i + l;
      compare_backends(g[i], &o, &t, 2);
    }
    for (size_t i = 0; i < 4; ++i) {
      subset_case c;
      subset_case_open(&c, g[i], 11 + i + l, 60);
      CHECK_MSG(subset_mis2_same(&c, &o, &t),
                "%s: cover MIS-2 of a subset (%d lanes, no_persistent %d), GPU != host", g[i],
                lanes[l][0], lanes[l][1]);
      subset_case_close(&c);
    }
  }
  /* gen:laplace3d:12 takes 9 rounds: 8 fail everywhere, 9 pass */
  mispc_csr H, D;
  CHECK_OK(ctx, mispc_generate(ctx, "gen:laplace3d:12", 0, &H));
  CHECK_OK(ctx, mispc_csr_copy(ctx, &H, MISPC_MEM_DEVICE, &D));
  const int64_t n = H.nrows;
  uint8_t *hs = malloc((size_t)n), *ds = NULL, *gs = malloc((size_t)n);
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, (size_t)n, (void **)&ds));
  mispc_mis_result hr, dr;
  o.seed = 0;
  o.max_rounds = 8;
  CHECK_STATUS(ctx, mispc_mis2(ctx, &H, &o, hs, &hr), MISPC_ERR_NOT_CONVERGED);
  for (int np = 0; np <= 1; ++np) {
    mispc_tuning t = {0};
    t.mis_no_persistent = np;
    CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
    o.max_rounds = 8;
    CHECK_STATUS(ctx, mispc_mis2(ctx, &D, &o, ds, &dr), MISPC_ERR_NOT_CONVERGED);
    CHECK_MSG(strstr(mispc_context_error(ctx), "undecided after 8 rounds") != NULL, "%s",
              mispc_context_error(ctx));
    o.max_rounds = 9;
    CHECK_OK(ctx, mispc_mis2(ctx, &H, &o, hs, &hr));
    CHECK_OK(ctx, mispc_mis2(ctx, &D, &o, ds, &dr));
    CHECK_OK(ctx, mispc_memcpy(ctx, gs, MISPC_MEM_HOST, ds, MISPC_MEM_DEVICE, (size_t)n));
    CHECK_MSG(hr.rounds == 9 && dr.rounds == 9 && hr.set_size == dr.set_size &&
                  !memcmp(hs, gs, (size_t)n),
              "cover MIS-2 with max_rounds 9 (no_persistent %d): GPU %lld members in %d rounds, "
              "host %lld in %d",
              np, (long long)dr.set_size, dr.rounds, (long long)hr.set_size, hr.rounds);
  }
  free(hs);
  free(gs);
  mispc_free(ctx, MISPC_MEM_DEVICE, ds);
  mispc_csr_free(ctx, &D);
  mispc_csr_free(ctx, &H);
  mispc_context_set_tuning_(ctx, NULL);
}

int main(void) {
  test_require_gpu_or_skip();
  if (mispc_context_create(&ctx)) return 1;
  RUN_TEST(test_gpu_equals_host_all_variants);
  RUN_TEST(test_gpu_mis1_lanes_equal_host);
  RUN_TEST(test_gpu_mis1_sync_free_rule_and_subset);
  RUN_TEST(test_gpu_small_graphs_equal_host);
  RUN_TEST(test_gpu_mis2_small_graphs_equal_host);
  RUN_TEST(test_gpu_mis2_hub_chunks_equal_host);
  RUN_TEST(test_gpu_smem_cluster_sizes_equal_host);
  RUN_TEST(test_gpu_smem_choice);
  RUN_TEST(test_gpu_smem_result_words);
  RUN_TEST(test_gpu_star_and_clique);
  RUN_TEST(test_gpu_mis1_equals_greedy);
  RUN_TEST(test_gpu_edge_cases_and_errors);
  RUN_TEST(test_gpu_mis2_subset_equals_host);
  RUN_TEST(test_gpu_mis2_cover_equals_host);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
