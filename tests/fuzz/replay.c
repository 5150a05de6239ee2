/* Runs a fuzz target over files without libFuzzer (ctest: the seed corpus
 * and the regressions, under the normal and the sanitizer builds):
 *   fuzz_X_replay FILE_OR_DIR...   (directories: every file in them) */
#include <dirent.h>
#include <sys/stat.h>

#include "fuzz_util.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  if (!buf) return 1;
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int bad = 0, runs = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      perror(argv[i]);
      bad = 1;
    } else if (S_ISDIR(st.st_mode)) {
      DIR *d = opendir(argv[i]);
      struct dirent *e;
      while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
        bad |= run_file(p);
        ++runs;
      }
      if (d) closedir(d);
    } else {
      bad |= run_file(argv[i]);
      ++runs;
    }
  }
  printf("%s: %d inputs, no crash\n", argv[0], runs);
  return bad;
}
