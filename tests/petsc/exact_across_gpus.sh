#!/usr/bin/env bash
# PETSc's mcgs / clustergs on every GPU of the node, one rank a GPU
# (scripts/gpu-per-rank: NCCL carries mispc's exchanges): the PCApply output
# and CG iterations equal the one-GPU ones (exact_across_ranks.sh with
# RANKS="1 N"). Exit 77 (ctest: skipped) with fewer than two GPUs.
#   exact_across_gpus.sh MPIEXEC PLAIN_KSP PLUGIN GPU_PER_RANK
set -uo pipefail
mpiexec=$1 p=$2 plugin=$3 wrap=$4
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${n:-0}" -lt 2 ]; then
  echo "fewer than two GPUs visible: skipped"
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
RANKS="1 $n" WRAP="$wrap" exec "$(dirname "$0")/exact_across_ranks.sh" "$mpiexec" "$p" "$plugin" \
  -mat_type aijcusparse -vec_type cuda
