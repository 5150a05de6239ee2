#!/usr/bin/env bash
# block_solve.sh MPIEXEC SOLVE: -pc_clustergs_block_solve (exact cluster
# solves, docs/GAUSS_SEIDEL.md "Exact block solves"). On gen:aniso2d with the
# automatic threshold and line clusters every cluster is a whole grid line
# solved exactly: -ksp_view says so, CG takes at most a third of the
# iterations of the same line clusters swept row by row, and the same number
# on 1, 2 and 3 ranks; omega 1.5 with block solves is refused with a message
# that says why (singular blocks: tests/test_gs_block.c, mpi_test_dist).
set -uo pipefail
mpiexec=$1 solve=$2
spec=gen:aniso2d:60:0.001
common=(-f "$spec" -pcs clustergs -ksp_rtol 1e-8 -pc_clustergs_strength_threshold -1
  -pc_clustergs_line_clusters)
fail=0
# shellcheck source=clustergs_ranks.sh
. "$(dirname "$0")/clustergs_ranks.sh"
rows=$(clustergs_its "$("$solve" "${common[@]}" -pc_clustergs_block_solve false 2>&1)")
same_on_ranks "whole lines solved exactly" "grown along lines, each solved exactly" \
  "clusters 60 \(rows per cluster: (mean 60.00, )?min 60, max 60\)" -- \
  "$solve" "${common[@]}" -pc_clustergs_block_solve -ksp_view
echo "$spec: line clusters swept $rows iterations, solved exactly $ref (1, 2, 3 ranks)"
if [ -z "$rows" ] || [ -z "$ref" ] || [ $((3 * ref)) -gt "$rows" ]; then
  echo "FAIL: exact line solves do not take at most a third of the iterations" >&2
  fail=1
fi
out=$("$solve" -f "$spec" -pcs clustergs -pc_clustergs_block_solve -pc_clustergs_omega 1.5 2>&1)
if ! grep -q "exact cluster solves need omega = 1" <<<"$out"; then
  echo "FAIL: omega 1.5 with block solves was not refused" >&2
  tail -5 <<<"$out" >&2
  fail=1
fi
exit $fail
