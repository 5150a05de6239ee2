/* Internal: the line reader shared by the text readers (MatrixMarket,
 * METIS): plain files through stdio, or any file through zlib when built with
 * it (gzread passes uncompressed files through unchanged). */
#ifndef MISPC_IO_LINES_H
#define MISPC_IO_LINES_H

#include "internal.h"

typedef struct mispc_lines mispc_lines;
mispc_status mispc_lines_open(mispc_context *ctx, const char *path, mispc_lines **lr);
mispc_status mispc_lines_next(mispc_lines *lr, char **line, size_t *len);
int64_t mispc_lines_number(const mispc_lines *lr);
mispc_status mispc_lines_error(const mispc_lines *lr, mispc_status s, const char *fmt, ...)
    MISPC_PRINTF(3, 4);
void mispc_lines_close(mispc_lines *lr);
int mispc_lines_int(char **p, int64_t *v);
const char *mispc_lines_token(const char *p, char *buf, size_t size);
/* 1 if path ends in ".gz". */
int mispc_ends_with_gz(const char *path);

static inline int is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

#endif
