/* The NCCL transport of device halo exchanges (docs/DISTRIBUTED.md,
 * "Transports"): one NCCL communicator per MPI communicator, made from
 * ncclGetUniqueId on rank 0 and MPI_Bcast and cached on the MPI
 * communicator as an attribute (as PETSc caches its inner communicators),
 * so every plan of a communicator shares it: ncclCommInitRank costs
 * hundreds of milliseconds, and GAMG's levels and a PC's plans would pay it
 * each. Each exchange is one group of ncclSend / ncclRecv on the context's
 * stream, device buffers only (never GPU-aware MPI on the same buffers).
 * NCCL refuses two ranks on one GPU, so AUTO picks it only when every
 * rank's GPU (by UUID) is its own. Built with MISPC_HAVE_NCCL. */
#include <string.h>

#include "cuda_util.cuh"
#include "dist_internal.h"

#if MISPC_HAVE_NCCL
#include <nccl.h>
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
#include <nccl_device.h>
#define MISPC_HAVE_NCCL_LSA 1
#endif

#define MISPC_NCCL_TRY(ctx, call)                                                                  \
  do {                                                                                             \
    ncclResult_t mispc_nr_ = (call);                                                               \
    if (mispc_nr_ != ncclSuccess)                                                                  \
      return mispc_seterr((ctx), MISPC_ERR_CUDA, "%s failed: %s", #call,                           \
                          ncclGetErrorString(mispc_nr_));                                          \
  } while (0)
#endif

#if MISPC_HAVE_NCCL
/* The NCCL communicator of an MPI communicator, shared by its plans: refs
 * counts the plans plus one for the attribute; `last` is recorded after
 * every group on the stream that issued it, and a group issued on another
 * stream first waits for it, so groups on the communicator run in the order
 * they were issued (the same on every rank) whatever streams the contexts
 * use. */
typedef struct nccl_shared {
  ncclComm_t comm;
  cudaEvent_t last;
  cudaStream_t last_stream;
  int refs;
#if MISPC_HAVE_NCCL_LSA
  ncclDevComm dev; /* the device communicator of the LSA windows (dev_state 1) */
  int dev_blocks;  /* its LSA barriers */
#endif
  int dev_state; /* 0: not tried, 1: made, -1: unavailable */
} nccl_shared;

static int nccl_keyval = MPI_KEYVAL_INVALID;

static void shared_release(nccl_shared *sh) {
  if (!sh || --sh->refs > 0) return;
#if MISPC_HAVE_NCCL_LSA
  if (sh->dev_state == 1) ncclDevCommDestroy(sh->comm, &sh->dev);
#endif
  if (sh->last) cudaEventDestroy(sh->last);
  ncclCommDestroy(sh->comm);
  free(sh);
}

/* MPI deletes the attribute when the communicator is freed (MPI_COMM_WORLD:
 * at the start of MPI_Finalize); plans still alive keep the NCCL one. */
static int delete_attr(MPI_Comm, int, void *value, void *) {
  shared_release((nccl_shared *)value);
  return MPI_SUCCESS;
}

/* The communicator's NCCL communicator (made on first use; collective),
 * with a reference for the caller. */
static mispc_status shared_comm(mispc_context *ctx, MPI_Comm comm, int rank, nccl_shared **out) {
  *out = NULL;
  if (nccl_keyval == MPI_KEYVAL_INVALID &&
      MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attr, &nccl_keyval, NULL) != MPI_SUCCESS)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MPI_Comm_create_keyval failed");
  nccl_shared *sh = NULL;
  int found = 0;
  MPI_Comm_get_attr(comm, nccl_keyval, &sh, &found);
  /* every rank has it or none: the attribute is set collectively below */
  if (found && sh) {
    sh->refs++;
    *out = sh;
    return MISPC_SUCCESS;
  }
  ncclUniqueId id;
  memset(&id, 0, sizeof id);
  int P = 0;
  MPI_Comm_size(comm, &P);
  mispc_status s = MISPC_SUCCESS;
  if (rank == 0) {
    ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess)
      s = mispc_seterr(ctx, MISPC_ERR_CUDA, "ncclGetUniqueId failed: %s", ncclGetErrorString(r));
  }
  s = mispc_dist_agree(ctx, comm, s);
  if (s) return s;
  MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, comm);
  sh = (nccl_shared *)calloc(1, sizeof *sh);
  if (!sh) s = mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory");
  ncclResult_t r = ncclSuccess;
  if (!s) r = ncclCommInitRank(&sh->comm, P, id, rank);
  if (!s && r != ncclSuccess)
    s = mispc_seterr(ctx, MISPC_ERR_CUDA, "ncclCommInitRank failed: %s", ncclGetErrorString(r));
  if (!s) s = MISPC_CUDA_CALL(ctx, cudaEventCreateWithFlags(&sh->last, cudaEventDisableTiming));
  s = mispc_dist_agree(ctx, comm, s);
  if (s) {
    if (sh && sh->comm) ncclCommDestroy(sh->comm);
    if (sh && sh->last) cudaEventDestroy(sh->last);
    free(sh);
    return s;
  }
  sh->refs = 2; /* the attribute and the caller */
  MPI_Comm_set_attr(comm, nccl_keyval, sh);
  *out = sh;
  return MISPC_SUCCESS;
}

