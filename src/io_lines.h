/* Internal: the line reader shared by the text readers (MatrixMarket,
 * METIS): plain files through stdio, or any file through zlib when built with
 * it (gzread passes uncompressed files through unchanged). */
#ifndef MISPC_IO_LINES_H
#define MISPC_IO_LINES_H

#include <stdio.h>
#ifdef MISPC_HAVE_ZLIB
#include <zlib.h>
#endif

#include "internal.h"

/* The file behind a reader or writer: stdio's fp, or zlib's gz (builds with
 * zlib), and the context and path its messages name. */
typedef struct mispc_io_file {
  mispc_context *ctx;
  const char *path;
  FILE *fp;
#ifdef MISPC_HAVE_ZLIB
  gzFile gz;
#endif
} mispc_io_file;

typedef struct mispc_lines mispc_lines;
mispc_status mispc_lines_open(mispc_context *ctx, const char *path, mispc_lines **lr);
mispc_status mispc_lines_next(mispc_lines *lr, char **line, size_t *len);
int64_t mispc_lines_number(const mispc_lines *lr);
mispc_status mispc_lines_error(const mispc_lines *lr, mispc_status s, const char *fmt, ...)
    MISPC_PRINTF(3, 4);
void mispc_lines_close(mispc_lines *lr);
/* The start of a reader entry (mispc_read_metis, mispc_read_mtx): clears
 * *out, checks the arguments (a NULL path named as `what`) and opens path. */
mispc_status mispc_lines_open_csr(mispc_context *ctx, const char *path, const char *what,
                                  mispc_csr *out, mispc_lines **lr);
/* As mispc_lines_next, passing over blank lines and '%' comments. */
mispc_status mispc_lines_next_data(mispc_lines *lr, char **line, size_t *len);

/* Longest line accepted by default (1 MiB): a longer line is a format error
 * naming the file and line, not a reason to buffer gigabytes. */
#define MISPC_LINE_MAX ((size_t)1 << 20)
/* Raises the limit (never below MISPC_LINE_MAX), e.g. for METIS adjacency
 * lines, whose length follows the declared edge count. */
void mispc_lines_set_max_line(mispc_lines *lr, size_t bytes);

/* The declared-size rule (README "Inputs"): a size line may declare at most
 * MISPC_READ_ROWS_PER_ENTRY x entries + MISPC_READ_SLACK rows + columns,
 * unless the context's read allowance (mispc_context_set_read_allowance)
 * covers it; either way the row offsets and entries must fit the machine's
 * memory. MISPC_ERR_FORMAT / MISPC_ERR_ALLOC naming the file and line. */
#define MISPC_READ_ROWS_PER_ENTRY 64
#define MISPC_READ_SLACK          (1 << 20)
mispc_status mispc_lines_check_size(const mispc_lines *lr, int64_t rows, int64_t cols,
                                    int64_t entries, const char *what);
int mispc_lines_int(char **p, int64_t *v);
const char *mispc_lines_token(const char *p, char *buf, size_t size);
/* 1 if path ends in ".gz". */
int mispc_ends_with_gz(const char *path);

static inline int is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

#endif
