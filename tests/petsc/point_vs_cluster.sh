#!/usr/bin/env bash
# point_vs_cluster.sh PLAIN PLUGIN [OPTIONS...]: cluster multicolor SGS must
# need no more CG iterations than point multicolor SGS on the same problem
# (papers/KokkosKernels-MIS2-aggregation-clusterGS-2022.txt Table VI).
set -euo pipefail
plain=$1 plugin=$2
shift 2
its() { "$plain" -dll_append "$plugin" -ksp_type cg -ksp_rtol 1e-8 "$@" | tee /dev/stderr |
  sed -n 's/^iterations \([0-9]*\) .*converged$/\1/p'; }
p=$(its -pc_type mcgs "$@")
c=$(its -pc_type clustergs "$@")
echo "point $p iterations, cluster $c iterations"
[[ -n $p && -n $c && $c -le $p ]]
