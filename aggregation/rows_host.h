/* Internal: sorting the short integer rows of the host graph builders. */
#ifndef MISPC_AGG_ROWS_HOST_H
#define MISPC_AGG_ROWS_HOST_H

#include <stdint.h>
#include <stdlib.h>

/* Marker arrays: at most this many entries over all threads. */
#define MARK_BUDGET ((int64_t)1 << 26)

static inline int int32_cmp(const void *x, const void *y) {
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return (a > b) - (a < b);
}

/* Insertion sort for short rows, qsort beyond 32 entries. */
static inline void sort_row(int32_t *a, int64_t m) {
  if (m > 32) {
    qsort(a, (size_t)m, sizeof(int32_t), int32_cmp);
    return;
  }
  for (int64_t i = 1; i < m; ++i) {
    int32_t x = a[i];
    int64_t j = i;
    for (; j > 0 && a[j - 1] > x; --j) a[j] = a[j - 1];
    a[j] = x;
  }
}

#endif
