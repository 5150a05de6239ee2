/* A minimal test harness: CHECK macros count passes/failures, and
 * TEST_FINISH() prints "N passed, N failed" and returns the exit code. */
#ifndef MISPC_TEST_UTIL_H
#define MISPC_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mispc/mispc.h"

static int test_passed_ = 0, test_failed_ = 0;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (cond) {                                                                                    \
      ++test_passed_;                                                                              \
    } else {                                                                                       \
      ++test_failed_;                                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                     \
    }                                                                                              \
  } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
  do {                                                                                             \
    if (cond) {                                                                                    \
      ++test_passed_;                                                                              \
    } else {                                                                                       \
      ++test_failed_;                                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

/* Expects a mispc call to return `expected`; prints the context message if not. */
#define CHECK_STATUS(ctx, call, expected)                                                          \
  do {                                                                                             \
    mispc_status test_s_ = (call);                                                                 \
    CHECK_MSG(test_s_ == (expected), "%s returned %s (%s), expected %s", #call,                    \
              mispc_strerror(test_s_), mispc_context_error(ctx), mispc_strerror(expected));        \
  } while (0)

#define CHECK_OK(ctx, call) CHECK_STATUS(ctx, call, MISPC_SUCCESS)

/* Runs a test function and names it in the log. */
#define RUN_TEST(fn)                                                                               \
  do {                                                                                             \
    int test_before_ = test_failed_;                                                               \
    fn();                                                                                          \
    printf("%-60s %s\n", #fn, test_failed_ == test_before_ ? "ok" : "FAILED");                     \
  } while (0)

#define TEST_FINISH()                                                                              \
  (printf("%d passed, %d failed\n", test_passed_, test_failed_), test_failed_ ? 1 : 0)

/* A folder for the files a test writes: MISPC_TEST_TMP (the build folder)
 * where it can be written, else $TMPDIR or /tmp (a relocated build, such as
 * the GPU bundle's, no longer has the folder it was built in). */
static inline const char *test_tmp_dir(void) {
#ifdef MISPC_TEST_TMP
  char probe[4096];
  snprintf(probe, sizeof probe, "%s/.mispc-write-probe.%ld", MISPC_TEST_TMP, (long)getpid());
  FILE *f = fopen(probe, "w");
  if (f) {
    fclose(f);
    remove(probe);
    return MISPC_TEST_TMP;
  }
#endif
  const char *t = getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

/* A file name in test_tmp_dir() of this process alone ("<dir>/<stem>.<pid>.<ext>"): ctest runs the
 * P = 1, 2, 3, 4, 7 cases of one test binary at once, so a fixed name is read by one case while
 * another rewrites it. MPI tests make it on rank 0 and broadcast it. */
static inline void test_tmp_file(char *out, size_t n, const char *stem, const char *ext) {
  snprintf(out, n, "%s/%s.%ld.%s", test_tmp_dir(), stem, (long)getpid(), ext);
}

/* GPU tests: exit 77 (ctest "skipped") without a GPU unless MISPC_REQUIRE_GPU=1. */
/* A deterministic pseudo-random number in [-1, 1) for test data; the salt
 * keeps the streams of different test files apart (their reference values
 * were made with these). */
static inline double test_rnd(uint64_t seed, uint64_t salt, int64_t i) {
  return (double)(mispc_hash3(seed, salt, (uint64_t)i) >> 11) * 0x1.0p-52 - 1.0;
}

/* n of them (room for n + 1), from malloc. */
static inline double *test_rnd_vec(uint64_t seed, uint64_t salt, int64_t n) {
  double *v = (double *)malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t i = 0; i < n; ++i) v[i] = test_rnd(seed, salt, i);
  return v;
}

static inline void test_require_gpu_or_skip(void) {
  if (mispc_have_gpu()) return;
  const char *req = getenv("MISPC_REQUIRE_GPU");
  if (req && strcmp(req, "1") == 0) {
    fprintf(stderr, "MISPC_REQUIRE_GPU=1 but no GPU is visible (built with CUDA: %d)\n",
            mispc_built_with_cuda());
    exit(1);
  }
  printf("no GPU visible: skipping\n");
  exit(77);
}

/* mispc_gs_options_default with the sweep (kind, sweep, sweeps, omega) and the
 * cluster graph (block_size, strength_threshold, line_clusters) set;
 * line_clusters | 2 also sets block_solve. */
static inline mispc_gs_options test_gs_options(mispc_gs_kind kind, mispc_gs_sweep sweep, int sweeps,
                                               double omega, int block_size,
                                               double strength_threshold, int line_clusters) {
  mispc_gs_options o;
  mispc_gs_options_default(&o);
  o.kind = kind;
  o.sweep = sweep;
  o.sweeps = sweeps;
  o.omega = omega;
  o.block_size = block_size;
  o.strength_threshold = strength_threshold;
  o.line_clusters = line_clusters & 1;
  o.block_solve = line_clusters >> 1 & 1;
  return o;
}

/* 1 if a and b hold the same options of a symbolic setup (the automatic
 * ones as chosen; the doubles bit for bit); else 0, both sets in msg. */
static inline int test_same_gs_choice(const mispc_gs_info *a, const mispc_gs_info *b, char *msg,
                                      size_t n) {
  snprintf(msg, n,
           "threshold %.17g / %.17g, automatic %.17g / %.17g, weakest %.17g / %.17g, block size "
           "%d / %d, lines %d / %d, block solves %d / %d",
           a->strength_threshold, b->strength_threshold, a->auto_theta, b->auto_theta,
           a->auto_weak_max, b->auto_weak_max, a->block_size, b->block_size, a->line_clusters,
           b->line_clusters, a->block_solve, b->block_solve);
  return !memcmp(&a->strength_threshold, &b->strength_threshold, sizeof(double)) &&
         !memcmp(&a->auto_theta, &b->auto_theta, sizeof(double)) &&
         !memcmp(&a->auto_weak_max, &b->auto_weak_max, sizeof(double)) &&
         a->block_size == b->block_size && a->line_clusters == b->line_clusters &&
         a->block_solve == b->block_solve;
}

/* 1 if two host CSRs hold the same sizes, pattern and values, bit for bit. */
static inline int csr_same_bits(const mispc_csr *a, const mispc_csr *b) {
  if (a->nrows != b->nrows || a->ncols != b->ncols || a->nnz != b->nnz) return 0;
  if (memcmp(a->rowptr, b->rowptr, sizeof(int64_t) * (size_t)(a->nrows + 1))) return 0;
  if (a->nnz && memcmp(a->colidx, b->colidx, sizeof(int32_t) * (size_t)a->nnz)) return 0;
  if (!a->values != !b->values) return 0;
  return !a->values || !memcmp(a->values, b->values, sizeof(double) * (size_t)a->nnz);
}

#endif
