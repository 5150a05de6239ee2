/* The command-line tool under mpiexec (cmd_dist.c) and the order-free result
 * checksums that let a user compare runs on different rank counts. */
#ifndef MISPC_CLI_DIST_H
#define MISPC_CLI_DIST_H

#include <stdint.h>

#include "mispc/context.h"
#include "tuning.h"

/* Sum over vertices v = first .. first + n - 1 of hash(v, label of v): the
 * same for any split of the vertices, so per-rank sums add up to the
 * one-process value. */
uint64_t cli_checksum_u8(int64_t first, int64_t n, const uint8_t *label);
uint64_t cli_checksum_i32(int64_t first, int64_t n, const int32_t *label);

/* 1 when the tool runs under mpiexec (Open MPI, MPICH/PMI or PMIx
 * environment) or --dist is among the arguments, and mispc has MPI. */
int cli_dist_requested(int argc, char **argv);
/* mis | color | coarsen on a distributed graph: cmd is argv[0]. */
int cmd_dist(int argc, char **argv);
/* gs (distributed Gauss-Seidel) under mpiexec: argv[0] is "gs". */
int cmd_dist_gs(int argc, char **argv);
/* What every distributed command reads: the first member of its arguments. */
typedef struct cli_dist_common {
  const char *cmd; /* mis, color, coarsen, gs */
  int verbose, threads, gpu;
  mispc_tuning tune; /* --tune knobs (src/tuning.h), set on the context by cli_dist_begin */
} cli_dist_common;
/* The start of a distributed command: parse_args(argc, argv, args) (the
 * struct args is the first member of) with the standard error of ranks
 * other than 0 silenced, one message, not one a rank; then MPI started (if
 * it is not), *rank and *P of MPI_COMM_WORLD and the command's context on
 * every rank (cli_context; gpu 1 for --gpu; args->tune set on it). -1 when
 * the command goes on,
 * else its exit status: parse_args's (0 after --help; on an error the ranks
 * meet once so that none exits before rank 0 has written the message), or
 * 1 (contexts released, MPI finalized) when any rank could not start. */
int cli_dist_begin(int argc, char **argv, cli_dist_common *args,
                   int (*parse_args)(int, char **, void *), mispc_context **ctx, int *rank, int *P);

#endif
