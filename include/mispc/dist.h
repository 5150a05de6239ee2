/* Distributed graphs and MIS over MPI (built when mispc is configured with
 * MPI: MISPC_ENABLE_MPI in mispc/config.h).
 *
 * Layout (what PETSc's MATMPIAIJ holds): rank p owns the contiguous global
 * rows [rstart, rend) (any sizes, empty ranks allowed); its rows are split
 * into a "diagonal" block whose columns are local ids (global id - rstart)
 * and an "off-diagonal" block whose columns index garray, the sorted global
 * ids of the ghost vertices. Global ids are 64-bit.
 *
 * Contract: every result (MIS membership, round counts, set sizes) is
 * bit-identical to the one-process result on the whole graph, for any number
 * of ranks and any row ranges. Priorities depend only on (seed, round,
 * global id) and global degrees; rounds are synchronous.
 *
 * All functions here are collective over the graph's communicator: every
 * rank calls them, and a failure on any rank is returned on every rank with
 * the same status and message ("rank R: ..."), so no rank hangs. */
#ifndef MISPC_DIST_H
#define MISPC_DIST_H

#include <mpi.h>
#include <stdint.h>

#include "mispc/aggregation.h"
#include "mispc/coloring.h"
#include "mispc/gauss_seidel.h"
#include "mispc/mis.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mispc_halo mispc_halo; /* neighbour ranks, send and receive lists */

typedef struct mispc_dist_csr {
  MPI_Comm comm;    /* the caller's communicator (not duplicated, not freed) */
  int64_t nglobal;  /* global rows = global columns */
  int64_t rstart;   /* first owned global row */
  int64_t rend;     /* one past the last owned global row */
  mispc_csr diag;   /* (rend - rstart) x (rend - rstart), local column ids */
  mispc_csr offd;   /* (rend - rstart) x nghost, columns index garray */
  int64_t nghost;   /* ghost vertices of this rank */
  int64_t *garray;  /* nghost sorted global ids (host memory) */
  int owns_garray;  /* 1: mispc_dist_csr_free releases garray */
  mispc_halo *halo; /* built by the constructors; released by mispc_dist_csr_free */
  int64_t *ranges;  /* P + 1 row offsets of all ranks (ranges[p] = rstart of p) */
} mispc_dist_csr;

/* Builds a distributed graph from this rank's rows [rstart, rend) given with
 * global column ids (rowptr: rend - rstart + 1 offsets, gcol: global ids of
 * each row, sorted or not; values may be NULL). Columns are split into the
 * two blocks, garray is built sorted, and the halo plan is made. Host memory.
 * Checks, collectively: the same nglobal on every rank, ranges that tile
 * [0, nglobal) in rank order, column ids in [0, nglobal). */
MISPC_API mispc_status mispc_dist_csr_from_global(mispc_context *ctx, MPI_Comm comm,
                                                  int64_t nglobal, int64_t rstart, int64_t rend,
                                                  const int64_t *rowptr, const int64_t *gcol,
                                                  const double *values, mispc_dist_csr *out);

/* Wraps the two blocks as PETSc holds them (MatMPIAIJGetSeqAIJ: A, B and
 * garray), without copying them; only the halo plan is built. diag and offd
 * are borrowed and must outlive *out. */
MISPC_API mispc_status mispc_dist_csr_wrap(mispc_context *ctx, MPI_Comm comm, int64_t nglobal,
                                           int64_t rstart, const mispc_csr *diag,
                                           const mispc_csr *offd, int64_t nghost,
                                           const int64_t *garray, mispc_dist_csr *out);

/* Takes rows [rstart, rend) of a whole graph held on this rank (tests and
 * small inputs; the graph is not distributed by this call). */
MISPC_API mispc_status mispc_dist_csr_from_rows(mispc_context *ctx, MPI_Comm comm,
                                                const mispc_csr *whole, int64_t rstart,
                                                int64_t rend, mispc_dist_csr *out);

/* Deep copy whose blocks live in memory space mem (garray and the plan stay
 * on the host): a device graph runs the GPU backends, one GPU a rank or
 * several ranks on one GPU (host-staged MPI transport). */
