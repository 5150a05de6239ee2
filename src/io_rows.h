/* Internal: a row range of a MatrixMarket file (io_mtx.c) or a METIS graph
 * file (io_metis.c), for the distributed loader: every rank parses the file
 * and keeps its own rows. */
#ifndef MISPC_IO_ROWS_H
#define MISPC_IO_ROWS_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The sizes on the size line of a MatrixMarket file (its entries unread). */
mispc_status mispc_read_mtx_sizes(mispc_context *ctx, const char *path, int64_t *nrows,
                                  int64_t *ncols);
/* Rows [r0, r1) of the matrix in path (.mtx or .mtx.gz), as mispc_read_mtx
 * reads them (a symmetric file's mirrored entries included), in *rows with
 * local row ids and global column ids; *nrows, *ncols get the file's sizes.
 * Memory follows the rows kept, not the file. */
mispc_status mispc_read_mtx_rows(mispc_context *ctx, const char *path, int64_t r0, int64_t r1,
                                 int64_t *nrows, int64_t *ncols, mispc_csr *rows);

/* The vertex count on a METIS file's header line (its lines unread). */
mispc_status mispc_read_metis_sizes(mispc_context *ctx, const char *path, int64_t *n);
/* Rows [r0, r1) of the graph in a METIS file (.graph, .metis, optionally
 * .gz), as mispc_read_metis reads them: every line parsed and checked, only
 * the range's entries kept, with local row ids and global column ids; *n
 * gets the vertex count. */
mispc_status mispc_read_metis_rows(mispc_context *ctx, const char *path, int64_t r0, int64_t r1,
                                   int64_t *n, mispc_csr *rows);

#ifdef __cplusplus
}
#endif
#endif
