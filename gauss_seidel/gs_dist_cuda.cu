/* The distributed Gauss-Seidel apply on the GPU (docs/DISTRIBUTED.md,
 * "Gauss-Seidel on device matrices"). The symbolic and numeric setups run
 * on host copies (gs_dist.c, gs_dist_cluster.c); their sweep matrix (point:
 * the owned rows merged in global column order; cluster: the swept rows of
 * the second numbering), orderings and values are uploaded here, and the
 * one-process GPU copy and kernels are built over them (gs_cuda_*.cu, a
 * mispc_gs whose orderings are borrowed; the ghosts' x lie after the rows'
 * in its xp). Each color is the one-process launch for that color (a group
 * a row, or the staged / streamed push chains of a cluster), which also
 * writes x in row order, followed by the exchange of that color's boundary
 * values from there into the ghosts' part of xp
 * (mispc_halo_exchange_where_device: NCCL where every rank has a GPU of its
 * own, else staged through the host). The one-process kernels reproduce
 * gs_row_update.h's arithmetic, so x equals the host and the one-process
 * result bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "cuda_util.cuh"
#include "gs_dist_internal.h"

struct gs_dist_device {
  int cluster;
  /* the sweep matrix (point: M, cluster: W) on the device: S.nrows rows swept
   * here, S.ncols columns (rows + ghosts), values numeric; a view (owned 0)
   * whose arrays gs_dist_device_free frees */
  mispc_csr S;
  int32_t *items;                 /* point: rows by color; cluster: clusters by color */
  int32_t *ghost_key;             /* each ghost's key (gs_internal.h, ghost_key) */
  int64_t *cl_ptr;                /* cluster: rows of each local cluster */
  int32_t *cl_rows, *row_cluster; /* cluster */
  mispc_gs sweep;                 /* the one-process copy over S (orderings: the arrays above) */
  double *xe, *be;                /* S.nrows each: x in row order; cluster: b of the swept rows */
  mispc_halo_keyed *keyed;        /* per-color lists of the sweep's halo */
  int64_t nkept;                  /* cluster: own rows swept here */
  int32_t *kown, *kpos;           /* their own and swept ids */
  int32_t *move_row, *recv_row, *back_row; /* cluster: the moved rows' lists (device) */
  double *tmp, *htmp;                      /* cluster: staging, device and pinned host */
};

template <typename T> static mispc_status upload(mispc_context *ctx, T **d, const T *h, int64_t n) {
  MISPC_CUDA_TRY(ctx, cudaMalloc((void **)d, sizeof(T) * (size_t)(n + 1)));
  /* on the context's stream (mispc_mem_copy): a pageable cudaMemcpy may return
   * before its DMA ends, and the sweeps run on a non-blocking stream */
  return mispc_mem_copy(ctx, *d, MISPC_MEM_DEVICE, h, MISPC_MEM_HOST, sizeof(T) * (size_t)n);
}

extern "C" void gs_dist_device_free(mispc_context *ctx, gs_dist_device *d) {
  if (!d) return;
  gs_device_copy_free(ctx, &d->sweep);
  void *p[] = {d->S.rowptr, d->S.colidx,    d->S.values, d->items, d->ghost_key, d->cl_ptr,
               d->cl_rows,  d->row_cluster, d->xe,       d->be,    d->kown,      d->kpos,
               d->move_row, d->recv_row,    d->back_row, d->tmp};
  for (size_t k = 0; k < sizeof p / sizeof *p; ++k)
    if (p[k]) cudaFree(p[k]);
  if (d->htmp) cudaFreeHost(d->htmp);
  mispc_halo_keyed_destroy(d->keyed);
  free(d);
}

/* The one-process copy over the uploaded sweep matrix, its orderings
 * borrowed (gs_dist.c's host_copy_pattern does the same for the host). */
