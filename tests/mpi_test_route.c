/* White-box tests of the distributed layer's sorting and routing helpers
 * (src/dist_route.c): mispc_sort_unique_pairs against a qsort reference on
 * both of its paths (radix sort of packed 64-bit keys; qsort for small
 * inputs and values outside [0, 2^32)), mispc_dist_route's arrival order
 * (source rank order, sending order inside) on every rank count, and
 * agg_dist_sort_records (aggregation/lists_dist.c) on its counting path and
 * both fallbacks. */
#include <mpi.h>
#include <stdint.h>

#include "../src/dist_internal.h"
#include "agg_dist.h"
#include "test_util.h"

static int rank_ = 0, nranks_ = 1;

static int cmp_ref(const void *a, const void *b) {
  const int64_t *x = (const int64_t *)a, *y = (const int64_t *)b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

static uint64_t rng_ = 88172645463325252ull;
static uint64_t next_u64(void) { /* xorshift64: the same pairs on every run */
  rng_ ^= rng_ << 13, rng_ ^= rng_ >> 7, rng_ ^= rng_ << 17;
  return rng_;
}

/* n pairs with values lo + [0, span) (many repeats when span is small),
 * sorted and deduplicated by mispc_sort_unique_pairs and by qsort. */
static void check_sort(int64_t n, int64_t lo, uint64_t span, const char *what) {
  int64_t *p = (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * n + 2));
  int64_t *r = (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * n + 2));
  if (!p || !r) {
    CHECK_MSG(0, "out of memory");
    free(p), free(r);
    return;
  }
  for (int64_t i = 0; i < 2 * n; ++i) p[i] = r[i] = lo + (int64_t)(next_u64() % span);
  qsort(r, (size_t)n, 2 * sizeof(int64_t), cmp_ref);
  int64_t m = 0;
  for (int64_t i = 0; i < n; ++i)
    if (m == 0 || r[2 * i] != r[2 * m - 2] || r[2 * i + 1] != r[2 * m - 1])
      r[2 * m] = r[2 * i], r[2 * m + 1] = r[2 * i + 1], ++m;
  const int64_t got = mispc_sort_unique_pairs(p, n);
  int64_t bad = -1;
  for (int64_t i = 0; got == m && i < 2 * m && bad < 0; ++i)
    if (p[i] != r[i]) bad = i / 2;
  CHECK_MSG(got == m && bad < 0,
            "%s: %lld pairs -> %lld unique (reference %lld), first difference %lld", what,
            (long long)n, (long long)got, (long long)m, (long long)bad);
  free(p), free(r);
}

static void test_sort_unique_pairs(void) {
  check_sort(0, 0, 1, "empty");
  check_sort(1000, 0, 50, "small (qsort path)");
  check_sort(100000, 0, 300, "ids below 300, many repeats (radix)");
  check_sort(100000, 0, 1u << 20, "ids below 2^20 (radix)");
  check_sort(50000, 0xFFFF0000ll, 0x10000, "ids near 2^32 (radix, most digits constant)");
  check_sort(50000, 0, 0x100000000ull, "ids in [0, 2^32) (radix, every digit)");
  check_sort(20000, -5, 1000, "negative ids (qsort path)");
  check_sort(20000, (int64_t)1 << 33, 1u << 20, "ids above 2^32 (qsort path)");
}

/* Every rank sends record (rank, k) to rank (rank + k) % P for k < 3P, so
 * every rank gets 3 from each rank: from sources in rank order, in sending
 * order inside. */
