/* PETSc binary matrices (MatView / MatLoad format, 32-bit indices): a
 * big-endian int32 header (MAT_FILE_CLASSID 1211216, rows, columns,
 * entries), the row lengths, the column indices of all rows, then the
 * values as big-endian doubles. Rows [r0, r1) are read with three seeks,
 * without the rest of the file: the distributed loader gives each rank its
 * own rows this way (mispc_dist_load). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "io_petsc.h"

#define PETSC_MAT_CLASSID 1211216

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static double be_double(const unsigned char *p) {
  uint64_t u = 0;
  for (int k = 0; k < 8; ++k) u = u << 8 | p[k];
  double d;
  memcpy(&d, &u, 8);
  return d;
}

/* Reads n big-endian int32 at byte offset off into out (as int64). */
static mispc_status read_ints(mispc_context *ctx, FILE *f, const char *path, int64_t off, int64_t n,
                              int64_t *out) {
  unsigned char buf[4096];
  if (fseeko(f, (off_t)off, SEEK_SET))
    return mispc_seterr(ctx, MISPC_ERR_IO, "%s: cannot seek to byte %lld", path, (long long)off);
  for (int64_t k = 0; k < n;) {
    const size_t want = (size_t)(n - k < 1024 ? n - k : 1024);
    if (fread(buf, 4, want, f) != want)
      return mispc_seterr(ctx, MISPC_ERR_FORMAT, "%s: file ends inside the index arrays", path);
    for (size_t i = 0; i < want; ++i) out[k + (int64_t)i] = (int32_t)be32(buf + 4 * i);
    k += (int64_t)want;
  }
  return MISPC_SUCCESS;
}

int mispc_is_petsc_binary(const char *path) {
  unsigned char h[4];
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  const int ok = fread(h, 1, 4, f) == 4 && be32(h) == PETSC_MAT_CLASSID;
  fclose(f);
  return ok;
}

mispc_status mispc_petsc_header(mispc_context *ctx, const char *path, int64_t *nrows,
                                int64_t *ncols, int64_t *nnz) {
  FILE *f = fopen(path, "rb");
  if (!f) return mispc_seterr(ctx, MISPC_ERR_IO, "cannot open %s", path);
  unsigned char h[16];
  mispc_status s = MISPC_SUCCESS;
  if (fread(h, 1, 16, f) != 16)
    s = mispc_seterr(ctx, MISPC_ERR_FORMAT, "%s: too short for a PETSc binary header", path);
  else if (be32(h) != PETSC_MAT_CLASSID)
    s = mispc_seterr(ctx, MISPC_ERR_FORMAT,
                     "%s: not a PETSc binary matrix (class id %u, expected %d; 64-bit index "
                     "files are not supported)",
                     path, be32(h), PETSC_MAT_CLASSID);
  if (!s) {
    *nrows = (int32_t)be32(h + 4);
    *ncols = (int32_t)be32(h + 8);
    *nnz = (int32_t)be32(h + 12);
    fseeko(f, 0, SEEK_END);
    const int64_t size = (int64_t)ftello(f);
    if (*nrows < 0 || *ncols < 0 || *nnz < 0 || size != 16 + 4 * *nrows + 12 * *nnz)
      s = mispc_seterr(ctx, MISPC_ERR_FORMAT,
                       "%s: header says %lld x %lld with %lld entries, which needs %lld bytes; "
                       "the file has %lld",
                       path, (long long)*nrows, (long long)*ncols, (long long)*nnz,
                       (long long)(16 + 4 * *nrows + 12 * *nnz), (long long)size);
  }
  fclose(f);
  return s;
}

