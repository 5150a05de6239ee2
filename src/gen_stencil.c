/* Constant-coefficient stencils on structured grids with Dirichlet boundaries:
 * Laplacians, anisotropic diffusion and grid-graph patterns. The CSR is built
 * directly (count per row, prefix sum, fill) in parallel; no COO or sorting. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "csr_build.h"
#include "stencil.h"

typedef mispc_stencil_pt stencil_pt;

/* Checks n >= 1 and n^dim rows fitting 32-bit column indices. */
static mispc_status grid_size(mispc_context *ctx, const char *what, int64_t n, int dim,
                              int64_t rows_per_node, int64_t *rows) {
  MISPC_TRY(mispc_gen_check_n(ctx, what, n));
  int64_t r = rows_per_node;
  for (int d = 0; d < dim; ++d) {
    if (n > INT32_MAX / r)
      return mispc_seterr(ctx, MISPC_ERR_OVERFLOW,
                          "%s: N = %lld gives more than %d rows (32-bit column indices)", what,
                          (long long)n, INT32_MAX);
    r *= n;
  }
  *rows = r;
  return MISPC_SUCCESS;
}

/* Columns (and values) of row r, in increasing order; returns their count.
 * cols and vals may be NULL (count only). */
static int64_t stencil_row(int64_t nx, int64_t ny, int64_t nz, const stencil_pt *pts, int npts,
                           int64_t r, int64_t *cols, double *vals) {
  const int64_t i = r % nx, j = (r / nx) % ny, k = r / (nx * ny);
  int64_t c = 0;
  for (int s = 0; s < npts; ++s) {
    const int64_t a = i + pts[s].dx, b = j + pts[s].dy, e = k + pts[s].dz;
    if (a < 0 || a >= nx || b < 0 || b >= ny || e < 0 || e >= nz) continue;
    if (cols) cols[c] = a + nx * (b + ny * e);
    if (vals) vals[c] = pts[s].v;
    ++c;
  }
  return c;
}

/* Builds the nx*ny*nz-row matrix (or pattern when values is 0) of a stencil
 * whose points are sorted by (dz, dy, dx): the neighbour of vertex
 * i + nx*(j + ny*k) at offset (dx, dy, dz) then has a larger index than at
 * every earlier offset, so rows come out sorted. Out-of-grid neighbours are
 * dropped (Dirichlet). */
static mispc_status build_stencil(mispc_context *ctx, int64_t nx, int64_t ny, int64_t nz,
                                  const stencil_pt *pts, int npts, int values, mispc_csr *out) {
  int64_t n = nx * ny * nz;
  int nt = mispc_host_threads(ctx);
  /* Entries exactly (a point with offset d has n - |d| partners per axis), so
   * a request beyond the machine's memory fails here, before any allocation. */
  double entries = 0;
  for (int s = 0; s < npts; ++s) {
    int64_t ex = nx - llabs(pts[s].dx), ey = ny - llabs(pts[s].dy), ez = nz - llabs(pts[s].dz);
    if (ex > 0 && ey > 0 && ez > 0) entries += (double)ex * (double)ey * (double)ez;
  }
  MISPC_TRY(mispc_check_host_memory(ctx, "generator",
                                    16.0 * (double)n + entries * (values ? 12.0 : 4.0)));
  int64_t *len = (int64_t *)mispc_host_alloc_n(ctx, n, sizeof(int64_t), "row lengths");
  if (!len) return MISPC_ERR_ALLOC;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t r = 0; r < n; ++r) len[r] = stencil_row(nx, ny, nz, pts, npts, r, NULL, NULL);
  int64_t nnz = 0;
  for (int64_t r = 0; r < n; ++r) nnz += len[r];
  mispc_csr A;
  mispc_status st = mispc_csr_alloc(ctx, MISPC_MEM_HOST, n, n, nnz, values, &A);
  if (st) {
    free(len);
    return st;
  }
  A.rowptr[0] = 0;
  for (int64_t r = 0; r < n; ++r) A.rowptr[r + 1] = A.rowptr[r] + len[r];
  free(len);
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t r = 0; r < n; ++r) {
    int64_t cols[26];
    double vals[26];
    const int64_t p = A.rowptr[r], c = stencil_row(nx, ny, nz, pts, npts, r, cols, vals);
    for (int64_t q = 0; q < c; ++q) {
      A.colidx[p + q] = (int32_t)cols[q];
      if (values) A.values[p + q] = vals[q];
    }
  }
  *out = A;
  return MISPC_SUCCESS;
}

