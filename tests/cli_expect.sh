#!/bin/sh
# cli_expect.sh RC REGEX COMMAND...: runs COMMAND and passes when it exits
# with status RC and its stderr+stdout match the extended regular expression
# REGEX (used for the command-line tool's error exits).
rc_want=$1
re=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne "$rc_want" ]; then
  echo "cli_expect: exit status $rc, expected $rc_want" >&2
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
  echo "cli_expect: output does not match: $re" >&2
  exit 1
fi
exit 0
