/* Graph generators (patterns without self loops) and graph Laplacians. Random
 * choices come from mispc_hash3 keyed by the item they decide (edge index,
 * level, ...), so the output depends only on the seed, never on the number of
 * threads or the machine. */
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "csr_build.h"
#include "stencil.h"

/* The top 53 bits of a hash as a double in [0, 1). */
static inline double unit_double(uint64_t h) {
  return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

/* An owned host n x n CSR (with values or a pattern) whose row i has len[i]
 * entries: row offsets set, columns (and values) for the caller to fill.
 * Frees len either way. */
static mispc_status csr_of_lengths(mispc_context *ctx, int64_t n, int64_t *len, int with_values,
                                   mispc_csr *A) {
  int64_t nnz = 0;
  for (int64_t i = 0; i < n; ++i) nnz += len[i];
  mispc_status st = mispc_csr_alloc(ctx, MISPC_MEM_HOST, n, n, nnz, with_values, A);
  if (!st)
    for (int64_t i = 0; i < n; ++i) A->rowptr[i + 1] = A->rowptr[i] + len[i];
  free(len);
  return st;
}

mispc_status mispc_gen_path(mispc_context *ctx, int64_t n, mispc_csr *out) {
  MISPC_TRY(mispc_gen_begin(ctx, "path", out));
  MISPC_TRY(mispc_gen_check_n(ctx, "path", n));
  if (n > INT32_MAX)
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "path: N = %lld exceeds %d vertices", (long long)n,
                        INT32_MAX);
  mispc_csr A;
  MISPC_TRY(mispc_csr_alloc(ctx, MISPC_MEM_HOST, n, n, 2 * (n - 1), 0, &A));
  int nt = mispc_host_threads(ctx);
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    /* row i starts after 1 entry for row 0 and 2 for each of rows 1..i-1 */
    int64_t p = i == 0 ? 0 : 2 * i - 1;
    A.rowptr[i + 1] = i == n - 1 ? 2 * (n - 1) : 2 * i + 1;
    if (i > 0) A.colidx[p++] = (int32_t)(i - 1);
    if (i < n - 1) A.colidx[p] = (int32_t)(i + 1);
  }
  *out = A;
  return MISPC_SUCCESS;
}

/* Grid edge ids: 2*v for (v, v+1) in x, 2*v + 1 for (v, v+n) in y. An edge is
 * kept when the uniform draw of its id is >= p (p = 0 keeps all). */
static inline int road_keep(uint64_t seed, double p, int64_t edge) {
  return p <= 0 || unit_double(mispc_hash3(seed, (uint64_t)edge, 0)) >= p;
}

/* gen:roadgrid's arguments checked. */
static mispc_status roadgrid_check(mispc_context *ctx, int64_t n, double p) {
  MISPC_TRY(mispc_gen_check_n(ctx, "roadgrid", n));
  if (!(p >= 0 && p <= 1))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "roadgrid: deletion probability P must be in [0, 1], got %g", p);
  if (n > INT32_MAX / n)
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "roadgrid: N = %lld gives more than %d vertices",
                        (long long)n, INT32_MAX);
  return MISPC_SUCCESS;
}

/* Row v of the n x n road grid, its kept neighbours in increasing order
 * into cols (NULL: count only); returns their count. */
static int roadgrid_row(uint64_t seed, double p, int64_t n, int64_t v, int64_t *cols) {
  const int64_t i = v % n, j = v / n;
  int c = 0;
  if (j > 0 && road_keep(seed, p, 2 * (v - n) + 1)) {
    if (cols) cols[c] = v - n;
    ++c;
  }
  if (i > 0 && road_keep(seed, p, 2 * (v - 1))) {
    if (cols) cols[c] = v - 1;
    ++c;
  }
  if (i + 1 < n && road_keep(seed, p, 2 * v)) {
    if (cols) cols[c] = v + 1;
    ++c;
  }
  if (j + 1 < n && road_keep(seed, p, 2 * v + 1)) {
    if (cols) cols[c] = v + n;
    ++c;
  }
  return c;
}

