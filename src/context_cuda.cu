/* CUDA part of the core: the context's stream and cuSPARSE handle, and
 * memory in either space. */
#include <cuda_runtime.h>
#include <cusparse.h>
#include <string.h>
#include <stdlib.h>

#include "cuda_util.cuh"

extern "C" void mispc_cuda_context_release(mispc_context *ctx) {
  if (ctx->cusparse) cusparseDestroy((cusparseHandle_t)ctx->cusparse);
  if (ctx->stream) cudaStreamSynchronize((cudaStream_t)ctx->stream);
  if (ctx->mempool) cudaMemPoolDestroy((cudaMemPool_t)ctx->mempool);
  if (ctx->pinned) cudaFreeHost(ctx->pinned);
  ctx->mempool = NULL;
  ctx->pinned = NULL;
  ctx->pinned_dev = NULL;
  ctx->pinned_bytes = 0;
  if (ctx->own_stream && ctx->stream) cudaStreamDestroy((cudaStream_t)ctx->stream);
  ctx->cusparse = NULL;
  ctx->stream = NULL;
  ctx->own_stream = 0;
}

extern "C" int mispc_built_with_cuda(void) {
  return 1;
}

extern "C" int mispc_have_gpu(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); /* clear the sticky "no device" error */
    return 0;
  }
  return n > 0;
}

extern "C" mispc_status mispc_context_set_stream(mispc_context *ctx, void *cuda_stream) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (ctx->own_stream && ctx->stream) cudaStreamDestroy((cudaStream_t)ctx->stream);
  ctx->stream = cuda_stream;
  ctx->own_stream = 0;
  if (ctx->cusparse) cusparseSetStream((cusparseHandle_t)ctx->cusparse, (cudaStream_t)cuda_stream);
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_context_get_stream(mispc_context *ctx, void **cuda_stream) {
  if (!ctx || !cuda_stream) return MISPC_ERR_INVALID_ARG;
  if (!ctx->stream) {
    if (!mispc_have_gpu()) return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "no CUDA device visible");
    cudaStream_t s;
    MISPC_CUDA_TRY(ctx, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    ctx->stream = s;
    ctx->own_stream = 1;
  }
  *cuda_stream = ctx->stream;
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_stream_wait(mispc_context *ctx) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  return mispc_sync(ctx, s, "stream wait");
}

extern "C" mispc_status mispc_mem_alloc(mispc_context *ctx, mispc_memspace mem, size_t bytes,
                                        void **p, const char *what) {
  *p = NULL;
  if (mem == MISPC_MEM_HOST) {
    *p = mispc_host_alloc(ctx, bytes, what);
    return *p ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
  }
  if (!mispc_have_gpu()) return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "no CUDA device visible");
  /* From the context's memory pool, then a wait for the stream (idle at
   * every call site but for queued frees), so that the memory is valid on
   * every stream as cudaMalloc's would be: cudaMalloc maps new pages at each
   * call (0.19-0.28 ms for the strength graph of Laplace3D_100 on an H100,
   * as long as the graph's construction). cudaFree (mispc_mem_free) releases
   * it into the pool; a pool destroyed with the context keeps what is still
   * allocated until it is freed. */
  void *q = NULL;
  MISPC_TRY(mispc_scratch_alloc(ctx, bytes, &q, what));
  cudaStream_t s;
  mispc_status st = mispc_stream(ctx, &s);
  if (!st) st = mispc_sync(ctx, s, what);
  if (st) {
    cudaFree(q);
    return st;
  }
  *p = q;
  return MISPC_SUCCESS;
}

extern "C" void mispc_mem_free(mispc_context *ctx, mispc_memspace mem, void *p) {
  (void)ctx;
  if (!p) return;
  if (mem == MISPC_MEM_HOST)
    free(p);
  else
    cudaFree(p);
}

