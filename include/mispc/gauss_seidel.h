/* Point and cluster multicolor Gauss-Seidel / SOR (host and GPU), after the
 * Kokkos Kernels MIS-2 aggregation paper (2022), §III-C, Alg. 4.
 *
 * Point: the rows are colored (mispc_color on the matrix graph); the rows of
 * one color are updated in parallel, colors in increasing order.
 * Cluster: the clusters are the aggregates of the matrix graph
 * (mispc_aggregate); the coarse graph is colored; the clusters of one color
 * are updated in parallel, the rows inside a cluster one after another in
 * increasing row id (decreasing on a backward sweep).
 *
 * One row update is x_i += (b_i - sum_j a_ij x_j) * w_i with w_i = omega /
 * a_ii, rounded once at the numeric setup (as PETSc's MatSOR keeps omega /
 * a_ii: a multiply instead of a division on the sweep's critical path), each
 * product rounded before it is added (no fused multiply-add), so host and
 * GPU give bit-identical vectors. Point GS takes the stored entries of row
 * i whose columns have earlier colors first, then the others, each in
 * storage order (rows over 32 entries: each part in chunks of 32 summed as
 * fixed trees); so the backward pass of a symmetric sweep from x = 0 goes
 * on from the forward pass's sums and the sweep reads each entry once, as
 * PETSc's MatSOR with SOR_ZERO_INITIAL_GUESS does. Cluster GS's order is
 * in docs/GAUSS_SEIDEL.md.
 *
 * Setup is split: mispc_gs_symbolic (pattern: clusters, colors, orderings;
 * reusable while the pattern stays the same) and mispc_gs_numeric (values:
 * omega / a_ii). The matrix must be square with a symmetric pattern, sorted
 * rows and a stored diagonal; its memory space picks the backend, and b and x
 * live in the same space. */
#ifndef MISPC_GAUSS_SEIDEL_H
#define MISPC_GAUSS_SEIDEL_H

#include <stdint.h>

#include "mispc/aggregation.h"
#include "mispc/coloring.h"
#include "mispc/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mispc_gs_kind { MISPC_GS_POINT = 0, MISPC_GS_CLUSTER } mispc_gs_kind;
typedef enum mispc_gs_sweep {
  MISPC_GS_FORWARD = 0, /* colors 0 .. nc-1 */
  MISPC_GS_BACKWARD,    /* colors nc-1 .. 0, rows inside a cluster reversed */
  MISPC_GS_SYMMETRIC    /* forward then backward (SGS / SSOR) */
} mispc_gs_sweep;

typedef struct mispc_gs_options {
  mispc_gs_kind kind;      /* default MISPC_GS_CLUSTER */
  mispc_gs_sweep sweep;    /* default MISPC_GS_SYMMETRIC */
  int sweeps;              /* sweeps per apply (default 1) */
  double omega;            /* relaxation (default 1: Gauss-Seidel) */
  mispc_agg_algo clusters; /* cluster kind: mis2agg (default) or mis2basic */
  /* Also gives the seed of the cluster aggregation. coloring.recolor defaults
   * to MISPC_GS_RECOLOR_BY_KIND: 1 pass of recoloring for point GS, 2 for
   * cluster GS (fewer colors, so fewer launches a sweep; the cluster graph is
   * small, so its passes cost little). */
  mispc_coloring_options coloring;
  int require_positive_diagonal; /* 1: a negative diagonal is an error (SPD use) */
  /* Cluster only: aggregate the strength graph (mispc_strength_graph) on nodes of
   * block_size rows instead of the matrix graph; a cluster then holds whole
   * nodes (all dofs of a vertex of an elasticity mesh). Defaults 0 and 1 (the
   * matrix graph itself). block_size must divide the number of rows.
   * Automatic thresholds, from the matrix at each symbolic setup
   * (mispc_strength_auto's theta and weak_max; docs/GAUSS_SEIDEL.md,
   * "Automatic threshold"): MISPC_GS_THETA_AUTO: where some coupling is at
   * or below theta, theta on rows (block_size 1: every row keeps its
   * strongest couplings), else 0; MISPC_GS_THETA_ANISOTROPIC (PETSc
   * clustergs' default): theta on rows where every coupling at or below it
   * is at most MISPC_GS_WEAK_APART times it (anisotropic operators;
   * elasticity, 0.75: each displacement component couples strongly along
   * its own axis), else 0 on nodes of block_size rows. */
  double strength_threshold;
  int block_size;
  /* Cluster only: grow clusters along lines (default 0: off). After the
   * aggregation, clusters that touch at most two others are merged with
   * their neighbours along such chains, round after round, until a round
   * merges nothing. With strength_threshold > 0 on an anisotropic operator
   * a cluster becomes a whole line of strong couplings, so a sweep acts like
   * a line Gauss-Seidel; where every cluster has more than two neighbours
   * (isotropic problems, the matrix graph itself) nothing changes. Clusters
   * can hold thousands of rows (a GPU sweeps a cluster's rows one after
   * another). The same clusters for any number of ranks. MISPC_GS_AUTO:
   * on where the operator is strongly anisotropic (below). */
  int line_clusters;
  /* Cluster only: solve each cluster's block exactly (default 0: the rows of
   * a cluster one after another). 1: block Gauss-Seidel with the clusters as
   * blocks, x_C = A_CC^-1 (b_C - A_C,out x_out), by an LU factor of A_CC
   * without pivoting in the cluster's row order (increasing row id), kept in
   * envelope storage: a line ordered along itself (line clusters) stores 3
   * values a row, a compact cluster of s rows at most s^2. With
   * line_clusters and strength_threshold > 0 a sweep is a line Gauss-Seidel
   * with exact line solves. Needs omega = 1 and A_CC's LU without pivoting
   * (an SPD A has it; a zero or non-finite pivot, or a negative one with
   * require_positive_diagonal, is an error of mispc_gs_numeric naming the
   * row). Host and GPU give the same bits; the GPU gives a cluster one
   * thread. MISPC_GS_AUTO: on where the operator is strongly anisotropic
   * and omega = 1. Strongly anisotropic: some coupling is at or below the
   * automatic threshold and every such one is at most
   * MISPC_GS_ANISOTROPIC times it (aniso2d:300:0.001 0.0015, aniso3d:60:0.01
   * 0.015; Elasticity3D 0.75, aniso2d:300:0.1 0.15): lines or planes of
   * strong couplings that exact cluster solves capture. */
  int block_solve;
} mispc_gs_options;