mispc_status mispc_gen_roadgrid(mispc_context *ctx, int64_t n, double p, uint64_t seed,
                                mispc_csr *out) {
  MISPC_TRY(mispc_gen_begin(ctx, "roadgrid", out));
  MISPC_TRY(roadgrid_check(ctx, n, p));
  const int64_t nv = n * n;
  int nt = mispc_host_threads(ctx);
  int64_t *len = (int64_t *)mispc_host_alloc_n(ctx, nv, sizeof(int64_t), "row lengths");
  if (!len) return MISPC_ERR_ALLOC;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t v = 0; v < nv; ++v) len[v] = roadgrid_row(seed, p, n, v, NULL);
  mispc_csr A;
  MISPC_TRY(csr_of_lengths(ctx, nv, len, 0, &A));
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t v = 0; v < nv; ++v) {
    int64_t cols[4];
    const int c = roadgrid_row(seed, p, n, v, cols);
    for (int q = 0; q < c; ++q) A.colidx[A.rowptr[v] + q] = (int32_t)cols[q];
  }
  *out = A;
  return MISPC_SUCCESS;
}

/* roadgrid_row as a mispc_row_fn (a pattern) */
typedef struct {
  uint64_t seed;
  double p;
  int64_t n;
} roadgrid_gen;
static int64_t roadgrid_row_of(const void *gen, int64_t row, int64_t *cols, double *vals) {
  (void)vals;
  const roadgrid_gen *g = (const roadgrid_gen *)gen;
  return roadgrid_row(g->seed, g->p, g->n, row, cols);
}

/* Iteration tag of the label permutation's draws (edge indices never reach it). */
#define KRON_PERM_TAG UINT64_MAX

/* gen:kron:SCALE:EF's edges (Graph500 R-MAT parameters, relabelled by a
 * seeded permutation): edge e's ends come from hashes of e alone, so any
 * range of edges can be drawn by itself, on any thread or rank. */
typedef struct {
  int scale;
  uint64_t smix;     /* the seed's term of mispc_hash3 */
  uint64_t flev[31]; /* f(level) of mispc_hash3 */
  uint64_t tA, tAB, tABC;
  int32_t *perm; /* the labels (malloc'd) */
} kron_gen;

/* Checks the arguments, draws the label permutation; *ne the edge count. */
static mispc_status kron_setup(mispc_context *ctx, int scale, int edgefactor, uint64_t seed,
                               kron_gen *g, int64_t *ne) {
  memset(g, 0, sizeof *g);
  *ne = 0;
  if (scale < 1 || edgefactor < 1)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "kron: SCALE and edge factor must be >= 1, got %d and %d", scale,
                        edgefactor);
  if (scale > 30)
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW,
                        "kron: SCALE %d gives more than %d vertices (32-bit indices)", scale,
                        INT32_MAX);
  const int64_t nv = (int64_t)1 << scale;
  g->scale = scale;
  /* Quadrant thresholds on the top 53 bits x of a hash: r = x / 2^53 < t
   * exactly when x < ceil(t * 2^53), so integer compares give the same
   * choices as comparing the double r, without branches. */
  g->tA = (uint64_t)ceil(0.57 * 9007199254740992.0);
  g->tAB = (uint64_t)ceil((0.57 + 0.19) * 9007199254740992.0);
  g->tABC = (uint64_t)ceil((0.57 + 0.19 + 0.19) * 9007199254740992.0);
  /* mispc_hash3(seed, e, level) = f(f(e ^ seedmix) ^ f(level)); the f(level)
   * and the per-edge term are hoisted, the values are those of mispc_hash3. */
  for (int l = 0; l < scale; ++l) g->flev[l] = mispc_xorshift64star((uint64_t)l);
  g->smix = seed * 0xD6E8FEB86659FD93ull;
  /* Random relabelling (Fisher-Yates), as the Graph500 reference does, so that
   * vertex ids carry no information about degree. Inherently sequential. */
  g->perm = (int32_t *)mispc_host_alloc_n(ctx, nv, sizeof(int32_t), "kron labels");
  if (!g->perm) return MISPC_ERR_ALLOC;
  int32_t *perm = g->perm;
  for (int64_t v = 0; v < nv; ++v) perm[v] = (int32_t)v;
  for (int64_t v = nv - 1; v > 0; --v) {
    int64_t w = (int64_t)(mispc_hash3(seed, KRON_PERM_TAG, (uint64_t)v) % (uint64_t)(v + 1));
    int32_t t = perm[v];
    perm[v] = perm[w];
    perm[w] = t;
  }
  *ne = (int64_t)edgefactor << scale;
  return MISPC_SUCCESS;
}

