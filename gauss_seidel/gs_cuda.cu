/* GPU steps of multicolor Gauss-Seidel: one launch per color per sweep.
 * Products and sums use __dmul_rn / __dsub_rn / __ddiv_rn (no fused
 * multiply-add), the same arithmetic as gs_host.c, so x is bit-identical. */
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>

#include "cuda_util.cuh"
#include "gs_internal.h"

namespace {

constexpr int kBlock = 256;

__device__ __forceinline__ void update_row(const int64_t *rowptr, const int32_t *colidx,
                                           const double *val, const double *diag, double omega,
                                           const double *b, double *x, int64_t i) {
  double s = b[i];
  for (int64_t p = rowptr[i]; p < rowptr[i + 1]; ++p)
    s = __dsub_rn(s, __dmul_rn(val[p], x[colidx[p]]));
  x[i] = __dadd_rn(x[i], __ddiv_rn(__dmul_rn(omega, s), diag[i]));
}

/* Cluster sweep, a thread per cluster: its rows one after another. */
__global__ void sweep_color_thread(int64_t lo, int64_t hi, const int32_t *order,
                                   const int64_t *cl_ptr, const int32_t *cl_rows, bool backward,
                                   const int64_t *rowptr, const int32_t *colidx, const double *val,
                                   const double *diag, double omega, const double *b, double *x) {
  for (int64_t q = lo + blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < hi;
       q += (int64_t)gridDim.x * blockDim.x) {
    const int32_t item = order[q];
    const int64_t rb = cl_ptr[item], re = cl_ptr[item + 1];
    for (int64_t r = 0; r < re - rb; ++r)
      update_row(rowptr, colidx, val, diag, omega, b, x, cl_rows[backward ? re - 1 - r : rb + r]);
  }
}

/* Point sweep: the rows order[lo..hi) of one color, a thread each. */
__global__ void sweep_color(int64_t lo, int64_t hi, const int32_t *order, const int64_t *rowptr,
                            const int32_t *colidx, const double *val, const double *diag,
                            double omega, const double *b, double *x) {
  for (int64_t q = lo + blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < hi;
       q += (int64_t)gridDim.x * blockDim.x)
    update_row(rowptr, colidx, val, diag, omega, b, x, order[q]);
}

/* Sweep with a group of W lanes (W = 2..32, a power of two) per row (point)
 * or per cluster (cluster, its rows one after another). For each row the
 * lanes load W entries at a time and form the rounded products in parallel;
 * every lane then subtracts them in storage order (shuffles inside the
 * group), so the sum is the host's, bit for bit. Lane 0 of the group writes
 * x_i; __syncwarp on the group's mask orders that write before the next
 * row's loads. Groups of one warp may diverge (different cluster sizes and
 * row lengths): shuffles and syncs use the group's own mask. */
template <int W>
__global__ void sweep_color_group(int64_t lo, int64_t hi, const int32_t *order,
                                  const int64_t *cl_ptr, const int32_t *cl_rows, bool backward,
                                  const int64_t *rowptr, const int32_t *colidx, const double *val,
                                  const double *diag, double omega, const double *b, double *x) {
  const int lane = threadIdx.x & (W - 1);
  const unsigned mask =
      W == 32 ? 0xffffffffu : (((1u << (W & 31)) - 1u) << ((threadIdx.x & 31) & ~(W - 1)));
  const int64_t ngroups = ((int64_t)gridDim.x * blockDim.x) / W;
  for (int64_t q = lo + (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / W; q < hi;
       q += ngroups) {
    const int32_t item = order[q];
    int64_t rb = 0, nr = 1;
    if (cl_ptr) rb = cl_ptr[item], nr = cl_ptr[item + 1] - rb;
    for (int64_t r = 0; r < nr; ++r) {
      const int32_t i = cl_ptr ? cl_rows[backward ? rb + nr - 1 - r : rb + r] : item;
      const int64_t e = rowptr[i + 1];
      double s = b[i];
      for (int64_t base = rowptr[i]; base < e; base += W) {
        const int64_t p = base + lane;
        const double prod = p < e ? __dmul_rn(val[p], x[colidx[p]]) : 0.0;
        const int m = e - base < W ? (int)(e - base) : W;
        for (int j = 0; j < m; ++j) s = __dsub_rn(s, __shfl_sync(mask, prod, j, W));
      }
      if (lane == 0) x[i] = __dadd_rn(x[i], __ddiv_rn(__dmul_rn(omega, s), diag[i]));
      __syncwarp(mask);
    }
  }
}

__global__ void iota(int64_t n, int32_t *v) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    v[i] = (int32_t)i;
}

/* ptr[k] = first position of key k in the sorted keys (binary search). */
__global__ void key_offsets(int64_t n, const int32_t *sorted, int32_t nkeys, int64_t *ptr) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k <= nkeys;
       k += (int64_t)gridDim.x * blockDim.x) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (sorted[mid] < k)
        lo = mid + 1;
      else
        hi = mid;
    }
    ptr[k] = lo;
  }
}

