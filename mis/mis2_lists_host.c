/* Worklists of the distributed host MIS-2 rounds (mis2_dist.c): the
 * entries of a list whose word is still live, in order, in parallel. */
#include <omp.h>
#include <stdlib.h>

#include "mis_backend.h"

/* Below this many entries one thread compacts (the threads' start-up costs more). */
#define MIS2_COMPACT_PARALLEL_MIN 65536

int64_t mis2_keep_live_host(const int32_t *in, int64_t n, const uint64_t *word, uint64_t x,
                            uint64_t y, int32_t *out, int nt) {
  int64_t *start = nt > 1 && n >= MIS2_COMPACT_PARALLEL_MIN
                       ? (int64_t *)calloc((size_t)nt + 1, sizeof(int64_t))
                       : NULL;
  if (!start) { /* one thread (also when the counts could not be allocated) */
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i)
      if (word[in[i]] != x && word[in[i]] != y) out[k++] = in[i];
    return k;
  }
  /* each thread counts its static chunk, then writes it at the sum of the
   * counts before it: the order of in is kept */
  int used = 1;
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
    const int64_t lo = n * t / T, hi = n * (t + 1) / T;
    int64_t c = 0;
    for (int64_t i = lo; i < hi; ++i) c += word[in[i]] != x && word[in[i]] != y;
    start[t + 1] = c;
#pragma omp barrier
#pragma omp single
    {
      for (int u = 0; u < T; ++u) start[u + 1] += start[u];
      used = T;
    }
    int64_t k = start[t];
    for (int64_t i = lo; i < hi; ++i)
      if (word[in[i]] != x && word[in[i]] != y) out[k++] = in[i];
  }
  const int64_t k = start[used];
  free(start);
  return k;
}