/* Edge e's ends before relabelling. */
static inline void kron_draw(const kron_gen *g, int64_t e, int32_t *i, int32_t *j) {
  uint64_t it = mispc_xorshift64star((uint64_t)e ^ g->smix);
  uint64_t u = 0, v = 0;
  for (int l = 0; l < g->scale; ++l) {
    uint64_t x = mispc_xorshift64star(it ^ g->flev[l]) >> 11;
    /* quadrant: A -> (0,0), B -> (0,1), C -> (1,0), D -> (1,1) */
    uint64_t ge_a = x >= g->tA, ge_ab = x >= g->tAB, ge_abc = x >= g->tABC;
    u |= ge_ab << l;
    v |= (ge_a ^ ge_ab ^ ge_abc) << l;
  }
  *i = (int32_t)u, *j = (int32_t)v;
}

/* Edges e0 .. e0 + c - 1 of a generator: their two ends (either may be
 * the other's) into I[0 .. c), J[0 .. c). */
typedef void (*edges_fn)(const void *gen, int64_t e0, int64_t c, int32_t *I, int32_t *J);

/* Edges e0 .. e0 + c - 1 into I, J on the host's threads, in runs of 4,096
 * (edges must be safe to call from several threads). */
static void draw_edges(mispc_context *ctx, edges_fn edges, const void *gen, int64_t e0, int64_t c,
                       int32_t *I, int32_t *J) {
  const int64_t run = 4096, runs = (c + run - 1) / run;
  const int nt = mispc_host_threads(ctx);
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t r = 0; r < runs; ++r)
    edges(gen, e0 + r * run, c - r * run < run ? c - r * run : run, I + r * run, J + r * run);
}

/* Edges e0 .. e0 + c - 1 into I, J (an edges_fn): drawn, then
 * relabelled in a loop of its own, so that the random loads of perm
 * overlap instead of waiting behind each edge's hash chain. */
static void kron_edge_run(const void *gen, int64_t e0, int64_t c, int32_t *I, int32_t *J) {
  const kron_gen *g = (const kron_gen *)gen;
  for (int64_t k = 0; k < c; ++k) kron_draw(g, e0 + k, &I[k], &J[k]);
  for (int64_t k = 0; k < c; ++k) I[k] = g->perm[I[k]], J[k] = g->perm[J[k]];
}

/* The whole edge list: *I, *J of *ne entries, malloc'd. */
static mispc_status kron_edges(mispc_context *ctx, int scale, int edgefactor, uint64_t seed,
                               int32_t **I_out, int32_t **J_out, int64_t *ne_out) {
  *I_out = *J_out = NULL;
  *ne_out = 0;
  kron_gen g;
  int64_t ne = 0;
  MISPC_TRY(kron_setup(ctx, scale, edgefactor, seed, &g, &ne));
  int32_t *I = (int32_t *)mispc_host_alloc_n(ctx, ne, sizeof(int32_t), "kron edges");
  int32_t *J = I ? (int32_t *)mispc_host_alloc_n(ctx, ne, sizeof(int32_t), "kron edges") : NULL;
  if (!J) {
    free(I);
    free(g.perm);
    return MISPC_ERR_ALLOC;
  }
  draw_edges(ctx, kron_edge_run, &g, 0, ne, I, J);
  free(g.perm);
  *I_out = I, *J_out = J, *ne_out = ne;
  return MISPC_SUCCESS;
}

