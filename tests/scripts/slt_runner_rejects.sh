#!/usr/bin/env bash
# The sqllogictest runner must FAIL on wrong expectations: every file in
# tests/sql/bad/ is deliberately wrong and names on an "# expect: <text>"
# line what the runner must report.  The runner must exit with status 1
# (not crash, not pass) and print that text.  A correct file (the runner's
# own self test) must pass, so the runner is not simply failing everything.
set -euo pipefail
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${FLOE_BINARY_DIR:?FLOE_BINARY_DIR not set}
runner="$BIN/slt_runner"
[ -x "$runner" ] || { echo "FAIL: $runner not built"; exit 1; }
failures=0
for f in "$SRC"/tests/sql/bad/*.slt; do
    want=$(sed -n 's/^# expect: //p' "$f" | head -1)
    set +e
    out=$("$runner" "$f" 2>&1)
    rc=$?
    set -e
    if [ "$rc" -ne 1 ]; then
        echo "FAIL: $(basename "$f"): runner exit status $rc, expected 1"; echo "$out"; failures=$((failures + 1))
    elif ! grep -qF -- "$want" <<<"$out"; then
        echo "FAIL: $(basename "$f"): output lacks '$want'"; echo "$out"; failures=$((failures + 1))
    else
        echo "ok: $(basename "$f") rejected ($want)"
    fi
done
if ! "$runner" "$SRC/tests/sql/slt_selftest.slt"; then
    echo "FAIL: slt_selftest.slt should pass"; failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all bad files rejected"
