#!/usr/bin/env bash
# scripts/gpu-bundle/compare-lib against a stub mispc (MISPC_BIN) whose times
# depend on the library the loader was given: medians, ranges, the ratio, the
# order of rounds and a failed check.
set -uo pipefail
repo=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "not a library" >"$tmp/libother.so.0.1.0"
xz -c "$tmp/libother.so.0.1.0" >"$tmp/libother.so.xz"
# the stub: round k of a library (its own counter) takes base + k ms; the other
# library's base is 2.0, the bundle's 1.0; BAD=1 makes the other's kron row fail
cat >"$tmp/mispc" <<'STUB'
#!/usr/bin/env bash
lib=new base=1
case ":${LD_LIBRARY_PATH:-}:" in *"/other:"*) [ -f "${LD_LIBRARY_PATH%%:*}/libmispc.so.0" ] && lib=other base=2 ;; esac
n=$(cat "$STUB_DIR/count.$lib" 2>/dev/null || echo 0); n=$((n + 1)); echo $n >"$STUB_DIR/count.$lib"
echo "$lib" >>"$STUB_DIR/order"
echo "# mispc bench $*"
if [ "$2" = agg ]; then # bench agg's table: "matrix", the time in column agg
  echo "matrix  algo  nodes  agg  check"
  echo "gen:kron:10 mis2agg 1024 $(awk -v b=$base 'BEGIN {printf "%.4f", 3 * b}') ok"
  exit 0
fi
echo "graph   variant  rows  ms  check"
chk=ok; [ "$lib" = other ] && [ "${BAD:-0}" = 1 ] && chk=FAILED
echo "gen:kron:10 default 1024 $(awk -v b=$base -v n=$n 'BEGIN {printf "%.4f", b + n}') $chk"
echo "gen:path:9 default 9 $(awk -v b=$base 'BEGIN {printf "%.4f", b / 10}') ok"
STUB
chmod +x "$tmp/mispc"
export STUB_DIR=$tmp MISPC_BIN=$tmp/mispc
fail() { echo "compare_lib: $*"; echo "$out"; exit 1; }
out=$("$repo/scripts/gpu-bundle/compare-lib" "$tmp/libother.so.xz" --rounds 3 -- mis2 gen:kron:10 2>&1) ||
  fail "exit $? with good checks"
# kron: other 3, 4, 5 -> median 4 (3-5); new 2, 3, 4 -> median 3 (2-4); 3 / 4 = 0.750
grep -Eq "^gen:kron:10 +default +4\.0000 \(3\.0000-5\.0000\) +3\.0000 \(2\.0000-4\.0000\) +0\.750$" <<<"$out" ||
  fail "kron row"
grep -Eq "^gen:path:9 +default +0\.2000 \(0\.2000-0\.2000\) +0\.1000 \(0\.1000-0\.1000\) +0\.500$" <<<"$out" ||
  fail "path row"
[ "$(tr '\n' ' ' <"$tmp/order")" = "other new new other other new " ] || fail "order $(cat "$tmp/order")"
rm -f "$tmp"/count.* "$tmp/order"
out=$(BAD=1 "$repo/scripts/gpu-bundle/compare-lib" "$tmp/libother.so.0.1.0" --rounds 2 -- mis2 x 2>&1) &&
  fail "exit 0 with a failed check"
grep -q "gen:kron:10 default (other, round 1): check FAILED" <<<"$out" || fail "failed check not named"
# OTHER_LIB relative to the caller's folder (the script changes to the repo root)
out=$(cd "$tmp" && "$repo/scripts/gpu-bundle/compare-lib" libother.so.xz --rounds 1 -- mis2 x 2>&1) ||
  fail "relative OTHER_LIB"
grep -Eq "^gen:kron:10 +default +[0-9.]+ \(" <<<"$out" || fail "relative OTHER_LIB's table"
# another table's time column (bench agg): other 6, new 3
out=$("$repo/scripts/gpu-bundle/compare-lib" "$tmp/libother.so.xz" --rounds 2 --column agg -- agg x 2>&1) ||
  fail "--column agg"
grep -Eq "^gen:kron:10 +mis2agg +6\.0000 \(6\.0000-6\.0000\) +3\.0000 \(3\.0000-3\.0000\) +0\.500$" <<<"$out" ||
  fail "agg row"
out=$("$repo/scripts/gpu-bundle/compare-lib" "$tmp/libother.so.xz" --rounds 1 -- agg x 2>&1) &&
  fail "exit 0 without the ms column"
grep -q "no table rows with a column ms" <<<"$out" || fail "missing column not named"
out=$("$repo/scripts/gpu-bundle/compare-lib" "$tmp/missing.so" -- mis2 x 2>&1)
[ $? = 2 ] && grep -q "no such file" <<<"$out" || fail "missing library"
echo "compare_lib: ok"
