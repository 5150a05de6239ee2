/* GPU timing pieces of the benchmarks (CUDA events, cuSPARSE SpMV yardstick).
 * Builds without CUDA get stand-ins that report "unavailable". */
#ifndef MISPC_BENCH_GPU_H
#define MISPC_BENCH_GPU_H

#include "mispc/mispc.h"

typedef struct bench_timer bench_timer;
/* Event pair on the context's stream. */
int bench_timer_create(mispc_context *ctx, bench_timer **t);
void bench_timer_start(bench_timer *t);
double bench_timer_stop_ms(bench_timer *t); /* waits for the stop event */
void bench_timer_destroy(bench_timer *t);

/* Median time (ms) of one cuSPARSE CSR SpMV y = A x on the device graph's
 * pattern (32-bit indices, default algorithm), single (use_double = 0) or
 * double precision, values from the matrix or 1 for a pattern. Returns
 * a negative value when unavailable. */
double bench_spmv_ms(mispc_context *ctx, const mispc_csr *dev_graph, int use_double, int reps);

/* Device name and memory, for the header of every benchmark. */
void bench_device_name(char *buf, int len);

#endif
