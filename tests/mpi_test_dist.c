/* Distributed MIS under mpiexec: every rank's slice of the distributed
 * result must equal the one-process result on the whole graph, bit for bit,
 * with the same round count and set size, for uneven row ranges (rank 1
 * owns no rows when P >= 3); the distributed verify must accept it and
 * reject broken sets on every rank; bad inputs fail on every rank, no hang.
 * Run with any P (ctest runs P = 1, 2, 3, 4, 7). Test-only shortcut: every
 * rank generates the whole graph to compute the reference. */
#include <mpi.h>

#include "mispc/dist.h"
#include "tuning.h"
#include "mpi_test_common.h"
#include "test_util.h"

static int rank_, nranks_, gpu_checked_;

/* Uneven ranges (mpi_test_split): rank 1 owns no rows when P >= 3. */
static void split(int64_t n, int64_t *rstart, int64_t *rend) {
  mpi_test_split(rank_, nranks_, n, rstart, rend);
}

/* A test's own context; threads > 0 sets its thread count. */
static mispc_context *test_context(int threads) {
  mispc_context *ctx;
  mispc_context_create(&ctx);
  if (threads > 0) mispc_context_set_num_threads(ctx, threads);
  return ctx;
}

static mispc_csr load_graph(mispc_context *ctx, const char *spec) {
  mispc_csr A, S;
  memset(&S, 0, sizeof S);
  if (mispc_load(ctx, spec, &A) || mispc_csr_symmetrize(ctx, &A, 0, &S)) {
    fprintf(stderr, "%s: %s\n", spec, mispc_context_error(ctx));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  mispc_csr_free(ctx, &A);
  return S;
}

/* Whether two distributed graphs have the same rows, ghosts and sizes. */
static int dist_same(const mispc_dist_csr *a, const mispc_dist_csr *b) {
  return a->rstart == b->rstart && a->rend == b->rend && a->nglobal == b->nglobal &&
         csr_same_bits(&a->diag, &b->diag) && csr_same_bits(&a->offd, &b->offd) &&
         a->nghost == b->nghost &&
         !memcmp(a->garray, b->garray, sizeof(int64_t) * (size_t)a->nghost);
}

/* mispc_dist_load(spec) gives this rank the same rows, ghosts and sizes as
 * mispc_dist_csr_from_rows of the whole graph (mispc_load(whole)) on the
 * even split; and so does the ghost index of graphs over 2^31 vertices (a
 * search an entry, tuning dist_ghost_search) against the key sort. */
static void check_rows_as_whole(mispc_context *ctx, const char *spec, const char *whole) {
  mispc_csr W;
  mispc_dist_csr D, R, S;
  CHECK_OK(ctx, mispc_load(ctx, whole, &W));
  int64_t r0 = W.nrows * rank_ / nranks_, r1 = W.nrows * (rank_ + 1) / nranks_;
  CHECK_OK(ctx, mispc_dist_load(ctx, MPI_COMM_WORLD, spec, 0, &D));
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &W, r0, r1, &R));
  CHECK_MSG(D.rstart == r0 && D.rend == r1 && D.nglobal == W.nrows && dist_same(&D, &R),
            "%s: rows loaded by range differ from the whole graph's on rank %d", spec, rank_);
  mispc_tuning t0, t;
  mispc_context_get_tuning_(ctx, &t0);
  t = t0, t.dist_ghost_search = 1;
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &W, r0, r1, &S));
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t0));
  CHECK_MSG(dist_same(&S, &R), "%s: ghost indices by search differ from the key sort's on rank %d",
            spec, rank_);
  mispc_dist_csr_free(ctx, &D);
  mispc_dist_csr_free(ctx, &R);
  mispc_dist_csr_free(ctx, &S);
  mispc_csr_free(ctx, &W);
}

typedef struct variant {
  int k;
  mispc_priority priority;
  uint64_t seed;
  int use_subset;
} variant;

static const variant variants[] = {
    {1, MISPC_PRIORITY_DEFAULT, 0, 0},        {1, MISPC_PRIORITY_HASH, 7, 0},
    {1, MISPC_PRIORITY_LARGEST_DEGREE, 3, 0}, {1, MISPC_PRIORITY_DEFAULT, 5, 1},
    {2, MISPC_PRIORITY_DEFAULT, 0, 0},        {2, MISPC_PRIORITY_HASH, 11, 0},
    {2, MISPC_PRIORITY_DEFAULT, 2, 1},        {2, MISPC_PRIORITY_COVER, 3, 0},
    {2, MISPC_PRIORITY_COVER, 4, 1},
};

/* The coloring (cv: 0..3) and aggregation (av: 0..2) variants compared. */
static void color_variant(int cv, mispc_coloring_options *co) {
  mispc_coloring_options_default(co);
  if (cv == 1) co->mis.priority = MISPC_PRIORITY_LARGEST_DEGREE, co->mis.seed = 5;
  if (cv == 2) co->algo = MISPC_COLORING_GREEDY;
  if (cv == 3) co->recolor = 3;
}

static void agg_variant(int av, mispc_agg_options *ao) {
  mispc_agg_options_default(ao);
  if (av == 1) ao->algo = MISPC_AGG_MIS2BASIC;
  if (av == 2) ao->mis.seed = 17, ao->mis.priority = MISPC_PRIORITY_HASH;
  if (av == 3) ao->phase2_min_free = 8;
  if (av == 4) ao->mis.seed = 6, ao->mis.priority = MISPC_PRIORITY_COVER;
}

static int same_info(const mispc_dist_agg_info *info, const mispc_aggregates *aref) {
  return info->naggs == aref->naggs && info->phase_aggs[0] == aref->phase_aggs[0] &&
         info->phase_aggs[1] == aref->phase_aggs[1] && info->phase_done[1] == aref->phase_done[1] &&
         info->mis_rounds[0] == aref->mis_rounds[0] && info->mis_rounds[1] == aref->mis_rounds[1];
}

/* What one comparison runs on: the reference graph G, the distributed graph D
 * (host memory) and the graph the calls run on, D or its device copy. */
typedef struct compared {
  const char *spec, *tag; /* tag: "" or "GPU " in messages */
  const mispc_csr *G;
  const mispc_dist_csr *D, *run; /* run: D or its device copy */
  int dev;                       /* 1: run is in device memory */
  int64_t r0, r1;
} compared;

/* Copies `bytes` of labels from `src`, in the run graph's memory, to the host
 * buffer `dst` (nothing to do on the host, where they are one buffer). */
static void labels_to_host(mispc_context *ctx, const compared *c, void *dst, const void *src,
                           size_t bytes) {
  if (c->dev) CHECK_OK(ctx, mispc_memcpy(ctx, dst, MISPC_MEM_HOST, src, MISPC_MEM_DEVICE, bytes));
}

/* Every MIS variant: the run graph's set (out, in its memory; mine, its host
 * copy) must equal the one-process set ref of G on this rank's rows, with the
 * same rounds and size. sub: the subset of G; dsub: this rank's slice of it,
 * in the run graph's memory. */
static void compare_mis(mispc_context *ctx, const compared *c, const uint8_t *sub,
                        const uint8_t *dsub, uint8_t *ref, uint8_t *out, uint8_t *mine) {
  for (size_t i = 0; i < sizeof variants / sizeof *variants; ++i) {
    const variant *x = &variants[i];
    mispc_mis_options o;
    mispc_mis_options_default(&o);
    o.priority = x->priority;
    o.seed = x->seed;
    mispc_mis_result rr = {-1, -1}, rd = {-2, -2};
    const uint8_t *s1 = x->use_subset ? sub : NULL, *sd = x->use_subset ? dsub : NULL;
    if (x->k == 1) {
      CHECK_OK(ctx, mispc_mis1_subset(ctx, c->G, &o, s1, ref, &rr));
      CHECK_OK(ctx, mispc_dist_mis1(ctx, c->run, &o, sd, out, &rd));
    } else {
      CHECK_OK(ctx, mispc_mis2_subset(ctx, c->G, &o, s1, ref, &rr));
      CHECK_OK(ctx, mispc_dist_mis2(ctx, c->run, &o, sd, out, &rd));
    }
    labels_to_host(ctx, c, mine, out, (size_t)(c->r1 - c->r0));
    int64_t diff = 0;
    for (int64_t v = c->r0; v < c->r1; ++v) diff += mine[v - c->r0] != ref[v];
    CHECK_MSG(diff == 0, "%s%s k=%d variant %zu: %lld vertices differ on rank %d of %d", c->tag,
              c->spec, x->k, i, (long long)diff, rank_, nranks_);
    CHECK_MSG(rd.rounds == rr.rounds && rd.set_size == rr.set_size,
              "%s%s k=%d variant %zu: rounds %d/%d, size %lld/%lld (dist/ref)", c->tag, c->spec,
              x->k, i, rd.rounds, rr.rounds, (long long)rd.set_size, (long long)rr.set_size);
    if (!x->use_subset) CHECK_OK(ctx, mispc_dist_verify_mis(ctx, c->run, x->k, out));
    if (!c->dev && rank_ == 0 && i == 0)
      printf("  %s on %d ranks: MIS-1 %lld members, %d rounds\n", c->spec, nranks_,
             (long long)rd.set_size, rd.rounds);
  }
}

/* Every coloring variant (cv: 0..3: MIS classes with two priorities, greedy
 * in id order, recolored): the run graph's colors (lab, in its
 * memory; hlab, its host copy) against mispc_color of G, verified on D. */
static void compare_colorings(mispc_context *ctx, const compared *c, int32_t *lab, int32_t *hlab) {
  for (int cv = 0; cv < 4; ++cv) {
    mispc_coloring_options co;
    color_variant(cv, &co);
    mispc_coloring cref;
    int32_t nc = -1;
    CHECK_OK(ctx, mispc_color(ctx, c->G, &co, &cref));
    CHECK_OK(ctx, mispc_dist_color(ctx, c->run, &co, lab, &nc));
    labels_to_host(ctx, c, hlab, lab, sizeof(int32_t) * (size_t)(c->r1 - c->r0));
    int64_t diff = 0;
    for (int64_t v = c->r0; v < c->r1; ++v) diff += hlab[v - c->r0] != cref.color[v];
    CHECK_MSG(diff == 0 && nc == cref.ncolors,
              "%s%s coloring %d: %lld colors differ on rank %d of %d; %d colors, reference %d",
              c->tag, c->spec, cv, (long long)diff, rank_, nranks_, nc, cref.ncolors);
    CHECK_OK(ctx, mispc_dist_verify_coloring(ctx, c->D, hlab, nc));
    mispc_coloring_free(ctx, &cref);
  }
}

