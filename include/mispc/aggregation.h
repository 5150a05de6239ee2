/* Strength graphs, deterministic MIS-2 aggregation, coarse graphs and the
 * tentative prolongator (host and GPU), following the Kokkos Kernels MIS-2
 * aggregation paper (Kelley and Rajamanickam, "Parallel, portable
 * algorithms for distance-2 maximal independent set and graph coarsening",
 * 2022), §III-B, Alg. 2 and 3.
 *
 * Every function follows the memory space of its input graph (host graphs on
 * the host, device graphs on the GPU) and gives bit-identical results on both,
 * for any thread count and run to run. */
#ifndef MISPC_AGGREGATION_H
#define MISPC_AGGREGATION_H

#include <stdint.h>

#include "mispc/csr.h"
#include "mispc/mis.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Strength graph of a square matrix with values, on nodes of block_size rows
 * each (block_size >= 1 must divide nrows; node I holds rows I*bs .. I*bs+bs-1).
 * Entry a_ij (i != j) is strong when |a_ij| > theta * sqrt(|a_ii * a_jj|);
 * theta = 0 keeps every stored off-diagonal entry (even a stored zero). Nodes I
 * != J are joined when any entry of block (I, J) or of block (J, I) is strong
 * (so the result is symmetric), and never to themselves. Output: a pattern
 * (values NULL) with sorted rows, in A's memory space. A pattern input (values
 * NULL) is treated as theta = 0. */
MISPC_API mispc_status mispc_strength_graph(mispc_context *ctx, const mispc_csr *A, double theta,
                                            int block_size, mispc_csr *S);

/* The automatic strength threshold of a square matrix with values (cluster
 * Gauss-Seidel's strength_threshold < 0; docs/GAUSS_SEIDEL.md, "Automatic
 * threshold"). With r_i = 1 / sqrt(|a_ii|) (stored diagonal entries summed)
 * and s_ij = |a_ij| r_j r_i for i != j: *theta = 2/3 of the smallest, over
 * the rows with a positive max_j s_ij, of that maximum (0 when no row has
 * one), so every row keeps its strongest couplings; *weak_max = the largest
 * s_ij <= *theta (-1 when every off-diagonal entry is above it: an
 * isotropic operator). Maxima and a minimum only: the same bits for host and
 * device matrices and, through mispc_dist_strength_auto, any rank count. A
 * pattern (values NULL) gives 0 and -1. */
MISPC_API mispc_status mispc_strength_auto(mispc_context *ctx, const mispc_csr *A, double *theta,
                                           double *weak_max);

typedef enum mispc_agg_algo {
  MISPC_AGG_MIS2AGG = 0, /* Alg. 3: roots, secondary MIS-2 roots, clean-up (default) */
  MISPC_AGG_MIS2BASIC    /* Alg. 2: roots and their neighbours, leftovers join a neighbour */
} mispc_agg_algo;

/* What becomes of isolated vertices (no neighbour but themselves). */
typedef enum mispc_agg_isolated {
  MISPC_ISOLATED_SINGLETONS = 0, /* each its own aggregate, numbered as a phase-1 root (default) */
  MISPC_ISOLATED_COLLECT         /* all in one aggregate, the last id, rooted at the smallest;
                                    the others keep their order, renumbered without gaps. For
                                    multilevel coarsening of graphs with many isolated vertices
                                    (power-law, social): the coarse graph holds one isolated
                                    vertex for them, so the levels keep shrinking. One process
                                    only (the distributed call refuses it). */
} mispc_agg_isolated;

