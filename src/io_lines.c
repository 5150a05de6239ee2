/* The line reader shared by the text readers (see io_lines.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_lines.h"

struct mispc_lines {
  mispc_io_file f;
  char *buf; /* holds [beg, end) unread bytes; one spare byte for a NUL */
  size_t cap;
  size_t beg, end;
  size_t scanned; /* bytes after beg already known to hold no '\n' */
  int eof;
  int64_t lineno;  /* 1-based number of the last line returned */
  size_t max_line; /* longest line accepted, in bytes (MISPC_LINE_MAX unless raised) */
};

int mispc_ends_with_gz(const char *path) {
  size_t n = strlen(path);
  return n >= 3 && strcmp(path + n - 3, ".gz") == 0;
}

mispc_status mispc_lines_open(mispc_context *ctx, const char *path, mispc_lines **lr) {
  *lr = NULL;
  if (!path) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "file path is NULL");
#ifndef MISPC_HAVE_ZLIB
  if (mispc_ends_with_gz(path))
    return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED,
                        "cannot read %s: mispc was built without zlib (decompress it with gunzip)",
                        path);
#endif
  mispc_lines *r = (mispc_lines *)calloc(1, sizeof *r);
  if (!r) return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory opening %s", path);
  r->f.ctx = ctx;
  r->f.path = path;
  r->cap = (size_t)1 << 16; /* grows for longer lines, up to max_line */
  r->max_line = MISPC_LINE_MAX;
  r->buf = (char *)malloc(r->cap);
  if (!r->buf) {
    free(r);
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory opening %s", path);
  }
  errno = 0;
#ifdef MISPC_HAVE_ZLIB
  r->f.gz = gzopen(path, "rb");
  if (r->f.gz) gzbuffer(r->f.gz, 1u << 18);
  int opened = r->f.gz != NULL;
#else
  r->f.fp = fopen(path, "rb");
  int opened = r->f.fp != NULL;
#endif
  if (!opened) {
    int e = errno;
    free(r->buf);
    free(r);
    return mispc_seterr(ctx, MISPC_ERR_IO, "cannot open %s: %s", path,
                        e ? strerror(e) : "out of memory");
  }
  *lr = r;
  return MISPC_SUCCESS;
}

void mispc_lines_close(mispc_lines *lr) {
  if (!lr) return;
#ifdef MISPC_HAVE_ZLIB
  if (lr->f.gz) gzclose(lr->f.gz);
#endif
  if (lr->f.fp) fclose(lr->f.fp);
  free(lr->buf);
  free(lr);
}

void mispc_lines_set_max_line(mispc_lines *lr, size_t bytes) {
  lr->max_line = bytes > MISPC_LINE_MAX ? bytes : MISPC_LINE_MAX;
}

mispc_status mispc_lines_check_size(const mispc_lines *lr, int64_t rows, int64_t cols,
                                    int64_t entries, const char *what) {
  /* All operands are at most INT32_MAX (rows, cols) or checked (entries), so
   * the sums stay far from overflow in double. */
  double declared = (double)rows + (double)cols;
  double limit = (double)MISPC_READ_ROWS_PER_ENTRY * (double)entries + (double)MISPC_READ_SLACK;
  int64_t allowance = lr->f.ctx ? lr->f.ctx->read_allowance : 0;
  if (declared > limit && declared > (double)allowance)
    return mispc_lines_error(
        lr, MISPC_ERR_FORMAT,
        "%s declares %lld x %lld for only %lld entries: rows + columns may be at most %d x "
        "entries + %d, so that a wrong size line cannot demand memory for rows that hold nothing "
        "(mispc_context_set_read_allowance raises the limit for a file that really is that "
        "sparse)",
        what, (long long)rows, (long long)cols, (long long)entries, MISPC_READ_ROWS_PER_ENTRY,
        MISPC_READ_SLACK);
  /* Within the rule or an allowance: still no more than the machine holds
   * (row offsets, and the entries of the coordinate lists and the CSR). */
  char desc[96];
  snprintf(desc, sizeof desc, "%s:%lld: the declared size", lr->f.path,
           (long long)(lr->lineno > 0 ? lr->lineno : 1));
  return mispc_check_host_memory(lr->f.ctx, desc,
                                 8.0 * ((double)rows + 1.0) + 32.0 * (double)entries);
}

int64_t mispc_lines_number(const mispc_lines *lr) {
  return lr->lineno;
}

/* "PATH:LINE: message" for the last line returned (line 1 before any). */
mispc_status mispc_lines_error(const mispc_lines *lr, mispc_status s, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return mispc_seterr(lr->f.ctx, s, "%s:%lld: %s", lr->f.path,
                      (long long)(lr->lineno > 0 ? lr->lineno : 1), msg);
}

/* The line after the last one returned is longer than max_line. */
static mispc_status line_too_long(const mispc_lines *lr) {
  return mispc_seterr(lr->f.ctx, MISPC_ERR_FORMAT,
                      "%s:%lld: line longer than %zu bytes, the limit for one line of this file "
                      "(is it a text matrix file?)",
                      lr->f.path, (long long)lr->lineno + 1, lr->max_line);
}

/* Moves the unread bytes to the front, grows the buffer when a line fills
 * it, and reads the next block. */
