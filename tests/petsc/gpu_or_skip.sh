#!/usr/bin/env bash
# gpu_or_skip.sh COMMAND...: exit 77 (ctest: skipped) when no NVIDIA GPU is
# visible, unless MISPC_REQUIRE_GPU=1 (then a missing GPU fails); else run it.
if ! nvidia-smi -L >/dev/null 2>&1; then
  if [[ ${MISPC_REQUIRE_GPU:-0} == 1 ]]; then
    echo "no GPU visible and MISPC_REQUIRE_GPU=1" >&2
    exit 1
  fi
  echo "no GPU visible: skipped"
  exit 77
fi
exec "$@"