MISPC_API mispc_status mispc_dist_csr_copy(mispc_context *ctx, const mispc_dist_csr *src,
                                           mispc_memspace mem, mispc_dist_csr *dst);

/* Loads a graph spec (file or gen:..., as mispc_load) split into even row
 * ranges (rank p owns rows [n p / P, n (p + 1) / P)). Stencil generators
 * (gen:laplace2d, laplace3d, grid2d, grid3d27, path) make each rank's own
 * rows, PETSc binary matrices (.petsc) are read by row ranges (three seeks a
 * rank) and MatrixMarket files (.mtx, .mtx.gz) are parsed by every rank,
 * which keeps only its rows: no rank holds the whole graph. Other specs
 * (METIS files, other generators) are read whole on every rank and cut. symmetrize: use the pattern
 * of A + A^T (stencils are symmetric already; a .petsc file is then read whole). */
MISPC_API mispc_status mispc_dist_load(mispc_context *ctx, MPI_Comm comm, const char *spec,
                                       int symmetrize, mispc_dist_csr *out);

/* What the graph algorithms need of a distributed graph, checked without
 * gathering it: column ids in range, and a symmetric pattern across ranks
 * (every entry (i, j), i != j, has its (j, i), found by routing the
 * off-rank ones to the rank of j). MISPC_ERR_UNSYMMETRIC / _INDEX_RANGE on
 * every rank naming the entry. The distributed calls do not run it
 * themselves (the caller vouches, as with skip_validation); the CLI does. */
MISPC_API mispc_status mispc_dist_csr_check(mispc_context *ctx, const mispc_dist_csr *g);

MISPC_API void mispc_dist_csr_free(mispc_context *ctx, mispc_dist_csr *g);

/* How device halos travel. Host graphs always use MPI on host buffers. */
typedef enum mispc_dist_transport {
  MISPC_TRANSPORT_AUTO = 0, /* NCCL when built with it and no two ranks share a GPU, else MPI */
  MISPC_TRANSPORT_MPI,      /* MPI, device data staged through pinned host memory (any MPI,
                               several ranks on one GPU) */
  MISPC_TRANSPORT_NCCL      /* NCCL grouped send/recv on device buffers (one GPU a rank) */
} mispc_dist_transport;
/* Chooses the transport of a device graph's halo exchanges (collective;
 * a device graph from mispc_dist_csr_copy or mispc_dist_csr_wrap starts on
 * AUTO). NCCL where ranks share a
 * GPU, or in a build without NCCL, fails on every rank. */
MISPC_API mispc_status mispc_dist_set_transport(mispc_context *ctx, mispc_dist_csr *g,
                                                mispc_dist_transport t);
/* "mpi" or "nccl": the transport device exchanges use. */
MISPC_API const char *mispc_dist_transport_name(const mispc_dist_csr *g);

/* Traffic of the halo exchanges since the graph was built (this rank). */
typedef struct mispc_dist_stats {
  int neighbours;      /* ranks this rank exchanges with */
  int64_t boundary;    /* owned vertices some other rank needs */
  int64_t exchanges;   /* halo exchanges run */
  int64_t bytes_sent;  /* payload bytes sent */
  double comm_seconds; /* wall time inside exchanges and reductions */
} mispc_dist_stats;
MISPC_API mispc_status mispc_dist_get_stats(const mispc_dist_csr *g, mispc_dist_stats *st);

/* MIS-1 / MIS-2 of the distributed graph (options as mispc_mis1 /
 * mispc_mis2). in_set holds rend - rstart bytes (this rank's vertices);
 * subset (NULL or rend - rstart bytes) restricts to an induced subgraph as
 * in mispc_mis1_subset / mispc_mis2_subset. res gets the global set size
 * and the round count on every rank. in_set and subset live in the graph's
 * memory space (device memory for a device graph, mispc_dist_csr_copy). */
MISPC_API mispc_status mispc_dist_mis1(mispc_context *ctx, const mispc_dist_csr *g,
                                       const mispc_mis_options *opt, const uint8_t *subset,
                                       uint8_t *in_set, mispc_mis_result *res);
