/* Fuzz target: the PETSc binary matrix reader (mispc_read_petsc on a .petsc file). */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_temp_path(".petsc");
  fuzz_write_file(path, data, size);
  mispc_context *ctx;
  if (mispc_context_create(&ctx)) abort();
  mispc_csr A;
  fuzz_check_result(ctx, mispc_read_petsc(ctx, path, &A), &A, MISPC_CHECK_INDICES);
  mispc_context_destroy(ctx);
  return 0;
}
