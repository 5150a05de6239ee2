/* Failure paths of the distributed API under mpiexec (issue 33): each case
 * passes one bad argument or input, on every rank or on one rank only, and
 * checks that every rank returns the same non-success status and the same
 * message (naming the problem), and that the call returns at all: a watchdog
 * ends the process with the case's name when a case takes longer than
 * MISPC_ERRORS_CASE_SECONDS (default 30), so a hang is reported as such and
 * not only as a ctest timeout. Run with any P (ctest runs P = 1, 2, 3, 4, 7);
 * MISPC_ERRORS_CASE=NAME runs one case. */
#define _GNU_SOURCE
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include "mispc/dist.h"
#include "mpi_test_common.h"
#include "test_util.h"

static int rank_, nranks_, last_;
static char case_name_[128];
static int case_seconds_ = 30;

static void watchdog(int sig) {
  char msg[256];
  int len = snprintf(msg, sizeof msg,
                     "mpi_test_errors: rank %d: case '%s' did not return within %d s (hang)\n",
                     rank_, case_name_, case_seconds_);
  if (len > 0 && write(2, msg, (size_t)len) < 0) _exit(3);
  _exit(3);
}

#define ANY_FAILURE MISPC_STATUS_COUNT

/* Every rank got `expected` (ANY_FAILURE: some non-success status) and the
 * same message, which contains `want` (unless NULL). */