MISPC_API mispc_status mispc_dist_mis2(mispc_context *ctx, const mispc_dist_csr *g,
                                       const mispc_mis_options *opt, const uint8_t *subset,
                                       uint8_t *in_set, mispc_mis_result *res);

/* Independence at distance k and maximality (k = 1, 2), checked with two
 * halo exchanges and no gather; MISPC_ERR_VERIFY on every rank, naming the
 * global ids, when wrong. */
MISPC_API mispc_status mispc_dist_verify_mis(mispc_context *ctx, const mispc_dist_csr *g, int k,
                                             const uint8_t *in_set);

/* Distance-1 coloring of the distributed graph, the same colors as
 * mispc_color on the whole graph for any partition: MISPC_COLORING_MIS is
 * greedy in (key, global id) order and MISPC_COLORING_GREEDY greedy in global
 * id order, both computed by Jones-Plassmann rounds (a vertex is colored once
 * its earlier neighbours are; one exchange of ghost colors a round), and
 * opt->recolor passes of iterated greedy recoloring (one exchange per color
 * class). color: rend - rstart entries in the graph's memory space (device
 * memory for a device graph: the GPU runs the same rounds, any number of
 * ranks); ncolors: global count (host). */
MISPC_API mispc_status mispc_dist_color(mispc_context *ctx, const mispc_dist_csr *g,
                                        const mispc_coloring_options *opt, int32_t *color,
                                        int32_t *ncolors);
/* Colors in [0, ncolors), adjacent vertices (ghosts included) differ, no
 * class empty; MISPC_ERR_VERIFY on every rank otherwise. Host graph and
 * host colors (copy a device result to the host and verify on the host
 * graph it was copied from). */
MISPC_API mispc_status mispc_dist_verify_coloring(mispc_context *ctx, const mispc_dist_csr *g,
                                                  const int32_t *color, int32_t ncolors);

/* MIS-2 aggregation of the distributed graph (mis2agg or mis2basic, as
 * mispc_aggregate): agg (rend - rstart entries, in the graph's memory space:
 * device memory for a device graph, computed on the GPU) gets the same global
 * aggregate ids as mispc_aggregate on the whole graph, for any partition.
 * Aggregates may span ranks; ids are numbered by root global id within each
 * phase (an exclusive scan of per-rank root counts). info (may be NULL)
 * gets the global counts, the same on every rank. */
typedef struct mispc_dist_agg_info {
  int64_t naggs;         /* aggregates */
  int64_t phase_aggs[3]; /* after phase 1, 2, 3 */
  int64_t phase_done[3]; /* vertices aggregated after phase 1, 2, 3 */
  int mis_rounds[2];     /* rounds of the phase-1 and phase-2 MIS-2 */
} mispc_dist_agg_info;
MISPC_API mispc_status mispc_dist_aggregate(mispc_context *ctx, const mispc_dist_csr *g,
                                            const mispc_agg_options *opt, int32_t *agg,
                                            mispc_dist_agg_info *info);

/* Strength graph of a distributed matrix (values, or a pattern = theta 0)
 * on nodes of block_size rows, as mispc_strength_graph: this rank gets node
 * rows [rstart / bs, rend / bs); every rank's range must hold whole nodes.
 * Diagonal values of ghosts come by the halo; the transposed half of the
 * symmetrization goes to the owners of the other nodes. */
MISPC_API mispc_status mispc_dist_strength_graph(mispc_context *ctx, const mispc_dist_csr *A,
                                                 double theta, int block_size, mispc_dist_csr *S);
/* mispc_strength_auto of a distributed matrix (host): the ghosts' diagonal
 * by the halo, a minimum and a maximum over the ranks; the one-process bits
 * for any rank count. */
MISPC_API mispc_status mispc_dist_strength_auto(mispc_context *ctx, const mispc_dist_csr *A,
                                                double *theta, double *weak_max);

