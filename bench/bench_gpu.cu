/* CUDA events and the cuSPARSE SpMV that benchmarks use as their unit. */
#include <cuda_runtime.h>
#include <cusparse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "bench_gpu.h"
}

struct bench_timer {
  cudaEvent_t a, b;
  cudaStream_t s;
};

extern "C" int bench_timer_create(mispc_context *ctx, bench_timer **t) {
  void *s = NULL;
  if (mispc_context_get_stream(ctx, &s)) return 1;
  *t = (bench_timer *)calloc(1, sizeof(bench_timer));
  (*t)->s = (cudaStream_t)s;
  cudaEventCreate(&(*t)->a);
  cudaEventCreate(&(*t)->b);
  return 0;
}

extern "C" void bench_timer_start(bench_timer *t) {
  cudaEventRecord(t->a, t->s);
}

extern "C" double bench_timer_stop_ms(bench_timer *t) {
  float ms = 0;
  cudaEventRecord(t->b, t->s);
  cudaEventSynchronize(t->b);
  cudaEventElapsedTime(&ms, t->a, t->b);
  return ms;
}

extern "C" void bench_timer_destroy(bench_timer *t) {
  if (!t) return;
  cudaEventDestroy(t->a);
  cudaEventDestroy(t->b);
  free(t);
}

extern "C" void bench_device_name(char *buf, int len) {
  cudaDeviceProp p;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
    snprintf(buf, len, "no GPU");
    cudaGetLastError();
    return;
  }
  snprintf(buf, len, "%s (%d SMs, %.0f GiB)", p.name, p.multiProcessorCount,
           p.totalGlobalMem / 1073741824.0);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

__global__ void fill_values(long long nnz, const double *src, float *f32, double *f64) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nnz;
       i += (long long)gridDim.x * blockDim.x) {
    double v = src ? src[i] : 1.0;
    if (f32) f32[i] = (float)v;
    if (f64) f64[i] = v;
  }
}

__global__ void rowptr_to_32(long long n, const int64_t *r64, int *r32) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i <= n;
       i += (long long)gridDim.x * blockDim.x)
    r32[i] = (int)r64[i];
}

extern "C" double bench_spmv_ms(mispc_context *ctx, const mispc_csr *g, int use_double, int reps) {
  if (g->mem != MISPC_MEM_DEVICE || g->nnz >= 2147483647ll || reps < 1) return -1;
  void *sp = NULL;
  if (mispc_context_get_stream(ctx, &sp)) return -1;
  cudaStream_t s = (cudaStream_t)sp;
  size_t vbytes = use_double ? 8 : 4;
  int *r32 = NULL;
  void *vals = NULL, *x = NULL, *y = NULL, *work = NULL;
  cudaMalloc(&r32, (g->nrows + 1) * sizeof(int));
  cudaMalloc(&vals, g->nnz * vbytes + 1);
  cudaMalloc(&x, g->ncols * vbytes + 1);
  cudaMalloc(&y, g->nrows * vbytes + 1);
  rowptr_to_32<<<1024, 256, 0, s>>>(g->nrows, g->rowptr, r32);
  fill_values<<<1024, 256, 0, s>>>(g->nnz, g->values, use_double ? NULL : (float *)vals,
                                   use_double ? (double *)vals : NULL);
  fill_values<<<1024, 256, 0, s>>>(g->ncols, NULL, use_double ? NULL : (float *)x,
                                   use_double ? (double *)x : NULL);
  cusparseHandle_t h;
  cusparseCreate(&h);
  cusparseSetStream(h, s);
  cudaDataType t = use_double ? CUDA_R_64F : CUDA_R_32F;
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t X, Y;
  cusparseCreateCsr(&A, g->nrows, g->ncols, g->nnz, r32, g->colidx, vals, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, t);
  cusparseCreateDnVec(&X, g->ncols, x, t);
  cusparseCreateDnVec(&Y, g->nrows, y, t);
  double one = 1.0, zero = 0.0;
  float onef = 1.0f, zerof = 0.0f;
  const void *alpha = use_double ? (const void *)&one : (const void *)&onef;
  const void *beta = use_double ? (const void *)&zero : (const void *)&zerof;
  size_t wbytes = 0;
  cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, A, X, beta, Y, t,
                          CUSPARSE_SPMV_ALG_DEFAULT, &wbytes);
  cudaMalloc(&work, wbytes + 1);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  double *ms = (double *)malloc(sizeof(double) * reps);
  int ok = 1;
  for (int i = -3; i < reps && ok; ++i) { /* 3 warm-up runs */
    cudaEventRecord(a, s);
    ok = cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, A, X, beta, Y, t,
                      CUSPARSE_SPMV_ALG_DEFAULT, work) == CUSPARSE_STATUS_SUCCESS;
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float f = 0;
    cudaEventElapsedTime(&f, a, b);
    if (i >= 0) ms[i] = f;
  }
  double med = -1;
  if (ok && cudaGetLastError() == cudaSuccess) {
    qsort(ms, reps, sizeof(double), cmp_double);
    med = ms[reps / 2];
  }
  free(ms);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cusparseDestroySpMat(A);
  cusparseDestroyDnVec(X);
  cusparseDestroyDnVec(Y);
  cusparseDestroy(h);
  cudaFree(r32);
  cudaFree(vals);
  cudaFree(x);
  cudaFree(y);
  cudaFree(work);
  return med;
}
