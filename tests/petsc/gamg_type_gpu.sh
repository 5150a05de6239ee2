#!/usr/bin/env bash
# -pc_gamg_type mispc on aijcusparse (one rank, PETSc with CUDA): the strength
# graph and the aggregation run on the GPU ("-info": "GPU"), give the host's
# aggregates on every level, and CG converges in the host's iterations.
#   gamg_type_gpu.sh PLAIN_KSP PLUGIN [OPTIONS...]
set -uo pipefail
plain=$1 plugin=$2
shift 2
run() { "$plain" -dll_append "$plugin" -ksp_type cg -pc_type gamg -pc_gamg_type mispc -info "$@" 2>&1; }
host=$(run "$@")
gpu=$(run -mat_type aijcusparse -vec_type cuda "$@")
levels() { grep -o "mispc level [0-9]*: [a-z0-9]* of .* aggregates ([^)]*)" <<<"$1"; }
its() { grep -oE "^iterations [0-9]+" <<<"$1"; }
echo "host: $(its "$host")"
levels "$host"
echo "GPU:  $(its "$gpu")"
levels "$gpu"
fail=0
grep -qE "converged$" <<<"$host" || { echo "FAIL: host did not converge" >&2; fail=1; }
grep -qE "converged$" <<<"$gpu" || { echo "FAIL: GPU did not converge" >&2; tail -20 <<<"$gpu" >&2; fail=1; }
grep -qE "mispc level 0: .* aggregates .*, GPU(,|$)" <<<"$gpu" || { echo "FAIL: level 0 did not aggregate on the GPU" >&2; fail=1; }
if [ -z "$(levels "$host")" ] || [ "$(levels "$host")" != "$(levels "$gpu")" ]; then
  echo "FAIL: GPU aggregates differ from the host's" >&2
  fail=1
fi
[ "$(its "$host")" == "$(its "$gpu")" ] || { echo "FAIL: GPU iterations differ from the host's" >&2; fail=1; }
exit $fail
