/* Stand-ins for the device halo exchange in builds without CUDA. */
#include "dist_internal.h"

mispc_status mispc_halo_exchange_device(mispc_context *ctx, mispc_halo *h, const void *owned,
                                        void *ghost, size_t size) {
  (void)h, (void)owned, (void)ghost, (void)size;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device halo exchange: mispc was built without CUDA");
}

mispc_status mispc_halo_device_garray(mispc_context *ctx, mispc_halo *h, const int64_t *garray,
                                      const int64_t **d_garray) {
  (void)h, (void)garray;
  *d_garray = NULL;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device halo: mispc was built without CUDA");
}

mispc_status mispc_halo_device_send_list(mispc_context *ctx, mispc_halo *h,
                                         const int32_t **d_sidx) {
  (void)h;
  *d_sidx = NULL;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device halo: mispc was built without CUDA");
}

void mispc_halo_free_device(mispc_halo *h) {
  (void)h;
}

mispc_status mispc_halo_set_transport(mispc_context *ctx, mispc_halo *h, MPI_Comm comm, int t) {
  (void)h;
  return mispc_dist_agree(
      ctx, comm,
      t == MISPC_TRANSPORT_NCCL
          ? mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "NCCL transport: mispc was built without CUDA")
          : MISPC_SUCCESS);
}

mispc_status mispc_halo_keyed_create(mispc_context *ctx, const mispc_halo *h, const int32_t *skey,
                                     const int32_t *gkey, int nkeys, mispc_halo_keyed **out) {
  (void)h, (void)skey, (void)gkey, (void)nkeys;
  *out = NULL;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device halo: mispc was built without CUDA");
}

void mispc_halo_keyed_destroy(mispc_halo_keyed *kp) {
  (void)kp;
}

mispc_status mispc_halo_exchange_where_device(mispc_context *ctx, mispc_halo *h,
                                              const mispc_halo_keyed *kp, const double *owned,
                                              double *ghost, int k) {
  (void)h, (void)kp, (void)owned, (void)ghost, (void)k;
  return mispc_seterr(ctx, MISPC_ERR_NO_CUDA, "device halo: mispc was built without CUDA");
}