/* Every aggregation variant (av: 0..4; both algorithms, two seeds, fewer
 * secondary roots, the cover priority): labels
 * (lab, in the run graph's memory; hlab, their host copy) and phase counts
 * against mispc_aggregate of G. */
static void compare_aggregations(mispc_context *ctx, const compared *c, int32_t *lab,
                                 int32_t *hlab) {
  for (int av = 0; av < 5; ++av) {
    mispc_agg_options ao;
    agg_variant(av, &ao);
    mispc_aggregates aref;
    mispc_dist_agg_info info;
    memset(&info, 0, sizeof info);
    CHECK_OK(ctx, mispc_aggregate(ctx, c->G, &ao, &aref));
    CHECK_OK(ctx, mispc_dist_aggregate(ctx, c->run, &ao, lab, &info));
    labels_to_host(ctx, c, hlab, lab, sizeof(int32_t) * (size_t)(c->r1 - c->r0));
    int64_t diff = 0;
    for (int64_t v = c->r0; v < c->r1; ++v) diff += hlab[v - c->r0] != aref.agg[v];
    CHECK_MSG(diff == 0 && same_info(&info, &aref),
              "%s%s aggregation %d: %lld labels differ on rank %d of %d; %lld aggregates, ref %lld",
              c->tag, c->spec, av, (long long)diff, rank_, nranks_, (long long)info.naggs,
              (long long)aref.naggs);
    mispc_aggregates_free(ctx, &aref);
  }
}

/* compare_aggregations under tuning t (the context's own restored after). */
static void compare_aggregations_tuned(mispc_context *ctx, const compared *c, int32_t *lab,
                                       int32_t *hlab, const mispc_tuning *t) {
  mispc_tuning t0;
  mispc_context_get_tuning_(ctx, &t0);
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, t));
  compare_aggregations(ctx, c, lab, hlab);
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t0));
}

/* A round limit: the distributed aggregation fails or succeeds with one
 * process's status, on every rank (the GPU's one-kernel MIS-2 calls leave
 * their round counts on the device until the call's end, where each rank
 * checks them). */
