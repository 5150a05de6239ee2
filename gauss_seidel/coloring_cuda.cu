/* GPU step of mispc_color: label the members of one MIS-1 with a color. */
#include "color_backend.h"
#include "cuda_util.cuh"

namespace {

constexpr int kBlock = 256;

__global__ void assign(int64_t n, const uint8_t *in_set, int32_t c, int32_t *color, uint8_t *left) {
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x)
    if (in_set[v]) {
      color[v] = c;
      left[v] = 0;
    }
}

} // namespace

extern "C" mispc_status color_assign_cuda(mispc_context *ctx, int64_t n, const uint8_t *in_set,
                                          int32_t c, int32_t *color, uint8_t *left) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  if (n > 0) assign<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(n, in_set, c, color, left);
  MISPC_CUDA_LAUNCH_CHECK(ctx); /* asynchronous: the next MIS-1 waits for it on the stream */
  return MISPC_SUCCESS;
}
