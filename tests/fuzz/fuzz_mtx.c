/* Fuzz target: the MatrixMarket reader (mispc_read_mtx on a .mtx file). */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_temp_path(".mtx");
  fuzz_write_file(path, data, size);
  mispc_context *ctx;
  if (mispc_context_create(&ctx)) abort();
  mispc_csr A;
  /* Rows come out sorted with duplicates summed (mispc/io.h). */
  fuzz_check_result(ctx, mispc_read_mtx(ctx, path, &A), &A,
                    MISPC_CHECK_INDICES | MISPC_CHECK_SORTED);
  mispc_context_destroy(ctx);
  return 0;
}
