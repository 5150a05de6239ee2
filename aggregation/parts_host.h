/* Internal: how the host loops over rows that append entries split their
 * rows among the threads (aggregation/galerkin_dist.c, strength_dist.c):
 * parts of consecutive rows, one a thread, each computed whole by one
 * thread, so results do not depend on the thread count. */
#ifndef MISPC_AGG_PARTS_HOST_H
#define MISPC_AGG_PARTS_HOST_H

#include <stdint.h>

#include "internal.h"
#include "rows_host.h"

/* Parts for n rows: one a host thread, each of 128 rows or more, their
 * dense scratch (width entries of entry_bytes bytes a part: markers,
 * accumulators) within MARK_BUDGET 4-byte entries over all parts. */
static inline int count_parts(mispc_context *ctx, int64_t n, int64_t width, int entry_bytes) {
  int64_t k = n / 128, nt = mispc_host_threads(ctx);
  const int64_t words = width * ((entry_bytes + 3) / 4); /* 4-byte words a part */
  if (words > 0 && nt * words > MARK_BUDGET) nt = MARK_BUDGET / words;
  if (k > nt) k = nt;
  return k < 1 ? 1 : (int)k;
}

/* The first row of part k of np over rows [0, n), parts of about equal
 * weight, the weight before row i being w0[i] (+ w1[i] when w1 is given),
 * nondecreasing in i (row pointers); part np starts at n. */
static inline int64_t part_first_row(const int64_t *w0, const int64_t *w1, int64_t n, int k,
                                     int np) {
  if (k >= np) return n;
  const int64_t base = w0[0] + (w1 ? w1[0] : 0), total = w0[n] + (w1 ? w1[n] : 0) - base;
  const int64_t want = base + total / np * k + total % np * k / np;
  int64_t lo = 0, hi = n; /* the first row whose weight reaches want */
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (w0[mid] + (w1 ? w1[mid] : 0) < want)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

#endif