mispc_status mispc_petsc_read_rows(mispc_context *ctx, const char *path, int64_t r0, int64_t r1,
                                   int64_t **rowptr, int64_t **gcol, double **val) {
  int64_t n = 0, m = 0, nz = 0;
  *rowptr = *gcol = NULL;
  *val = NULL;
  MISPC_TRY(mispc_petsc_header(ctx, path, &n, &m, &nz));
  if (r0 < 0 || r1 < r0 || r1 > n)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: rows [%lld, %lld) outside [0, %lld)", path,
                        (long long)r0, (long long)r1, (long long)n);
  FILE *f = fopen(path, "rb");
  if (!f) return mispc_seterr(ctx, MISPC_ERR_IO, "cannot open %s", path);
  int64_t *rp = (int64_t *)mispc_host_alloc_n(ctx, r1 - r0 + 1, sizeof(int64_t), "row offsets");
  mispc_status s = rp ? MISPC_SUCCESS : MISPC_ERR_ALLOC;
  /* entries before row r0: the lengths of rows [0, r0), summed in chunks */
  int64_t before = 0, chunk[1024];
  for (int64_t k = 0; !s && k < r0; k += 1024) {
    const int64_t c = r0 - k < 1024 ? r0 - k : 1024;
    s = read_ints(ctx, f, path, 16 + 4 * k, c, chunk);
    for (int64_t i = 0; !s && i < c; ++i) before += chunk[i];
  }
  if (!s) s = read_ints(ctx, f, path, 16 + 4 * r0, r1 - r0, rp + 1);
  int64_t local = 0;
  for (int64_t i = 0; !s && i < r1 - r0; ++i) {
    if (rp[i + 1] < 0)
      s = mispc_seterr(ctx, MISPC_ERR_FORMAT, "%s: row %lld has length %lld", path,
                       (long long)(r0 + i), (long long)rp[i + 1]);
    local += rp[i + 1];
  }
  if (!s && before + local > nz)
    s = mispc_seterr(ctx, MISPC_ERR_FORMAT, "%s: row lengths add up to more than %lld entries",
                     path, (long long)nz);
  if (!s) {
    rp[0] = 0;
    for (int64_t i = 0; i < r1 - r0; ++i) rp[i + 1] += rp[i];
    *gcol = (int64_t *)mispc_host_alloc_n(ctx, local + 1, sizeof(int64_t), "column indices");
    *val = (double *)mispc_host_alloc_n(ctx, local + 1, sizeof(double), "values");
    if (!*gcol || !*val) s = MISPC_ERR_ALLOC;
  }
  if (!s) s = read_ints(ctx, f, path, 16 + 4 * n + 4 * before, local, *gcol);
  for (int64_t k = 0; !s && k < local; ++k)
    if ((*gcol)[k] < 0 || (*gcol)[k] >= m)
      s = mispc_seterr(ctx, MISPC_ERR_INDEX_RANGE, "%s: column %lld outside [0, %lld)", path,
                       (long long)(*gcol)[k], (long long)m);
  if (!s && fseeko(f, (off_t)(16 + 4 * n + 4 * nz + 8 * before), SEEK_SET))
    s = mispc_seterr(ctx, MISPC_ERR_IO, "%s: cannot seek to the values", path);
  unsigned char buf[8 * 512];
  for (int64_t k = 0; !s && k < local;) {
    const size_t want = (size_t)(local - k < 512 ? local - k : 512);
    if (fread(buf, 8, want, f) != want)
      s = mispc_seterr(ctx, MISPC_ERR_FORMAT, "%s: file ends inside the values", path);
    for (size_t i = 0; !s && i < want; ++i) (*val)[k + (int64_t)i] = be_double(buf + 8 * i);
    k += (int64_t)want;
  }
  fclose(f);
  if (s) {
    free(rp), free(*gcol), free(*val);
    *gcol = NULL;
    *val = NULL;
    return s;
  }
  *rowptr = rp;
  return MISPC_SUCCESS;
}

mispc_status mispc_read_petsc(mispc_context *ctx, const char *path, mispc_csr *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!path || !out) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_read_petsc: NULL");
  memset(out, 0, sizeof *out);
  int64_t n, m, nz, *rp = NULL, *gc = NULL;
  double *v = NULL;
  MISPC_TRY(mispc_petsc_header(ctx, path, &n, &m, &nz));
  MISPC_TRY(mispc_petsc_read_rows(ctx, path, 0, n, &rp, &gc, &v));
  mispc_status s = mispc_csr_alloc(ctx, MISPC_MEM_HOST, n, m, rp[n], 1, out);
  if (!s) {
    memcpy(out->rowptr, rp, sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t k = 0; k < rp[n]; ++k) out->colidx[k] = (int32_t)gc[k];
    memcpy(out->values, v, sizeof(double) * (size_t)rp[n]);
  }
  free(rp), free(gc), free(v);
  return s;
}

mispc_status mispc_write_petsc(mispc_context *ctx, const char *path, const mispc_csr *A) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  MISPC_TRY(mispc_csr_check_desc(ctx, A, "matrix"));
  if (A->mem != MISPC_MEM_HOST || A->nrows > INT32_MAX || A->nnz > INT32_MAX)
    return mispc_seterr(ctx, MISPC_ERR_UNSUPPORTED,
                        "mispc_write_petsc: host matrices with 32-bit sizes only");
  FILE *f = fopen(path, "wb");
  if (!f) return mispc_seterr(ctx, MISPC_ERR_IO, "cannot create %s", path);
  unsigned char b[8];
#define PUT32(x)                                                                                   \
  do {                                                                                             \
    uint32_t u_ = (uint32_t)(x);                                                                   \
    b[0] = (unsigned char)(u_ >> 24), b[1] = (unsigned char)(u_ >> 16);                            \
    b[2] = (unsigned char)(u_ >> 8), b[3] = (unsigned char)u_;                                     \
    fwrite(b, 1, 4, f);                                                                            \
  } while (0)
  PUT32(PETSC_MAT_CLASSID);
  PUT32(A->nrows);
  PUT32(A->ncols);
  PUT32(A->nnz);
  for (int64_t i = 0; i < A->nrows; ++i) PUT32(A->rowptr[i + 1] - A->rowptr[i]);
  for (int64_t k = 0; k < A->nnz; ++k) PUT32(A->colidx[k]);
#undef PUT32
  for (int64_t k = 0; k < A->nnz; ++k) {
    uint64_t u;
    const double d = A->values ? A->values[k] : 1.0;
    memcpy(&u, &d, 8);
    for (int q = 0; q < 8; ++q) b[q] = (unsigned char)(u >> (56 - 8 * q));
    fwrite(b, 1, 8, f);
  }
  if (ferror(f) | fclose(f)) return mispc_seterr(ctx, MISPC_ERR_IO, "cannot write %s", path);
  return MISPC_SUCCESS;
}
