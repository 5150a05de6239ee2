/* Inputs of the sparse-product tests (test_galerkin.c, gpu_test_galerkin.c):
 * random rectangular matrices (rows optionally unsorted), matrices with long
 * rows (more columns than a GPU warp's shared hash table holds), and the
 * prolongators of smoothed aggregation on generated problems. */
#ifndef MISPC_GALERKIN_INPUTS_H
#define MISPC_GALERKIN_INPUTS_H

#include "test_util.h"

static uint64_t gi_next(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

/* m x n, up to `per_row` distinct columns a row drawn at random (plus column
 * i % n when diag), values in [-1, 1); sorted rows unless `shuffled`. */
static void gi_random(mispc_context *ctx, int64_t m, int64_t n, int per_row, int diag, int shuffled,
                      uint64_t seed, mispc_csr *A) {
  int64_t cap = m * (per_row + 1);
  CHECK_OK(ctx, mispc_csr_alloc(ctx, MISPC_MEM_HOST, m, n, cap, 1, A));
  int64_t nnz = 0;
  for (int64_t i = 0; i < m; ++i) {
    const int64_t b = nnz;
    int want = (int)(gi_next(&seed) % (uint64_t)(per_row + 1));
    if (diag) A->colidx[nnz++] = (int32_t)(i % n);
    for (int t = 0; t < want; ++t) {
      int32_t c = (int32_t)(gi_next(&seed) % (uint64_t)n);
      int seen = 0;
      for (int64_t q = b; q < nnz; ++q) seen |= A->colidx[q] == c;
      if (!seen) A->colidx[nnz++] = c;
    }
    /* sort (insertion), then maybe reverse */
    for (int64_t q = b + 1; q < nnz; ++q)
      for (int64_t r = q; r > b && A->colidx[r - 1] > A->colidx[r]; --r) {
        int32_t t = A->colidx[r];
        A->colidx[r] = A->colidx[r - 1];
        A->colidx[r - 1] = t;
      }
    if (shuffled)
      for (int64_t lo = b, hi = nnz - 1; lo < hi; ++lo, --hi) {
        int32_t t = A->colidx[lo];
        A->colidx[lo] = A->colidx[hi];
        A->colidx[hi] = t;
      }
    for (int64_t q = b; q < nnz; ++q)
      A->values[q] = 2.0 * (double)(gi_next(&seed) & 0xffffff) / 16777216.0 - 1.0 +
                     (diag && A->colidx[q] == i % n ? 4.0 : 0.0);
    A->rowptr[i + 1] = nnz;
  }
  A->nnz = nnz;
}

/* n x n: row 0 and column 0 full, plus the diagonal (an arrow): A A has
 * every row full (rows longer than the GPU's warp tier), and A B has one
 * row of about B's column count (a hub). */
static void gi_arrow(mispc_context *ctx, int64_t n, mispc_csr *A) {
  CHECK_OK(ctx, mispc_csr_alloc(ctx, MISPC_MEM_HOST, n, n, 3 * n, 1, A));
  int64_t nnz = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i == 0) {
      for (int64_t j = 0; j < n; ++j) {
        A->colidx[nnz] = (int32_t)j;
        A->values[nnz++] = j == 0 ? (double)n : -1.0 / (double)(j + 1);
      }
    } else {
      A->colidx[nnz] = 0;
      A->values[nnz++] = -1.0 / (double)(i + 1);
      A->colidx[nnz] = (int32_t)i;
      A->values[nnz++] = 2.0 + 1.0 / (double)(i + 3);
    }
    A->rowptr[i + 1] = nnz;
  }
  A->nnz = nnz;
}

/* Tentative and smoothed prolongators of a generated problem: aggregates of
 * its strength graph, P0 from the near-null space (constants, or the rigid
 * body modes of elasticity3d's nodes), P = P0 - omega D^-1 A P0. */
static void gi_prolongators(mispc_context *ctx, const char *spec, int bs, mispc_csr *A,
                            mispc_csr *P0, mispc_csr *P) {
  CHECK_OK(ctx, mispc_generate(ctx, spec, 3, A));
  mispc_csr S;
  mispc_aggregates ag;
  mispc_agg_options o;
  mispc_agg_options_default(&o);
  CHECK_OK(ctx, mispc_strength_graph(ctx, A, 0.0, bs, &S));
  CHECK_OK(ctx, mispc_aggregate(ctx, &S, &o, &ag));
  const int64_t nodes = A->nrows / bs;
  int k = 1;
  double *B = NULL;
  if (bs == 3) { /* rigid-body modes of the nodes of a cube, as coordinates */
    k = 6;
    int64_t side = 1;
    while (side * side * side < nodes) ++side;
    double *xyz = malloc(sizeof(double) * (size_t)(3 * nodes));
    B = malloc(sizeof(double) * (size_t)(6 * A->nrows));
    for (int64_t v = 0; v < nodes; ++v) {
      xyz[3 * v] = (double)(v % side);
      xyz[3 * v + 1] = (double)((v / side) % side);
      xyz[3 * v + 2] = (double)(v / (side * side));
    }
    CHECK_OK(ctx, mispc_rigid_body_modes(ctx, nodes, xyz, B));
    free(xyz);
  }
  CHECK_OK(ctx, mispc_tentative_prolongator(ctx, &ag, bs, k, B, P0, NULL));
  CHECK_OK(ctx, mispc_smooth_prolongator(ctx, A, P0, 4.0 / 3.0 / 2.5, P));
  free(B);
  mispc_aggregates_free(ctx, &ag);
  mispc_csr_free(ctx, &S);
}

#endif