mispc_status mispc_gen_kronecker(mispc_context *ctx, int scale, int edgefactor, uint64_t seed,
                                 mispc_csr *out) {
  MISPC_TRY(mispc_gen_begin(ctx, "kron", out));
  double t0 = mispc_wtime();
  int32_t *I = NULL, *J = NULL;
  int64_t ne = 0;
  MISPC_TRY(kron_edges(ctx, scale, edgefactor, seed, &I, &J, &ne));
  const int64_t nv = (int64_t)1 << scale;
  double t1 = mispc_wtime();
  mispc_status st = mispc_csr_from_coo(ctx, nv, nv, ne, I, J, NULL,
                                       MISPC_COO_SYMMETRIC | MISPC_COO_DROP_DIAG, out);
  mispc_logf(ctx, 2, "kron:%d:%d: %lld edges drawn in %.3f s, CSR built in %.3f s", scale,
             edgefactor, (long long)ne, t1 - t0, mispc_wtime() - t1);
  free(I);
  free(J);
  return st;
}

/* Rows [r0, r1) of the symmetric graph on nv vertices whose edges are
 * edges(gen, 0, ne, ..): (i, j) and its mirror (j, i) where the row falls
 * in the range, self loops dropped, repeats merged, columns sorted: exactly
 * those rows of mispc_csr_from_coo(MISPC_COO_SYMMETRIC | DROP_DIAG) of all
 * the edges. One pass over the edges in chunks, each drawn on the host's
 * threads (draw_edges) and its range entries
 * kept in edge order; only those are held and sorted, never the whole
 * edge list. Global column ids (host, malloc'd). */
static mispc_status rows_of_edges(mispc_context *ctx, int64_t nv, int64_t r0, int64_t r1,
                                  int64_t ne, edges_fn edges, const void *gen, const char *what,
                                  int64_t **rowptr, int64_t **gcol) {
  *rowptr = NULL, *gcol = NULL;
  enum { kChunk = 1 << 18 };
  const int64_t chunk = ne < kChunk ? ne : kChunk;
  int32_t *CI = (int32_t *)mispc_host_alloc_n(ctx, chunk + 1, sizeof(int32_t), what);
  int32_t *CJ = CI ? (int32_t *)mispc_host_alloc_n(ctx, chunk + 1, sizeof(int32_t), what) : NULL;
  /* the range's share of the 2 ne entries, a little over, grown if short */
  int64_t cap =
      (int64_t)(2.0 * (double)ne * (double)(r1 - r0) / (double)(nv > 0 ? nv : 1) * 1.05) + 1024;
  int32_t *LI = CJ ? (int32_t *)mispc_host_alloc_n(ctx, cap, sizeof(int32_t), what) : NULL;
  int32_t *LJ = LI ? (int32_t *)mispc_host_alloc_n(ctx, cap, sizeof(int32_t), what) : NULL;
  mispc_status st = LJ ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
  int64_t m = 0;
  for (int64_t e0 = 0; !st && e0 < ne; e0 += chunk) {
    const int64_t c = ne - e0 < chunk ? ne - e0 : chunk;
    draw_edges(ctx, edges, gen, e0, c, CI, CJ);
    if (mispc_grow_pair((void **)&LI, sizeof *LI, (void **)&LJ, sizeof *LJ, m + 2 * c, &cap)) {
      st = mispc_seterr(ctx, MISPC_ERR_ALLOC, "%s: out of host memory for %lld entries", what,
                        (long long)(m + 2 * c));
      break;
    }
    for (int64_t k = 0; k < c; ++k) {
      const int32_t i = CI[k], j = CJ[k];
      if (i == j) continue;
      if (i >= r0 && i < r1) LI[m] = (int32_t)(i - r0), LJ[m++] = j;
      if (j >= r0 && j < r1) LI[m] = (int32_t)(j - r0), LJ[m++] = i;
    }
  }
  free(CI);
  free(CJ);
  mispc_csr R;
  memset(&R, 0, sizeof R);
  /* sorted rows, repeats merged: the whole generator's rows r0 .. r1 - 1 */
  if (!st) st = mispc_csr_from_coo(ctx, r1 - r0, nv, m, LI, LJ, NULL, 0, &R);
  free(LI);
  free(LJ);
  if (!st) {
    *rowptr = R.rowptr; /* the rows' offsets are 64-bit already */
    R.rowptr = NULL;
    *gcol = (int64_t *)mispc_host_alloc_n(ctx, R.nnz + 1, sizeof(int64_t), what);
    if (!*gcol) st = MISPC_ERR_ALLOC;
    for (int64_t k = 0; !st && k < R.nnz; ++k) (*gcol)[k] = R.colidx[k];
  }
  mispc_csr_free(ctx, &R);
  if (st) {
    free(*rowptr), free(*gcol);
    *rowptr = NULL, *gcol = NULL;
  }
  return st;
}

