/* Internal helpers shared by all layers (not installed). */
#ifndef MISPC_INTERNAL_H
#define MISPC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "mispc/mispc.h"
#include "tuning.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MISPC_OCCUPANCY_SLOTS 24 /* kernels of one context: 16 today */

struct mispc_context {
  char err[1024];
  int verbosity;
  mispc_log_fn log;
  void *log_user;
  int nthreads;
  void *stream;   /* cudaStream_t */
  int own_stream; /* stream created by us */
  void *cusparse; /* cusparseHandle_t, created on demand */
  void *mempool;  /* cudaMemPool_t for scratch, created on demand */
  void *pinned;   /* pinned host scratch for counters read back each round */
  size_t pinned_bytes;
  void *pinned_dev; /* pinned's address in kernels (mispc_pinned_mapped; NULL: not looked up) */
  int dev_sms, dev_coop, dev_map; /* cached device attributes (dev_sms 0: not looked up) */
  /* Blocks per SM of cooperative kernels (mispc_kernel_occupancy): looked up
   * once per kernel instead of at every launch. */
  struct mispc_occupancy {
    const void *kernel;
    int block, per_sm;
  } occupancy[MISPC_OCCUPANCY_SLOTS];
  int noccupancy;      /* lookups stored so far; slot noccupancy % SLOTS is the next one replaced */
  mispc_tuning tuning; /* benchmark and test knobs (tuning.h); zero: defaults */
  int64_t read_allowance; /* rows + columns a file may declare beyond the rule (io_lines.h) */
};

#if defined(__GNUC__)
#define MISPC_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MISPC_PRINTF(a, b)
#endif

/* Threads of a host parallel region: the context's count
 * (mispc_context_set_num_threads), else OpenMP's default. */
int mispc_host_threads(const mispc_context *ctx);

/* mispc_random_vector's device fill (MISPC_ERR_NO_CUDA without CUDA). */
mispc_status mispc_random_vector_cuda(mispc_context *ctx, int64_t n, int64_t first, uint64_t seed,
                                      double *x);

/* fn_cuda(...) when dev, else fn_host(...): a layer's entry picks the
 * backend of its data. */
#define MISPC_ON(dev, fn, ...) ((dev) ? fn##_cuda(__VA_ARGS__) : fn##_host(__VA_ARGS__))

/* Records a formatted message in ctx (if any) and returns s. */
mispc_status mispc_seterr(mispc_context *ctx, mispc_status s, const char *fmt, ...)
    MISPC_PRINTF(3, 4);
/* Emits a log line when ctx verbosity >= level. */
void mispc_logf(mispc_context *ctx, int level, const char *fmt, ...) MISPC_PRINTF(3, 4);

/* Phase timing for verbosity >= 2 ("-vv"): waits for the context's stream
 * (device work) and logs "WHAT: MS ms" since *t, then resets *t. Does nothing,
 * and does not synchronize, at lower verbosity. */
void mispc_log_phase(mispc_context *ctx, mispc_memspace mem, double *t, const char *what);
/* Waits for the device work queued on the context's stream (no-op without CUDA). */
mispc_status mispc_stream_wait(mispc_context *ctx);

/* Host allocation that records "out of memory allocating WHAT (N bytes)". */
void *mispc_host_alloc(mispc_context *ctx, size_t bytes, const char *what);

/* The one overflow check for size products: *bytes = count * elem, or
 * MISPC_ERR_OVERFLOW ("size of WHAT overflows: COUNT elements of ELEM bytes")
 * when count is negative or the product does not fit size_t (*bytes is then
 * 0). Every allocation and copy of COUNT elements goes through it, directly or
 * through the _n variants below. */
mispc_status mispc_size_mul(mispc_context *ctx, int64_t count, size_t elem, size_t *bytes,
                            const char *what);