static mispc_status sweep_copy_pattern(mispc_context *ctx, const mispc_dist_gs *gs,
                                       gs_dist_device *d) {
  const gs_dist_cluster *cl = gs->cl;
  mispc_gs *h = &d->sweep;
  memset(h, 0, sizeof *h);
  h->opt = gs->opt;
  h->mem = MISPC_MEM_DEVICE;
  h->n = d->S.nrows;
  h->nnz = d->S.nnz;
  h->ncolors = gs->ncolors;
  h->color_ptr = cl ? cl->color_ptr : gs->color_ptr;
  h->order = d->items;
  if (cl) {
    h->nclusters = cl->color_ptr[gs->ncolors];
    h->cl_ptr = d->cl_ptr;
    h->cl_rows = d->cl_rows;
    h->row_cluster = d->row_cluster;
    h->ghost_key = d->ghost_key;                 /* the ghosts of earlier colors (copy_rows) */
    for (int64_t k = 0; k < h->nclusters; ++k) { /* the local clusters' largest */
      const int64_t m = cl->cl_ptr[k + 1] - cl->cl_ptr[k];
      if (m > h->max_cluster) h->max_cluster = m;
    }
  } else {
    h->nclusters = d->S.nrows;
    h->max_cluster = 1;
    h->ghost_key = d->ghost_key;
  }
  return gs_permute_pattern_cuda(ctx, h, &d->S);
}

extern "C" mispc_status gs_dist_device_setup(mispc_context *ctx, mispc_dist_gs *gs,
                                             const mispc_dist_csr *A) {
  gs_dist_device *d = (gs_dist_device *)calloc(1, sizeof *d);
  if (!d) return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory");
  gs->dev = d;
  const gs_dist_cluster *cl = gs->cl;
  d->cluster = cl != NULL;
  const mispc_csr *S = cl ? &cl->W : &gs->M;
  const int64_t n = S->nrows, ncols = S->ncols; /* d->S's once wrapped */
  /* the arrays go to d->S at once (freed from there should a later step fail) */
  mispc_status s = upload(ctx, &d->S.rowptr, S->rowptr, n + 1);
  if (!s) s = upload(ctx, &d->S.colidx, S->colidx, S->nnz);
  if (!s) s = MISPC_CUDA_CALL(ctx, cudaMalloc((void **)&d->S.values, 8 * (size_t)(S->nnz + 1)));
  if (!s) s = MISPC_CUDA_CALL(ctx, cudaMalloc((void **)&d->xe, 8 * (size_t)(n + 1)));
  if (!s)
    s = mispc_csr_wrap(MISPC_MEM_DEVICE, n, ncols, S->nnz, d->S.rowptr, d->S.colidx, d->S.values,
                       &d->S);
  if (!cl) {
    if (!s) s = upload(ctx, &d->items, gs->order, n);
    if (!s) { /* a ghost of color g: the last position of colors up to g */
      const int64_t ng = ncols - n;
      int32_t *key = (int32_t *)malloc(sizeof(int32_t) * (size_t)(ng + 1));
      if (!key) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory");
      for (int64_t g = 0; !s && g < ng; ++g)
        key[g] = (int32_t)(gs->color_ptr[gs->gcolor[g] + 1] - 1);
      if (!s) s = upload(ctx, &d->ghost_key, key, ng);
      free(key);
    }
    if (!s) s = sweep_copy_pattern(ctx, gs, d);
    if (!s)
      s = mispc_halo_keyed_create(ctx, A->halo, gs->scolor, gs->gcolor, gs->ncolors, &d->keyed);
    return s;
  }
  const int64_t nlc = cl->color_ptr[gs->ncolors]; /* local clusters */
  if (!s) s = upload(ctx, &d->items, cl->cl_order, nlc);
  if (!s) s = upload(ctx, &d->cl_ptr, cl->cl_ptr, nlc + 1);
  if (!s) s = upload(ctx, &d->cl_rows, cl->cl_rows, n);
  if (!s) s = upload(ctx, &d->row_cluster, cl->row_cluster, ncols);
  /* the ghosts' keys (gs_dist_cluster.c), so that the copy puts the ghosts
   * of earlier colors than a row's first (gs_cuda_symbolic.cu, copy_rows) */
  if (!s) s = upload(ctx, &d->ghost_key, cl->gkey, ncols - n);
  if (!s) s = sweep_copy_pattern(ctx, gs, d);
  if (!s) gs->block_outside = d->sweep.ex.nout, gs->block_factor = d->sweep.ex.nfactor;
  if (!s) s = MISPC_CUDA_CALL(ctx, cudaMalloc((void **)&d->be, 8 * (size_t)(n + 1)));
  if (!s) {
    int32_t *kown = (int32_t *)malloc(sizeof(int32_t) * (size_t)(gs->nloc + 1));
    int32_t *kpos = (int32_t *)malloc(sizeof(int32_t) * (size_t)(gs->nloc + 1));
    if (!kown || !kpos) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory");
    for (int64_t i = 0; !s && i < gs->nloc; ++i)
      if (cl->kept[i] >= 0) kown[d->nkept] = (int32_t)i, kpos[d->nkept++] = cl->kept[i];
    if (!s) s = upload(ctx, &d->kown, kown, d->nkept);
    if (!s) s = upload(ctx, &d->kpos, kpos, d->nkept);
    free(kown), free(kpos);
  }
  if (!s) s = upload(ctx, &d->move_row, cl->move_row, cl->nmove);
  if (!s) s = upload(ctx, &d->recv_row, cl->recv_row, cl->nrecv);
  if (!s) s = upload(ctx, &d->back_row, cl->back_row, cl->nmove);
  const int64_t nt = (cl->nmove > cl->nrecv ? cl->nmove : cl->nrecv) + 1;
  if (!s) s = MISPC_CUDA_CALL(ctx, cudaMalloc((void **)&d->tmp, 8 * (size_t)nt));
  if (!s) s = MISPC_CUDA_CALL(ctx, cudaMallocHost((void **)&d->htmp, 8 * (size_t)nt));
  /* the sweep numbering's plan takes NCCL where every rank has a GPU of its own */
  s = mispc_dist_agree(ctx, A->comm, s);
  if (!s) s = mispc_halo_set_transport(ctx, cl->halo, A->comm, MISPC_TRANSPORT_AUTO);
  if (!s)
    s = mispc_halo_keyed_create(ctx, cl->halo, cl->scolor, cl->gcolor, gs->ncolors, &d->keyed);
  return s;
}

