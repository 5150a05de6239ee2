/* mispc_random_vector: deterministic entries in [-1, 1) by global index. */
#include "internal.h"
#include "mispc/generate.h"
#include "random_vector.h"

mispc_status mispc_random_vector(mispc_context *ctx, mispc_memspace mem, int64_t n, int64_t first,
                                 uint64_t seed, double *x) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (n < 0 || first < 0 || (n > 0 && !x))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_random_vector: negative size or index, or NULL x");
  if (mem != MISPC_MEM_HOST && mem != MISPC_MEM_DEVICE)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_random_vector: unknown memory space");
  if (mem == MISPC_MEM_DEVICE) return mispc_random_vector_cuda(ctx, n, first, seed, x);
  for (int64_t i = 0; i < n; ++i) x[i] = mispc_random_entry(seed, (uint64_t)(first + i));
  return MISPC_SUCCESS;
}