static void compare_round_limit(mispc_context *ctx, const compared *c, int32_t *lab) {
  for (int cover = 0; cover < 2; ++cover) { /* the per-round hash, then the cover rounds */
    mispc_agg_options ao;
    mispc_agg_options_default(&ao);
    ao.mis.max_rounds = 1;
    if (cover) ao.mis.priority = MISPC_PRIORITY_COVER;
    mispc_aggregates aref;
    memset(&aref, 0, sizeof aref);
    const mispc_status want = mispc_aggregate(ctx, c->G, &ao, &aref);
    if (!want) mispc_aggregates_free(ctx, &aref);
    const mispc_status got = mispc_dist_aggregate(ctx, c->run, &ao, lab, NULL);
    int st[2] = {(int)got, -(int)got}, all[2] = {0, 0};
    MPI_Allreduce(st, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK_MSG(got == want && all[0] == -all[1],
              "%s%s aggregation with max_rounds 1%s: status %d on rank %d (one process %d; "
              "ranks %d to %d)",
              c->tag, c->spec, cover ? " (cover)" : "", (int)got, rank_, (int)want, -all[1],
              all[0]);
  }
}

/* MIS-1 with a round limit: one process's status on every rank, and its
 * round count where the limit was enough. out: the run graph's members
 * (its memory). */
static void compare_mis1_round_limit(mispc_context *ctx, const compared *c, uint8_t *ref,
                                     uint8_t *out) {
  for (int limit = 1; limit <= 2; ++limit) {
    mispc_mis_options o;
    mispc_mis_options_default(&o);
    o.max_rounds = limit;
    mispc_mis_result rr, rd;
    const mispc_status want = mispc_mis1(ctx, c->G, &o, ref, &rr);
    const mispc_status got = mispc_dist_mis1(ctx, c->run, &o, NULL, out, &rd);
    int st[2] = {(int)got, -(int)got}, all[2] = {0, 0};
    MPI_Allreduce(st, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK_MSG(got == want && all[0] == -all[1] && (got || rd.rounds == rr.rounds),
              "%s%s MIS-1 with max_rounds %d: status %d on rank %d (one process %d; ranks %d to "
              "%d)",
              c->tag, c->spec, limit, (int)got, rank_, (int)want, -all[1], all[0]);
  }
}

static void compare_on(mispc_context *ctx, const char *spec) {
  mispc_csr G = load_graph(ctx, spec);
  int64_t n = G.nrows, r0, r1;
  split(n, &r0, &r1);
  mispc_dist_csr D;
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &G, r0, r1, &D));
  CHECK_OK(ctx, mispc_dist_csr_check(ctx, &D)); /* symmetric across ranks */
  const size_t nl = (size_t)(r1 - r0) + 1;
  uint8_t *ref = malloc((size_t)n + 1), *sub = malloc((size_t)n + 1), *mine = malloc(nl);
  int32_t *hlab = malloc(sizeof(int32_t) * nl);
  for (int64_t v = 0; v < n; ++v) sub[v] = mispc_hash3(99, 0, (uint64_t)v) % 3 != 0;
  compared host = {spec, "", &G, &D, &D, 0, r0, r1};
  compare_mis(ctx, &host, sub, sub + r0, ref, mine, mine);
  compare_mis1_round_limit(ctx, &host, ref, mine);
  /* The GPU path (several ranks may share one GPU: host-staged transport). */
  if (mispc_have_gpu()) {
    mispc_dist_csr DD;
    uint8_t *dset = NULL, *dsub = NULL;
    CHECK_OK(ctx, mispc_dist_csr_copy(ctx, &D, MISPC_MEM_DEVICE, &DD));
    CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, nl, (void **)&dset));
    CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, nl, (void **)&dsub));
    CHECK_OK(ctx, mispc_memcpy(ctx, dsub, MISPC_MEM_DEVICE, sub + r0, MISPC_MEM_HOST, nl - 1));
    compared gpu = {spec, "GPU ", &G, &D, &DD, 1, r0, r1};
    compare_mis(ctx, &gpu, sub, dsub, ref, dset, mine);
    compare_mis1_round_limit(ctx, &gpu, ref, dset);
    /* Coloring and aggregation of the device graph: labels in device memory. */
    int32_t *dlab = NULL;
    CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(int32_t) * nl, (void **)&dlab));
    compare_colorings(ctx, &gpu, dlab, hlab);
    compare_aggregations(ctx, &gpu, dlab, hlab);
    {
      mispc_tuning t0, t;
      mispc_context_get_tuning_(ctx, &t0);
      /* the roots numbered by a scan a phase (graphs of 2^30 vertices or more) */
      t = t0;
      t.dist_agg_scan_labels = 1;
      compared scanned = {spec, "GPU scanned labels ", &G, &D, &DD, 1, r0, r1};
      compare_aggregations_tuned(ctx, &scanned, dlab, hlab, &t);
      /* phase 3's leftovers of every row of more than 32 entries (the warp's
       * rows) pick from sorted labels, as by default those of over 256 */
      t = t0;
      t.dist_pick_sort_rows = 32;
      compared sorted = {spec, "GPU sorted picks ", &G, &D, &DD, 1, r0, r1};
      compare_aggregations_tuned(ctx, &sorted, dlab, hlab, &t);
      /* MIS-2's columns of rows over 32 entries (owned and ghost columns)
       * in chunks of 16 over the grid, as those of over 1024 by default */
      t = t0;
      t.mis2_hub_row = 32;
      CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
      compared hubs = {spec, "GPU hub chunks ", &G, &D, &DD, 1, r0, r1};
      compare_mis(ctx, &hubs, sub, dsub, ref, dset, mine);
      compare_aggregations(ctx, &hubs, dlab, hlab);
      CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t0));
    }
    if (!strcmp(mispc_dist_transport_name(&DD), "nccl")) {
      /* MIS-2 rounds as CUDA graphs, all rounds in one kernel a rank with the
       * ghosts stored over NVLink (where NCCL's LSA team holds every rank;
       * else the host-driven rounds again), and the host-driven rounds (the
       * default picks one of the last two by the halo's size) */
      static const char *const tags[3] = {"GPU graph rounds ", "GPU one-kernel rounds ",
                                          "GPU host-driven rounds "};
      mispc_tuning t0, t;
      mispc_context_get_tuning_(ctx, &t0);
      for (int k = 0; k < 3; ++k) {
        t = t0;
        if (k == 0)
          t.dist_graph_rounds = 1, t.dist_lsa_rounds = 2;
        else
          t.dist_lsa_rounds = k;
        CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
        compared knob = {spec, tags[k], &G, &D, &DD, 1, r0, r1};
        compare_mis(ctx, &knob, sub, dsub, ref, dset, mine);
        compare_aggregations(ctx, &knob, dlab, hlab);
        compare_round_limit(ctx, &knob, dlab);
        compare_mis1_round_limit(ctx, &knob, ref, dset);
        /* the coloring in one kernel a rank (its default over NCCL, polled:
         * above) with a warp, with 8 lanes a vertex and a barrier a pass,
         * and host-driven */
        t.dist_color_lanes = k == 0 ? 32 : k == 1 ? 8 : 0;
        t.dist_color_barriers = k == 1; /* and a barrier a pass */
        if (k == 0) t.dist_lsa_rounds = 0;
        CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
        compare_colorings(ctx, &knob, dlab, hlab);
      }
      CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t0));
    }
    mispc_free(ctx, MISPC_MEM_DEVICE, dlab);
    mispc_free(ctx, MISPC_MEM_DEVICE, dset);
    mispc_free(ctx, MISPC_MEM_DEVICE, dsub);
    mispc_dist_csr_free(ctx, &DD);
    gpu_checked_ = 1;
  }
  compare_aggregations(ctx, &host, hlab, hlab);
  { /* every phase-3 leftover picks from sorted labels (by default those of
       rows over 64 entries) */
    mispc_tuning t;
    mispc_context_get_tuning_(ctx, &t);
    t.dist_pick_sort_rows = 1;
    compared sorted = {spec, "sorted picks ", &G, &D, &D, 0, r0, r1};
    compare_aggregations_tuned(ctx, &sorted, hlab, hlab, &t);
  }
  compare_round_limit(ctx, &host, hlab);
  compare_colorings(ctx, &host, hlab, hlab);
  /* Two neighbours of one color (or a color out of range) fail everywhere. */
  int chas = -1, clast = -1;
  int64_t a = -1;
  int32_t b = -1;
  for (int64_t v = 0; v < r1 - r0 && a < 0; ++v)
    for (int64_t p = D.diag.rowptr[v]; p < D.diag.rowptr[v + 1] && a < 0; ++p)
      if (D.diag.colidx[p] != v) a = v, b = D.diag.colidx[p];
  chas = a >= 0 ? rank_ : -1;
  MPI_Allreduce(&chas, &clast, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (clast >= 0) {
    int32_t nc = 0;
    mispc_coloring_options co;
    mispc_coloring_options_default(&co);
    CHECK_OK(ctx, mispc_dist_color(ctx, &D, &co, hlab, &nc));
    if (rank_ == clast) hlab[a] = hlab[b];
    CHECK_STATUS(ctx, mispc_dist_verify_coloring(ctx, &D, hlab, nc), MISPC_ERR_VERIFY);
  }
  /* A broken set fails on every rank: drop the first member of the last rank
   * that has one (maximality), then add a neighbour of a member (independence). */
  mispc_mis_options o;
  mispc_mis_options_default(&o);
  mispc_mis_result rd;
  for (int k = 1; k <= 2; ++k) {
    CHECK_OK(ctx, k == 1 ? mispc_dist_mis1(ctx, &D, &o, NULL, mine, &rd)
                         : mispc_dist_mis2(ctx, &D, &o, NULL, mine, &rd));
    /* The first member with a non-member neighbour in the diagonal block. */
    int64_t first = -1;
    int32_t u = -1;
    for (int64_t v = 0; v < r1 - r0 && first < 0; ++v)
      for (int64_t p = D.diag.rowptr[v]; mine[v] && p < D.diag.rowptr[v + 1] && first < 0; ++p)
        if (D.diag.colidx[p] != v) first = v, u = D.diag.colidx[p];
    int has = first >= 0 ? rank_ : -1, last = -1;
    MPI_Allreduce(&has, &last, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(last >= 0);
    if (rank_ == last) mine[first] = 0;
    CHECK_STATUS(ctx, mispc_dist_verify_mis(ctx, &D, k, mine), MISPC_ERR_VERIFY);
    if (rank_ == last) mine[first] = 1;
    CHECK_OK(ctx, mispc_dist_verify_mis(ctx, &D, k, mine));
    if (rank_ == last) mine[u] = 1; /* next to a member */
    CHECK_STATUS(ctx, mispc_dist_verify_mis(ctx, &D, k, mine), MISPC_ERR_VERIFY);
    CHECK(strstr(mispc_context_error(ctx), "rank ") != NULL);
  }
  mispc_dist_csr_free(ctx, &D);
  mispc_csr_free(ctx, &G);
  free(ref);
  free(sub);
  free(mine);
  free(hlab);
}

static void test_identity(void) {
  mispc_context *ctx = test_context(1);
  const char *specs[] = {"gen:path:101",
                         "gen:laplace2d:23",
                         "gen:laplace3d:9",
                         "gen:random:3000:10",
                         "gen:kron:10",
                         "gen:roadgrid:40",
                         "gen:elasticity3d:4",
                         MISPC_TEST_DATA "/bcsstk13.mtx",
                         MISPC_TEST_DATA "/delaunay_n14.mtx",
                         MISPC_TEST_DATA "/fe_4elt2.metis.graph",
                         MISPC_TEST_DATA "/PGPgiantcompo.metis.graph"};
  /* MISPC_DIST_TEST_QUICK=1: the first three graphs (for compute-sanitizer runs). */
  const char *quick = getenv("MISPC_DIST_TEST_QUICK");
  size_t count = quick && !strcmp(quick, "1") ? 3 : sizeof specs / sizeof *specs;
  for (size_t i = 0; i < count; ++i) compare_on(ctx, specs[i]);
  mispc_context_destroy(ctx);
}

/* Stencil generators (the anisotropic ones with their arguments too) make
 * each rank's own rows: the same rows as the whole generator's, cut to the
 * even split; so do edge-list generators (kron, random), which draw every
 * edge and keep their rows. */
static void test_row_generators(void) {
  mispc_context *ctx = test_context(0);
  const char *specs[] = {"gen:laplace2d:23",       "gen:laplace3d:9",   "gen:grid2d:20",
                         "gen:grid3d27:7",         "gen:path:101",      "gen:aniso2d:21",
                         "gen:aniso2d:19:0.01:30", "gen:aniso3d:8:0.05"};
  for (size_t i = 0; i < sizeof specs / sizeof *specs; ++i)
    check_rows_as_whole(ctx, specs[i], specs[i]);
  /* Kronecker graphs: every rank draws the edges, keeps its rows */
  const char *kron[] = {"gen:kron:10", "gen:kron:12:8", "gen:kron:3:1"};
  for (size_t i = 0; i < sizeof kron / sizeof *kron; ++i)
    check_rows_as_whole(ctx, kron[i], kron[i]);
  /* Random graphs: every rank hashes every edge, keeps its rows (a degree
   * below 1: isolated vertices; one vertex: only self loops, dropped);
   * road grids and elasticity: each rank makes its rows (elasticity's
   * nodes split between ranks where 3 does not divide a range) */
  const char *rnd[] = {"gen:random:3000:10", "gen:random:777:0.5", "gen:random:1:4",
                       "gen:random:50",      "gen:roadgrid:40",    "gen:roadgrid:23:0.6",
                       "gen:roadgrid:1",     "gen:elasticity3d:5", "gen:elasticity3d:1"};
  for (size_t i = 0; i < sizeof rnd / sizeof *rnd; ++i) check_rows_as_whole(ctx, rnd[i], rnd[i]);
  /* their arguments out of range: the generator's message on every rank */
  const char *bad[][2] = {{"gen:random:0", "N must be >= 1"},
                          {"gen:random:10:-1", "average degree must be >= 0"},
                          {"gen:random:3000000000", "exceeds"},
                          {"gen:kron:31", "SCALE 31"},
                          {"gen:aniso2d:10:0", "EPS must be > 0"},
                          {"gen:aniso3d:0", "N must be >= 1"},
                          {"gen:laplace3d:5:7", "too many arguments"},
                          {"gen:roadgrid:10:1.5", "P must be in [0, 1]"},
                          {"gen:roadgrid:50000", "more than"},
                          {"gen:elasticity3d:1001", "more than"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    mispc_dist_csr B;
    CHECK(mispc_dist_load(ctx, MPI_COMM_WORLD, bad[i][0], 0, &B) != MISPC_SUCCESS);
    CHECK_MSG(strstr(mispc_context_error(ctx), bad[i][1]) != NULL, "%s: '%s'", bad[i][0],
              mispc_context_error(ctx));
  }
  /* MatrixMarket files (symmetric and general, plain and .gz where present):
   * each rank keeps its rows; the same rows as the whole file's */
  const char *mtx[] = {MISPC_TEST_DATA "/bcsstk13.mtx", MISPC_TEST_DATA "/delaunay_n14.mtx"};
  for (size_t i = 0; i < sizeof mtx / sizeof *mtx; ++i) check_rows_as_whole(ctx, mtx[i], mtx[i]);
  /* METIS graph files: every rank parses every line, keeps its rows */
  const char *metis[] = {MISPC_TEST_DATA "/fe_4elt2.metis.graph",
                         MISPC_TEST_DATA "/PGPgiantcompo.metis.graph"};
  for (size_t i = 0; i < sizeof metis / sizeof *metis; ++i)
    check_rows_as_whole(ctx, metis[i], metis[i]);
  /* PETSc binary files: each rank reads its rows; the same rows as the whole file's */
  char pf[4200];
  test_tmp_file(pf, sizeof pf, "mpi_test_dist", "petsc");
  MPI_Bcast(pf, (int)sizeof pf, MPI_CHAR, 0, MPI_COMM_WORLD);
  mispc_csr W, R1;
  CHECK_OK(ctx, mispc_load(ctx, MISPC_TEST_DATA "/bcsstk13.mtx", &W));
  if (rank_ == 0) CHECK_OK(ctx, mispc_write_petsc(ctx, pf, &W));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_OK(ctx, mispc_read_petsc(ctx, pf, &R1));
  CHECK(csr_same_bits(&W, &R1));
  check_rows_as_whole(ctx, pf, MISPC_TEST_DATA "/bcsstk13.mtx");
  mispc_csr_free(ctx, &W);
  mispc_csr_free(ctx, &R1);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_ == 0) remove(pf);
  mispc_dist_csr D;
  CHECK_STATUS(ctx, mispc_dist_load(ctx, MPI_COMM_WORLD, MISPC_TEST_DATA "/README.md", 0, &D),
               MISPC_ERR_FORMAT);
  CHECK_STATUS(ctx, mispc_dist_load(ctx, MPI_COMM_WORLD, "gen:laplace3d:0", 0, &D),
               MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_dist_load(ctx, MPI_COMM_WORLD, "/no/such/file.mtx", 0, &D), MISPC_ERR_IO);
  mispc_context_destroy(ctx);
}

/* Global columns of local row i of a distributed CSR, sorted (n returned). */
static int64_t global_row(const mispc_dist_csr *D, int64_t i, int64_t *out) {
  int64_t n = 0;
  for (int64_t p = D->diag.rowptr[i]; p < D->diag.rowptr[i + 1]; ++p)
    out[n++] = D->rstart + D->diag.colidx[p];
  for (int64_t p = D->offd.rowptr[i]; p < D->offd.rowptr[i + 1]; ++p)
    out[n++] = D->garray[D->offd.colidx[p]];
  for (int64_t a = 1; a < n; ++a) /* insertion sort: rows are short */
    for (int64_t b = a; b > 0 && out[b - 1] > out[b]; --b) {
      int64_t t = out[b];
      out[b] = out[b - 1];
      out[b - 1] = t;
    }
  return n;
}

/* Coarse graph and tentative prolongator (constant, and rigid-body modes on
 * 3-dof nodes) equal the one-process ones row for row, bit for bit. */
static void check_coarse(mispc_context *ctx, const char *spec, int bs, int k) {
  mispc_csr A, G;
  CHECK_OK(ctx, mispc_load(ctx, spec, &A));
  CHECK_OK(ctx, mispc_strength_graph(ctx, &A, 0.0, bs, &G));
  mispc_csr_free(ctx, &A);
  const int64_t n = G.nrows;
  int64_t r0, r1;
  split(n, &r0, &r1);
  mispc_dist_csr D, DC;
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &G, r0, r1, &D));
  mispc_aggregates a;
  CHECK_OK(ctx, mispc_aggregate(ctx, &G, NULL, &a));
  int32_t *lab = malloc(sizeof(int32_t) * (size_t)(r1 - r0 + 1));
  mispc_dist_agg_info info;
  CHECK_OK(ctx, mispc_dist_aggregate(ctx, &D, NULL, lab, &info));
  /* statistics and verify */
  mispc_agg_stats s1, s2;
  CHECK_OK(ctx, mispc_aggregates_stats(ctx, &a, &s1));
  CHECK_OK(ctx, mispc_dist_aggregates_stats(ctx, &D, lab, info.naggs, &s2));
  CHECK_MSG(!memcmp(&s1, &s2, sizeof s1), "%s: aggregate statistics differ on rank %d", spec,
            rank_);
  CHECK_OK(ctx, mispc_dist_verify_aggregation(ctx, &D, lab, info.naggs));
  /* the aggregate of vertex 0 merged into the next one: it is empty now */
  int32_t l0 = rank_ == 0 && r1 > r0 ? lab[0] : -1, L0 = -1;
  MPI_Allreduce(&l0, &L0, 1, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
  int32_t *moved = malloc(sizeof(int32_t) * (size_t)(r1 - r0 + 1));
  for (int64_t v = 0; v < r1 - r0; ++v)
    moved[v] = lab[v] == L0 ? (int32_t)((L0 + 1) % info.naggs) : lab[v];
  CHECK_STATUS(ctx, mispc_dist_verify_aggregation(ctx, &D, moved, info.naggs), MISPC_ERR_VERIFY);
  CHECK(strstr(mispc_context_error(ctx), "empty") != NULL);
  free(moved);
  CHECK_STATUS(ctx, mispc_dist_verify_aggregation(ctx, &D, lab, info.naggs + 1), MISPC_ERR_VERIFY);
  /* coarse graph */
  mispc_csr C;
  CHECK_OK(ctx, mispc_coarse_graph(ctx, &G, &a, &C));
  CHECK_OK(ctx, mispc_dist_coarse_graph(ctx, &D, lab, info.naggs, &DC));
  int64_t *row = malloc(sizeof(int64_t) * (size_t)(C.nrows + 1)), bad = 0;
  for (int64_t i = 0; i < DC.rend - DC.rstart; ++i) {
    const int64_t c = DC.rstart + i, m = global_row(&DC, i, row);
    bad += m != C.rowptr[c + 1] - C.rowptr[c];
    for (int64_t q = 0; q < m && q < C.rowptr[c + 1] - C.rowptr[c]; ++q)
      bad += row[q] != C.colidx[C.rowptr[c] + q];
  }
  int64_t owned = DC.rend - DC.rstart, all = 0;
  MPI_Allreduce(&owned, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK_MSG(bad == 0 && all == C.nrows && DC.nglobal == C.nrows,
            "%s: coarse graph differs on rank %d (%lld bad entries)", spec, rank_, (long long)bad);
  /* prolongator: B from coordinates made up by a hash (any B will do) */
  double *B, *Bl, *Bc = NULL;
  mpi_test_modes(ctx, n, k, r0, r1, &B, &Bl);
  Bc = malloc(sizeof(double) * (size_t)(a.naggs * k * k + 1));
  mispc_csr Ps;
  mispc_dist_prolongator Pd;
  CHECK_OK(ctx, mispc_tentative_prolongator(ctx, &a, bs, k, B, &Ps, Bc));
  CHECK_OK(ctx, mispc_dist_tentative_prolongator(ctx, &D, lab, info.naggs, bs, k, Bl, &Pd));
  bad = 0;
  for (int64_t i = 0; i < Pd.nrows; ++i) {
    const int64_t rg = r0 * bs + i;
    for (int64_t q = 0; q < k; ++q) {
      bad += Pd.gcol[Pd.rowptr[i] + q] != Ps.colidx[Ps.rowptr[rg] + q];
      bad += memcmp(&Pd.values[Pd.rowptr[i] + q], &Ps.values[Ps.rowptr[rg] + q], 8) != 0;
    }
  }
  const int64_t nc = a.naggs * k, ldc = (Pd.cend - Pd.cstart) * k;
  for (int j = 0; j < k; ++j)
    for (int64_t r = 0; r < ldc; ++r)
      bad += memcmp(&Pd.Bc[j * ldc + r], &Bc[j * nc + Pd.cstart * k + r], 8) != 0;
  CHECK_MSG(bad == 0 && Pd.nrows == (r1 - r0) * bs && Pd.ncols == nc,
            "%s: prolongator (bs %d, k %d) differs on rank %d: %lld values", spec, bs, k, rank_,
            (long long)bad);
  mispc_dist_prolongator_free(&Pd);
  mispc_csr_free(ctx, &Ps);
  free(B), free(Bl), free(Bc), free(row), free(lab);
  mispc_csr_free(ctx, &C);
  mispc_dist_csr_free(ctx, &DC);
  mispc_aggregates_free(ctx, &a);
  mispc_dist_csr_free(ctx, &D);
  mispc_csr_free(ctx, &G);
}

/* A copy of A (host, with values) that is harder on the strength graph:
 * rows stored backwards, node blocks (I, J) dropped for a hash of (I, J)
 * (an unsymmetric node pattern, so transposes are missing within and across
 * ranks), off-diagonal values scaled by a hash of (i, j) (unsymmetric
 * strength), the diagonal and the first off-diagonal entry of each row
 * stored as two halves (repeated entries). pattern: no values. */
static void twist_matrix(mispc_context *ctx, mispc_csr *A, int bs, int pattern) {
  mispc_csr T;
  CHECK_OK(ctx, mispc_csr_alloc(ctx, MISPC_MEM_HOST, A->nrows, A->ncols, A->nnz + 2 * A->nrows,
                                !pattern, &T));
  int64_t q = 0;
  for (int64_t i = 0; i < A->nrows; ++i) {
    int halved = 0;
    for (int64_t p = A->rowptr[i + 1] - 1; p >= A->rowptr[i]; --p) {
      const int32_t j = A->colidx[p];
      const int64_t I = i / bs, J = j / bs;
      if (I != J && mispc_hash3(7, (uint64_t)I, (uint64_t)J) % 5 == 0) continue;
      double v = A->values[p];
      if (j != i) v *= 0.25 * (double)(1 + mispc_hash3(11, (uint64_t)i, (uint64_t)j) % 8);
      const int two = j == i || (I != J && !halved);
      if (I != J && two) halved = 1;
      for (int h = 0; h <= two; ++h, ++q) {
        T.colidx[q] = j;
        if (T.values) T.values[q] = two ? 0.5 * v : v;
      }
    }
    T.rowptr[i + 1] = q;
  }
  T.nnz = q;
  mispc_csr_free(ctx, A);
  *A = T;
}

/* The distributed strength graph equals mispc_strength_graph row for row
 * (node-aligned ranges). twist: 1 the matrix of twist_matrix, 2 its pattern. */
static void check_strength(mispc_context *ctx, const char *spec, int bs, double theta, int twist) {
  mispc_csr A, S;
  CHECK_OK(ctx, mispc_load(ctx, spec, &A));
  if (twist) twist_matrix(ctx, &A, bs, twist == 2);
  CHECK_OK(ctx, mispc_strength_graph(ctx, &A, theta, bs, &S));
  int64_t n0, n1;
  split(A.nrows / bs, &n0, &n1);
  mispc_dist_csr DA, DS;
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &A, n0 * bs, n1 * bs, &DA));
  CHECK_OK(ctx, mispc_dist_strength_graph(ctx, &DA, theta, bs, &DS));
  int64_t *row = malloc(sizeof(int64_t) * (size_t)(S.nrows + 1)), bad = 0;
  for (int64_t i = 0; i < DS.rend - DS.rstart; ++i) {
    const int64_t I = DS.rstart + i, m = global_row(&DS, i, row),
                  len = S.rowptr[I + 1] - S.rowptr[I];
    bad += m != len;
    for (int64_t q = 0; q < m && q < len; ++q) bad += row[q] != S.colidx[S.rowptr[I] + q];
  }
  CHECK_MSG(bad == 0 && DS.nglobal == S.nrows && DS.rstart == n0 && DS.rend == n1,
            "%s: strength graph (bs %d, theta %g) differs on rank %d: %lld", spec, bs, theta, rank_,
            (long long)bad);
  /* a range that splits a node fails on every rank */
  if (bs > 1 && nranks_ > 1) {
    mispc_dist_csr DB, DSB; /* DSB: DS still holds the graph checked above */
    int64_t r0 = rank_ == 0 ? 0 : n0 * bs + 1, r1 = rank_ == nranks_ - 1 ? A.nrows : n1 * bs + 1;
    if (r1 < r0) r1 = r0;
    if (!mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &A, r0, r1, &DB)) {
      CHECK_STATUS(ctx, mispc_dist_strength_graph(ctx, &DB, theta, bs, &DSB),
                   MISPC_ERR_INVALID_ARG);
      mispc_dist_csr_free(ctx, &DB);
    }
  }
  free(row);
  mispc_dist_csr_free(ctx, &DS);
  mispc_dist_csr_free(ctx, &DA);
  mispc_csr_free(ctx, &S);
  mispc_csr_free(ctx, &A);
}

