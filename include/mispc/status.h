/* Status codes returned by every public mispc function. */
#ifndef MISPC_STATUS_H
#define MISPC_STATUS_H

#include "mispc/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mispc_status {
  MISPC_SUCCESS = 0,
  MISPC_ERR_INVALID_ARG,   /* NULL pointer, negative size, bad option value */
  MISPC_ERR_ALLOC,         /* host allocation failed */
  MISPC_ERR_CUDA,          /* a CUDA runtime / library call failed (incl. device OOM) */
  MISPC_ERR_NO_CUDA,       /* device memory given but mispc was built without CUDA or no GPU */
  MISPC_ERR_IO,            /* file could not be opened / read / written */
  MISPC_ERR_FORMAT,        /* malformed input file or spec */
  MISPC_ERR_NOT_SQUARE,    /* a square matrix / graph was required */
  MISPC_ERR_INDEX_RANGE,   /* column index outside [0, ncols) or bad row offsets */
  MISPC_ERR_UNSORTED,      /* column indices of a row not increasing */
  MISPC_ERR_DUPLICATE,     /* repeated column index in a row */
  MISPC_ERR_SELF_LOOP,     /* diagonal entry where none is allowed */
  MISPC_ERR_UNSYMMETRIC,   /* pattern is not symmetric where it must be */
  MISPC_ERR_OVERFLOW,      /* a size does not fit the index types */
  MISPC_ERR_UNSUPPORTED,   /* valid request that this build / memory space cannot do */
  MISPC_ERR_NOT_CONVERGED, /* iteration limit reached (e.g. MIS round cap) */
  MISPC_ERR_VERIFY,        /* a verify call found the result wrong */
  MISPC_STATUS_COUNT
} mispc_status;

/* A fixed, human-readable description of a status code (never NULL). The
 * detailed message of the last failure is in mispc_context_error(). */
MISPC_API const char *mispc_strerror(mispc_status s);

#ifdef __cplusplus
}
#endif
#endif
