/* Internal: the distributed Gauss-Seidel handle (gs_dist.c: point kind and
 * the owner side; gs_dist_cluster.c: the cluster kind's sweep layout). */
#ifndef MISPC_GS_DIST_INTERNAL_H
#define MISPC_GS_DIST_INTERNAL_H

#include "dist_internal.h"
#include "gs_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cluster GS (docs/DISTRIBUTED.md, "Cluster Gauss-Seidel"): every cluster is
 * swept whole by one rank, the rank owning its smallest row (its head).
 * Rows whose head lies on another rank move there (their pattern at the
 * symbolic setup, values at each numeric setup, b and x at each apply).
 * The rows a rank sweeps are numbered in a second global numbering (rank by
 * rank, increasing row id inside a rank), which has contiguous ranges, so
 * the ordinary halo plan serves the sweep. */
typedef struct gs_dist_cluster {
  int64_t ns, ng;        /* rows swept here, ghosts of the sweep numbering */
  mispc_csr W;           /* ns x (ns + ng): swept rows, entries in global column order */
  mispc_halo *halo;      /* plan over the sweep numbering */
  int64_t *garray;       /* ng sorted ghost ids of the sweep numbering */
  int64_t *wsrc;         /* W.nnz: >= 0 entry of the owner's merged M, < 0: -1 - k received */
  int32_t *row_cluster;  /* ns + ng: cluster label of each column (-1 for ghosts) */
  int64_t *cl_ptr;       /* local clusters + 1 */
  int32_t *cl_rows;      /* swept rows of each cluster, increasing */
  int32_t *cl_order;     /* local clusters by color */
  int64_t *color_ptr;    /* ncolors + 1 offsets into cl_order */
  int32_t *scolor;       /* color of each send entry of halo */
  int32_t *gcolor;       /* color of each ghost */
  int32_t *gkey;         /* each ghost's key in the sweep order (gs_internal.h, ghost_key) */
  double *bs, *xs;       /* ns each: b and [x | ghosts] (ns + ng) */
  int32_t *kept;         /* own rows swept here: own row -> swept row, -1 if moved */
  int64_t nmove;         /* own rows swept elsewhere */
  int32_t *move_row;     /* their own row ids, in sending order */
  int *move_dest;        /* the rank sweeping each */
  int64_t nrecv;         /* rows received to sweep */
  int32_t *recv_row;     /* swept row of each received row, in receiving order */
  int *recv_src;         /* the rank owning each */
  int64_t nrecv_vals;    /* entries of the received rows */
  int32_t *back_row;     /* own row of each x value coming back, in receiving order */
  mispc_route_plan *fwd; /* moved rows' values to their sweepers (move_dest) */
  mispc_route_plan *bwd; /* and back to their owners (recv_src) */
  double *mbuf;          /* nmove + nrecv: the values a move sends and receives */
  int64_t nclusters, singletons, min_cluster, max_cluster; /* global */
} gs_dist_cluster;

/* The sweep layout on the GPU, for device matrices (gs_dist_cuda.cu). */
typedef struct gs_dist_device gs_dist_device;

struct mispc_dist_gs {
  mispc_gs_options opt;             /* in use: asked, automatic ones resolved (gs_resolve_auto) */
  mispc_gs_options asked;           /* as given to mispc_dist_gs_create */
  double auto_theta, auto_weak_max; /* mispc_dist_strength_auto's (0, -1: none computed) */
  int have_symbolic, have_numeric;
  int64_t nloc, nghost, nnz;
  int32_t ncolors;
  mispc_csr M;         /* nloc x (nloc + nghost), rows in global column order, values */
  int64_t *src;        /* nnz: where each entry of M comes from in A (>= 0 diag, < 0: offd) */
  int64_t *color_ptr;  /* point: ncolors + 1 */
  int32_t *order;      /* point: owned rows by (color, id) */
  int32_t *scolor;     /* point: color of each send entry */
  int32_t *gcolor;     /* point: color of each ghost */
  double *xe;          /* point: [x | ghosts] work vector */
  int64_t apply_bytes; /* sent by the last apply */
  int64_t block_outside, block_factor; /* block_solve: mispc_gs_info's counts, this rank */
  gs_dist_cluster *cl;                 /* cluster kind only */
  int device; /* device matrices: setups on host copies, applies on the GPU */
  /* Host matrices: the one-process host sweep's sweep-ordered copy
   * (gs_host_copy.c) of the sweep matrix (point: M, cluster: W), built
   * through a handle whose orderings are borrowed from this one. */
  mispc_gs host;
  gs_dist_device *dev; /* device only */
};