static mispc_status kron_rows(mispc_context *ctx, int scale, int edgefactor, uint64_t seed,
                              int64_t r0, int64_t r1, int64_t **rowptr, int64_t **gcol) {
  kron_gen g;
  int64_t ne = 0;
  MISPC_TRY(kron_setup(ctx, scale, edgefactor, seed, &g, &ne));
  mispc_status st = rows_of_edges(ctx, (int64_t)1 << scale, r0, r1, ne, kron_edge_run, &g,
                                  "kron rows", rowptr, gcol);
  free(g.perm);
  return st;
}

/* gen:random's edges: edge k joins two vertices drawn by hashes of k. */
typedef struct {
  uint64_t seed, n;
} random_edges;
static void random_edge(const random_edges *r, int64_t k, int32_t *i, int32_t *j) {
  *i = (int32_t)(mispc_hash3(r->seed, (uint64_t)k, 0) % r->n);
  *j = (int32_t)(mispc_hash3(r->seed, (uint64_t)k, 1) % r->n);
}
static void random_edge_run(const void *gen, int64_t e0, int64_t c, int32_t *I, int32_t *J) {
  for (int64_t k = 0; k < c; ++k) random_edge((const random_edges *)gen, e0 + k, &I[k], &J[k]);
}

/* gen:random's arguments checked; *m its number of edges. */
static mispc_status random_edge_count(mispc_context *ctx, int64_t n, double avg_degree,
                                      int64_t *m) {
  MISPC_TRY(mispc_gen_check_n(ctx, "random", n));
  if (!(avg_degree >= 0) || !isfinite(avg_degree))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "random: average degree must be >= 0 and finite, got %g", avg_degree);
  if (n > INT32_MAX)
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "random: N = %lld exceeds %d vertices",
                        (long long)n, INT32_MAX);
  double mreal = (double)n * avg_degree / 2.0;
  if (mreal > 4e18)
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "random: %g edges are too many", mreal);
  *m = llround(mreal);
  return MISPC_SUCCESS;
}

mispc_status mispc_gen_random(mispc_context *ctx, int64_t n, double avg_degree, uint64_t seed,
                              mispc_csr *out) {
  MISPC_TRY(mispc_gen_begin(ctx, "random", out));
  int64_t m = 0;
  MISPC_TRY(random_edge_count(ctx, n, avg_degree, &m));
  int32_t *I = (int32_t *)mispc_host_alloc_n(ctx, m, sizeof(int32_t), "random edges");
  int32_t *J = I ? (int32_t *)mispc_host_alloc_n(ctx, m, sizeof(int32_t), "random edges") : NULL;
  if (!J) {
    free(I);
    return MISPC_ERR_ALLOC;
  }
  const random_edges r = {seed, (uint64_t)n};
  draw_edges(ctx, random_edge_run, &r, 0, m, I, J);
  mispc_status st =
      mispc_csr_from_coo(ctx, n, n, m, I, J, NULL, MISPC_COO_SYMMETRIC | MISPC_COO_DROP_DIAG, out);
  free(I);
  free(J);
  return st;
}

