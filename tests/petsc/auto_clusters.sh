#!/usr/bin/env bash
# auto_clusters.sh MPIEXEC SOLVE: clustergs' automatic clusters
# (docs/GAUSS_SEIDEL.md "Automatic threshold").
# - Elasticity3D_8 (block size 3): every row's largest |a_ij| / sqrt(|a_ii a_jj|)
#   is 0.2273 (a component with its neighbours along its own axis), so the
#   automatic threshold is 2/3 of it, 0.151515; the weakest coupling below it
#   is 0.75 of it: set apart from it (at most 0.9), not strongly anisotropic
#   (over 0.1). By default (-2) the threshold goes on rows, no lines: the same
#   threshold, clusters and iterations on 1, 2 and 3 ranks, fewer iterations
#   than threshold 0 on the matrix's nodes (the default before 2026-11-29), and
#   what -1 gives; with -pc_clustergs_line_clusters too the clusters are the
#   192 grid lines of one component, 8 rows each.
# - gen:aniso2d:40:0.65: the weak couplings are 0.975 of the threshold, not set
#   apart: threshold 0 by default, on rows with -1.
# - Laplace3D_10 (all couplings alike, 1/6): no coupling below the threshold
#   0.111111, so threshold 0.
# - gen:aniso2d:60:0.001: every coupling below the threshold is 0.0015 of it
#   (strongly anisotropic), so by default lines solved exactly, on any rank
#   count, in fewer iterations than with both turned off.
set -uo pipefail
mpiexec=$1 solve=$2
common=(-problem elasticity3d -n 8 -pcs clustergs -ksp_rtol 1e-8 -ksp_view)
auto=(-pc_clustergs_strength_threshold -1)
fail=0
# shellcheck source=clustergs_ranks.sh
. "$(dirname "$0")/clustergs_ranks.sh"
same_on_ranks "the automatic threshold on rows without lines" \
  "strength threshold auto: 0\.151515 \(weakest coupling below it 0\.75 of it\), block size 1$" \
  -- "$solve" "${common[@]}"
old=$("$solve" "${common[@]}" -pc_clustergs_strength_threshold 0 2>&1)
o=$(clustergs_its "$old")
if ! grep -Eq "strength threshold 0\.?, block size 3$" <<<"$old"; then
  echo "FAIL: threshold 0 (block size 3) is not what -ksp_view shows" >&2
  grep -E "strength threshold" <<<"$old" >&2
  fail=1
fi
any=$("$solve" "${common[@]}" "${auto[@]}" 2>&1)
if ! grep -q "strength threshold auto: 0.151515 (weakest coupling below it 0.75 of it), block size 1$" <<<"$any" ||
  [ "$(clustergs_its "$any")" != "$ref" ]; then
  echo "FAIL: -1 is not the default's threshold on rows, $ref iterations" >&2
  grep -E "strength threshold|^clustergs" <<<"$any" >&2
  fail=1
fi
near=(-f gen:aniso2d:40:0.65 -pcs clustergs -ksp_rtol 1e-8 -ksp_view)
def=$("$solve" "${near[@]}" 2>&1)
if ! grep -q "strength threshold auto: 0 (weakest coupling below 0.20202 0.975 of it: over 0.9, not set apart), block size 1$" <<<"$def" ||
  ! grep -q "strength threshold auto: 0.20202 (weakest coupling below it 0.975 of it), block size 1$" \
    <<<"$("$solve" "${near[@]}" "${auto[@]}" 2>&1)"; then
  echo "FAIL: gen:aniso2d:40:0.65: not threshold 0 by default (not set apart) and on rows with -1" >&2
  grep -E "strength threshold" <<<"$def" >&2
  fail=1
fi
lines=$("$solve" "${common[@]}" "${auto[@]}" -pc_clustergs_line_clusters 2>&1)
if ! grep -q "strength threshold auto: 0.151515 .*, block size 1, grown along lines$" <<<"$lines" ||
  ! grep -Eq "clusters 192 \(rows per cluster: (mean 8.00, )?min 8, max 8\)" <<<"$lines"; then
  echo "FAIL: -pc_clustergs_line_clusters: not 192 lines of 8 rows" >&2
  grep -E "clusters" <<<"$lines" >&2
  fail=1
fi
echo "Elasticity3D_8: automatic threshold on rows (the default) $ref iterations (1, 2, 3 ranks)," \
  "threshold 0 on nodes $o, with lines $(clustergs_its "$lines")"
if [ -z "$o" ] || [ -z "$ref" ] || [ "$ref" -ge "$o" ]; then
  echo "FAIL: the automatic clusters do not save iterations" >&2
  fail=1
fi
lap=$("$solve" -n 10 -pcs clustergs -ksp_view 2>&1)
if ! grep -q "strength threshold auto: 0 (no coupling below 0.111111), block size 1$" <<<"$lap"; then
  echo "FAIL: Laplace3D_10: not threshold 0 (no coupling below 0.111111)" >&2
  grep -E "strength threshold" <<<"$lap" >&2
  fail=1
fi
aniso=(-f gen:aniso2d:60:0.001 -pcs clustergs -ksp_rtol 1e-8)
off=$(clustergs_its "$("$solve" "${aniso[@]}" -pc_clustergs_line_clusters false \
  -pc_clustergs_block_solve false 2>&1)")
same_on_ranks "lines solved exactly (strongly anisotropic)" \
  "weakest coupling below it 0\.0015 of it\), block size 1, grown along lines, each solved exactly \(block Gauss-Seidel\) \(auto: strongly anisotropic\)$" \
  "clusters 60 \(rows per cluster: (mean 60.00, )?min 60, max 60\)" -- \
  "$solve" "${aniso[@]}" -ksp_view
echo "gen:aniso2d:60:0.001: automatic $ref iterations (1, 2, 3 ranks), lines and block solves off $off"
if [ -z "$off" ] || [ -z "$ref" ] || [ "$ref" -ge "$off" ]; then
  echo "FAIL: the automatic lines and block solves do not save iterations" >&2
  fail=1
fi
exit $fail