typedef struct mispc_agg_options {
  mispc_agg_algo algo;
  mispc_mis_options mis;       /* options of the MIS-2 calls (seed, ...) */
  mispc_agg_isolated isolated; /* MISPC_ISOLATED_SINGLETONS unless set */
  /* 0 (default): no bound. N >= 2: after the phases (and the isolated
   * vertices' collection) every aggregate of more than N vertices is split
   * into ceil(m / N) pieces of consecutive members in increasing vertex id,
   * sizes floor(j m / p) .. floor((j+1) m / p); the piece holding the root
   * keeps the aggregate's id and root, the others get new ids after all
   * existing ones (by aggregate, then piece) and their smallest member as
   * root. For hubs of power-law graphs, whose stars grow to thousands of
   * vertices; a piece of a hub's leaves is not connected (its family is:
   * mispc_aggregates.parent). One process only. */
  int64_t max_size;
  /* mis2agg phase 2: a member of the leftovers' MIS-2 roots a new aggregate
   * when at least this many of its neighbours are unaggregated. 2 (default,
   * and any smaller value) is the published Alg. 3; larger values leave more
   * vertices to phase 3, which adds them to neighbouring aggregates: fewer,
   * larger aggregates (a value above every degree: no secondary roots, with
   * mis2agg's phase 3). For AMG coarsening with operator complexity in
   * mind; the same aggregates on the host, the GPU and any number of ranks. */
  int phase2_min_free;
} mispc_agg_options;

MISPC_API void mispc_agg_options_default(mispc_agg_options *opt);

/* The aggregates of a graph. Arrays live in the graph's memory space and are
 * owned by the struct (free with mispc_aggregates_free, with the context that
 * made them: device arrays come from its memory pool).
 *
 * Numbering (both algorithms): phase-1 roots are the members of MIS-2(G); the
 * aggregate of the k-th smallest root id is k. mis2agg then numbers its
 * secondary roots after those, again in increasing root id.
 *
 * mis2basic: root r and its neighbours form aggregate agg[r]; every other
 *   vertex v joins the aggregate of its smallest-id neighbour that is in a
 *   phase-1 aggregate.
 * mis2agg: phase 1 as above; phase 2 computes MIS-2 of the subgraph induced by
 *   the unaggregated vertices (mispc_mis2_subset, same options) and each member
 *   with at least 2 unaggregated neighbours becomes a root of {itself, those
 *   neighbours}; phase 3 gives each vertex still unaggregated the aggregate
 *   that holds most of its neighbours, counted with the labels as they stand
 *   after phase 2 (ties: smaller aggregate size after phase 2, then smaller
 *   aggregate id).
 * Isolated vertices are MIS-2 members and so singleton aggregates (or, with
 * MISPC_ISOLATED_COLLECT, one aggregate of them all, numbered last, after
 * the others are renumbered without their ids; phase_aggs[0] and [1] then
 * count the others); mis2agg makes no other singletons. Self loops are
 * ignored. */
typedef struct mispc_aggregates {
  int64_t n;     /* vertices */
  int64_t naggs; /* aggregates */
  int32_t *agg;  /* n entries: aggregate id of each vertex, 0 .. naggs-1 */
  int32_t *root; /* naggs entries: root vertex of each aggregate */
  /* NULL unless max_size split some aggregate; then naggs entries: the
   * aggregate each was split from (its own id for the piece holding the
   * root and for the aggregates not split). */
  int32_t *parent;
  mispc_memspace mem;
  /* filled on the host by every call */
  int64_t phase_aggs[3];   /* aggregates after phase 1, 2, 3 (mis2basic: 1, 1, 1) */
  int64_t phase_done[3];   /* vertices aggregated after phase 1, 2, 3 */
  int mis_rounds[2];       /* rounds of the phase-1 and phase-2 MIS-2 */
  double phase_seconds[3]; /* wall time of each phase, device work included */
} mispc_aggregates;

MISPC_API mispc_status mispc_aggregate(mispc_context *ctx, const mispc_csr *graph,
                                       const mispc_agg_options *opt, mispc_aggregates *out);
MISPC_API void mispc_aggregates_free(mispc_context *ctx, mispc_aggregates *a);

/* Size statistics (host or device aggregates). hist[k] counts aggregates of
 * size k for k < 31 and hist[31] those of size >= 31. */
typedef struct mispc_agg_stats {
  int64_t naggs, min_size, max_size, singletons;
  double mean_size;
  int64_t hist[32];
} mispc_agg_stats;
MISPC_API mispc_status mispc_aggregates_stats(mispc_context *ctx, const mispc_aggregates *a,
                                              mispc_agg_stats *st);

