/* What a small-graph call cannot go below (issue 31 item 6): event-timed
 * launch + wait patterns, the cost of grid / block / cluster barriers and of
 * one dependent hand-off between SMs. Not part of the build:
 *   nvcc -O3 -arch=sm_90 -o launch_floor bench/experiments/launch_floor.cu && ./launch_floor */
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>
namespace cg = cooperative_groups;

__global__ void empty_kernel(int *x) {
  if (x && threadIdx.x == 0 && blockIdx.x == 0) x[0] = 1;
}
__global__ void grid_sync_kernel(int rounds, int *x) {
  cg::grid_group g = cg::this_grid();
  for (int r = 0; r < rounds; ++r) g.sync();
  if (x && threadIdx.x == 0 && blockIdx.x == 0) x[0] = rounds;
}
__global__ void block_sync_kernel(int rounds, int *x) {
  __shared__ int s[1024];
  int v = threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    s[threadIdx.x] = v;
    __syncthreads();
    v += s[(threadIdx.x * 7 + r) & (blockDim.x - 1)];
    __syncthreads();
  }
  if (x && v == 12345) x[1] = v;
}
__global__ void __cluster_dims__(8, 1, 1) cluster_sync_kernel(int rounds, int *x) {
  cg::cluster_group c = cg::this_cluster();
  __shared__ int s[256];
  int v = threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    s[threadIdx.x] = v;
    c.sync();
    int *remote = c.map_shared_rank(s, (c.block_rank() + 1) % c.num_blocks());
    v += remote[(threadIdx.x * 7 + r) & 255];
    c.sync();
  }
  if (x && v == 12345) x[1] = v;
}
/* ping-pong between block 0 and the last block through global memory */
__global__ void pingpong_kernel(int hops, volatile int *flag) {
  if (threadIdx.x != 0 || (blockIdx.x != 0 && blockIdx.x != gridDim.x - 1)) return;
  const int me = blockIdx.x == 0 ? 0 : 1;
  for (int h = me; h < hops; h += 2) {
    while (flag[0] != h) {
    }
    __threadfence();
    flag[0] = h + 1;
  }
}
/* the mapped flag: the kernel writes it, the host spins on it */
__global__ void mapped_kernel(volatile int *flag, int val) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    __threadfence_system();
    *flag = val;
  }
}

static float ms_between(cudaEvent_t a, cudaEvent_t b) {
  float f = 0;
  cudaEventElapsedTime(&f, a, b);
  return f;
}
template <typename F> static double timed(cudaStream_t s, F call, int reps = 200) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> t;
  for (int i = -20; i < reps; ++i) {
    cudaEventRecord(a, s);
    call();
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    if (i >= 0) t.push_back(ms_between(a, b) * 1000.0);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  setvbuf(stdout, NULL, _IOLBF, 0);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  printf("# %s, %d SMs; median of 200 event-timed calls, us\n", p.name, sms);
  int *d = NULL;
  cudaMalloc(&d, 64);
  int *hflag = NULL, *dflag = NULL;
  cudaHostAlloc(&hflag, 64, cudaHostAllocMapped);
  cudaHostGetDevicePointer(&dflag, hflag, 0);
  printf("empty <<<1,32>>> + stream sync            %8.2f\n", timed(s, [&] {
           empty_kernel<<<1, 32, 0, s>>>(d);
           cudaStreamSynchronize(s);
         }));
  printf("empty <<<4,256>>> + stream sync           %8.2f\n", timed(s, [&] {
           empty_kernel<<<4, 256, 0, s>>>(d);
           cudaStreamSynchronize(s);
         }));
  int val = 0;
  printf("empty <<<1,32>>> + spin on mapped flag    %8.2f\n", timed(s, [&] {
           ++val;
           mapped_kernel<<<1, 32, 0, s>>>((volatile int *)dflag, val);
           while (*(volatile int *)hflag != val) {
           }
         }));
  void *pool_p = NULL;
  cudaMemPool_t pool;
  cudaDeviceGetDefaultMemPool(&pool, 0);
  printf("pool alloc + empty + free + sync          %8.2f\n", timed(s, [&] {
           cudaMallocFromPoolAsync(&pool_p, 1 << 20, pool, s);
           empty_kernel<<<1, 32, 0, s>>>((int *)pool_p);
           cudaFreeAsync(pool_p, s);
           cudaStreamSynchronize(s);
         }));
  for (int blocks : {4, 16, 64, sms, sms * 4, sms * 8}) {
    for (int rounds : {0, 1, 10}) {
      void *args[] = {&rounds, &d};
      int per = 0;
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, grid_sync_kernel, 256, 0);
      if (blocks > per * sms) continue;
      double t = timed(s, [&] {
        cudaLaunchCooperativeKernel((void *)grid_sync_kernel, blocks, 256, args, 0, s);
        cudaStreamSynchronize(s);
      });
      printf("cooperative %5d blocks x256, %2d grid.sync %8.2f\n", blocks, rounds, t);
    }
  }
  for (int rounds : {0, 10, 100}) {
    printf("one block x1024, %3d rounds (2 syncthreads) %8.2f\n", rounds, timed(s, [&] {
             block_sync_kernel<<<1, 1024, 0, s>>>(rounds, d);
             cudaStreamSynchronize(s);
           }));
  }
  for (int rounds : {0, 10, 100}) {
    printf("cluster 8 x256, %3d rounds (2 cluster.sync) %8.2f\n", rounds, timed(s, [&] {
             cluster_sync_kernel<<<8, 256, 0, s>>>(rounds, d);
             cudaStreamSynchronize(s);
           }));
  }
  for (int hops : {2, 100}) {
    void *args[] = {&hops, &d};
    double t = timed(s, [&] {
      cudaMemsetAsync(d, 0, 4, s);
      cudaLaunchCooperativeKernel((void *)pingpong_kernel, sms, 32, args, 0, s);
      cudaStreamSynchronize(s);
    });
    printf("ping-pong through global, %3d hops       %8.2f\n", hops, t);
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("# %s\n", cudaGetErrorString(e));
  return e != cudaSuccess;
}
