/* Fuzz target: the gzip path of the readers (mispc_load on .mtx.gz and
 * .graph.gz). The first byte picks the case: bit 0 set, the rest is written
 * as it is (corrupt and truncated gzip streams); clear, the rest is
 * compressed first (the readers behind a valid gzip stream). Bit 1 picks
 * METIS over MatrixMarket. */
#include <zlib.h>

#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const int raw = data[0] & 1, metis = (data[0] >> 1) & 1;
  data += 1;
  size -= 1;
  static char paths[2][4096];
  if (!paths[0][0]) { /* one file, read under two names */
    const char *p = fuzz_temp_path(".mtx.gz");
    snprintf(paths[0], sizeof paths[0], "%s", p);
    snprintf(paths[1], sizeof paths[1], "%.*s.graph.gz", (int)(strlen(p) - 7), p);
  }
  const char *path = paths[0];
  if (raw) {
    fuzz_write_file(path, data, size);
  } else {
    gzFile gz = gzopen(path, "wb");
    if (!gz || (size && gzwrite(gz, data, (unsigned)size) != (int)size) || gzclose(gz) != Z_OK)
      abort();
  }
  if (metis && rename(paths[0], paths[1]) != 0) abort();
  mispc_context *ctx;
  if (mispc_context_create(&ctx)) abort();
  mispc_csr A;
  fuzz_check_result(ctx, mispc_load(ctx, metis ? paths[1] : paths[0], &A), &A,
                    metis ? MISPC_CHECK_INDICES : MISPC_CHECK_INDICES | MISPC_CHECK_SORTED);
  mispc_context_destroy(ctx);
  if (metis && rename(paths[1], paths[0]) != 0) abort();
  return 0;
}
