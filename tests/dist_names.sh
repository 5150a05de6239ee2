#!/bin/sh
# The distributed layer's sources are named dist_* or *_dist* (CMakeLists.txt
# leaves them out of a build without MPI); a source named otherwise that
# includes a header of that layer breaks such a build (mis2_cover_lsa.cu did,
# for CUDA without MPI). Lists the offenders and fails if there are any.
#   sh tests/dist_names.sh SOURCE_ROOT
cd "${1:?source root}" || exit 2
bad=0
for f in src/*.c src/*.cu mis/*.c mis/*.cu aggregation/*.c aggregation/*.cu \
  gauss_seidel/*.c gauss_seidel/*.cu; do
  case "${f##*/}" in dist_* | *_dist*) continue ;; esac
  if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]*/)?(mispc/dist\.h|dist_[^">]*|[^">/]*_dist[^">]*)[">]' "$f"; then
    echo "  ^ $f includes a header of the distributed layer but is not named dist_* or *_dist*"
    bad=1
  fi
done
exit $bad
