/* The context: where work runs (CUDA stream, cuSPARSE handle), verbosity and
 * the message of the last error. No global state: every call takes one. */
#ifndef MISPC_CONTEXT_H
#define MISPC_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "mispc/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mispc_context mispc_context;

typedef enum mispc_memspace { MISPC_MEM_HOST = 0, MISPC_MEM_DEVICE = 1 } mispc_memspace;

/* A NULL context: every call that returns a status gives MISPC_ERR_INVALID_ARG
 * (with no message: there is no context to hold one) and touches nothing;
 * calls that return nothing (the free and destroy calls) do nothing, and
 * mispc_context_destroy(NULL) succeeds, like free(NULL). The getters below
 * return 0 or "" for a NULL context. */

/* Creates a context. No GPU work happens until device memory is used; CUDA
 * state (stream, cuSPARSE handle) is created lazily on the current device. */
MISPC_API mispc_status mispc_context_create(mispc_context **ctx);
MISPC_API mispc_status mispc_context_destroy(mispc_context *ctx);

/* Uses the caller's stream (a cudaStream_t passed as void *); NULL returns to
 * the context's own stream. The context never destroys a caller's stream. */
MISPC_API mispc_status mispc_context_set_stream(mispc_context *ctx, void *cuda_stream);
/* The stream all device work of this context is queued on (created on demand). */
MISPC_API mispc_status mispc_context_get_stream(mispc_context *ctx, void **cuda_stream);

/* 0 = silent (default), 1 = progress lines, 2 = per-round details. Output goes
 * to the callback if one is set, otherwise nowhere: the library never prints
 * on its own. */
typedef void (*mispc_log_fn)(void *user, const char *line);
MISPC_API mispc_status mispc_context_set_verbosity(mispc_context *ctx, int level);
MISPC_API mispc_status mispc_context_set_logger(mispc_context *ctx, mispc_log_fn fn, void *user);
MISPC_API int mispc_context_verbosity(const mispc_context *ctx);

/* Host threads for OpenMP code (0 = OpenMP's default), at most
 * MISPC_MAX_THREADS; other counts give MISPC_ERR_INVALID_ARG and leave the
 * setting as it was. */
#define MISPC_MAX_THREADS 4096
MISPC_API mispc_status mispc_context_set_num_threads(mispc_context *ctx, int nthreads);
MISPC_API int mispc_context_num_threads(const mispc_context *ctx);

/* 1 when mispc was built with CUDA and a device is visible, else 0. */
MISPC_API int mispc_have_gpu(void);
/* 1 when mispc was built with CUDA support. */
MISPC_API int mispc_built_with_cuda(void);

/* Memory in either space, and copies between spaces, synchronous with
 * respect to the host. Device memory (this and every device array mispc
 * returns) comes from the context's stream-ordered memory pool and is ready
 * on every stream when the call returns; mispc_free (cudaFree) gives it back
 * to the pool, which keeps it for reuse; it stays valid after the context is
 * destroyed until freed. For buffers such as the membership array of a
 * device graph. */
MISPC_API mispc_status mispc_malloc(mispc_context *ctx, mispc_memspace mem, size_t bytes, void **p);
MISPC_API void mispc_free(mispc_context *ctx, mispc_memspace mem, void *p);
MISPC_API mispc_status mispc_memcpy(mispc_context *ctx, void *dst, mispc_memspace dst_mem,
                                    const void *src, mispc_memspace src_mem, size_t bytes);

/* The most device memory the context's pool has held allocated at once
 * (every mispc_malloc and device array and scratch of mispc's calls; not the
 * halo plans' small arrays, NCCL's or cuSPARSE's own memory), in bytes: the
 * pool's high-water mark. 0 before any device allocation and without CUDA. */
MISPC_API mispc_status mispc_context_device_peak(mispc_context *ctx, int64_t *bytes);

/* Message of the last failing call on this context ("" if none). */
MISPC_API const char *mispc_context_error(const mispc_context *ctx);
MISPC_API void mispc_context_clear_error(mispc_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
