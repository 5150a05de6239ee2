/* Worklists of the distributed host MIS-2 rounds (mis2_dist.c): a phase
 * visits its list in chunks, keeps each chunk's live entries at the chunk's
 * front, and mis2_gather_chunks packs them together. */
#include <omp.h>
#include <string.h>

#include "mis_backend.h"

/* Below this many kept entries one thread packs (the threads' start-up costs more). */
#define MIS2_GATHER_PARALLEL_MIN 65536

int64_t mis2_gather_chunks(const int32_t *list, int64_t n, int64_t *cnt, int32_t *out, int nt) {
  const int64_t nch = mis2_chunks(n);
  int64_t total = 0;
  for (int64_t c = 0; c < nch; ++c) { /* counts -> offsets; cnt[nch] = total */
    const int64_t k = cnt[c];
    cnt[c] = total;
    total += k;
  }
  cnt[nch] = total;
#pragma omp parallel for schedule(static) num_threads(nt) if (total >= MIS2_GATHER_PARALLEL_MIN)
  for (int64_t c = 0; c < nch; ++c)
    if (cnt[c + 1] > cnt[c])
      memcpy(out + cnt[c], list + c * MIS2_CHUNK, sizeof(int32_t) * (size_t)(cnt[c + 1] - cnt[c]));
  return total;
}
