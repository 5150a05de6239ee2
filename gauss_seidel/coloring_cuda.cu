/* GPU step of mispc_color: label the members of one MIS-1 with a color. */
#include "color_backend.h"
#include "cuda_util.cuh"

namespace {

constexpr int kBlock = 256;

__global__ void assign(int64_t n, const uint8_t *in_set, int32_t c, int32_t *color, uint8_t *left,
                       unsigned long long *remaining) {
  unsigned long long mine = 0;
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < n;
       v += (int64_t)gridDim.x * blockDim.x) {
    if (in_set[v]) {
      color[v] = c;
      left[v] = 0;
    }
    mine += left[v] != 0;
  }
  mine = mispc_block_sum<kBlock>(mine);
  if (threadIdx.x == 0 && mine) atomicAdd(remaining, mine);
}

} // namespace

extern "C" mispc_status color_assign_cuda(mispc_context *ctx, int64_t n, const uint8_t *in_set,
                                          int32_t c, int32_t *color, uint8_t *left,
                                          int64_t *remaining) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  int sms = 0, coop = 0;
  MISPC_TRY(mispc_device_caps(ctx, &sms, &coop));
  unsigned long long *d = NULL, h = 0;
  MISPC_TRY(mispc_scratch_alloc(ctx, 8, (void **)&d, "counter"));
  cudaMemsetAsync(d, 0, 8, s);
  if (n > 0)
    assign<<<mispc_grid_for(n, kBlock, 8u * sms), kBlock, 0, s>>>(n, in_set, c, color, left, d);
  cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, s);
  cudaError_t e = cudaStreamSynchronize(s);
  if (e == cudaSuccess) e = cudaGetLastError();
  mispc_scratch_free(ctx, d);
  if (e != cudaSuccess)
    return mispc_seterr(ctx, MISPC_ERR_CUDA, "coloring step failed: %s", cudaGetErrorString(e));
  *remaining = (int64_t)h;
  return MISPC_SUCCESS;
}