mispc_status mispc_gen_ranged_rows(mispc_context *ctx, const mispc_gen_ranged *g, uint64_t seed,
                                   int64_t r0, int64_t r1, int64_t **rowptr, int64_t **gcol,
                                   double **val) {
  *rowptr = NULL, *gcol = NULL, *val = NULL;
  if (g->kind == MISPC_GEN_RANGED_STENCIL)
    return mispc_stencil_rows(ctx, &g->st, r0, r1, rowptr, gcol, val);
  if (g->kind == MISPC_GEN_RANGED_ELASTICITY)
    return mispc_gen_elasticity3d_rows(ctx, g->a, r0, r1, rowptr, gcol, val);
  if (g->kind == MISPC_GEN_RANGED_KRON) /* out-of-range arguments: kron_edges's message */
    return kron_rows(ctx, g->a >= INT_MIN && g->a <= INT_MAX ? (int)g->a : 0, (int)g->b, seed, r0,
                     r1, rowptr, gcol);
  if (g->kind == MISPC_GEN_RANGED_ROADGRID) {
    MISPC_TRY(roadgrid_check(ctx, g->a, g->b));
    const roadgrid_gen rg = {seed, g->b, g->a};
    return mispc_rows_by_row(ctx, r0, r1, roadgrid_row_of, &rg, 0, rowptr, gcol, val);
  }
  if (g->kind != MISPC_GEN_RANGED_RANDOM)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_gen_ranged_rows: not a row generator");
  int64_t m = 0;
  MISPC_TRY(random_edge_count(ctx, g->a, g->b, &m));
  const random_edges r = {seed, (uint64_t)g->a};
  return rows_of_edges(ctx, g->a, r0, r1, m, random_edge_run, &r, "random rows", rowptr, gcol);
}

/* L = D - A over the off-diagonal pattern of G (self loops and G's values are
 * ignored), plus shift on the diagonal. G must be a symmetric graph with
 * sorted rows; the diagonal is inserted in column order. */
mispc_status mispc_laplacian_from_graph(mispc_context *ctx, const mispc_csr *G, double shift,
                                        mispc_csr *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  MISPC_TRY(mispc_csr_check_desc(ctx, G, "graph"));
  if (!out) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "output CSR is NULL");
  memset(out, 0, sizeof *out);
  if (!(shift >= 0) || !isfinite(shift))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "laplacian shift must be >= 0 and finite, got %g", shift);
  MISPC_TRY(mispc_csr_check(ctx, G, MISPC_CHECK_GRAPH));
  mispc_csr H;
  MISPC_TRY(mispc_csr_host_view(ctx, G, &H));
  int64_t n = H.nrows;
  int nt = mispc_host_threads(ctx);
  int64_t *len = (int64_t *)mispc_host_alloc_n(ctx, n + 1, sizeof(int64_t), "row lengths");
  if (!len) {
    mispc_csr_free(ctx, &H);
    return MISPC_ERR_ALLOC;
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = 0;
    for (int64_t p = H.rowptr[i]; p < H.rowptr[i + 1]; ++p) d += H.colidx[p] != i;
    len[i] = d + 1;
  }
  mispc_csr L;
  mispc_status st = csr_of_lengths(ctx, n, len, 1, &L);
  if (st) {
    mispc_csr_free(ctx, &H);
    return st;
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    int64_t q = L.rowptr[i], qd = -1;
    for (int64_t p = H.rowptr[i]; p < H.rowptr[i + 1]; ++p) {
      int32_t j = H.colidx[p];
      if (j == i) continue;
      if (j > i && qd < 0) qd = q++;
      L.colidx[q] = j;
      L.values[q++] = -1.0;
    }
    if (qd < 0) qd = q;
    L.colidx[qd] = (int32_t)i;
    L.values[qd] = (double)(L.rowptr[i + 1] - L.rowptr[i] - 1) + shift;
  }
  mispc_csr_free(ctx, &H);
  *out = L;
  return MISPC_SUCCESS;
}
