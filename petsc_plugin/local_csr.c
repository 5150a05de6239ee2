/* The rank-local diagonal block of a PETSc AIJ matrix, read in place. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_internal.h"
#include "tuning.h"

PetscErrorCode MispcLocalBlock(Mat A, Mat *Ad, PetscBool *gpu) {
  PetscBool mpi, seq;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &mpi, MATMPIAIJ, MATMPIAIJCUSPARSE, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &seq, MATSEQAIJ, MATSEQAIJCUSPARSE, ""));
  if (mpi) {
    PetscCall(MatMPIAIJGetSeqAIJ(A, Ad, NULL, NULL));
  } else if (seq) {
    *Ad = A;
  } else {
    MatType t;
    PetscCall(MatGetType(A, &t));
    SETERRQ(PetscObjectComm((PetscObject)A), PETSC_ERR_SUP,
            "mispc needs an AIJ matrix (seqaij, mpiaij, aijcusparse), got %s", t);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)*Ad, MATSEQAIJCUSPARSE, gpu));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcHostBlocksGet(Mat A, MispcHostBlocks *b) {
  PetscBool mpi, done;
  PetscInt nn;
  PetscFunctionBegin;
  PetscCall(PetscMemzero(b, sizeof *b));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)A, &mpi, MATMPIAIJ, MATMPIAIJCUSPARSE, ""));
  if (mpi)
    PetscCall(MatMPIAIJGetSeqAIJ(A, &b->Ad, &b->Ao, &b->garray));
  else
    b->Ad = A;
  PetscCall(MatGetOwnershipRange(A, &b->rstart, NULL));
  PetscCall(MatGetOwnershipRangeColumn(A, &b->cstart, NULL));
  PetscCall(MatGetLocalSize(A, &b->n, NULL));
  PetscCall(MatGetRowIJ(b->Ad, 0, PETSC_FALSE, PETSC_FALSE, &nn, &b->ai, &b->aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "mispc: cannot read the CSR of this matrix");
  PetscCall(MatSeqAIJGetArrayRead(b->Ad, &b->aa));
  if (b->Ao) {
    PetscCall(MatGetRowIJ(b->Ao, 0, PETSC_FALSE, PETSC_FALSE, &nn, &b->bi, &b->bj, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "mispc: cannot read the CSR of this matrix");
    PetscCall(MatSeqAIJGetArrayRead(b->Ao, &b->ba));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcHostBlocksRestore(MispcHostBlocks *b) {
  PetscBool done;
  PetscInt nn;
  PetscFunctionBegin;
  PetscCall(MatSeqAIJRestoreArrayRead(b->Ad, &b->aa));
  PetscCall(MatRestoreRowIJ(b->Ad, 0, PETSC_FALSE, PETSC_FALSE, &nn, &b->ai, &b->aj, &done));
  if (b->Ao) {
    PetscCall(MatSeqAIJRestoreArrayRead(b->Ao, &b->ba));
    PetscCall(MatRestoreRowIJ(b->Ao, 0, PETSC_FALSE, PETSC_FALSE, &nn, &b->bi, &b->bj, &done));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcErrorCode(mispc_status s, const char *message) {
  const char *m = message ? message : "";
  switch (s) {
  case MISPC_SUCCESS:
    return PETSC_SUCCESS;
  case MISPC_ERR_INVALID_ARG: /* mispc_gs_numeric / mispc_dist_gs_numeric: "diagonal entry %s" */
    if (strstr(m, "diagonal entry zero") || strstr(m, "diagonal entry missing") ||
        strstr(m, "exact factor zero")) /* block_solve: a singular cluster block */
      return PETSC_ERR_MAT_LU_ZRPVT;
    if (strstr(m, "diagonal entry not finite") || strstr(m, "overflows")) return PETSC_ERR_FP;
    return PETSC_ERR_ARG_WRONG;
  case MISPC_ERR_ALLOC:
    return PETSC_ERR_MEM;
  case MISPC_ERR_CUDA:
    return PETSC_ERR_GPU;
  case MISPC_ERR_NO_CUDA:
    return PETSC_ERR_SUP_SYS;
  case MISPC_ERR_IO:
    return PETSC_ERR_FILE_READ;
  case MISPC_ERR_FORMAT:
    return PETSC_ERR_FILE_UNEXPECTED;
  case MISPC_ERR_NOT_SQUARE:
    return PETSC_ERR_ARG_SIZ;
  case MISPC_ERR_INDEX_RANGE:
    return PETSC_ERR_ARG_OUTOFRANGE;
  case MISPC_ERR_UNSORTED:
  case MISPC_ERR_DUPLICATE:
  case MISPC_ERR_SELF_LOOP:
  case MISPC_ERR_UNSYMMETRIC:
    return PETSC_ERR_ARG_WRONG;
  case MISPC_ERR_OVERFLOW:
    return PETSC_ERR_INT_OVERFLOW;
  case MISPC_ERR_UNSUPPORTED:
    return PETSC_ERR_SUP;
  case MISPC_ERR_NOT_CONVERGED:
    return PETSC_ERR_NOT_CONVERGED;
  case MISPC_ERR_VERIFY:
    return PETSC_ERR_PLIB;
  default:
    return PETSC_ERR_LIB;
  }
}

