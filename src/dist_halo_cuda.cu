/* The host-staged MPI transport of the halo exchange for device arrays
 * (docs/DISTRIBUTED.md, "Transports"): pack the boundary values on the GPU,
 * copy them to pinned host memory, MPI_Neighbor_alltoallv, copy the ghost
 * values back. NCCL cannot run two ranks on one GPU; this path can, and it
 * needs no CUDA-aware MPI. */
#include "cuda_util.cuh"
#include "dist_internal.h"
#include "mispc/timer.h"

/* The round count of mispc_halo_count_start: n words summed, widened. */
struct count_words {
  const unsigned *in;
  int n;
  unsigned long long *out;
};

__device__ __forceinline__ void widen(const count_words &c) {
  unsigned long long sum = 0;
  for (int k = 0; k < c.n; ++k) sum += c.in[k];
  *c.out = sum;
}

/* out[k] = in[idx[k]]; with c.out, one thread also widens the count. */
template <typename T>
__global__ void pack_kernel(int64_t n, const int32_t *__restrict__ idx, const T *__restrict__ in,
                            T *__restrict__ out, count_words c) {
  if (c.out && blockIdx.x == 0 && threadIdx.x == 0) widen(c);
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n;
       k += (int64_t)gridDim.x * blockDim.x)
    out[k] = in[idx[k]];
}

static mispc_status ensure_device(mispc_context *ctx, mispc_halo *h) {
  if (h->d_sbuf) return MISPC_SUCCESS;
  const size_t ns = (size_t)h->nsend + 1, ng = (size_t)h->nghost + 1;
  MISPC_CUDA_TRY(ctx, cudaMalloc((void **)&h->d_sidx, ns * sizeof(int32_t)));
  MISPC_CUDA_TRY(ctx, cudaMalloc(&h->d_sbuf, ns * 8));
  MISPC_CUDA_TRY(ctx, cudaMallocHost(&h->h_sbuf, ns * 8));
  MISPC_CUDA_TRY(ctx, cudaMallocHost(&h->h_rbuf, ng * 8));
  /* on the context's stream: a pageable cudaMemcpy may return before its DMA
   * ends, and kernels on a non-blocking stream do not wait for it */
  MISPC_TRY(mispc_mem_copy(ctx, h->d_sidx, MISPC_MEM_DEVICE, h->sidx, MISPC_MEM_HOST,
                           (size_t)h->nsend * sizeof(int32_t)));
  return MISPC_SUCCESS;
}

extern "C" void mispc_halo_free_device(mispc_halo *h) {
  mispc_halo_nccl_free(h);
  if (h->d_sidx) cudaFree(h->d_sidx);
  if (h->d_garray) cudaFree(h->d_garray);
  if (h->d_sbuf) cudaFree(h->d_sbuf);
  if (h->h_sbuf) cudaFreeHost(h->h_sbuf);
  if (h->h_rbuf) cudaFreeHost(h->h_rbuf);
  h->d_sidx = NULL;
  h->d_garray = NULL;
  h->d_sbuf = h->h_sbuf = h->h_rbuf = NULL;
}