/* mispc_dist_strength_auto equals mispc_strength_auto of the whole matrix
 * bit for bit on every rank (uneven row ranges); pattern: values dropped,
 * 0 and -1 on both. */
static void check_strength_auto(mispc_context *ctx, const char *spec, int pattern) {
  mispc_csr A;
  CHECK_OK(ctx, mispc_load(ctx, spec, &A));
  mispc_csr P = A; /* borrowed arrays, values dropped for a pattern */
  P.owned = 0;
  if (pattern) P.values = NULL;
  double t1 = 42, w1 = 42, t2 = 43, w2 = 43;
  CHECK_OK(ctx, mispc_strength_auto(ctx, &P, &t1, &w1));
  int64_t r0, r1;
  split(P.nrows, &r0, &r1);
  mispc_dist_csr D;
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &P, r0, r1, &D));
  CHECK_OK(ctx, mispc_dist_strength_auto(ctx, &D, &t2, &w2));
  CHECK_MSG(!memcmp(&t1, &t2, sizeof t1) && !memcmp(&w1, &w2, sizeof w1),
            "%s%s: automatic threshold %.17g / %.17g, weak max %.17g / %.17g on rank %d of %d",
            spec, pattern ? " (pattern)" : "", t1, t2, w1, w2, rank_, nranks_);
  if (pattern)
    CHECK_MSG(t2 == 0 && w2 == -1, "%s (pattern): theta %g, weak max %g", spec, t2, w2);
  else
    CHECK_MSG(t2 > 0, "%s: theta %g", spec, t2);
  /* a NULL output fails (every rank passes it) */
  CHECK_STATUS(ctx, mispc_dist_strength_auto(ctx, &D, NULL, &w2), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_dist_strength_auto(ctx, &D, &t2, NULL), MISPC_ERR_INVALID_ARG);
  mispc_dist_csr_free(ctx, &D);
  mispc_csr_free(ctx, &A);
}