static void log_to_petsc_info(void *user, const char *line) {
  (void)PetscInfo((PetscObject)user, "%s\n", line);
}

PetscErrorCode MispcContextCreate(PetscObject obj, PetscBool gpu, mispc_context **ctx) {
  PetscFunctionBegin;
  if (mispc_context_create(ctx) != MISPC_SUCCESS)
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "mispc: cannot create a context");
  MispcCall(*ctx, mispc_context_set_logger(*ctx, log_to_petsc_info, obj));
  /* -mispc_verbosity 2: the library's phase times in -info (synchronising) */
  PetscInt verbosity = 1;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-mispc_verbosity", &verbosity, NULL));
  MispcCall(*ctx, mispc_context_set_verbosity(*ctx, (int)verbosity));
  /* -mispc_tune NAME=VALUE[,NAME=VALUE...]: the library's internal tuning knobs (src/tuning.h;
   * `mispc bench --help` lists them), for experiments */
  {
    char tune[1024];
    PetscBool has = PETSC_FALSE;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-mispc_tune", tune, sizeof tune, &has));
    if (has) {
      mispc_tuning t;
      MispcCall(*ctx, mispc_context_get_tuning_(*ctx, &t));
      for (char *save = NULL, *w = strtok_r(tune, ",", &save); w; w = strtok_r(NULL, ",", &save))
        MispcCall(*ctx, mispc_tuning_parse_(*ctx, &t, w));
      MispcCall(*ctx, mispc_context_set_tuning_(*ctx, &t));
    }
  }
  /* Host threads: -mispc_num_threads N, else OMP_NUM_THREADS, else 1 per rank
   * when several ranks share the machine (PETSc runs one process per core),
   * else all cores. */
  PetscInt nt = 0;
  PetscBool set = PETSC_FALSE;
  PetscMPIInt size;
  const char *pre = NULL;
  char name[256] = "-mispc_num_threads";
  PetscOptions options;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm(obj), &size));
  PetscCall(PetscObjectGetOptions(obj, &options));
  PetscCall(PetscObjectGetOptionsPrefix(obj, &pre));
  if (pre && pre[0]) {
    PetscCall(PetscOptionsGetInt(options, pre, "-mispc_num_threads", &nt, &set));
    if (set) PetscCall(PetscSNPrintf(name, sizeof name, "-%smispc_num_threads", pre));
  }
  if (!set) PetscCall(PetscOptionsGetInt(options, NULL, "-mispc_num_threads", &nt, &set));
  if (!set && size > 1) { /* one thread a rank unless OpenMP is told otherwise */
    char env[16];
    PetscBool omp = PETSC_FALSE;
    PetscCall(PetscOptionsGetenv(PetscObjectComm(obj), "OMP_NUM_THREADS", env, sizeof env, &omp));
    if (!omp) nt = 1;
  }
  /* 0 keeps OpenMP's default; the library refuses counts beyond its cap. */
  mispc_status st =
      nt < 0 || nt > INT_MAX ? MISPC_ERR_INVALID_ARG : mispc_context_set_num_threads(*ctx, (int)nt);
  if (st != MISPC_SUCCESS) {
    mispc_context_destroy(*ctx);
    *ctx = NULL;
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
            "%s must be 0 (OpenMP's default) to %d, got %" PetscInt_FMT, name, MISPC_MAX_THREADS,
            nt);
  }
  if (gpu) PetscCall(MispcContextUsePetscStream(*ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcContextUsePetscStream(mispc_context *ctx) {
  PetscFunctionBegin;
#if defined(PETSC_HAVE_CUDA)
  PetscDeviceContext dctx;
  void *handle = NULL, *stream = NULL;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextGetStreamHandle(dctx, &handle));
  /* handle points at the cudaStream_t (itself a pointer). PETSc's default
   * context runs on the legacy default stream, a NULL cudaStream_t, and
   * mispc_context_set_stream(NULL) would mean "a stream of mispc's own",
   * unordered with PETSc's work: name the legacy stream explicitly. */
  if (handle) stream = *(void **)handle;
  MispcCall(ctx, mispc_context_set_stream(ctx, stream ? stream : (void *)cudaStreamLegacy));
#else
  (void)ctx;
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "GPU matrix, but PETSc was built without CUDA");
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcLocalCSRBegin(mispc_context *ctx, Mat A, PetscBool with_values, PetscBool widen,
                                  MispcLocalCSR *L) {
  Mat Ad;
  PetscBool gpu;
  PetscInt n, m;
  PetscFunctionBegin;
  PetscCall(MispcLocalBlock(A, &Ad, &gpu));
  PetscCall(MatGetSize(Ad, &n, &m));
  PetscCheck(n == m, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "mispc needs a square matrix (its local diagonal block is %" PetscInt_FMT
             " x %" PetscInt_FMT ")",
             n, m);
  PetscCall(MispcBlockCSRBegin(ctx, Ad, gpu, with_values, widen, L));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcBlockCSRBegin(mispc_context *ctx, Mat B, PetscBool gpu, PetscBool with_values,
                                  PetscBool widen, MispcLocalCSR *L) {
  PetscInt n, m;
  const int32_t *ia32 = NULL;
  int32_t *ja32 = NULL;
  double *vals = NULL;
  PetscFunctionBegin;
  L->Ad = B;
  L->gpu = gpu;
  PetscCall(MatGetSize(L->Ad, &n, &m));
  const mispc_memspace mem = L->gpu ? MISPC_MEM_DEVICE : MISPC_MEM_HOST;
  L->with_values = with_values;
  if (L->gpu) {
#if defined(PETSC_HAVE_CUDA)
    const int *i = NULL, *j = NULL;
    /* full (not compressed) row offsets, device pointers */
    PetscCall(MatSeqAIJCUSPARSEGetIJ(L->Ad, PETSC_FALSE, (void *)&i, (void *)&j));
    ia32 = (const int32_t *)i;
    ja32 = (int32_t *)j;
    if (with_values) PetscCall(MatSeqAIJCUSPARSEGetArrayRead(L->Ad, &L->a));
#endif
  } else {
    PetscBool done;
    PetscInt nn;
    PetscCall(MatGetRowIJ(L->Ad, 0, PETSC_FALSE, PETSC_FALSE, &nn, &L->ia, &L->ja, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "mispc: cannot read the CSR of this matrix");
    ia32 = (const int32_t *)L->ia;
    ja32 = (int32_t *)L->ja;
    if (with_values) PetscCall(MatSeqAIJGetArrayRead(L->Ad, &L->a));
  }
  vals = with_values ? (double *)L->a : NULL;
  int64_t nnz = 0;
  if (widen || !L->rowptr64 || L->nrows != n) {
    if (L->rowptr64) mispc_free(ctx, L->mem, L->rowptr64);
    L->rowptr64 = NULL;
    L->mem = mem;
    MispcCall(ctx,
              mispc_malloc(ctx, mem, sizeof(int64_t) * (size_t)(n + 1), (void **)&L->rowptr64));
    MispcCall(ctx, mispc_widen_int32(ctx, mem, n + 1, ia32, L->rowptr64));
    MispcCall(ctx, mispc_memcpy(ctx, &nnz, MISPC_MEM_HOST, L->rowptr64 + n, mem, sizeof nnz));
    L->nrows = n;
    L->nnz = (PetscInt)nnz;
  }
  nnz = L->nnz;
  MispcCall(ctx, mispc_csr_wrap(mem, n, m, nnz, L->rowptr64, ja32, vals, &L->csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcLocalCSREnd(MispcLocalCSR *L) {
  PetscFunctionBegin;
  if (L->gpu) {
#if defined(PETSC_HAVE_CUDA)
    if (L->with_values && L->a) PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(L->Ad, &L->a));
    L->a = NULL;
#endif
  } else {
    PetscBool done;
    PetscInt nn;
    if (L->with_values && L->a) PetscCall(MatSeqAIJRestoreArrayRead(L->Ad, &L->a));
    L->a = NULL;
    if (L->ia)
      PetscCall(MatRestoreRowIJ(L->Ad, 0, PETSC_FALSE, PETSC_FALSE, &nn, &L->ia, &L->ja, &done));
    L->ia = L->ja = NULL;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MispcLocalCSRDestroy(mispc_context *ctx, MispcLocalCSR *L) {
  PetscFunctionBegin;
  if (L->rowptr64) mispc_free(ctx, L->mem, L->rowptr64);
  memset(L, 0, sizeof *L);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One entry of MispcMatChecksum: (row, column, value bits). */
static uint64_t entry_hash(PetscInt r, PetscInt c, PetscScalar v) {
  double d = PetscRealPart(v);
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  return MispcHashTriple((unsigned long long)r, (unsigned long long)c, bits);
}

PetscErrorCode MispcMatChecksum(Mat M, uint64_t *hash, PetscInt *nnz) {
  MispcHostBlocks b;
  uint64_t h[2] = {0, 0}, all[2];
  PetscFunctionBegin;
  PetscCall(MispcHostBlocksGet(M, &b));
  for (PetscInt i = 0; i < b.n; ++i) {
    for (PetscInt e = b.ai[i]; e < b.ai[i + 1]; ++e)
      h[0] += entry_hash(b.rstart + i, b.cstart + b.aj[e], b.aa[e]);
    for (PetscInt e = b.bi ? b.bi[i] : 0; e < (b.bi ? b.bi[i + 1] : 0); ++e)
      h[0] += entry_hash(b.rstart + i, b.garray[b.bj[e]], b.ba[e]);
    h[1] += (uint64_t)(b.ai[i + 1] - b.ai[i]) + (b.bi ? (uint64_t)(b.bi[i + 1] - b.bi[i]) : 0);
  }
  PetscCall(MispcHostBlocksRestore(&b));
  PetscCallMPI(MPI_Allreduce(h, all, 2, MPI_UINT64_T, MPI_SUM, PetscObjectComm((PetscObject)M)));
  *hash = all[0];
  *nnz = (PetscInt)all[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}