extern "C" mispc_status mispc_halo_device_garray(mispc_context *ctx, mispc_halo *h,
                                                 const int64_t *garray, const int64_t **d_garray) {
  if (!h->d_garray) {
    MISPC_CUDA_TRY(ctx, cudaMalloc((void **)&h->d_garray, ((size_t)h->nghost + 1) * 8));
    MISPC_TRY(mispc_mem_copy(ctx, h->d_garray, MISPC_MEM_DEVICE, garray, MISPC_MEM_HOST,
                             (size_t)h->nghost * 8));
  }
  *d_garray = h->d_garray;
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_halo_device_send_list(mispc_context *ctx, mispc_halo *h,
                                                    const int32_t **d_sidx) {
  MISPC_TRY(ensure_device(ctx, h));
  *d_sidx = h->d_sidx;
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_halo_exchange_device(mispc_context *ctx, mispc_halo *h,
                                                   const void *owned, void *ghost, size_t size) {
  cudaStream_t st;
  MISPC_TRY(mispc_stream(ctx, &st));
  return mispc_halo_exchange_device_on(ctx, h, owned, ghost, size, st);
}

/* The exchange on stream st; with c.out, NCCL also sums the count (one
 * group) and h_out gets it (the MPI path copies this rank's count only). */
static mispc_status exchange(mispc_context *ctx, mispc_halo *h, const void *owned, void *ghost,
                             size_t size, cudaStream_t st, count_words c,
                             unsigned long long *h_out) {
  if (size != 1 && size != 4 && size != 8)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "device halo exchange of %zu-byte elements",
                        size);
  MISPC_TRY(ensure_device(ctx, h));
  const double t0 = mispc_wtime();
  if (h->nsend > 0 || c.out) {
    const unsigned grid = mispc_device_grid(ctx, h->nsend, 256);
    if (size == 1)
      pack_kernel<<<grid, 256, 0, st>>>(h->nsend, h->d_sidx, (const uint8_t *)owned,
                                        (uint8_t *)h->d_sbuf, c);
    else if (size == 4)
      pack_kernel<<<grid, 256, 0, st>>>(h->nsend, h->d_sidx, (const uint32_t *)owned,
                                        (uint32_t *)h->d_sbuf, c);
    else
      pack_kernel<<<grid, 256, 0, st>>>(h->nsend, h->d_sidx, (const uint64_t *)owned,
                                        (uint64_t *)h->d_sbuf, c);
    MISPC_CUDA_LAUNCH_CHECK(ctx);
  }
  if (h->nccl) { /* device to device, ordered on the stream: no host wait */
    MISPC_TRY(mispc_halo_nccl_exchange_sum(ctx, h, ghost, size, c.out, st));
  } else {
    if (h->nsend > 0)
      MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(h->h_sbuf, h->d_sbuf, (size_t)h->nsend * size,
                                          cudaMemcpyDeviceToHost, st));
    /* The values are needed on the host before MPI sends them. */
    MISPC_TRY(mispc_sync(ctx, st, "halo packing"));
    mispc_halo_counts(h, size);
    int *sc = h->mcount, *sd = h->mdispl, *rc = h->mcount + h->ndst, *rd = h->mdispl + h->ndst;
    if (MPI_Neighbor_alltoallv(h->h_sbuf, sc, sd, MPI_BYTE, h->h_rbuf, rc, rd, MPI_BYTE, h->nbr) !=
        MPI_SUCCESS)
      return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Neighbor_alltoallv failed");
    if (h->nghost > 0)
      MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(ghost, h->h_rbuf, (size_t)h->nghost * size,
                                          cudaMemcpyHostToDevice, st));
  }
  /* the count: summed over the ranks under NCCL; this rank's alone under MPI
   * (count_finish sums it) */
  if (c.out) MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(h_out, c.out, 8, cudaMemcpyDeviceToHost, st));
  h->stats.exchanges++;
  h->stats.bytes_sent += h->nsend * (int64_t)size;
  h->stats.comm_seconds += mispc_wtime() - t0;
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_halo_exchange_device_on(mispc_context *ctx, mispc_halo *h,
                                                      const void *owned, void *ghost, size_t size,
                                                      void *stream) {
  const count_words none = {NULL, 0, NULL};
  return exchange(ctx, h, owned, ghost, size, (cudaStream_t)stream, none, NULL);
}

extern "C" mispc_status mispc_halo_exchange_count_device(mispc_context *ctx, mispc_halo *h,
                                                         const void *owned, void *ghost,
                                                         size_t size, const unsigned *d_count,
                                                         int n, unsigned long long *d_wide,
                                                         unsigned long long *h_out, void *stream) {
  const count_words c = {d_count, n, d_wide};
  return exchange(ctx, h, owned, ghost, size, (cudaStream_t)stream, c, h_out);
}

__global__ void widen_kernel(count_words c) {
  widen(c);
}

extern "C" mispc_status mispc_halo_count_start(mispc_context *ctx, mispc_halo *h,
                                               const unsigned *d_count, int n,
                                               unsigned long long *d_wide,
                                               unsigned long long *h_out, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  const count_words c = {d_count, n, d_wide};
  widen_kernel<<<1, 1, 0, st>>>(c);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  if (h->nccl) MISPC_TRY(mispc_halo_nccl_sum(ctx, h, d_wide, st));
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(h_out, d_wide, 8, cudaMemcpyDeviceToHost, st));
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_halo_count_finish(mispc_context *ctx, mispc_halo *h, MPI_Comm comm,
                                                const unsigned long long *h_out, int64_t *out) {
  *out = (int64_t)*h_out;
  return h->nccl ? MISPC_SUCCESS : mispc_dist_sum(ctx, h, comm, out);
}