extern "C" mispc_status gs_dist_device_values(mispc_context *ctx, mispc_dist_gs *gs) {
  gs_dist_device *d = gs->dev;
  const mispc_csr *S = gs->cl ? &gs->cl->W : &gs->M;
  cudaStream_t st;
  MISPC_TRY(mispc_stream(ctx, &st));
  MISPC_TRY(mispc_sync(ctx, st, "before the Gauss-Seidel values")); /* no apply in flight */
  MISPC_TRY(mispc_mem_copy(ctx, d->S.values, MISPC_MEM_DEVICE, S->values, MISPC_MEM_HOST,
                           8 * (size_t)S->nnz));
  /* the copy's values and omega / a_ii (the host setup checked the diagonal) */
  int64_t bad = -1;
  int kind = 0;
  MISPC_TRY(gs_permute_values_cuda(ctx, &d->sweep, &d->S, &bad, &kind));
  if (bad >= 0 && kind >= GS_EXACT_BAD_PIVOT)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG,
                        "mispc_dist_gs_numeric: %s at swept row %lld of this rank",
                        gs_value_kind_text(kind), (long long)bad);
  if (bad >= 0)
    return mispc_seterr(ctx, MISPC_ERR_VERIFY,
                        "distributed Gauss-Seidel: the device copy's diagonal of swept row %lld "
                        "is unusable (kind %d) where the host's was not",
                        (long long)bad, kind);
  return MISPC_SUCCESS;
}

/* out[oi[k]] = in[ii[k]] (ii or oi NULL: k) */
__global__ void copy_by_index_kernel(int64_t n, const int32_t *__restrict__ ii,
                                     const double *__restrict__ in, const int32_t *__restrict__ oi,
                                     double *__restrict__ out) {
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n;
       k += (int64_t)gridDim.x * blockDim.x)
    out[oi ? oi[k] : k] = in[ii ? ii[k] : k];
}

