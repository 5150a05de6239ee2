/* A halo plan's lists shrunk to the entries whose words may still change
 * (dist_internal.h, mispc_halo_sub): the caller flags its send entries and
 * its ghosts by the same predicate on the same words; a stable compaction
 * of each side (CUB scans) keeps the plan's order inside each neighbour's
 * piece, so the k-th word sent to a rank is the k-th it keeps. */
#include <cub/cub.cuh>

#include "cuda_util.cuh"
#include "dist_internal.h"

namespace {

constexpr size_t kAlign = 256;

size_t up(size_t b) {
  return (b + kAlign - 1) / kAlign * kAlign;
}

size_t scan_temp_bytes(int64_t n) {
  size_t bytes = 0;
  cub::DeviceScan::ExclusiveSum(nullptr, bytes, (const int32_t *)nullptr, (int32_t *)nullptr,
                                (int)n);
  return bytes;
}

/* The parts of the block, in order; d_mem NULL: sizes only. Returns the total. */
size_t layout(const mispc_halo *h, char *d_mem, mispc_halo_sub *sub) {
  const size_t ns = (size_t)h->nsend + 1, ng = (size_t)h->nghost + 1;
  const size_t nd = (size_t)h->ndst + (size_t)h->nsrc + 2;
  size_t temp = scan_temp_bytes((int64_t)(ns > ng ? ns : ng));
  if (temp < 8 * nd) temp = 8 * nd; /* the build's offsets go there after the scans */
  const size_t sizes[9] = {4 * ns, 4 * ns, 4 * ns, 4 * ng, 4 * ng, 4 * ng, 8 * nd, 8 * ng, temp};
  void **parts[9] = {(void **)&sub->d_sflag, (void **)&sub->d_sscan, (void **)&sub->d_sidx,
                     (void **)&sub->d_gflag, (void **)&sub->d_gscan, (void **)&sub->d_gidx,
                     (void **)&sub->d_disp,  &sub->d_rbuf,           &sub->d_temp};
  size_t off = 0;
  for (int k = 0; k < 9; ++k) {
    if (d_mem) *parts[k] = d_mem + off;
    off += up(sizes[k]);
  }
  sub->temp_bytes = temp;
  return off;
}

/* idx_out[scan[e]] = idx_in ? idx_in[e] : e for the flagged entries. */
__global__ void compact_kernel(int64_t n, const int32_t *__restrict__ flag,
                               const int32_t *__restrict__ scan, const int32_t *__restrict__ idx_in,
                               int32_t *__restrict__ idx_out) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
       e += (int64_t)gridDim.x * blockDim.x)
    if (flag[e]) idx_out[scan[e]] = idx_in ? idx_in[e] : (int32_t)e;
}

/* pos[q] = scan at the plan's offset q: sends (ndst + 1), then receives. */
__global__ void offsets_kernel(int nd, int nr, const int64_t *__restrict__ disp,
                               const int32_t *__restrict__ sscan, const int32_t *__restrict__ gscan,
                               int64_t *__restrict__ pos) {
  for (int q = blockIdx.x * blockDim.x + threadIdx.x; q < nd + nr + 2; q += gridDim.x * blockDim.x)
    pos[q] = q <= nd ? sscan[disp[q]] : gscan[disp[q]];
}

} // namespace

extern "C" size_t mispc_halo_sub_bytes(const mispc_halo *h) {
  mispc_halo_sub sub;
  return layout(h, NULL, &sub);
}

extern "C" size_t mispc_halo_sub_pinned_words(const mispc_halo *h) {
  return (size_t)h->ndst + (size_t)h->nsrc + 2;
}

