/* Internal: row ranges of PETSc binary matrices (io_petsc.c). */
#ifndef MISPC_IO_PETSC_H
#define MISPC_IO_PETSC_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the file starts with PETSc's MAT_FILE_CLASSID (big-endian). */
int mispc_is_petsc_binary(const char *path);
/* Sizes from the header, checked against the file size. */
mispc_status mispc_petsc_header(mispc_context *ctx, const char *path, int64_t *nrows,
                                int64_t *ncols, int64_t *nnz);
/* Rows [r0, r1): offsets from 0, global column ids and values (malloc'd). */
mispc_status mispc_petsc_read_rows(mispc_context *ctx, const char *path, int64_t r0, int64_t r1,
                                   int64_t **rowptr, int64_t **gcol, double **val);

#ifdef __cplusplus
}
#endif
#endif