/* Cluster kind: the symbolic setup after M is merged (clusters, their
 * colors, heads, the moved rows and the sweep numbering); the values of W
 * after the owner's M is set (the moved rows' from their owners); an apply; the state's release.
 * All collective. A is a host matrix; D, where A is the host copy of a
 * device matrix, that device matrix (else NULL): the aggregation then runs
 * on the GPU (the same labels). */
mispc_status gs_dist_cluster_symbolic(mispc_context *ctx, mispc_dist_gs *gs,
                                      const mispc_dist_csr *A, const mispc_dist_csr *D);
/* mispc_dist_aggregate of host graph H, labels on the host; with gpu (a
 * setup of device matrices) run on the GPU, on D (H's device twin) or, D
 * NULL, on a device copy of H, unless the tuning knob dist_gs_host_setup
 * asks for the host (gs_dist.c). Collective. */
mispc_status gs_dist_aggregate(mispc_context *ctx, const mispc_dist_csr *H, const mispc_dist_csr *D,
                               int gpu, const mispc_agg_options *opt, int32_t *agg,
                               mispc_dist_agg_info *info);
mispc_status gs_dist_cluster_numeric(mispc_context *ctx, mispc_dist_gs *gs, MPI_Comm comm);
mispc_status gs_dist_cluster_apply(mispc_context *ctx, mispc_dist_gs *gs, MPI_Comm comm,
                                   const double *b, double *x, int zero_guess);
void gs_dist_cluster_free(mispc_context *ctx, gs_dist_cluster *cl);
/* gs_grow_line_clusters on several ranks (gs_lines_dist.c): lab holds the
 * labels of G's rows on this rank, *naggs their global count; both are
 * updated. Collective; the one-process clusters for any partition. */
mispc_status gs_grow_line_clusters_dist(mispc_context *ctx, const mispc_dist_csr *G,
                                        const mispc_agg_options *ao, int32_t *lab, int64_t *naggs);

/* Whether a pass of sweep k exchanges its boundary values after the t-th
 * of its ncolors colors (host and device, point and cluster): always but
 * after the last color, whose exchange no rank reads before its next one
 * where the next pass goes the other way or none follows. Other ranks read
 * a color's values as earlier-colored neighbours in the pass that sent them
 * (there is none after the last color) and in a next pass the same way
 * (forward or backward sweeps); a next pass the other way (symmetric)
 * starts with that color and sends it again before any other color is
 * swept, and after the apply's last pass no ghost is read (an apply starts
 * from x = 0 or from a whole exchange). The same on every rank. */
static inline int gs_dist_exchange_after(const mispc_gs_options *o, int k, int32_t t,
                                         int32_t ncolors) {
  return t < ncolors - 1 || (o->sweep != MISPC_GS_SYMMETRIC && k < o->sweeps - 1);
}

/* Device matrices: the sweep layout uploaded after the host symbolic setup
 * (A: the matrix's halo plan), its values after the host numeric one, an
 * apply on device vectors (collective), the release. */
mispc_status gs_dist_device_setup(mispc_context *ctx, mispc_dist_gs *gs, const mispc_dist_csr *A);
mispc_status gs_dist_device_values(mispc_context *ctx, mispc_dist_gs *gs);
mispc_status gs_dist_device_apply(mispc_context *ctx, mispc_dist_gs *gs, const mispc_dist_csr *A,
                                  const double *b, double *x, int zero_guess);
void gs_dist_device_free(mispc_context *ctx, gs_dist_device *d);

#ifdef __cplusplus
}
#endif
#endif