static void test_route_order(void) {
  const int64_t n = 3 * (int64_t)nranks_;
  int64_t *rec = (int64_t *)malloc(sizeof(int64_t) * (size_t)(2 * n));
  int *dest = (int *)malloc(sizeof(int) * (size_t)n);
  for (int64_t k = 0; k < n; ++k)
    rec[2 * k] = rank_, rec[2 * k + 1] = k, dest[k] = (int)((rank_ + k) % nranks_);
  mispc_context *ctx = NULL;
  mispc_context_create(&ctx);
  int64_t *out = NULL, nout = 0;
  CHECK_OK(ctx, mispc_dist_route(ctx, MPI_COMM_WORLD, 2, n, rec, dest, &out, &nout));
  CHECK_MSG(nout == n, "rank %d got %lld records, expected %lld", rank_, (long long)nout,
            (long long)n);
  int64_t prev_src = -1, prev_k = -1, bad = 0;
  for (int64_t j = 0; j < nout; ++j) {
    const int64_t src = out[2 * j], k = out[2 * j + 1];
    bad += (src + k) % nranks_ != rank_;                       /* sent here */
    bad += src < prev_src || (src == prev_src && k <= prev_k); /* order */
    prev_src = src, prev_k = k;
  }
  CHECK_MSG(bad == 0, "rank %d: %lld records out of place", rank_, (long long)bad);
  free(out), free(rec), free(dest);
  mispc_context_destroy(ctx);
}

/* n records of 3 words (key in [base, base + range), value, a payload that
 * names the record) sorted by agg_dist_sort_records and by qsort: the same
 * order, every payload with its record. `sorted_values`: each key's values
 * already increasing (the counting sort's path), else random (the scan
 * finds the disorder and sorts fully); `outside` > 0 (< 0): one key just
 * above (below) the range. */
static void check_records(int64_t n, int64_t base, int64_t range, int sorted_values, int outside,
                          const char *what) {
  int64_t *p = (int64_t *)malloc(sizeof(int64_t) * (size_t)(3 * n + 3));
  int64_t *r = (int64_t *)malloc(sizeof(int64_t) * (size_t)(3 * n + 3));
  mispc_context *ctx = NULL;
  if (!p || !r || mispc_context_create(&ctx) != MISPC_SUCCESS) {
    CHECK_MSG(0, "out of memory");
    free(p), free(r);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    p[3 * i] = base + (int64_t)(next_u64() % (uint64_t)range);
    p[3 * i + 1] = sorted_values ? i : (int64_t)(next_u64() % 1000000);
    p[3 * i + 2] = 7 * p[3 * i] + 3 * p[3 * i + 1]; /* follows its record */
  }
  if (outside && n > 0) { /* one key just above (outside > 0) or below the range */
    const int64_t i = n / 2, key = outside > 0 ? base + range : base - 1;
    p[3 * i] = key;
    p[3 * i + 2] = 7 * key + 3 * p[3 * i + 1];
  }
  memcpy(r, p, sizeof(int64_t) * (size_t)(3 * n));
  qsort(r, (size_t)n, 3 * sizeof(int64_t), cmp_ref);
  CHECK_MSG(agg_dist_sort_records(ctx, p, n, 3, base, range, "test") == MISPC_SUCCESS, "%s: status",
            what);
  int same = 1;
  for (int64_t i = 0; i < n && same; ++i)
    same = p[3 * i] == r[3 * i] && p[3 * i + 1] == r[3 * i + 1] &&
           p[3 * i + 2] == 7 * p[3 * i] + 3 * p[3 * i + 1];
  CHECK_MSG(same, "%s: agg_dist_sort_records differs from qsort", what);
  mispc_context_destroy(ctx);
  free(p), free(r);
}

static void test_sort_records(void) {
  check_records(0, 0, 1, 1, 0, "empty");
  check_records(50000, 100, 2000, 1, 0, "values increasing (counting sort)");
  check_records(50000, 100, 2000, 0, 0, "values random (full sort)");
  check_records(50000, -40, 300, 1, 1, "a key above the range (full sort)");
  check_records(50000, 10, 300, 1, -1, "a key below the range (full sort)");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
  RUN_TEST(test_sort_unique_pairs);
  RUN_TEST(test_route_order);
  RUN_TEST(test_sort_records);
  int failed = test_failed_, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const int rc = TEST_FINISH();
  MPI_Finalize();
  return any ? 1 : rc;
}
