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
/* PETSc binary matrices (MatView's format with 32-bit indices; ".petsc"
 * files, or any file starting with MAT_FILE_CLASSID). Values are kept. */
MISPC_API mispc_status mispc_read_petsc(mispc_context *ctx, const char *path, mispc_csr *out);
MISPC_API mispc_status mispc_write_petsc(mispc_context *ctx, const char *path, const mispc_csr *A);

MISPC_API mispc_status mispc_read_metis(mispc_context *ctx, const char *path, mispc_csr *out);

/* What the readers accept (README "Inputs"): values must be finite (NaN, Inf
 * and overflowing numbers such as 1e400 are format errors); a symmetric
 * MatrixMarket file lists the lower triangle only (row >= column); a line is
 * at most 1 MiB (METIS adjacency lines: more, in proportion to the declared
 * edges); and a size line may declare at most 64 x entries + 2^20 rows +
 * columns, so a wrong header cannot demand memory for rows that hold
 * nothing. For a file that really is that sparse, an allowance of
 * rows_plus_cols (0, the default: the rule only) lets the readers of this
 * context accept up to that many rows + columns, as long as the row offsets
 * fit the machine's memory. Negative values give MISPC_ERR_INVALID_ARG. */
MISPC_API mispc_status mispc_context_set_read_allowance(mispc_context *ctx, int64_t rows_plus_cols);

/* Loads a matrix from a spec: a generator spec "gen:NAME:ARGS" (see
 * generate.h) or a file path (.mtx, .mtx.gz, .graph / .metis). */
MISPC_API mispc_status mispc_load(mispc_context *ctx, const char *spec, mispc_csr *out);

#ifdef __cplusplus
}
#endif
#endif
