/* MatrixMarket reading and writing. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csr_build.h"
#include "io_lines.h"
#include "io_rows.h"

/* ---- MatrixMarket reader ---------------------------------------------------- */

static int is_blank_line(const char *s) {
  while (is_blank(*s)) ++s;
  return *s == '\0';
}

static int is_comment_line(const char *s) {
  while (is_blank(*s)) ++s;
  return *s == '%';
}

/* Next whitespace-separated word of s (NUL-terminated in place), or NULL. */
static char *next_word(char **s) {
  char *p = *s;
  while (is_blank(*p)) ++p;
  if (!*p) return NULL;
  char *w = p;
  while (*p && !is_blank(*p)) ++p;
  if (*p) *p++ = '\0';
  *s = p;
  return w;
}

static int word_is(const char *w, const char *lower) {
  for (; *w && *lower; ++w, ++lower) {
    char c = *w >= 'A' && *w <= 'Z' ? (char)(*w - 'A' + 'a') : *w;
    if (c != *lower) return 0;
  }
  return *w == '\0' && *lower == '\0';
}

enum { FIELD_REAL, FIELD_INTEGER, FIELD_PATTERN };

typedef struct mtx_data {
  int field;
  int symmetric;
  int64_t nrows, ncols, nent;
  int64_t count, cap;
  int32_t *I, *J;
  double *V;
  /* Rows kept (mispc_read_mtx_rows): entries whose row, or for a symmetric
   * file whose mirrored row, lies in [keep_lo, keep_hi); all when keep_hi < 0. */
  int64_t keep_lo, keep_hi;
} mtx_data;

static mispc_status mtx_banner(mispc_lines *lr, mtx_data *d) {
  char *line;
  size_t len;
  MISPC_TRY(mispc_lines_next(lr, &line, &len));
  if (!line)
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "empty file (expected a %%%%MatrixMarket banner)");
  char *p = line;
  char *w[6];
  int nw = 0;
  while (nw < 6 && (w[nw] = next_word(&p)) != NULL) ++nw;
  if (nw == 0 || !word_is(w[0], "%%matrixmarket"))
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "missing MatrixMarket banner: the first line must be "
                             "\"%%%%MatrixMarket matrix coordinate FIELD SYMMETRY\"");
  if (nw != 5)
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "banner has %d words, expected 5: \"%%%%MatrixMarket matrix "
                             "coordinate FIELD SYMMETRY\"",
                             nw);
  if (!word_is(w[1], "matrix"))
    return mispc_lines_error(lr, MISPC_ERR_UNSUPPORTED,
                             "object \"%s\" is not supported (only \"matrix\")", w[1]);
  if (word_is(w[2], "array"))
    return mispc_lines_error(lr, MISPC_ERR_UNSUPPORTED,
                             "dense \"array\" files are not supported (only \"coordinate\")");
  if (!word_is(w[2], "coordinate"))
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "unknown format \"%s\" in the banner (expected \"coordinate\")", w[2]);
  if (word_is(w[3], "real") || word_is(w[3], "double"))
    d->field = FIELD_REAL;
  else if (word_is(w[3], "integer"))
    d->field = FIELD_INTEGER;
  else if (word_is(w[3], "pattern"))
    d->field = FIELD_PATTERN;
  else if (word_is(w[3], "complex"))
    return mispc_lines_error(lr, MISPC_ERR_UNSUPPORTED,
                             "complex matrices are not supported (field must be real, integer "
                             "or pattern)");
  else
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "unknown field \"%s\" in the banner (expected real, integer or "
                             "pattern)",
                             w[3]);
  if (word_is(w[4], "general"))
    d->symmetric = 0;
  else if (word_is(w[4], "symmetric"))
    d->symmetric = 1;
  else if (word_is(w[4], "skew-symmetric") || word_is(w[4], "hermitian"))
    return mispc_lines_error(lr, MISPC_ERR_UNSUPPORTED,
                             "%s matrices are not supported (only general or symmetric)", w[4]);
  else
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "unknown symmetry \"%s\" in the banner (expected general or "
                             "symmetric)",
                             w[4]);
  return MISPC_SUCCESS;
}

