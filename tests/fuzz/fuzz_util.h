/* Shared by the fuzz targets (scripts/fuzz, docs/TESTING.md). The readers
 * take paths, so each input is written to one temporary file per process
 * (removed at exit). The oracle besides the sanitizers: a call that fails
 * leaves a message in the context, and a call that succeeds returns a CSR
 * that mispc_csr_check accepts. */
#ifndef MISPC_FUZZ_UTIL_H
#define MISPC_FUZZ_UTIL_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mispc/mispc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_path_[4096];

static inline void fuzz_remove_(void) {
  if (fuzz_path_[0]) unlink(fuzz_path_);
}

/* This process's temporary file, ending in suffix (the readers pick the
 * format by the file name). */
static inline const char *fuzz_temp_path(const char *suffix) {
  if (fuzz_path_[0]) return fuzz_path_;
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  snprintf(fuzz_path_, sizeof fuzz_path_, "%s/mispc-fuzz-XXXXXX%s", dir, suffix);
  int fd = mkstemps(fuzz_path_, (int)strlen(suffix));
  if (fd < 0) {
    perror(fuzz_path_);
    abort();
  }
  close(fd);
  atexit(fuzz_remove_);
  return fuzz_path_;
}

static inline void fuzz_write_file(const char *path, const uint8_t *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
    perror(path);
    abort();
  }
}

/* Checks the oracle for one call's result and frees the CSR. */
static inline void fuzz_check_result(mispc_context *ctx, mispc_status s, mispc_csr *A,
                                     unsigned checks) {
  if (s != MISPC_SUCCESS) {
    if (!mispc_context_error(ctx)[0]) {
      fprintf(stderr, "fuzz: %s with an empty message\n", mispc_strerror(s));
      abort();
    }
    return;
  }
  mispc_status c = mispc_csr_check(ctx, A, checks);
  if (c != MISPC_SUCCESS) {
    fprintf(stderr, "fuzz: success, but the CSR fails its check: %s\n", mispc_context_error(ctx));
    abort();
  }
  mispc_csr_free(ctx, A);
}

#endif
