/* Internal: the constant-coefficient stencils of the grid generators
 * (gen_stencil.c), for whole matrices and for row ranges (mispc_dist_load). */
#ifndef MISPC_STENCIL_H
#define MISPC_STENCIL_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mispc_stencil_pt {
  int dx, dy, dz;
  double v;
} mispc_stencil_pt;

/* Points sorted by (dz, dy, dx), so rows come out sorted. */
typedef struct mispc_stencil {
  int64_t nx, ny, nz;
  int npts;
  int values; /* 0: a pattern */
  mispc_stencil_pt pts[26];
} mispc_stencil;

/* The stencil of generator `name` (laplace2d, laplace3d, grid2d, grid3d27,
 * path)
 * at size n; *found = 0 (and success) for any other name. Checks n. */
mispc_status mispc_stencil_named(mispc_context *ctx, const char *name, int64_t n, mispc_stencil *st,
                                 int *found);
/* The stencils of gen:aniso2d:N:EPS:DEG and gen:aniso3d:N:EPS (their
 * arguments checked, with the generators' messages). */
mispc_status mispc_stencil_aniso2d(mispc_context *ctx, int64_t n, double eps, double theta_deg,
                                   mispc_stencil *st);
mispc_status mispc_stencil_aniso3d(mispc_context *ctx, int64_t n, double eps, mispc_stencil *st);
/* Rows [r0, r1) of the stencil matrix with global column ids (host,
 * malloc'd; *val NULL for a pattern): exactly those rows of the generator's
 * whole matrix. */
mispc_status mispc_stencil_rows(mispc_context *ctx, const mispc_stencil *st, int64_t r0, int64_t r1,
                                int64_t **rowptr, int64_t **gcol, double **val);

/* The generators whose row ranges are made alone (mispc_gen_ranged_rows,
 * mispc_dist_load): the stencils (named above, aniso2d and aniso3d with
 * their arguments), gen:kron:SCALE[:EF] and gen:random:N[:DEG] (from their
 * edge lists), gen:roadgrid:N[:P] and gen:elasticity3d:N (row by row). */
typedef enum {
  MISPC_GEN_RANGED_NONE,
  MISPC_GEN_RANGED_STENCIL,
  MISPC_GEN_RANGED_KRON,
  MISPC_GEN_RANGED_RANDOM,
  MISPC_GEN_RANGED_ROADGRID,
  MISPC_GEN_RANGED_ELASTICITY
} mispc_gen_kind;
typedef struct {
  mispc_gen_kind kind;
  int64_t n;        /* rows; 0 where the arguments are out of range (the rows call says why) */
  int64_t a;        /* kron: SCALE; random, roadgrid, elasticity3d: N */
  double b;         /* kron: edge factor; random: average degree; roadgrid: P */
  mispc_stencil st; /* a stencil's */
} mispc_gen_ranged;
/* The generator and arguments when spec is a valid "gen:" spec of such a
 * generator (mispc_generate's parser: the same defaults and messages; a
 * stencil's arguments are checked here, the others' by the rows call); a
 * malformed "gen:" spec is its error; anything else leaves g->kind NONE. */
mispc_status mispc_gen_ranged_spec(mispc_context *ctx, const char *spec, mispc_gen_ranged *g);
/* Rows [r0, r1) of that generator's matrix (seed) with global column ids
 * and values (host, malloc'd; *val NULL for the graphs): exactly those rows
 * of mispc_generate's; kron and random draw all edges (kron holds them for
 * a moment, random hashes them twice), but only the range's entries are
 * kept and sorted; the others make only the range's rows. */
mispc_status mispc_gen_ranged_rows(mispc_context *ctx, const mispc_gen_ranged *g, uint64_t seed,
                                   int64_t r0, int64_t r1, int64_t **rowptr, int64_t **gcol,
                                   double **val);
/* Rows [r0, r1) of gen:elasticity3d:N (gen_elasticity.c), as above. */
mispc_status mispc_gen_elasticity3d_rows(mispc_context *ctx, int64_t n, int64_t r0, int64_t r1,
                                         int64_t **rowptr, int64_t **gcol, double **val);

#ifdef __cplusplus
}
#endif
#endif
