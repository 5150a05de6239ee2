# Sourced by the clustergs PETSc test scripts (line_clusters.sh,
# auto_clusters.sh); they set mpiexec and fail=0 first.

# The CG iterations of the clustergs row of solve's table.
clustergs_its() { awk '$1 == "clustergs" && $NF == "converged" {print $2}' <<<"$1"; }

# same_on_ranks WHAT PATTERN... -- COMMAND...: COMMAND on 1, 2 and 3 ranks
# ($mpiexec --oversubscribe -n P); every output must match each PATTERN
# (grep -E; WHAT names them in the message) and give the same clustergs
# iterations, left in $ref. fail=1 otherwise.
same_on_ranks() {
  local what=$1 pats=() np out l p
  shift
  while [ "$1" != "--" ]; do
    pats+=("$1")
    shift
  done
  shift
  ref=""
  for np in 1 2 3; do
    out=$("$mpiexec" --oversubscribe -n "$np" "$@" 2>&1)
    l=$(clustergs_its "$out")
    for p in "${pats[@]}"; do
      if ! grep -Eq -- "$p" <<<"$out"; then
        echo "FAIL: $np ranks: -ksp_view does not show $what" >&2
        grep -E "clusters|strength threshold" <<<"$out" >&2
        fail=1
        break
      fi
    done
    [ -n "$ref" ] || ref=$l
    if [ -z "$l" ] || [ "$l" != "$ref" ]; then
      echo "FAIL: $np ranks: '$l' iterations, 1 rank '$ref'" >&2
      fail=1
    fi
  done
}
