/* The hash every algorithm draws its priorities from (host and device).
 * xorshift* (Marsaglia), combined as h(iter, v) = f(f(iter) ^ f(v)) following
 * the Kokkos Kernels MIS-2 aggregation paper (2022), §V-A; the seed is
 * folded into the iteration term. Inputs are offset so that 0 is not a fixed
 * point of f. Pure integer arithmetic: identical on host and GPU. */
#ifndef MISPC_HASH_H
#define MISPC_HASH_H

#include <stdint.h>

#if defined(__CUDACC__)
#define MISPC_HD __host__ __device__ __forceinline__
#else
#define MISPC_HD static inline
#endif

MISPC_HD uint64_t mispc_xorshift64star(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull; /* keep 0 from mapping to 0 */
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  return x * 0x2545F4914F6CDD1Dull;
}

/* Priority hash of (seed, iteration, global vertex id). */
MISPC_HD uint64_t mispc_hash3(uint64_t seed, uint64_t iter, uint64_t id) {
  uint64_t it = mispc_xorshift64star(iter ^ (seed * 0xD6E8FEB86659FD93ull));
  return mispc_xorshift64star(it ^ mispc_xorshift64star(id));
}

#endif
