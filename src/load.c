/* mispc_load: one entry point for generator specs and matrix / graph files. */
#include <string.h>

#include "internal.h"

#include "io_lines.h"
#include "io_petsc.h"

/* Case-insensitive suffix test (".MTX" is as good as ".mtx"). */
static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  if (k > n) return 0;
  s += n - k;
  for (size_t i = 0; i < k; ++i) {
    char c = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
    if (c != suffix[i]) return 0;
  }
  return 1;
}

mispc_status mispc_load(mispc_context *ctx, const char *spec, mispc_csr *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (out) memset(out, 0, sizeof *out);
  if (!spec) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "matrix spec is NULL");
  if (!out) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "output CSR is NULL");
  if (strncmp(spec, "gen:", 4) == 0) return mispc_generate(ctx, spec, 0, out);
  if (ends_with(spec, ".mtx") || ends_with(spec, ".mtx.gz")) return mispc_read_mtx(ctx, spec, out);
  if (ends_with(spec, ".petsc")) return mispc_read_petsc(ctx, spec, out);
  if (ends_with(spec, ".graph") || ends_with(spec, ".metis") || ends_with(spec, ".graph.gz") ||
      ends_with(spec, ".metis.gz"))
    return mispc_read_metis(ctx, spec, out);
  /* Unknown extension: a PETSc binary matrix starts with MAT_FILE_CLASSID
   * (1211216, big-endian); a MatrixMarket file announces itself on line 1. */
  if (mispc_is_petsc_binary(spec)) return mispc_read_petsc(ctx, spec, out);
  mispc_lines *lr;
  MISPC_TRY(mispc_lines_open(ctx, spec, &lr));
  char *line;
  size_t len;
  mispc_status s = mispc_lines_next(lr, &line, &len);
  int is_mtx = !s && line && strncmp(line, "%%MatrixMarket", 14) == 0;
  mispc_lines_close(lr);
  if (s) return s;
  if (is_mtx) return mispc_read_mtx(ctx, spec, out);
  return mispc_seterr(
      ctx, MISPC_ERR_FORMAT,
      "cannot tell the format of %s (expected .mtx, .mtx.gz, .graph, .petsc or gen:...)", spec);
}
