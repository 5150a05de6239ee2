#!/usr/bin/env bash
# The CLI under mpiexec with bad input (issue 33): each case must exit
# non-zero within a time limit (no hang) and print its message once (rank 0
# reports a failure agreed on every rank), not once a rank.
#   dist_cli_errors.sh MISPC MPIEXEC DATA_DIR TMP_DIR
set -uo pipefail
mispc=$1 mpiexec=$2 data=$3 tmp=$4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
limit=${MISPC_CLI_ERRORS_SECONDS:-120}
mkdir -p "$tmp"
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 1.0\n' >"$tmp/bad.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n' >"$tmp/nonsquare.mtx"
printf '4 3\n2\n1 3\n2 9\n\n' >"$tmp/bad.graph"
printf '%%%%MatrixMarket matrix coordinate pattern general\n4 4 2\n1 2\n3 4\n' >"$tmp/unsym.mtx"
fail=0
# "NP|REGEX of the message|ARGS..." (the message names the input)
cases=(
  "3|cannot open .*/missing.mtx|mis $data/missing.mtx"
  "3|cannot open .*/missing.graph|coarsen $data/missing.graph"
  "2|bad.mtx|mis $tmp/bad.mtx -k 2"
  "4|bad.graph|color $tmp/bad.graph"
  "3|not square|mis $tmp/nonsquare.mtx"
  "3|bad generator spec 'gen:nosuch:3'|color gen:nosuch:3"
  "7|bad generator spec 'gen:laplace3d:x'|coarsen gen:laplace3d:x"
  "3|pattern not symmetric|mis $tmp/unsym.mtx"
  "3|-k takes an integer from 1 to 2, got '3'|mis gen:laplace2d:10 -k 3"
  "4|unexpected argument '--bogus'|color gen:laplace2d:10 --bogus"
  "3|--algo takes mis2agg or mis2basic, got 'x'|coarsen gen:laplace2d:10 --algo x"
  "2|--recolor needs a value|color gen:laplace2d:10 --recolor"
  "3|unexpected argument '--recolor'|mis gen:laplace2d:10 --recolor 2"
  "3|gen:kron:8 has no values|gs gen:kron:8"
  "2|--kind takes point or cluster, got 'x'|gs gen:laplace2d:10 --kind x"
  "3|block size 4 must be >= 1 and divide|gs gen:laplace2d:10 --block-size 4"
)
for c in "${cases[@]}"; do
  np=${c%%|*} rest=${c#*|}
  re=${rest%%|*} args=${rest#*|}
  start=$(date +%s)
  # shellcheck disable=SC2086
  out=$(timeout "$limit" "$mpiexec" --oversubscribe -n "$np" "$mispc" $args 2>&1)
  rc=$? took=$(($(date +%s) - start))
  n=$(grep -E "^mispc" <<<"$out" | grep -cE -e "$re")
  if [ $rc -eq 124 ]; then
    echo "FAIL: mpiexec -n $np mispc $args: no exit within ${limit}s (hang)" >&2
    fail=1
  elif [ $rc -eq 0 ] || [ "$n" -ne 1 ]; then
    echo "FAIL: mpiexec -n $np mispc $args: exit $rc, $n lines matching '$re' (want 1):" >&2
    echo "$out" >&2
    fail=1
  else
    echo "ok: mpiexec -n $np mispc $args: exit $rc in ${took}s: $(grep -E "^mispc" <<<"$out" | grep -m1 -E -e "$re")"
  fi
done
exit $fail