/* Stream st waits for the communicator's last group (queued on another
 * stream) and becomes the stream of record. */
static mispc_status follow_last(mispc_context *ctx, nccl_shared *sh, cudaStream_t st) {
  if (sh->last_stream && sh->last_stream != st)
    MISPC_CUDA_TRY(ctx, cudaStreamWaitEvent(st, sh->last, 0));
  sh->last_stream = st;
  return MISPC_SUCCESS;
}

/* The communicator's last group is what stream st has queued so far. */
static mispc_status record_last(mispc_context *ctx, nccl_shared *sh, cudaStream_t st) {
  MISPC_CUDA_TRY(ctx, cudaEventRecord(sh->last, st));
  sh->last_stream = st;
  return MISPC_SUCCESS;
}

/* Orders a group on stream st after the communicator's previous group. */
static mispc_status group_start(mispc_context *ctx, nccl_shared *sh, cudaStream_t st) {
  MISPC_TRY(follow_last(ctx, sh, st));
  MISPC_NCCL_TRY(ctx, ncclGroupStart());
  return MISPC_SUCCESS;
}

static mispc_status group_end(mispc_context *ctx, nccl_shared *sh, cudaStream_t st) {
  MISPC_NCCL_TRY(ctx, ncclGroupEnd());
  return record_last(ctx, sh, st);
}

/* One group of point-to-point messages on stream st: to speer[k] the units
 * [soff[k], soff[k + 1]) of sbuf, from rpeer[k] the units [roff[k],
 * roff[k + 1]) into rbuf (offsets relative to soff[0] / roff[0]; a unit is
 * `unit` bytes; empty pieces are skipped on both sides, since what one rank
 * sends another expects); with sum, also the all-reduce (sum) of that one
 * device word. */
static mispc_status grouped(mispc_context *ctx, mispc_halo *h, cudaStream_t st, const void *sbuf,
                            const int64_t *soff, int nsend, const int *speer, void *rbuf,
                            const int64_t *roff, int nrecv, const int *rpeer, size_t unit,
                            unsigned long long *sum) {
  nccl_shared *sh = (nccl_shared *)h->nccl;
  MISPC_TRY(group_start(ctx, sh, st));
  if (sum) /* a collective and the messages in one group: one launch (NCCL "Group Calls") */
    MISPC_NCCL_TRY(ctx, ncclAllReduce(sum, sum, 1, ncclUint64, ncclSum, sh->comm, st));
  for (int k = 0; k < nsend; ++k)
    if (soff[k + 1] > soff[k])
      MISPC_NCCL_TRY(ctx, ncclSend((const char *)sbuf + (soff[k] - soff[0]) * unit,
                                   (size_t)(soff[k + 1] - soff[k]) * unit, ncclUint8, speer[k],
                                   sh->comm, st));
  for (int k = 0; k < nrecv; ++k)
    if (roff[k + 1] > roff[k])
      MISPC_NCCL_TRY(ctx, ncclRecv((char *)rbuf + (roff[k] - roff[0]) * unit,
                                   (size_t)(roff[k + 1] - roff[k]) * unit, ncclUint8, rpeer[k],
                                   sh->comm, st));
  return group_end(ctx, sh, st);
}
#endif

