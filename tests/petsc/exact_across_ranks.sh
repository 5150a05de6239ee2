#!/usr/bin/env bash
# PCMCGS and PCCLUSTERGS on several ranks (-pc_mcgs_exact / -pc_clustergs_exact,
# the default): the PCApply output is the one-rank output bit for bit
# (checksum of the output's bits) and CG takes the same number of
# iterations, for 1, 2, 3, 4 and 7 ranks.
#   exact_across_ranks.sh MPIEXEC PLAIN_KSP PLUGIN [OPTION...]
# The options go to every run (e.g. -mat_type aijcusparse -vec_type cuda:
# the GPU sweeps); RANKS (default "1 2 3 4 7") sets the rank counts, WRAP a
# command put before the program on every rank (scripts/gpu-per-rank).
set -uo pipefail
mpiexec=$1 p=$2 plugin=$3
shift 3
extra=("$@")
ranks=${RANKS:-"1 2 3 4 7"}
wrap=${WRAP:-}
fail=0
for opts in "-pc_type mcgs -pc_mcgs_sweeps 1" "-pc_type mcgs -pc_mcgs_sweeps 2 -pc_mcgs_omega 1.2" \
  "-pc_type mcgs -pc_mcgs_symmetric false -pc_mcgs_backward -ksp_type gmres" \
  "-pc_type mcgs -pc_mcgs_coloring greedy" "-pc_type clustergs" \
  "-pc_type clustergs -pc_clustergs_sweeps 2 -pc_clustergs_omega 1.2" \
  "-pc_type clustergs -pc_clustergs_type forward -ksp_type gmres" \
  "-pc_type clustergs -pc_clustergs_strength_threshold 0.05 -pc_clustergs_coarsen mis2basic"; do
  ref=""
  for np in $ranks; do
    # shellcheck disable=SC2086
    out=$("$mpiexec" --oversubscribe -n $np $wrap "$p" -dll_append "$plugin" -n 14 -ksp_type cg \
      $opts "${extra[@]}" -apply_checksum 2>&1)
    got="$(grep -o 'PCApply checksum [0-9a-f]*' <<<"$out") $(grep -o 'iterations [0-9]*' <<<"$out")"
    if [ -z "$ref" ]; then ref=$got; fi
    if [ "$got" != "$ref" ] || ! grep -q "PCApply checksum" <<<"$out"; then
      echo "FAIL: $opts on $np ranks: '$got', 1 rank: '$ref'" >&2
      echo "$out" | tail -5 >&2
      fail=1
    fi
  done
  echo "ok: $opts ${extra[*]}: $ref on $ranks ranks"
done
exit $fail