/* ---- exchanges of one key (color) at a time ---------------------------- */

extern "C" void mispc_halo_keyed_destroy(mispc_halo_keyed *kp) {
  if (!kp) return;
  free(kp->soff), free(kp->roff);
  if (kp->d_sidx) cudaFree(kp->d_sidx);
  if (kp->d_gidx) cudaFree(kp->d_gidx);
  if (kp->d_buf) cudaFree(kp->d_buf);
  if (kp->h_buf) cudaFreeHost(kp->h_buf);
  free(kp);
}

extern "C" mispc_status mispc_halo_keyed_create(mispc_context *ctx, const mispc_halo *h,
                                                const int32_t *skey, const int32_t *gkey, int nkeys,
                                                mispc_halo_keyed **out) {
  *out = NULL;
  mispc_halo_keyed *kp = (mispc_halo_keyed *)calloc(1, sizeof *kp);
  if (!kp) return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for a keyed halo");
  kp->nkeys = nkeys;
  const size_t ns = (size_t)nkeys * h->ndst, nr = (size_t)nkeys * h->nsrc;
  kp->soff = (int64_t *)calloc(ns + 1, sizeof(int64_t));
  kp->roff = (int64_t *)calloc(nr + 1, sizeof(int64_t));
  int32_t *sidx = (int32_t *)malloc(sizeof(int32_t) * ((size_t)h->nsend + 1));
  int32_t *gidx = (int32_t *)malloc(sizeof(int32_t) * ((size_t)h->nghost + 1));
  mispc_status s = kp->soff && kp->roff && sidx && gidx
                       ? MISPC_SUCCESS
                       : mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for a keyed halo");
  for (int q = 0; !s && q < h->ndst; ++q) /* counts, then offsets: key-major */
    for (int64_t e = h->sdispl[q]; e < h->sdispl[q + 1]; ++e) {
      if (skey[e] < 0 || skey[e] >= nkeys) {
        s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "keyed halo: key %d of %d", skey[e], nkeys);
        break;
      }
      kp->soff[(size_t)skey[e] * h->ndst + q + 1]++;
    }
  for (int q = 0; !s && q < h->nsrc; ++q)
    for (int64_t j = h->rdispl[q]; j < h->rdispl[q + 1]; ++j) {
      if (gkey[j] < 0 || gkey[j] >= nkeys) {
        s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "keyed halo: key %d of %d", gkey[j], nkeys);
        break;
      }
      kp->roff[(size_t)gkey[j] * h->nsrc + q + 1]++;
    }
  if (!s) {
    for (size_t t = 0; t < ns; ++t) kp->soff[t + 1] += kp->soff[t];
    for (size_t t = 0; t < nr; ++t) kp->roff[t + 1] += kp->roff[t];
    int64_t *fill = (int64_t *)malloc(sizeof(int64_t) * (ns + nr + 1));
    if (!fill) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory for a keyed halo");
    if (!s) { /* each entry in its (key, rank) slot, in plan order inside it */
      memcpy(fill, kp->soff, sizeof(int64_t) * ns);
      memcpy(fill + ns, kp->roff, sizeof(int64_t) * nr);
      for (int q = 0; q < h->ndst; ++q)
        for (int64_t e = h->sdispl[q]; e < h->sdispl[q + 1]; ++e)
          sidx[fill[(size_t)skey[e] * h->ndst + q]++] = h->sidx[e];
      for (int q = 0; q < h->nsrc; ++q)
        for (int64_t j = h->rdispl[q]; j < h->rdispl[q + 1]; ++j)
          gidx[fill[ns + (size_t)gkey[j] * h->nsrc + q]++] = (int32_t)j;
    }
    free(fill);
  }
  const size_t nb = (size_t)h->nsend + (size_t)h->nghost + 1;
  if (!s) s = MISPC_CUDA_CALL(ctx, cudaMalloc((void **)&kp->d_sidx, ((size_t)h->nsend + 1) * 4));
  if (!s) s = MISPC_CUDA_CALL(ctx, cudaMalloc((void **)&kp->d_gidx, ((size_t)h->nghost + 1) * 4));
  if (!s) s = MISPC_CUDA_CALL(ctx, cudaMalloc((void **)&kp->d_buf, nb * 8));
  if (!s) s = MISPC_CUDA_CALL(ctx, cudaMallocHost((void **)&kp->h_buf, nb * 8));
  if (!s)
    s = mispc_mem_copy(ctx, kp->d_sidx, MISPC_MEM_DEVICE, sidx, MISPC_MEM_HOST,
                       (size_t)h->nsend * 4);
  if (!s)
    s = mispc_mem_copy(ctx, kp->d_gidx, MISPC_MEM_DEVICE, gidx, MISPC_MEM_HOST,
                       (size_t)h->nghost * 4);
  free(sidx), free(gidx);
  if (s) {
    mispc_halo_keyed_destroy(kp);
    return s;
  }
  *out = kp;
  return MISPC_SUCCESS;
}

