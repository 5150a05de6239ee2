/* The distributed MIS-1 rounds in one kernel a rank (mis1_dist_lsa.cu),
 * for mis_dist_cuda.cu (CUDA; not installed). */
#ifndef MISPC_MIS1_DIST_LSA_H
#define MISPC_MIS1_DIST_LSA_H

#include "dist_cuda.cuh"

namespace mis1_dist {

/* -vv trace (dist_lsa.cuh, stamp): slots 0 / 1 the first barrier's latest
 * arrival and exit, 2 / 3 the first words' exchange, 4 + 4 r .. 7 + 4 r
 * round r's two exchanges (r < kTraceRounds1), the last two the members'. */
enum { kTraceRounds1 = 30, kTraceSlots1 = 4 + 4 * kTraceRounds1 + 2 };

/* The agreed grid of the rounds' kernel (0: none; collective once a plan). */
mispc_status lsa_grid(mispc_context *ctx, MPI_Comm comm, mispc_halo_lsa *l, int *blocks);
/* Queues the rounds on s: words[0] the set's size over the ranks (or, where
 * max_rounds ran out, the undecided vertices), words[1] the rounds (-1: ran
 * out); words holds 6 device words, trace kTraceSlots1 zeroed ones or NULL. */
mispc_status lsa_rounds(mispc_context *ctx, const dev_graph &d, const mispc_halo_lsa *l, int blocks,
                        int mode, uint64_t seed, int max_rounds, const uint8_t *subset, uint8_t *st,
                        uint8_t *sel, uint32_t *key, uint8_t *in_set, unsigned long long *words,
                        unsigned long long *trace, cudaStream_t s);

} // namespace mis1_dist

#endif
