#!/usr/bin/env bash
# gamg_coarse.sh PLAIN PLUGIN COARSEN_OPTION [OPTIONS...]: GAMG with our
# coarsener; its first coarse level must have exactly as many rows as our
# first aggregation made aggregates (scalar problem, one rank).
set -euo pipefail
plain=$1 plugin=$2 opt=$3
shift 3
out=$("$plain" -dll_append "$plugin" -ksp_type cg -pc_type gamg "$opt" mis2agg \
  -pc_gamg_aggressive_coarsening 0 -info "$@" 2>&1)
grep -E "iterations|MatCoarsenApply_Mispc| [01]\) N=" <<<"$out"
grep -q "converged$" <<<"$out"
naggs=$(sed -n 's/.*MatCoarsenApply_Mispc(): mis2agg: [0-9]* local vertices -> \([0-9]*\) aggregates.*/\1/p' <<<"$out" | head -1)
ncoarse=$(sed -n 's/.* 1) N=\([0-9]*\),.*/\1/p' <<<"$out" | head -1)
echo "mis2agg aggregates: ${naggs:-none}; GAMG level 1 rows: ${ncoarse:-none}"
[[ -n $naggs && $naggs == "$ncoarse" ]]
