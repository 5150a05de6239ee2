/* The element rule of mispc_random_vector (include/mispc/generate.h), for
 * the host and the GPU: integer hashing, then one exact scaling. */
#ifndef MISPC_RANDOM_VECTOR_H
#define MISPC_RANDOM_VECTOR_H

#include "mispc/hash.h"

/* 53 bits of hash(seed, 0, index) as k / 2^52 - 1, in [-1, 1): exact in
 * double, so the same on every machine. */
MISPC_HD double mispc_random_entry(uint64_t seed, uint64_t index) {
  return (double)(mispc_hash3(seed, 0, index) >> 11) * 0x1p-52 - 1.0;
}

#endif
