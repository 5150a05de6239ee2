/* Pieces shared by the distributed device passes (MIS, coloring,
 * aggregation; not installed): the block size, a grid-stride loop over the
 * owned vertices, and the device view of a distributed graph. */
#ifndef MISPC_DIST_CUDA_CUH
#define MISPC_DIST_CUDA_CUH

#include "cuda_util.cuh"
#include "dist_internal.h"

#define DIST_BLOCK 256

#define FOR_VERTEX(v, n)                                                                           \
  for (int64_t v = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < (n);                        \
       v += (int64_t)gridDim.x * blockDim.x)

/* The owned rows (diagonal block a, off-diagonal block b, both on the
 * device) and the global ids of the ghosts. */
struct dev_graph {
  int64_t nloc, rstart;
  const int64_t *arp, *brp;
  const int32_t *acol, *bcol;
  const int64_t *garray;
};

static inline mispc_status dist_device_view(mispc_context *ctx, const mispc_dist_csr *g,
                                            dev_graph *d) {
  d->nloc = g->rend - g->rstart;
  d->rstart = g->rstart;
  d->arp = g->diag.rowptr;
  d->brp = g->offd.rowptr;
  d->acol = g->diag.colidx;
  d->bcol = g->offd.colidx;
  return mispc_halo_device_garray(ctx, g->halo, g->garray, &d->garray);
}

/* Reads the device counter, zeroes it, and sums it over the ranks. */
static inline mispc_status dist_global_count(mispc_context *ctx, const mispc_dist_csr *g,
                                             cudaStream_t st, unsigned long long *d_count,
                                             int64_t *out) {
  unsigned long long c = 0;
  MISPC_CUDA_TRY(ctx, cudaMemcpyAsync(&c, d_count, sizeof c, cudaMemcpyDeviceToHost, st));
  MISPC_CUDA_TRY(ctx, cudaMemsetAsync(d_count, 0, sizeof c, st));
  MISPC_TRY(mispc_sync(ctx, st, "distributed MIS round"));
  *out = (int64_t)c;
  return mispc_dist_sum(ctx, g->halo, g->comm, out);
}

#endif
