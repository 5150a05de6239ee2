/* Pieces of the distributed GPU coloring (coloring_dist_cuda.cu: the
 * host-driven rounds; coloring_dist_lsa.cu: all passes in one kernel a
 * rank); not installed. */
#ifndef MISPC_COLORING_DIST_CUDA_CUH
#define MISPC_COLORING_DIST_CUDA_CUH

#include "dist_cuda.cuh"
#include "dist_internal.h"
#include "mis_common.h"

namespace color_dist {

/* The smallest color no earlier neighbour has, or -1 while an earlier
 * neighbour has none (colors read through volatile: they may be written by
 * this launch or, in one kernel a rank, by another rank, -1 -> final
 * only). */
static __device__ __forceinline__ int32_t jp_visit(const dev_graph &g, const uint32_t *key,
                                                   const uint32_t *gkey,
                                                   const volatile int32_t *col,
                                                   const volatile int32_t *gcol, int64_t v) {
  const uint32_t kv = key[v];
  const int64_t gv = g.rstart + v;
  for (int32_t base = 0;; base += 64) {
    uint64_t taken = 0;
    for (int64_t p = g.arp[v]; p < g.arp[v + 1]; ++p) {
      const int32_t u = g.acol[p];
      if (u == v || !mis1_before(key[u], g.rstart + u, kv, gv)) continue;
      const int32_t cu = col[u];
      if (cu < 0) return -1;
      if (cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
    }
    for (int64_t p = g.brp[v]; p < g.brp[v + 1]; ++p) {
      const int32_t j = g.bcol[p];
      if (!mis1_before(gkey[j], g.garray[j], kv, gv)) continue;
      const int32_t cu = gcol[j];
      if (cu < 0) return -1;
      if (cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
    }
    if (~taken) return base + __ffsll((long long)~taken) - 1;
  }
}

/* The Jones-Plassmann passes in one kernel a rank, where the GPUs reach
 * each other's memory (coloring_dist_lsa.cu). lsa_plan first (collective,
 * cached in l; nnz and nloc: the rank's entries and rows): the lanes a
 * vertex and the grid every rank runs (0: none, use the host-driven
 * rounds). lsa_color then queues the kernel: col (nloc) gets the colors,
 * key (nloc) and pred (nloc) are scratch, gcol (ng) gets the ghosts'
 * colors, word five device words ([0] the colors' count over the ranks,
 * [1] the passes, -1 where they stalled: an unsymmetric pattern; the rest
 * the kernel's counters). */
mispc_status lsa_plan(mispc_context *ctx, MPI_Comm comm, mispc_halo_lsa *l, int64_t nnz,
                      int64_t nloc, int *lanes, int *blocks);
mispc_status lsa_color(mispc_context *ctx, const dev_graph &d, const mispc_halo_lsa *l, int blocks,
                       int lanes, int mode, uint64_t seed, uint32_t *key, int32_t *pred,
                       int32_t *col, int32_t *gcol, int64_t ng, long long *word, cudaStream_t st);

} // namespace color_dist

#endif