/* Checks that every vertex is in exactly one aggregate with a valid id, every
 * aggregate is non-empty, connected in the graph (or, when its root is
 * isolated, made of isolated vertices only: MISPC_ISOLATED_COLLECT; with a
 * parent array, each family of pieces is connected instead, and only the
 * families' roots take part in the root checks below) and holds its root, and that
 * no two roots are adjacent. The phase-1 roots (the first phase_aggs[0]
 * aggregates) must be a distance-2 independent set of the graph, and later
 * roots must be >= 3 apart through vertices outside the phase-1 aggregates
 * (mis2agg's secondary roots are, by construction, 2 from a phase-1 root).
 * Without a usable phase_aggs[0] every root pair gets the distance-2 check.
 * MISPC_ERR_VERIFY with the offending vertex or aggregate in the context's
 * message otherwise. */
MISPC_API mispc_status mispc_verify_aggregation(mispc_context *ctx, const mispc_csr *graph,
                                                const mispc_aggregates *a);

/* Quotient graph: aggregates A != B are joined when some edge joins a vertex of
 * A to one of B. Sorted pattern without self loops, in the graph's space. */
MISPC_API mispc_status mispc_coarse_graph(mispc_context *ctx, const mispc_csr *graph,
                                          const mispc_aggregates *a, mispc_csr *coarse);

/* Tentative prolongator for a near-null space (host or device). B holds k vectors of
 * n*block_size entries, column-major (B[j * ndof + i]); B = NULL means the
 * constant vector (k = 1). For every aggregate the block of B on its dofs
 * (dofs of node v are v*bs .. v*bs+bs-1, in increasing node id) is factored
 * as Q R by modified Gram-Schmidt, twice: P holds Q (n*bs x naggs*k, column
 * agg*k + j) and Bc, if not NULL, receives R stacked per aggregate
 * (naggs*k x k, column-major), the coarse near-null space. A column whose
 * norm falls below 1e-12 of the original (rank-deficient small aggregates)
 * gets R_jj = 0 and Q completes the basis with the unit vector that keeps the
 * most norm, orthonormalised, so that P has no zero column (a zero diagonal
 * in the Galerkin operator) while the aggregate has more dofs than earlier
 * columns; beyond that (fewer dofs than vectors) the column is zero.
 * P, B and Bc lie in the aggregates' memory space: device aggregates give a
 * device P (one GPU thread an aggregate, the same QR source compiled without
 * fused multiply-adds), the same bits as the host's. */
MISPC_API mispc_status mispc_tentative_prolongator(mispc_context *ctx, const mispc_aggregates *a,
                                                   int block_size, int k, const double *B,
                                                   mispc_csr *P, double *Bc);

/* Smoothed prolongator P = P0 - omega D^-1 A P0 (one damped Jacobi step on
 * P0's columns; D = diag(A)), host or device (A and P0 in one memory space,
 * P owned there). P's pattern is that of A P0 (mispc_csr_multiply, whose
 * summation order it inherits); each entry is p0_ij + (-(s_i * w_ij)) with
 * s_i = omega / a_ii and w = A P0, every operation rounded: the same bits on
 * the host and the GPU. A's diagonal must be present, nonzero and finite; a
 * row of P0 must not repeat a column. */
MISPC_API mispc_status mispc_smooth_prolongator(mispc_context *ctx, const mispc_csr *A,
                                                const mispc_csr *P0, double omega, mispc_csr *P);

/* Galerkin coarse operator Ac = P^T (A P), host or device (A and P in one
 * memory space, Ac owned there): P^T by mispc_csr_transpose, then two
 * mispc_csr_multiply (A P first), so the result is deterministic and the
 * same bits on the host and the GPU; its memory is that of P^T, A P and Ac
 * (no intermediate product lists). */
MISPC_API mispc_status mispc_galerkin_product(mispc_context *ctx, const mispc_csr *A,
                                              const mispc_csr *P, mispc_csr *Ac);

/* The 6 rigid-body modes (3 translations, 3 rotations) of nodes with 3D
 * coordinates xyz[3*i..3*i+2], as B for block_size 3: ndof = 3 * nnodes,
 * B has 6 columns of ndof entries (column-major). */
MISPC_API mispc_status mispc_rigid_body_modes(mispc_context *ctx, int64_t nnodes, const double *xyz,
                                              double *B);

#ifdef __cplusplus
}
#endif
#endif