/* 1 when some two ranks of comm run on the same GPU (by UUID). */
static mispc_status gpus_shared(mispc_context *ctx, MPI_Comm comm, int *shared) {
  int P = 0, dev = 0;
  MPI_Comm_size(comm, &P);
  cudaDeviceProp prop;
  MISPC_CUDA_TRY(ctx, cudaGetDevice(&dev));
  MISPC_CUDA_TRY(ctx, cudaGetDeviceProperties(&prop, dev));
  char *all = (char *)malloc(16 * (size_t)P);
  if (!all) return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of memory");
  MPI_Allgather(prop.uuid.bytes, 16, MPI_BYTE, all, 16, MPI_BYTE, comm);
  *shared = 0;
  for (int a = 0; a < P && !*shared; ++a)
    for (int b = a + 1; b < P && !*shared; ++b) *shared = !memcmp(all + 16 * a, all + 16 * b, 16);
  free(all);
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_halo_set_transport(mispc_context *ctx, mispc_halo *h, MPI_Comm comm,
                                                 int t) {
  int shared = 1, rank = 0;
  MPI_Comm_rank(comm, &rank);
  mispc_status s = mispc_dist_agree(ctx, comm, gpus_shared(ctx, comm, &shared));
  if (s) return s;
#if MISPC_HAVE_NCCL
  const int have = 1;
#else
  const int have = 0;
#endif
  if (t == MISPC_TRANSPORT_NCCL && (!have || shared))
    s = mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED,
                     !have ? "NCCL transport: mispc was built without NCCL"
                           : "NCCL transport: two ranks share a GPU (NCCL needs one GPU a rank; "
                             "the MPI transport serves shared GPUs)");
  s = mispc_dist_agree(ctx, comm, s);
  if (s) return s;
  const int want = t == MISPC_TRANSPORT_NCCL || (t == MISPC_TRANSPORT_AUTO && have && !shared);
  if ((want && h->nccl) || (!want && !h->nccl)) {
    h->transport = want ? MISPC_TRANSPORT_NCCL : MISPC_TRANSPORT_MPI;
    return MISPC_SUCCESS;
  }
  mispc_halo_nccl_free(h);
  h->transport = MISPC_TRANSPORT_MPI;
  if (!want) return MISPC_SUCCESS;
#if MISPC_HAVE_NCCL
  nccl_shared *sh = NULL;
  MISPC_TRY(shared_comm(ctx, comm, rank, &sh));
  h->nccl = sh;
  h->transport = MISPC_TRANSPORT_NCCL;
#endif
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_halo_nccl_exchange_sum(mispc_context *ctx, mispc_halo *h, void *ghost,
                                                     size_t size, unsigned long long *d_word,
                                                     void *stream) {
#if MISPC_HAVE_NCCL
  return grouped(ctx, h, (cudaStream_t)stream, h->d_sbuf, h->sdispl, h->ndst, h->dst, ghost,
                 h->rdispl, h->nsrc, h->src, size, d_word);
#else
  (void)h, (void)ghost, (void)size, (void)d_word, (void)stream;
  return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "NCCL transport: mispc was built without NCCL");
#endif
}

extern "C" mispc_status mispc_halo_nccl_exchange_counts(mispc_context *ctx, mispc_halo *h,
                                                        const double *sbuf, const int64_t *soff,
                                                        double *rbuf, const int64_t *roff,
                                                        void *stream) {
#if MISPC_HAVE_NCCL
  return grouped(ctx, h, (cudaStream_t)stream, sbuf, soff, h->ndst, h->dst, rbuf, roff, h->nsrc,
                 h->src, sizeof(double), NULL);
#else
  (void)h, (void)sbuf, (void)soff, (void)rbuf, (void)roff, (void)stream;
  return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "NCCL transport: mispc was built without NCCL");
#endif
}

extern "C" mispc_status mispc_halo_nccl_sum(mispc_context *ctx, mispc_halo *h,
                                            unsigned long long *d_word, void *stream) {
#if MISPC_HAVE_NCCL
  nccl_shared *sh = (nccl_shared *)h->nccl;
  cudaStream_t st = (cudaStream_t)stream;
  MISPC_TRY(group_start(ctx, sh, st));
  MISPC_NCCL_TRY(ctx, ncclAllReduce(d_word, d_word, 1, ncclUint64, ncclSum, sh->comm, st));
  return group_end(ctx, sh, st);
#else
  (void)h, (void)d_word, (void)stream;
  return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "NCCL transport: mispc was built without NCCL");
#endif
}

extern "C" mispc_status mispc_halo_nccl_follow(mispc_context *ctx, mispc_halo *h, void *stream) {
#if MISPC_HAVE_NCCL
  return follow_last(ctx, (nccl_shared *)h->nccl, (cudaStream_t)stream);
#else
  (void)h, (void)stream;
  return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "NCCL transport: mispc was built without NCCL");
#endif
}

extern "C" mispc_status mispc_halo_nccl_mark(mispc_context *ctx, mispc_halo *h, void *stream) {
#if MISPC_HAVE_NCCL
  return record_last(ctx, (nccl_shared *)h->nccl, (cudaStream_t)stream);
#else
  (void)h, (void)stream;
  return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "NCCL transport: mispc was built without NCCL");
#endif
}

#if MISPC_HAVE_NCCL
/* ---- LSA ghost windows (mispc_halo_lsa_get) ---- */

