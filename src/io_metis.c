/* METIS graph files: header "n m [fmt [ncon]]", then one line per vertex with
 * its 1-based neighbours. Weights are parsed and dropped. The distributed
 * loader reads rows [r0, r1) only: every line is parsed and checked (so
 * every rank finds the same errors), only the range's entries are kept. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csr_build.h"

#include "io_lines.h"
#include "io_rows.h"

static char *skip_blanks(char *p) {
  while (is_blank(*p)) ++p;
  return p;
}

typedef struct metis_data {
  int64_t n, m, nadj;
  int has_vsize, has_vwgt, has_ewgt;
  int64_t ncon;
  int64_t header_line;
  int64_t count;     /* adjacency entries read */
  int64_t r0, r1;    /* the rows kept */
  int64_t kept, cap; /* entries kept and their room */
  int32_t *I, *J;    /* kept entries: row - r0, column */
} metis_data;

static mispc_status metis_header(mispc_lines *lr, metis_data *d) {
  char *line;
  size_t len;
  MISPC_TRY(mispc_lines_next_data(lr, &line, &len));
  if (!line)
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "no METIS header \"VERTICES EDGES [FMT [NCON]]\" in the file");
  d->header_line = mispc_lines_number(lr);
  char *p = line;
  char tok[40];
  int64_t v[4] = {0, 0, 0, 1};
  int nv = 0;
  for (; nv < 4; ++nv) {
    p = skip_blanks(p);
    if (!*p) break;
    int r = mispc_lines_int(&p, &v[nv]);
    if (r < 0)
      return mispc_lines_error(lr, MISPC_ERR_OVERFLOW, "header: a number does not fit 64 bits");
    if (r == 0)
      return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                               "bad METIS header: expected \"VERTICES EDGES [FMT [NCON]]\", found "
                               "\"%s\"",
                               mispc_lines_token(p, tok, sizeof tok));
  }
  p = skip_blanks(p);
  if (*p || nv < 2)
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "bad METIS header: expected \"VERTICES EDGES [FMT [NCON]]\"");
  if (v[0] < 0 || v[1] < 0)
    return mispc_lines_error(lr, MISPC_ERR_FORMAT, "negative size in the METIS header (%lld %lld)",
                             (long long)v[0], (long long)v[1]);
  if (v[0] > INT32_MAX)
    return mispc_lines_error(lr, MISPC_ERR_OVERFLOW,
                             "%lld vertices do not fit 32-bit indices (at most %d)",
                             (long long)v[0], INT32_MAX);
  if (v[1] > INT64_MAX / 2)
    return mispc_lines_error(lr, MISPC_ERR_OVERFLOW, "%lld edges: too many", (long long)v[1]);
  /* fmt is three binary digits: vertex sizes, vertex weights, edge weights. */
  int64_t fmt = v[2];
  if (fmt < 0 || fmt > 111 || fmt % 10 > 1 || fmt / 10 % 10 > 1)
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "bad METIS fmt %lld (expected 0, 1, 10, 11, 100, 101, 110 or 111)",
                             (long long)fmt);
  if (v[3] < 1)
    return mispc_lines_error(lr, MISPC_ERR_FORMAT, "bad METIS ncon %lld (must be at least 1)",
                             (long long)v[3]);
  d->n = v[0];
  d->m = v[1];
  d->nadj = 2 * v[1];
  d->has_vsize = fmt >= 100;
  d->has_vwgt = fmt / 10 % 10 == 1;
  d->has_ewgt = fmt % 10 == 1;
  d->ncon = v[3];
  MISPC_TRY(mispc_lines_check_size(lr, d->n, d->n, d->nadj, "the header"));
  /* An adjacency line may list many neighbours (a hub of a power-law
   * graph): its bound follows the declared edges, 64 bytes per adjacency
   * entry and per vertex weight, beyond the default 1 MiB. */
  double room = 64.0 * ((double)d->nadj + (double)d->ncon + 1.0) + (double)MISPC_LINE_MAX;
  mispc_lines_set_max_line(lr, room < (double)(SIZE_MAX / 4) ? (size_t)room : SIZE_MAX / 4);
  return MISPC_SUCCESS;
}

/* Skips one weight (any number) at *p; 0 if there is none. */
static int skip_number(char **p) {
  char *s = skip_blanks(*p);
  char *e;
  (void)strtod(s, &e);
  if (e == s || (*e && !is_blank(*e))) return 0;
  *p = e;
  return 1;
}

static mispc_status metis_reserve(mispc_lines *lr, metis_data *d) {
  if (d->kept < d->cap) return MISPC_SUCCESS;
  int64_t ncap = d->cap ? d->cap * 2 : ((int64_t)1 << 16);
  if (ncap > d->nadj) ncap = d->nadj;
  int32_t *I = (int32_t *)realloc(d->I, (size_t)ncap * sizeof(int32_t));
  if (I) d->I = I;
  int32_t *J = I ? (int32_t *)realloc(d->J, (size_t)ncap * sizeof(int32_t)) : NULL;
  if (J) d->J = J;
  if (!I || !J)
    return mispc_lines_error(lr, MISPC_ERR_ALLOC, "out of host memory for %lld adjacency entries",
                             (long long)ncap);
  d->cap = ncap;
  return MISPC_SUCCESS;
}