__global__ void diagonal(int64_t n, const int64_t *rowptr, const int32_t *colidx, const double *val,
                         int require_positive, double *diag, unsigned long long *first_bad) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int kind = 1;
    double d = 0;
    for (int64_t p = rowptr[i]; p < rowptr[i + 1]; ++p)
      if (colidx[p] == i) {
        d = val[p];
        kind = d == 0 ? 2 : !isfinite(d) ? 3 : require_positive && d < 0 ? 4 : 0;
        break;
      }
    diag[i] = d;
    if (kind) atomicMin(first_bad, ((unsigned long long)i << 3) | (unsigned long long)kind);
  }
}

} // namespace

extern "C" mispc_status gs_order_cuda(mispc_context *ctx, int64_t n, const int32_t *key,
                                      int32_t nkeys, int32_t *order, int64_t *ptr) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  int32_t *buf = NULL; /* ids in, sorted keys out */
  void *temp = NULL;
  size_t bytes = 0;
  int bits = 1;
  while (bits < 31 && (1ll << bits) <= nkeys) ++bits;
  mispc_status st = mispc_scratch_alloc(ctx, (size_t)n * 8 + 8, (void **)&buf, "sort buffers");
  if (!st && n > 0) {
    int32_t *ids = buf, *keys_out = buf + n;
    iota<<<mispc_device_grid(ctx, n, kBlock), kBlock, 0, s>>>(n, ids);
    cub::DeviceRadixSort::SortPairs(NULL, bytes, key, keys_out, ids, order, n, 0, bits, s);
    st = mispc_scratch_alloc(ctx, bytes + 16, &temp, "sort scratch");
    /* stable radix sort: ids stay increasing inside each key */
    if (!st) cub::DeviceRadixSort::SortPairs(temp, bytes, key, keys_out, ids, order, n, 0, bits, s);
    if (!st)
      key_offsets<<<mispc_device_grid(ctx, nkeys + 1, kBlock), kBlock, 0, s>>>(n, keys_out, nkeys,
                                                                               ptr);
  } else if (!st) {
    cudaMemsetAsync(ptr, 0, sizeof(int64_t) * (size_t)(nkeys + 1), s);
  }
  if (!st) st = mispc_sync(ctx, s, "Gauss-Seidel ordering");
  mispc_scratch_free(ctx, temp);
  mispc_scratch_free(ctx, buf);
  return st;
}

extern "C" mispc_status gs_diag_cuda(mispc_context *ctx, const mispc_csr *A, int require_positive,
                                     double *diag, int64_t *bad_row, int *bad_kind) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  unsigned long long *d = NULL, h = ~0ull;
  MISPC_TRY(mispc_scratch_alloc(ctx, 8, (void **)&d, "diagonal check"));
  cudaMemcpyAsync(d, &h, 8, cudaMemcpyHostToDevice, s);
  if (A->nrows > 0)
    diagonal<<<mispc_device_grid(ctx, A->nrows, kBlock), kBlock, 0, s>>>(
        A->nrows, A->rowptr, A->colidx, A->values, require_positive, diag, d);
  cudaMemcpyAsync(&h, d, 8, cudaMemcpyDeviceToHost, s);
  mispc_status st = mispc_sync(ctx, s, "Gauss-Seidel diagonal");
  mispc_scratch_free(ctx, d);
  *bad_row = h == ~0ull ? -1 : (int64_t)(h >> 3);
  *bad_kind = h == ~0ull ? 0 : (int)(h & 7);
  return st;
}

