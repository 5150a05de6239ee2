#!/usr/bin/env bash
# The CLI under mpiexec: equal checksums for 1, 3 and 4 ranks (and for one
# process without mpiexec where the command prints one), on generated and
# file inputs; and per-rank peak memory that falls as ranks are added.
#   dist_cli_check.sh MISPC MPIEXEC DATA_DIR
set -uo pipefail
mispc=$1 mpiexec=$2 data=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
fail=0
sum_of() { grep -o 'checksum [0-9a-f]*' <<<"$1" | awk '{print $2}'; }
run() { # NP ARGS... -> output (fails the test on a non-zero exit)
  local np=$1; shift
  local out
  if ! out=$("$mpiexec" --oversubscribe -n "$np" "$mispc" "$@" 2>&1); then
    echo "FAIL: mpiexec -n $np mispc $*" >&2
    echo "$out" >&2
    fail=1
  fi
  echo "$out"
}
# "distributed args|one-process args" (the one-process coarsen symmetrizes by itself)
cases=(
  "mis gen:laplace3d:30 -k 1|mis gen:laplace3d:30 -k 1"
  "mis gen:laplace3d:30 -k 2|mis gen:laplace3d:30 -k 2"
  "mis gen:grid3d27:20 -k 2 --seed 5|mis gen:grid3d27:20 -k 2 --seed 5"
  "mis $data/delaunay_n14.mtx -k 2|mis $data/delaunay_n14.mtx -k 2"
  "mis gen:grid3d27:14 -k 2 --priority cover|mis gen:grid3d27:14 -k 2 --priority cover"
  "color gen:laplace2d:60|color gen:laplace2d:60"
  "color $data/fe_4elt2.metis.graph --greedy|color $data/fe_4elt2.metis.graph --greedy"
  "color gen:laplace3d:12 --largest-first --recolor 2|color gen:laplace3d:12 --largest-first --recolor 2"
  "coarsen gen:laplace3d:30|coarsen gen:laplace3d:30"
  "coarsen $data/bcsstk13.mtx --algo mis2basic|coarsen $data/bcsstk13.mtx --algo mis2basic"
  "coarsen gen:elasticity3d:8 --priority cover|coarsen gen:elasticity3d:8 --priority cover"
  "gs gen:laplace3d:20 --reps 2|gs gen:laplace3d:20 --reps 2"
  "gs gen:laplace3d:20 --kind point --sweep forward --sweeps 2|gs gen:laplace3d:20 --kind point --sweep forward --sweeps 2"
  "gs gen:elasticity3d:6 --block-size 3 --theta 0.05 --local|gs gen:elasticity3d:6 --block-size 3 --theta 0.05"
  "gs $data/bcsstk13.mtx --sweep backward --omega 1.2|gs $data/bcsstk13.mtx --sweep backward --omega 1.2"
  "gs gen:aniso2d:40:0.001 --theta 0.05 --lines|gs gen:aniso2d:40:0.001 --theta 0.05 --lines"
)
for cs in "${cases[@]}"; do
  c=${cs%%|*} single=${cs#*|}
  # shellcheck disable=SC2086
  a=$(sum_of "$(run 1 $c)"); b=$(sum_of "$(run 3 $c)"); d=$(sum_of "$(run 4 $c)")
  # shellcheck disable=SC2086
  one=$(sum_of "$("$mispc" $single --host 2>&1)")
  if [ -z "$a" ] || [ "$a" != "$b" ] || [ "$a" != "$d" ] || [ "$a" != "$one" ]; then
    echo "FAIL: $c: checksums one process / 1 / 3 / 4 ranks: '$one' '$a' '$b' '$d'" >&2
    fail=1
  else
    echo "ok: $c: checksum $a on one process and on 1, 3 and 4 ranks"
  fi
done
# Nothing is gathered: a rank's peak memory falls with more ranks.
m1=$(run 1 mis gen:laplace3d:80 -k 2 --no-verify | sed -n 's/^peak memory a rank: \([0-9.]*\) MiB max.*/\1/p')
m4=$(run 4 mis gen:laplace3d:80 -k 2 --no-verify | sed -n 's/^peak memory a rank: \([0-9.]*\) MiB max.*/\1/p')
if [ -z "$m1" ] || [ -z "$m4" ] || ! awk -v a="$m1" -v b="$m4" 'BEGIN{exit !(b < 0.6 * a)}'; then
  echo "FAIL: peak memory a rank on gen:laplace3d:80: 1 rank $m1 MiB, 4 ranks $m4 MiB" >&2
  fail=1
else
  echo "ok: peak memory a rank on gen:laplace3d:80: 1 rank $m1 MiB, 4 ranks $m4 MiB"
fi
# -vv: level-2 progress (each MIS-2 round) from rank 0 only, once a MIS-2
# call (coarsen makes two); -v: none of it.
vv=$(run 2 coarsen gen:laplace3d:12 -vv --no-verify)
v1=$(run 2 coarsen gen:laplace3d:12 -v --no-verify)
n=$(grep -c "dist mis2 round 1:" <<<"$vv")
if [ "$n" != 2 ] || grep -q "dist mis2 round" <<<"$v1"; then
  echo "FAIL: -vv printed 'dist mis2 round 1:' $n times (want 2), -v: $(grep -c 'dist mis2 round' <<<"$v1")" >&2
  fail=1
else
  echo "ok: -vv prints each MIS-2 round once (rank 0), -v does not"
fi
# A bad input fails on every rank with one message and a non-zero exit, no hang.
out=$("$mpiexec" --oversubscribe -n 3 "$mispc" mis "$data/missing.mtx" 2>&1)
rc=$?
if [ $rc -eq 0 ] || ! grep -q "missing.mtx" <<<"$out"; then
  echo "FAIL: missing input under mpiexec: exit $rc, output: $out" >&2
  fail=1
else
  echo "ok: missing input under mpiexec exits $rc with: $(grep -m1 missing.mtx <<<"$out")"
fi
exit $fail