static void lsa_free(mispc_halo *h) {
  mispc_halo_lsa *l = (mispc_halo_lsa *)h->lsa;
  h->lsa = NULL;
  if (!l) return;
#if MISPC_HAVE_NCCL_LSA
  nccl_shared *sh = (nccl_shared *)h->nccl;
  if (l->win && sh) ncclCommWindowDeregister(sh->comm, (ncclWindow_t)l->win);
  if (l->base) ncclMemFree(l->base);
#endif
  cudaFree(l->d_vptr);
  cudaFree(l->d_speer);
  cudaFree(l->d_sslot);
  free(l);
}
#endif

#if MISPC_HAVE_NCCL_LSA
/* The communicator's device communicator with one LSA barrier a block of
 * the largest persistent grid any rank can run (collective; dev_state -1
 * on every rank when NCCL cannot: no symmetric memory, a rank outside the
 * LSA team). */
static mispc_status dev_comm(mispc_context *ctx, nccl_shared *sh, MPI_Comm comm) {
  if (sh->dev_state) return MISPC_SUCCESS;
  int sms = 0, coop = 0, blocks = 0, ok = 1, v = 0;
  MISPC_TRY(mispc_device_caps(ctx, &sms, &coop));
  blocks = sms * 8; /* the most 256-thread blocks an SM holds (2048 threads) */
  /* the device API is inlined from the headers: the runtime must be theirs */
  if (!coop || ncclGetVersion(&v) != ncclSuccess || v != NCCL_VERSION_CODE) ok = 0;
  MPI_Allreduce(MPI_IN_PLACE, &blocks, 1, MPI_INT, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
  if (!ok) {
    mispc_logf(ctx, 1, "LSA rounds: NCCL runtime %d, headers %d, cooperative launch %d: not used",
               v, NCCL_VERSION_CODE, coop);
    sh->dev_state = -1;
    return MISPC_SUCCESS;
  }
  ncclDevCommRequirements reqs;
  memset(&reqs, 0, sizeof reqs);
  reqs.lsaBarrierCount = blocks;
  ncclResult_t r = ncclDevCommCreate(sh->comm, &reqs, &sh->dev);
  ok = r == ncclSuccess && sh->dev.lsaSize == sh->dev.nRanks;
  if (r != ncclSuccess)
    mispc_logf(ctx, 1, "LSA rounds: ncclDevCommCreate: %s", ncclGetErrorString(r));
  else if (!ok)
    mispc_logf(ctx, 1, "LSA rounds: %d of %d ranks load/store accessible", sh->dev.lsaSize,
               sh->dev.nRanks);
  int all = ok;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
  if (r == ncclSuccess && !all) ncclDevCommDestroy(sh->comm, &sh->dev);
  sh->dev_state = all ? 1 : -1;
  sh->dev_blocks = blocks;
  return MISPC_SUCCESS;
}

/* Window, slots and device lists of h (collective; fails on every rank
 * when a rank failed, after its failure is logged). */
static mispc_status lsa_make(mispc_context *ctx, mispc_halo *h, MPI_Comm comm, int64_t nloc,
                             nccl_shared *sh, mispc_halo_lsa *l) {
  int P = 0, rank = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  l->nranks = P, l->rank = rank;
  l->devcomm = &sh->dev;
  l->max_blocks = sh->dev_blocks;
  /* symmetric memory: the same size on every rank */
  long long maxg = h->nghost;
  MPI_Allreduce(MPI_IN_PLACE, &maxg, 1, MPI_LONG_LONG, MPI_MAX, comm);
  const size_t align = NCCL_WIN_REQUIRED_ALIGNMENT;
#define MISPC_ALIGN_UP(x) (((size_t)(x) + align - 1) / align * align)
  l->ghost_bytes = MISPC_ALIGN_UP((maxg + 1) * 8);
  l->sub_off = 3 * l->ghost_bytes;
  l->count_off = l->sub_off + MISPC_ALIGN_UP(maxg + 1);
  const size_t bytes = l->count_off + MISPC_ALIGN_UP(4 * (size_t)P * 8);
#undef MISPC_ALIGN_UP
  ncclResult_t r = ncclMemAlloc((void **)&l->base, bytes);
  if (r == ncclSuccess && cudaMemset(l->base, 0, bytes) != cudaSuccess) r = ncclUnhandledCudaError;
  int ok = r == ncclSuccess, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all) {
    mispc_logf(ctx, 1, "LSA rounds: ncclMemAlloc of %zu bytes: %s", bytes, ncclGetErrorString(r));
    return MISPC_ERR_CUDA;
  }
  ncclWindow_t win = NULL;
  r = ncclCommWindowRegister(sh->comm, l->base, bytes, &win, NCCL_WIN_COLL_SYMMETRIC);
  l->win = win;
  ok = r == ncclSuccess;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all) {
    mispc_logf(ctx, 1, "LSA rounds: ncclCommWindowRegister: %s", ncclGetErrorString(r));
    return MISPC_ERR_CUDA;
  }
  /* where each destination keeps this rank's ghosts: its first ghost from us */
  const size_t ns = (size_t)h->nsend;
  int64_t *first = (int64_t *)malloc(2 * (size_t)P * sizeof *first);
  int32_t *vptr = (int32_t *)calloc((size_t)nloc + 2, sizeof *vptr);
  int32_t *speer = (int32_t *)malloc((ns + 1) * sizeof *speer);
  int64_t *sslot = (int64_t *)malloc((ns + 1) * sizeof *sslot);
  mispc_status s = first && vptr && speer && sslot ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
  if (!s) {
    for (int q = 0; q < P; ++q) first[q] = -1;
    for (int k = 0; k < h->nsrc; ++k) first[h->src[k]] = h->rdispl[k];
    MPI_Alltoall(first, 1, MPI_INT64_T, first + P, 1, MPI_INT64_T, comm);
    /* entries by owned vertex (counting sort, destinations in order) */
    for (size_t e = 0; e < ns; ++e) vptr[h->sidx[e] + 1]++;
    for (int64_t v = 0; v < nloc; ++v) vptr[v + 1] += vptr[v];
    for (int k = 0; k < h->ndst; ++k)
      for (int64_t e = h->sdispl[k]; e < h->sdispl[k + 1]; ++e) {
        const int32_t at = vptr[h->sidx[e]]++;
        speer[at] = h->dst[k]; /* the LSA team is the communicator (dev_comm) */
        sslot[at] = first[P + h->dst[k]] + (e - h->sdispl[k]);
      }
    for (int64_t v = nloc; v > 0; --v) vptr[v] = vptr[v - 1];
    vptr[0] = 0;
    const size_t nv = (size_t)nloc + 1;
    if (cudaMalloc((void **)&l->d_vptr, nv * sizeof *vptr) != cudaSuccess ||
        cudaMalloc((void **)&l->d_speer, (ns + 1) * sizeof *speer) != cudaSuccess ||
        cudaMalloc((void **)&l->d_sslot, (ns + 1) * sizeof *sslot) != cudaSuccess ||
        cudaMemcpy(l->d_vptr, vptr, nv * sizeof *vptr, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(l->d_speer, speer, ns * sizeof *speer, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(l->d_sslot, sslot, ns * sizeof *sslot, cudaMemcpyHostToDevice) != cudaSuccess)
      s = MISPC_ERR_CUDA;
  }
  free(first);
  free(vptr);
  free(speer);
  free(sslot);
  ok = !s;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all) mispc_logf(ctx, 1, "LSA rounds: the send lists could not be made");
  return all ? MISPC_SUCCESS : MISPC_ERR_CUDA;
}
#endif

