/* White-box tests of the distributed layer's sorting and routing helpers
 * (src/dist_route.c): mispc_sort_unique_pairs against a qsort reference on
 * both of its paths (radix sort of packed 64-bit keys; qsort for small
 * inputs and values outside [0, 2^32)), mispc_dist_route's arrival order
 * (source rank order, sending order inside) on every rank count, and
 * agg_dist_sort_records (aggregation/lists_dist.c) on its counting path and
 * both fallbacks; and that the host halo exchanges (full, by key, by flags)
 * deliver the owners' values without growing the packing buffer that
 * mispc_halo_create reserved (an exchange that allocated could fail on one
 * rank while its neighbours wait in the collective). */
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

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* A ring: each rank owns 50 rows and has as ghosts the last 3 rows of the
 * rank before it and the first 3 of the rank after it. */
static void test_halo_exchanges_reserved(void) {
  enum { kRows = 50, kEdge = 3 };
  const int P = nranks_, prev = (rank_ + P - 1) % P, next = (rank_ + 1) % P;
  int64_t *ranges = (int64_t *)malloc(sizeof(int64_t) * (size_t)(P + 1));
  for (int p = 0; p <= P; ++p) ranges[p] = (int64_t)kRows * p;
  int64_t garray[4 * kEdge];
  int64_t ng = 0;
  for (int k = 0; P > 1 && k < kEdge; ++k) {
    garray[ng++] = ranges[prev + 1] - 1 - k;
    garray[ng++] = ranges[next] + k;
  }
  qsort(garray, (size_t)ng, sizeof *garray, cmp_i64);
  int64_t m = 0; /* P = 2: the rank before is the rank after */
  for (int64_t j = 0; j < ng; ++j)
    if (m == 0 || garray[j] != garray[m - 1]) garray[m++] = garray[j];
  ng = m;
  const int64_t rstart = ranges[rank_];
  mispc_context *ctx = NULL;
  mispc_context_create(&ctx);
  mispc_halo *h = NULL;
  CHECK_OK(ctx, mispc_halo_create(ctx, MPI_COMM_WORLD, ranges, rstart, ng, garray, &h));
  if (!h) {
    mispc_context_destroy(ctx);
    free(ranges);
    return;
  }
  CHECK_MSG(h->sbuf && h->sbuf_bytes >= 8 * (size_t)(h->nsend + h->nghost) + 1,
            "rank %d: packing buffer of %zu bytes for %lld sends and %lld ghosts", rank_,
            h->sbuf_bytes, (long long)h->nsend, (long long)h->nghost);
  const void *buf = h->sbuf;
  const size_t bytes = h->sbuf_bytes;
  int64_t o8[kRows], g8[4 * kEdge];
  int32_t o4[kRows], g4[4 * kEdge], skey[4 * kEdge], gkey[4 * kEdge];
  uint8_t o1[kRows], g1[4 * kEdge], act[4 * kEdge];
  for (int v = 0; v < kRows; ++v) {
    const int64_t gid = rstart + v;
    o8[v] = 3 * gid + 1, o4[v] = (int32_t)(5 * gid + 2), o1[v] = (uint8_t)(gid % 251);
  }
  int64_t bad = 0;
  CHECK_OK(ctx, mispc_halo_exchange(ctx, h, o8, g8, 8));
  CHECK_OK(ctx, mispc_halo_exchange(ctx, h, o4, g4, 4));
  CHECK_OK(ctx, mispc_halo_exchange(ctx, h, o1, g1, 1));
  for (int64_t j = 0; j < ng; ++j)
    bad += g8[j] != 3 * garray[j] + 1 || g4[j] != (int32_t)(5 * garray[j] + 2) ||
           g1[j] != (uint8_t)(garray[j] % 251);
  /* by key: the odd rows only; the even ghosts keep their value */
  for (int64_t e = 0; e < h->nsend; ++e) skey[e] = (int32_t)((rstart + h->sidx[e]) % 2);
  for (int64_t j = 0; j < ng; ++j) gkey[j] = (int32_t)(garray[j] % 2), g8[j] = -7;
  CHECK_OK(ctx, mispc_halo_exchange_where(ctx, h, o8, g8, 8, skey, gkey, 1));
  for (int64_t j = 0; j < ng; ++j) bad += g8[j] != (garray[j] % 2 ? 3 * garray[j] + 1 : -7);
  /* by flags: state 1 -> 2 where the owner's row is a multiple of 3 */
  for (int v = 0; v < kRows; ++v) o1[v] = (uint8_t)((rstart + v) % 3 == 0 ? 2 : 1);
  for (int64_t e = 0; e < h->nsend; ++e) act[e] = 1;
  for (int64_t j = 0; j < ng; ++j) g1[j] = 1;
  CHECK_OK(ctx, mispc_halo_exchange_flags(ctx, h, o1, act, 1, 2, g1));
  for (int64_t j = 0; j < ng; ++j) bad += g1[j] != (garray[j] % 3 == 0 ? 2 : 1);
  /* sparse: the send entries of rows that are multiples of 4, in reverse
   * order; exactly those ghosts get the value and are listed, once each */
  int64_t ents[4 * kEdge], ne = 0, ngot = -1;
  int32_t got[4 * kEdge];
  for (int64_t e = h->nsend - 1; e >= 0; --e)
    if ((rstart + h->sidx[e]) % 4 == 0) ents[ne++] = e;
  for (int64_t j = 0; j < ng; ++j) g4[j] = -9;
  CHECK_OK(ctx, mispc_halo_exchange_sparse(ctx, h, ents, ne, o4, g4, got, &ngot));
  int64_t want = 0;
  for (int64_t j = 0; j < ng; ++j) {
    want += garray[j] % 4 == 0;
    bad += g4[j] != (garray[j] % 4 == 0 ? (int32_t)(5 * garray[j] + 2) : -9);
  }
  bad += ngot != want;
  for (int64_t i = 0; i < ngot && ngot == want; ++i) {
    bad += got[i] < 0 || got[i] >= ng || garray[got[i]] % 4 != 0;
    for (int64_t k = 0; k < i; ++k) bad += got[k] == got[i];
  }
  CHECK_MSG(bad == 0, "rank %d: %lld ghost values wrong", rank_, (long long)bad);
  CHECK_MSG(h->sbuf == buf && h->sbuf_bytes == bytes,
            "rank %d: an exchange grew the packing buffer (%zu -> %zu bytes)", rank_, bytes,
            h->sbuf_bytes);
  mispc_halo_destroy(h);
  mispc_context_destroy(ctx);
  free(ranges);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
  RUN_TEST(test_sort_unique_pairs);
  RUN_TEST(test_route_order);
  RUN_TEST(test_sort_records);
  RUN_TEST(test_halo_exchanges_reserved);
  int failed = test_failed_, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const int rc = TEST_FINISH();
  MPI_Finalize();
  return any ? 1 : rc;
}
