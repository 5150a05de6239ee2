/* The distributed cover rounds in one kernel a rank (mis2_cover_dist_lsa.cu),
 * for mis2_cover_dist_cuda.cu. */
#ifndef MISPC_MIS2_COVER_DIST_LSA_CUH
#define MISPC_MIS2_COVER_DIST_LSA_CUH

#include "dist_internal.h"
#include "mis2_cover_kernels.cuh"

namespace mis2_cover {

/* The grid every rank runs (collective once a plan, cached in l; 0: none,
 * use the host-driven rounds). */
mispc_status lsa_grid(mispc_context *ctx, MPI_Comm comm, mispc_halo_lsa *l, int *blocks);

/* Queues all rounds and the members on st: c's ghost arrays must be l's
 * window (gT at 0, gM at ghost_bytes, gC at 2 ghost_bytes, gsub at
 * sub_off), cnt four zeroed words; d_out gets the set size over the ranks
 * and the rounds (-1: not done after max_rounds). */
mispc_status lsa_rounds(mispc_context *ctx, const Cover &c, const mispc_halo_lsa *l, int blocks,
                        int lanes, int max_rounds, uint8_t *in_set, unsigned long long *cnt,
                        unsigned long long *d_out, cudaStream_t st);

} // namespace mis2_cover

#endif
