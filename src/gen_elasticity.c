/* 3D linear elasticity (E = 1, nu = 0.3) with trilinear hexahedra (Q1) on
 * the unit cube: (N+1)^3 elements of size h = 1/(N+1), nodes 0..N+1 per
 * direction, all boundary nodes fixed and eliminated. The N^3 interior nodes
 * carry 3 dofs each: row = 3*node + component, node = i + N*(j + N*k).
 *
 * Every interior node is surrounded by its 8 elements, so the assembled
 * coupling between node p and node p + d (d in {-1,0,1}^3) is the same 3x3
 * block for every p: the sum over the elements sharing both nodes of the
 * corresponding element-matrix block. The 27 blocks are computed once and
 * written into each row; Dirichlet elimination only drops columns. Blocks are
 * stored densely (structural zeros included), giving 9*(3N-2)^3 entries. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "csr_build.h"

/* 24x24 element stiffness, dof 3*l + comp for local node l = a + 2*(b + 2*c)
 * at corner (a, b, c) in {0,1}^3; 2x2x2 Gauss quadrature of B^T D B. */
static void element_stiffness(double h, double E, double nu, double Ke[24][24]) {
  double lam = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
  double D[6][6] = {{0}};
  for (int p = 0; p < 3; ++p) {
    for (int q = 0; q < 3; ++q) D[p][q] = lam;
    D[p][p] = lam + 2 * mu;
    D[p + 3][p + 3] = mu;
  }
  memset(Ke, 0, sizeof(double) * 24 * 24);
  double gp = 1.0 / sqrt(3.0), detJ = h * h * h / 8.0; /* Gauss weights are 1 */
  for (int g = 0; g < 8; ++g) {
    double xi[3] = {(g & 1) ? gp : -gp, (g & 2) ? gp : -gp, (g & 4) ? gp : -gp};
    double B[6][24] = {{0}};
    for (int l = 0; l < 8; ++l) {
      double s[3] = {(l & 1) ? 1.0 : -1.0, (l & 2) ? 1.0 : -1.0, (l & 4) ? 1.0 : -1.0};
      double f[3], dN[3];
      for (int t = 0; t < 3; ++t) f[t] = 1 + s[t] * xi[t];
      /* dN/dx = dN/dxi * 2/h */
      dN[0] = 0.125 * s[0] * f[1] * f[2] * 2.0 / h;
      dN[1] = 0.125 * f[0] * s[1] * f[2] * 2.0 / h;
      dN[2] = 0.125 * f[0] * f[1] * s[2] * 2.0 / h;
      /* Voigt order xx, yy, zz, yz, xz, xy (engineering shear strains) */
      B[0][3 * l] = dN[0];
      B[1][3 * l + 1] = dN[1];
      B[2][3 * l + 2] = dN[2];
      B[3][3 * l + 1] = dN[2];
      B[3][3 * l + 2] = dN[1];
      B[4][3 * l] = dN[2];
      B[4][3 * l + 2] = dN[0];
      B[5][3 * l] = dN[1];
      B[5][3 * l + 1] = dN[0];
    }
    double DB[6][24];
    for (int p = 0; p < 6; ++p)
      for (int c = 0; c < 24; ++c) {
        double acc = 0;
        for (int q = 0; q < 6; ++q) acc += D[p][q] * B[q][c];
        DB[p][c] = acc;
      }
    for (int r = 0; r < 24; ++r)
      for (int c = r; c < 24; ++c) {
        double acc = 0;
        for (int p = 0; p < 6; ++p) acc += B[p][r] * DB[p][c];
        Ke[r][c] += acc * detJ;
      }
  }
  /* Mirror the upper triangle so that Ke is exactly symmetric. */
  for (int r = 0; r < 24; ++r)
    for (int c = 0; c < r; ++c) Ke[r][c] = Ke[c][r];
}

/* blk[t] couples node p to node p + d, t = (dx+1) + 3*(dy+1) + 9*(dz+1), so t
 * increases with the neighbour's index. blk[26 - t] = blk[t]^T exactly. */
static void node_blocks(double h, double blk[27][3][3]) {
  double Ke[24][24];
  element_stiffness(h, 1.0, 0.3, Ke);
  double amax = 0;
  for (int r = 0; r < 24; ++r)
    for (int c = 0; c < 24; ++c) amax = fmax(amax, fabs(Ke[r][c]));
  for (int t = 13; t < 27; ++t) {
    int d[3] = {t % 3 - 1, (t / 3) % 3 - 1, t / 9 - 1};
    memset(blk[t], 0, sizeof blk[t]);
    /* element where p sits at local corner s, p + d at corner s + d */
    for (int ls = 0; ls < 8; ++ls) {
      int s[3] = {ls & 1, (ls >> 1) & 1, (ls >> 2) & 1}, ok = 1;
      for (int x = 0; x < 3; ++x) ok &= s[x] + d[x] >= 0 && s[x] + d[x] <= 1;
      if (!ok) continue;
      int lq = (s[0] + d[0]) + 2 * ((s[1] + d[1]) + 2 * (s[2] + d[2]));
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) blk[t][a][b] += Ke[3 * ls + a][3 * lq + b];
    }
    /* Round-off residue where the exact entry is zero becomes an exact 0. */
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        if (fabs(blk[t][a][b]) < 1e-12 * amax) blk[t][a][b] = 0.0;
  }
  for (int t = 0; t < 13; ++t)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) blk[t][a][b] = blk[26 - t][b][a];
}

