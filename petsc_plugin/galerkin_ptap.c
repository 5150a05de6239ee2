/* PETSc Mats from mispc CSR matrices, and mispc's Galerkin product as the
 * PtAP of the prolongators that the GAMG type "mispc" builds.
 *
 * GAMG forms each coarse operator with MatPtAP(A, P) in its own level
 * creation, which a GAMG type cannot replace. MatProduct picks the
 * implementation (matproduct.c, MatProductSetFromOptions_Private): when the
 * setfromoptions ops of A and P are the same it calls that op; else it asks A,
 * then P, for the composed "MatProductSetFromOptions_<typeA>_<typeP>_C", which
 * every seqaij / seqaijcusparse matrix composes on itself. So the marked P
 * gets its own op (the two then differ) and A, just before GAMG's PtAP, gets
 * our function under that composed name (MispcUseGalerkinPtAP), the
 * original kept beside it: PtAP of A and a marked P of one sequential AIJ
 * type (host or cusparse) runs mispc_galerkin_product on PETSc's arrays in
 * place (deterministic; memory of P^T, AP and Ac, where cuSPARSE's SpGEMM ran
 * out of an H100's 80 GB on Elasticity3D_60) and gives A its original back;
 * every other product goes to the saved original. MPI AIJ types (host or
 * cusparse) take the same route to mispc_dist_galerkin_product on the host
 * copies of A's blocks and P's rows (dist_products.c), the one-rank bits for
 * any rank count; a routed mpiaijcusparse A composes no hook of its own, so
 * its other products go to its type's op. A submatrix of a marked P is
 * marked (GAMG's reduction of a level to fewer processes). With -info each
 * coarse operator's checksum (MispcMatChecksum) is printed. */
#include <petsc/private/matimpl.h>

#include "plugin_internal.h"

/* ------------------------------------------------- shared product context */
MISPC_CONTAINER_DESTROY(context_destroy, mispc_context_destroy)

PetscErrorCode MispcProductContextCreate(PetscObject obj, PetscBool gpu, PetscContainer *c) {
  mispc_context *ctx;
  PetscFunctionBegin;
  PetscCall(MispcContextCreate(obj, gpu, &ctx));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, c));
  PetscCall(PetscContainerSetPointer(*c, ctx));
  PetscCall(MispcContainerOnDestroy(*c, context_destroy));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const char product_ctx_name[] = "MispcProductContext";

/* ------------------------------------------------------------ Mat from CSR */
#if defined(PETSC_HAVE_CUDA)
/* Pinned host blocks for the arrays (values | i | j) of Mats made from device
 * CSR: the pattern comes down straight into the Mat's arrays and GetIJ's
 * upload reads pinned memory. On the H100 machine, fresh pageable memory is
 * the cost (a copy into it ran at about 0.5 GB/s: 0.165 s for the 80 MB
 * pattern of Laplace3D_150's prolongator; zeroing it took most of the rest),
 * so a block goes back to this cache when its Mat is destroyed and the next
 * setup reuses it. Idle blocks beyond -mispc_pinned_cache_mb (default 2048)
 * are freed; all at PetscFinalize. A negative value, a failed allocation or
 * more than MAX_PINNED live blocks give a Mat pageable memory. */
#define MAX_PINNED 128
typedef struct {
  void *p;
  size_t bytes;
  PetscBool busy;
} PinnedBlock;
static PinnedBlock pinned[MAX_PINNED];
static int npinned;
static size_t pinned_idle_cap;
static PetscBool pinned_ready, pinned_off;

