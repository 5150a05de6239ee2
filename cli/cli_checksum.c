/* Result checksums printed by mis, color and coarsen (one process or under
 * mpiexec), so equal results on different rank counts can be seen. */
#include "cli_dist.h"
#include "mispc/hash.h"

#define CLI_CHECKSUM_SEED 0x6d69737063ull /* "mispc" */

uint64_t cli_checksum_u8(int64_t first, int64_t n, const uint8_t *label) {
  uint64_t sum = 0;
  for (int64_t v = 0; v < n; ++v)
    sum += mispc_hash3(CLI_CHECKSUM_SEED, label[v], (uint64_t)(first + v));
  return sum;
}

uint64_t cli_checksum_i32(int64_t first, int64_t n, const int32_t *label) {
  uint64_t sum = 0;
  for (int64_t v = 0; v < n; ++v)
    sum += mispc_hash3(CLI_CHECKSUM_SEED, (uint64_t)(uint32_t)label[v], (uint64_t)(first + v));
  return sum;
}