extern "C" mispc_status mispc_halo_sub_init(mispc_context *ctx, const mispc_halo *h,
                                            mispc_halo_sub *sub, void *d_mem, int64_t *h_pos,
                                            void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  memset(sub, 0, sizeof *sub);
  layout(h, (char *)d_mem, sub);
  sub->h_pos = h_pos;
  /* the flags' last words stay 0, so each scan's last word is its total */
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(sub->d_sflag, 0, 4 * ((size_t)h->nsend + 1), st));
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(sub->d_gflag, 0, 4 * ((size_t)h->nghost + 1), st));
  /* pinned staging of the plan's offsets (h_pos is free until the first build) */
  for (int q = 0; q <= h->ndst; ++q) h_pos[q] = h->sdispl[q];
  for (int q = 0; q <= h->nsrc; ++q) h_pos[h->ndst + 1 + q] = h->rdispl[q];
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(sub->d_disp, h_pos, 8 * mispc_halo_sub_pinned_words(h),
                                      cudaMemcpyHostToDevice, st));
  return mispc_sync(ctx, st, "halo sub offsets");
}

extern "C" mispc_status mispc_halo_sub_build(mispc_context *ctx, mispc_halo *h, mispc_halo_sub *sub,
                                             MPI_Comm comm, void *stream) {
  cudaStream_t st = (cudaStream_t)stream;
  const int64_t ns = h->nsend, ng = h->nghost;
  const int32_t *sidx = NULL;
  mispc_status s = mispc_halo_device_send_list(ctx, h, &sidx);
  size_t tb = sub->temp_bytes;
  if (!s && cub::DeviceScan::ExclusiveSum(sub->d_temp, tb, sub->d_sflag, sub->d_sscan,
                                          (int)(ns + 1), st) != cudaSuccess)
    s = mispc_seterr(ctx, MISPC_ERR_CUDA, "halo sub: scan of the send flags");
  tb = sub->temp_bytes;
  if (!s && cub::DeviceScan::ExclusiveSum(sub->d_temp, tb, sub->d_gflag, sub->d_gscan,
                                          (int)(ng + 1), st) != cudaSuccess)
    s = mispc_seterr(ctx, MISPC_ERR_CUDA, "halo sub: scan of the ghost flags");
  if (!s) {
    if (ns > 0)
      compact_kernel<<<mispc_device_grid(ctx, ns, 256), 256, 0, st>>>(
          ns, sub->d_sflag, sub->d_sscan, sidx, sub->d_sidx);
    if (ng > 0)
      compact_kernel<<<mispc_device_grid(ctx, ng, 256), 256, 0, st>>>(
          ng, sub->d_gflag, sub->d_gscan, NULL, sub->d_gidx);
    offsets_kernel<<<1, 128, 0, st>>>(h->ndst, h->nsrc, sub->d_disp, sub->d_sscan, sub->d_gscan,
                                      (int64_t *)sub->d_temp);
    if (cudaGetLastError() != cudaSuccess ||
        cudaMemcpyAsync(sub->h_pos, sub->d_temp, 8 * mispc_halo_sub_pinned_words(h),
                        cudaMemcpyDeviceToHost, st) != cudaSuccess)
      s = mispc_seterr(ctx, MISPC_ERR_CUDA, "halo sub: compaction");
  }
  if (!s) s = mispc_sync(ctx, st, "halo sub");
  /* Each destination must keep what it is sent: the counts checked with
   * every neighbour (a mismatch would leave NCCL waiting), in the plan's
   * MPI count words (every rank calls the exchange, failed or not). */
  const int64_t *so = sub->h_pos, *ro = sub->h_pos + h->ndst + 1;
  int *cnt = h->mcount;
  for (int q = 0; q < h->ndst; ++q) cnt[q] = (int)(so[q + 1] - so[q]);
  int bad =
      MPI_Neighbor_alltoall(cnt, 1, MPI_INT, cnt + h->ndst, 1, MPI_INT, h->nbr) != MPI_SUCCESS;
  for (int q = 0; !bad && q < h->nsrc; ++q) bad = cnt[h->ndst + q] != (int)(ro[q + 1] - ro[q]);
  if (!s && bad)
    s = mispc_seterr(ctx, MISPC_ERR_VERIFY,
                     "halo sub: a neighbour keeps another count of this rank's words");
  s = mispc_dist_agree(ctx, comm, s);
  if (!s) {
    sub->soff = so;
    sub->roff = ro;
  }
  return s;
}
