#include "mispc/status.h"

const char *mispc_strerror(mispc_status s) {
  switch (s) {
  case MISPC_SUCCESS:
    return "success";
  case MISPC_ERR_INVALID_ARG:
    return "invalid argument";
  case MISPC_ERR_ALLOC:
    return "host out of memory";
  case MISPC_ERR_CUDA:
    return "CUDA error";
  case MISPC_ERR_NO_CUDA:
    return "device memory used but CUDA is not available";
  case MISPC_ERR_IO:
    return "I/O error";
  case MISPC_ERR_FORMAT:
    return "malformed input";
  case MISPC_ERR_NOT_SQUARE:
    return "matrix is not square";
  case MISPC_ERR_INDEX_RANGE:
    return "index out of range";
  case MISPC_ERR_UNSORTED:
    return "column indices not sorted";
  case MISPC_ERR_DUPLICATE:
    return "duplicate entry";
  case MISPC_ERR_SELF_LOOP:
    return "self loop (diagonal entry) present";
  case MISPC_ERR_UNSYMMETRIC:
    return "pattern is not symmetric";
  case MISPC_ERR_OVERFLOW:
    return "size overflows index type";
  case MISPC_ERR_UNSUPPORTED:
    return "unsupported";
  case MISPC_ERR_NOT_CONVERGED:
    return "iteration limit reached";
  case MISPC_ERR_VERIFY:
    return "verification failed";
  case MISPC_STATUS_COUNT:
    break;
  }
  return "unknown status";
}
