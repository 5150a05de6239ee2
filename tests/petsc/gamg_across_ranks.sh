#!/usr/bin/env bash
# GAMG with our coarsener on 1, 2, 3, 4 and 7 ranks: the aggregates GAMG
# receives (the global count and the checksum of the (head, member) lists of
# every level, from the coarsener's -info line) are the same for every rank
# count and, on several ranks, made by the distributed aggregation; GAMG's
# level 1 has as many rows as level 0 made aggregates; CG takes the same
# number of iterations.
#   gamg_across_ranks.sh MPIEXEC PLAIN_KSP PLUGIN COARSEN_OPTION
set -uo pipefail
mpiexec=$1 p=$2 plugin=$3 opt=$4
seed=${opt%type}mispc_seed # -mat_coarsen_mispc_seed up to 3.21, -pc_gamg_mat_coarsen_mispc_seed after
fail=0
for opts in "mis2agg -n 30 -mg_levels_pc_type mcgs" "mis2agg -n 30" \
  "mis2basic -n 24 $seed 5 -mg_levels_ksp_type richardson -mg_levels_pc_type mcgs"; do
  ref=""
  for np in 1 2 3 4 7; do
    # shellcheck disable=SC2086
    out=$("$mpiexec" --oversubscribe -n $np "$p" -dll_append "$plugin" -ksp_type cg -pc_type gamg \
      -pc_gamg_aggressive_coarsening 0 -ksp_rtol 1e-10 -info $opt $opts 2>&1)
    lines=$(grep -E '^\[0\] .*MatCoarsenApply_Mispc\(\): mis2' <<<"$out")
    levels=$(sed -n 's/.*-> \([0-9]*\) aggregates .*lists checksum \([0-9a-f]*\).*/\1:\2/p' \
      <<<"$lines" | tr '\n' ' ')
    naggs=$(sed -n 's/.*-> \([0-9]*\) aggregates.*/\1/p' <<<"$lines" | head -1)
    n1=$(sed -n 's/^\[0\] .* 1) N=\([0-9]*\),.*/\1/p' <<<"$out" | head -1)
    its=$(grep -o 'iterations [0-9]*' <<<"$out")
    got="aggregates:checksum by level: $levels; $its"
    [ -z "$ref" ] && ref=$got
    why=""
    grep -q "converged$" <<<"$out" || why="no convergence"
    [ -n "$naggs" ] && [ "$naggs" = "$n1" ] || why="$why level 1 has ${n1:-no} rows, ${naggs:-no} aggregates"
    [ "$got" = "$ref" ] || why="$why differs from 1 rank ($ref)"
    if [ "$np" -gt 1 ] && [ "$(grep -c 'ranks, distributed' <<<"$lines")" -eq 0 ]; then
      why="$why not distributed"
    fi
    if [ -n "$why" ]; then
      echo "FAIL: $opts on $np ranks: '$got': $why" >&2
      grep -E "MatCoarsenApply_Mispc|\) N=|iterations|rror" <<<"$out" | head -20 >&2
      fail=1
    fi
  done
  echo "ok: $opts: $ref on 1, 2, 3, 4 and 7 ranks"
done
exit $fail