/* mispc_host_alloc of count * elem bytes; NULL (message set) on overflow. */
void *mispc_host_alloc_n(mispc_context *ctx, int64_t count, size_t elem, const char *what);
/* mispc_mem_alloc / mispc_pool_alloc / mispc_mem_copy of count * elem bytes. */
mispc_status mispc_mem_alloc_n(mispc_context *ctx, mispc_memspace mem, int64_t count, size_t elem,
                               void **p, const char *what);
mispc_status mispc_pool_alloc_n(mispc_context *ctx, mispc_memspace mem, int64_t count, size_t elem,
                                void **p, const char *what);
mispc_status mispc_mem_copy_n(mispc_context *ctx, void *dst, mispc_memspace dst_mem,
                              const void *src, mispc_memspace src_mem, int64_t count, size_t elem);

/* MISPC_ERR_ALLOC ("WHAT needs N GB, more than the M GB of memory of this
 * machine") when bytes exceeds the physical memory; for sizes taken from
 * user input (generator specs), checked before allocating. */
mispc_status mispc_check_host_memory(mispc_context *ctx, const char *what, double bytes);

/* Memory in either space. Device variants fail with MISPC_ERR_NO_CUDA in
 * builds without CUDA. Copies are synchronous with respect to the host. */
mispc_status mispc_mem_alloc(mispc_context *ctx, mispc_memspace mem, size_t bytes, void **p,
                             const char *what);
void mispc_mem_free(mispc_context *ctx, mispc_memspace mem, void *p);
mispc_status mispc_mem_copy(mispc_context *ctx, void *dst, mispc_memspace dst_mem, const void *src,
                            mispc_memspace src_mem, size_t bytes);

/* Like mispc_mem_alloc/free, but device memory comes from the context's
 * stream-ordered pool (cheap when called repeatedly); free with the same
 * context. */
mispc_status mispc_pool_alloc(mispc_context *ctx, mispc_memspace mem, size_t bytes, void **p,
                              const char *what);
void mispc_pool_free(mispc_context *ctx, mispc_memspace mem, void *p);

/* Returns MISPC_SUCCESS if a is a usable CSR descriptor (not its contents). */
mispc_status mispc_csr_check_desc(mispc_context *ctx, const mispc_csr *A, const char *name);

/* The start of a generator entry (mispc_gen_*): ctx set, out not NULL
 * ("NAME: output CSR is NULL"), *out cleared. */
mispc_status mispc_gen_begin(mispc_context *ctx, const char *name, mispc_csr *out);
/* "NAME: N must be >= 1, got N" unless n >= 1. */
mispc_status mispc_gen_check_n(mispc_context *ctx, const char *name, int64_t n);
/* A usable descriptor of a square matrix ("WHAT needs a square matrix, got
 * R x C"). */
mispc_status mispc_check_square_matrix(mispc_context *ctx, const mispc_csr *A, const char *what);

/* A square graph whose vertex ids fit 32 bits ("WHO: graph must be square"
 * or "WHO: N vertices exceed 32-bit ids" otherwise); checks no contents. */
mispc_status mispc_check_graph_shape(mispc_context *ctx, const mispc_csr *A, const char *who);

/* mispc_csr_check(A, MISPC_CHECK_GRAPH) with "WHO: invalid graph: ..." as the
 * message on failure (entry points validate once, then skip it inside). */
mispc_status mispc_check_graph_for(mispc_context *ctx, const mispc_csr *A, const char *who);

/* Copies a device CSR to host (or returns a borrowed view of a host one);
 * free with mispc_csr_free. */
mispc_status mispc_csr_host_view(mispc_context *ctx, const mispc_csr *A, mispc_csr *host);

/* The first position p in [lo, hi) with a[p] >= key (hi if none): a binary
 * search of a sorted range, such as a CSR row's columns. mispc_lower_bound_i32
 * and mispc_lower_bound_i64 are the host twins of mispc_lower_bound
 * (cuda_util.cuh). */