extern "C" mispc_status mispc_halo_lsa_get(mispc_context *ctx, mispc_halo *h, MPI_Comm comm,
                                           int64_t nloc, mispc_halo_lsa **out) {
  *out = (mispc_halo_lsa *)h->lsa;
  if (h->lsa || h->lsa_tried || !h->nccl) return MISPC_SUCCESS; /* the same on every rank */
  h->lsa_tried = 1;
#if MISPC_HAVE_NCCL_LSA
  nccl_shared *sh = (nccl_shared *)h->nccl;
  MISPC_TRY(dev_comm(ctx, sh, comm));
  if (sh->dev_state != 1) return MISPC_SUCCESS;
  mispc_halo_lsa *l = (mispc_halo_lsa *)calloc(1, sizeof *l);
  int ok = l != NULL, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  if (!all) {
    free(l);
    return MISPC_SUCCESS;
  }
  h->lsa = l;
  if (lsa_make(ctx, h, comm, nloc, sh, l) != MISPC_SUCCESS) {
    lsa_free(h);
    return MISPC_SUCCESS;
  }
  *out = l;
#else
  (void)ctx, (void)comm, (void)nloc;
#endif
  return MISPC_SUCCESS;
}

extern "C" void mispc_halo_nccl_free(mispc_halo *h) {
#if MISPC_HAVE_NCCL
  lsa_free(h);
  shared_release((nccl_shared *)h->nccl);
#endif
  h->nccl = NULL;
  h->lsa_tried = 0;
  h->lsa_rule = 0;
}
