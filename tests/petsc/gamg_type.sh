#!/usr/bin/env bash
# -pc_gamg_type mispc (petsc_plugin/gamg_mispc.c) on 1, 2, 3 and 4 ranks:
#  - CG converges;
#  - every GAMG coarse level has as many rows as our aggregation of the level
#    above made aggregates, times the near-null vectors (-info: "mispc level L:
#    ... -> M aggregates" and GAMG's "L+1) N=..., n data cols=k");
#  - the aggregates of every level (-info) and the iteration count are the
#    one-rank ones;
#  - every coarse operator is mispc's product (-info "PtAP by
#    mispc_galerkin_product", on several ranks mispc_dist_galerkin_product),
#    and where the near-null space is the constant its checksum (-info
#    "coarse operator ... checksum") is the one-rank one: the hierarchy has
#    the same bits for any rank count. (PETSc's MatNullSpaceCreateRigidBody
#    orthonormalises the modes with global dot products, so elasticity's
#    near-null space, and with it its coarse operators, differ in the last
#    bits with the rank count; their sizes and iterations are compared.)
# Laplace3D (plain_ksp) with several option sets, and Elasticity3D with its
# rigid-body near-null space (the solve example, block size 3, k = 6).
#   gamg_type.sh MPIEXEC PLAIN_KSP SOLVE PLUGIN
set -uo pipefail
mpiexec=$1 plain=$2 solve=$3 plugin=$4
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the levels as GAMG and we report them; fails unless coarse rows = aggregates * k
check_levels() {
  awk '
    /mispc level [0-9]+: .* aggregates/ {
      l = $0; sub(/.*mispc level /, "", l); lev = l + 0
      a = $0; sub(/ aggregates.*/, "", a); sub(/.*-> /, "", a); aggs[lev] = a + 0
      s = $0; sub(/.*mispc level/, "mispc level", s); sub(/, (host|GPU)$/, "", s); print s
    }
    /PCSetUp_GAMG\(\).* [0-9]+\) N=[0-9]+, n data cols=[0-9]+/ {
      t = $0; sub(/.*PCSetUp_GAMG\(\)[^)]*: /, "", t)
      lv = t; sub(/\).*/, "", lv); lv = lv + 0
      n = t; sub(/.*\) N=/, "", n); n = n + 0
      k = t; sub(/.*n data cols=/, "", k); k = k + 0
      if (lv >= 1) {
        if (!((lv - 1) in aggs) || aggs[lv - 1] * k != n) {
          print "MISMATCH: GAMG level " lv " has " n " rows, aggregates above " aggs[lv - 1] " x " k
          bad = 1
        } else print "level " lv ": " n " rows = " aggs[lv - 1] " aggregates x " k
      }
    }
    END { exit bad }'
}

run_case() { # name, command... (ops=0 in the environment: no operator checksums)
  local name=$1 ref="" np out levels its info nptap nlev sums
  shift
  for np in 1 2 3 4; do
    # -info into files (one a rank), so that it does not cut the solver's output lines
    rm -f "$tmp"/info*
    out=$("$mpiexec" --oversubscribe -n $np "$@" -info "$tmp/info" 2>&1)
    if ! levels=$(cat "$tmp"/info* 2>/dev/null | check_levels); then
      echo "FAIL: $name on $np ranks: coarse sizes are not the aggregate counts" >&2
      echo "$levels" >&2
      fail=1
    fi
    info=$(cat "$tmp"/info.0 2>/dev/null)
    nlev=$(grep -cE "PCSetUp_GAMG\(\).* [0-9]+\) N=[0-9]+, n data cols" <<<"$info")
    if [ "$np" = 1 ]; then
      nptap=$(grep -c "PtAP by mispc_galerkin_product" <<<"$info")
    else
      nptap=$(grep -c "PtAP by mispc_dist_galerkin_product" <<<"$info")
    fi
    if [ "$nlev" -lt 1 ] || [ "$nptap" != "$nlev" ]; then
      echo "FAIL: $name on $np ranks: $nptap of $nlev coarse operators by mispc" >&2
      fail=1
    fi
    sums=""
    [ "${ops:-1}" = 1 ] && sums=$(sed -n 's/^\[0\] .*mispc: \(coarse operator .*\)$/\1/p' <<<"$info")
    its=$(grep -oE "^iterations [0-9]+|^gamg +[0-9]+" <<<"$out" | tr -s ' ')
    if ! grep -qE "converged$" <<<"$out" || [ -z "$its" ]; then
      echo "FAIL: $name on $np ranks did not converge" >&2
      grep -vE "^\[[0-9]+\] <" <<<"$out" | tail -5 >&2
      fail=1
    fi
    got="$its
$(grep "mispc level" <<<"$levels")
$sums"
    if [ -z "$ref" ]; then
      ref=$got
      echo "$name: $its"
      while IFS= read -r l; do echo "  $l"; done <<<"$levels"
    elif [ "$got" != "$ref" ]; then
      echo "FAIL: $name on $np ranks differs from 1 rank:" >&2
      diff <(echo "$ref") <(echo "$got") >&2
      fail=1
    fi
  done
  if [ $fail = 0 ]; then
    echo "ok: $name: same levels, iterations${sums:+ and coarse operators} on 1, 2, 3 and 4 ranks"
  fi
}

gamg="-pc_type gamg -pc_gamg_type mispc"
# shellcheck disable=SC2086
{
  run_case "laplace mcgs smoother" "$plain" -dll_append "$plugin" -n 20 -ksp_type cg $gamg \
    -mg_levels_pc_type mcgs
  run_case "laplace richardson + mcgs" "$plain" -dll_append "$plugin" -n 20 -ksp_type cg $gamg \
    -mg_levels_ksp_type richardson -mg_levels_pc_type mcgs
  run_case "laplace default smoother" "$plain" -dll_append "$plugin" -n 20 -ksp_type cg $gamg
  run_case "laplace mis2basic, threshold, Gershgorin estimate, verify" "$plain" -dll_append \
    "$plugin" -n 20 -ksp_type cg $gamg -pc_gamg_mispc_aggregation mis2basic \
    -pc_gamg_threshold 0.02 -pc_gamg_mispc_eig_estimate gershgorin -pc_gamg_mispc_verify \
    -mg_levels_pc_type mcgs
  # (on 4 ranks GAMG's process reduction leaves a rank without rows on a coarse level)
  run_case "laplace unsmoothed P0" "$plain" -dll_append "$plugin" -n 20 -ksp_type cg $gamg \
    -pc_gamg_mispc_nsmooths 0 -mg_levels_pc_type mcgs
  ops=0 run_case "elasticity rigid-body modes, mcgs smoother" "$solve" -problem elasticity3d -n 8 \
    -pcs gamg $gamg -mg_levels_pc_type mcgs
  ops=0 run_case "elasticity rigid-body modes, default smoother" "$solve" -problem elasticity3d -n 8 \
    -pcs gamg $gamg
  ops=0 run_case "elasticity aggressive level 0, verify" "$solve" -problem elasticity3d -n 10 \
    -pcs gamg $gamg -pc_gamg_mispc_aggressive_levels 1 -pc_gamg_mispc_verify
  run_case "laplace aggressive levels 0 and 1" "$plain" -dll_append "$plugin" -n 24 -ksp_type cg \
    $gamg -pc_gamg_mispc_aggressive_levels 2 -pc_gamg_mispc_verify -mg_levels_pc_type mcgs
}
exit $fail