#define MISPC_GS_RECOLOR_BY_KIND (-1)
/* line_clusters / block_solve: decided from the matrix at each symbolic setup */
#define MISPC_GS_AUTO        (-1)
#define MISPC_GS_ANISOTROPIC 0.1
/* MISPC_GS_THETA_ANISOTROPIC puts the threshold on rows where some coupling
 * at or below it is at most this times it (weak couplings apart from it) */
#define MISPC_GS_WEAK_APART 0.9
/* strength_threshold: the automatic ones (above) */
#define MISPC_GS_THETA_AUTO        (-1.0)
#define MISPC_GS_THETA_ANISOTROPIC (-2.0)

MISPC_API void mispc_gs_options_default(mispc_gs_options *opt);
/* The recoloring passes opt asks for (MISPC_GS_RECOLOR_BY_KIND resolved). */
MISPC_API int mispc_gs_recolor_passes(const mispc_gs_options *opt);

typedef struct mispc_gs mispc_gs;

MISPC_API mispc_status mispc_gs_create(mispc_context *ctx, const mispc_gs_options *opt,
                                       mispc_gs **gs);
MISPC_API void mispc_gs_destroy(mispc_context *ctx, mispc_gs *gs);

/* Pattern part of the setup (graph, clusters, colors, per-color orderings). */
MISPC_API mispc_status mispc_gs_symbolic(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A);
/* Value part: omega / a_ii (updates multiply by it) and, on the GPU, the
 * values of the sweep-ordered copy. A missing, zero, non-finite (or, with
 * require_positive_diagonal, negative) diagonal entry, or one so small that
 * omega / a_ii overflows, is an error naming the row. A must have the
 * pattern given to mispc_gs_symbolic. */
MISPC_API mispc_status mispc_gs_numeric(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A);
/* opt.sweeps sweeps of the chosen kind on A x = b, updating x in place;
 * zero_guess = 1 starts from x = 0 (x need not be initialised). */
MISPC_API mispc_status mispc_gs_apply(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A,
                                      const double *b, double *x, int zero_guess);

typedef struct mispc_gs_info {
  int32_t ncolors;
  int64_t nclusters;                /* point: the number of rows */
  int64_t singletons;               /* clusters of one row (point: all) */
  int64_t min_cluster, max_cluster; /* rows per cluster (point: 1, 1) */
  double symbolic_seconds, numeric_seconds;
  /* block_solve (else 0): entries of A outside the clusters and values of
   * the clusters' factors (L and U off the diagonal, and one a row); a
   * pass over all clusters costs 2 outside + 2 (factor - rows) + rows
   * flops. Several ranks: this rank's clusters. */
  int64_t outside_entries, factor_values;
  /* Cluster only, the options the symbolic setup used (automatic ones
   * resolved), and mispc_strength_auto's values where one was automatic
   * (else 0 and -1). */
  double strength_threshold, auto_theta, auto_weak_max;
  int block_size, line_clusters, block_solve;
} mispc_gs_info;
MISPC_API mispc_status mispc_gs_get_info(const mispc_gs *gs, mispc_gs_info *info);

#ifdef __cplusplus
}
#endif
#endif