#define MISPC_DEFINE_LOWER_BOUND(NAME, T)                                                          \
  static inline int64_t NAME(const T *a, int64_t lo, int64_t hi, T key) {                          \
    while (lo < hi) {                                                                              \
      const int64_t mid = lo + (hi - lo) / 2;                                                      \
      if (a[mid] < key)                                                                            \
        lo = mid + 1;                                                                              \
      else                                                                                         \
        hi = mid;                                                                                  \
    }                                                                                              \
    return lo;                                                                                     \
  }
MISPC_DEFINE_LOWER_BOUND(mispc_lower_bound_i32, int32_t)
MISPC_DEFINE_LOWER_BOUND(mispc_lower_bound_i64, int64_t)
#undef MISPC_DEFINE_LOWER_BOUND

/* Two arrays of *cap entries (ea and eb bytes an entry) grown together to
 * hold at least `need` entries (twice the capacity, or need, whichever is
 * more); nonzero when out of memory (the arrays then stay as they were). */
static inline int mispc_grow_pair(void **a, size_t ea, void **b, size_t eb, int64_t need,
                                  int64_t *cap) {
  if (need <= *cap) return 0;
  const int64_t ncap = 2 * *cap > need ? 2 * *cap : need;
  void *na = realloc(*a, ea * (size_t)ncap);
  if (!na) return 1;
  *a = na;
  void *nb = realloc(*b, eb * (size_t)ncap);
  if (!nb) return 1;
  *b = nb;
  *cap = ncap;
  return 0;
}

