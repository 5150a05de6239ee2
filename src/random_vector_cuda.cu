/* mispc_random_vector on the GPU: the host's rule (random_vector.h). */
#include "cuda_util.cuh"
#include "random_vector.h"

namespace {
__global__ void fill_random(int64_t n, int64_t first, uint64_t seed, double *x) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    x[i] = mispc_random_entry(seed, (uint64_t)(first + i));
}
} // namespace

extern "C" mispc_status mispc_random_vector_cuda(mispc_context *ctx, int64_t n, int64_t first,
                                                 uint64_t seed, double *x) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  if (n == 0) return MISPC_SUCCESS;
  fill_random<<<mispc_device_grid(ctx, n, 256), 256, 0, s>>>(n, first, seed, x);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  return mispc_sync(ctx, s, "random vector");
}
