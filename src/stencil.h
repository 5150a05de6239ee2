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
/* The stencil of a "gen:" spec of any stencil generator (named above, or
 * aniso2d / aniso3d with their arguments; mispc_generate's parser, so the
 * same defaults and messages); *found = 0 for other generators and
 * non-"gen:" specs, a malformed "gen:" spec its error. */
mispc_status mispc_gen_stencil_spec(mispc_context *ctx, const char *spec, mispc_stencil *st,
                                    int *found);
/* Rows [r0, r1) of the stencil matrix with global column ids (host,
 * malloc'd; *val NULL for a pattern): exactly those rows of the generator's
 * whole matrix. */
mispc_status mispc_stencil_rows(mispc_context *ctx, const mispc_stencil *st, int64_t r0, int64_t r1,
                                int64_t **rowptr, int64_t **gcol, double **val);

#ifdef __cplusplus
}
#endif
#endif
