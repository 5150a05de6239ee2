/* Internal: per-backend steps of mispc_aggregate and friends (not installed).
 * Host versions in *_host.c, CUDA versions in *_cuda.cu (stand-ins in
 * agg_nocuda.c); arrays are in the memory space of the graph. */
#ifndef MISPC_AGG_BACKEND_H
#define MISPC_AGG_BACKEND_H

#include <math.h>

#include "internal.h"
#include "mispc/aggregation.h"
#include "mispc/hash.h" /* MISPC_HD */

#ifdef __cplusplus
extern "C" {
#endif

/* Phase 1. in_set: MIS-2 membership. Sets agg[v] = -1 for every vertex, then
 * numbers the members in increasing id (root[k] = k-th smallest member),
 * labels each member and its neighbours (self loops ignored) with its number.
 * *naggs receives the number of members. */
mispc_status agg_phase1_host(mispc_context *ctx, const mispc_csr *g, const uint8_t *in_set,
                             int32_t *agg, int32_t *root, int64_t *naggs);

/* mask[v] = (agg[v] < 0); *count = number of such vertices. */
mispc_status agg_unaggregated_host(mispc_context *ctx, int64_t n, const int32_t *agg, uint8_t *mask,
                                   int64_t *count);

/* mispc_agg_options.phase2_min_free as used: at least 2. */
static inline int agg_phase2_min_free(const mispc_agg_options *o) {
  return o->phase2_min_free < 2 ? 2 : o->phase2_min_free;
}

/* Phase 2. in_set: MIS-2 membership of the unaggregated subgraph. Members
 * with >= min_free unaggregated neighbours (labels as on entry) become roots
 * numbered *naggs, *naggs + 1, ... in increasing id; each labels itself and
 * its unaggregated neighbours. root must have room for n entries. */
mispc_status agg_phase2_host(mispc_context *ctx, const mispc_csr *g, const uint8_t *in_set,
                             int min_free, int32_t *agg, int32_t *root, int64_t *naggs);

/* Phase 3 of mis2agg (basic = 0) or the leftover rule of mis2basic (basic =
 * 1), as documented in aggregation.h; labels as on entry are the tentative
 * ones. Every vertex has a label afterwards. */
mispc_status agg_phase3_host(mispc_context *ctx, const mispc_csr *g, int32_t *agg, int64_t naggs,
                             int basic);

/* Phases 1 to 3 of mispc_aggregate on a device graph, both MIS-2 runs
 * included (o checked, o->mis.skip_validation set), with the results of the
 * host's phases above: a->agg, a->root (n + 1 entries each), a->naggs,
 * phase_aggs, phase_done, mis_rounds and phase_seconds; with
 * MISPC_ISOLATED_COLLECT, then agg_collect_isolated_host's step too
 * (*removed as there, phase_aggs as before it). set, mask: n + 1 bytes of
 * device scratch. The counts stay on the device until one read at
 * the end (docs/AGGREGATION.md, "Host round trips"). */
mispc_status agg_phases_cuda(mispc_context *ctx, const mispc_csr *g, const mispc_agg_options *o,
                             mispc_aggregates *a, uint8_t *set, uint8_t *mask, int64_t *removed);

/* 1 when vertex v of a host graph has no neighbour but itself (self loops
 * are ignored everywhere). */
int agg_isolated_vertex(const mispc_csr *g, int32_t v);

/* MISPC_ISOLATED_COLLECT after the phases: the aggregates whose root has no
 * neighbour but itself (isolated vertices, singletons) become one aggregate,
 * id = the number of the others, rooted at the smallest of them; the others
 * keep their order with ids renumbered from 0 (agg and root rewritten; root
 * may be replaced by a new array of the same memory space). *removed: the
 * isolated aggregates there were (0: nothing changes; else naggs drops by
 * *removed - 1). */
mispc_status agg_collect_isolated_host(mispc_context *ctx, const mispc_csr *g, mispc_aggregates *a,
                                       int64_t *removed);

/* max_size after the phases (semantics in aggregation.h): every aggregate
 * of more than B vertices split into pieces, new ids from naggs; a->parent
 * allocated (n + 1 entries, the aggregates' memory space) and filled when
 * something was split, *added = the new pieces (0: nothing changes). The
 * piece of rank r among m members split p ways is floor(((r + 1) p - 1) / m),
 * the first rank of piece j floor(j m / p): both backends use these. */
mispc_status agg_split_host(mispc_context *ctx, mispc_aggregates *a, int64_t B, int64_t *added);
mispc_status agg_split_cuda(mispc_context *ctx, mispc_aggregates *a, int64_t B, int64_t *added);

mispc_status agg_strength_host(mispc_context *ctx, const mispc_csr *A, double theta, int bs,
                               mispc_csr *S);
mispc_status agg_strength_cuda(mispc_context *ctx, const mispc_csr *A, double theta, int bs,
                               mispc_csr *S);
/* mispc_strength_auto on a checked square A with values. */
mispc_status agg_strength_auto_host(mispc_context *ctx, const mispc_csr *A, double *theta,
                                    double *weak_max);
mispc_status agg_strength_auto_cuda(mispc_context *ctx, const mispc_csr *A, double *theta,
                                    double *weak_max);
/* The automatic threshold's arithmetic, shared by the backends and the
 * distributed version (the same bits): r_i, then s_ij = |a_ij| r_j r_i (products only: no
 * contraction can change them), theta from the smallest row maximum. */
MISPC_HD double agg_strength_scale(double a_ii) {
  return 1.0 / sqrt(fabs(a_ii));
}
MISPC_HD double agg_strength_of(double a_ij, double r_j, double r_i) {
  return fabs(a_ij) * r_j * r_i;
}
MISPC_HD double agg_strength_theta(double min_row_max) {
  return min_row_max < INFINITY ? min_row_max * (2.0 / 3.0) : 0.0;
}
/* Entries p = b, b + step, ... < e of row i (columns col[p], their scales
 * r[col[p]], the row's ri; the entry of column self, the row's own, is
 * skipped, -1: none): *m raised to the largest s_ij, *w to the largest
 * s_ij <= th. A zero diagonal makes inf or NaN, which never counts as a
 * positive maximum (callers take m only when finite) nor at or below th. */
MISPC_HD void agg_strength_row(const int32_t *col, const double *val, int64_t b, int64_t e,
                               int step, int64_t self, const double *r, double ri, double th,
                               double *m, double *w) {
  for (int64_t p = b; p < e; p += step) {
    const int32_t j = col[p];
    if (j == self) continue;
    const double t = agg_strength_of(val[p], r[j], ri);
    if (t > *m) *m = t;
    if (t <= th && t > *w) *w = t;
  }
}
/* a_ii of a host CSR: its stored diagonal entries summed (0 when none), as
 * every strength computation takes it. */
static inline double agg_diag_sum(const mispc_csr *A, int64_t i) {
  double d = 0;
  for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
    if (A->colidx[p] == i) d += A->values[p];
  return d;
}
mispc_status agg_coarse_host(mispc_context *ctx, const mispc_csr *g, const int32_t *agg,
                             int64_t naggs, mispc_csr *coarse);
mispc_status agg_coarse_cuda(mispc_context *ctx, const mispc_csr *g, const int32_t *agg,
                             int64_t naggs, mispc_csr *coarse);

/* Q R of one aggregate's block of the near-null space in place: Q is m x k
 * column-major (Q[j * m + r]), R gets k x k column-major (R[j * k + i]);
 * modified Gram-Schmidt twice; a column below 1e-12 of its norm (dependent)
 * gets R_jj = 0 and is replaced by the unit vector that keeps the most norm,
 * orthonormalised (zero only when the block has no room: j >= m).
 * The one and distributed prolongators both call it: same arithmetic. */
void agg_block_qr(double *Q, int64_t m, int k, double *R);

/* mispc_tentative_prolongator on device aggregates (checked by the entry
 * point but for the labels): P (device) and, if not NULL, Bc (device) as the
 * host makes them, from B (device; NULL: the constant, k = 1). *bad = the
 * smallest vertex whose label is outside [0, naggs) (-1: none; then P is not
 * made). */
mispc_status agg_tentative_cuda(mispc_context *ctx, const mispc_aggregates *a, int bs, int k,
                                const double *B, mispc_csr *P, double *Bc, int64_t *bad);

/* mispc_smooth_prolongator's row update on the GPU: W = A P0 (sorted rows)
 * becomes P0 - omega D^-1 W; *bad = the smallest row whose diagonal is
 * missing, zero or not finite (-1: none). */
mispc_status agg_smooth_rows_cuda(mispc_context *ctx, const mispc_csr *A, const mispc_csr *P0,
                                  double omega, mispc_csr *W, int64_t *bad);

#ifdef __cplusplus
}
#endif
#endif
