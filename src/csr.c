/* CSR descriptors: allocation, wrapping, copies between memory spaces. */
#include <stdlib.h>
#include <string.h>

#include "csr_build.h"
#include "internal.h"

mispc_status mispc_csr_check_desc(mispc_context *ctx, const mispc_csr *A, const char *name) {
  if (!A) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s is NULL", name);
  if (A->nrows < 0 || A->ncols < 0 || A->nnz < 0)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s has negative size (%lld x %lld, nnz %lld)",
                        name, (long long)A->nrows, (long long)A->ncols, (long long)A->nnz);
  if (A->ncols > INT32_MAX)
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW,
                        "%s has %lld columns; column indices are 32-bit (at most %d)", name,
                        (long long)A->ncols, INT32_MAX);
  if (!A->rowptr || (A->nnz > 0 && !A->colidx))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s has NULL row offsets or column indices",
                        name);
  if (A->mem != MISPC_MEM_HOST && A->mem != MISPC_MEM_DEVICE)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s has an unknown memory space", name);
  return MISPC_SUCCESS;
}

mispc_status mispc_csr_alloc(mispc_context *ctx, mispc_memspace mem, int64_t nrows, int64_t ncols,
                             int64_t nnz, int with_values, mispc_csr *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!out) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "output CSR is NULL");
  memset(out, 0, sizeof *out);
  if (nrows < 0 || ncols < 0 || nnz < 0)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "negative CSR size");
  if (ncols > INT32_MAX)
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "%lld columns do not fit 32-bit column indices",
                        (long long)ncols);
  if (nrows == INT64_MAX)
    return mispc_seterr(ctx, MISPC_ERR_OVERFLOW, "%lld rows: row offsets overflow",
                        (long long)nrows);
  /* all sizes first: nothing is allocated for a request that cannot fit */
  size_t bytes;
  MISPC_TRY(mispc_size_mul(ctx, nrows + 1, sizeof(int64_t), &bytes, "CSR row offsets"));
  MISPC_TRY(mispc_size_mul(ctx, nnz, sizeof(double), &bytes, "CSR entries"));
  mispc_csr A = {nrows, ncols, nnz, NULL, NULL, NULL, mem, 1};
  mispc_status s = mispc_mem_alloc_n(ctx, mem, nrows + 1, sizeof(int64_t), (void **)&A.rowptr,
                                     "CSR row offsets");
  if (!s)
    s = mispc_mem_alloc_n(ctx, mem, nnz, sizeof(int32_t), (void **)&A.colidx, "CSR column indices");
  if (!s && with_values)
    s = mispc_mem_alloc_n(ctx, mem, nnz, sizeof(double), (void **)&A.values, "CSR values");
  if (s) {
    mispc_csr_free(ctx, &A);
    return s;
  }
  if (mem == MISPC_MEM_HOST) A.rowptr[0] = 0;
  *out = A;
  return MISPC_SUCCESS;
}

mispc_status mispc_csr_wrap(mispc_memspace mem, int64_t nrows, int64_t ncols, int64_t nnz,
                            int64_t *rowptr, int32_t *colidx, double *values, mispc_csr *out) {
  if (!out) return MISPC_ERR_INVALID_ARG;
  mispc_csr A = {nrows, ncols, nnz, rowptr, colidx, values, mem, 0};
  *out = A;
  return mispc_csr_check_desc(NULL, out, "wrapped CSR");
}

mispc_status mispc_widen_int32(mispc_context *ctx, mispc_memspace mem, int64_t n, const int32_t *in,
                               int64_t *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (n < 0 || (n > 0 && (!in || !out)))
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_widen_int32: bad size or NULL array");
  if (mem == MISPC_MEM_DEVICE) return mispc_widen_int32_cuda(ctx, n, in, out);
#pragma omp parallel for schedule(static)
  for (int64_t k = 0; k < n; ++k) out[k] = in[k];
  return MISPC_SUCCESS;
}

void mispc_csr_free(mispc_context *ctx, mispc_csr *A) {
  if (!ctx) return;
  if (!A) return;
  if (A->owned) {
    mispc_mem_free(ctx, A->mem, A->rowptr);
    mispc_mem_free(ctx, A->mem, A->colidx);
    mispc_mem_free(ctx, A->mem, A->values);
  }
  memset(A, 0, sizeof *A);
}

mispc_status mispc_csr_copy(mispc_context *ctx, const mispc_csr *src, mispc_memspace dst_mem,
                            mispc_csr *dst) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!dst) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "destination CSR is NULL");
  memset(dst, 0, sizeof *dst); /* safe to free after a failure */
  MISPC_TRY(mispc_csr_check_desc(ctx, src, "source CSR"));
  mispc_csr out;
  MISPC_TRY(
      mispc_csr_alloc(ctx, dst_mem, src->nrows, src->ncols, src->nnz, src->values != NULL, &out));
  mispc_status s = mispc_mem_copy_n(ctx, out.rowptr, dst_mem, src->rowptr, src->mem, src->nrows + 1,
                                    sizeof(int64_t));
  if (!s)
    s = mispc_mem_copy_n(ctx, out.colidx, dst_mem, src->colidx, src->mem, src->nnz,
                         sizeof(int32_t));
  if (!s && src->values)
    s = mispc_mem_copy_n(ctx, out.values, dst_mem, src->values, src->mem, src->nnz, sizeof(double));
  if (s) {
    mispc_csr_free(ctx, &out);
    return s;
  }
  *dst = out;
  return MISPC_SUCCESS;
}

mispc_status mispc_csr_host_view(mispc_context *ctx, const mispc_csr *A, mispc_csr *host) {
  if (A->mem == MISPC_MEM_HOST) {
    *host = *A;
    host->owned = 0;
    return MISPC_SUCCESS;
  }
  return mispc_csr_copy(ctx, A, MISPC_MEM_HOST, host);
}