static mispc_status copy_by_index(mispc_context *ctx, cudaStream_t st, int64_t n, const int32_t *ii,
                                  const double *in, const int32_t *oi, double *out) {
  if (n <= 0) return MISPC_SUCCESS;
  copy_by_index_kernel<<<mispc_device_grid(ctx, n, 256), 256, 0, st>>>(n, ii, in, oi, out);
  MISPC_CUDA_LAUNCH_CHECK(ctx);
  return MISPC_SUCCESS;
}

/* Values of rows that move (cluster GS): from[from_idx[k]] goes along the
 * route plan made at the symbolic setup (gs_dist_cluster.c: cl->fwd, its
 * reverse cl->bwd), one neighbour collective on the host; the nexp
 * arrivals (source rank order, sending order inside) land at
 * to[to_idx[j]]. A rank whose copy failed still takes part in the
 * collective (its neighbours wait in it); the apply agrees on the status. */
static mispc_status move_values(mispc_context *ctx, cudaStream_t st, mispc_route_plan *plan,
                                gs_dist_device *d, int64_t n, const int32_t *from_idx,
                                const double *from, int64_t nexp, const int32_t *to_idx, double *to,
                                int64_t *bytes) {
  mispc_status s = copy_by_index(ctx, st, n, from_idx, from, NULL, d->tmp);
  if (!s && n > 0)
    s = MISPC_CUDA_CALL(
        ctx, cudaMemcpyAsync(d->htmp, d->tmp, 8 * (size_t)n, cudaMemcpyDeviceToHost, st));
  if (!s) s = mispc_sync(ctx, st, "moved rows' values");
  /* htmp is both the records and the arrivals: the plan copies the records first */
  mispc_status r = mispc_route_plan_run(ctx, plan, (const int64_t *)(const void *)d->htmp,
                                        (int64_t *)(void *)d->htmp);
  if (!s) s = r;
  if (!s && nexp > 0)
    s = MISPC_CUDA_CALL(
        ctx, cudaMemcpyAsync(d->tmp, d->htmp, 8 * (size_t)nexp, cudaMemcpyHostToDevice, st));
  if (!s) s = copy_by_index(ctx, st, nexp, NULL, d->tmp, to_idx, to);
  /* the staging buffers are reused by the next move */
  if (!s && nexp > 0) s = mispc_sync(ctx, st, "moved rows' values");
  *bytes += 8 * n;
  return s;
}

/* Verbosity 3 and up: each step of an apply, waited for (mispc_log_phase). */
static void trace_step(mispc_context *ctx, double *t, const char *what) {
  if (mispc_context_verbosity(ctx) >= 3) mispc_log_phase(ctx, MISPC_MEM_DEVICE, t, what);
}

/* The seconds since *t once the stream's work is done (no log line). */
static double trace_wait(mispc_context *ctx, double *t) {
  mispc_stream_wait(ctx);
  const double now = mispc_wtime(), dt = now - *t;
  *t = now;
  return dt;
}

