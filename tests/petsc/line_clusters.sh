#!/usr/bin/env bash
# line_clusters.sh MPIEXEC SOLVE: -pc_clustergs_line_clusters on an
# anisotropic problem (gen:aniso2d, strong x couplings) makes every cluster a
# whole grid line (-ksp_view), takes fewer CG iterations than the MIS-2
# clusters, and the same number on 1, 2 and 3 ranks.
set -uo pipefail
mpiexec=$1 solve=$2
spec=gen:aniso2d:60:0.001
# block solves off: the default (automatic) turns them on for this operator
common=(-f "$spec" -pcs clustergs -ksp_rtol 1e-8 -pc_clustergs_strength_threshold 0.05
  -pc_clustergs_block_solve false)
fail=0
# shellcheck source=clustergs_ranks.sh
. "$(dirname "$0")/clustergs_ranks.sh"
# the MIS-2 clusters (line clusters off)
b=$(clustergs_its "$("$solve" "${common[@]}" -pc_clustergs_line_clusters false 2>&1)")
same_on_ranks "60 line clusters of 60 rows" "grown along lines" \
  "clusters 60 \(rows per cluster: (mean 60.00, )?min 60, max 60\)" -- \
  "$solve" "${common[@]}" -pc_clustergs_line_clusters -ksp_view
echo "$spec: MIS-2 clusters $b iterations, line clusters $ref (1, 2, 3 ranks)"
if [ -z "$b" ] || [ -z "$ref" ] || [ "$ref" -ge "$b" ]; then
  echo "FAIL: line clusters do not save iterations" >&2
  fail=1
fi
# -mispc_tune gs_line_rounds=1 (one merge round): pieces of lines, 5-22 rows, the same on
# 1-3 ranks; an unknown knob is an error naming it
same_on_ranks "one round of line merging" \
  "clusters 309 \(rows per cluster: (mean 11.65, )?min 5, max 22\)" -- \
  "$solve" "${common[@]}" -pc_clustergs_line_clusters -ksp_view -mispc_tune gs_line_rounds=1
out=$("$solve" "${common[@]}" -mispc_tune nosuch=1 2>&1)
if ! grep -q "unknown knob 'nosuch'" <<<"$out"; then
  echo "FAIL: -mispc_tune nosuch=1 was not refused by name" >&2
  fail=1
fi
exit $fail