/* gen:elasticity3d's N checked. */
static mispc_status elasticity_check(mispc_context *ctx, int64_t n) {
  MISPC_TRY(mispc_gen_check_n(ctx, "elasticity3d", n));
  if (n > 1000 || 3 * n * n * n > INT32_MAX)
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW,
                        "elasticity3d: N = %lld gives more than %d rows (32-bit column indices)",
                        (long long)n, INT32_MAX);
  return MISPC_SUCCESS;
}

/* Entries of row 3 v + a: 3 for each grid neighbour of node v (itself
 * included). Neighbours per direction: 1 + (i > 0) + (i < n - 1). */
static int64_t elasticity_row_length(int64_t n, int64_t row) {
  const int64_t v = row / 3, i = v % n, j = (v / n) % n, k = v / (n * n);
  return 3 * (1 + (i > 0) + (i < n - 1)) * (1 + (j > 0) + (j < n - 1)) *
         (1 + (k > 0) + (k < n - 1));
}

/* Row 3 v + a: columns (increasing) and values into cols / vals. */
static void elasticity_row(int64_t n, const double blk[27][3][3], int64_t row, int64_t *cols,
                           double *vals) {
  const int64_t v = row / 3, i = v % n, j = (v / n) % n, k = v / (n * n);
  const int a = (int)(row % 3);
  int64_t p = 0;
  for (int t = 0; t < 27; ++t) {
    int64_t x = i + t % 3 - 1, y = j + (t / 3) % 3 - 1, z = k + t / 9 - 1;
    if (x < 0 || x >= n || y < 0 || y >= n || z < 0 || z >= n) continue;
    const int64_t nb = x + n * (y + n * z);
    for (int b = 0; b < 3; ++b, ++p) {
      cols[p] = 3 * nb + b;
      vals[p] = blk[t][a][b];
    }
  }
}

mispc_status mispc_gen_elasticity3d(mispc_context *ctx, int64_t n, mispc_csr *out) {
  MISPC_TRY(mispc_gen_begin(ctx, "elasticity3d", out));
  MISPC_TRY(elasticity_check(ctx, n));
  double blk[27][3][3];
  node_blocks(1.0 / (double)(n + 1), blk);
  int64_t nrows = 3 * n * n * n;
  int64_t m = 3 * n - 2, nnz = 9 * m * m * m;
  mispc_csr A;
  MISPC_TRY(mispc_csr_alloc(ctx, MISPC_MEM_HOST, nrows, nrows, nnz, 1, &A));
  A.rowptr[0] = 0;
  for (int64_t r = 0; r < nrows; ++r) A.rowptr[r + 1] = A.rowptr[r] + elasticity_row_length(n, r);
  int nt = mispc_host_threads(ctx);
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t r = 0; r < nrows; ++r) {
    int64_t cols[81];
    elasticity_row(n, (const double(*)[3][3])blk, r, cols, A.values + A.rowptr[r]);
    for (int64_t q = 0; q < A.rowptr[r + 1] - A.rowptr[r]; ++q)
      A.colidx[A.rowptr[r] + q] = (int32_t)cols[q];
  }
  *out = A;
  return MISPC_SUCCESS;
}

/* elasticity_row as a mispc_row_fn */
typedef struct {
  int64_t n;
  double blk[27][3][3];
} elasticity_gen;
static int64_t elasticity_row_of(const void *gen, int64_t row, int64_t *cols, double *vals) {
  const elasticity_gen *g = (const elasticity_gen *)gen;
  if (cols) elasticity_row(g->n, (const double(*)[3][3])g->blk, row, cols, vals);
  return elasticity_row_length(g->n, row);
}

mispc_status mispc_gen_elasticity3d_rows(mispc_context *ctx, int64_t n, int64_t r0, int64_t r1,
                                         int64_t **rowptr, int64_t **gcol, double **val) {
  *rowptr = NULL, *gcol = NULL, *val = NULL;
  MISPC_TRY(elasticity_check(ctx, n));
  elasticity_gen g;
  g.n = n;
  node_blocks(1.0 / (double)(n + 1), g.blk);
  return mispc_rows_by_row(ctx, r0, r1, elasticity_row_of, &g, 1, rowptr, gcol, val);
}
