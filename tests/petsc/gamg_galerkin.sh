#!/usr/bin/env bash
# -pc_gamg_type mispc on one rank: with -pc_gamg_mispc_galerkin (the default)
# every coarse operator comes from mispc_galerkin_product ("-info": one "PtAP
# by mispc_galerkin_product" a coarse level), with it off from PETSc's MatPtAP
# (none); both converge in the same CG iterations (Laplace3D, and Elasticity3D
# with its rigid-body modes, block size 3, k = 6).
#   gamg_galerkin.sh SOLVE [OPTIONS...]   (e.g. -mat_type aijcusparse -vec_type cuda)
set -uo pipefail
solve=$1
shift
fail=0
for problem in "laplace3d -n 16" "elasticity3d -n 8"; do
  # shellcheck disable=SC2086
  run() { "$solve" -problem $problem -pcs gamg -pc_gamg_type mispc -info "$@" 2>&1; }
  ours=$(run "$@")
  theirs=$(run -pc_gamg_mispc_galerkin 0 "$@")
  n_ours=$(grep -c "PtAP by mispc_galerkin_product" <<<"$ours")
  n_theirs=$(grep -c "PtAP by mispc_galerkin_product" <<<"$theirs")
  levels=$(grep -cE "PCSetUp_GAMG\(\).* [0-9]+\) N=[0-9]+, n data cols" <<<"$ours")
  its_ours=$(grep -E "^gamg +[0-9]+" <<<"$ours" | awk '{print $2}')
  its_theirs=$(grep -E "^gamg +[0-9]+" <<<"$theirs" | awk '{print $2}')
  echo "$problem: $levels coarse levels, $n_ours by mispc; iterations $its_ours (PETSc's products: $its_theirs)"
  grep -qE "converged$" <<<"$ours" || { echo "FAIL: $problem did not converge" >&2; tail -20 <<<"$ours" >&2; fail=1; }
  grep -qE "converged$" <<<"$theirs" || { echo "FAIL: $problem (PETSc products) did not converge" >&2; fail=1; }
  [ "$levels" -ge 1 ] && [ "$n_ours" = "$levels" ] || { echo "FAIL: $problem: $n_ours of $levels coarse operators by mispc" >&2; fail=1; }
  [ "$n_theirs" = 0 ] || { echo "FAIL: $problem: mispc's PtAP ran with -pc_gamg_mispc_galerkin 0" >&2; fail=1; }
  [ -n "$its_ours" ] && [ "$its_ours" = "$its_theirs" ] || { echo "FAIL: $problem: iterations $its_ours vs $its_theirs" >&2; fail=1; }
done
exit $fail
