/* Host sorts shared by the layers (src/internal.h). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* LSD radix sort of n 64-bit keys by 11-bit digits, skipping digits that
 * are the same in every key (11 bits: as fast as 16 on millions of keys and
 * 4x faster on thousands, where 65,536 buckets cost more than the keys; 8
 * bits is 40% slower on millions). */
uint64_t *mispc_radix_sort_u64(uint64_t *a, uint64_t *tmp, int64_t *hist, int64_t n) {
  const uint64_t mask = MISPC_RADIX_BUCKETS - 1;
  uint64_t any = 0, all = ~0ull;
  for (int64_t i = 0; i < n; ++i) any |= a[i], all &= a[i];
  const uint64_t varying = any ^ all;
  for (int shift = 0; shift < 64; shift += MISPC_RADIX_BITS) {
    if (!((varying >> shift) & mask)) continue;
    memset(hist, 0, (MISPC_RADIX_BUCKETS + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < n; ++i) hist[((a[i] >> shift) & mask) + 1]++;
    for (int d = 0; d < MISPC_RADIX_BUCKETS; ++d) hist[d + 1] += hist[d];
    for (int64_t i = 0; i < n; ++i) tmp[hist[(a[i] >> shift) & mask]++] = a[i];
    uint64_t *t = a;
    a = tmp, tmp = t;
  }
  return a;
}

/* mispc_radix_sort_u64 of a[0..n) with its buffers allocated here: the
 * sorted keys (in a or in *scratch, which the caller frees), or NULL where
 * memory is short. */
static const uint64_t *radix_with_buffers(uint64_t *a, int64_t n, uint64_t **scratch) {
  *scratch = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)(n + 1));
  int64_t *hist = *scratch ? (int64_t *)malloc(sizeof(int64_t) * (MISPC_RADIX_BUCKETS + 1)) : NULL;
  const uint64_t *sorted = hist ? mispc_radix_sort_u64(a, *scratch, hist, n) : NULL;
  free(hist);
  return sorted;
}

const uint64_t *mispc_radix_sorted(uint64_t *a, int64_t n, uint64_t **scratch) {
  *scratch = NULL;
  return n >= MISPC_RADIX_MIN ? radix_with_buffers(a, n, scratch) : NULL;
}

const uint64_t *mispc_sorted_u64(uint64_t *a, int64_t n, uint64_t **scratch) {
  const uint64_t *r = mispc_radix_sorted(a, n, scratch);
  if (r) return r;
  qsort(a, (size_t)n, sizeof *a, mispc_cmp_u64);
  return a;
}

uint64_t *mispc_key_order(const uint32_t *key, int64_t n) {
  uint64_t *a = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)(n + 1)), *tmp = NULL;
  if (!a) return NULL;
  for (int64_t v = 0; v < n; ++v) a[v] = (uint64_t)key[v] << 32 | (uint64_t)v;
  const uint64_t *sorted = radix_with_buffers(a, n, &tmp);
  free(sorted == a ? tmp : a); /* keep the buffer holding the order */
  if (!sorted) free(tmp);
  return (uint64_t *)sorted;
}