static PetscErrorCode pinned_finalize(void) {
  PetscFunctionBegin;
  for (int k = 0; k < npinned; ++k) (void)cudaFreeHost(pinned[k].p);
  npinned = 0;
  pinned_ready = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void pinned_remove(int k) {
  (void)cudaFreeHost(pinned[k].p);
  pinned[k] = pinned[--npinned];
}

/* frees idle blocks, largest first, until the idle ones fit under the cap */
static void pinned_trim(size_t cap) {
  for (;;) {
    size_t idle = 0;
    int big = -1;
    for (int k = 0; k < npinned; ++k)
      if (!pinned[k].busy) {
        idle += pinned[k].bytes;
        if (big < 0 || pinned[k].bytes > pinned[big].bytes) big = k;
      }
    if (idle <= cap || big < 0) return;
    pinned_remove(big);
  }
}

/* a pinned block of at least `bytes` (an idle one of at most twice that, or a
 * new one), or NULL where none can be had */
static PetscErrorCode pinned_get(size_t bytes, void **p) {
  PetscFunctionBegin;
  *p = NULL;
  if (!pinned_ready) {
    PetscInt mb = 2048;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-mispc_pinned_cache_mb", &mb, NULL));
    pinned_idle_cap = (size_t)PetscMax(mb, 0) << 20;
    pinned_off = (PetscBool)(mb < 0);
    PetscCall(PetscRegisterFinalize(pinned_finalize));
    pinned_ready = PETSC_TRUE;
  }
  if (pinned_off) PetscFunctionReturn(PETSC_SUCCESS);
  int best = -1;
  for (int k = 0; k < npinned; ++k)
    if (!pinned[k].busy && pinned[k].bytes >= bytes && pinned[k].bytes / 2 <= bytes &&
        (best < 0 || pinned[k].bytes < pinned[best].bytes))
      best = k;
  if (best < 0) {
    if (npinned == MAX_PINNED) pinned_trim(0);
    if (npinned == MAX_PINNED) PetscFunctionReturn(PETSC_SUCCESS);
    void *q = NULL;
    if (cudaMallocHost(&q, bytes) != cudaSuccess) {
      (void)cudaGetLastError(); /* not sticky: pageable memory instead */
      PetscCall(PetscInfo(NULL, "mispc: cannot pin %zu bytes; pageable memory instead\n", bytes));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    best = npinned++;
    pinned[best].p = q;
    pinned[best].bytes = bytes;
  }
  pinned[best].busy = PETSC_TRUE;
  *p = pinned[best].p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void pinned_put(void *p) {
  for (int k = 0; k < npinned; ++k)
    if (pinned[k].p == p) {
      pinned[k].busy = PETSC_FALSE;
      pinned_trim(pinned_idle_cap);
      return;
    }
}

MISPC_CONTAINER_DESTROY(pinned_container_destroy, pinned_put)

/* ii (PetscInt) and jj from the device CSR X; `scratch` (8 nnz bytes, the
 * Mat's value array, written later) holds the 64-bit offsets on the way */
static mispc_status pattern_to_host(mispc_context *ctx, const mispc_csr *X, PetscInt *ii,
                                    PetscInt *jj, void *scratch) {
  const int64_t m = X->nrows, nnz = X->nnz;
  int64_t *rp = (int64_t *)scratch, *own = NULL;
  if (nnz < m + 1) { /* more rows than entries: the value array is too short */
    own = (int64_t *)malloc(sizeof(int64_t) * (size_t)(m + 1));
    if (!own) return MISPC_ERR_ALLOC;
    rp = own;
  }
  mispc_status s =
      mispc_memcpy(ctx, rp, MISPC_MEM_HOST, X->rowptr, X->mem, sizeof(int64_t) * (size_t)(m + 1));
  if (!s)
    for (int64_t r = 0; r <= m; ++r) ii[r] = (PetscInt)rp[r];
  free(own);
  if (s || !nnz) return s;
  if (sizeof(PetscInt) == sizeof(int32_t)) /* straight into the Mat's array */
    return mispc_memcpy(ctx, jj, MISPC_MEM_HOST, X->colidx, X->mem, sizeof(int32_t) * (size_t)nnz);
  int32_t *c32 = (int32_t *)scratch;
  s = mispc_memcpy(ctx, c32, MISPC_MEM_HOST, X->colidx, X->mem, sizeof(int32_t) * (size_t)nnz);
  if (!s)
    for (int64_t k = nnz - 1; k >= 0; --k) jj[k] = (PetscInt)c32[k];
  return s;
}
#endif

/* New values (same pattern) from X into M, on the side where they live. */
static PetscErrorCode set_values(mispc_context *ctx, Mat M, const mispc_csr *X) {
  PetscScalar *v;
  mispc_status s;
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscBool dev_mat = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)M, MATSEQAIJCUSPARSE, &dev_mat));
  if (dev_mat) {
    PetscCall(MatSeqAIJCUSPARSEGetArrayWrite(M, &v));
    s = mispc_memcpy(ctx, v, MISPC_MEM_DEVICE, X->values, X->mem, sizeof(double) * (size_t)X->nnz);
    PetscCall(MatSeqAIJCUSPARSERestoreArrayWrite(M, &v));
    MispcCall(ctx, s);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  PetscCall(MatSeqAIJGetArrayWrite(M, &v));
  s = mispc_memcpy(ctx, v, MISPC_MEM_HOST, X->values, X->mem, sizeof(double) * (size_t)X->nnz);
  PetscCall(MatSeqAIJRestoreArrayWrite(M, &v));
  MispcCall(ctx, s);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode mat_from_csr(mispc_context *ctx, MPI_Comm comm, const mispc_csr *X,
                                   MatType type, PetscInt rbs, PetscInt cbs, Mat *M) {
  const int64_t m = X->nrows, nnz = X->nnz;
  char *buf = NULL;
  PetscBool pinned_buf = PETSC_FALSE;
  PetscContainer c;
  PetscLogDouble t0, t1, t2, t3;
  PetscFunctionBegin;
  *M = NULL;
  PetscCheck(nnz <= INT32_MAX && m < INT32_MAX && X->ncols <= INT32_MAX, PETSC_COMM_SELF,
             PETSC_ERR_SUP, "mispc: a %lld x %lld matrix of %lld entries does not fit PetscInt",
             (long long)m, (long long)X->ncols, (long long)nnz);
  PetscCheck(X->values || nnz == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "mispc: a Mat needs values");
#if !defined(PETSC_HAVE_CUDA)
  PetscCheck(X->mem != MISPC_MEM_DEVICE, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "mispc: device matrix, but PETSc was built without CUDA");
#else
  PetscBool dev_values;
  PetscCall(PetscStrcmp(type, MATSEQAIJCUSPARSE, &dev_values));
  dev_values = (PetscBool)(dev_values && X->mem == MISPC_MEM_DEVICE);
#endif
  PetscCall(PetscTime(&t0));
  /* one buffer, values first (alignment): a | i | j. A cusparse Mat gets its
   * values on the device below; the host's are left as they are (GetIJ
   * uploads them, the device copy overwrites them) */
  const size_t bytes = sizeof(double) * (size_t)nnz + sizeof(PetscInt) * (size_t)(m + 1 + nnz) + 16;
#if defined(PETSC_HAVE_CUDA)
  if (X->mem == MISPC_MEM_DEVICE) {
    PetscCall(pinned_get(bytes, (void **)&buf));
    pinned_buf = (PetscBool)(buf != NULL);
  }
#endif
  if (!buf) PetscCall(PetscMalloc(bytes, &buf));
  double *a = (double *)buf;
  PetscInt *ii = (PetscInt *)(a + nnz), *jj = ii + m + 1;
  mispc_status s = MISPC_SUCCESS;
#if defined(PETSC_HAVE_CUDA)
  if (X->mem == MISPC_MEM_DEVICE) {
    /* PETSc's AIJ keeps the pattern on the host (and uploads it again for
     * its device copy): logged like PETSc's own copies */
    s = pattern_to_host(ctx, X, ii, jj, a);
    if (!s) PetscCall(PetscLogGpuToCpu((PetscLogDouble)(8 * (m + 1) + 4 * nnz)));
    if (!s && nnz && !dev_values) {
      s = mispc_memcpy(ctx, a, MISPC_MEM_HOST, X->values, X->mem, sizeof(double) * (size_t)nnz);
      if (!s) PetscCall(PetscLogGpuToCpu((PetscLogDouble)(8 * nnz)));
    }
  } else
#endif
  {
    for (int64_t r = 0; r <= m; ++r) ii[r] = (PetscInt)X->rowptr[r];
    for (int64_t k = 0; k < nnz; ++k) jj[k] = (PetscInt)X->colidx[k];
    if (nnz) PetscCall(PetscArraycpy(a, X->values, nnz));
  }
  if (s) {
#if defined(PETSC_HAVE_CUDA)
    if (pinned_buf) pinned_put(buf);
#endif
    if (!pinned_buf) PetscCall(PetscFree(buf));
  }
  MispcCall(ctx, s);
  PetscCall(PetscTime(&t1));
  /* the Mat reads the buffer in place; a container composed on it frees it
   * (or gives the pinned block back) */
  PetscCall(MatCreateSeqAIJWithArrays(comm, (PetscInt)m, (PetscInt)X->ncols, ii, jj, a, M));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, buf));
#if defined(PETSC_HAVE_CUDA)
  if (pinned_buf)
    PetscCall(MispcContainerOnDestroy(c, pinned_container_destroy));
  else
#endif
    PetscCall(MispcContainerFreeOnDestroy(c));
  PetscCall(PetscObjectCompose((PetscObject)*M, "MispcCSRArrays", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscCall(MatSetBlockSizes(*M, rbs, cbs));
  PetscBool same;
  PetscCall(PetscObjectTypeCompare((PetscObject)*M, type, &same));
  if (!same) PetscCall(MatConvert(*M, type, MAT_INPLACE_MATRIX, M));
  PetscCall(PetscTime(&t2));
#if defined(PETSC_HAVE_CUDA)
  if (dev_values) { /* the pattern goes up (GetIJ), the values are copied on the device */
    const int *di, *dj;
    PetscCall(MatSeqAIJCUSPARSEGetIJ(*M, PETSC_FALSE, &di, &dj));
    PetscCall(MatSeqAIJCUSPARSERestoreIJ(*M, PETSC_FALSE, &di, &dj));
    PetscCall(set_values(ctx, *M, X));
  }
#endif
  PetscCall(PetscTime(&t3));
  PetscCall(PetscInfo(*M,
                      "mispc: %lld x %lld Mat of %lld entries from %s CSR (%s host arrays): copy "
                      "%.4f s, create %.4f s, device values %.4f s\n",
                      (long long)m, (long long)X->ncols, (long long)nnz,
                      X->mem == MISPC_MEM_DEVICE ? "device" : "host",
                      pinned_buf ? "pinned" : "pageable", t1 - t0, t2 - t1, t3 - t2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcMatCreateFromCSR(mispc_context *ctx, MPI_Comm comm, const mispc_csr *X,
                                     MatType type, PetscInt rbs, PetscInt cbs, Mat *M) {
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MISPC_EventMatFromCSR, 0, 0, 0, 0));
  PetscCall(mat_from_csr(ctx, comm, X, type, rbs, cbs, M));
  PetscCall(PetscLogEventEnd(MISPC_EventMatFromCSR, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ----------------------------------------------------------------- PtAP */
typedef struct {
  mispc_context *ctx;  /* the shared one of ctxc, or (own) one of its own */
  PetscContainer ctxc; /* a reference to the marked P's product context */
  PetscBool gpu;
  mispc_csr Ac;    /* from the symbolic phase, until the first numeric phase */
  PetscBool fresh; /* Ac holds the current values */
  int64_t nnz;
#if MISPC_ENABLE_MPI
  PetscBool dist;     /* MPI types: mispc_dist_galerkin_product on the host */
  mispc_dist_csr dAc; /* its Ac (have_dAc), as Ac above */
  PetscBool have_dAc;
#endif
} PtAPData;

/* Mat_Product's destroy gets the data (3.18) or its address (PetscCtxDestroyFn, 3.23 on) */
static PetscErrorCode ptap_data_destroy(void *p) {
#if PETSC_VERSION_GE(3, 23, 0)
  PtAPData *d = *(PtAPData **)p;
  *(void **)p = NULL;
#else
  PtAPData *d = (PtAPData *)p;
#endif
  PetscFunctionBegin;
  if (d) {
    mispc_csr_free(d->ctx, &d->Ac);
#if MISPC_ENABLE_MPI
    if (d->have_dAc) mispc_dist_csr_free(d->ctx, &d->dAc);
#endif
    if (d->ctxc)
      PetscCall(PetscContainerDestroy(&d->ctxc));
    else
      mispc_context_destroy(d->ctx);
  }
  PetscCall(PetscFree(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if MISPC_ENABLE_MPI
/* Several ranks: Ac = P^T A P by mispc_dist_galerkin_product on the host
 * copies of A's blocks and P's rows (the same bits for any rank count). */
static PetscErrorCode galerkin_dist(Mat C, PtAPData *d) {
  Mat A = C->product->A, P = C->product->B;
  MispcDistMat w;
  mispc_dist_prolongator dp;
  PetscFunctionBegin;
  if (d->have_dAc) mispc_dist_csr_free(d->ctx, &d->dAc);
  d->have_dAc = PETSC_FALSE;
  PetscCall(MispcDistMatBegin(d->ctx, A, &w));
  PetscErrorCode ierr = MispcDistProlongatorFromMat(P, &dp);
  mispc_status s = MISPC_SUCCESS;
  if (!ierr) {
    ierr = PetscLogEventBegin(MISPC_EventProduct, A, P, 0, 0);
    s = mispc_dist_galerkin_product(d->ctx, &w.D, &dp, &d->dAc);
    d->have_dAc = (PetscBool)(s == MISPC_SUCCESS);
    if (!ierr) ierr = PetscLogEventEnd(MISPC_EventProduct, A, P, 0, 0);
    mispc_dist_prolongator_free(&dp);
  }
  PetscCall(MispcDistMatEnd(d->ctx, &w));
  PetscCall(ierr);
  MispcCall(d->ctx, s);
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* Ac = P^T A P from the product's A and P, read in place. */
static PetscErrorCode galerkin(Mat C, PtAPData *d) {
  Mat A = C->product->A, P = C->product->B;
  MispcLocalCSR LA = {0}, LP = {0};
  PetscFunctionBegin;
#if MISPC_ENABLE_MPI
  if (d->dist) {
    PetscCall(galerkin_dist(C, d));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (d->gpu) PetscCall(MispcContextUsePetscStream(d->ctx));
  PetscCall(MispcBlockCSRBegin(d->ctx, A, d->gpu, PETSC_TRUE, PETSC_TRUE, &LA));
  PetscCall(MispcBlockCSRBegin(d->ctx, P, d->gpu, PETSC_TRUE, PETSC_TRUE, &LP));
  PetscCall(PetscLogEventBegin(MISPC_EventProduct, A, P, 0, 0));
  mispc_status s = mispc_galerkin_product(d->ctx, &LA.csr, &LP.csr, &d->Ac);
  PetscCall(PetscLogEventEnd(MISPC_EventProduct, A, P, 0, 0));
  PetscCall(MispcLocalCSREnd(&LA));
  PetscCall(MispcLocalCSREnd(&LP));
  PetscCall(MispcLocalCSRDestroy(d->ctx, &LA));
  PetscCall(MispcLocalCSRDestroy(d->ctx, &LP));
  MispcCall(d->ctx, s);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ptap_numeric(Mat C) {
  PtAPData *d = (PtAPData *)C->product->data;
  PetscFunctionBegin;
  PetscCheck(d, PETSC_COMM_SELF, PETSC_ERR_PLIB, "mispc PtAP: no symbolic phase");
#if MISPC_ENABLE_MPI
  if (d->dist) {
    if (!d->fresh) {
      PetscCall(galerkin(C, d));
      PetscCall(MispcMatSetDistValues(C, &d->dAc, (PetscCount)d->nnz));
    }
    if (d->have_dAc) mispc_dist_csr_free(d->ctx, &d->dAc);
    d->have_dAc = PETSC_FALSE;
    d->fresh = PETSC_FALSE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#endif
  if (!d->fresh) { /* MAT_REUSE_MATRIX: the same pattern, new values */
    PetscCall(galerkin(C, d));
    PetscCheck(d->Ac.nnz == d->nnz, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
               "mispc PtAP: the product's pattern changed (%lld entries, was %lld); "
               "use MAT_INITIAL_MATRIX",
               (long long)d->Ac.nnz, (long long)d->nnz);
    PetscCall(set_values(d->ctx, C, &d->Ac));
  }
  mispc_csr_free(d->ctx, &d->Ac); /* C holds the values; keep no copy */
  d->fresh = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ptap_symbolic(Mat C) {
  Mat_Product *pr = C->product;
  Mat A = pr->A, P = pr->B;
  PtAPData *d;
  PetscInt nc;
  PetscFunctionBegin;
  PetscCall(PetscNew(&d));
#if defined(PETSC_HAVE_CUDA)
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &d->gpu));
#endif
#if MISPC_ENABLE_MPI
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &d->dist, MATMPIAIJ, MATMPIAIJCUSPARSE, ""));
#endif
  /* the context (and device memory pool) that the marked P shares, so that
   * scratch memory stays with one pool across levels and setups */
  PetscContainer c = NULL;
  PetscErrorCode ierr = PetscObjectQuery((PetscObject)P, product_ctx_name, (PetscObject *)&c);
  if (!ierr && c) {
    ierr = PetscContainerGetPointer(c, (void **)&d->ctx);
    if (!ierr) ierr = PetscObjectReference((PetscObject)c);
    if (!ierr) d->ctxc = c;
  } else if (!ierr) {
    ierr = MispcContextCreate((PetscObject)A, d->gpu, &d->ctx);
  }
  if (!ierr) ierr = galerkin(C, d);
  if (ierr) {
    void *p = d;
#if PETSC_VERSION_GE(3, 23, 0)
    (void)ptap_data_destroy(&p);
#else
    (void)ptap_data_destroy(p);
#endif
    PetscCall(ierr);
  }
  d->fresh = PETSC_TRUE;
  PetscCall(MatGetSize(P, NULL, &nc));
  /* C becomes the Mat made from Ac; its product (this one) is kept */
  Mat M;
#if MISPC_ENABLE_MPI
  if (d->dist) {
    d->nnz = (int64_t)MispcDistCSRNnz(&d->dAc);
    PetscCheck(d->dAc.nglobal == nc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "mispc PtAP: wrong size");
    PetscCall(MispcMatFromDistCSR(&d->dAc, ((PetscObject)A)->type_name, P->cmap->bs, &M));
  } else
#endif
  {
    d->nnz = d->Ac.nnz;
    PetscCheck(d->Ac.nrows == nc, PETSC_COMM_SELF, PETSC_ERR_PLIB, "mispc PtAP: wrong size");
    PetscCall(MispcMatCreateFromCSR(d->ctx, PetscObjectComm((PetscObject)C), &d->Ac,
                                    ((PetscObject)A)->type_name, P->cmap->bs, P->cmap->bs, &M));
  }
  pr->data = d;
  pr->destroy = ptap_data_destroy;
  C->product = NULL;
  PetscErrorCode ierr2 = MatHeaderReplace(C, &M);
  C->product = pr;
  PetscCall(ierr2);
  C->ops->productnumeric = ptap_numeric;
  PetscBool info = PETSC_FALSE;
  PetscCall(PetscInfoEnabled(MAT_CLASSID, &info));
  if (info) { /* the same for any rank count (gamg_type.sh compares them) */
    uint64_t h;
    PetscInt nnz;
    PetscCall(MispcMatChecksum(C, &h, &nnz));
    PetscCall(PetscInfo(C,
                        "mispc: coarse operator %" PetscInt_FMT " x %" PetscInt_FMT
                        ", %" PetscInt_FMT " entries, checksum %016llx\n",
                        nc, nc, nnz, (unsigned long long)h));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The AIJ types whose PtAP mispc runs: sequential ones by
 * mispc_galerkin_product, MPI ones by mispc_dist_galerkin_product. */
#if MISPC_ENABLE_MPI
#define AIJ_MPI_TYPES MATMPIAIJ, MATMPIAIJCUSPARSE,
#else
#define AIJ_MPI_TYPES
#endif

/* An op a marked P or a routed A had before (a container on the Mat, under
 * name): the productsetfromoptions hook, or P's createsubmatrix; kept as a
 * generic function pointer, cast back to its type where called. */
typedef void (*SavedFn)(void);
typedef struct {
  SavedFn orig;
} SavedHook;

static const char mark_name[] = "MispcGalerkinMarkedP", route_name[] = "MispcGalerkinRoutedA",
                  submatrix_name[] = "MispcGalerkinMarkedSubMatrix";

static PetscErrorCode saved_fn(Mat M, const char *name, PetscBool *has, SavedFn *orig) {
  PetscContainer c = NULL;
  PetscFunctionBegin;
  *orig = NULL;
  PetscCall(PetscObjectQuery((PetscObject)M, name, (PetscObject *)&c));
  *has = c ? PETSC_TRUE : PETSC_FALSE;
  if (c) {
    SavedHook *h;
    PetscCall(PetscContainerGetPointer(c, (void **)&h));
    *orig = h->orig;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode save_fn(Mat M, const char *name, SavedFn orig) {
  PetscContainer c;
  SavedHook *h;
  PetscFunctionBegin;
  PetscCall(PetscNew(&h));
  h->orig = orig;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, h));
  PetscCall(MispcContainerFreeOnDestroy(c));
  PetscCall(PetscObjectCompose((PetscObject)M, name, (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the productsetfromoptions hooks */
static PetscErrorCode saved_hook(Mat M, const char *name, PetscBool *has,
                                 PetscErrorCode (**orig)(Mat)) {
  SavedFn f;
  PetscFunctionBegin;
  PetscCall(saved_fn(M, name, has, &f));
  *orig = (PetscErrorCode(*)(Mat))f;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode save_hook(Mat M, const char *name, PetscErrorCode (*orig)(Mat)) {
  PetscFunctionBegin;
  PetscCall(save_fn(M, name, (SavedFn)orig));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode self_name(Mat M, char *name, size_t len) {
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, len, "MatProductSetFromOptions_%s_%s_C",
                          ((PetscObject)M)->type_name, ((PetscObject)M)->type_name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's own composed hook back (nothing when A was not routed). */
static PetscErrorCode unroute(Mat A) {
  PetscBool has;
  PetscErrorCode (*orig)(Mat);
  char name[256];
  PetscFunctionBegin;
  PetscCall(saved_hook(A, route_name, &has, &orig));
  if (!has) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(self_name(A, name, sizeof name));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, orig));
  PetscCall(PetscObjectCompose((PetscObject)A, route_name, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode product_setfromoptions(Mat C) {
  Mat_Product *pr = C->product;
  Mat A = pr->A, B = pr->B;
  PetscErrorCode (*orig_a)(Mat), (*orig_b)(Mat), (*orig_p)(Mat);
  PetscBool routed, marked, a_marked, same = PETSC_FALSE, aij = PETSC_FALSE;
  PetscFunctionBegin;
  PetscCall(saved_hook(A, route_name, &routed, &orig_a));
  PetscCall(saved_hook(B, mark_name, &marked, &orig_b));
  PetscCall(saved_hook(A, mark_name, &a_marked, &orig_p));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, ((PetscObject)B)->type_name, &same));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)B, &aij, MATSEQAIJ, MATSEQAIJCUSPARSE,
                                      AIJ_MPI_TYPES ""));
  if (pr->type == MATPRODUCT_PtAP && marked && same && aij) {
    /* (matproduct.c may call a composed hook twice) */
    if (C->ops->productsymbolic != ptap_symbolic) {
      PetscBool mpi = PETSC_FALSE;
      PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &mpi, MATMPIAIJ, MATMPIAIJCUSPARSE, ""));
      PetscCall(PetscInfo(C, "mispc: PtAP by %s (%s)\n",
                          mpi ? "mispc_dist_galerkin_product" : "mispc_galerkin_product",
                          ((PetscObject)A)->type_name));
    }
    PetscCall(unroute(A));
    C->ops->productsymbolic = ptap_symbolic;
  } else {
    PetscErrorCode (*orig)(Mat) = routed ? orig_a : marked ? orig_b : orig_p;
    /* a routed A whose type composes no hook of its own (mpiaijcusparse):
     * the type's op, which MatProduct would have called */
    if (!orig && routed) orig = a_marked ? orig_p : A->ops->productsetfromoptions;
    if (orig) PetscCall((*orig)(C));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef PetscErrorCode (*SubMatrixFn)(Mat, IS, IS, MatReuse, Mat *);

static PetscErrorCode mark(Mat P, PetscContainer ctxc);

/* A submatrix of a marked P is marked too: when GAMG reduces a level to fewer
 * processes without repartitioning, PETSc 3.26 takes the PtAP with
 * Pnew = MatCreateSubMatrix(P, rows, new columns), not P (gamg.c,
 * PCGAMGCreateLevel_GAMG; 3.18 multiplies with P first and moves the
 * product); without the mark that coarse operator was PETSc's product and
 * differed with the rank count. */
static PetscErrorCode marked_createsubmatrix(Mat P, IS rows, IS cols, MatReuse reuse, Mat *S) {
  PetscContainer ctxc = NULL;
  PetscBool has;
  SavedFn f;
  PetscFunctionBegin;
  PetscCall(saved_fn(P, submatrix_name, &has, &f));
  PetscCheck(has && f, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "mispc: a marked P lost its createsubmatrix");
  PetscCall((*(SubMatrixFn)f)(P, rows, cols, reuse, S));
  PetscCall(PetscObjectQuery((PetscObject)P, product_ctx_name, (PetscObject *)&ctxc));
  PetscCall(mark(*S, ctxc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode mark(Mat P, PetscContainer ctxc) {
  PetscBool aij = PETSC_FALSE, has = PETSC_FALSE;
  PetscErrorCode (*orig)(Mat);
  PetscFunctionBegin;
  if (ctxc) PetscCall(PetscObjectCompose((PetscObject)P, product_ctx_name, (PetscObject)ctxc));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)P, &aij, MATSEQAIJ, MATSEQAIJCUSPARSE,
                                      AIJ_MPI_TYPES ""));
  PetscCall(saved_hook(P, mark_name, &has, &orig));
  if (!aij || has || !P->ops->productsetfromoptions) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(save_hook(P, mark_name, P->ops->productsetfromoptions));
  P->ops->productsetfromoptions = product_setfromoptions;
  if (P->ops->createsubmatrix) {
    PetscCall(save_fn(P, submatrix_name, (SavedFn)P->ops->createsubmatrix));
    P->ops->createsubmatrix = marked_createsubmatrix;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode route(Mat A) {
  PetscBool aij = PETSC_FALSE, has = PETSC_FALSE;
  PetscErrorCode (*orig)(Mat);
  char name[256];
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &aij, MATSEQAIJ, MATSEQAIJCUSPARSE,
                                      AIJ_MPI_TYPES ""));
  PetscCall(saved_hook(A, route_name, &has, &orig));
  if (!aij || has) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(self_name(A, name, sizeof name));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, name, &orig));
  PetscCall(save_hook(A, route_name, orig));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, product_setfromoptions));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcUseGalerkinPtAP(Mat A, Mat P, PetscContainer ctxc) {
  PetscFunctionBegin;
  PetscCall(mark(P, ctxc));
  PetscCall(route(A));
  PetscFunctionReturn(PETSC_SUCCESS);
}
