/* Deterministic generators of SPD systems and of graphs (host memory).
 *
 * One spelling of generator specs everywhere: "gen:NAME:ARG[:ARG...]"
 *   gen:laplace2d:N            5-point Laplacian, N*N rows (Dirichlet)
 *   gen:laplace3d:N            7-point Laplacian, N^3 rows (Galeri Laplace3D)
 *   gen:elasticity3d:N         trilinear-hex linear elasticity, 27-point node
 *                              stencil, 3 dof/node, 3*N^3 rows (Elasticity3D)
 *   gen:aniso2d:N[:EPS[:DEG]]  -div(K grad u), K = R diag(1, EPS) R^T rotated by DEG degrees
 *                              (EPS 0.001, DEG 0; 9-point, 5-point when DEG = 0)
 *   gen:aniso3d:N[:EPS]        7-point anisotropic diffusion, z coupling EPS (0.001)
 *   gen:kron:SCALE[:EF]        Graph500 Kronecker graph (edgefactor 16)
 *   gen:random:N[:DEG]         uniform random graph, average degree DEG (8)
 *   gen:path:N                 path of N vertices
 *   gen:roadgrid:N[:P]         N*N grid, each edge deleted with probability P (0.3)
 *   gen:grid2d:N               N*N 4-neighbour grid graph (pattern)
 *   gen:grid3d27:N             N^3 27-point grid graph (pattern)
 * Graph generators return symmetric patterns without self loops or
 * duplicates (values NULL); matrix generators return SPD matrices with values.
 * Every generator takes a seed where it draws random numbers; the same seed
 * gives the same output on every machine. */
#ifndef MISPC_GENERATE_H
#define MISPC_GENERATE_H

#include <stdint.h>
#include "mispc/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x[i] = a deterministic pseudo-random number in [-1, 1) drawn from the
 * global index first + i and the seed (53 bits of mispc_hash3(seed, 0,
 * first + i), exact), i < n; x in mem (host or device), the same bits on
 * both and for any split of the indices across calls or ranks: a start
 * vector for power iterations with no bias towards smooth vectors. */
MISPC_API mispc_status mispc_random_vector(mispc_context *ctx, mispc_memspace mem, int64_t n,
                                           int64_t first, uint64_t seed, double *x);

MISPC_API mispc_status mispc_gen_laplace2d(mispc_context *ctx, int64_t n, mispc_csr *out);
MISPC_API mispc_status mispc_gen_laplace3d(mispc_context *ctx, int64_t n, mispc_csr *out);
/* Young's modulus 1, Poisson ratio 0.3, unit cube, all boundary nodes fixed. */
MISPC_API mispc_status mispc_gen_elasticity3d(mispc_context *ctx, int64_t n, mispc_csr *out);
/* -div(K grad u) with K = R(theta) diag(1, eps) R(theta)^T (theta = 0: u_xx + eps u_yy). */
MISPC_API mispc_status mispc_gen_aniso2d(mispc_context *ctx, int64_t n, double eps,
                                         double theta_deg, mispc_csr *out);
MISPC_API mispc_status mispc_gen_aniso3d(mispc_context *ctx, int64_t n, double eps, mispc_csr *out);

/* Graph500 Kronecker: 2^scale vertices, edgefactor*2^scale generated edges,
 * A,B,C = 0.57,0.19,0.19, labels shuffled, then symmetrized without self
 * loops or duplicates. */
MISPC_API mispc_status mispc_gen_kronecker(mispc_context *ctx, int scale, int edgefactor,
                                           uint64_t seed, mispc_csr *out);
/* n vertices, about n*avg_degree/2 distinct undirected edges drawn uniformly. */
MISPC_API mispc_status mispc_gen_random(mispc_context *ctx, int64_t n, double avg_degree,
                                        uint64_t seed, mispc_csr *out);
MISPC_API mispc_status mispc_gen_path(mispc_context *ctx, int64_t n, mispc_csr *out);
/* n x n grid graph whose edges are each deleted with probability p (road-like). */
MISPC_API mispc_status mispc_gen_roadgrid(mispc_context *ctx, int64_t n, double p, uint64_t seed,
                                          mispc_csr *out);
MISPC_API mispc_status mispc_gen_grid2d(mispc_context *ctx, int64_t n, mispc_csr *out);
MISPC_API mispc_status mispc_gen_grid3d27(mispc_context *ctx, int64_t n, mispc_csr *out);

/* Parses and runs "gen:NAME:ARGS" (seed used by random generators). */
MISPC_API mispc_status mispc_generate(mispc_context *ctx, const char *spec, uint64_t seed,
                                      mispc_csr *out);

/* Turns a pattern into an SPD matrix: graph Laplacian plus shift*I. */
MISPC_API mispc_status mispc_laplacian_from_graph(mispc_context *ctx, const mispc_csr *G,
                                                  double shift, mispc_csr *out);

#ifdef __cplusplus
}
#endif
#endif
