/* Reading and writing matrices and graphs (host memory). */
#ifndef MISPC_IO_H
#define MISPC_IO_H

#include "mispc/csr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MatrixMarket coordinate files: real, integer or pattern; general or
 * symmetric (a symmetric file is expanded to both triangles). A path ending
 * in ".gz" is read through zlib when mispc was built with it. Rows come out
 * sorted with duplicates summed. Errors name the file and line. */
MISPC_API mispc_status mispc_read_mtx(mispc_context *ctx, const char *path, mispc_csr *out);
/* Writes "coordinate real general" (or "pattern general" without values). */
MISPC_API mispc_status mispc_write_mtx(mispc_context *ctx, const char *path, const mispc_csr *A);

/* METIS graph format: header "n m [fmt [ncon]]", then one 1-based adjacency
 * line per vertex. Vertex/edge weights (fmt 1, 10, 11) are read and dropped.
 * The result is a pattern (values NULL). */
MISPC_API mispc_status mispc_read_metis(mispc_context *ctx, const char *path, mispc_csr *out);

/* Loads a matrix from a spec: a generator spec "gen:NAME:ARGS" (see
 * generate.h) or a file path (.mtx, .mtx.gz, .graph / .metis). */
MISPC_API mispc_status mispc_load(mispc_context *ctx, const char *spec, mispc_csr *out);

#ifdef __cplusplus
}
#endif
#endif
