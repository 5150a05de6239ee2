/* mispc: preconditioners and graph coarsening built on maximal independent sets. */
#ifndef MISPC_MISPC_H
#define MISPC_MISPC_H

#include "mispc/status.h"
#include "mispc/context.h"
#include "mispc/csr.h"
#include "mispc/hash.h"
#include "mispc/timer.h"
#include "mispc/io.h"
#include "mispc/generate.h"
#include "mispc/mis.h"
#include "mispc/aggregation.h"
#include "mispc/coloring.h"
#include "mispc/gauss_seidel.h"

#endif
