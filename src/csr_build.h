/* Internal: CSR from coordinate lists (host). */
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

#ifdef __cplusplus
}
#endif
#endif
