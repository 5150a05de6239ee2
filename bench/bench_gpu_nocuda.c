/* Stand-ins for bench_gpu.cu in builds without CUDA. */
#include <stdio.h>

#include "bench_gpu.h"

int bench_timer_create(mispc_context *ctx, bench_timer **t) {
  (void)ctx;
  *t = NULL;
  return 1;
}
void bench_timer_start(bench_timer *t) {
  (void)t;
}
double bench_timer_stop_ms(bench_timer *t) {
  (void)t;
  return -1;
}
void bench_timer_destroy(bench_timer *t) {
  (void)t;
}
double bench_spmv_ms(mispc_context *ctx, const mispc_csr *g, int use_double, int reps) {
  (void)ctx, (void)g, (void)use_double, (void)reps;
  return -1;
}
void bench_device_name(char *buf, int len) {
  snprintf(buf, (size_t)len, "no GPU (built without CUDA)");
}