static void test_strength_auto(void) {
  mispc_context *ctx = test_context(0);
  check_strength_auto(ctx, "gen:aniso2d:30:0.001", 0);
  check_strength_auto(ctx, "gen:aniso3d:10:0.01", 0);
  check_strength_auto(ctx, "gen:laplace3d:8", 0);
  check_strength_auto(ctx, "gen:elasticity3d:4", 0);
  check_strength_auto(ctx, MISPC_TEST_DATA "/bcsstk13.mtx", 0);
  check_strength_auto(ctx, "gen:aniso2d:30:0.001", 1);
  mispc_context_destroy(ctx);
}

static void test_coarse_levels(void) {
  mispc_context *ctx = test_context(0);
  check_coarse(ctx, "gen:laplace3d:12", 1, 1);
  check_coarse(ctx, MISPC_TEST_DATA "/bcsstk13.mtx", 1, 1);
  check_coarse(ctx, "gen:elasticity3d:5", 3, 6);
  { /* a path whose aggregate 0 = {0..4, 10..19} is cut by aggregate 1 = {5..9} */
    mispc_dist_csr D;
    CHECK_OK(ctx, mispc_dist_load(ctx, MPI_COMM_WORLD, "gen:path:20", 0, &D));
    int32_t lab[20];
    for (int64_t v = D.rstart; v < D.rend; ++v) lab[v - D.rstart] = v >= 5 && v < 10;
    CHECK_STATUS(ctx, mispc_dist_verify_aggregation(ctx, &D, lab, 2), MISPC_ERR_VERIFY);
    CHECK(strstr(mispc_context_error(ctx), "not connected") != NULL);
    for (int64_t v = D.rstart; v < D.rend; ++v) lab[v - D.rstart] = v >= 5;
    CHECK_OK(ctx, mispc_dist_verify_aggregation(ctx, &D, lab, 2));
    mispc_dist_csr_free(ctx, &D);
  }
  check_strength(ctx, "gen:elasticity3d:5", 3, 0.0, 0);
  check_strength(ctx, "gen:elasticity3d:5", 3, 0.08, 0);
  check_strength(ctx, "gen:elasticity3d:5", 1, 0.08, 0);
  check_strength(ctx, "gen:aniso2d:20:0.01:30", 1, 0.25, 0);
  check_strength(ctx, MISPC_TEST_DATA "/bcsstk13.mtx", 1, 0.1, 0);
  /* missing transposes (pattern and values), unsorted and repeated entries */
  check_strength(ctx, "gen:elasticity3d:5", 3, 0.0, 1);
  check_strength(ctx, "gen:elasticity3d:5", 3, 0.08, 1);
  check_strength(ctx, "gen:elasticity3d:5", 1, 0.3, 1);
  check_strength(ctx, "gen:aniso2d:20:0.01:30", 1, 0.25, 1);
  check_strength(ctx, MISPC_TEST_DATA "/bcsstk13.mtx", 1, 0.1, 1);
  check_strength(ctx, "gen:laplace2d:15", 1, 0.25, 2); /* a pattern: theta ignored */
  mispc_context_destroy(ctx);
  /* 3 threads a rank split the node rows (parts of 128 rows or more) */
  ctx = test_context(3);
  check_strength(ctx, "gen:elasticity3d:9", 3, 0.08, 1);
  check_strength(ctx, "gen:aniso2d:60:0.01:30", 1, 0.25, 1);
  check_strength(ctx, "gen:laplace3d:16", 1, 0.0, 0);
  mispc_context_destroy(ctx);
}

/* check_gs on the GPU (device matrix and vectors): x equal to the
 * one-process host result xref bit for bit. Cluster GS: mode 0 as chosen by
 * the setup (small clusters stage), 1 chains from global memory, 2 streamed
 * through tiles of 16 entries (the one-process GPU kernels' modes, which
 * the distributed sweep runs color by color). Mode 3 (both kinds): the
 * whole setup on its host copies (tuning dist_gs_host_setup; else point GS
 * colors and cluster GS aggregates on the GPU). */
static void check_gs_gpu(mispc_context *ctx, const mispc_gs_options *o, const mispc_dist_csr *D,
                         const double *b, const double *xref, int64_t r0, int64_t r1,
                         int zero_guess, int mode, const char *spec, int bs) {
  const int64_t nl = r1 - r0;
  mispc_tuning t;
  memset(&t, 0, sizeof t);
  t.gs_chain_global = mode == 1;
  t.gs_chain_stream = mode == 2 ? 16 : 0;
  t.dist_gs_host_setup = mode == 3;
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
  mispc_dist_csr DD;
  mispc_dist_gs *gg = NULL;
  double *db = NULL, *dx = NULL, *back = malloc(sizeof(double) * (size_t)(nl + 1));
  for (int64_t i = r0; i < r1; ++i) /* the initial guess again */
    back[i - r0] = (double)(mispc_hash3(2, 0, (uint64_t)i) >> 11) / 9e15;
  CHECK_OK(ctx, mispc_dist_csr_copy(ctx, D, MISPC_MEM_DEVICE, &DD));
  CHECK_OK(ctx,
           mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(double) * (size_t)(nl + 1), (void **)&db));
  CHECK_OK(ctx,
           mispc_malloc(ctx, MISPC_MEM_DEVICE, sizeof(double) * (size_t)(nl + 1), (void **)&dx));
  CHECK_OK(ctx,
           mispc_memcpy(ctx, db, MISPC_MEM_DEVICE, b, MISPC_MEM_HOST, sizeof(double) * (size_t)nl));
  CHECK_OK(ctx, mispc_memcpy(ctx, dx, MISPC_MEM_DEVICE, back, MISPC_MEM_HOST,
                             sizeof(double) * (size_t)nl));
  CHECK_OK(ctx, mispc_dist_gs_create(ctx, o, &gg));
  CHECK_OK(ctx, mispc_dist_gs_symbolic(ctx, gg, &DD));
  CHECK_OK(ctx, mispc_dist_gs_numeric(ctx, gg, &DD));
  CHECK_OK(ctx, mispc_dist_gs_apply(ctx, gg, &DD, db, dx, zero_guess));
  CHECK_OK(ctx, mispc_memcpy(ctx, back, MISPC_MEM_HOST, dx, MISPC_MEM_DEVICE,
                             sizeof(double) * (size_t)nl));
  int64_t ddiff = 0;
  for (int64_t i = 0; i < nl; ++i) ddiff += memcmp(&xref[i], &back[i], sizeof(double)) != 0;
  CHECK_MSG(ddiff == 0,
            "%s GS kind %d bs %d mode %d on the GPU: %lld entries differ on rank %d of %d", spec,
            (int)o->kind, bs, mode, (long long)ddiff, rank_, nranks_);
  mispc_dist_gs_destroy(ctx, gg);
  mispc_free(ctx, MISPC_MEM_DEVICE, db);
  mispc_free(ctx, MISPC_MEM_DEVICE, dx);
  free(back);
  mispc_dist_csr_free(ctx, &DD);
  mispc_context_set_tuning_(ctx, NULL);
}

/* Point and cluster multicolor GS / SOR / SGS: x bit-identical to the
 * one-process apply, the same colors and clusters, and the same options the
 * symbolic setups resolved (mispc_gs_info). Cluster GS: bs and theta as
 * mispc_gs_options (block_size, strength_threshold), lines as
 * test_gs_options (line_clusters | 2: block_solve), lines < 0: both
 * MISPC_GS_AUTO. Gives the distributed info. */
