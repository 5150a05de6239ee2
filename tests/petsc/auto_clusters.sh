#!/usr/bin/env bash
# auto_clusters.sh MPIEXEC SOLVE: the automatic strength threshold of
# clustergs (-pc_clustergs_strength_threshold -1, opt-in; docs/GAUSS_SEIDEL.md
# "Automatic threshold"). On Elasticity3D_8 (block size 3) every row's largest
# |a_ij| / sqrt(|a_ii a_jj|) is 0.2273 (a component with its neighbours along
# its own axis), so the threshold is 2/3 of it, 0.151515, on rows; the same
# threshold, clusters and iterations on 1, 2 and 3 ranks, fewer iterations than
# the default (threshold 0, the matrix block size), which -ksp_view shows as
# such. With -pc_clustergs_line_clusters (an option, off by default) the
# clusters are the 192 grid lines of one component, 8 rows each.
# On Laplace3D_10 (all couplings alike, 1/6) the threshold keeps every
# coupling: 0.111111.
set -uo pipefail
mpiexec=$1 solve=$2
common=(-problem elasticity3d -n 8 -pcs clustergs -ksp_rtol 1e-8 -ksp_view)
auto=(-pc_clustergs_strength_threshold -1)
fail=0
# shellcheck source=clustergs_ranks.sh
. "$(dirname "$0")/clustergs_ranks.sh"
same_on_ranks "the automatic threshold without lines" \
  "strength threshold auto 0\.151515, block size 1$" -- "$solve" "${common[@]}" "${auto[@]}"
old=$("$solve" "${common[@]}" 2>&1)
o=$(clustergs_its "$old")
if ! grep -Eq "strength threshold 0\.?, block size 3$" <<<"$old"; then
  echo "FAIL: the default (threshold 0, block size 3) is not what -ksp_view shows" >&2
  grep -E "strength threshold" <<<"$old" >&2
  fail=1
fi
lines=$("$solve" "${common[@]}" "${auto[@]}" -pc_clustergs_line_clusters 2>&1)
if ! grep -q "strength threshold auto 0.151515, block size 1, grown along lines" <<<"$lines" ||
  ! grep -Eq "clusters 192 \(rows per cluster: (mean 8.00, )?min 8, max 8\)" <<<"$lines"; then
  echo "FAIL: -pc_clustergs_line_clusters: not 192 lines of 8 rows" >&2
  grep -E "clusters" <<<"$lines" >&2
  fail=1
fi
echo "Elasticity3D_8: automatic clusters $ref iterations (1, 2, 3 ranks), default $o," \
  "with lines $(clustergs_its "$lines")"
if [ -z "$o" ] || [ -z "$ref" ] || [ "$ref" -ge "$o" ]; then
  echo "FAIL: the automatic clusters do not save iterations" >&2
  fail=1
fi
lap=$("$solve" -n 10 -pcs clustergs -ksp_view "${auto[@]}" 2>&1)
if ! grep -q "strength threshold auto 0.111111, block size 1$" <<<"$lap"; then
  echo "FAIL: Laplace3D_10: not the automatic threshold 0.111111 (no lines)" >&2
  grep -E "strength threshold" <<<"$lap" >&2
  fail=1
fi
exit $fail
