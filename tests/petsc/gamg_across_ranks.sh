#!/usr/bin/env bash
# GAMG with our coarsener on 1, 2, 3, 4 and 7 ranks: the aggregates GAMG
# receives (the global count and the checksum of the (head, member) lists of
# every level, from the coarsener's -info line) are the same for every rank
# count and, on several ranks, made by the distributed aggregation; GAMG's
# level 1 has as many rows as level 0 made aggregates (times the near-null
# space vectors); CG takes the same
# number of iterations. Laplace3D (plain_ksp) with three option sets, and
# Elasticity3D with its six rigid-body modes (the example solver, which links
# the plugin), whose
# aggregates span ranks and carry their near-null space through the ghost
# matrix the coarsener attaches.
#   gamg_across_ranks.sh MPIEXEC PLAIN_KSP SOLVE PLUGIN COARSEN_OPTION [OPTIONS...]
# OPTIONS go to every run (e.g. GPU matrices); environment: RANKS (default
# "1 2 3 4 7") the rank counts, ONLY a word the cases run must name (default:
# all), WHERE the coarsener's word for several ranks (default "ranks,
# distributed"; "aggregated on the GPU" for a device copy's aggregation).
set -uo pipefail
mpiexec=$1 p=$2 solve=$3 plugin=$4 opt=$5
shift 5
extra=("$@")
ranks=${RANKS:-"1 2 3 4 7"}
where=${WHERE:-"ranks, distributed"}
seed=${opt%type}mispc_seed # -mat_coarsen_mispc_seed up to 3.21, -pc_gamg_mat_coarsen_mispc_seed after
fail=0
# -info goes to a file a rank (DIR/info.RANK): on the shared stdout the ranks'
# lines can cut into each other
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# check NAME COMMAND...: runs COMMAND (with -info) on each rank count and compares
check() {
  local name=$1 ref="" np out info lines levels naggs n1 its got why bad=0
  shift
  [ -z "${ONLY:-}" ] || [[ "$name" == *"$ONLY"* ]] || return 0
  for np in $ranks; do
    rm -f "$dir"/info.*
    out=$("$mpiexec" --oversubscribe -n "$np" "$@" "${extra[@]}" -info "$dir/info" 2>&1)
    info=$(cat "$dir/info.0" 2>/dev/null)
    lines=$(grep -E '^\[0\] .*MatCoarsenApply_Mispc\(\): mis2' <<<"$info")
    levels=$(sed -n 's/.*-> \([0-9]*\) aggregates .*lists checksum \([0-9a-f]*\).*/\1:\2/p' \
      <<<"$lines" | tr '\n' ' ')
    naggs=$(sed -n 's/.*-> \([0-9]*\) aggregates.*/\1/p' <<<"$lines" | head -1)
    # level 1 rows = aggregates x near-null-space vectors ("1) N=396, n data cols=6")
    n1=$(sed -n 's/^\[0\] .* 1) N=\([0-9]*\), n data cols=\([0-9]*\),.*/\1 \2/p' <<<"$info" |
      head -1 | awk '{ if ($2 > 0 && $1 % $2 == 0) print $1 / $2 }')
    # plain_ksp: "iterations N ... converged"; solve: "gamg-mis2agg  N  setup  solve  res  converged"
    its=$(sed -n -e 's/^\(iterations [0-9]*\) .*converged$/\1/p' \
      -e 's/^gamg-mis2agg *\([0-9]*\) .*converged$/iterations \1/p' <<<"$out")
    got="aggregates:checksum by level: $levels; ${its:-not converged}"
    [ -z "$ref" ] && ref=$got
    why=""
    [ -n "$its" ] || why="no convergence"
    [ -n "$naggs" ] && [ "$naggs" = "$n1" ] || why="$why level 1 has ${n1:-no} rows, ${naggs:-no} aggregates"
    [ "$got" = "$ref" ] || why="$why differs from 1 rank ($ref)"
    if [ "$np" -gt 1 ] && ! grep -q "$where" <<<"$lines"; then
      why="$why not '$where'"
    fi
    if [ -n "$why" ]; then
      echo "FAIL: $name on $np ranks: '$got': $why" >&2
      grep -E "MatCoarsenApply_Mispc|\) N=|iterations|gamg-mis2agg|rror" <<<"$out
$info" | head -20 >&2
      bad=1
    fi
  done
  [ $bad = 0 ] && echo "ok: $name: $ref on $ranks ranks" || fail=1
}

gamg=(-ksp_type cg -pc_type gamg -pc_gamg_aggressive_coarsening 0 "$opt")
check "laplace3d 30, mis2agg, Chebyshev/mcgs smoother" "$p" -dll_append "$plugin" "${gamg[@]}" \
  mis2agg -n 30 -ksp_rtol 1e-10 -mg_levels_pc_type mcgs
check "laplace3d 30, mis2agg, default smoother (Chebyshev/Jacobi)" "$p" -dll_append "$plugin" \
  "${gamg[@]}" mis2agg -n 30 -ksp_rtol 1e-10
# GAMG leaves ranks without rows on level 2 here (4 -> 2 active processes): mcgs smooths there too
check "laplace3d 40, mis2basic seed 5, Richardson/mcgs smoother" "$p" -dll_append "$plugin" \
  "${gamg[@]}" mis2basic -n 40 -ksp_rtol 1e-10 "$seed" 5 -mg_levels_ksp_type richardson \
  -mg_levels_pc_type mcgs
check "elasticity3d 10 (bs 3, 6 rigid-body modes), mis2agg, default smoother" "$solve" \
  -problem elasticity3d -n 10 -pcs gamg-mis2agg -ksp_type cg
# the cover priority (auto: on elasticity3d's rows of 25 entries; the distributed
# cover rounds on several ranks), and on every level of the Laplacian
check "elasticity3d 10, mis2agg, priority auto (cover)" "$solve" -problem elasticity3d -n 10 \
  -pcs gamg-mis2agg -ksp_type cg "${opt%type}mispc_priority" auto
check "laplace3d 30, mis2agg, cover priority on every level" "$p" -dll_append "$plugin" \
  "${gamg[@]}" mis2agg -n 30 -ksp_rtol 1e-10 "${opt%type}mispc_priority" cover
exit $fail