static mispc_gs_info check_gs(mispc_context *ctx, const char *spec, mispc_gs_kind kind, int bs,
                              double theta, int lines, mispc_gs_sweep sw, int sweeps, double omega,
                              int zero_guess) {
  mispc_csr A;
  CHECK_OK(ctx, mispc_load(ctx, spec, &A));
  const int64_t n = A.nrows;
  int64_t r0, r1;
  split(n / bs, &r0, &r1); /* whole nodes on every rank */
  r0 *= bs, r1 *= bs;
  mispc_dist_csr D;
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &A, r0, r1, &D));
  mispc_gs_options o = test_gs_options(kind, sw, sweeps, omega, bs, theta, lines);
  if (lines < 0) o.line_clusters = o.block_solve = MISPC_GS_AUTO;
  double *b = malloc(sizeof(double) * (size_t)(n + 1)),
         *x = malloc(sizeof(double) * (size_t)(n + 1));
  double *xl = malloc(sizeof(double) * (size_t)(r1 - r0 + 1));
  for (int64_t i = 0; i < n; ++i) {
    b[i] = (double)(mispc_hash3(1, 0, (uint64_t)i) >> 11) / 9e15 - 0.5;
    x[i] = (double)(mispc_hash3(2, 0, (uint64_t)i) >> 11) / 9e15;
  }
  for (int64_t i = r0; i < r1; ++i) xl[i - r0] = x[i];
  mispc_gs *g1 = NULL;
  mispc_dist_gs *gd = NULL;
  CHECK_OK(ctx, mispc_gs_create(ctx, &o, &g1));
  CHECK_OK(ctx, mispc_gs_symbolic(ctx, g1, &A));
  CHECK_OK(ctx, mispc_gs_numeric(ctx, g1, &A));
  CHECK_OK(ctx, mispc_gs_apply(ctx, g1, &A, b, x, zero_guess));
  CHECK_OK(ctx, mispc_dist_gs_create(ctx, &o, &gd));
  CHECK_OK(ctx, mispc_dist_gs_symbolic(ctx, gd, &D));
  CHECK_OK(ctx, mispc_dist_gs_numeric(ctx, gd, &D));
  CHECK_OK(ctx, mispc_dist_gs_apply(ctx, gd, &D, b + r0, xl, zero_guess));
  int64_t diff = 0;
  for (int64_t i = r0; i < r1; ++i) diff += memcmp(&x[i], &xl[i - r0], sizeof(double)) != 0;
  if (mispc_have_gpu()) /* the same on the GPU: device matrix and vectors */
    for (int mode = 0; mode < 4; ++mode)
      if (kind == MISPC_GS_CLUSTER || mode == 0 || mode == 3)
        check_gs_gpu(ctx, &o, &D, b + r0, x + r0, r0, r1, zero_guess, mode, spec, bs);
  mispc_gs_info i1, i2;
  mispc_gs_get_info(g1, &i1);
  mispc_dist_gs_get_info(gd, &i2, NULL);
  const int same_clusters = kind == MISPC_GS_POINT ||
                            (i1.nclusters == i2.nclusters && i1.singletons == i2.singletons &&
                             i1.min_cluster == i2.min_cluster && i1.max_cluster == i2.max_cluster);
  CHECK_MSG(diff == 0 && i1.ncolors == i2.ncolors && same_clusters,
            "%s GS kind %d bs %d theta %g lines %d sweep %d x%d omega %g guess %d: %lld entries "
            "differ, colors %d/%d, clusters %lld/%lld on rank %d of %d",
            spec, (int)kind, bs, theta, lines, (int)sw, sweeps, omega, zero_guess, (long long)diff,
            i1.ncolors, i2.ncolors, (long long)i1.nclusters, (long long)i2.nclusters, rank_,
            nranks_);
  char why[512];
  CHECK_MSG(test_same_gs_choice(&i1, &i2, why, sizeof why),
            "%s GS kind %d theta %g lines %d: resolved options differ on rank %d of %d: %s", spec,
            (int)kind, theta, lines, rank_, nranks_, why);
  mispc_gs_destroy(ctx, g1);
  mispc_dist_gs_destroy(ctx, gd);
  free(b), free(x), free(xl);
  mispc_dist_csr_free(ctx, &D);
  mispc_csr_free(ctx, &A);
  return i2;
}

/* The Gauss-Seidel variants compared (check_gs's arguments), each for the
 * kinds in its mask. */
typedef struct gs_case {
  const char *spec;
  unsigned kinds; /* PT, CL or both */
  int bs;
  double theta;
  mispc_gs_sweep sw;
  int sweeps;
  double omega;
  int zero_guess;
  int lines; /* mispc_gs_options.line_clusters, | 2: block_solve */
} gs_case;

#define PT       (1u << MISPC_GS_POINT)
#define CL       (1u << MISPC_GS_CLUSTER)
#define BCSSTK13 MISPC_TEST_DATA "/bcsstk13.mtx"
static const gs_case gs_cases[] = {
    {"gen:laplace3d:10", PT | CL, 1, 0, MISPC_GS_SYMMETRIC, 1, 1.0, 1, 0},
    {"gen:laplace3d:10", PT | CL, 1, 0, MISPC_GS_FORWARD, 2, 1.3, 0, 0},
    {"gen:laplace3d:10", CL, 1, 0, MISPC_GS_BACKWARD, 1, 0.9, 0, 0},
    /* two backward passes: a row sent to another rank is swept with its
     * color (not among the free rows: gs_host_copy.c, level_order) */
    {"gen:laplace3d:10", PT | CL, 1, 0, MISPC_GS_BACKWARD, 2, 1.0, 0, 0},
    {"gen:elasticity3d:4", PT, 1, 0, MISPC_GS_BACKWARD, 1, 0.8, 0, 0},
    {"gen:elasticity3d:4", PT, 1, 0, MISPC_GS_SYMMETRIC, 2, 1.0, 0, 0},
    {"gen:elasticity3d:4", CL, 3, 0, MISPC_GS_SYMMETRIC, 2, 1.0, 0, 0},
    {"gen:elasticity3d:4", CL, 3, 0.05, MISPC_GS_SYMMETRIC, 1, 1.0, 0, 0},
    /* from x = 0, long rows: the backward pass goes on from the forward sums */
    {"gen:elasticity3d:4", PT | CL, 3, 0, MISPC_GS_SYMMETRIC, 2, 1.0, 1, 0},
    {"gen:elasticity3d:4", CL, 1, 0, MISPC_GS_FORWARD, 1, 1.0, 1, 0},
    {"gen:aniso2d:30:0.01:30", PT, 1, 0, MISPC_GS_SYMMETRIC, 1, 1.0, 0, 0},
    {"gen:aniso2d:30:0.01:30", CL, 1, 0.25, MISPC_GS_SYMMETRIC, 1, 1.0, 0, 0},
    {BCSSTK13, PT | CL, 1, 0, MISPC_GS_SYMMETRIC, 1, 1.0, 0, 0},
    /* line clusters: whole lines (angle 0), partial chains (30 degrees), none (isotropic) */
    {"gen:aniso2d:30:0.001", CL, 1, 0.05, MISPC_GS_SYMMETRIC, 1, 1.0, 0, 1},
    {"gen:aniso2d:30:0.01:30", CL, 1, 0.25, MISPC_GS_FORWARD, 2, 1.1, 1, 1},
    {"gen:laplace3d:10", CL, 1, 0, MISPC_GS_SYMMETRIC, 1, 1.0, 0, 1},
    {BCSSTK13, CL, 1, 0.02, MISPC_GS_BACKWARD, 1, 1.0, 0, 1},
    /* exact block solves (lines | 2): whole lines, node clusters, MIS-2 clusters */
    {"gen:aniso2d:30:0.001", CL, 1, 0.05, MISPC_GS_SYMMETRIC, 2, 1.0, 1, 3},
    {"gen:elasticity3d:4", CL, 3, 0, MISPC_GS_SYMMETRIC, 1, 1.0, 0, 2},
    {"gen:laplace3d:10", CL, 1, 0, MISPC_GS_FORWARD, 1, 1.0, 0, 2},
    {BCSSTK13, CL, 1, 0.02, MISPC_GS_BACKWARD, 1, 1.0, 0, 3},
};
#undef BCSSTK13
#undef CL
#undef PT

/* Every case of gs_cases, each kind of its mask, on context ctx. */
static void check_gs_cases(mispc_context *ctx) {
  for (size_t i = 0; i < sizeof gs_cases / sizeof *gs_cases; ++i)
    for (mispc_gs_kind kind = MISPC_GS_POINT; kind <= MISPC_GS_CLUSTER; ++kind) {
      const gs_case *c = &gs_cases[i];
      if (c->kinds & (1u << kind))
        check_gs(ctx, c->spec, kind, c->bs, c->theta, c->lines, c->sw, c->sweeps, c->omega,
                 c->zero_guess);
    }
}