static mispc_status mtx_size_line(mispc_lines *lr, mtx_data *d) {
  char *line;
  size_t len;
  MISPC_TRY(mispc_lines_next_data(lr, &line, &len));
  if (!line)
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "file ends before the size line \"ROWS COLS ENTRIES\"");
  char *p = line;
  int64_t v[3];
  for (int k = 0; k < 3; ++k) {
    int r = mispc_lines_int(&p, &v[k]);
    if (r < 0)
      return mispc_lines_error(lr, MISPC_ERR_OVERFLOW, "size line: a number does not fit 64 bits");
    static const char *const what[3] = {"ROWS", "COLS", "ENTRIES"};
    if (r == 0 && !*p)
      return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                               "bad size line: %s missing (expected \"ROWS COLS ENTRIES\")",
                               what[k]);
    if (r == 0) {
      char tok[40];
      return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                               "bad size line: expected \"ROWS COLS ENTRIES\", found \"%s\" "
                               "where %s should be",
                               mispc_lines_token(p, tok, sizeof tok), what[k]);
    }
  }
  while (is_blank(*p)) ++p;
  if (p != line + len) {
    char tok[40];
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "bad size line: unexpected \"%s\" after \"ROWS COLS ENTRIES\"",
                             mispc_lines_token(p, tok, sizeof tok));
  }
  if (v[0] < 0 || v[1] < 0 || v[2] < 0)
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "negative size in the size line (%lld %lld %lld)", (long long)v[0],
                             (long long)v[1], (long long)v[2]);
  if (v[0] > INT32_MAX || v[1] > INT32_MAX)
    return mispc_lines_error(lr, MISPC_ERR_OVERFLOW,
                             "%lld x %lld matrix does not fit 32-bit indices (at most %d rows "
                             "and columns)",
                             (long long)v[0], (long long)v[1], INT32_MAX);
  if (d->symmetric && v[0] != v[1])
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "symmetric matrix must be square, but the size line says %lld x %lld",
                             (long long)v[0], (long long)v[1]);
  d->nrows = v[0];
  d->ncols = v[1];
  d->nent = v[2];
  return mispc_lines_check_size(lr, v[0], v[1], v[2], "the size line");
}

/* Grows the coordinate arrays geometrically (not to the declared count at
 * once, so a wrong header cannot demand a huge allocation up front). */
static mispc_status mtx_reserve(mispc_lines *lr, mtx_data *d) {
  if (d->count < d->cap) return MISPC_SUCCESS;
  int64_t ncap = d->cap ? d->cap * 2 : ((int64_t)1 << 16);
  if (ncap > d->nent) ncap = d->nent;
  int32_t *I = (int32_t *)realloc(d->I, (size_t)ncap * sizeof(int32_t));
  if (I) d->I = I;
  int32_t *J = I ? (int32_t *)realloc(d->J, (size_t)ncap * sizeof(int32_t)) : NULL;
  if (J) d->J = J;
  double *V = d->V;
  if (J && d->field != FIELD_PATTERN) {
    V = (double *)realloc(d->V, (size_t)ncap * sizeof(double));
    if (V) d->V = V;
  }
  if (!I || !J || (!V && d->field != FIELD_PATTERN))
    return mispc_lines_error(lr, MISPC_ERR_ALLOC, "out of host memory for %lld entries",
                             (long long)ncap);
  d->cap = ncap;
  return MISPC_SUCCESS;
}

/* Parses one 1-based index; name is "row" or "column". */
static mispc_status mtx_index(mispc_lines *lr, char **p, int64_t n, const char *name,
                              int32_t *out) {
  char tok[40];
  int64_t v = 0;
  char *start = *p;
  int r = mispc_lines_int(p, &v);
  if (r == 0) {
    if (!**p) return mispc_lines_error(lr, MISPC_ERR_FORMAT, "missing %s index", name);
    return mispc_lines_error(lr, MISPC_ERR_FORMAT, "expected a %s index, found \"%s\"", name,
                             mispc_lines_token(*p, tok, sizeof tok));
  }
  if (r < 0 || v < 1 || v > n)
    return mispc_lines_error(lr, MISPC_ERR_INDEX_RANGE, "%s index %s out of range 1..%lld", name,
                             mispc_lines_token(start, tok, sizeof tok), (long long)n);
  *out = (int32_t)(v - 1);
  return MISPC_SUCCESS;
}

