/* Compressed sparse row matrices and graphs in host or device memory.
 * A graph is a square CSR whose values may be NULL; row i lists the
 * neighbours of vertex i. Row offsets are 64-bit, column indices 32-bit. */
#ifndef MISPC_CSR_H
#define MISPC_CSR_H

#include <stdint.h>
#include "mispc/context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mispc_csr {
  int64_t nrows;
  int64_t ncols;
  int64_t nnz;
  int64_t *rowptr; /* nrows + 1 entries; rowptr[0] == 0 */
  int32_t *colidx; /* nnz entries */
  double *values;  /* nnz entries, or NULL for a pattern (graph) */
  mispc_memspace mem;
  int owned; /* 1: mispc_csr_free releases the arrays; 0: borrowed */
} mispc_csr;

/* Allocates an owned CSR in host or device memory (arrays uninitialised,
 * except rowptr[0] = 0 on the host). with_values = 0 gives a pattern. */
MISPC_API mispc_status mispc_csr_alloc(mispc_context *ctx, mispc_memspace mem, int64_t nrows,
                                       int64_t ncols, int64_t nnz, int with_values, mispc_csr *out);
/* Wraps caller arrays without copying (borrowed: free does not release them). */
MISPC_API mispc_status mispc_csr_wrap(mispc_memspace mem, int64_t nrows, int64_t ncols, int64_t nnz,
                                      int64_t *rowptr, int32_t *colidx, double *values,
                                      mispc_csr *out);
/* out[k] = in[k] for k < n, in memory space mem (both arrays there): turns the
 * 32-bit row offsets of PETSc (default PetscInt) or cuSPARSE (CUSPARSE_INDEX_32I)
 * into the 64-bit ones mispc_csr needs, so their column indices and values can
 * be wrapped in place. Asynchronous on the context's stream for device memory. */
MISPC_API mispc_status mispc_widen_int32(mispc_context *ctx, mispc_memspace mem, int64_t n,
                                         const int32_t *in, int64_t *out);
/* Releases owned arrays (borrowed ones are left alone) and zeroes *A. */
MISPC_API void mispc_csr_free(mispc_context *ctx, mispc_csr *A);
/* Deep copy into memory space dst_mem (host->device, device->host, or same). */
MISPC_API mispc_status mispc_csr_copy(mispc_context *ctx, const mispc_csr *src,
                                      mispc_memspace dst_mem, mispc_csr *dst);

/* Checks requested by mispc_csr_check. */
enum {
  MISPC_CHECK_SQUARE = 1u << 0,
  MISPC_CHECK_INDICES = 1u << 1, /* rowptr monotone, columns in range (always done) */
  MISPC_CHECK_SORTED = 1u << 2,  /* strictly increasing columns per row (no duplicates) */
  MISPC_CHECK_NO_SELF_LOOPS = 1u << 3,
  MISPC_CHECK_SYMMETRIC = 1u << 4, /* pattern symmetric; needs SORTED */
  /* What graph algorithms (MIS, aggregation) require of their input. */
  MISPC_CHECK_GRAPH =
      MISPC_CHECK_SQUARE | MISPC_CHECK_INDICES | MISPC_CHECK_SORTED | MISPC_CHECK_SYMMETRIC
};

/* Validates A in place (host or device). On failure returns the status of
 * the first problem found (lowest row), with row/column in the context's
 * message. Never modifies A. */
MISPC_API mispc_status mispc_csr_check(mispc_context *ctx, const mispc_csr *A, unsigned checks);

/* Pattern statistics (host or device input; computed on the host). */
typedef struct mispc_csr_stats {
  int64_t nrows, ncols, nnz;
  int64_t deg_min, deg_max;
  double deg_avg;
  int64_t self_loops;
  int64_t empty_rows;
  int symmetric_pattern;  /* -1 unknown (not square or unsorted), 0 no, 1 yes */
  int symmetric_values;   /* -1 unknown / no values, 0 no, 1 yes */
  int64_t dd_rows;        /* rows with |a_ii| >= sum_j |a_ij| (values only) */
  int64_t strict_dd_rows; /* rows with |a_ii| >  sum_j |a_ij| */
} mispc_csr_stats;
MISPC_API mispc_status mispc_csr_get_stats(mispc_context *ctx, const mispc_csr *A,
                                           mispc_csr_stats *st);

/* Host only: returns the sorted, duplicate-free pattern of A + A^T (values
 * summed when A has them, as (A + A^T)/2 is not implied). drop_self_loops
 * removes diagonal entries. Output is owned host memory. */
MISPC_API mispc_status mispc_csr_symmetrize(mispc_context *ctx, const mispc_csr *A,
                                            int drop_self_loops, mispc_csr *out);
/* T = A^T, in A's memory space (owned): row j of T lists the rows of A that
 * have column j, increasing, with their values (duplicates kept). A needs
 * values; at most 2^31 - 1 rows and entries. */
MISPC_API mispc_status mispc_csr_transpose(mispc_context *ctx, const mispc_csr *A, mispc_csr *T);
/* C = A B, in the inputs' memory space (both host or both device; owned).
 * Row i of C has the distinct columns reached through row i of A, sorted
 * (products that are zero are kept as entries). Deterministic, and the same
 * bits on the host and the GPU: c_ij = ((0 + a_ik1 b_k1j) + a_ik2 b_k2j) + ...
 * in the order of row i's entries in A, every product rounded before it is
 * added (no fused multiply-add). A row of B must not repeat a column
 * (MISPC_ERR_DUPLICATE); rows need not be sorted. */
MISPC_API mispc_status mispc_csr_multiply(mispc_context *ctx, const mispc_csr *A,
                                          const mispc_csr *B, mispc_csr *C);
/* Host only: sorts each row's columns and merges duplicates (values summed). */
MISPC_API mispc_status mispc_csr_sort_rows(mispc_context *ctx, mispc_csr *A);

#ifdef __cplusplus
}
#endif
#endif