__global__ void scatter_kernel(int64_t n, const int32_t *__restrict__ idx,
                               const double *__restrict__ in, double *__restrict__ out) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n;
       k += (int64_t)gridDim.x * blockDim.x)
    out[idx[k]] = in[k];
}

extern "C" mispc_status mispc_halo_exchange_where_device(mispc_context *ctx, mispc_halo *h,
                                                         const mispc_halo_keyed *kp,
                                                         const double *owned, double *ghost,
                                                         int k) {
  cudaStream_t st;
  MISPC_TRY(mispc_stream(ctx, &st));
  const double t0 = mispc_wtime();
  if (h->ndst == 0 && h->nsrc == 0) return MISPC_SUCCESS; /* no neighbours: nothing moves */
  const int64_t *so = kp->soff + (size_t)k * h->ndst, *ro = kp->roff + (size_t)k * h->nsrc;
  const int64_t s0 = so[0], ns = so[h->ndst] - s0, r0 = ro[0], nr = ro[h->nsrc] - r0;
  double *dsb = kp->d_buf, *drb = kp->d_buf + ns, *hsb = kp->h_buf, *hrb = kp->h_buf + ns;
  if (ns > 0) {
    pack_kernel<<<mispc_device_grid(ctx, ns, 256), 256, 0, st>>>(
        ns, kp->d_sidx + s0, (const uint64_t *)owned, (uint64_t *)dsb, count_words{NULL, 0, NULL});
    MISPC_CUDA_LAUNCH_CHECK(ctx);
  }
  if (h->nccl) { /* device to device on the stream: no host wait */
    MISPC_TRY(mispc_halo_nccl_exchange_counts(ctx, h, dsb, so, drb, ro, st));
  } else { /* staged through pinned host memory and MPI */
    if (ns > 0)
      MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(hsb, dsb, (size_t)ns * 8, cudaMemcpyDeviceToHost, st));
    /* the values must be on the host before MPI sends them, and the previous
     * exchange's copy out of the receive buffer done before MPI refills it */
    if (ns > 0 || nr > 0) MISPC_TRY(mispc_sync(ctx, st, "keyed halo packing"));
    int *sc = h->mcount, *sd = h->mdispl, *rc = h->mcount + h->ndst, *rd = h->mdispl + h->ndst;
    for (int q = 0; q < h->ndst; ++q)
      sc[q] = (int)((so[q + 1] - so[q]) * 8), sd[q] = (int)((so[q] - s0) * 8);
    for (int q = 0; q < h->nsrc; ++q)
      rc[q] = (int)((ro[q + 1] - ro[q]) * 8), rd[q] = (int)((ro[q] - r0) * 8);
    if (MPI_Neighbor_alltoallv(hsb, sc, sd, MPI_BYTE, hrb, rc, rd, MPI_BYTE, h->nbr) != MPI_SUCCESS)
      return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Neighbor_alltoallv failed");
    if (nr > 0)
      MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(drb, hrb, (size_t)nr * 8, cudaMemcpyHostToDevice, st));
  }
  if (nr > 0) {
    scatter_kernel<<<mispc_device_grid(ctx, nr, 256), 256, 0, st>>>(nr, kp->d_gidx + r0, drb,
                                                                    ghost);
    MISPC_CUDA_LAUNCH_CHECK(ctx);
  }
  h->stats.exchanges++;
  h->stats.bytes_sent += ns * 8;
  h->stats.comm_seconds += mispc_wtime() - t0;
  return MISPC_SUCCESS;
}
