#!/usr/bin/env bash
# Row-level DML (DELETE [USING], UPDATE [FROM], TRUNCATE, MERGE) on Iceberg
# tables, merge-on-read and copy-on-write, partitioned or not, must do what
# DuckDB does: tests/scripts/dml_vs_duckdb.mjs runs the same seeded-random
# statements in floe and in the DuckDB npm peer and compares the counts and
# the tables after every statement (FLOE_DML_SEED=N repeats a run), then
# has DuckDB read and apply floe's position delete files by hand.  Last,
# python3-avro reads each table's metadata JSON, manifest list and
# manifests: their live data and delete files (content 1) must be the ones
# floe's "t$files" lists.  Which statements run: FEATURES in the .mjs.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
SRC=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
skip_test() {
    if [ "${CI:-}" = true ]; then echo "FAIL: $1 under CI=true"; exit 1; fi
    echo "SKIP: $1"; exit 0
}
command -v node >/dev/null && [ -d "$SRC/tests/peers/node_modules/@duckdb/node-api" ] ||
    skip_test "node or @duckdb/node-api not installed"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dml_vs_duckdb.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
status=0
FLOE_BINARY_DIR=${FLOE_BINARY_DIR:-$(dirname "$FLOE_BIN")} node "$SRC/tests/scripts/dml_vs_duckdb.mjs" "$FLOE_BIN" "$TMP" || status=$?
if [ "$status" -ne 0 ] && [ -n "${FLOE_DML_KEEP:-}" ]; then
    cp -r "$TMP" "$FLOE_DML_KEEP" && echo "kept the warehouses and scripts in $FLOE_DML_KEEP"
fi

if ! /usr/bin/python3 -c 'import avro.datafile' 2>/dev/null; then
    if [ "${CI:-}" = true ]; then echo "FAIL: python3-avro missing under CI=true"; exit 1; fi
    echo "SKIP: python3-avro not installed (manifests not checked)"
    exit "$status"
fi
/usr/bin/python3 - "$TMP/avro_checks.json" <<'PY' || status=1
import json, sys, warnings
import avro.datafile, avro.io
warnings.simplefilter("ignore")

def plain(p):
    for pre in ("file://", "file:"):
        if p.startswith(pre): return p[len(pre):]
    return p

def records(path):
    with open(plain(path), "rb") as fh:
        r = avro.datafile.DataFileReader(fh, avro.io.DatumReader())
        meta = dict(r.meta)
        recs = list(r)
        r.close()
    return meta, recs

checks = json.load(open(sys.argv[1]))
fails = 0
for c in checks:
    name = c["config"]
    md = json.load(open(plain(c["metadata"])))
    cur = md.get("current-snapshot-id")
    snap = next((s for s in md.get("snapshots", []) if s["snapshot-id"] == cur), None)
    if snap is None:
        print(f"FAIL {name}: metadata {c['metadata']} has no current snapshot {cur}"); fails += 1; continue
    _, mlist = records(snap["manifest-list"])
    live = {0: set(), 1: set(), 2: set()}
    delete_manifests = 0
    for m in mlist:
        mcontent = m.get("content", 0)
        meta, entries = records(m["manifest_path"])
        declared = meta.get("content", b"data").decode()
        if (mcontent == 1) != (declared == "deletes"):
            print(f"FAIL {name}: {m['manifest_path']}: manifest list says content {mcontent}, the manifest says {declared}"); fails += 1
        delete_manifests += mcontent == 1
        for e in entries:
            if e["status"] == 2: continue  # DELETED
            df = e["data_file"]
            if (df["content"] != 0) != (mcontent == 1):
                print(f"FAIL {name}: a content {df['content']} file in a manifest of content {mcontent}"); fails += 1
            live[df["content"]].add(df["file_path"])
    want_data, want_del = set(c["data"]), set(c["deletes"])
    if live[0] != want_data:
        print(f"FAIL {name}: the manifests' live data files differ from t$files: "
              f"{len(live[0] - want_data)} only in manifests, {len(want_data - live[0])} only in t$files"); fails += 1
    if live[1] != want_del:
        print(f"FAIL {name}: the manifests' position delete files (content 1) differ from t$files: "
              f"{sorted(live[1] - want_del)} only in manifests, {sorted(want_del - live[1])} only in t$files"); fails += 1
    if live[2]:
        print(f"FAIL {name}: {len(live[2])} equality delete files"); fails += 1
    if "merge-on-read" in name or "-mor-" in name:
        if not live[1]:
            print(f"FAIL {name}: no live entry with content 1 after a merge-on-read DELETE"); fails += 1
    print(f"ok   {name}: python3-avro reads snapshot {cur}: {len(mlist)} manifests ({delete_manifests} of deletes), "
          f"{len(live[0])} data files, {len(live[1])} position delete files, as t$files says")
print(f"manifests of {len(checks)} tables checked with python3-avro, {fails} failures")
sys.exit(1 if fails else 0)
PY
exit "$status"
