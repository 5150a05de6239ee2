/* The longest owned row of a device graph (diagonal and ghost entries),
 * measured once a graph and kept with its halo plan: the GPU aggregation's
 * phase 3 sizes its sorted picks by it, the GPU coloring tells graphs with
 * hubs by it. */
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "dist_cuda.cuh"

namespace {

struct row_len_at {
  dev_graph g;
  __device__ int64_t operator()(int64_t v) const {
    return g.arp[v + 1] - g.arp[v] + g.brp[v + 1] - g.brp[v];
  }
};

} // namespace

mispc_status mispc_dist_device_longest_row(mispc_context *ctx, const mispc_dist_csr *g,
                                           void *stream, int64_t *len) {
  const cudaStream_t st = (cudaStream_t)stream;
  mispc_halo *h = g->halo;
  const int64_t nloc = g->rend - g->rstart;
  if (!h->max_row1 && nloc > 0) {
    dev_graph d;
    MISPC_TRY(dist_device_view(ctx, g, &d));
    const auto lens =
        thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), row_len_at{d});
    size_t bytes = 0;
    MISPC_CUDA_TRY(ctx, cub::DeviceReduce::Max(NULL, bytes, lens, (int64_t *)NULL, nloc, st));
    const size_t at = (bytes + 15) / 16 * 16; /* the result after CUB's storage */
    char *temp = NULL;
    MISPC_TRY(mispc_scratch_alloc(ctx, at + 16, (void **)&temp, "longest row"));
    int64_t *d_max = (int64_t *)(temp + at), max_row = 0;
    cudaError_t e = cub::DeviceReduce::Max(temp, bytes, lens, d_max, nloc, st);
    if (e == cudaSuccess) e = cudaMemcpyAsync(&max_row, d_max, 8, cudaMemcpyDeviceToHost, st);
    mispc_status s = e == cudaSuccess ? mispc_sync(ctx, st, "the longest row")
                                      : mispc_seterr(ctx, MISPC_ERR_CUDA, "the longest row: %s",
                                                     cudaGetErrorString(e));
    mispc_scratch_free(ctx, temp);
    MISPC_TRY(s);
    h->max_row1 = 1 + max_row;
  }
  *len = h->max_row1 > 0 ? h->max_row1 - 1 : 0;
  return MISPC_SUCCESS;
}