mispc_status mispc_stencil_named(mispc_context *ctx, const char *name, int64_t n, mispc_stencil *st,
                                 int *found) {
  static const stencil_pt lap2[] = {
      {0, -1, 0, -1.0}, {-1, 0, 0, -1.0}, {0, 0, 0, 4.0}, {1, 0, 0, -1.0}, {0, 1, 0, -1.0}};
  static const stencil_pt lap3[] = {{0, 0, -1, -1.0}, {0, -1, 0, -1.0}, {-1, 0, 0, -1.0},
                                    {0, 0, 0, 6.0},   {1, 0, 0, -1.0},  {0, 1, 0, -1.0},
                                    {0, 0, 1, -1.0}};
  static const stencil_pt grid2[] = {{0, -1, 0, 0}, {-1, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}};
  memset(st, 0, sizeof *st);
  *found = 1;
  int dim = 3;
  if (!strcmp(name, "laplace2d"))
    dim = 2, st->npts = 5, st->values = 1, memcpy(st->pts, lap2, sizeof lap2);
  else if (!strcmp(name, "laplace3d"))
    st->npts = 7, st->values = 1, memcpy(st->pts, lap3, sizeof lap3);
  else if (!strcmp(name, "grid2d"))
    dim = 2, st->npts = 4, memcpy(st->pts, grid2, sizeof grid2);
  else if (!strcmp(name, "path")) /* mispc_gen_path's graph as a 1-D stencil */
    dim = 1, st->npts = 2, st->pts[0] = (stencil_pt){-1, 0, 0, 0.0},
    st->pts[1] = (stencil_pt){1, 0, 0, 0.0};
  else if (!strcmp(name, "grid3d27")) {
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if (dx || dy || dz) st->pts[st->npts++] = (stencil_pt){dx, dy, dz, 0.0};
  } else {
    *found = 0;
    return MISPC_SUCCESS;
  }
  int64_t rows;
  MISPC_TRY(grid_size(ctx, name, n, dim, 1, &rows));
  st->nx = n;
  st->ny = dim >= 2 ? n : 1;
  st->nz = dim == 3 ? n : 1;
  return MISPC_SUCCESS;
}

/* The entry of a named stencil generator (laplace2d, ...). */
static mispc_status build_named(mispc_context *ctx, const char *name, int64_t n, mispc_csr *out) {
  MISPC_TRY(mispc_gen_begin(ctx, name, out));
  mispc_stencil st;
  int found = 0;
  MISPC_TRY(mispc_stencil_named(ctx, name, n, &st, &found));
  return build_stencil(ctx, st.nx, st.ny, st.nz, st.pts, st.npts, st.values, out);
}

/* stencil_row as a mispc_row_fn of the stencil gen */
static int64_t stencil_row_of(const void *gen, int64_t row, int64_t *cols, double *vals) {
  const mispc_stencil *st = (const mispc_stencil *)gen;
  return stencil_row(st->nx, st->ny, st->nz, st->pts, st->npts, row, cols, vals);
}

mispc_status mispc_stencil_rows(mispc_context *ctx, const mispc_stencil *st, int64_t r0, int64_t r1,
                                int64_t **rowptr, int64_t **gcol, double **val) {
  return mispc_rows_by_row(ctx, r0, r1, stencil_row_of, st, st->values, rowptr, gcol, val);
}

mispc_status mispc_gen_laplace2d(mispc_context *ctx, int64_t n, mispc_csr *out) {
  return build_named(ctx, "laplace2d", n, out);
}

mispc_status mispc_gen_laplace3d(mispc_context *ctx, int64_t n, mispc_csr *out) {
  return build_named(ctx, "laplace3d", n, out);
}

/* -div(K grad u) with K = R(theta) diag(1, eps) R(theta)^T (so theta = 0 is
 * u_xx + eps*u_yy), by central finite differences on the unit-spaced grid,
 * the mixed derivative u_xy by the 4-corner central difference:
 *   centre 2*(K11 + K22), x neighbours -K11, y neighbours -K22,
 *   corners (+1,+1), (-1,-1): -K12/2 and (+1,-1), (-1,+1): +K12/2.
 * This 9-point matrix is SPD for every eps > 0 and theta, although it is not
 * an M-matrix: its symbol is 4*(K11*s1^2 + K22*s2^2 + 2*K12*s1*s2*c1*c2) with
 * s = sin(w/2), c = cos(w/2), which is >= 4*(K11*s1^2 + K22*s2^2 -
 * 2*|K12*s1*s2|) > 0 for w != 0 since K11*K22 > K12^2; a Dirichlet matrix is
 * a finite section of that Toeplitz operator, so x^T A x > 0 for x != 0.
 * For theta = 0, K12 = 0 exactly and the corners are dropped (5 points). */
