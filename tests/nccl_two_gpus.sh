#!/usr/bin/env bash
# The distributed tests with one GPU a rank (NCCL transport chosen by AUTO),
# on every GPU of the node: exit 77 (ctest: skipped) with fewer than two
# GPUs. The test program checks that the device results equal the
# one-process ones and that the transport is NCCL where ranks own their GPU.
#   nccl_two_gpus.sh MPIEXEC TEST_PROGRAM GPU_PER_RANK
set -euo pipefail
mpiexec=$1 prog=$2 wrap=$3
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${n:-0}" -lt 2 ]; then
  echo "fewer than two GPUs visible: skipped"
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MISPC_REQUIRE_GPU=1
out=$("$mpiexec" -n "$n" "$wrap" "$prog" 2>&1) || {
  echo "$out"
  exit 1
}
echo "$out"
grep -q "transport on $n ranks: nccl" <<<"$out" || {
  echo "FAIL: the transport on $n ranks with a GPU each is not NCCL" >&2
  exit 1
}
