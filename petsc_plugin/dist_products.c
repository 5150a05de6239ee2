/* PETSc MPIAIJ matrices as mispc's distributed types, for the products that
 * the GAMG type "mispc" runs on several ranks (mispc_dist_smooth_prolongator,
 * mispc_dist_galerkin_product): A's two blocks read in place as a
 * mispc_dist_csr (host arrays; a cusparse matrix's host copies), a
 * prolongator Mat as a mispc_dist_prolongator (rows merged in global column
 * order, the order of the one-process CSR), and a mispc_dist_csr back as a
 * Mat laid out as a prolongator's columns (COO assembly, the values
 * replaceable in the same order). */
#include <stdlib.h>
#include <string.h>

#include "mispc/config.h"
#include "plugin_internal.h"

#if MISPC_ENABLE_MPI

PetscErrorCode MispcMPIAIJLayout(Mat A, Mat *Ad, Mat *Ao, PetscInt *N, PetscInt *rstart,
                                 PetscInt *nghost, int64_t **garray64) {
  const PetscInt *garray;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, Ad, Ao, &garray));
  PetscCall(MatGetSize(A, N, NULL));
  PetscCall(MatGetOwnershipRange(A, rstart, NULL));
  PetscCall(MatGetSize(*Ao, NULL, nghost));
  PetscCall(PetscMalloc1(*nghost + 1, garray64));
  for (PetscInt j = 0; j < *nghost; ++j) (*garray64)[j] = garray[j];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcDistMatBegin(mispc_context *ctx, Mat A, MispcDistMat *w) {
  Mat Ad, Ao;
  PetscInt N, rstart, nghost;
  PetscFunctionBegin;
  PetscCall(PetscMemzero(w, sizeof *w));
  PetscCall(MispcMPIAIJLayout(A, &Ad, &Ao, &N, &rstart, &nghost, &w->garray));
  PetscCall(MispcBlockCSRBegin(ctx, Ad, PETSC_FALSE, PETSC_TRUE, PETSC_TRUE, &w->L));
  PetscCall(MispcBlockCSRBegin(ctx, Ao, PETSC_FALSE, PETSC_TRUE, PETSC_TRUE, &w->Lo));
  mispc_status s = mispc_dist_csr_wrap(ctx, PetscObjectComm((PetscObject)A), N, rstart, &w->L.csr,
                                       &w->Lo.csr, nghost, w->garray, &w->D);
  w->have_D = (PetscBool)(s == MISPC_SUCCESS);
  MispcCall(ctx, s);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcDistMatEnd(mispc_context *ctx, MispcDistMat *w) {
  PetscFunctionBegin;
  if (w->have_D) mispc_dist_csr_free(ctx, &w->D);
  w->have_D = PETSC_FALSE;
  PetscCall(MispcLocalCSREnd(&w->L));
  PetscCall(MispcLocalCSREnd(&w->Lo));
  PetscCall(MispcLocalCSRDestroy(ctx, &w->L));
  PetscCall(MispcLocalCSRDestroy(ctx, &w->Lo));
  PetscCall(PetscFree(w->garray));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcDistProlongatorFromMat(Mat P, mispc_dist_prolongator *dp) {
  MispcHostBlocks b;
  PetscInt rbs, k, c0, c1, N;
  PetscFunctionBegin;
  memset(dp, 0, sizeof *dp);
  PetscCall(MatGetBlockSizes(P, &rbs, &k));
  PetscCall(MatGetOwnershipRangeColumn(P, &c0, &c1));
  PetscCall(MatGetSize(P, NULL, &N));
  PetscCheck(k >= 1 && c0 % k == 0 && c1 % k == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "mispc: the prolongator's columns [%" PetscInt_FMT ", %" PetscInt_FMT
             ") are not whole coarse nodes of %" PetscInt_FMT,
             c0, c1, k);
  PetscCall(MispcHostBlocksGet(P, &b));
  const int64_t nnz = (int64_t)b.ai[b.n] + (b.bi ? (int64_t)b.bi[b.n] : 0);
  dp->rowptr = (int64_t *)malloc(sizeof(int64_t) * (size_t)(b.n + 1));
  dp->gcol = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nnz + 1));
  dp->values = (double *)malloc(sizeof(double) * (size_t)(nnz + 1));
  PetscBool ok = (PetscBool)(dp->rowptr && dp->gcol && dp->values);
  int64_t m = 0;
  if (ok) dp->rowptr[0] = 0;
  for (PetscInt i = 0; ok && i < b.n; ++i) {
    /* off-diagonal columns left of the block, the block, the rest */
    PetscInt q = b.bi ? b.bi[i] : 0, qend = b.bi ? b.bi[i + 1] : 0;
    for (; q < qend && b.garray[b.bj[q]] < c0; ++q)
      dp->gcol[m] = b.garray[b.bj[q]], dp->values[m++] = PetscRealPart(b.ba[q]);
    for (PetscInt e = b.ai[i]; e < b.ai[i + 1]; ++e)
      dp->gcol[m] = c0 + b.aj[e], dp->values[m++] = PetscRealPart(b.aa[e]);
    for (; q < qend; ++q) dp->gcol[m] = b.garray[b.bj[q]], dp->values[m++] = PetscRealPart(b.ba[q]);
    dp->rowptr[i + 1] = m;
  }
  PetscCall(MispcHostBlocksRestore(&b));
  if (!ok) mispc_dist_prolongator_free(dp);
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory");
  dp->nrows = b.n;
  dp->ncols = N;
  dp->cstart = c0 / k;
  dp->cend = c1 / k;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X's entries in COO order: each row's diagonal-block entries, then its
 * off-diagonal ones (the order MispcMatFromDistCSR preallocates). */
static PetscErrorCode coo_values(const mispc_dist_csr *X, PetscScalar *v) {
  PetscFunctionBegin;
  int64_t m = 0;
  for (int64_t i = 0; i < X->rend - X->rstart; ++i) {
    for (int64_t q = X->diag.rowptr[i]; q < X->diag.rowptr[i + 1]; ++q) v[m++] = X->diag.values[q];
    for (int64_t q = X->offd.rowptr[i]; q < X->offd.rowptr[i + 1]; ++q) v[m++] = X->offd.values[q];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscCount MispcDistCSRNnz(const mispc_dist_csr *X) {
  const int64_t n = X->rend - X->rstart;
  return (PetscCount)(X->diag.rowptr[n] + X->offd.rowptr[n]);
}

PetscErrorCode MispcMatFromDistCSR(const mispc_dist_csr *X, MatType type, PetscInt bs, Mat *M) {
  const PetscInt n = (PetscInt)(X->rend - X->rstart);
  const PetscCount nnz = MispcDistCSRNnz(X);
  PetscInt *ci, *cj;
  PetscScalar *v;
  PetscFunctionBegin;
  PetscCall(MatCreate(X->comm, M));
  PetscCall(MatSetSizes(*M, n, n, (PetscInt)X->nglobal, (PetscInt)X->nglobal));
  PetscCall(MatSetBlockSizes(*M, bs, bs));
  PetscCall(MatSetType(*M, type));
  PetscCall(PetscMalloc3(nnz + 1, &ci, nnz + 1, &cj, nnz + 1, &v));
  PetscCount m = 0;
  for (PetscInt i = 0; i < n; ++i) {
    for (int64_t q = X->diag.rowptr[i]; q < X->diag.rowptr[i + 1]; ++q, ++m)
      ci[m] = (PetscInt)X->rstart + i, cj[m] = (PetscInt)(X->rstart + X->diag.colidx[q]);
    for (int64_t q = X->offd.rowptr[i]; q < X->offd.rowptr[i + 1]; ++q, ++m)
      ci[m] = (PetscInt)X->rstart + i, cj[m] = (PetscInt)X->garray[X->offd.colidx[q]];
  }
  PetscCall(MatSetPreallocationCOO(*M, nnz, ci, cj));
  PetscCall(coo_values(X, v));
  PetscCall(MatSetValuesCOO(*M, v, INSERT_VALUES));
  PetscCall(PetscFree3(ci, cj, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcMatSetDistValues(Mat M, const mispc_dist_csr *X, PetscCount nnz) {
  PetscInt bad = MispcDistCSRNnz(X) != nnz, any = 0;
  PetscScalar *v;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&bad, &any, 1, MPIU_INT, MPI_MAX, X->comm));
  PetscCheck(!any, X->comm, PETSC_ERR_ARG_INCOMP,
             "mispc PtAP: the product's pattern changed; use MAT_INITIAL_MATRIX");
  PetscCall(PetscMalloc1(nnz + 1, &v));
  PetscCall(coo_values(X, v));
  PetscCall(MatSetValuesCOO(M, v, INSERT_VALUES));
  PetscCall(PetscFree(v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif
