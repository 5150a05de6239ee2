/* MatrixMarket and METIS readers, the MatrixMarket writer, and mispc_load. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "test_util.h"

static mispc_context *ctx;

/* Paths in the data and scratch directories (a few rotating buffers). */
static const char *path_in(const char *dir, const char *name) {
  static char bufs[4][1024];
  static int next = 0;
  char *b = bufs[next++ % 4];
  snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
  return b;
}
#define DATA(name) path_in(MISPC_TEST_DATA, name)
#define TMP(name)  path_in(MISPC_TEST_TMP, "test_io_" name)

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  CHECK_MSG(f != NULL, "cannot create %s", path);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

/* HEAD, n copies of c, then TAIL: a text with one long line (malloc'd, the
 * caller frees it; NULL, a failed check, when out of memory). */
static char *long_text(const char *head, char c, size_t n, const char *tail) {
  const size_t h = strlen(head);
  char *text = (char *)malloc(h + n + strlen(tail) + 1);
  CHECK(text != NULL);
  if (!text) return NULL;
  memcpy(text, head, h);
  memset(text + h, c, n);
  strcpy(text + h + n, tail);
  return text;
}

static void copy_file(const char *from, const char *to) {
  FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
  CHECK(a && b);
  if (a && b) {
    char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0) fwrite(buf, 1, n, b);
  }
  if (a) fclose(a);
  if (b) fclose(b);
}

static int csr_equal(const mispc_csr *A, const mispc_csr *B) {
  if (A->nrows != B->nrows || A->ncols != B->ncols || A->nnz != B->nnz) return 0;
  if (memcmp(A->rowptr, B->rowptr, (size_t)(A->nrows + 1) * sizeof(int64_t))) return 0;
  if (A->nnz && memcmp(A->colidx, B->colidx, (size_t)A->nnz * sizeof(int32_t))) return 0;
  if ((A->values == NULL) != (B->values == NULL)) return 0;
  if (A->values && A->nnz && memcmp(A->values, B->values, (size_t)A->nnz * sizeof(double)))
    return 0;
  return 1;
}

static int csr_is_zeroed(const mispc_csr *A) {
  return A->nrows == 0 && A->ncols == 0 && A->nnz == 0 && !A->rowptr && !A->colidx && !A->values &&
         A->owned == 0;
}

/* Value of entry (i, j) (0-based), or NAN if absent. */
static double entry_at(const mispc_csr *A, int64_t i, int32_t j) {
  for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; ++p)
    if (A->colidx[p] == j) return A->values ? A->values[p] : 1.0;
  return NAN;
}

typedef mispc_status (*reader_fn)(mispc_context *, const char *, mispc_csr *);

/* Writes text to path, expects reader to fail with `expected`, a zeroed
 * output, and (line > 0) a message "PATH:LINE: ..." on one line. */
static void expect_fail(reader_fn reader, const char *path, const char *text, mispc_status expected,
                        int line, const char *needle) {
  if (text) write_file(path, text);
  mispc_csr A;
  memset(&A, 0x5a, sizeof A); /* garbage: a failed read must zero it */
  mispc_context_clear_error(ctx);
  mispc_status s = reader(ctx, path, &A);
  const char *msg = mispc_context_error(ctx);
  CHECK_MSG(s == expected, "%s: got %s, expected %s (%s)", path, mispc_strerror(s),
            mispc_strerror(expected), msg);
  CHECK_MSG(csr_is_zeroed(&A), "%s: output not zeroed after failure", path);
  CHECK_MSG(strstr(msg, path) != NULL, "%s: message does not name the file: %s", path, msg);
  CHECK_MSG(strchr(msg, '\n') == NULL, "%s: message spans lines: %s", path, msg);
  if (line > 0) {
    char want[1100];
    snprintf(want, sizeof want, "%s:%d: ", path, line);
    CHECK_MSG(strstr(msg, want) != NULL, "%s: expected \"%s\" in: %s", path, want, msg);
  }
  if (needle) CHECK_MSG(strstr(msg, needle) != NULL, "expected \"%s\" in: %s", needle, msg);
  if (s == MISPC_SUCCESS) mispc_csr_free(ctx, &A);
}

static void test_read_bcsstk13(void) {
  mispc_csr A;
  CHECK_OK(ctx, mispc_read_mtx(ctx, DATA("bcsstk13.mtx"), &A));
  CHECK(A.nrows == 2003 && A.ncols == 2003);
  CHECK_MSG(A.nnz == 2 * 42943 - 2003, "nnz %lld", (long long)A.nnz);
  CHECK(A.values != NULL && A.mem == MISPC_MEM_HOST && A.owned == 1);
  CHECK_OK(ctx, mispc_csr_check(ctx, &A,
                                MISPC_CHECK_SQUARE | MISPC_CHECK_SORTED | MISPC_CHECK_SYMMETRIC));
  mispc_csr_stats st;
  CHECK_OK(ctx, mispc_csr_get_stats(ctx, &A, &st));
  CHECK(st.symmetric_pattern == 1);
  CHECK(st.symmetric_values == 1);
  /* First two lines of data: "1 1 277281165.183" and "2 1 3101923.80092". */
  CHECK(entry_at(&A, 0, 0) == 277281165.183);
  CHECK(entry_at(&A, 1, 0) == 3101923.80092);
  CHECK(entry_at(&A, 0, 1) == 3101923.80092);
  mispc_csr_free(ctx, &A);
  CHECK(csr_is_zeroed(&A));
}

static void test_read_delaunay(void) {
  mispc_csr A;
  CHECK_OK(ctx, mispc_read_mtx(ctx, DATA("delaunay_n14.mtx"), &A));
  CHECK(A.nrows == 16384 && A.ncols == 16384);
  CHECK_MSG(A.nnz == 2 * 49122, "nnz %lld", (long long)A.nnz);
  CHECK(A.values == NULL);
  CHECK_OK(ctx, mispc_csr_check(ctx, &A, MISPC_CHECK_GRAPH | MISPC_CHECK_NO_SELF_LOOPS));
  mispc_csr_free(ctx, &A);
}

static void check_metis(const char *name, int64_t n, int64_t m) {
  mispc_csr A;
  CHECK_OK(ctx, mispc_read_metis(ctx, DATA(name), &A));
  CHECK_MSG(A.nrows == n && A.ncols == n, "%s: %lld x %lld", name, (long long)A.nrows,
            (long long)A.ncols);
  CHECK_MSG(A.nnz == 2 * m, "%s: nnz %lld", name, (long long)A.nnz);
  CHECK(A.values == NULL);
  CHECK_OK(ctx, mispc_csr_check(ctx, &A, MISPC_CHECK_GRAPH | MISPC_CHECK_NO_SELF_LOOPS));
  mispc_csr_free(ctx, &A);
}

static void test_read_metis_files(void) {
  check_metis("fe_4elt2.metis.graph", 11143, 32818);
  check_metis("PGPgiantcompo.metis.graph", 10680, 24316);
}

/* Write, read back, compare bit for bit. */
static void roundtrip(const mispc_csr *A, const char *path) {
  mispc_csr B;
  CHECK_OK(ctx, mispc_write_mtx(ctx, path, A));
  CHECK_OK(ctx, mispc_read_mtx(ctx, path, &B));
  CHECK_MSG(csr_equal(A, &B), "%s: round trip differs", path);
  mispc_csr_free(ctx, &B);
}

static void test_roundtrip_real(void) {
  mispc_csr A;
  CHECK_OK(ctx, mispc_read_mtx(ctx, DATA("bcsstk13.mtx"), &A));
  roundtrip(&A, TMP("rt_bcsstk13.mtx"));
  mispc_csr_free(ctx, &A);

  /* Awkward values, a non-square shape and an empty row. */
  static const double vals[] = {1.0 / 3.0,         -0.0, 4.9e-324, DBL_MAX, -DBL_MIN,
                                3.141592653589793, 1e22, -7.0};
  int64_t rowptr[] = {0, 3, 3, 6, 8};
  int32_t colidx[] = {0, 2, 4, 1, 3, 4, 0, 4};
  mispc_csr W;
  CHECK_OK(ctx, mispc_csr_wrap(MISPC_MEM_HOST, 4, 5, 8, rowptr, colidx, (double *)vals, &W));
  roundtrip(&W, TMP("rt_small.mtx"));
  /* Negative zero survives (memcmp above checks bits; make it explicit). */
  mispc_csr B;
  CHECK_OK(ctx, mispc_read_mtx(ctx, TMP("rt_small.mtx"), &B));
  if (B.values) CHECK(signbit(B.values[1]) && B.values[1] == 0.0);
  mispc_csr_free(ctx, &B);

  /* Empty matrices. */
  int64_t rp0[] = {0, 0, 0};
  CHECK_OK(ctx, mispc_csr_wrap(MISPC_MEM_HOST, 2, 3, 0, rp0, NULL, NULL, &W));
  roundtrip(&W, TMP("rt_empty.mtx"));
  CHECK_OK(ctx, mispc_csr_wrap(MISPC_MEM_HOST, 0, 0, 0, rp0, NULL, NULL, &W));
  roundtrip(&W, TMP("rt_zero.mtx"));
}

static void test_roundtrip_pattern(void) {
  mispc_csr A;
  CHECK_OK(ctx, mispc_read_mtx(ctx, DATA("delaunay_n14.mtx"), &A));
  roundtrip(&A, TMP("rt_delaunay.mtx"));
  FILE *f = fopen(TMP("rt_delaunay.mtx"), "rb");
  char line[128] = "";
  CHECK(f && fgets(line, sizeof line, f));
  CHECK_MSG(strcmp(line, "%%MatrixMarket matrix coordinate pattern general\n") == 0, "banner %s",
            line);
  if (f) fclose(f);
  mispc_csr_free(ctx, &A);
}

/* Gzip: mispc may or may not have been built with zlib; both answers are
 * checked for consistency. */
static void test_gzip(void) {
  mispc_csr A, B;
  CHECK_OK(ctx, mispc_read_mtx(ctx, DATA("bcsstk13.mtx"), &A));
  const char *gz = TMP("gz_bcsstk13.mtx.gz");
  char cmd[3000];
  snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s' 2>/dev/null", DATA("bcsstk13.mtx"), gz);
  int have_gzip = system(cmd) == 0;
  int have_zlib = -1;
  if (have_gzip) {
    mispc_status s = mispc_read_mtx(ctx, gz, &B);
    CHECK_MSG(s == MISPC_SUCCESS || s == MISPC_ERR_UNSUPPORTED, "%s", mispc_context_error(ctx));
    have_zlib = s == MISPC_SUCCESS;
    if (s == MISPC_SUCCESS) {
      CHECK(csr_equal(&A, &B));
      mispc_csr_free(ctx, &B);
      /* Truncated compressed data is an error, not a short matrix. */
      FILE *in = fopen(gz, "rb"), *out = fopen(TMP("gz_trunc.mtx.gz"), "wb");
      CHECK(in && out);
      if (in && out) {
        char buf[50000];
        size_t n = fread(buf, 1, sizeof buf, in);
        fwrite(buf, 1, n / 2, out);
      }
      if (in) fclose(in);
      if (out) fclose(out);
      memset(&B, 0x5a, sizeof B);
      s = mispc_read_mtx(ctx, TMP("gz_trunc.mtx.gz"), &B);
      CHECK_MSG(s == MISPC_ERR_IO || s == MISPC_ERR_FORMAT, "truncated gzip: %s",
                mispc_strerror(s));
      CHECK(csr_is_zeroed(&B));
    } else {
      CHECK(strstr(mispc_context_error(ctx), "zlib") != NULL);
      CHECK(csr_is_zeroed(&B));
    }
  } else {
    printf("  (gzip not available: skipping the gzip read check)\n");
  }
  /* Writing ".gz" compresses (with zlib) or is refused (without). */
  const char *wgz = TMP("gz_written.mtx.gz");
  mispc_status s = mispc_write_mtx(ctx, wgz, &A);
  CHECK(s == MISPC_SUCCESS || s == MISPC_ERR_UNSUPPORTED);
  if (have_zlib >= 0) CHECK(have_zlib == (s == MISPC_SUCCESS));
  if (s == MISPC_SUCCESS) {
    FILE *f = fopen(wgz, "rb");
    unsigned char magic[2] = {0, 0};
    CHECK(f && fread(magic, 1, 2, f) == 2);
    CHECK(magic[0] == 0x1f && magic[1] == 0x8b);
    if (f) fclose(f);
    CHECK_OK(ctx, mispc_read_mtx(ctx, wgz, &B));
    CHECK(csr_equal(&A, &B));
    mispc_csr_free(ctx, &B);
    /* mispc_load knows ".mtx.gz". */
    CHECK_OK(ctx, mispc_load(ctx, wgz, &B));
    CHECK(csr_equal(&A, &B));
    mispc_csr_free(ctx, &B);
  }
  mispc_csr_free(ctx, &A);
}

#define MM_REAL "%%MatrixMarket matrix coordinate real general\n"

static void test_mtx_valid_variants(void) {
  mispc_csr A;
  /* Comments, blank lines, CRLF, tabs, leading blanks, duplicates summed,
   * comment and blank lines after the data, no final newline. */
  write_file(TMP("ok1.mtx"), "%%MatrixMarket  Matrix Coordinate Real General\r\n"
                             "% a comment\r\n\r\n   \r\n"
                             "% another\r\n"
                             "  3 4\t4  \r\n"
                             "1 1 1.5\r\n"
                             "\t3 4 -2e-3\r\n"
                             "1 1 2.5\r\n"
                             "2 2 7\r\n"
                             "\r\n% trailing comment\r\n   ");
  CHECK_OK(ctx, mispc_read_mtx(ctx, TMP("ok1.mtx"), &A));
  CHECK(A.nrows == 3 && A.ncols == 4 && A.nnz == 3);
  if (A.nnz == 3) {
    CHECK(A.rowptr[1] == 1 && A.rowptr[2] == 2 && A.rowptr[3] == 3);
    CHECK(A.colidx[0] == 0 && A.values[0] == 4.0);
    CHECK(A.colidx[1] == 1 && A.values[1] == 7.0);
    CHECK(A.colidx[2] == 3 && A.values[2] == -2e-3);
  }
  mispc_csr_free(ctx, &A);

  /* Integer field, symmetric: off-diagonals mirrored, diagonal once. */
  write_file(TMP("ok_int.mtx"), "%%MatrixMarket matrix coordinate integer symmetric\n"
                                "3 3 3\n1 1 4\n3 1 -2\n3 3 9");
  CHECK_OK(ctx, mispc_read_mtx(ctx, TMP("ok_int.mtx"), &A));
  CHECK(A.nrows == 3 && A.nnz == 4 && A.values);
  if (A.nnz == 4) {
    CHECK(entry_at(&A, 0, 0) == 4 && entry_at(&A, 2, 0) == -2 && entry_at(&A, 0, 2) == -2);
    CHECK(entry_at(&A, 2, 2) == 9);
    CHECK(A.rowptr[2] - A.rowptr[1] == 0);
  }
  mispc_csr_free(ctx, &A);

  /* Pattern general; no entries at all. */
  write_file(TMP("ok_pat.mtx"),
             "%%MatrixMarket matrix coordinate pattern general\n2 3 2\n2 3\n1 2\n");
  CHECK_OK(ctx, mispc_read_mtx(ctx, TMP("ok_pat.mtx"), &A));
  CHECK(A.nrows == 2 && A.ncols == 3 && A.nnz == 2 && A.values == NULL);
  if (A.nnz == 2) CHECK(A.colidx[0] == 1 && A.colidx[1] == 2);
  mispc_csr_free(ctx, &A);
  write_file(TMP("ok_empty.mtx"), MM_REAL "5 5 0\n");
  CHECK_OK(ctx, mispc_read_mtx(ctx, TMP("ok_empty.mtx"), &A));
  CHECK(A.nrows == 5 && A.nnz == 0 && A.rowptr && A.rowptr[5] == 0);
  /* An empty real (or integer) file is real: values present, empty. */
  CHECK_MSG(A.values != NULL, "empty real file read as a pattern");
  mispc_csr_free(ctx, &A);
  write_file(TMP("ok_empty0.mtx"), MM_REAL "0 0 0\n");
  CHECK_OK(ctx, mispc_read_mtx(ctx, TMP("ok_empty0.mtx"), &A));
  CHECK(A.nrows == 0 && A.ncols == 0 && A.nnz == 0 && A.values != NULL);
  mispc_csr_free(ctx, &A);
  write_file(TMP("ok_empty_int.mtx"), "%%MatrixMarket matrix coordinate integer general\n0 0 0\n");
  CHECK_OK(ctx, mispc_read_mtx(ctx, TMP("ok_empty_int.mtx"), &A));
  CHECK(A.nnz == 0 && A.values != NULL);
  mispc_csr_free(ctx, &A);
  write_file(TMP("ok_empty_pat.mtx"), "%%MatrixMarket matrix coordinate pattern general\n0 0 0\n");
  CHECK_OK(ctx, mispc_read_mtx(ctx, TMP("ok_empty_pat.mtx"), &A));
  CHECK(A.nnz == 0 && A.values == NULL);
  mispc_csr_free(ctx, &A);

  /* Underflow is not an error: 1e-400 reads as 0 (or a subnormal). */
  write_file(TMP("ok_tiny.mtx"), MM_REAL "1 1 1\n1 1 1e-400\n");
  CHECK_OK(ctx, mispc_read_mtx(ctx, TMP("ok_tiny.mtx"), &A));
  CHECK(A.nnz == 1 && A.values && fabs(A.values[0]) < 1e-300);
  mispc_csr_free(ctx, &A);

  /* Symmetric: diagonal and lower-triangle entries are what the format
   * stores; a declared size within 64 x entries + 2^20 is fine. */
  write_file(TMP("ok_sym_lower.mtx"), "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                      "500000 500000 3\n1 1\n2 1\n500000 2\n");
  CHECK_OK(ctx, mispc_read_mtx(ctx, TMP("ok_sym_lower.mtx"), &A));
  CHECK(A.nrows == 500000 && A.nnz == 5);
  mispc_csr_free(ctx, &A);

  /* A 900 KiB comment line: longer than the reader's first buffer, within
   * the 1 MiB limit of one line (test_mtx_limits checks the limit). */
  char *text = long_text(MM_REAL "%", 'x', (size_t)900 << 10, "\n2 2 1\n2 1 3.25\n");
  if (text) {
    write_file(TMP("ok_long.mtx"), text);
    free(text);
    CHECK_OK(ctx, mispc_read_mtx(ctx, TMP("ok_long.mtx"), &A));
    CHECK(A.nrows == 2 && A.nnz == 1 && A.values && A.values[0] == 3.25 && A.colidx[0] == 0);
    mispc_csr_free(ctx, &A);
  }
}

static void test_mtx_malformed(void) {
  reader_fn rd = mispc_read_mtx;
  expect_fail(rd, TMP("bad_banner.mtx"),
              "%%MatrixMarkt matrix coordinate real general\n2 2 1\n1 1 1\n", MISPC_ERR_FORMAT, 1,
              "banner");
  expect_fail(rd, TMP("no_banner.mtx"), "2 2 1\n1 1 1\n", MISPC_ERR_FORMAT, 1, "banner");
  expect_fail(rd, TMP("empty.mtx"), "", MISPC_ERR_FORMAT, 1, "empty");
  expect_fail(rd, TMP("short_banner.mtx"), "%%MatrixMarket matrix coordinate real\n1 1 0\n",
              MISPC_ERR_FORMAT, 1, NULL);
  expect_fail(rd, TMP("bad_field.mtx"), "%%MatrixMarket matrix coordinate rael general\n1 1 0\n",
              MISPC_ERR_FORMAT, 1, "rael");
  expect_fail(rd, TMP("complex.mtx"), "%%MatrixMarket matrix coordinate complex general\n1 1 0\n",
              MISPC_ERR_UNSUPPORTED, 1, "complex");
  expect_fail(rd, TMP("array.mtx"), "%%MatrixMarket matrix array real general\n1 1\n1.0\n",
              MISPC_ERR_UNSUPPORTED, 1, "array");
  expect_fail(rd, TMP("skew.mtx"),
              "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n",
              MISPC_ERR_UNSUPPORTED, 1, "skew-symmetric");
  expect_fail(rd, TMP("bad_size.mtx"), MM_REAL "% c\n2 x 1\n1 1 1\n", MISPC_ERR_FORMAT, 3,
              "size line");
  expect_fail(rd, TMP("size_two.mtx"), MM_REAL "2 2\n", MISPC_ERR_FORMAT, 2, "size line");
  expect_fail(rd, TMP("size_extra.mtx"), MM_REAL "2 2 1 9\n1 1 1\n", MISPC_ERR_FORMAT, 2,
              "size line");
  expect_fail(rd, TMP("neg_size.mtx"), MM_REAL "-2 2 1\n1 1 1\n", MISPC_ERR_FORMAT, 2, "negative");
  expect_fail(rd, TMP("huge_size.mtx"), MM_REAL "3000000000 3 0\n", MISPC_ERR_OVERFLOW, 2, NULL);
  expect_fail(rd, TMP("no_size.mtx"), MM_REAL "% only comments\n\n", MISPC_ERR_FORMAT, 3, NULL);
  expect_fail(rd, TMP("sym_rect.mtx"), "%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n",
              MISPC_ERR_FORMAT, 2, "square");
  expect_fail(rd, TMP("row_range.mtx"), MM_REAL "3 3 2\n1 1 1.0\n4 2 1.0\n", MISPC_ERR_INDEX_RANGE,
              4, "row index 4");
  expect_fail(rd, TMP("col_zero.mtx"), MM_REAL "3 3 2\n1 1 1.0\n2 0 1.0\n", MISPC_ERR_INDEX_RANGE,
              4, "column index 0");
  expect_fail(rd, TMP("col_huge.mtx"), MM_REAL "3 3 1\n1 99999999999999999999 1.0\n",
              MISPC_ERR_INDEX_RANGE, 3, NULL);
  expect_fail(rd, TMP("truncated.mtx"), MM_REAL "3 3 3\n1 1 1\n2 2 1\n", MISPC_ERR_FORMAT, 4,
              "ends after 2 of the 3 entries");
  expect_fail(rd, TMP("truncated0.mtx"), MM_REAL "% c\n3 3 3\n", MISPC_ERR_FORMAT, 3,
              "ends after 0 of the 3");
  expect_fail(rd, TMP("bad_value.mtx"), MM_REAL "2 2 2\n1 1 1.0\n2 2 abc\n", MISPC_ERR_FORMAT, 4,
              "abc");
  expect_fail(rd, TMP("bad_value2.mtx"), MM_REAL "2 2 1\n1 1 1.5x\n", MISPC_ERR_FORMAT, 3, NULL);
  expect_fail(rd, TMP("bad_index.mtx"), MM_REAL "2 2 1\n1.0 1 1.5\n", MISPC_ERR_FORMAT, 3, NULL);
  expect_fail(rd, TMP("bad_int.mtx"),
              "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n",
              MISPC_ERR_FORMAT, 3, NULL);
  expect_fail(rd, TMP("missing_value.mtx"), MM_REAL "2 2 2\n1 1 1\n2 2\n", MISPC_ERR_FORMAT, 4,
              "missing value");
  expect_fail(rd, TMP("missing_col.mtx"), MM_REAL "2 2 1\n1\n", MISPC_ERR_FORMAT, 3, "missing");
  expect_fail(rd, TMP("extra_value.mtx"), MM_REAL "2 2 1\n1 1 1 2\n", MISPC_ERR_FORMAT, 3, NULL);
  expect_fail(rd, TMP("extra_entry.mtx"), MM_REAL "3 3 1\n1 1 1\n\n2 2 2\n", MISPC_ERR_FORMAT, 5,
              "extra entry");
  expect_fail(rd, TMP("blank_entries.mtx"), MM_REAL "3 3 2\n\n\n", MISPC_ERR_FORMAT, 3, "blank");
  expect_fail(rd, TMP("missing_file.mtx"), NULL, MISPC_ERR_IO, 0, "No such file");
  /* A directory opens but cannot be read. */
  expect_fail(rd, MISPC_TEST_TMP, NULL, MISPC_ERR_IO, 0, NULL);

  mispc_csr A;
  CHECK_STATUS(ctx, mispc_read_mtx(ctx, NULL, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_read_mtx(ctx, DATA("bcsstk13.mtx"), NULL), MISPC_ERR_INVALID_ARG);
  /* A NULL context is refused before the file is read (test_errors.c checks
   * every public call). */
  CHECK(mispc_read_mtx(NULL, TMP("truncated.mtx"), &A) == MISPC_ERR_INVALID_ARG);
}

/* Values, triangles, declared sizes and line lengths (issue 33). */
static void test_mtx_limits(void) {
  reader_fn rd = mispc_read_mtx;
  expect_fail(rd, TMP("nan.mtx"), MM_REAL "2 2 2\n1 1 1.0\n2 2 nan\n", MISPC_ERR_FORMAT, 4,
              "\"nan\" is not a finite number");
  expect_fail(rd, TMP("inf.mtx"), MM_REAL "2 2 1\n1 1 -Inf\n", MISPC_ERR_FORMAT, 3, "-Inf");
  expect_fail(rd, TMP("infinity.mtx"), MM_REAL "2 2 1\n1 1 infinity\n", MISPC_ERR_FORMAT, 3,
              "finite");
  expect_fail(rd, TMP("overflow.mtx"), MM_REAL "% c\n2 2 2\n1 1 1\n2 1 1e400\n", MISPC_ERR_FORMAT,
              5, "\"1e400\" is not a finite number");
  expect_fail(rd, TMP("overflow_neg.mtx"),
              "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n2 1 -2e308\n",
              MISPC_ERR_FORMAT, 3, "finite");

  /* Symmetric files list the lower triangle only. */
  expect_fail(rd, TMP("sym_upper.mtx"),
              "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n2 1 -1\n1 2 -1\n",
              MISPC_ERR_FORMAT, 5, "lower triangle only");
  expect_fail(rd, TMP("sym_upper_pat.mtx"),
              "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n2 3\n", MISPC_ERR_FORMAT,
              3, "entry (2, 3) lies above the diagonal");

  /* The declared size follows the entries: 64 x entries + 2^20 rows + cols. */
  expect_fail(rd, TMP("huge_rows.mtx"), MM_REAL "1000000099 1000000099 1\n1 1 1\n",
              MISPC_ERR_FORMAT, 2, "declares 1000000099 x 1000000099 for only 1 entries");
  expect_fail(rd, TMP("huge_rows0.mtx"), MM_REAL "% c\n600000 600000 0\n", MISPC_ERR_FORMAT, 3,
              "mispc_context_set_read_allowance");
  expect_fail(rd, TMP("huge_cols.mtx"),
              "%%MatrixMarket matrix coordinate pattern general\n1 2000000000 2\n1 1\n1 2\n",
              MISPC_ERR_FORMAT, 2, "at most 64 x entries");
  /* At the limit: 2 x 524288 = 2^20 rows + cols with no entries is fine. */
  mispc_csr A;
  write_file(TMP("edge_rows0.mtx"), MM_REAL "524288 524288 0\n");
  CHECK_OK(ctx, mispc_read_mtx(ctx, TMP("edge_rows0.mtx"), &A));
  CHECK(A.nrows == 524288 && A.nnz == 0);
  mispc_csr_free(ctx, &A);
  expect_fail(rd, TMP("edge_rows1.mtx"), MM_REAL "524289 524288 0\n", MISPC_ERR_FORMAT, 2,
              "declares");
  /* An allowance lifts the rule for that context; the row offsets must still
   * fit the machine's memory. */
  CHECK_STATUS(ctx, mispc_context_set_read_allowance(ctx, -1), MISPC_ERR_INVALID_ARG);
  CHECK(strstr(mispc_context_error(ctx), "-1") != NULL);
  CHECK_OK(ctx, mispc_context_set_read_allowance(ctx, 2000000));
  write_file(TMP("allowed.mtx"), MM_REAL "1000000 1000000 1\n1000000 3 2.5\n");
  CHECK_OK(ctx, mispc_read_mtx(ctx, TMP("allowed.mtx"), &A));
  CHECK(A.nrows == 1000000 && A.nnz == 1 && A.rowptr[1000000] == 1);
  mispc_csr_free(ctx, &A);
  expect_fail(rd, TMP("huge_rows.mtx"), NULL, MISPC_ERR_FORMAT, 2, "declares");
  CHECK_OK(ctx, mispc_context_set_read_allowance(ctx, 0));
  expect_fail(rd, TMP("allowed.mtx"), NULL, MISPC_ERR_FORMAT, 2, "declares");

  /* One line is at most 1 MiB: a longer comment is an error naming its line,
   * not 1 GB of buffer. */
  const char *head = MM_REAL "2 2 1\n%";
  const size_t big = ((size_t)1 << 20) + 10;
  char *text = long_text(head, 'x', big, "\n2 1 3.25\n");
  if (text) {
    expect_fail(rd, TMP("long_line.mtx"), text, MISPC_ERR_FORMAT, 3, "line longer than 1048576");
    /* The same line as the last, without its newline. */
    text[strlen(head) + big] = '\0';
    expect_fail(rd, TMP("long_last.mtx"), text, MISPC_ERR_FORMAT, 3, "line longer than 1048576");
    free(text);
  }
  /* Binary garbage without newlines, through mispc_load's sniffing too. */
  FILE *f = fopen(TMP("garbage.dat"), "wb");
  CHECK(f != NULL);
  if (f) {
    for (int k = 0; k < (3 << 20); ++k) fputc('A' + k % 26, f);
    fclose(f);
    memset(&A, 0x5a, sizeof A);
    CHECK_STATUS(ctx, mispc_load(ctx, TMP("garbage.dat"), &A), MISPC_ERR_FORMAT);
    CHECK(strstr(mispc_context_error(ctx), ":1: line longer than") != NULL);
    CHECK(csr_is_zeroed(&A));
  }
}

static void test_write_errors(void) {
  mispc_csr A;
  CHECK_OK(ctx, mispc_read_mtx(ctx, DATA("delaunay_n14.mtx"), &A));
  const char *bad = "/nonexistent-dir-mispc/x.mtx";
  CHECK_STATUS(ctx, mispc_write_mtx(ctx, bad, &A), MISPC_ERR_IO);
  CHECK(strstr(mispc_context_error(ctx), bad) != NULL);
  CHECK(strstr(mispc_context_error(ctx), "No such file") != NULL);
  CHECK_STATUS(ctx, mispc_write_mtx(ctx, NULL, &A), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_write_mtx(ctx, TMP("never.mtx"), NULL), MISPC_ERR_INVALID_ARG);
  /* A full disk is reported (the 1.4 MB of output takes many buffer flushes). */
  FILE *full = fopen("/dev/full", "wb");
  if (full) {
    fclose(full);
    CHECK_STATUS(ctx, mispc_write_mtx(ctx, "/dev/full", &A), MISPC_ERR_IO);
    CHECK(strstr(mispc_context_error(ctx), "No space left") != NULL);
  }
  /* Broken structure is refused rather than written. */
  int64_t rowptr[] = {0, 1, 5};
  int32_t colidx[] = {0, 1};
  mispc_csr W = {2, 2, 2, rowptr, colidx, NULL, MISPC_MEM_HOST, 0};
  CHECK_STATUS(ctx, mispc_write_mtx(ctx, TMP("never.mtx"), &W), MISPC_ERR_INDEX_RANGE);
  mispc_csr_free(ctx, &A);
}

static void test_metis_variants(void) {
  mispc_csr A;
  /* fmt 11: one vertex weight, then (neighbour, edge weight) pairs. */
  write_file(TMP("w11.graph"), "% comment\n3 2 11\n5 2 7\n1 1 7 3 8\n2 2 8\n");
  CHECK_OK(ctx, mispc_read_metis(ctx, TMP("w11.graph"), &A));
  int64_t rp[] = {0, 1, 3, 4};
  int32_t ci[] = {1, 0, 2, 1};
  mispc_csr E;
  CHECK_OK(ctx, mispc_csr_wrap(MISPC_MEM_HOST, 3, 3, 4, rp, ci, NULL, &E));
  CHECK(csr_equal(&A, &E));
  mispc_csr_free(ctx, &A);
  /* fmt 10 with ncon 2; fmt 1 (edge weights only); fmt 011 spelled out. */
  const char *same[][2] = {
      {TMP("w10.graph"), "3 2 10 2\n1 1 2\n1 1 1 3\n1 1 2\n"},
      {TMP("w1.graph"), "3 2 1\n2 7\n1 7 3 8\n% interleaved comment\n2 8\n"},
      {TMP("w011.graph"), "3 2 011\n1 2 7\n1 1 7 3 8\n1 2 8"},
  };
  for (int i = 0; i < 3; ++i) {
    write_file(same[i][0], same[i][1]);
    CHECK_OK(ctx, mispc_read_metis(ctx, same[i][0], &A));
    CHECK(csr_equal(&A, &E));
    mispc_csr_free(ctx, &A);
  }
  /* Unsorted neighbours come out sorted; an isolated vertex is a blank line. */
  write_file(TMP("iso.graph"), "4 2\n3 2\n1\n1\n\n\n\n");
  CHECK_OK(ctx, mispc_read_metis(ctx, TMP("iso.graph"), &A));
  CHECK(A.nrows == 4 && A.nnz == 4 && A.values == NULL);
  if (A.nnz == 4) {
    CHECK(A.colidx[0] == 1 && A.colidx[1] == 2);
    CHECK(A.rowptr[3] == A.rowptr[4]);
  }
  mispc_csr_free(ctx, &A);

  /* A star: vertex 1's line is about 2 MB long. */
  const int n = 300000;
  FILE *f = fopen(TMP("star.graph"), "wb");
  CHECK(f != NULL);
  if (f) {
    fprintf(f, "%d %d\n", n, n - 1);
    for (int v = 2; v <= n; ++v) fprintf(f, "%d ", v);
    fputc('\n', f);
    for (int v = 2; v <= n; ++v) fputs("1\n", f);
    fclose(f);
    CHECK_OK(ctx, mispc_read_metis(ctx, TMP("star.graph"), &A));
    CHECK(A.nrows == n && A.nnz == 2 * (int64_t)(n - 1));
    CHECK_OK(ctx, mispc_csr_check(ctx, &A, MISPC_CHECK_GRAPH | MISPC_CHECK_NO_SELF_LOOPS));
    mispc_csr_free(ctx, &A);
  }
}

/* Malformed METIS files: NAME.graph in the scratch folder, its text (NULL:
 * none written), then expect_fail's status, line and phrase. */
static const struct bad_metis {
  const char *name, *text;
  mispc_status status;
  int line;
  const char *want;
} bad_metis[] = {
    /* Too few entries: the header line is named. */
    {"few_edges", "% c\n3 3\n2 3\n1\n1\n", MISPC_ERR_FORMAT, 2, "declares 3 edges"},
    /* Too many: the line where the count runs over. */
    {"many_edges", "3 1\n2 3\n1\n1\n", MISPC_ERR_FORMAT, 3, "more than 2"},
    {"trunc", "4 3\n2\n1 3\n2 4\n", MISPC_ERR_FORMAT, 4, "ends after 3 of the 4 vertex lines"},
    {"range", "2 1\n3\n1\n", MISPC_ERR_INDEX_RANGE, 2, "neighbour 3"},
    {"range0", "2 1\n2\n0\n", MISPC_ERR_INDEX_RANGE, 3, "neighbour 0"},
    {"nonnum", "2 1\n2\nfoo\n", MISPC_ERR_FORMAT, 3, "foo"},
    {"no_ewgt", "2 1 1\n2 5\n1\n", MISPC_ERR_FORMAT, 3, "edge weight"},
    {"no_vwgt", "2 1 10 2\n1 1 2\n1\n", MISPC_ERR_FORMAT, 3, "weights"},
    {"bad_fmt", "2 1 2\n2\n1\n", MISPC_ERR_FORMAT, 1, "fmt"},
    {"bad_header", "2 x\n2\n1\n", MISPC_ERR_FORMAT, 1, "header"},
    {"header_one", "% c\n2\n2\n1\n", MISPC_ERR_FORMAT, 2, "header"},
    {"neg", "-2 1\n", MISPC_ERR_FORMAT, 1, "negative"},
    {"empty", "", MISPC_ERR_FORMAT, 1, "no METIS header"},
    {"extra_line", "2 1\n2\n1\n1\n", MISPC_ERR_FORMAT, 4, "extra line"},
    {"missing", NULL, MISPC_ERR_IO, 0, "No such file"},
    /* Bad counts (issue 33): a header larger than the lists, an edge count
     * that does not fit, a vertex count beyond 32 bits, and a declared size
     * far beyond the edges. */
    {"few_lines", "5 1\n2\n1\n", MISPC_ERR_FORMAT, 3, "ends after 2 of the 5 vertex lines"},
    {"huge_m", "2 9223372036854775807\n2\n1\n", MISPC_ERR_OVERFLOW, 1, "too many"},
    {"huge_m2", "2 99999999999999999999\n2\n1\n", MISPC_ERR_OVERFLOW, 1, "64 bits"},
    {"huge_n", "3000000000 1\n", MISPC_ERR_OVERFLOW, 1, "32-bit"},
    {"sparse_hdr", "% c\n1000000099 1\n2\n1\n", MISPC_ERR_FORMAT, 2,
     "declares 1000000099 x 1000000099 for only 2 entries"},
    {"zero_m", "600000 0\n", MISPC_ERR_FORMAT, 1, "declares"},
    {"bad_ncon", "2 1 10 0\n1 2\n1 1\n", MISPC_ERR_FORMAT, 1, "ncon"},
};

static void test_metis_malformed(void) {
  reader_fn rd = mispc_read_metis;
  for (size_t i = 0; i < sizeof bad_metis / sizeof *bad_metis; ++i) {
    const struct bad_metis *c = &bad_metis[i];
    char name[256];
    snprintf(name, sizeof name, "test_io_%s.graph", c->name);
    expect_fail(rd, path_in(MISPC_TEST_TMP, name), c->text, c->status, c->line, c->want);
  }
  /* A comment longer than 1 MiB before the header. */
  char *text = long_text("%", 'y', ((size_t)1 << 20) + 1, "\n2 1\n2\n1\n");
  if (text) {
    expect_fail(rd, TMP("long_comment.graph"), text, MISPC_ERR_FORMAT, 1, "line longer than");
    free(text);
  }
}

static void test_load(void) {
  mispc_csr A, B;
  CHECK_OK(ctx, mispc_read_mtx(ctx, DATA("bcsstk13.mtx"), &A));
  CHECK_OK(ctx, mispc_load(ctx, DATA("bcsstk13.mtx"), &B));
  CHECK(csr_equal(&A, &B));
  mispc_csr_free(ctx, &B);
  /* Unknown extension, MatrixMarket content: sniffed. */
  copy_file(DATA("bcsstk13.mtx"), TMP("sniff.txt"));
  CHECK_OK(ctx, mispc_load(ctx, TMP("sniff.txt"), &B));
  CHECK(csr_equal(&A, &B));
  mispc_csr_free(ctx, &B);
  mispc_csr_free(ctx, &A);

  CHECK_OK(ctx, mispc_load(ctx, DATA("fe_4elt2.metis.graph"), &B));
  CHECK(B.nrows == 11143 && B.nnz == 65636 && B.values == NULL);
  mispc_csr_free(ctx, &B);
  copy_file(DATA("PGPgiantcompo.metis.graph"), TMP("pgp.metis"));
  CHECK_OK(ctx, mispc_load(ctx, TMP("pgp.metis"), &B));
  CHECK(B.nrows == 10680 && B.nnz == 48632);
  mispc_csr_free(ctx, &B);

  /* Generator specs go to mispc_generate. */
  CHECK_OK(ctx, mispc_load(ctx, "gen:path:5", &B));
  CHECK(B.nrows == 5 && B.nnz == 8);
  mispc_csr_free(ctx, &B);

  /* Unknown extension and content. */
  write_file(TMP("unknown.dat"), "3 2\n2\n1 3\n2\n");
  memset(&B, 0x5a, sizeof B);
  CHECK_STATUS(ctx, mispc_load(ctx, TMP("unknown.dat"), &B), MISPC_ERR_FORMAT);
  CHECK(strstr(mispc_context_error(ctx), "cannot tell the format") != NULL);
  CHECK(strstr(mispc_context_error(ctx), TMP("unknown.dat")) != NULL);
  CHECK(csr_is_zeroed(&B));
  CHECK_STATUS(ctx, mispc_load(ctx, TMP("no_such_file.dat"), &B), MISPC_ERR_IO);
  CHECK_STATUS(ctx, mispc_load(ctx, TMP("no_such_file.mtx"), &B), MISPC_ERR_IO);
  CHECK_STATUS(ctx, mispc_load(ctx, NULL, &B), MISPC_ERR_INVALID_ARG);
  /* Errors from the readers come through unchanged. */
  CHECK_STATUS(ctx, mispc_load(ctx, TMP("truncated.mtx"), &B), MISPC_ERR_FORMAT);
  CHECK(strstr(mispc_context_error(ctx), ":4: ") != NULL);
  CHECK(csr_is_zeroed(&B));
}

/* mispc_widen_int32 on the host: values kept (negatives too), bad input refused. */
static void test_widen_int32(void) {
  int32_t in[5] = {0, 7, -3, 2147483647, -2147483647 - 1};
  int64_t out[5] = {0};
  CHECK_OK(ctx, mispc_widen_int32(ctx, MISPC_MEM_HOST, 5, in, out));
  for (int i = 0; i < 5; ++i) CHECK(out[i] == (int64_t)in[i]);
  CHECK_STATUS(ctx, mispc_widen_int32(ctx, MISPC_MEM_HOST, -1, in, out), MISPC_ERR_INVALID_ARG);
  CHECK_STATUS(ctx, mispc_widen_int32(ctx, MISPC_MEM_HOST, 3, NULL, out), MISPC_ERR_INVALID_ARG);
  CHECK_OK(ctx, mispc_widen_int32(ctx, MISPC_MEM_HOST, 0, NULL, NULL));
}

int main(void) {
  if (mispc_context_create(&ctx) != MISPC_SUCCESS) return 1;
  RUN_TEST(test_widen_int32);
  RUN_TEST(test_read_bcsstk13);
  RUN_TEST(test_read_delaunay);
  RUN_TEST(test_read_metis_files);
  RUN_TEST(test_roundtrip_real);
  RUN_TEST(test_roundtrip_pattern);
  RUN_TEST(test_gzip);
  RUN_TEST(test_mtx_valid_variants);
  RUN_TEST(test_mtx_malformed);
  RUN_TEST(test_mtx_limits);
  RUN_TEST(test_write_errors);
  RUN_TEST(test_metis_variants);
  RUN_TEST(test_metis_malformed);
  RUN_TEST(test_load);
  mispc_context_destroy(ctx);
  return TEST_FINISH();
}
