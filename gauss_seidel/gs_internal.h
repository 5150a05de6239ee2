/* Internal: the Gauss-Seidel handle and its per-backend steps (not installed). */
#ifndef MISPC_GS_INTERNAL_H
#define MISPC_GS_INTERNAL_H

#include <math.h>

#include "gs_exact.h"
#include "internal.h"
#include "mispc/gauss_seidel.h"
#include "mispc/hash.h" /* MISPC_HD */

#ifdef __cplusplus
extern "C" {
#endif

/* Host exact solves as row passes over x
 * (gs_exact_rows.c), by sweep position q, a cluster's lists one after
 * another (fcl, ucl: where cluster m's start): flen[q] entries (fcol, fval)
 * for y_q, the outside ones in storage order then L's row; ulen[q] (ucol,
 * uval; usrc: each one's place in ex.lu) U's row, columns decreasing;
 * dinv[q] = 1 / U_qq. NULL (fcl) where a list would exceed 255 entries. */
struct gs_exact_rows {
  int64_t *fcl, *ucl, *usrc;
  uint8_t *flen, *ulen;
  uint8_t *line; /* a cluster's: solved as a line (every row but the first has L entries,
                    short lists; gs_exact_rows.c solve_rows) */
  int32_t *fcol, *ucol;
  double *fval, *uval, *dinv;
};

/* Exact cluster solves (opt.block_solve; gs_exact.h): in the handle's
 * memory space, by sweep position q (the host copy's h.perm / h.cl, the
 * device copy's perm / pcl): each row's entries outside its cluster (optr,
 * ocol, osrc: offset in its row of A, oval), its envelope's first local
 * index and place in lu (first, eptr; 2 (k - first) + 1 values), the
 * factors (lu); host only: iperm, row -> position, and xs. */
struct gs_exact_lu {
  int64_t *optr, *eptr;
  int32_t *ocol, *osrc, *first, *iperm;
  double *oval, *lu;
  double *xs;            /* host: the clusters' values during their solves, in sweep order */
  int64_t nout, nfactor; /* entries of ocol / oval and of lu */
  int64_t stage_bytes;   /* device: shared bytes to stage the largest cluster's chain, 0: not
                          * staged (gs_exact_cuda.cu, exact_chain_warp<true>) */
  int fused;             /* device: a color's sums and chains in one launch (exact_fused) */
  int64_t line_bytes;    /* device: shared bytes to stage the largest cluster in
                          * exact_line_staged (long thread chains), 0: not */
  /* host, the handle's own apply (gs_exact_edges_host): for the cluster at
   * h.cl[m], bit 0 its color is the first, bit 1 the last */
  uint8_t *edge;
  struct gs_exact_rows rows;
};

struct mispc_gs {
  mispc_gs_options opt;   /* in use: asked, automatic ones resolved by the symbolic setup */
  mispc_gs_options asked; /* as given to mispc_gs_create */
  double auto_theta, auto_weak_max; /* mispc_strength_auto's (0, -1: none computed) */
  mispc_memspace mem;
  int64_t n, nnz;
  int64_t
      ncols; /* device copy: columns of its matrix (n, or n + ghosts on the distributed sweep) */
  int have_symbolic, have_numeric;
  int32_t ncolors;
  int64_t *color_ptr;   /* host, ncolors + 1: range of `order` for each color */
  int32_t *order;       /* mem: rows (point) or clusters (cluster) by (color, id) */
  int64_t *cl_ptr;      /* mem, cluster only: nclusters + 1 offsets into cl_rows */
  int32_t *cl_rows;     /* mem, cluster only: rows of each cluster, increasing */
  int32_t *row_cluster; /* mem, cluster only: cluster of each row */
  /* Device only: a copy of the matrix with its rows in sweep order (colors,
   * then clusters, then rows inside a cluster), columns renumbered, and
   * vectors gathered into that order for each apply: a color's rows are
   * contiguous, so its loads coalesce as in an SpMV. Point GS: row q holds
   * the entries of earlier colors (lower, prow[q] .. pout[q]-1), then the
   * others (pout[q] .. prow[q+1]-1), each part in storage order
   * (gs_row_update.h, gs_update_row): a first forward pass from x = 0 reads
   * the lower part and keeps its sums in tp, from which the backward pass
   * after it goes on with the rest. Cluster GS: each row q
   * holds, each part in storage order, the entries of earlier rows of its
   * cluster (lower, prow[q] .. pmid[q]-1), those outside the cluster of
   * earlier colors (pmid[q] .. pout[q]-1), the diagonal and the rest
   * outside (pout[q] .. pup[q]-1), then later rows of its cluster (upper,
   * pup[q] .. prow[q+1]-1): a forward pass reads pmid .. prow[q+1] (a first
   * one from x = 0 pmid .. pout) for the sums that do not change during the
   * cluster's pass (gs_row_update.h, gs_update_cluster_row); a backward pass
   * after a forward one from x = 0 goes on from the forward sums (kept in
   * tp) with pout .. pup, another reads pmid .. pout, prow .. pmid, pout ..
   * pup (a launch of its own first: gs_cuda_sweep.cu, cluster_fixed_sums). The rest of the sum
   * comes from the push chains (right-looking): for each row j the later
   * rows k of its cluster with a_kj (fptr, fcol, fval: forward), the
   * earlier ones (bptr, bcol, bval: backward), in storage order, a
   * cluster's entries contiguous. */
  int32_t *perm;        /* n: sweep position -> row */
  int32_t *iperm;       /* n: row -> sweep position */
  int64_t *prow;        /* n + 1 */
  int64_t *pout, *pup;  /* n each (pup: cluster only) */
  int64_t *pmid;        /* cluster only, n */
  int32_t *pcol;        /* nnz */
  double *pval;         /* nnz (numeric) */
  double *pwdiag;       /* n (numeric): omega / a_ii in sweep order */
  int64_t *fptr, *bptr; /* cluster only, n + 1 each */
  int32_t *fcol, *bcol; /* cluster only: sweep positions j */
  double *fval, *bval;  /* cluster only (numeric): a_qj */
  int32_t *psrc;        /* nnz: offset of each pval in its row of A */
  int32_t *pdiag_at;    /* n: offset of a_ii in row perm[q] of A, -1 if missing */
  int32_t *fsrc, *bsrc; /* cluster only: where each fval / bval lies in A: its
                         * entry (chain_abs), or its offset in the row the
                         * chain entry names (nnz of 2^31 or more) */
  int chain_abs;
  int64_t *pcl; /* cluster only, nclusters + 1: positions of the q-th cluster in sweep order */
  int64_t *dcolor_ptr; /* device, cluster only: a copy of color_ptr for the setup's kernels */
  int64_t *color_rows; /* host, cluster only, ncolors + 1: positions of each color's rows */
  double *bp, *xp;     /* n each: b and x in sweep order during an apply */
  double *tp;          /* n: the sums of a first forward pass from x = 0 (for the backward pass
                        * after it: point, its lower parts'; cluster, each row's last), and
                        * cluster GS's fixed parts of the sums where not staged */
  /* Distributed sweep (the copy of a matrix with ghost columns after the n
   * rows), borrowed: host, ghost_color[g] the color of ghost g (point GS's
   * lower parts); device, ghost_key[g] = the last sweep position of the
   * ghost's color or of an earlier one (color_ptr[color + 1] - 1), so that
   * a ghost is of an earlier color than row q exactly when its key is
   * below q, as an own column's sweep position is. */
  const int32_t *ghost_color, *ghost_key;
  /* Distributed host point sweep, borrowed, n (NULL: none): rows whose
   * value the halo sends (bound to their color's exchange: level_order) */
  const uint8_t *sent_rows;
  int64_t nclusters, singletons, min_cluster, max_cluster;
  /* Device only: lanes per row (point) or per cluster chain (cluster: a
   * warp then takes 32 / lanes clusters of a block at once); cluster only:
   * sum_lanes, lanes per row of the fixed sums; block_clusters, clusters a
   * block of sweep_clusters takes (a power of two); cluster_mode, whether
   * a block stages its rows in shared memory (GS_CHAIN_* in gs_cuda.cuh);
   * smem_block, the shared bytes a staged or streamed block needs;
   * chain_tile, the chain entries a tile of a streamed block holds */
  int lanes, sum_lanes;
  int cluster_mode;
  int block_clusters, smem_block, chain_tile;
  /* Device only: an apply's launches as a CUDA graph (cudaGraphExec_t, its
   * cudaGraph_t and first node; [1]: from x = 0), built at the first apply
   * of each kind. The first launch takes b and x as parameters (updated
   * when they change; graph_bx: the current ones) and stores them in
   * io_slot (2 pointers, device) for the others. no_graph: launch per
   * color (capture failed, or the context's tuning.gs_no_graph at symbolic setup). */
  void *graph[2], *graph_template[2], *graph_root[2];
  const void *graph_bx[2][2];
  int no_graph;
  double **io_slot;
  double t_symbolic, t_numeric;
  /* Host only: the sweep-ordered copy the host sweeps read (gs_host_copy.c
   * builds the pattern at the symbolic setup and gathers the values at the
   * numeric one; gs_host.c sweeps it). Rows in sweep order as the device's
   * perm, each cluster's rows contiguous; values and omega / a_ii contiguous
   * in that order. Unlike the device copy, columns keep A's numbering and b,
   * x stay in row order: no gather and scatter an apply, and a row's x
   * neighbours stay as near in memory as in A. Point GS: each row's entries
   * of earlier colors (its lower part) in copy [2] (row pointer zptr), the
   * others in copy [0], each in storage order; a row's sum takes [2]'s
   * entries, then [0]'s (gs_row_update.h, gs_update_row). Two copies, not
   * one row after another, so that a pass reading one part of each row
   * reads contiguous memory. The first forward pass from x = 0 reads only
   * copy [2], as the GPU's (gs_cuda_sweep.cu): the others' products are +-0
   * (finite a_ij, as the GPU assumes there), which leave a nonzero running
   * sum as it is, and x_i = +0 + s w_i absorbs the sign of a zero one; it
   * reads only x of rows it has written, so x needs no 0 first
   * (gs_host_skips_zero), and it keeps each row's sum in t, from which the
   * backward pass right after it goes on with the others (the lower
   * neighbours' x have not changed in between). Cluster GS: a copy a
   * direction, each row in the order gs_update_cluster_row subtracts its
   * entries, so a row is one loop over contiguous entries with no cluster
   * look-ups: forward [0] outside + diagonal, later rows of its cluster
   * (each in storage order), then earlier rows (increasing); backward [1]
   * outside of earlier colors, earlier rows, the diagonal and outside of
   * later colors (each in storage order), then later rows (decreasing)
   * (gs_row_update.h: a backward pass after a forward one from x = 0 goes
   * on from its sums, kept in t, without the first two parts: with long
   * rows those are copy [3], below); [2] (the handle's own sweep, not the distributed one's),
   * rows by zptr: copy [0]'s rows without the entries whose x are still 0
   * in the first forward pass from x = 0 (the row itself, its cluster's
   * later rows, clusters of later colors: gs_host_copy.c,
   * cluster_zero_reads). */
  struct gs_host_copy {
    int32_t *perm;    /* n: sweep position -> row */
    int64_t *rows;    /* ncolors + 1: positions of each color's rows (not blocked; with nfree:
                       * its bound rows) */
    int64_t *cl;      /* cluster only, nclusters + 1: positions of the clusters of `order` */
    int64_t *ptr;     /* n + 1: row pointer of copies [0] and [1] */
    int64_t *zptr;    /* n + 1: row pointer of copy [2] (cluster: NULL where not built) */
    int32_t *col[4];  /* columns of A ([1], [3]: cluster only) */
    int32_t *src[4];  /* offset of each entry in its row of A */
    int32_t *diag_at; /* n: offset of a_ii in its row of A, -1 if missing */
    double *val[4];   /* (numeric) */
    double *wdiag;    /* n (numeric): omega / a_ii in sweep order */
    double *t;        /* n: the first forward pass's sums (point: its lower parts) */
    /* Cluster GS with rows of GS_RESUME_MIN_ROW entries or more (split):
     * copy [1]'s rows in two, their entries before the diagonal's part
     * (outside of earlier colors, earlier rows) in copy [3] (row pointer
     * pptr, blocked lengths prlen), the others in copy [1] (sptr, srlen),
     * so that a backward pass after a forward one from x = 0 reads only
     * copy [1] (it goes on from t: gs_host.c, resume rows) */
    int64_t *pptr, *sptr;
    uint8_t *prlen, *srlen;
    int blocked;           /* set up for one thread: rows (point) or clusters by level, not
                            * color (gs_host_copy.c, block_order, cluster_block_order);
                            * sweeps run on one thread */
    uint8_t *rlen, *zrlen; /* blocked: row lengths of copies [0] and [2] (point: at most 32,
                            * cluster: 255; a cluster's [1] rows are as long as its [0]),
                            * which its sweeps read instead of ptr, zptr */
    int64_t nfree;         /* the distributed sweep on one thread: its first nfree rows are
                            * swept by level before a forward pass's exchanges and after a
                            * backward pass's (gs_host_copy.c, level_order and
                            * cluster_block_order), the others color by color (point: rows;
                            * cluster: bound_cl); 0: every row by color. Lengths as blocked */
    int64_t *bound_cl;     /* cluster, the distributed sweep by level_order's rule, ncolors + 1:
                            * the bound clusters of each color (indices of cl), else NULL */
    int prefetch;          /* cluster: passes prefetch rows ahead (gs_host.c): a pass's data
                            * exceed GS_PREFETCH_MIN_BYTES (blocked: and no row is longer than 32) */
  } h;
  struct gs_exact_lu ex; /* exact cluster solves (opt.block_solve) */
};

/* The numeric setup's verdict on a diagonal entry a (found: stored in its
 * row), the same on the host and the GPU: 0 usable, 1 missing, 2 zero, 3
 * not finite, 4 negative with require_positive, 5 so small that omega / a
 * overflows (a subnormal a); *w = omega / a where usable, else 0. */
MISPC_HD int gs_diag_kind(int found, double a, int require_positive, double omega, double *w) {
  const double q = found && a != 0 ? omega / a : 0.0;
  const int kind = !found                      ? 1
                   : a == 0                    ? 2
                   : !isfinite(a)              ? 3
                   : require_positive && a < 0 ? 4
                   : !isfinite(q)              ? 5
                                               : 0;
  *w = kind ? 0.0 : q;
  return kind;
}

/* Host: wdiag[i] = omega / a_ii (gs_diag_kind); *bad_row = the first row
 * whose diagonal is not usable, *bad_kind its kind; -1 if none. (The
 * handle's setups check it on the way: gs_host_values,
 * gs_permute_values_cuda.) */
mispc_status gs_diag_host(mispc_context *ctx, const mispc_csr *A, int require_positive,
                          double omega, double *wdiag, int64_t *bad_row, int *bad_kind);

/* dof_agg[i] = node_agg[i / bs] for i < n (clusters of whole nodes). */
mispc_status gs_expand_host(mispc_context *ctx, int64_t n, int bs, const int32_t *node_agg,
                            int32_t *dof_agg);
mispc_status gs_expand_cuda(mispc_context *ctx, int64_t n, int bs, const int32_t *node_agg,
                            int32_t *dof_agg);

/* Smallest and largest cluster and the number of one-row clusters, from the
 * nc + 1 cluster offsets cl_ptr (mem). */
mispc_status gs_cluster_sizes_host(mispc_context *ctx, int64_t nc, const int64_t *cl_ptr,
                                   int64_t *min_size, int64_t *max_size, int64_t *singletons);
mispc_status gs_cluster_sizes_cuda(mispc_context *ctx, int64_t nc, const int64_t *cl_ptr,
                                   int64_t *min_size, int64_t *max_size, int64_t *singletons);

/* x[0..n) = 0 */
mispc_status gs_zero_host(mispc_context *ctx, int64_t n, double *x);
/* Whether the host apply from x = 0 can leave x as it is: its first pass is
 * forward and reads only x it has written (point GS's lower parts, cluster
 * GS's copy [2]). */
int gs_host_skips_zero(const mispc_gs *gs);

/* Device: builds the sweep-ordered pattern (perm .. pcl, the chains, bp, xp,
 * lanes, cluster_mode, block_clusters, smem_block) after
 * order / color_ptr / cl_ptr / cl_rows are set; gs_permute_values_cuda fills
 * pval, pwdiag and the chains' values from A, checking the diagonal on the
 * way (*bad_row, *bad_kind as gs_diag_host); gs_apply_cuda does a whole
 * apply. */
mispc_status gs_permute_pattern_cuda(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A);
mispc_status gs_permute_values_cuda(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A,
                                    int64_t *bad_row, int *bad_kind);
mispc_status gs_apply_cuda(mispc_context *ctx, mispc_gs *gs, const double *b, double *x,
                           int zero_guess);
/* Device: destroys the apply graphs (before the arrays they use go). */
void gs_release_cuda(mispc_gs *gs);
/* Frees the sweep-ordered device copy (perm .. tp, the graphs), not the
 * orderings it was built from (order, cl_ptr, cl_rows, row_cluster,
 * color_ptr): the distributed sweep's handle borrows those. */
void gs_device_copy_free(mispc_context *ctx, mispc_gs *gs);

/* Device, the distributed sweep (gs_dist_cuda.cu) on the copy of a matrix
 * with more columns than rows (gs->ncols: the ghosts' x after the rows'
 * in xp, filled by the caller's exchanges). gs_gather_cuda: bp = b and xp
 * = x (x NULL: 0) in sweep order, the ghosts' part left as it is.
 * gs_sweep_color_cuda: color c of a forward or backward pass (the
 * one-process kernels, without the from-zero shortcuts), writing each new
 * x_i also to x_rows[i] (row order, for the exchanges). Both queue on the
 * context's stream. */
mispc_status gs_gather_cuda(mispc_context *ctx, const mispc_gs *gs, const double *b,
                            const double *x);
mispc_status gs_sweep_color_cuda(mispc_context *ctx, const mispc_gs *gs, int32_t c, int backward,
                                 double *x_rows);

/* Host: builds the sweep-ordered copy's pattern (gs->h) after order /
 * color_ptr / cl_ptr / cl_rows / row_cluster are set; gs_host_values fills
 * its values and omega / a_ii from A, checking the diagonal (*bad_row,
 * *bad_kind as gs_diag_host); gs_host_copy_free releases it. */
mispc_status gs_host_pattern(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A, int may_block);
mispc_status gs_host_values(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A, int64_t *bad_row,
                            int *bad_kind);
void gs_host_copy_free(mispc_context *ctx, mispc_gs *gs);

/* How a host pass starts: GS_PASS_FULL, every entry; GS_PASS_FROM_ZERO,
 * x = 0 and this is the apply's first pass (forward: only the entries it
 * has updated are read; point GS keeps its sums in h.t); GS_PASS_RESUME,
 * point GS, the backward pass right after a forward GS_PASS_FROM_ZERO one:
 * each row goes on from its sum there with the entries after its lower
 * part. */
enum { GS_PASS_FULL = 0, GS_PASS_FROM_ZERO = 1, GS_PASS_RESUME = 2 };

/* One forward (backward = 0) or backward sweep over all colors, on the
 * sweep-ordered copy (gs->h); b and x in row order; start: GS_PASS_*. Row
 * sweeps only: mispc_gs_apply runs exact cluster solves itself
 * (gs_exact_sweep_host). */
mispc_status gs_sweep_host(mispc_context *ctx, const mispc_gs *gs, const double *b, double *x,
                           int backward, int start);
/* One color c of a sweep: the distributed sweep, whose colors are
 * separated by exchanges, on a copy of a matrix with more columns than rows
 * (the ghosts' values after the rows' in x). start: GS_PASS_FULL;
 * GS_PASS_FROM_ZERO for a forward pass from x = 0 (x zeroed) that keeps its
 * sums (point GS: its lower parts; cluster GS where the copies are split,
 * reading the zero copy where there is one), and GS_PASS_RESUME for the
 * backward pass right after it, which goes on from them (gs_row_update.h;
 * the same bits as GS_PASS_FULL). */
void gs_sweep_color_host(mispc_context *ctx, const mispc_gs *gs, const double *b, double *x,
                         int32_t c, int backward, int start);
/* The distributed point sweep's free rows (h.nfree; none: nothing), as
 * gs_sweep_color_host's start: before a forward pass's first color, after
 * a backward pass's last. */
void gs_sweep_free_host(const mispc_gs *gs, const double *b, double *x, int backward, int start);

/* Exact cluster solves (gs_exact_host.c, gs_exact_cuda.cu): the pattern
 * after the sweep-ordered copy's (gs_host_pattern, gs_permute_pattern_cuda
 * call it), the factors after the copy's values (*bad_row, *bad_kind as
 * gs_diag_host, kinds GS_EXACT_BAD_PIVOT / GS_EXACT_ASYMMETRIC; left as
 * they are where a diagonal was already bad), a sweep (all colors, or color
 * c, as gs_sweep_host / gs_sweep_color_host and the GPU's), and the
 * arrays' release. */
mispc_status gs_exact_pattern_host(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A);
mispc_status gs_exact_values_host(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A,
                                  int64_t *bad_row, int *bad_kind);
/* skip_first: the pass before ran the other way, so the clusters of this
 * pass's first color were solved last with what they read now: the same
 * result, skipped (needs gs_exact_edges_host; the handle's own apply). */
void gs_exact_sweep_host(mispc_context *ctx, const mispc_gs *gs, const double *b, double *x,
                         int backward, int skip_first);
mispc_status gs_exact_edges_host(mispc_context *ctx, mispc_gs *gs);
/* The row passes (gs_exact_rows.c): their lists after the pattern and the
 * factors; cluster m's solve (y forward through its rows, then z
 * backward); a pass on one thread over the first nc clusters of h.cl, by
 * level (skip as gs_exact_sweep_host's edge bits); the release. */
mispc_status gs_exact_rows_pattern(mispc_context *ctx, mispc_gs *gs);
void gs_exact_rows_values(mispc_gs *gs);
void gs_exact_rows_solve(const mispc_gs *gs, int64_t m, const double *b, double *x);
void gs_exact_rows_pass(const mispc_gs *gs, int64_t nc, const double *b, double *x, int backward,
                        uint8_t skip);
void gs_exact_rows_free(mispc_context *ctx, struct gs_exact_rows *r);
void gs_exact_sweep_color_host(mispc_context *ctx, const mispc_gs *gs, const double *b, double *x,
                               int32_t c, int backward);
/* The distributed sweep's free clusters (h.bound_cl[0] of them, first in
 * h.cl), solved on one thread: forward, or backward from the last. */
void gs_exact_sweep_free_host(const mispc_gs *gs, const double *b, double *x, int backward);
mispc_status gs_exact_pattern_cuda(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A);
mispc_status gs_exact_values_cuda(mispc_context *ctx, mispc_gs *gs, const mispc_csr *A,
                                  int64_t *bad_row, int *bad_kind);
/* Device: one forward or backward pass over color c (its clusters in
 * parallel) on bp / xp, each new x also written to x_rows (row order). */
mispc_status gs_exact_sweep_color_cuda(mispc_context *ctx, const mispc_gs *gs, int32_t c,
                                       int backward, double *x_rows);
void gs_exact_free(mispc_context *ctx, mispc_gs *gs, mispc_memspace mem);
/* The numeric setup's words for a bad value of kind k (gs_diag_kind's,
 * GS_EXACT_BAD_PIVOT, GS_EXACT_ASYMMETRIC). */
const char *gs_value_kind_text(int kind);
/* Automatic options (gauss_seidel.h): whether o asks for any (cluster kind
 * only), and o with them resolved from mispc_strength_auto's theta and
 * weak_max (point kind: off); info's option fields from the resolved o. */
int gs_auto_wanted(const mispc_gs_options *o);
void gs_resolve_auto(mispc_gs_options *o, double theta, double weak_max);
void gs_info_options(const mispc_gs_options *o, double theta, double weak_max, mispc_gs_info *info);

/* Whether the handle solves its clusters exactly. */
static inline int gs_exact(const mispc_gs *gs) {
  return gs->opt.kind == MISPC_GS_CLUSTER && gs->opt.block_solve;
}

/* Host sweeps: s minus the m products val[k] * x[col[k]] one after another
 * (1 <= m <= slots), by `slots` fixed slots (a constant at each call), those
 * past m leaving s by a select: the same operations as the loop, without
 * its exit branch, which follows the row lengths and was mispredicted
 * (gs_host.c short_row, gs_exact_host.c outside_sum say what it saved). */
static inline double gs_sub_slots(double s, const int32_t *col, const double *val, int m,
                                  const double *x, int slots) {
  for (int k = 0; k < slots; ++k) {
    const int o = k < m ? k : 0;
    const double prod = val[o] * x[col[o]];
    const double u = s - prod;
    s = k < m ? u : s;
  }
  return s;
}

/* Host sweeps: s minus the m products val[k] * x[col[k]] one after another. */
static inline double gs_sub_short(double s, const int32_t *__restrict col,
                                  const double *__restrict val, int m, const double *__restrict x) {
  for (int k = 0; k < m; ++k) {
    const double prod = val[k] * x[col[k]];
    s = s - prod;
  }
  return s;
}

/* The same for lists whose length varies from row to row: 1 to 8 entries
 * by gs_sub_slots (gs_host.c short_row says what it saved), else the loop. */
static inline double gs_sub_list(double s, const int32_t *col, const double *val, int m,
                                 const double *x) {
  return m >= 1 && m <= 8 ? gs_sub_slots(s, col, val, m, x, 8) : gs_sub_short(s, col, val, m, x);
}

/* Host cluster GS: rows of this many entries or more go on in the backward
 * pass after a forward one from x = 0 from the forward pass's sums (struct
 * gs_host_copy, split; gs_host.c says what it saved and cost). */
#define GS_RESUME_MIN_ROW 9

/* Host cluster GS prefetches rows ahead where one pass reads more than
 * this (gs_host.c says why and what it measured). */
#define GS_PREFETCH_MIN_BYTES (32.0 * 1024 * 1024)

/* Host point GS on one thread: the block of rows whose level
 * (gs_host_copy.c, level_order) starts at i / GS_BLOCK_ROWS. 64 to 256 ran
 * alike on Laplace3D_100 (2-core VM): passes 10-25 % faster than color by
 * color; 1024 gained half of that, 16 little. */
#define GS_BLOCK_ROWS 128

/* Line clusters (gs_lines.c): at most this many merging rounds. */
#define GS_LINE_ROUNDS 32
/* The chain graph of a host graph C: its edges whose two ends have at most
 * two neighbours. */
mispc_status gs_line_graph_host(mispc_context *ctx, const mispc_csr *C, mispc_csr *L);
/* Merges the aggregates of G (aggs, host or device) along chains of
 * aggregates (mispc_gs_options.line_clusters); aggs->root is dropped when
 * anything merges. ao: the clusters' aggregation options. */
mispc_status gs_grow_line_clusters(mispc_context *ctx, const mispc_csr *G,
                                   const mispc_agg_options *ao, mispc_aggregates *aggs);

#ifdef __cplusplus
}
#endif
#endif