namespace {
__global__ void gs_expand_kernel(int64_t n, int bs, const int32_t *node_agg, int32_t *dof_agg) {
  int64_t stride = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += stride)
    dof_agg[i] = node_agg[i / bs];
}
} // namespace

extern "C" mispc_status gs_expand_cuda(mispc_context *ctx, int64_t n, int bs,
                                       const int32_t *node_agg, int32_t *dof_agg) {
  if (n == 0) return MISPC_SUCCESS;
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  gs_expand_kernel<<<mispc_device_grid(ctx, n, 256), 256, 0, s>>>(n, bs, node_agg, dof_agg);
  MISPC_CUDA_TRY(ctx, cudaGetLastError());
  return MISPC_SUCCESS;
}

extern "C" mispc_status gs_zero_cuda(mispc_context *ctx, int64_t n, double *x) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(x, 0, sizeof(double) * (size_t)n, s));
  return MISPC_SUCCESS;
}

/* Lanes per row: the power of two at or above the mean row length (2 .. 32),
 * or MISPC_GS_LANES=1|2|4|8|16|32 from the environment (tuning; 1 = a thread
 * per row or cluster with a serial loop). Same arithmetic for every choice. */
static int gs_lanes_per_row(const mispc_gs *gs) {
  static int env = -1;
  if (env < 0) {
    const char *e = getenv("MISPC_GS_LANES");
    int v = e ? atoi(e) : 0;
    env = (v == 1 || v == 2 || v == 4 || v == 8 || v == 16 || v == 32) ? v : 0;
  }
  if (env) return env;
  /* measured on an H100 (docs/GAUSS_SEIDEL.md): clusters want the whole row
   * at once (rows of a cluster are sequential, so latency rules); point rows
   * of one color are many, and 8 lanes per long row keep more rows in flight */
  const double mean = gs->n ? (double)gs->nnz / (double)gs->n : 1.0;
  const int cap = gs->opt.kind == MISPC_GS_CLUSTER ? 32 : 8;
  int w = 2;
  while (w < cap && w < mean) w *= 2;
  return w;
}

extern "C" mispc_status gs_sweep_cuda(mispc_context *ctx, const mispc_gs *gs, const mispc_csr *A,
                                      const double *b, double *x, int backward) {
  cudaStream_t s;
  MISPC_TRY(mispc_stream(ctx, &s));
  const bool cluster = gs->opt.kind == MISPC_GS_CLUSTER;
  const int lanes = gs_lanes_per_row(gs);
  for (int32_t k = 0; k < gs->ncolors; ++k) {
    const int32_t c = backward ? gs->ncolors - 1 - k : k;
    const int64_t lo = gs->color_ptr[c], hi = gs->color_ptr[c + 1];
    if (hi <= lo) continue;
    const unsigned grid = mispc_device_grid(ctx, (long long)lanes * (hi - lo), kBlock);
    const int64_t *cp = cluster ? gs->cl_ptr : NULL;
#define MISPC_GS_LAUNCH(W)                                                                         \
  sweep_color_group<W><<<grid, kBlock, 0, s>>>(lo, hi, gs->order, cp, gs->cl_rows, backward != 0,  \
                                               A->rowptr, A->colidx, A->values, gs->diag,          \
                                               gs->opt.omega, b, x)
    switch (lanes) {
    case 1:
      if (cluster)
        sweep_color_thread<<<grid, kBlock, 0, s>>>(lo, hi, gs->order, gs->cl_ptr, gs->cl_rows,
                                                   backward != 0, A->rowptr, A->colidx, A->values,
                                                   gs->diag, gs->opt.omega, b, x);
      else
        sweep_color<<<grid, kBlock, 0, s>>>(lo, hi, gs->order, A->rowptr, A->colidx, A->values,
                                            gs->diag, gs->opt.omega, b, x);
      break;
    case 2:
      MISPC_GS_LAUNCH(2);
      break;
    case 4:
      MISPC_GS_LAUNCH(4);
      break;
    case 8:
      MISPC_GS_LAUNCH(8);
      break;
    case 16:
      MISPC_GS_LAUNCH(16);
      break;
    default:
      MISPC_GS_LAUNCH(32);
      break;
    }
#undef MISPC_GS_LAUNCH
  }
  MISPC_CUDA_LAUNCH_CHECK(ctx); /* asynchronous: the caller's next sync reports faults */
  return MISPC_SUCCESS;
}
