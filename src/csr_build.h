/* Internal: CSR from coordinate lists or keys, and ids ordered by key. */
#ifndef MISPC_CSR_BUILD_H
#define MISPC_CSR_BUILD_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
  MISPC_COO_SYMMETRIC = 1, /* also insert (j, i) for every off-diagonal (i, j) */
  MISPC_COO_DROP_DIAG = 2  /* drop (i, i) entries */
};

/* Builds an owned host CSR with sorted rows; duplicates are merged (values
 * summed in input order). V may be NULL for a pattern. Indices are checked. */
mispc_status mispc_csr_from_coo(mispc_context *ctx, int64_t nrows, int64_t ncols, int64_t nent,
                                const int32_t *I, const int32_t *J, const double *V, int flags,
                                mispc_csr *out);

/* Row `row` of a generator: its columns (increasing) and values into cols /
 * vals (at most the row's length each; vals NULL for a pattern, cols NULL
 * too: count only); returns the row's length. */
typedef int64_t (*mispc_row_fn)(const void *gen, int64_t row, int64_t *cols, double *vals);
/* Rows [r0, r1) of a generator, row by row: offsets (from 0), global column
 * ids and (with_values) values, host, malloc'd (*val NULL for a pattern);
 * the rows are filled on the context's threads. */
mispc_status mispc_rows_by_row(mispc_context *ctx, int64_t r0, int64_t r1, mispc_row_fn row,
                               const void *gen, int with_values, int64_t **rowptr, int64_t **gcol,
                               double **val);

/* Device: builds a pattern CSR (owned, device memory) from n_keys 64-bit keys
 * (row << col_bits | col, row < nrows, col < 2^col_bits <= 2^32) in device
 * memory, in any order and with repeats. `keys` is used as scratch and
 * overwritten; the sort covers only the significant bits. */
mispc_status mispc_csr_from_keys_cuda(mispc_context *ctx, int64_t nrows, int64_t ncols,
                                      uint64_t *keys, int64_t n_keys, int col_bits, mispc_csr *out);

/* Device part of mispc_widen_int32 (fails with MISPC_ERR_NO_CUDA without CUDA). */
mispc_status mispc_widen_int32_cuda(mispc_context *ctx, int64_t n, const int32_t *in, int64_t *out);

/* Ids 0..n-1 ordered by (key[id], id) into order; ptr (nkeys + 1 entries)
 * receives the start of each key's range: the CSR from keys to ids (color
 * classes, members of clusters). key, order and ptr lie in one memory space:
 * the host's (counting sort) or the device's (CUB radix sort over the key's
 * bits, then a binary search per key; waits for the stream). */
mispc_status mispc_order_by_key_host(mispc_context *ctx, int64_t n, const int32_t *key,
                                     int32_t nkeys, int32_t *order, int64_t *ptr);
mispc_status mispc_order_by_key_cuda(mispc_context *ctx, int64_t n, const int32_t *key,
                                     int32_t nkeys, int32_t *order, int64_t *ptr);

/* Device parts of mispc_csr_transpose / mispc_csr_multiply (inputs checked
 * by the entry points; MISPC_ERR_NO_CUDA without CUDA). */
mispc_status mispc_csr_transpose_cuda(mispc_context *ctx, const mispc_csr *A, mispc_csr *T);
mispc_status mispc_csr_multiply_cuda(mispc_context *ctx, const mispc_csr *A, const mispc_csr *B,
                                     mispc_csr *C);

/* mispc_csr_transpose / mispc_csr_multiply without the O(nnz) pass over the
 * column indices: for operands whose indices are known to be in range (made
 * by the library, or checked once already by the caller's entry point). */
mispc_status mispc_csr_transpose_trusted(mispc_context *ctx, const mispc_csr *A, mispc_csr *T);
mispc_status mispc_csr_multiply_trusted(mispc_context *ctx, const mispc_csr *A, const mispc_csr *B,
                                        mispc_csr *C);

#ifdef __cplusplus
}
#endif
#endif
