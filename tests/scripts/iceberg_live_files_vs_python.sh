#!/usr/bin/env bash
# floe's live-file listing against an independent decoder, on every Iceberg
# table under duckdb__duckdb-iceberg:
#   `floe inspect TABLE --files --format jsonl --allow-moved-paths` (run from
#   an unrelated directory, so every recorded path must be remapped) must list
#   the same set of (content, file_path, record_count, file_size_in_bytes) as
#   tests/tools/iceberg_live_files.py (python3-avro), and every resolved path
#   of a file that exists locally must exist.  Tables the python lister
#   cannot list (no current snapshot, missing manifest list) are reported
#   with the reason and must then make floe fail or list nothing too.
# Then python3-avro reads a manifest and a manifest list written by floe and
# finds every field id in their embedded schemas.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TESTDATA=${FLOE_TESTDATA:-${FLOE_TESTDATA_DEFAULT:-}}
if [ -z "$TESTDATA" ] || [ ! -d "$TESTDATA/duckdb__duckdb-iceberg" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: test data missing under CI=true"; exit 1; fi
    echo "SKIP: shared test data not found"; exit 0
fi
if ! /usr/bin/python3 -c 'import avro.datafile' 2>/dev/null; then
    if [ "${CI:-}" = true ]; then echo "FAIL: python3-avro missing under CI=true"; exit 1; fi
    echo "SKIP: python3-avro not installed"; exit 0
fi
TESTDATA=$(cd "$TESTDATA" && pwd)
TMP=$(mktemp -d "${FLOE_BINARY_DIR:-/tmp}/ice_live.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"

mapfile -t TABLES < <(find "$TESTDATA/duckdb__duckdb-iceberg" -type d -name metadata -exec dirname {} \; | sort)
[ "${#TABLES[@]}" -gt 30 ] || { echo "FAIL: too few tables found (${#TABLES[@]})"; exit 1; }

fails=0 compared=0 skipped=0
for t in "${TABLES[@]}"; do
    name=${t#"$TESTDATA/duckdb__duckdb-iceberg/"}
    if ! /usr/bin/python3 -W ignore "$SRC/tests/tools/iceberg_live_files.py" "$t" > py.jsonl 2> py.err; then
        reason=$(tail -n 1 py.err)
        echo "listed-not-compared: $name: python: $reason"
        skipped=$((skipped + 1))
        # floe must agree that there is nothing to list: fail, or print nothing.
        if "$FLOE_BIN" inspect "$t" --files --format jsonl --allow-moved-paths > floe.jsonl 2>/dev/null &&
           [ -s floe.jsonl ]; then
            echo "FAIL: $name: floe lists files the python lister cannot ($reason)"
            fails=$((fails + 1))
        fi
        continue
    fi
    if ! "$FLOE_BIN" inspect "$t" --files --format jsonl --allow-moved-paths > floe.jsonl 2> floe.err; then
        echo "FAIL: $name: floe: $(cat floe.err)"
        fails=$((fails + 1))
        continue
    fi
    if ! /usr/bin/python3 - "$name" <<'PY'
import json, os, sys
name = sys.argv[1]
key = lambda d: (d["content"], d["file_path"], d["record_count"], d["file_size_in_bytes"])
py = sorted(key(json.loads(l)) for l in open("py.jsonl"))
fl = [json.loads(l) for l in open("floe.jsonl")]
fk = sorted(key(d) for d in fl)
if py != fk:
    print(f"FAIL: {name}: floe and python disagree")
    for x in sorted(set(py) - set(fk))[:5]: print("  only python:", x)
    for x in sorted(set(fk) - set(py))[:5]: print("  only floe:  ", x)
    sys.exit(1)
missing = [d["resolved_path"] for d in fl
           if not d["file_path"].startswith("s3://") and not os.path.exists(d["resolved_path"])]
if missing:
    print(f"note: {name}: {len(missing)} resolved paths absent, e.g. {missing[0]}")
print(f"ok: {name}: {len(fk)} live files")
PY
    then fails=$((fails + 1)); fi
    compared=$((compared + 1))
done
echo "compared $compared tables, $skipped not listable by python, $fails failures"

# python3-avro reads floe-written manifests and finds every field id.
TOOL="${FLOE_BINARY_DIR:-}/ice_manifest_tool"
if [ -x "$TOOL" ]; then
    for v in 1 2 3; do
        "$TOOL" write "$TMP/w$v" 50 "$v" > /dev/null
        /usr/bin/python3 -W ignore - "$TMP/w$v" "$v" <<'PY' || fails=$((fails + 1))
import json, sys
import avro.datafile, avro.io
d, v = sys.argv[1], int(sys.argv[2])
def ids(s, out):
    if isinstance(s, dict):
        for k in ("field-id", "element-id", "key-id", "value-id"):
            if k in s: out.add(s[k])
        for x in s.values(): ids(x, out)
    elif isinstance(s, list):
        for x in s: ids(x, out)
    return out
for fname, need in (("manifest.avro", {0, 1, 2, 100, 101, 102, 103, 104, 108, 117, 118, 125, 126, 127, 132, 133, 1000, 1001}),
                    ("list.avro", {500, 501, 502, 503, 504, 507, 508, 509, 510, 511})):
    with open(f"{d}/{fname}", "rb") as f:
        r = avro.datafile.DataFileReader(f, avro.io.DatumReader())
        schema = json.loads(r.get_meta("avro.schema"))
        rows = list(r)
        meta = {k: r.get_meta(k) for k in ("format-version", "schema", "partition-spec")}
    got = ids(schema, set())
    if v >= 2: need = need | ({3, 4, 134, 135} if fname == "manifest.avro" else {515, 516, 517})
    if not need <= got:
        print(f"FAIL: v{v} {fname}: field ids missing: {sorted(need - got)}"); sys.exit(1)
    if fname == "manifest.avro":
        if len(rows) != 50 or any(e["data_file"]["record_count"] != 100 + i for i, e in enumerate(rows)):
            print(f"FAIL: v{v} manifest rows differ"); sys.exit(1)
        if meta["format-version"] != str(v).encode() or not meta["schema"] or not meta["partition-spec"]:
            print(f"FAIL: v{v} manifest header keys missing: {meta}"); sys.exit(1)
    print(f"ok: python3-avro reads floe's v{v} {fname} ({len(rows)} rows, {len(got)} ids)")
PY
    done
else
    echo "note: $TOOL not built; floe-written manifest check skipped"
fi
# The human-readable summary and error paths of `floe inspect`.
GZ="$TESTDATA/duckdb__duckdb-iceberg/data/persistent/iceberg/lineitem_iceberg_gz"
out=$("$FLOE_BIN" inspect "$GZ")
for want in "format-version:  1" "location:        ./lineitem_iceberg_gz" "(current)" "ref main (branch)"; do
    grep -qF "$want" <<<"$out" || { echo "FAIL: inspect summary lacks '$want'"; fails=$((fails + 1)); }
done
if "$FLOE_BIN" inspect "$GZ" --snapshot 12345 > /dev/null 2> err.txt; then
    echo "FAIL: an unknown snapshot was accepted"; fails=$((fails + 1))
elif ! grep -q "no snapshot 12345" err.txt; then
    echo "FAIL: unknown snapshot message: $(cat err.txt)"; fails=$((fails + 1))
fi
if "$FLOE_BIN" inspect "$TMP/no-such-table" > /dev/null 2> err.txt; then
    echo "FAIL: a missing table was accepted"; fails=$((fails + 1))
elif ! grep -q "no-such-table" err.txt; then
    echo "FAIL: missing table message: $(cat err.txt)"; fails=$((fails + 1))
fi
"$FLOE_BIN" inspect "$GZ" --format jsonl | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["format-version"] == 1, d' ||
    { echo "FAIL: inspect --format jsonl is not the metadata"; fails=$((fails + 1)); }

[ "$fails" -eq 0 ] || { echo "FAIL: $fails failures"; exit 1; }
echo "PASS"
