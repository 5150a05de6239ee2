/* The command-line tool under mpiexec (cmd_dist.c) and the order-free result
 * checksums that let a user compare runs on different rank counts. */
#ifndef MISPC_CLI_DIST_H
#define MISPC_CLI_DIST_H

#include <stdint.h>

#include "mispc/context.h"

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
/* parse_args(argc, argv, args) with the standard error of ranks other than
 * 0 silenced (one message, not one a rank); its return value. On an error
 * (> 0) the ranks meet once (MPI started and finalized) so that none exits
 * before rank 0 has written the message. */
int cli_dist_parse_quietly(int argc, char **argv, void *args,
                           int (*parse_args)(int, char **, void *));
/* MPI started (if it is not), *rank and *P of MPI_COMM_WORLD, and the
 * command's context on every rank (cli_context; gpu: 1 for --gpu). 0 when
 * every rank has its context; 1 (contexts released, MPI finalized) when
 * any rank failed. */
int cli_dist_start(const char *cmd, int verbose, int threads, int gpu, mispc_context **ctx,
                   int *rank, int *P);

#endif