static mispc_status mtx_entries(mispc_lines *lr, mtx_data *d) {
  int64_t size_line = mispc_lines_number(lr);
  char tok[40];
  char *line;
  size_t len;
  for (int64_t k = 0; k < d->nent; ++k) {
    do {
      MISPC_TRY(mispc_lines_next(lr, &line, &len));
      if (!line)
        return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                                 "file ends after %lld of the %lld entries declared on line %lld",
                                 (long long)k, (long long)d->nent, (long long)size_line);
    } while (is_comment_line(line));
    if (is_blank_line(line))
      return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                               "blank line where entry %lld of %lld was expected", (long long)k + 1,
                               (long long)d->nent);
    MISPC_TRY(mtx_reserve(lr, d));
    char *p = line;
    const int64_t q = d->count; /* the slot of this entry (kept ones only) */
    MISPC_TRY(mtx_index(lr, &p, d->nrows, "row", &d->I[q]));
    MISPC_TRY(mtx_index(lr, &p, d->ncols, "column", &d->J[q]));
    if (d->symmetric && d->I[q] < d->J[q])
      return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                               "entry (%lld, %lld) lies above the diagonal: symmetric MatrixMarket "
                               "files store the lower triangle only (row >= column); write the "
                               "file as \"general\" to list both triangles",
                               (long long)d->I[q] + 1, (long long)d->J[q] + 1);
    while (is_blank(*p)) ++p;
    if (d->field != FIELD_PATTERN && !*p)
      return mispc_lines_error(lr, MISPC_ERR_FORMAT, "missing value (the banner says %s)",
                               d->field == FIELD_REAL ? "real" : "integer");
    if (d->field == FIELD_REAL) {
      /* strtod: correctly rounded, so "%.17g" output reads back bit-exact. */
      char *e;
      d->V[q] = strtod(p, &e);
      if (e == p || (*e && !is_blank(*e)))
        return mispc_lines_error(lr, MISPC_ERR_FORMAT, "expected a real value, found \"%s\"",
                                 mispc_lines_token(p, tok, sizeof tok));
      /* Underflow (1e-400) rounds to 0 or a subnormal and is kept. */
      if (!isfinite(d->V[q]))
        return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                                 "value \"%s\" is not a finite number (NaN, Inf, or beyond the "
                                 "range of a double)",
                                 mispc_lines_token(p, tok, sizeof tok));
      p = e;
    } else if (d->field == FIELD_INTEGER) {
      int64_t v = 0;
      int r = mispc_lines_int(&p, &v);
      if (r <= 0)
        return mispc_lines_error(lr, MISPC_ERR_FORMAT, "expected an integer value, found \"%s\"",
                                 mispc_lines_token(p, tok, sizeof tok));
      d->V[q] = (double)v;
    }
    while (is_blank(*p)) ++p;
    if (p != line + len) {
      if (!*p) return mispc_lines_error(lr, MISPC_ERR_FORMAT, "NUL byte in line (binary file?)");
      return mispc_lines_error(lr, MISPC_ERR_FORMAT, "unexpected \"%s\" after the %s",
                               mispc_lines_token(p, tok, sizeof tok),
                               d->field == FIELD_PATTERN ? "row and column (pattern file)"
                                                         : "value");
    }
    const int keep = d->keep_hi < 0 || (d->I[q] >= d->keep_lo && d->I[q] < d->keep_hi) ||
                     (d->symmetric && d->J[q] >= d->keep_lo && d->J[q] < d->keep_hi);
    if (keep) d->count = q + 1;
  }
  /* Only blank lines and comments may follow. */
  MISPC_TRY(mispc_lines_next_data(lr, &line, &len));
  if (line)
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "extra entry: the size line (line %lld) declares %lld entries",
                             (long long)size_line, (long long)d->nent);
  return MISPC_SUCCESS;
}

