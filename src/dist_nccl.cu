/* The NCCL transport of device halo exchanges (docs/DISTRIBUTED.md,
 * "Transports"): one communicator per plan, made from ncclGetUniqueId on
 * rank 0 and MPI_Bcast; each exchange is one group of ncclSend / ncclRecv on
 * the context's stream, device buffers only (never GPU-aware MPI on the same
 * buffers). NCCL refuses two ranks on one GPU, so AUTO picks it only when
 * every rank's GPU (by UUID) is its own. Built with MISPC_HAVE_NCCL. */
#include <string.h>

#include "cuda_util.cuh"
#include "dist_internal.h"

#if MISPC_HAVE_NCCL
#include <nccl.h>

#define MISPC_NCCL_TRY(ctx, call)                                                                  \
  do {                                                                                             \
    ncclResult_t mispc_nr_ = (call);                                                               \
    if (mispc_nr_ != ncclSuccess)                                                                  \
      return mispc_seterr((ctx), MISPC_ERR_CUDA, "%s failed: %s", #call,                           \
                          ncclGetErrorString(mispc_nr_));                                          \
  } while (0)
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
  ncclUniqueId id;
  memset(&id, 0, sizeof id);
  int P = 0;
  MPI_Comm_size(comm, &P);
  s = MISPC_SUCCESS;
  if (rank == 0) {
    ncclResult_t r = ncclGetUniqueId(&id);
    if (r != ncclSuccess)
      s = mispc_seterr(ctx, MISPC_ERR_CUDA, "ncclGetUniqueId failed: %s", ncclGetErrorString(r));
  }
  s = mispc_dist_agree(ctx, comm, s);
  if (s) return s;
  MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, comm);
  ncclComm_t c = NULL;
  ncclResult_t r = ncclCommInitRank(&c, P, id, rank);
  if (r != ncclSuccess)
    s = mispc_seterr(ctx, MISPC_ERR_CUDA, "ncclCommInitRank failed: %s", ncclGetErrorString(r));
  s = mispc_dist_agree(ctx, comm, s);
  if (s) {
    if (c) ncclCommDestroy(c);
    return s;
  }
  h->nccl = c;
  h->transport = MISPC_TRANSPORT_NCCL;
#endif
  return MISPC_SUCCESS;
}

extern "C" mispc_status mispc_halo_nccl_exchange(mispc_context *ctx, mispc_halo *h, void *ghost,
                                                 size_t size, void *stream) {
#if MISPC_HAVE_NCCL
  ncclComm_t c = (ncclComm_t)h->nccl;
  cudaStream_t st = (cudaStream_t)stream;
  MISPC_NCCL_TRY(ctx, ncclGroupStart());
  for (int k = 0; k < h->ndst; ++k)
    MISPC_NCCL_TRY(ctx, ncclSend((const char *)h->d_sbuf + h->sdispl[k] * (int64_t)size,
                                 (size_t)h->scount[k] * size, ncclUint8, h->dst[k], c, st));
  for (int k = 0; k < h->nsrc; ++k)
    MISPC_NCCL_TRY(ctx, ncclRecv((char *)ghost + h->rdispl[k] * (int64_t)size,
                                 (size_t)h->rcount[k] * size, ncclUint8, h->src[k], c, st));
  MISPC_NCCL_TRY(ctx, ncclGroupEnd());
  return MISPC_SUCCESS;
#else
  (void)h, (void)ghost, (void)size, (void)stream;
  return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "NCCL transport: mispc was built without NCCL");
#endif
}

extern "C" mispc_status mispc_halo_nccl_exchange_counts(mispc_context *ctx, mispc_halo *h,
                                                        const double *sbuf, const int64_t *soff,
                                                        double *rbuf, const int64_t *roff,
                                                        void *stream) {
#if MISPC_HAVE_NCCL
  ncclComm_t c = (ncclComm_t)h->nccl;
  cudaStream_t st = (cudaStream_t)stream;
  MISPC_NCCL_TRY(ctx, ncclGroupStart());
  for (int k = 0; k < h->ndst; ++k)
    if (soff[k + 1] > soff[k])
      MISPC_NCCL_TRY(ctx, ncclSend(sbuf + (soff[k] - soff[0]), (size_t)(soff[k + 1] - soff[k]),
                                   ncclDouble, h->dst[k], c, st));
  for (int k = 0; k < h->nsrc; ++k)
    if (roff[k + 1] > roff[k])
      MISPC_NCCL_TRY(ctx, ncclRecv(rbuf + (roff[k] - roff[0]), (size_t)(roff[k + 1] - roff[k]),
                                   ncclDouble, h->src[k], c, st));
  MISPC_NCCL_TRY(ctx, ncclGroupEnd());
  return MISPC_SUCCESS;
#else
  (void)h, (void)sbuf, (void)soff, (void)rbuf, (void)roff, (void)stream;
  return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "NCCL transport: mispc was built without NCCL");
#endif
}

extern "C" void mispc_halo_nccl_free(mispc_halo *h) {
#if MISPC_HAVE_NCCL
  if (h->nccl) ncclCommDestroy((ncclComm_t)h->nccl);
#endif
  h->nccl = NULL;
}