mispc_status mispc_stencil_aniso2d(mispc_context *ctx, int64_t n, double eps, double theta_deg,
                                   mispc_stencil *st) {
  memset(st, 0, sizeof *st);
  if (!(eps > 0) || !isfinite(eps))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "aniso2d: EPS must be > 0 and finite, got %g",
                        eps);
  if (!isfinite(theta_deg))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "aniso2d: angle must be finite");
  int64_t rows;
  MISPC_TRY(grid_size(ctx, "aniso2d", n, 2, 1, &rows));
  double t = theta_deg * (3.14159265358979323846 / 180.0);
  double c = theta_deg == 0 ? 1.0 : cos(t), s = theta_deg == 0 ? 0.0 : sin(t);
  double k11 = c * c + eps * s * s, k22 = s * s + eps * c * c, k12 = c * s * (1.0 - eps);
  double corner = 0.5 * k12; /* the same variable for d and -d keeps values symmetric */
  const stencil_pt pts[9] = {
      {-1, -1, 0, -corner},       {0, -1, 0, -k22}, {1, -1, 0, corner}, {-1, 0, 0, -k11},
      {0, 0, 0, 2 * (k11 + k22)}, {1, 0, 0, -k11},  {-1, 1, 0, corner}, {0, 1, 0, -k22},
      {1, 1, 0, -corner}};
  if (theta_deg == 0) {
    const stencil_pt five[5] = {pts[1], pts[3], pts[4], pts[5], pts[7]};
    memcpy(st->pts, five, sizeof five), st->npts = 5;
  } else {
    memcpy(st->pts, pts, sizeof pts), st->npts = 9;
  }
  st->nx = st->ny = n, st->nz = 1, st->values = 1;
  return MISPC_SUCCESS;
}

mispc_status mispc_gen_aniso2d(mispc_context *ctx, int64_t n, double eps, double theta_deg,
                               mispc_csr *out) {
  MISPC_TRY(mispc_gen_begin(ctx, "aniso2d", out));
  mispc_stencil st;
  MISPC_TRY(mispc_stencil_aniso2d(ctx, n, eps, theta_deg, &st));
  return build_stencil(ctx, st.nx, st.ny, st.nz, st.pts, st.npts, st.values, out);
}

/* 7 points: coupling 1 in x and y, eps in z; diagonal 4 + 2*eps. */
mispc_status mispc_stencil_aniso3d(mispc_context *ctx, int64_t n, double eps, mispc_stencil *st) {
  memset(st, 0, sizeof *st);
  if (!(eps > 0) || !isfinite(eps))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "aniso3d: EPS must be > 0 and finite, got %g",
                        eps);
  int64_t rows;
  MISPC_TRY(grid_size(ctx, "aniso3d", n, 3, 1, &rows));
  const stencil_pt pts[7] = {
      {0, 0, -1, -eps}, {0, -1, 0, -1.0}, {-1, 0, 0, -1.0}, {0, 0, 0, 4.0 + 2.0 * eps},
      {1, 0, 0, -1.0},  {0, 1, 0, -1.0},  {0, 0, 1, -eps}};
  memcpy(st->pts, pts, sizeof pts), st->npts = 7;
  st->nx = st->ny = st->nz = n, st->values = 1;
  return MISPC_SUCCESS;
}

mispc_status mispc_gen_aniso3d(mispc_context *ctx, int64_t n, double eps, mispc_csr *out) {
  MISPC_TRY(mispc_gen_begin(ctx, "aniso3d", out));
  mispc_stencil st;
  MISPC_TRY(mispc_stencil_aniso3d(ctx, n, eps, &st));
  return build_stencil(ctx, st.nx, st.ny, st.nz, st.pts, st.npts, st.values, out);
}

mispc_status mispc_gen_grid2d(mispc_context *ctx, int64_t n, mispc_csr *out) {
  return build_named(ctx, "grid2d", n, out);
}

mispc_status mispc_gen_grid3d27(mispc_context *ctx, int64_t n, mispc_csr *out) {
  return build_named(ctx, "grid3d27", n, out);
}