static mispc_status lines_fill(mispc_lines *lr) {
  if (lr->beg > 0) {
    memmove(lr->buf, lr->buf + lr->beg, lr->end - lr->beg);
    lr->end -= lr->beg;
    lr->beg = 0;
  }
  if (lr->end > lr->max_line) /* [0, end) is one unfinished line */
    return line_too_long(lr);
  if (lr->end + 1 >= lr->cap) {
    size_t ncap = lr->cap * 2;
    char *nb = ncap > lr->cap ? (char *)realloc(lr->buf, ncap) : NULL;
    if (!nb)
      return mispc_seterr(lr->f.ctx, MISPC_ERR_ALLOC,
                          "%s:%lld: out of host memory for a line longer than %zu bytes",
                          lr->f.path, (long long)lr->lineno + 1, lr->end);
    lr->buf = nb;
    lr->cap = ncap;
  }
  size_t want = lr->cap - 1 - lr->end;
  if (want > ((size_t)1 << 30)) want = (size_t)1 << 30;
#ifdef MISPC_HAVE_ZLIB
  int got = gzread(lr->f.gz, lr->buf + lr->end, (unsigned)want);
  if (got < 0) {
    int zerr = 0;
    const char *zmsg = gzerror(lr->f.gz, &zerr);
    return mispc_seterr(lr->f.ctx, MISPC_ERR_IO, "error reading %s: %s", lr->f.path,
                        zerr == Z_ERRNO ? strerror(errno) : zmsg);
  }
  if (got == 0) {
    int zerr = 0;
    gzerror(lr->f.gz, &zerr);
    if (zerr == Z_BUF_ERROR)
      return mispc_seterr(lr->f.ctx, MISPC_ERR_IO,
                          "error reading %s: compressed data ends early (truncated gzip file)",
                          lr->f.path);
    lr->eof = 1;
  }
  lr->end += (size_t)got;
#else
  size_t got = fread(lr->buf + lr->end, 1, want, lr->f.fp);
  if (got < want) {
    if (ferror(lr->f.fp))
      return mispc_seterr(lr->f.ctx, MISPC_ERR_IO, "error reading %s: %s", lr->f.path,
                          strerror(errno));
    lr->eof = 1;
  }
  lr->end += got;
#endif
  return MISPC_SUCCESS;
}

/* Returns the next line without its "\n" or "\r\n", NUL-terminated, valid
 * until the next call; *line = NULL at the end of the file. */
mispc_status mispc_lines_open_csr(mispc_context *ctx, const char *path, const char *what,
                                  mispc_csr *out, mispc_lines **lr) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (out) memset(out, 0, sizeof *out);
  if (!path) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s path is NULL", what);
  if (!out) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "output CSR is NULL");
  return mispc_lines_open(ctx, path, lr);
}

mispc_status mispc_lines_next(mispc_lines *lr, char **line, size_t *len) {
  *line = NULL;
  *len = 0;
  for (;;) {
    char *start = lr->buf + lr->beg;
    size_t avail = lr->end - lr->beg;
    char *nl =
        lr->scanned < avail ? (char *)memchr(start + lr->scanned, '\n', avail - lr->scanned) : NULL;
    if (nl || (lr->eof && avail > 0)) {
      size_t n = nl ? (size_t)(nl - start) : avail; /* the last line may lack its '\n' */
      if (n > lr->max_line) return line_too_long(lr);
      lr->beg += nl ? n + 1 : n;
      lr->scanned = 0;
      if (n > 0 && start[n - 1] == '\r') --n;
      start[n] = '\0'; /* within the buffer: end < cap always */
      ++lr->lineno;
      *line = start;
      *len = n;
      return MISPC_SUCCESS;
    }
    if (lr->eof) return MISPC_SUCCESS;
    lr->scanned = avail;
    MISPC_TRY(lines_fill(lr));
  }
}

/* Parses a decimal integer after optional blanks and advances *p past it.
 * Returns 1 on success, 0 if no integer is there (or it runs into other
 * text, as in "1.5"), -1 if it does not fit 64 bits. *p is left at the
 * token on failure. */
int mispc_lines_int(char **p, int64_t *v) {
  char *s = *p;
  while (is_blank(*s)) ++s;
  *p = s;
  int neg = 0;
  if (*s == '+' || *s == '-') neg = *s++ == '-';
  if (*s < '0' || *s > '9') return 0;
  uint64_t x = 0;
  int over = 0;
  for (; *s >= '0' && *s <= '9'; ++s) {
    unsigned d = (unsigned)(*s - '0');
    if (x > ((uint64_t)INT64_MAX - d) / 10)
      over = 1;
    else
      x = x * 10 + d;
  }
  if (*s && !is_blank(*s)) return 0;
  if (over) return -1;
  *v = neg ? -(int64_t)x : (int64_t)x;
  *p = s;
  return 1;
}

/* Copies the token at p (after blanks) into buf for messages, shortened. */
const char *mispc_lines_token(const char *p, char *buf, size_t size) {
  while (is_blank(*p)) ++p;
  size_t n = 0;
  while (p[n] && !is_blank(p[n])) ++n;
  if (n + 1 > size) {
    n = size > 4 ? size - 4 : 0;
    memcpy(buf, p, n);
    strcpy(buf + n, "...");
  } else {
    memcpy(buf, p, n);
    buf[n] = '\0';
  }
  return buf;
}

mispc_status mispc_lines_next_data(mispc_lines *lr, char **line, size_t *len) {
  for (;;) {
    MISPC_TRY(mispc_lines_next(lr, line, len));
    if (!*line) return MISPC_SUCCESS;
    const char *p = *line;
    while (is_blank(*p)) ++p;
    if (*p && *p != '%') return MISPC_SUCCESS;
  }
}