static void test_gauss_seidel(void) {
  mispc_context *ctx = test_context(0);
  check_gs_cases(ctx);
  { /* one thread a rank: the free rows and clusters by level (gs_host_copy.c,
     * level_order, cluster_block_order) */
    mispc_context *one = test_context(1);
    check_gs_cases(one);
    mispc_tuning t; /* and color by color in id order (tuning gs_row_order) */
    mispc_context_get_tuning_(one, &t);
    t.gs_row_order = 1;
    CHECK_OK(one, mispc_context_set_tuning_(one, &t));
    for (mispc_gs_kind kind = MISPC_GS_POINT; kind <= MISPC_GS_CLUSTER; ++kind)
      check_gs(one, "gen:laplace3d:10", kind, 1, 0, 0, MISPC_GS_SYMMETRIC, 2, 1.0, 1);
    mispc_context_destroy(one);
  }
  { /* automatic options: threshold, lines and block solves from the matrix */
    mispc_gs_info in = check_gs(ctx, "gen:aniso2d:30:0.001", MISPC_GS_CLUSTER, 1, -1, -1,
                                MISPC_GS_SYMMETRIC, 1, 1.0, 0);
    CHECK_MSG(in.line_clusters == 1 && in.block_solve == 1 && in.strength_threshold > 0 &&
                  in.block_size == 1,
              "aniso2d automatic: lines %d, block solve %d, theta %g, bs %d on rank %d",
              in.line_clusters, in.block_solve, in.strength_threshold, in.block_size, rank_);
    /* nodes of 3 rows asked for; weak couplings, not strongly anisotropic: theta on rows */
    in = check_gs(ctx, "gen:elasticity3d:4", MISPC_GS_CLUSTER, 3, -1, -1, MISPC_GS_SYMMETRIC, 1,
                  1.0, 0);
    CHECK_MSG(in.line_clusters == 0 && in.block_solve == 0 && in.strength_threshold > 0 &&
                  in.block_size == 1,
              "elasticity3d automatic: lines %d, block solve %d, theta %g, bs %d on rank %d",
              in.line_clusters, in.block_solve, in.strength_threshold, in.block_size, rank_);
    /* clustergs' default (-2): the same on elasticity (weak couplings apart
     * from theta); on aniso2d:30:0.65 they run on up to it: 0 on the nodes */
    in = check_gs(ctx, "gen:elasticity3d:4", MISPC_GS_CLUSTER, 3, MISPC_GS_THETA_ANISOTROPIC, -1,
                  MISPC_GS_SYMMETRIC, 1, 1.0, 0);
    CHECK_MSG(in.line_clusters == 0 && in.block_solve == 0 && in.strength_threshold > 0 &&
                  in.block_size == 1,
              "elasticity3d default: lines %d, block solve %d, theta %g, bs %d on rank %d",
              in.line_clusters, in.block_solve, in.strength_threshold, in.block_size, rank_);
    in = check_gs(ctx, "gen:aniso2d:30:0.65", MISPC_GS_CLUSTER, 2, MISPC_GS_THETA_ANISOTROPIC, -1,
                  MISPC_GS_SYMMETRIC, 1, 1.0, 0);
    CHECK_MSG(in.line_clusters == 0 && in.block_solve == 0 && in.strength_threshold == 0 &&
                  in.block_size == 2,
              "aniso2d:30:0.65 default: lines %d, block solve %d, theta %g, bs %d on rank %d",
              in.line_clusters, in.block_solve, in.strength_threshold, in.block_size, rank_);
  }
  /* a zero diagonal on the last rank fails on every rank */
  mispc_csr A;
  CHECK_OK(ctx, mispc_load(ctx, "gen:laplace2d:12", &A));
  int64_t r0, r1;
  split(A.nrows, &r0, &r1);
  if (rank_ == nranks_ - 1 && r1 > r0)
    for (int64_t p = A.rowptr[r1 - 1]; p < A.rowptr[r1]; ++p)
      if (A.colidx[p] == r1 - 1) A.values[p] = 0.0;
  mispc_dist_csr D;
  mispc_dist_gs *gd = NULL;
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &A, r0, r1, &D));
  mispc_gs_options o;
  mispc_gs_options_default(&o);
  for (int k = 0; k < 2; ++k) {
    o.kind = k ? MISPC_GS_CLUSTER : MISPC_GS_POINT;
    CHECK_OK(ctx, mispc_dist_gs_create(ctx, &o, &gd));
    CHECK_OK(ctx, mispc_dist_gs_symbolic(ctx, gd, &D));
    CHECK_STATUS(ctx, mispc_dist_gs_numeric(ctx, gd, &D), MISPC_ERR_INVALID_ARG);
    CHECK(strstr(mispc_context_error(ctx), "diagonal entry zero") != NULL);
    mispc_dist_gs_destroy(ctx, gd);
  }
  o.kind = MISPC_GS_POINT;
  { /* a row with its columns out of order fails the symbolic setup on every rank */
    mispc_dist_csr U;
    const int64_t n = 2 * nranks_, u0 = 2 * rank_;
    int64_t rp[3] = {0, 2, 4}, gc[4] = {u0 + 1, u0, u0, u0 + 1};
    double val[4] = {-1.0, 4.0, 4.0, -1.0};
    CHECK_OK(ctx, mispc_dist_csr_from_global(ctx, MPI_COMM_WORLD, n, u0, u0 + 2, rp, gc, val, &U));
    CHECK_OK(ctx, mispc_dist_gs_create(ctx, &o, &gd));
    CHECK_STATUS(ctx, mispc_dist_gs_symbolic(ctx, gd, &U), MISPC_ERR_UNSORTED);
    CHECK(strstr(mispc_context_error(ctx), "not sorted") != NULL);
    mispc_dist_gs_destroy(ctx, gd);
    mispc_dist_csr_free(ctx, &U);
  }
  { /* exact block solves of singular 2 x 2 clusters [1 1; 1 1] fail on every rank */
    mispc_dist_csr U;
    const int64_t n = 2 * nranks_, u0 = 2 * rank_;
    int64_t rp[3] = {0, 2, 4}, gc[4] = {u0, u0 + 1, u0, u0 + 1};
    double val[4] = {1.0, 1.0, 1.0, 1.0};
    CHECK_OK(ctx, mispc_dist_csr_from_global(ctx, MPI_COMM_WORLD, n, u0, u0 + 2, rp, gc, val, &U));
    mispc_gs_options ob;
    mispc_gs_options_default(&ob);
    ob.block_solve = 1;
    CHECK_OK(ctx, mispc_dist_gs_create(ctx, &ob, &gd));
    CHECK_OK(ctx, mispc_dist_gs_symbolic(ctx, gd, &U));
    CHECK_STATUS(ctx, mispc_dist_gs_numeric(ctx, gd, &U), MISPC_ERR_INVALID_ARG);
    CHECK_MSG(strstr(mispc_context_error(ctx), "pivot") != NULL, "singular clusters: %s",
              mispc_context_error(ctx));
    mispc_dist_gs_destroy(ctx, gd);
    mispc_dist_csr_free(ctx, &U);
  }
  { /* a block size that does not divide the rows fails on every rank */
    o.kind = MISPC_GS_CLUSTER;
    o.block_size = 5;
    CHECK_OK(ctx, mispc_dist_gs_create(ctx, &o, &gd));
    CHECK_STATUS(ctx, mispc_dist_gs_symbolic(ctx, gd, &D), MISPC_ERR_INVALID_ARG);
    mispc_dist_gs_destroy(ctx, gd);
  }
  mispc_dist_csr_free(ctx, &D);
  mispc_csr_free(ctx, &A);
  mispc_context_destroy(ctx);
}

/* Transports of device halos: AUTO picks NCCL only where every rank has a
 * GPU of its own; NCCL asked for on a shared GPU fails on every rank; and on
 * one rank, with the distributed rounds forced (tuning), both transports give
 * the one-process set. */
static void test_transports(void) {
  if (!mispc_have_gpu()) return;
  mispc_context *ctx = test_context(0);
  mispc_csr G = load_graph(ctx, "gen:laplace3d:12");
  int64_t r0, r1;
  split(G.nrows, &r0, &r1);
  mispc_dist_csr D, DD;
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &G, r0, r1, &D));
  CHECK_OK(ctx, mispc_dist_csr_copy(ctx, &D, MISPC_MEM_DEVICE, &DD));
  const char *name = mispc_dist_transport_name(&DD);
  if (rank_ == 0) printf("  transport on %d ranks: %s\n", nranks_, name);
  if (!strcmp(name, "mpi")) /* AUTO takes NCCL wherever it can: here it cannot */
    CHECK_STATUS(ctx, mispc_dist_set_transport(ctx, &DD, MISPC_TRANSPORT_NCCL),
                 MISPC_ERR_UNSUPPORTED);
  mispc_tuning t;
  mispc_context_get_tuning_(ctx, &t);
  t.dist_rounds_on_one_rank = 1;
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t));
  uint8_t *ref = malloc((size_t)G.nrows + 1), *mine = malloc((size_t)(r1 - r0) + 1), *dset = NULL;
  CHECK_OK(ctx, mispc_malloc(ctx, MISPC_MEM_DEVICE, (size_t)(r1 - r0) + 1, (void **)&dset));
  const mispc_dist_transport ts[2] = {MISPC_TRANSPORT_MPI, MISPC_TRANSPORT_NCCL};
  for (int i = 0; i < 2; ++i) {
    if (mispc_dist_set_transport(ctx, &DD, ts[i])) continue; /* NCCL not here: said above */
    for (int k = 1; k <= 2; ++k) {
      mispc_mis_result rr, rd;
      CHECK_OK(ctx,
               k == 1 ? mispc_mis1(ctx, &G, NULL, ref, &rr) : mispc_mis2(ctx, &G, NULL, ref, &rr));
      CHECK_OK(ctx, k == 1 ? mispc_dist_mis1(ctx, &DD, NULL, NULL, dset, &rd)
                           : mispc_dist_mis2(ctx, &DD, NULL, NULL, dset, &rd));
      CHECK_OK(ctx,
               mispc_memcpy(ctx, mine, MISPC_MEM_HOST, dset, MISPC_MEM_DEVICE, (size_t)(r1 - r0)));
      int64_t diff = 0;
      for (int64_t v = r0; v < r1; ++v) diff += mine[v - r0] != ref[v];
      CHECK_MSG(diff == 0 && rd.rounds == rr.rounds, "transport %s, MIS-%d: %lld differ",
                mispc_dist_transport_name(&DD), k, (long long)diff);
      if (rank_ == 0 && k == 2)
        printf("  MIS-1/2 over %s with the rounds forced: equal\n", mispc_dist_transport_name(&DD));
    }
  }
  mispc_free(ctx, MISPC_MEM_DEVICE, dset);
  free(ref);
  free(mine);
  mispc_dist_csr_free(ctx, &DD);
  mispc_dist_csr_free(ctx, &D);
  mispc_csr_free(ctx, &G);
  mispc_context_destroy(ctx);
}

/* mispc_dist_aggregate_lists: this rank holds exactly the aggregates whose
 * smallest member it owns, in increasing head id, each with its members in
 * increasing id, as computed from the one-process aggregation. */