extern "C" mispc_status mispc_mem_copy(mispc_context *ctx, void *dst, mispc_memspace dst_mem,
                                       const void *src, mispc_memspace src_mem, size_t bytes) {
  if (!bytes) return MISPC_SUCCESS;
  if (dst_mem == MISPC_MEM_HOST && src_mem == MISPC_MEM_HOST) {
    memcpy(dst, src, bytes);
    return MISPC_SUCCESS;
  }
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s));
  MISPC_CUDA_TRY(ctx, cudaStreamSynchronize(s));
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_scratch_alloc(mispc_context *ctx, size_t bytes, void **p,
                                            const char *what) {
  *p = NULL;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  if (!ctx->mempool) {
    int dev = 0;
    MISPC_CUDA_TRY(ctx, cudaGetDevice(&dev));
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t pool;
    MISPC_CUDA_TRY(ctx, cudaMemPoolCreate(&pool, &props));
    unsigned long long keep = ~0ull; /* never give cached blocks back early */
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    ctx->mempool = pool;
  }
  cudaError_t e = cudaMallocFromPoolAsync(p, bytes ? bytes : 1, (cudaMemPool_t)ctx->mempool, s);
  if (e != cudaSuccess) {
    *p = NULL;
    (void)cudaGetLastError(); /* not sticky: clear it for later launch checks */
    return mispc_seterr(ctx, MISPC_ERR_CUDA, "device allocation of %s (%zu bytes) failed: %s", what,
                        bytes, cudaGetErrorString(e));
  }
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_context_device_peak(mispc_context *ctx, int64_t *bytes) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!bytes)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_context_device_peak: NULL bytes");
  *bytes = 0;
  if (!ctx->mempool) return MISPC_SUCCESS;
  cudaMemPool_t pool = (cudaMemPool_t)ctx->mempool;
  unsigned long long high = 0; /* cuuint64_t */
  MISPC_CUDA_TRY(ctx, cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
  *bytes = (int64_t)high;
  return MISPC_SUCCESS;
}

extern "C" void mispc_scratch_free(mispc_context *ctx, void *p) {
  if (p && ctx->stream) cudaFreeAsync(p, (cudaStream_t)ctx->stream);
}

extern "C" mispc_status mispc_pinned_scratch(mispc_context *ctx, size_t bytes, void **p) {
  if (ctx->pinned_bytes < bytes) {
    if (ctx->pinned) cudaFreeHost(ctx->pinned);
    ctx->pinned = NULL;
    ctx->pinned_dev = NULL;
    ctx->pinned_bytes = 0;
    MISPC_CUDA_TRY(ctx, cudaMallocHost(&ctx->pinned, bytes));
    ctx->pinned_bytes = bytes;
  }
  *p = ctx->pinned;
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_pinned_mapped(mispc_context *ctx, size_t bytes, void **host,
                                            void **dev) {
  *dev = NULL;
  MISPC_TRY(mispc_pinned_scratch(ctx, bytes, host));
  int sms = 0, coop = 0;
  MISPC_TRY(mispc_device_caps(ctx, &sms, &coop));
  if (!ctx->dev_map) return MISPC_SUCCESS;
  if (!ctx->pinned_dev &&
      cudaHostGetDevicePointer(&ctx->pinned_dev, ctx->pinned, 0) != cudaSuccess) {
    ctx->pinned_dev = NULL;
    (void)cudaGetLastError(); /* not mapped after all: callers copy instead */
  }
  *dev = ctx->pinned_dev;
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_device_caps(mispc_context *ctx, int *sms, int *coop) {
  if (!ctx->dev_sms) {
    int dev = 0;
    MISPC_CUDA_TRY(ctx, cudaGetDevice(&dev));
    MISPC_CUDA_TRY(ctx, cudaDeviceGetAttribute(&ctx->dev_sms, cudaDevAttrMultiProcessorCount, dev));
    MISPC_CUDA_TRY(ctx, cudaDeviceGetAttribute(&ctx->dev_coop, cudaDevAttrCooperativeLaunch, dev));
    MISPC_CUDA_TRY(ctx, cudaDeviceGetAttribute(&ctx->dev_map, cudaDevAttrCanMapHostMemory, dev));
  }
  *sms = ctx->dev_sms;
  *coop = ctx->dev_coop;
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_kernel_occupancy(mispc_context *ctx, const void *kernel, int block,
                                               int *per_sm) {
  const int n = ctx->noccupancy, slots = MISPC_OCCUPANCY_SLOTS;
  for (int i = 0; i < n && i < slots; ++i)
    if (ctx->occupancy[i].kernel == kernel && ctx->occupancy[i].block == block) {
      *per_sm = ctx->occupancy[i].per_sm;
      return MISPC_SUCCESS;
    }
  MISPC_CUDA_TRY(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel, block, 0));
  auto *e = &ctx->occupancy[n % slots]; /* all slots full: the oldest goes */
  e->kernel = kernel;
  e->block = block;
  e->per_sm = *per_sm;
  ctx->noccupancy = n + 1 < 2 * slots ? n + 1 : slots;
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_pool_alloc(mispc_context *ctx, mispc_memspace mem, size_t bytes,
                                         void **p, const char *what) {
  if (mem == MISPC_MEM_HOST) return mispc_mem_alloc(ctx, mem, bytes, p, what);
  return mispc_scratch_alloc(ctx, bytes, p, what);
}

extern "C" void mispc_pool_free(mispc_context *ctx, mispc_memspace mem, void *p) {
  if (mem == MISPC_MEM_HOST)
    mispc_mem_free(ctx, mem, p);
  else
    mispc_scratch_free(ctx, p);
}
