#!/usr/bin/env bash
# expect.sh [-e REGEX]... [-n NAME=REGEX]... -- COMMAND...
# Runs COMMAND; fails unless it exits 0 and every REGEX (extended, grep -E)
# matches some line of its output. -x EXIT: the exit code expected (default 0).
set -uo pipefail
regexes=()
want_exit=0
while [[ $# -gt 0 && $1 != -- ]]; do
  case $1 in
    -e) regexes+=("$2"); shift 2 ;;
    -x) want_exit=$2; shift 2 ;;
    *) echo "expect.sh: bad argument $1" >&2; exit 2 ;;
  esac
done
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [[ $rc -ne $want_exit ]]; then
  echo "expect.sh: exit code $rc, wanted $want_exit" >&2
  exit 1
fi
for re in "${regexes[@]}"; do
  if ! grep -Eq -- "$re" <<<"$out"; then
    echo "expect.sh: no line matches /$re/" >&2
    exit 1
  fi
done
echo "expect.sh: ok"