static void check_lists(mispc_context *ctx, const char *spec, int av) {
  mispc_csr G = load_graph(ctx, spec);
  const int64_t n = G.nrows;
  int64_t r0, r1;
  split(n, &r0, &r1);
  mispc_dist_csr D;
  CHECK_OK(ctx, mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &G, r0, r1, &D));
  mispc_agg_options ao;
  agg_variant(av, &ao);
  mispc_aggregates a;
  CHECK_OK(ctx, mispc_aggregate(ctx, &G, &ao, &a));
  int32_t *lab = malloc(sizeof(int32_t) * (size_t)(r1 - r0 + 1));
  mispc_dist_agg_info info;
  CHECK_OK(ctx, mispc_dist_aggregate(ctx, &D, &ao, lab, &info));
  mispc_dist_agg_lists L;
  CHECK_OK(ctx, mispc_dist_aggregate_lists(ctx, &D, lab, info.naggs, &L));
  /* reference: members of each aggregate in increasing id (counting sort) */
  int64_t *first = calloc((size_t)a.naggs + 1, sizeof(int64_t));
  int64_t *members = malloc(sizeof(int64_t) * (size_t)(n + 1));
  for (int64_t v = 0; v < n; ++v) first[a.agg[v] + 1]++;
  for (int64_t c = 0; c < a.naggs; ++c) first[c + 1] += first[c];
  int64_t *fill = malloc(sizeof(int64_t) * (size_t)(a.naggs + 1));
  memcpy(fill, first, sizeof(int64_t) * (size_t)a.naggs);
  for (int64_t v = 0; v < n; ++v) members[fill[a.agg[v]]++] = v;
  int64_t bad = 0, k = 0;
  for (int64_t v = r0; v < r1; ++v) {
    const int32_t c = a.agg[v];
    if (members[first[c]] != v) continue; /* v heads aggregate c */
    if (k >= L.nlists || L.head[k] != v) {
      ++bad;
      break;
    }
    const int64_t len = first[c + 1] - first[c];
    bad += L.offset[k + 1] - L.offset[k] != len;
    for (int64_t q = 0; q < len && q < L.offset[k + 1] - L.offset[k]; ++q)
      bad += L.member[L.offset[k] + q] != members[first[c] + q];
    ++k;
  }
  int64_t all = L.nlists;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK_MSG(bad == 0 && k == L.nlists && all == a.naggs,
            "%s aggregation %d: lists differ on rank %d of %d (%lld bad, %lld of %lld lists, "
            "%lld aggregates in all, %lld in the reference)",
            spec, av, rank_, nranks_, (long long)bad, (long long)k, (long long)L.nlists,
            (long long)all, (long long)a.naggs);
  mispc_dist_agg_lists_free(&L);
  /* a label out of range fails on every rank, naming the vertex */
  int has = r1 > r0 ? rank_ : -1, last = -1;
  MPI_Allreduce(&has, &last, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank_ == last) lab[0] = (int32_t)info.naggs;
  CHECK_STATUS(ctx, mispc_dist_aggregate_lists(ctx, &D, lab, info.naggs, &L),
               MISPC_ERR_INVALID_ARG);
  CHECK(strstr(mispc_context_error(ctx), "outside [0, ") != NULL && L.nlists == 0);
  free(first), free(members), free(fill), free(lab);
  mispc_aggregates_free(ctx, &a);
  mispc_dist_csr_free(ctx, &D);
  mispc_csr_free(ctx, &G);
}

static void test_aggregate_lists(void) {
  mispc_context *ctx = test_context(1);
  const char *specs[] = {"gen:path:101", "gen:laplace3d:9", "gen:random:3000:10", "gen:kron:10",
                         MISPC_TEST_DATA "/bcsstk13.mtx"};
  for (size_t i = 0; i < sizeof specs / sizeof *specs; ++i)
    for (int av = 0; av < 3; ++av) check_lists(ctx, specs[i], av);
  mispc_context_destroy(ctx);
}

/* Bad input on one rank gives the same error on every rank (and no hang);
 * the symmetry check with one-word keys and (tuning dist_check_pairs, the
 * path of graphs over 2^31 vertices) with pairs. */
static void test_errors(void) {
  mispc_context *ctx = test_context(0);
  mispc_dist_csr D;
  mispc_tuning t0, tp;
  mispc_context_get_tuning_(ctx, &t0);
  tp = t0, tp.dist_check_pairs = 1;
  int64_t n = 10 * nranks_, r0 = 10 * rank_, r1 = r0 + 10;
  int64_t rowptr[11], col[10];
  for (int i = 0; i <= 10; ++i) rowptr[i] = i;
  for (int i = 0; i < 10; ++i) col[i] = (r0 + i + 1) % n; /* a ring, one direction */
  CHECK_OK(ctx, mispc_dist_csr_from_global(ctx, MPI_COMM_WORLD, n, r0, r1, rowptr, col, NULL, &D));
  /* a ring in one direction only: not symmetric, on every rank */
  for (int pairs = 0; pairs < 2; ++pairs) {
    CHECK_OK(ctx, mispc_context_set_tuning_(ctx, pairs ? &tp : &t0));
    CHECK_STATUS(ctx, mispc_dist_csr_check(ctx, &D), MISPC_ERR_UNSYMMETRIC);
    CHECK(strstr(mispc_context_error(ctx), "not symmetric") != NULL);
  }
  CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t0));
  mispc_dist_csr_free(ctx, &D);
  /* The ring both ways with self loops and a repeated entry: symmetric. Then
   * without the left neighbour of global row 0 (an entry between ranks when
   * P > 1, inside the diagonal block when P = 1): not symmetric anywhere. */
  {
    int64_t rp2[11], c2[41], k = 0;
    for (int drop = 0; drop < 2; ++drop) {
      k = 0;
      for (int i = 0; i < 10; ++i) {
        const int64_t gi = r0 + i;
        rp2[i] = k;
        c2[k++] = gi;
        if (!(drop && gi == 0)) c2[k++] = (gi + n - 1) % n;
        c2[k++] = (gi + 1) % n;
        if (i == 5) c2[k++] = (gi + 1) % n; /* repeated */
      }
      rp2[10] = k;
      CHECK_OK(ctx, mispc_dist_csr_from_global(ctx, MPI_COMM_WORLD, n, r0, r1, rp2, c2, NULL, &D));
      for (int pairs = 0; pairs < 2; ++pairs) {
        CHECK_OK(ctx, mispc_context_set_tuning_(ctx, pairs ? &tp : &t0));
        if (drop) {
          CHECK_STATUS(ctx, mispc_dist_csr_check(ctx, &D), MISPC_ERR_UNSYMMETRIC);
          /* the missing entry named, on every rank (row 0 lacks column n - 1) */
          char want[96];
          snprintf(want, sizeof want, "entry (%lld, 0) has no entry (0, %lld)", (long long)(n - 1),
                   (long long)(n - 1));
          CHECK_MSG(strstr(mispc_context_error(ctx), want) != NULL,
                    "check with %s: \"%s\" on rank %d", pairs ? "pairs" : "keys",
                    mispc_context_error(ctx), rank_);
        } else
          CHECK_OK(ctx, mispc_dist_csr_check(ctx, &D));
      }
      CHECK_OK(ctx, mispc_context_set_tuning_(ctx, &t0));
      mispc_dist_csr_free(ctx, &D);
    }
  }
  /* Inconsistent global size on the last rank. */
  int64_t nbad = rank_ == nranks_ - 1 ? n + 1 : n;
  CHECK_STATUS(ctx,
               mispc_dist_csr_from_global(ctx, MPI_COMM_WORLD, nbad, r0, r1, rowptr, col, NULL, &D),
               MISPC_ERR_INVALID_ARG);
  if (nranks_ > 1) CHECK(strstr(mispc_context_error(ctx), "inconsistent global sizes") != NULL);
  /* A column id out of range on the last rank. */
  col[3] = rank_ == nranks_ - 1 ? n + 5 : col[3];
  CHECK_STATUS(ctx,
               mispc_dist_csr_from_global(ctx, MPI_COMM_WORLD, n, r0, r1, rowptr, col, NULL, &D),
               MISPC_ERR_INDEX_RANGE);
  char want[64];
  snprintf(want, sizeof want, "rank %d: ", nranks_ - 1);
  CHECK_MSG(strncmp(mispc_context_error(ctx), want, strlen(want)) == 0, "message '%s'",
            mispc_context_error(ctx));
  col[3] = (r0 + 4) % n;
  /* Ranges that do not tile [0, n). */
  CHECK_STATUS(ctx,
               mispc_dist_csr_from_global(ctx, MPI_COMM_WORLD, n, r0 + (rank_ == 0), r1,
                                          rowptr + (rank_ == 0), col, NULL, &D),
               MISPC_ERR_INVALID_ARG);
  /* Options: a bad priority fails everywhere. */
  CHECK_OK(ctx, mispc_dist_csr_from_global(ctx, MPI_COMM_WORLD, n, r0, r1, rowptr, col, NULL, &D));
  mispc_mis_options o;
  mispc_mis_options_default(&o);
  o.priority = MISPC_PRIORITY_HASH_PER_ROUND;
  uint8_t set[10];
  CHECK_STATUS(ctx, mispc_dist_mis1(ctx, &D, &o, NULL, set, NULL), MISPC_ERR_INVALID_ARG);
  o.priority = (mispc_priority)99;
  CHECK_STATUS(ctx, mispc_dist_mis2(ctx, &D, &o, NULL, set, NULL), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_dist_verify_mis(ctx, &D, 3, set), MISPC_ERR_INVALID_ARG);
  mispc_dist_csr_free(ctx, &D);
  mispc_context_destroy(ctx);
}

int main(int argc, char **argv) {
  if (mpi_test_start(&argc, &argv, &rank_, &nranks_)) return 1;
  RUN_TEST(test_identity);
  RUN_TEST(test_row_generators);
  RUN_TEST(test_coarse_levels);
  RUN_TEST(test_strength_auto);
  RUN_TEST(test_aggregate_lists);
  RUN_TEST(test_gauss_seidel);
  RUN_TEST(test_transports);
  RUN_TEST(test_errors);
  int any = mpi_test_failed_anywhere();
  if (rank_ == 0)
    printf("%d ranks: %d checks failed over all ranks (GPU path %s)\n", nranks_, any,
           gpu_checked_ ? "checked" : "skipped: no GPU visible");
  if (!gpu_checked_ && getenv("MISPC_REQUIRE_GPU") && !strcmp(getenv("MISPC_REQUIRE_GPU"), "1")) {
    fprintf(stderr, "MISPC_REQUIRE_GPU=1 but no GPU is visible\n");
    any = 1;
  }
  return mpi_test_finish(any);
}
