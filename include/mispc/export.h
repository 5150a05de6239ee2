/* MISPC_API marks the functions of the public C API. libmispc is built with
 * hidden symbol visibility, so only declarations carrying MISPC_API are
 * exported from the shared library; everything else stays internal. */
#ifndef MISPC_EXPORT_H
#define MISPC_EXPORT_H

#if defined(_WIN32) || defined(__CYGWIN__)
#define MISPC_API
#elif defined(__GNUC__) || defined(__clang__)
#define MISPC_API __attribute__((visibility("default")))
#else
#define MISPC_API
#endif

#endif