mispc_status mispc_read_mtx(mispc_context *ctx, const char *path, mispc_csr *out) {
  mispc_lines *lr;
  MISPC_TRY(mispc_lines_open_csr(ctx, path, "MatrixMarket", out, &lr));
  mtx_data d;
  memset(&d, 0, sizeof d);
  d.keep_hi = -1;
  mispc_status s = mtx_banner(lr, &d);
  if (!s) s = mtx_size_line(lr, &d);
  if (!s) s = mtx_entries(lr, &d);
  mispc_lines_close(lr);
  /* A real or integer file without entries still has (empty) values. */
  double no_values = 0.0;
  if (!s)
    s = mispc_csr_from_coo(ctx, d.nrows, d.ncols, d.count, d.I, d.J,
                           d.field == FIELD_PATTERN ? NULL
                           : d.V                    ? d.V
                                                    : &no_values,
                           d.symmetric ? MISPC_COO_SYMMETRIC : 0, out);
  free(d.I);
  free(d.J);
  free(d.V);
  if (s) memset(out, 0, sizeof *out);
  return s;
}

mispc_status mispc_read_mtx_sizes(mispc_context *ctx, const char *path, int64_t *nrows,
                                  int64_t *ncols) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  mispc_lines *lr;
  MISPC_TRY(mispc_lines_open(ctx, path, &lr));
  mtx_data d;
  memset(&d, 0, sizeof d);
  mispc_status s = mtx_banner(lr, &d);
  if (!s) s = mtx_size_line(lr, &d);
  mispc_lines_close(lr);
  if (!s) *nrows = d.nrows, *ncols = d.ncols;
  return s;
}

mispc_status mispc_read_mtx_rows(mispc_context *ctx, const char *path, int64_t r0, int64_t r1,
                                 int64_t *nrows, int64_t *ncols, mispc_csr *rows) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  memset(rows, 0, sizeof *rows);
  mispc_lines *lr;
  MISPC_TRY(mispc_lines_open(ctx, path, &lr));
  mtx_data d;
  memset(&d, 0, sizeof d);
  d.keep_lo = r0;
  d.keep_hi = r1;
  mispc_status s = mtx_banner(lr, &d);
  if (!s) s = mtx_size_line(lr, &d);
  if (!s && (r0 < 0 || r1 < r0 || r1 > d.nrows))
    s = mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: rows [%lld, %lld) outside [0, %lld)", path,
                     (long long)r0, (long long)r1, (long long)d.nrows);
  if (!s) s = mtx_entries(lr, &d);
  mispc_lines_close(lr);
  /* This rank's rows: the kept entries, and for a symmetric file the mirror
   * (j, i) of every off-diagonal (i, j) whose j is here, as mispc_read_mtx's
   * MISPC_COO_SYMMETRIC makes them; rows shifted to start at r0. */
  int64_t m = 0;
  int32_t *I = NULL, *J = NULL;
  double *V = NULL;
  if (!s) {
    const int64_t cap = d.symmetric ? 2 * d.count : d.count;
    I = (int32_t *)mispc_host_alloc_n(ctx, cap + 1, sizeof(int32_t), "rows");
    J = (int32_t *)mispc_host_alloc_n(ctx, cap + 1, sizeof(int32_t), "columns");
    V = d.field == FIELD_PATTERN
            ? NULL
            : (double *)mispc_host_alloc_n(ctx, cap + 1, sizeof(double), "values");
    if (!I || !J || (d.field != FIELD_PATTERN && !V)) s = MISPC_ERR_ALLOC;
  }
  for (int64_t k = 0; !s && k < d.count; ++k) {
    if (d.I[k] >= r0 && d.I[k] < r1) {
      I[m] = (int32_t)(d.I[k] - r0), J[m] = d.J[k];
      if (V) V[m] = d.V[k];
      ++m;
    }
    if (d.symmetric && d.I[k] != d.J[k] && d.J[k] >= r0 && d.J[k] < r1) {
      I[m] = (int32_t)(d.J[k] - r0), J[m] = d.I[k];
      if (V) V[m] = d.V[k];
      ++m;
    }
  }
  double no_values = 0.0;
  if (!s)
    s = mispc_csr_from_coo(ctx, r1 - r0, d.ncols, m, I, J,
                           d.field == FIELD_PATTERN ? NULL
                           : V                      ? V
                                                    : &no_values,
                           0, rows);
  if (!s) {
    *nrows = d.nrows;
    *ncols = d.ncols;
  }
  free(I), free(J), free(V);
  free(d.I), free(d.J), free(d.V);
  return s;
}

/* ---- MatrixMarket writer ---------------------------------------------------- */

typedef struct mtx_writer {
  mispc_io_file f;
  char buf[1 << 16];
  size_t pos;
  int failed;
  int err; /* errno of the first failure */
} mtx_writer;

