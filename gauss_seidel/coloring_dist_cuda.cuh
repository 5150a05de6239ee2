/* Pieces of the distributed GPU coloring (coloring_dist_cuda.cu: the
 * host-driven rounds; coloring_dist_lsa.cu: all passes in one kernel a
 * rank); not installed. */
#ifndef MISPC_COLORING_DIST_CUDA_CUH
#define MISPC_COLORING_DIST_CUDA_CUH

#include "dist_cuda.cuh"
#include "dist_internal.h"
#include "mis_common.h"

namespace color_dist {

/* A group of L lanes (1, 8 or 32) of one warp: its mask, its lanes' OR of
 * a 64-bit word and their "any". */
template <int L> struct Lanes {
  __device__ static unsigned mask() {
    return mispc_group_mask<L>();
  }
  __device__ static int lane() {
    return (int)(threadIdx.x & (L - 1));
  }
  __device__ static uint64_t any_or(uint64_t x) {
#pragma unroll
    for (int o = L / 2; o; o >>= 1) x |= __shfl_xor_sync(mask(), x, o);
    return x;
  }
  __device__ static bool any(bool x) {
    return L == 1 ? x : __any_sync(mask(), x);
  }
  /* bit k: lane k of the group has x */
  __device__ static unsigned ballot(bool x) {
    if (L == 1) return x;
    return (__ballot_sync(mask(), x) >> ((threadIdx.x & 31u) & ~(unsigned)(L - 1))) &
           (L == 32 ? 0xffffffffu : (1u << L) - 1u);
  }
};

/* The smallest color no earlier neighbour of v has, or -1 while an earlier
 * neighbour has none, by the L lanes of a group (each a share of the row,
 * then a vote and an OR; L = 1: a thread). Colors are read through
 * volatile: they may be written by this launch or, in one kernel a rank, by
 * another rank, -1 -> final only. */
template <int L>
__device__ __forceinline__ int32_t visit(const dev_graph &g, const uint32_t *key,
                                         const uint32_t *gkey, const volatile int32_t *col,
                                         const volatile int32_t *gcol, int64_t v) {
  const uint32_t kv = key[v];
  const int64_t gv = g.rstart + v;
  for (int32_t base = 0;; base += 64) {
    uint64_t taken = 0;
    bool wait = false;
    for (int64_t p = g.arp[v] + Lanes<L>::lane(); p < g.arp[v + 1] && !wait; p += L) {
      const int32_t u = g.acol[p];
      if (u == v || !mis1_before(key[u], g.rstart + u, kv, gv)) continue;
      const int32_t cu = col[u];
      wait = cu < 0;
      if (cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
    }
    for (int64_t p = g.brp[v] + Lanes<L>::lane(); p < g.brp[v + 1] && !wait; p += L) {
      const int32_t j = g.bcol[p];
      if (!mis1_before(gkey[j], g.garray[j], kv, gv)) continue;
      const int32_t cu = gcol[j];
      wait = cu < 0;
      if (cu >= base && cu - base < 64) taken |= 1ull << (cu - base);
    }
    if (Lanes<L>::any(wait)) return -1;
    taken = Lanes<L>::any_or(taken);
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