/* qsort / bsearch comparison of int64 values (the first word of a record). */
static inline int mispc_cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}
static inline int mispc_cmp_u64(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Whether x is in the sorted list a[0..n): a binary search whose step is a
 * conditional move, not a branch on the data (the mispredicted branches of
 * mispc_lower_bound_i32 made the symmetry checks of rows of ~30 entries
 * 2-3x slower: docs/AGGREGATION.md, "Host sparse products"). */
static inline int mispc_sorted_has_i32(const int32_t *a, int64_t n, int32_t x) {
  if (n <= 0) return 0;
  const int32_t *base = a;
  while (n > 1) { /* x, if present, is in base[0 .. n) */
    const int64_t half = n / 2;
    base = base[half] <= x ? base + half : base;
    n -= half;
  }
  return *base == x;
}

/* LSD radix sort of n 64-bit keys (src/sort_host.c): a and tmp hold n keys
 * each, hist MISPC_RADIX_BUCKETS + 1 counts; returns the buffer (a or tmp)
 * that holds the sorted keys. */
#define MISPC_RADIX_BITS    11
#define MISPC_RADIX_BUCKETS (1 << MISPC_RADIX_BITS)
uint64_t *mispc_radix_sort_u64(uint64_t *a, uint64_t *tmp, int64_t *hist, int64_t n);
/* mispc_radix_sort_u64 of a[0..n) with buffers of its own where n is at
 * least MISPC_RADIX_MIN (below, qsort is as fast): the sorted keys (in a or
 * in *scratch, which the caller frees after reading them), or NULL (a
 * untouched) where n is small or memory short: the caller sorts otherwise. */
#define MISPC_RADIX_MIN 4096
const uint64_t *mispc_radix_sorted(uint64_t *a, int64_t n, uint64_t **scratch);
/* a[0..n) sorted whatever n: mispc_radix_sorted's keys, or a sorted in
 * place by qsort where it declines; *scratch as there. */
const uint64_t *mispc_sorted_u64(uint64_t *a, int64_t n, uint64_t **scratch);
/* The ids 0 .. n-1 (below 2^32) sorted by (key[v], v), packed as
 * key << 32 | v (src/sort_host.c); NULL where memory is short. */
uint64_t *mispc_key_order(const uint32_t *key, int64_t n);

/* Insertion sort of a[lo, hi). */
static inline void mispc_isort_i32(int32_t *a, int64_t lo, int64_t hi) {
  for (int64_t i = lo + 1; i < hi; ++i) {
    int32_t x = a[i];
    int64_t j = i;
    for (; j > lo && a[j - 1] > x; --j) a[j] = a[j - 1];
    a[j] = x;
  }
}

/* Heap sort of a[lo, hi) (the introsort's fallback). */
static inline void mispc_heapsort_i32(int32_t *a, int64_t lo, int64_t hi) {
  int32_t *h = a + lo, t;
  const int64_t n = hi - lo;
  for (int64_t k = n / 2 - 1; k >= 0; --k)
    for (int64_t r = k, c; (c = 2 * r + 1) < n; r = c) {
      if (c + 1 < n && h[c + 1] > h[c]) ++c;
      if (h[r] >= h[c]) break;
      t = h[r], h[r] = h[c], h[c] = t;
    }
  for (int64_t end = n - 1; end > 0; --end) {
    t = h[0], h[0] = h[end], h[end] = t;
    for (int64_t r = 0, c; (c = 2 * r + 1) < end; r = c) {
      if (c + 1 < end && h[c + 1] > h[c]) ++c;
      if (h[r] >= h[c]) break;
      t = h[r], h[r] = h[c], h[c] = t;
    }
  }
}

/* Sorts m int32 values (a CSR row's columns) in place: an introsort
 * (median-of-three quicksort, insertion sort under 33 entries, heap sort
 * past a depth of 2 log2 m) with the comparisons inline. It replaced qsort,
 * whose calls through a function pointer were a tenth of the host sparse
 * product on rows of more than 32 entries (2026-11-28). Any correct sort
 * gives the same result. */
static inline void mispc_sort_i32(int32_t *a, int64_t m) {
  int64_t lo_st[64], hi_st[64];
  int dep_st[64], sp = 0, depth = 0;
  for (int64_t k = m; k > 1; k >>= 1) depth += 2;
  int64_t lo = 0, hi = m;
  for (;;) {
    while (hi - lo > 32) {
      if (depth-- <= 0) {
        mispc_heapsort_i32(a, lo, hi);
        hi = lo;
        break;
      }
      /* the median of a[lo], a[mid], a[hi - 1] moved to a[lo] as the
       * pivot: Hoare's partition then ends with lo <= j < hi - 1, both
       * sides non-empty */
      const int64_t mid = lo + (hi - lo) / 2;
      int32_t t;
      if (a[mid] < a[lo]) t = a[mid], a[mid] = a[lo], a[lo] = t;
      if (a[hi - 1] < a[mid]) t = a[hi - 1], a[hi - 1] = a[mid], a[mid] = t;
      if (a[mid] < a[lo]) t = a[mid], a[mid] = a[lo], a[lo] = t;
      t = a[lo], a[lo] = a[mid], a[mid] = t;
      const int32_t pivot = a[lo];
      int64_t i = lo - 1, j = hi; /* then [lo, j] <= pivot <= [j + 1, hi) */
      for (;;) {
        do ++i;
        while (a[i] < pivot);
        do --j;
        while (a[j] > pivot);
        if (i >= j) break;
        t = a[i], a[i] = a[j], a[j] = t;
      }
      /* the larger side waits on the stack and the smaller one goes on:
       * each waiting range is at most half of the one before it, so the
       * stack holds fewer than 64 */
      if (j + 1 - lo < hi - (j + 1)) {
        lo_st[sp] = j + 1, hi_st[sp] = hi, dep_st[sp++] = depth;
        hi = j + 1;
      } else {
        lo_st[sp] = lo, hi_st[sp] = j + 1, dep_st[sp++] = depth;
        lo = j + 1;
      }
    }
    mispc_isort_i32(a, lo, hi);
    if (!sp) break;
    --sp;
    lo = lo_st[sp], hi = hi_st[sp], depth = dep_st[sp];
  }
}

#define MISPC_TRY(expr)                                                                            \
  do {                                                                                             \
    mispc_status mispc_try_s_ = (expr);                                                            \
    if (mispc_try_s_ != MISPC_SUCCESS) return mispc_try_s_;                                        \
  } while (0)

#ifdef __cplusplus
}
#endif
#endif
