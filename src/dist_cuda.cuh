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

#endif
