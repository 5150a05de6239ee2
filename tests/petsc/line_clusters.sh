#!/usr/bin/env bash
# line_clusters.sh MPIEXEC SOLVE: -pc_clustergs_line_clusters on an
# anisotropic problem (gen:aniso2d, strong x couplings) makes every cluster a
# whole grid line (-ksp_view), takes fewer CG iterations than the MIS-2
# clusters, and the same number on 1, 2 and 3 ranks.
set -uo pipefail
mpiexec=$1 solve=$2
spec=gen:aniso2d:60:0.001
common=(-f "$spec" -pcs clustergs -ksp_rtol 1e-8 -pc_clustergs_strength_threshold 0.05)
its() { awk '$1 == "clustergs" && $NF == "converged" {print $2}' <<<"$1"; }
fail=0
# the MIS-2 clusters (the default: line clusters off)
base=$("$solve" "${common[@]}" 2>&1)
b=$(its "$base")
ref=""
for np in 1 2 3; do
  out=$("$mpiexec" --oversubscribe -n $np "$solve" "${common[@]}" -pc_clustergs_line_clusters \
    -ksp_view 2>&1)
  l=$(its "$out")
  if ! grep -q "grown along lines" <<<"$out" ||
    ! grep -Eq "clusters 60 \(rows per cluster: (mean 60.00, )?min 60, max 60\)" <<<"$out"; then
    echo "FAIL: $np ranks: -ksp_view does not show 60 line clusters of 60 rows" >&2
    grep -E "clusters" <<<"$out" >&2
    fail=1
  fi
  [ -n "$ref" ] || ref=$l
  if [ -z "$l" ] || [ "$l" != "$ref" ]; then
    echo "FAIL: $np ranks: '$l' iterations, 1 rank '$ref'" >&2
    fail=1
  fi
done
echo "$spec: MIS-2 clusters $b iterations, line clusters $ref (1, 2, 3 ranks)"
if [ -z "$b" ] || [ -z "$ref" ] || [ "$ref" -ge "$b" ]; then
  echo "FAIL: line clusters do not save iterations" >&2
  fail=1
fi
exit $fail