/* Coarse levels. Coarse row (aggregate) c lives on rank p for c in
 * [naggs p / P, naggs (p + 1) / P): even ranges of mispc_aggregate's own
 * numbering, so the distributed coarse objects are the one-process ones row
 * for row. agg: this rank's labels (host), as mispc_dist_aggregate gives. */

/* Aggregate sizes (min, max, mean, singletons, histogram as
 * mispc_aggregates_stats), counted at each aggregate's rank. */
MISPC_API mispc_status mispc_dist_aggregates_stats(mispc_context *ctx, const mispc_dist_csr *g,
                                                   const int32_t *agg, int64_t naggs,
                                                   mispc_agg_stats *st);
/* Every vertex in exactly one aggregate with an id in [0, naggs), no
 * aggregate empty, every aggregate connected in the graph (components by
 * min-id propagation over the halo); MISPC_ERR_VERIFY on every rank naming
 * the aggregate otherwise. Nothing is gathered. */
MISPC_API mispc_status mispc_dist_verify_aggregation(mispc_context *ctx, const mispc_dist_csr *g,
                                                     const int32_t *agg, int64_t naggs);

/* The members of each aggregate, gathered at its head: the aggregate's
 * smallest global vertex id, on the rank that owns it. This rank gets the
 * lists of the aggregates whose head it owns, in increasing head id, each
 * holding the members' global ids in increasing order (the head first), so
 * the lists are the same for any partition (PETSc's GAMG coarsener hands
 * aggregates over this way: PetscCoarsenData, one list per local head).
 * agg: this rank's labels (host), as mispc_dist_aggregate gives. Host
 * graphs; two all-to-all routes of the (label, vertex) pairs. */
typedef struct mispc_dist_agg_lists {
  int64_t nlists;  /* aggregates headed on this rank */
  int64_t *head;   /* nlists head global ids, increasing (each in [rstart, rend)) */
  int64_t *offset; /* nlists + 1: members of list i are member[offset[i] .. offset[i + 1]) */
  int64_t *member; /* global ids, increasing within a list; member[offset[i]] = head[i] */
} mispc_dist_agg_lists;
MISPC_API mispc_status mispc_dist_aggregate_lists(mispc_context *ctx, const mispc_dist_csr *g,
                                                  const int32_t *agg, int64_t naggs,
                                                  mispc_dist_agg_lists *lists);
MISPC_API void mispc_dist_agg_lists_free(mispc_dist_agg_lists *lists);

/* Quotient graph (mispc_coarse_graph's rows, same numbering). */
MISPC_API mispc_status mispc_dist_coarse_graph(mispc_context *ctx, const mispc_dist_csr *g,
                                               const int32_t *agg, int64_t naggs,
                                               mispc_dist_csr *coarse);

/* This rank's rows of mispc_tentative_prolongator's P (the dofs v*bs .. v*bs
 * + bs - 1 of its nodes, columns as global coarse ids c*k + j) and its coarse
 * rows of Bc. B: (rend - rstart) * bs rows, k columns, column-major with
 * leading dimension (rend - rstart) * bs; NULL for the constant (k = 1),
 * and on a rank without rows (any k).
 * Each aggregate's block is factored on the rank of its coarse row, members
 * in increasing node id, by the one-process code: bit-identical values. */
typedef struct mispc_dist_prolongator {
  int64_t nrows;   /* this rank's fine dofs */
  int64_t ncols;   /* global coarse columns, naggs * k */
  int64_t *rowptr; /* nrows + 1 */
  int64_t *gcol;   /* global column ids */
  double *values;
  int64_t cstart, cend; /* this rank's aggregates */
  double *Bc;           /* (cend - cstart) * k rows, k columns, column-major */
} mispc_dist_prolongator;
MISPC_API mispc_status mispc_dist_tentative_prolongator(mispc_context *ctx, const mispc_dist_csr *g,
                                                        const int32_t *agg, int64_t naggs,
                                                        int block_size, int k, const double *B,
                                                        mispc_dist_prolongator *P);
MISPC_API void mispc_dist_prolongator_free(mispc_dist_prolongator *P);