static mispc_status metis_vertex(mispc_lines *lr, metis_data *d, int64_t vtx, char *line) {
  char tok[40];
  char *p = line;
  int64_t nskip = (d->has_vsize ? 1 : 0) + (d->has_vwgt ? d->ncon : 0);
  for (int64_t k = 0; k < nskip; ++k)
    if (!skip_number(&p))
      return mispc_lines_error(
          lr, MISPC_ERR_FORMAT, "vertex %lld: expected %lld number%s (%s) before the neighbours",
          (long long)vtx + 1, (long long)nskip, nskip > 1 ? "s" : "",
          d->has_vsize ? (d->has_vwgt ? "size and weights" : "size") : "weights");
  for (;;) {
    p = skip_blanks(p);
    if (!*p) break;
    char *start = p;
    int64_t x = 0;
    int r = mispc_lines_int(&p, &x);
    if (r == 0)
      return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                               "vertex %lld: expected a neighbour index, found \"%s\"",
                               (long long)vtx + 1, mispc_lines_token(start, tok, sizeof tok));
    if (r < 0 || x < 1 || x > d->n)
      return mispc_lines_error(lr, MISPC_ERR_INDEX_RANGE,
                               "vertex %lld: neighbour %s out of range 1..%lld", (long long)vtx + 1,
                               mispc_lines_token(start, tok, sizeof tok), (long long)d->n);
    if (d->has_ewgt && !skip_number(&p))
      return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                               "vertex %lld: neighbour %lld has no edge weight (fmt says edge "
                               "weights follow each neighbour)",
                               (long long)vtx + 1, (long long)x);
    if (d->count >= d->nadj)
      return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                               "more than %lld adjacency entries, but the header (line %lld) "
                               "declares %lld edges (each edge is listed twice)",
                               (long long)d->nadj, (long long)d->header_line, (long long)d->m);
    ++d->count;
    if (vtx < d->r0 || vtx >= d->r1) continue;
    MISPC_TRY(metis_reserve(lr, d));
    d->I[d->kept] = (int32_t)(vtx - d->r0);
    d->J[d->kept] = (int32_t)(x - 1);
    ++d->kept;
  }
  return MISPC_SUCCESS;
}

static mispc_status metis_body(mispc_lines *lr, metis_data *d) {
  char *line;
  size_t len;
  for (int64_t v = 0; v < d->n; ++v) {
    /* Comment lines are skipped; a blank line is a vertex without neighbours. */
    do {
      MISPC_TRY(mispc_lines_next(lr, &line, &len));
      if (!line)
        return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                                 "file ends after %lld of the %lld vertex lines declared on line "
                                 "%lld",
                                 (long long)v, (long long)d->n, (long long)d->header_line);
    } while (*skip_blanks(line) == '%');
    if (strlen(line) != len)
      return mispc_lines_error(lr, MISPC_ERR_FORMAT, "NUL byte in line (binary file?)");
    MISPC_TRY(metis_vertex(lr, d, v, line));
  }
  MISPC_TRY(mispc_lines_next_data(lr, &line, &len));
  if (line)
    return mispc_lines_error(lr, MISPC_ERR_FORMAT,
                             "extra line after the %lld vertex lines declared on line %lld",
                             (long long)d->n, (long long)d->header_line);
  return MISPC_SUCCESS;
}

/* Rows [r0, r1) (clipped to the file's) into *out (r1 - r0 rows, n columns);
 * sizes_only: the header alone. */
static mispc_status metis_read(mispc_context *ctx, const char *path, int64_t r0, int64_t r1,
                               int sizes_only, int64_t *n, mispc_csr *out) {
  mispc_lines *lr;
  MISPC_TRY(mispc_lines_open_csr(ctx, path, "METIS graph", out, &lr));
  metis_data d;
  memset(&d, 0, sizeof d);
  mispc_status s = metis_header(lr, &d);
  d.r0 = r0 < 0 ? 0 : r0 > d.n ? d.n : r0;
  d.r1 = r1 < d.r0 ? d.r0 : r1 > d.n ? d.n : r1;
  if (!s && !sizes_only) s = metis_body(lr, &d);
  mispc_lines_close(lr);
  /* Too few entries: the header line is what disagrees with the lists. */
  if (!s && !sizes_only && d.count != d.nadj)
    s = mispc_seterr(ctx, MISPC_ERR_FORMAT,
                     "%s:%lld: the header declares %lld edges (%lld adjacency entries, each edge "
                     "listed twice), but the %lld vertex lines hold %lld entries",
                     path, (long long)d.header_line, (long long)d.m, (long long)d.nadj,
                     (long long)d.n, (long long)d.count);
  if (!s) *n = d.n;
  if (!s && !sizes_only)
    s = mispc_csr_from_coo(ctx, d.r1 - d.r0, d.n, d.kept, d.I, d.J, NULL, 0, out);
  free(d.I);
  free(d.J);
  if (s) memset(out, 0, sizeof *out);
  return s;
}

mispc_status mispc_read_metis(mispc_context *ctx, const char *path, mispc_csr *out) {
  int64_t n = 0;
  return metis_read(ctx, path, 0, INT64_MAX, 0, &n, out);
}

mispc_status mispc_read_metis_sizes(mispc_context *ctx, const char *path, int64_t *n) {
  mispc_csr none;
  return metis_read(ctx, path, 0, 0, 1, n, &none);
}

mispc_status mispc_read_metis_rows(mispc_context *ctx, const char *path, int64_t r0, int64_t r1,
                                   int64_t *n, mispc_csr *rows) {
  return metis_read(ctx, path, r0, r1, 0, n, rows);
}