static void expect_everywhere(mispc_context *ctx, mispc_status s, mispc_status expected,
                              const char *want) {
  CHECK_MSG(expected == ANY_FAILURE ? s != MISPC_SUCCESS : s == expected,
            "case %s: rank %d returned %s (%s), expected %s", case_name_, rank_, mispc_strerror(s),
            mispc_context_error(ctx), mispc_strerror(expected));
  int mine[2] = {(int)s, -(int)s}, ext[2];
  MPI_Allreduce(mine, ext, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK_MSG(ext[0] == -ext[1], "case %s: statuses differ across ranks (%d .. %d)", case_name_,
            -ext[1], ext[0]);
  char msg[1024], root[1024];
  snprintf(msg, sizeof msg, "%s", mispc_context_error(ctx));
  memcpy(root, msg, sizeof root);
  MPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
  int differs = strcmp(root, msg) != 0, any = 0;
  MPI_Allreduce(&differs, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK_MSG(!differs, "case %s: rank %d has message '%s', rank 0 '%s'", case_name_, rank_, msg,
            root);
  CHECK_MSG(any || !want || strstr(msg, want), "case %s: message '%s' does not contain '%s'",
            case_name_, msg, want);
  mispc_context_clear_error(ctx);
}

/* A ring, 10 rows a rank except rank 1 when P >= 3 (no rows). */
typedef struct ring {
  int64_t n, r0, r1;
  int64_t rowptr[11], col[10];
} ring;

static ring make_ring(void) {
  ring g;
  int64_t rows = (nranks_ >= 3 && rank_ == 1) ? 0 : 10;
  int64_t before = 10 * rank_ - ((nranks_ >= 3 && rank_ > 1) ? 10 : 0);
  g.n = 10 * nranks_ - (nranks_ >= 3 ? 10 : 0);
  g.r0 = before;
  g.r1 = before + rows;
  for (int i = 0; i <= 10; ++i) g.rowptr[i] = i < rows ? i : rows;
  for (int i = 0; i < 10; ++i) g.col[i] = (g.r0 + i + 1) % g.n;
  return g;
}

/* mispc_dist_csr_from_global on the ring as a case changed it, with the row
 * offsets `rowptr` (g->rowptr unless the case passes its own or NULL) and no
 * output matrix where `no_output`. */
static mispc_status ring_from_global(mispc_context *ctx, const ring *g, const int64_t *rowptr,
                                     int no_output) {
  mispc_dist_csr D;
  return mispc_dist_csr_from_global(ctx, MPI_COMM_WORLD, g->n, g->r0, g->r1, rowptr, g->col, NULL,
                                    no_output ? NULL : &D);
}

/* The small distributed graph every MIS / coloring / aggregation case runs on
 * (loaded once by main; the calls take it const). */
static mispc_dist_csr grid_;

static void load_grid(mispc_context *ctx) {
  mispc_status s = mispc_dist_load(ctx, MPI_COMM_WORLD, "gen:laplace2d:12", 0, &grid_);
  if (s) {
    fprintf(stderr, "rank %d: gen:laplace2d:12: %s\n", rank_, mispc_context_error(ctx));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

/* ---- construction ---------------------------------------------------------------- */

static void from_global_sizes(mispc_context *ctx) {
  ring g = make_ring();
  if (rank_ == last_) g.n += 1;
  expect_everywhere(ctx, ring_from_global(ctx, &g, g.rowptr, 0), MISPC_ERR_INVALID_ARG,
                    nranks_ > 1 ? "inconsistent global sizes" : "row ranges");
}

static void from_global_gap(mispc_context *ctx) {
  ring g = make_ring();
  int shift = rank_ == 0 && g.r1 > g.r0;
  g.r0 += shift;
  expect_everywhere(ctx, ring_from_global(ctx, &g, g.rowptr + shift, 0), MISPC_ERR_INVALID_ARG,
                    "row ranges must tile");
}

static void from_global_overlap(mispc_context *ctx) {
  if (nranks_ == 1) return; /* one range cannot overlap another */
  ring g = make_ring();
  if (rank_ == last_ && rank_ > 0) g.r0 -= 1;
  int64_t rowptr[12] = {0};
  for (int64_t i = 0; i < g.r1 - g.r0; ++i) rowptr[i + 1] = i < 10 ? g.rowptr[i + 1] : 10;
  expect_everywhere(ctx, ring_from_global(ctx, &g, rowptr, 0), MISPC_ERR_INVALID_ARG, "row ranges");
}

static void from_global_negative_range(mispc_context *ctx) {
  ring g = make_ring();
  if (rank_ == last_) g.r1 = g.r0 - 1;
  expect_everywhere(ctx, ring_from_global(ctx, &g, g.rowptr, 0), MISPC_ERR_INVALID_ARG,
                    "row ranges");
}

static void from_global_column(mispc_context *ctx) {
  ring g = make_ring();
  if (rank_ == last_) g.col[3] = g.n + 5;
  mispc_status s = ring_from_global(ctx, &g, g.rowptr, 0);
  char want[64];
  snprintf(want, sizeof want, "rank %d: ", last_);
  expect_everywhere(ctx, s, MISPC_ERR_INDEX_RANGE, want);
  CHECK(strstr(mispc_context_error(ctx), "outside") || s == MISPC_ERR_INDEX_RANGE);
}

static void from_global_negative_column(mispc_context *ctx) {
  ring g = make_ring();
  if (rank_ == 0) g.col[0] = -1;
  expect_everywhere(ctx, ring_from_global(ctx, &g, g.rowptr, 0), MISPC_ERR_INDEX_RANGE,
                    "column -1");
}

static void from_global_offsets(mispc_context *ctx) {
  ring g = make_ring();
  if (rank_ == last_) g.rowptr[5] = 7;
  expect_everywhere(ctx, ring_from_global(ctx, &g, g.rowptr, 0), MISPC_ERR_INDEX_RANGE,
                    "row offsets");
}

static void from_global_null_rows(mispc_context *ctx) {
  ring g = make_ring();
  expect_everywhere(ctx, ring_from_global(ctx, &g, rank_ == 0 ? NULL : g.rowptr, 0),
                    MISPC_ERR_INVALID_ARG, "NULL");
}

static void from_global_null_output(mispc_context *ctx) {
  ring g = make_ring();
  expect_everywhere(ctx, ring_from_global(ctx, &g, g.rowptr, rank_ == last_), MISPC_ERR_INVALID_ARG,
                    "output is NULL");
}

static void from_rows_range(mispc_context *ctx) {
  mispc_csr G;
  CHECK_OK(ctx, mispc_load(ctx, "gen:path:20", &G));
  int64_t r0 = 20 * rank_ / nranks_, r1 = 20 * (rank_ + 1) / nranks_;
  if (rank_ == last_) r1 = 25;
  mispc_dist_csr D;
  mispc_status s = mispc_dist_csr_from_rows(ctx, MPI_COMM_WORLD, &G, r0, r1, &D);
  expect_everywhere(ctx, s, MISPC_ERR_INVALID_ARG, "outside [0, 20)");
  mispc_csr_free(ctx, &G);
}

/* ---- mispc_dist_load ------------------------------------------------------------- */

static char bad_file_[512], nonsquare_file_[512];

/* mispc_dist_load(spec, symmetrize) on every rank, with no output matrix on
 * the last rank where `no_output_last`, must fail with `expected` and `want`. */
static void expect_load(mispc_context *ctx, const char *spec, int symmetrize, int no_output_last,
                        mispc_status expected, const char *want) {
  mispc_dist_csr D;
  mispc_status s = mispc_dist_load(ctx, MPI_COMM_WORLD, spec, symmetrize,
                                   no_output_last && rank_ == last_ ? NULL : &D);
  expect_everywhere(ctx, s, expected, want);
}

static void load_missing(mispc_context *ctx) {
  expect_load(ctx, "/no/such/dir/graph.mtx", 0, 0, MISPC_ERR_IO, "/no/such/dir/graph.mtx");
}

static void load_missing_one_rank(mispc_context *ctx) {
  /* The last rank's missing file, or rank 0's non-square one: one status. */
  expect_load(ctx, rank_ == last_ ? "/no/such/dir/graph.mtx" : nonsquare_file_, 1, 0, ANY_FAILURE,
              NULL);
}

static void load_malformed(mispc_context *ctx) {
  expect_load(ctx, bad_file_, 0, 0, MISPC_ERR_FORMAT, bad_file_);
}

static void load_nonsquare(mispc_context *ctx) {
  expect_load(ctx, nonsquare_file_, 0, 0, MISPC_ERR_NOT_SQUARE, "not square");
}

static void load_bad_spec(mispc_context *ctx) {
  expect_load(ctx, "gen:laplace3d:abc", 0, 0, MISPC_ERR_FORMAT, "gen:laplace3d:abc");
}

static void load_bad_stencil_size(mispc_context *ctx) {
  expect_load(ctx, "gen:laplace3d:-4", 0, 0, ANY_FAILURE, "-4");
}

static void load_null_spec(mispc_context *ctx) {
  expect_load(ctx, rank_ == last_ ? NULL : "gen:laplace2d:8", 0, 0, MISPC_ERR_INVALID_ARG,
              "NULL spec");
}

static void load_null_output(mispc_context *ctx) {
  expect_load(ctx, "gen:laplace2d:8", 0, 1, MISPC_ERR_INVALID_ARG, "output is NULL");
}

/* ---- MIS, verify, coloring, aggregation ------------------------------------------ */

static mispc_mis_options mis_defaults(void) {
  mispc_mis_options o;
  mispc_mis_options_default(&o);
  return o;
}

/* MIS-k of the grid with options o (NULL: the defaults) and a membership
 * output on every rank but `no_set_rank` (-1: on all) must fail with
 * `expected` and `want`. */
static void expect_mis(mispc_context *ctx, int k, const mispc_mis_options *o, int no_set_rank,
                       mispc_status expected, const char *want) {
  uint8_t set[200], *out = rank_ == no_set_rank ? NULL : set;
  mispc_status s = k == 1 ? mispc_dist_mis1(ctx, &grid_, o, NULL, out, NULL)
                          : mispc_dist_mis2(ctx, &grid_, o, NULL, out, NULL);
  expect_everywhere(ctx, s, expected, want);
}

static void mis1_bad_priority(mispc_context *ctx) {
  mispc_mis_options o = mis_defaults();
  o.priority = (mispc_priority)99;
  expect_mis(ctx, 1, &o, -1, MISPC_ERR_INVALID_ARG, "unknown priority 99");
}

static void mis1_option_one_rank(mispc_context *ctx) {
  mispc_mis_options o = mis_defaults();
  if (rank_ == last_) o.priority = MISPC_PRIORITY_HASH_PER_ROUND;
  expect_mis(ctx, 1, &o, -1, MISPC_ERR_INVALID_ARG, "per-round priorities are an MIS-2 option");
}

static void mis1_null_output_one_rank(mispc_context *ctx) {
  expect_mis(ctx, 1, NULL, last_, MISPC_ERR_INVALID_ARG, "membership output is NULL");
}

static void mis2_bad_rounds(mispc_context *ctx) {
  mispc_mis_options o = mis_defaults();
  if (rank_ == 0) o.max_rounds = -1;
  expect_mis(ctx, 2, &o, -1, MISPC_ERR_INVALID_ARG, "max_rounds");
}

static void mis2_degree_priority(mispc_context *ctx) {
  mispc_mis_options o = mis_defaults();
  o.priority = MISPC_PRIORITY_LARGEST_DEGREE;
  expect_mis(ctx, 2, &o, -1, MISPC_ERR_INVALID_ARG, "degree priorities are MIS-1 options");
}

/* the cover priority on one rank only: its rounds exchange more than the
 * others', so every rank refuses the call (on one rank it runs); MIS-1
 * refuses it everywhere */
static void mis2_cover_one_rank(mispc_context *ctx) {
  mispc_mis_options o = mis_defaults();
  if (rank_ == last_) o.priority = MISPC_PRIORITY_COVER;
  if (nranks_ > 1)
    expect_mis(ctx, 2, &o, -1, MISPC_ERR_INVALID_ARG, "the priority differs between ranks");
  o.priority = MISPC_PRIORITY_COVER;
  expect_mis(ctx, 1, &o, -1, MISPC_ERR_INVALID_ARG, "the cover priority is an MIS-2 option");
}

static void mis2_null_output_one_rank(mispc_context *ctx) {
  expect_mis(ctx, 2, NULL, 0, MISPC_ERR_INVALID_ARG, "membership output is NULL");
}

static void mis2_round_limit(mispc_context *ctx) {
  mispc_mis_options o = mis_defaults();
  o.max_rounds = 1;
  expect_mis(ctx, 2, &o, -1, MISPC_ERR_NOT_CONVERGED, NULL);
}

static void verify_bad_k(mispc_context *ctx) {
  uint8_t set[200];
  CHECK_OK(ctx, mispc_dist_mis1(ctx, &grid_, NULL, NULL, set, NULL));
  expect_everywhere(ctx, mispc_dist_verify_mis(ctx, &grid_, 3, set), MISPC_ERR_INVALID_ARG, NULL);
  expect_everywhere(ctx, mispc_dist_verify_mis(ctx, &grid_, rank_ == last_ ? 0 : 1, set),
                    MISPC_ERR_INVALID_ARG, NULL);
}

static void verify_broken_set(mispc_context *ctx) {
  uint8_t set[200];
  CHECK_OK(ctx, mispc_dist_mis2(ctx, &grid_, NULL, NULL, set, NULL));
  int64_t nloc = grid_.rend - grid_.rstart;
  if (rank_ == last_ && nloc > 0) set[nloc - 1] = !set[nloc - 1]; /* vertex 143 */
  expect_everywhere(ctx, mispc_dist_verify_mis(ctx, &grid_, 2, set), MISPC_ERR_VERIFY, NULL);
}

static void color_bad_options(mispc_context *ctx) {
  int32_t color[200], nc = 0;
  mispc_coloring_options o;
  mispc_coloring_options_default(&o);
  if (rank_ == last_) o.recolor = -1;
  expect_everywhere(ctx, mispc_dist_color(ctx, &grid_, &o, color, &nc), MISPC_ERR_INVALID_ARG,
                    "recolor must be in");
  mispc_coloring_options_default(&o);
  o.algo = (mispc_coloring_algo)7;
  expect_everywhere(ctx, mispc_dist_color(ctx, &grid_, &o, color, &nc), MISPC_ERR_INVALID_ARG,
                    "algo must be");
}

static void color_null_output_one_rank(mispc_context *ctx) {
  int32_t color[200], nc = 0;
  expect_everywhere(ctx, mispc_dist_color(ctx, &grid_, NULL, color, rank_ == last_ ? NULL : &nc),
                    MISPC_ERR_INVALID_ARG, "NULL output");
}

static void verify_coloring_counts_differ(mispc_context *ctx) {
  int32_t color[200], nc = 0;
  CHECK_OK(ctx, mispc_dist_color(ctx, &grid_, NULL, color, &nc));
  /* One rank claims one color more (one rank: an empty class). */
  expect_everywhere(ctx,
                    mispc_dist_verify_coloring(ctx, &grid_, color, rank_ == last_ ? nc + 1 : nc),
                    nranks_ > 1 ? MISPC_ERR_INVALID_ARG : MISPC_ERR_VERIFY,
                    nranks_ > 1 ? "ncolors differs across ranks" : "is empty");
}

static void aggregate_bad_options(mispc_context *ctx) {
  int32_t agg[200];
  mispc_agg_options o;
  mispc_agg_options_default(&o);
  if (rank_ == last_) o.algo = (mispc_agg_algo)5;
  expect_everywhere(ctx, mispc_dist_aggregate(ctx, &grid_, &o, agg, NULL), MISPC_ERR_INVALID_ARG,
                    "unknown algorithm 5");
  mispc_agg_options_default(&o);
  if (rank_ == 0) o.mis.priority = MISPC_PRIORITY_DEGREE; /* an MIS-1 priority */
  expect_everywhere(ctx, mispc_dist_aggregate(ctx, &grid_, &o, agg, NULL), MISPC_ERR_INVALID_ARG,
                    "degree priorities");
  mispc_agg_options_default(&o);
  if (rank_ == last_) o.isolated = MISPC_ISOLATED_COLLECT; /* one process only */
  expect_everywhere(ctx, mispc_dist_aggregate(ctx, &grid_, &o, agg, NULL), MISPC_ERR_UNSUPPORTED,
                    "one process only");
  mispc_agg_options_default(&o);
  if (rank_ == 0) o.max_size = 8;
  expect_everywhere(ctx, mispc_dist_aggregate(ctx, &grid_, &o, agg, NULL), MISPC_ERR_UNSUPPORTED,
                    "max_size is one process only");
}

static void aggregate_null_output_one_rank(mispc_context *ctx) {
  int32_t agg[200];
  expect_everywhere(ctx, mispc_dist_aggregate(ctx, &grid_, NULL, rank_ == last_ ? NULL : agg, NULL),
                    MISPC_ERR_INVALID_ARG, "output is NULL");
}

typedef struct error_case {
  const char *name;
  void (*run)(mispc_context *ctx);
} error_case;

#define CASE(fn)                                                                                   \
  { #fn, fn }
static const error_case cases[] = {
    CASE(from_global_sizes),
    CASE(from_global_gap),
    CASE(from_global_overlap),
    CASE(from_global_negative_range),
    CASE(from_global_column),
    CASE(from_global_negative_column),
    CASE(from_global_offsets),
    CASE(from_global_null_rows),
    CASE(from_global_null_output),
    CASE(from_rows_range),
    CASE(load_missing),
    CASE(load_missing_one_rank),
    CASE(load_malformed),
    CASE(load_nonsquare),
    CASE(load_bad_spec),
    CASE(load_bad_stencil_size),
    CASE(load_null_spec),
    CASE(load_null_output),
    CASE(mis1_bad_priority),
    CASE(mis1_option_one_rank),
    CASE(mis1_null_output_one_rank),
    CASE(mis2_bad_rounds),
    CASE(mis2_degree_priority),
    CASE(mis2_cover_one_rank),
    CASE(mis2_null_output_one_rank),
    CASE(mis2_round_limit),
    CASE(verify_bad_k),
    CASE(verify_broken_set),
    CASE(color_bad_options),
    CASE(color_null_output_one_rank),
    CASE(verify_coloring_counts_differ),
    CASE(aggregate_bad_options),
    CASE(aggregate_null_output_one_rank),
};

/* Rank 0 writes the malformed and the non-square file every rank reads. */
static void write_files(void) {
  /* rank 0's folder for every rank (a relocated build may lack the build folder) */
  test_tmp_file(bad_file_, sizeof bad_file_, "mpi_errors_bad", "mtx");
  test_tmp_file(nonsquare_file_, sizeof nonsquare_file_, "mpi_errors_nonsquare", "mtx");
  MPI_Bcast(bad_file_, (int)sizeof bad_file_, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Bcast(nonsquare_file_, (int)sizeof nonsquare_file_, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank_ == 0) {
    FILE *f = fopen(bad_file_, "w");
    if (f) {
      fputs("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 1.0\n", f);
      fclose(f);
    }
    f = fopen(nonsquare_file_, "w");
    if (f) {
      fputs("%%MatrixMarket matrix coordinate pattern general\n3 4 2\n1 2\n2 4\n", f);
      fclose(f);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  if (mpi_test_start(&argc, &argv, &rank_, &nranks_)) return 1;
  last_ = nranks_ - 1;
  const char *only = getenv("MISPC_ERRORS_CASE"), *secs = getenv("MISPC_ERRORS_CASE_SECONDS");
  if (secs && atoi(secs) > 0) case_seconds_ = atoi(secs);
  signal(SIGALRM, watchdog);
  write_files();
  mispc_context *ctx;
  mispc_context_create(&ctx);
  load_grid(ctx);
  int ran = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    if (only && strcmp(only, cases[c].name) != 0) continue;
    snprintf(case_name_, sizeof case_name_, "%s", cases[c].name);
    int before = test_failed_;
    alarm((unsigned)case_seconds_);
    cases[c].run(ctx);
    MPI_Barrier(MPI_COMM_WORLD);
    alarm(0);
    printf("%-60s %s\n", cases[c].name, test_failed_ == before ? "ok" : "FAILED");
    fflush(stdout);
    ++ran;
  }
  mispc_dist_csr_free(ctx, &grid_);
  mispc_context_destroy(ctx);
  if (rank_ == 0) {
    remove(bad_file_);
    remove(nonsquare_file_);
  }
  int any = mpi_test_failed_anywhere();
  if (rank_ == 0)
    printf("%d ranks: %d cases, %d checks failed over all ranks\n", nranks_, ran, any);
  return mpi_test_finish(any);
}