/* Smoothed prolongator P = P0 - omega D^-1 A P0 of a distributed matrix
 * (host): this rank's rows, equal bit for bit to the rows of the
 * one-process mispc_smooth_prolongator of the whole A and P0 for any number
 * of ranks (A P0 summed as in mispc_dist_galerkin_product; then each row as
 * the one-process one). P keeps P0's ncols, cstart and cend; its Bc is NULL
 * (the coarse near-null space is P0's). The same conditions on A and P0 as
 * mispc_dist_galerkin_product's, and A's diagonal present, nonzero and
 * finite; device matrices are refused (MISPC_ERR_UNSUPPORTED) on every
 * rank. */
MISPC_API mispc_status mispc_dist_smooth_prolongator(mispc_context *ctx, const mispc_dist_csr *A,
                                                     const mispc_dist_prolongator *P0, double omega,
                                                     mispc_dist_prolongator *P);

/* Galerkin coarse operator Ac = P^T (A P) of a distributed matrix (host):
 * rank p gets the coarse rows [cstart * k, cend * k) of its prolongator
 * rows (k = ncols / aggregates, the numbering of
 * mispc_dist_tentative_prolongator; any P with such ranges that tile the
 * coarse columns in rank order will do), and Ac gathered is
 * mispc_galerkin_product of the whole A and P bit for bit, pattern and
 * values, for any number of ranks. Each entry of A P is summed over A's row
 * in global column order (the two blocks merged: they must hold sorted
 * rows) with the P rows of ghost columns routed from their owners; each
 * entry of Ac over the fine rows in increasing id, every product travelling
 * to the rank of its coarse row. P: A's local rows, columns in [0, ncols),
 * none repeated next to itself. Device matrices are refused
 * (MISPC_ERR_UNSUPPORTED) on every rank. */
MISPC_API mispc_status mispc_dist_galerkin_product(mispc_context *ctx, const mispc_dist_csr *A,
                                                   const mispc_dist_prolongator *P,
                                                   mispc_dist_csr *Ac);

/* Point and cluster multicolor Gauss-Seidel / SOR / SGS on a distributed
 * matrix (host): x = the one-process mispc_gs_apply result on the whole
 * matrix, bit for bit, for any partition. The colors (point: of the matrix
 * graph; cluster: of the cluster graph) and the clusters are the
 * one-process ones (mispc_dist_color, mispc_dist_aggregate); after each
 * color only that color's boundary values travel; every row sums its
 * entries in global column order (the diagonal and off-diagonal blocks
 * merged), the one-process storage order (point GS: its lower part first,
 * as mispc_gs_apply). Cluster GS: each cluster is
 * swept whole by the rank of its smallest row; rows of other ranks move
 * there (pattern at the symbolic setup, values at the numeric one, b and x
 * at each apply); with
 * block_size > 1 every rank's range must hold whole nodes. The matrix's
 * blocks must have sorted rows and a stored diagonal. b and x: rend -
 * rstart entries. */
typedef struct mispc_dist_gs mispc_dist_gs;
MISPC_API mispc_status mispc_dist_gs_create(mispc_context *ctx, const mispc_gs_options *opt,
                                            mispc_dist_gs **gs);
MISPC_API void mispc_dist_gs_destroy(mispc_context *ctx, mispc_dist_gs *gs);
MISPC_API mispc_status mispc_dist_gs_symbolic(mispc_context *ctx, mispc_dist_gs *gs,
                                              const mispc_dist_csr *A);
MISPC_API mispc_status mispc_dist_gs_numeric(mispc_context *ctx, mispc_dist_gs *gs,
                                             const mispc_dist_csr *A);
MISPC_API mispc_status mispc_dist_gs_apply(mispc_context *ctx, mispc_dist_gs *gs,
                                           const mispc_dist_csr *A, const double *b, double *x,
                                           int zero_guess);
/* Colors and clusters (global counts), and the bytes this rank sent in the
 * last apply (halo values, and for cluster GS the moved rows' b and x). */
MISPC_API mispc_status mispc_dist_gs_get_info(const mispc_dist_gs *gs, mispc_gs_info *info,
                                              int64_t *apply_bytes);

#ifdef __cplusplus
}
#endif
#endif