extern "C" mispc_status gs_dist_device_apply(mispc_context *ctx, mispc_dist_gs *gs,
                                             const mispc_dist_csr *A, const double *b, double *x,
                                             int zero_guess) {
  gs_dist_device *d = gs->dev;
  const gs_dist_cluster *cl = gs->cl;
  mispc_halo *h = cl ? cl->halo : A->halo;
  cudaStream_t st;
  MISPC_TRY(mispc_stream(ctx, &st));
  const int64_t before = h->stats.bytes_sent;
  int64_t bytes = 0;
  mispc_status s = MISPC_SUCCESS;
  const double *be = b;
  const int trace = mispc_context_verbosity(ctx) >= 3;
  double tstep = trace ? mispc_wtime() : 0, sweeps = 0, exchanges = 0;
  if (cl) { /* b of the swept rows: kept ones here, moved ones from their owners */
    s = copy_by_index(ctx, st, d->nkept, d->kown, b, d->kpos, d->be);
    const mispc_status m = move_values(ctx, st, cl->fwd, d, cl->nmove, d->move_row, b, cl->nrecv,
                                       d->recv_row, d->be, &bytes);
    if (!s) s = m;
    be = d->be;
    trace_step(ctx, &tstep, "dist gs apply: b of the swept rows (moved rows by route)");
  }
  const int64_t n = d->S.nrows, ncols = d->S.ncols; /* rows swept here, rows + ghosts */
  double *ghosts = d->sweep.xp + n; /* the ghosts' x, after the rows' in sweep order */
  if (!s && zero_guess) {
    if (ncols > n)
      s = MISPC_CUDA_CALL(ctx, cudaMemsetAsync(ghosts, 0, 8 * (size_t)(ncols - n), st));
    if (!s) s = gs_gather_cuda(ctx, &d->sweep, be, NULL);
  } else if (!s) {
    if (cl) {
      s = copy_by_index(ctx, st, d->nkept, d->kown, x, d->kpos, d->xe);
      const mispc_status m = move_values(ctx, st, cl->fwd, d, cl->nmove, d->move_row, x, cl->nrecv,
                                         d->recv_row, d->xe, &bytes);
      if (!s) s = m;
    } else {
      s = MISPC_CUDA_CALL(ctx,
                          cudaMemcpyAsync(d->xe, x, 8 * (size_t)n, cudaMemcpyDeviceToDevice, st));
    }
    if (!s) s = mispc_halo_exchange_device(ctx, h, d->xe, ghosts, sizeof(double));
    if (!s) s = gs_gather_cuda(ctx, &d->sweep, be, d->xe);
  }
  s = mispc_dist_agree(ctx, A->comm, s);
  trace_step(ctx, &tstep, "dist gs apply: start values, agreement");
  for (int k = 0; !s && k < gs->opt.sweeps; ++k)
    for (int backward = 0; !s && backward < 2; ++backward) {
      if ((backward && gs->opt.sweep == MISPC_GS_FORWARD) ||
          (!backward && gs->opt.sweep == MISPC_GS_BACKWARD))
        continue;
      for (int32_t t = 0; !s && t < gs->ncolors; ++t) {
        const int32_t c = backward ? gs->ncolors - 1 - t : t;
        s = gs_sweep_color_cuda(ctx, &d->sweep, c, backward, d->xe);
        if (trace) sweeps += trace_wait(ctx, &tstep);
        if (!s && gs_dist_exchange_after(&gs->opt, k, t, gs->ncolors))
          s = mispc_halo_exchange_where_device(ctx, h, d->keyed, d->xe, ghosts, c);
        if (trace) exchanges += trace_wait(ctx, &tstep);
      }
    }
  s = mispc_dist_agree(ctx, A->comm, s);
  if (trace)
    mispc_logf(ctx, 3, "dist gs apply: %d colors (%s): sweeps %.3f ms, exchanges %.3f ms",
               gs->ncolors, h->transport == MISPC_TRANSPORT_NCCL ? "nccl" : "mpi", 1e3 * sweeps,
               1e3 * exchanges);
  trace_step(ctx, &tstep, "dist gs apply: agreement");
  if (!s && cl) { /* x back: kept rows here, moved ones to their owners */
    s = copy_by_index(ctx, st, d->nkept, d->kpos, d->xe, d->kown, x);
    const mispc_status m = move_values(ctx, st, cl->bwd, d, cl->nrecv, d->recv_row, d->xe,
                                       cl->nmove, d->back_row, x, &bytes);
    if (!s) s = m;
  } else if (!s) {
    s = MISPC_CUDA_CALL(ctx,
                        cudaMemcpyAsync(x, d->xe, 8 * (size_t)n, cudaMemcpyDeviceToDevice, st));
  }
  trace_step(ctx, &tstep, "dist gs apply: x back (moved rows by route)");
  gs->apply_bytes = bytes + h->stats.bytes_sent - before;
  return mispc_dist_agree(ctx, A->comm, s);
}
