/* Context life cycle, error messages and logging (host part). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

#include "internal.h"

/* Implemented in context_cuda.cu (or context_nocuda.c). */
void mispc_cuda_context_release(mispc_context *ctx);

mispc_status mispc_context_create(mispc_context **ctx) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  *ctx = (mispc_context *)calloc(1, sizeof(mispc_context));
  return *ctx ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
}

mispc_status mispc_context_destroy(mispc_context *ctx) {
  if (!ctx) return MISPC_SUCCESS;
  mispc_cuda_context_release(ctx);
  free(ctx);
  return MISPC_SUCCESS;
}

mispc_status mispc_context_set_verbosity(mispc_context *ctx, int level) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  ctx->verbosity = level;
  return MISPC_SUCCESS;
}

mispc_status mispc_context_set_logger(mispc_context *ctx, mispc_log_fn fn, void *user) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  ctx->log = fn;
  ctx->log_user = user;
  return MISPC_SUCCESS;
}

int mispc_context_verbosity(const mispc_context *ctx) {
  return ctx ? ctx->verbosity : 0;
}

mispc_status mispc_context_set_num_threads(mispc_context *ctx, int nthreads) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (nthreads < 0 || nthreads > MISPC_MAX_THREADS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "number of threads must be 0 (OpenMP's default) to %d, got %d",
                        MISPC_MAX_THREADS, nthreads);
  ctx->nthreads = nthreads;
  return MISPC_SUCCESS;
}

int mispc_context_num_threads(const mispc_context *ctx) {
  return ctx ? ctx->nthreads : 0;
}

int mispc_host_threads(const mispc_context *ctx) {
  const int t = mispc_context_num_threads(ctx);
  return t > 0 ? t : omp_get_max_threads();
}

mispc_status mispc_context_set_read_allowance(mispc_context *ctx, int64_t rows_plus_cols) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (rows_plus_cols < 0)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "read allowance must be 0 (the default rule only) or more rows + "
                        "columns, got %lld",
                        (long long)rows_plus_cols);
  ctx->read_allowance = rows_plus_cols;
  return MISPC_SUCCESS;
}

const char *mispc_context_error(const mispc_context *ctx) {
  return ctx ? ctx->err : "";
}

void mispc_context_clear_error(mispc_context *ctx) {
  if (ctx) ctx->err[0] = '\0';
}

mispc_status mispc_seterr(mispc_context *ctx, mispc_status s, const char *fmt, ...) {
  if (ctx && fmt) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
    va_end(ap);
  }
  return s;
}

void mispc_logf(mispc_context *ctx, int level, const char *fmt, ...) {
  if (!ctx || !ctx->log || ctx->verbosity < level) return;
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  ctx->log(ctx->log_user, line);
}

void mispc_log_phase(mispc_context *ctx, mispc_memspace mem, double *t, const char *what) {
  if (!ctx || !ctx->log || ctx->verbosity < 2) return;
  if (mem == MISPC_MEM_DEVICE) mispc_stream_wait(ctx);
  const double now = mispc_wtime();
  mispc_logf(ctx, 2, "  %s: %.3f ms", what, 1e3 * (now - *t));
  *t = now;
}

void *mispc_host_alloc(mispc_context *ctx, size_t bytes, const char *what) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p)
    mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory allocating %s (%zu bytes)", what, bytes);
  return p;
}

mispc_status mispc_size_mul(mispc_context *ctx, int64_t count, size_t elem, size_t *bytes,
                            const char *what) {
  *bytes = 0;
  if (count < 0 || (elem && (uint64_t)count > SIZE_MAX / elem))
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "size of %s overflows: %lld elements of %zu bytes",
                        what ? what : "buffer", (long long)count, elem);
  *bytes = (size_t)count * elem;
  return MISPC_SUCCESS;
}

void *mispc_host_alloc_n(mispc_context *ctx, int64_t count, size_t elem, const char *what) {
  size_t bytes;
  if (mispc_size_mul(ctx, count, elem, &bytes, what)) return NULL;
  return mispc_host_alloc(ctx, bytes, what);
}

mispc_status mispc_mem_alloc_n(mispc_context *ctx, mispc_memspace mem, int64_t count, size_t elem,
                               void **p, const char *what) {
  size_t bytes;
  *p = NULL;
  MISPC_TRY(mispc_size_mul(ctx, count, elem, &bytes, what));
  return mispc_mem_alloc(ctx, mem, bytes, p, what);
}

mispc_status mispc_pool_alloc_n(mispc_context *ctx, mispc_memspace mem, int64_t count, size_t elem,
                                void **p, const char *what) {
  size_t bytes;
  *p = NULL;
  MISPC_TRY(mispc_size_mul(ctx, count, elem, &bytes, what));
  return mispc_pool_alloc(ctx, mem, bytes, p, what);
}

mispc_status mispc_mem_copy_n(mispc_context *ctx, void *dst, mispc_memspace dst_mem,
                              const void *src, mispc_memspace src_mem, int64_t count, size_t elem) {
  size_t bytes;
  MISPC_TRY(mispc_size_mul(ctx, count, elem, &bytes, "copy"));
  return mispc_mem_copy(ctx, dst, dst_mem, src, src_mem, bytes);
}

mispc_status mispc_check_host_memory(mispc_context *ctx, const char *what, double bytes) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return MISPC_SUCCESS; /* unknown: let the allocation decide */
  const double have = (double)pages * (double)page;
  if (bytes <= have) return MISPC_SUCCESS;
  return mispc_seterr(ctx, MISPC_ERR_ALLOC,
                      "%s needs %.1f GB, more than the %.1f GB of memory of "
                      "this machine",
                      what, bytes / 1e9, have / 1e9);
}

mispc_status mispc_malloc(mispc_context *ctx, mispc_memspace mem, size_t bytes, void **p) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!p) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_malloc: NULL output pointer");
  return mispc_mem_alloc(ctx, mem, bytes, p, "user buffer");
}

void mispc_free(mispc_context *ctx, mispc_memspace mem, void *p) {
  if (!ctx) return;
  mispc_mem_free(ctx, mem, p);
}

mispc_status mispc_memcpy(mispc_context *ctx, void *dst, mispc_memspace dst_mem, const void *src,
                          mispc_memspace src_mem, size_t bytes) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (bytes && (!dst || !src))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_memcpy: NULL pointer");
  return mispc_mem_copy(ctx, dst, dst_mem, src, src_mem, bytes);
}