/* Empties the buffer; after a failure the rest of the output is dropped. */
static void writer_flush(mtx_writer *w) {
  if (w->pos == 0 || w->failed) {
    w->pos = 0;
    return;
  }
  errno = 0;
  int ok;
#ifdef MISPC_HAVE_ZLIB
  if (w->f.gz)
    ok = gzwrite(w->f.gz, w->buf, (unsigned)w->pos) == (int)w->pos;
  else
#endif
    ok = fwrite(w->buf, 1, w->pos, w->f.fp) == w->pos;
  if (!ok) {
    w->failed = 1;
    w->err = errno;
  }
  w->pos = 0;
}

static size_t put_i64(char *s, int64_t v) {
  char tmp[24];
  size_t n = 0;
  uint64_t x = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  do {
    tmp[n++] = (char)('0' + x % 10);
    x /= 10;
  } while (x);
  size_t k = 0;
  if (v < 0) s[k++] = '-';
  while (n) s[k++] = tmp[--n];
  return k;
}

mispc_status mispc_write_mtx(mispc_context *ctx, const char *path, const mispc_csr *A) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!path) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "MatrixMarket path is NULL");
  MISPC_TRY(mispc_csr_check_desc(ctx, A, "matrix"));
  mispc_csr H;
  MISPC_TRY(mispc_csr_host_view(ctx, A, &H));
  mispc_status s = mispc_csr_check(ctx, &H, MISPC_CHECK_INDICES);
  if (s) {
    mispc_csr_free(ctx, &H);
    return s;
  }
  mtx_writer *w = (mtx_writer *)calloc(1, sizeof *w);
  if (!w) {
    mispc_csr_free(ctx, &H);
    return mispc_seterr(ctx, MISPC_ERR_ALLOC, "out of host memory writing %s", path);
  }
  w->f.ctx = ctx;
  w->f.path = path;
  int opened;
  errno = 0;
  if (mispc_ends_with_gz(path)) {
#ifdef MISPC_HAVE_ZLIB
    w->f.gz = gzopen(path, "wb1"); /* fastest level: matrices can be large */
    opened = w->f.gz != NULL;
#else
    free(w);
    mispc_csr_free(ctx, &H);
    return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED, "cannot write %s: mispc was built without zlib",
                        path);
#endif
  } else {
    w->f.fp = fopen(path, "wb");
    opened = w->f.fp != NULL;
  }
  if (!opened) {
    int e = errno;
    free(w);
    mispc_csr_free(ctx, &H);
    return mispc_seterr(ctx, MISPC_ERR_IO, "cannot open %s for writing: %s", path,
                        e ? strerror(e) : "out of memory");
  }
  w->pos = (size_t)snprintf(
      w->buf, sizeof w->buf, "%%%%MatrixMarket matrix coordinate %s general\n%lld %lld %lld\n",
      H.values ? "real" : "pattern", (long long)H.nrows, (long long)H.ncols, (long long)H.nnz);
  for (int64_t i = 0; i < H.nrows && !w->failed; ++i) {
    for (int64_t p = H.rowptr[i]; p < H.rowptr[i + 1]; ++p) {
      if (sizeof w->buf - w->pos < 96) writer_flush(w);
      char *o = w->buf + w->pos;
      size_t n = put_i64(o, i + 1);
      o[n++] = ' ';
      n += put_i64(o + n, (int64_t)H.colidx[p] + 1);
      if (H.values) {
        o[n++] = ' ';
        n += (size_t)snprintf(o + n, 40, "%.17g", H.values[p]);
      }
      o[n++] = '\n';
      w->pos += n;
    }
  }
  writer_flush(w);
  errno = 0;
  int close_failed; /* close flushes the stdio / zlib buffers */
#ifdef MISPC_HAVE_ZLIB
  if (w->f.gz)
    close_failed = gzclose(w->f.gz) != Z_OK;
  else
#endif
    close_failed = fclose(w->f.fp) != 0;
  int e = w->failed ? w->err : errno;
  s = MISPC_SUCCESS;
  if (w->failed || close_failed)
    s = mispc_seterr(ctx, MISPC_ERR_IO, "error writing %s: %s", path,
                     e ? strerror(e) : "write failed");
  free(w);
  mispc_csr_free(ctx, &H);
  return s;
}
