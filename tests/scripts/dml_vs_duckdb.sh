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
# CI runs a fixed seed (a red run must be repeatable); set FLOE_DML_SEED=random
# (or any number) to explore others.
if [ "${FLOE_DML_SEED:-}" = random ]; then unset FLOE_DML_SEED; else export FLOE_DML_SEED=${FLOE_DML_SEED:-20261201}; fi
FLOE_BINARY_DIR=${FLOE_BINARY_DIR:-$(dirname "$FLOE_BIN")} node "$SRC/tests/scripts/dml_vs_duckdb.mjs" "$FLOE_BIN" "$TMP" || status=$?
if [ "$status" -ne 0 ] && [ -n "${FLOE_DML_KEEP:-}" ]; then
    cp -r "$TMP" "$FLOE_DML_KEEP" && echo "kept the warehouses and scripts in $FLOE_DML_KEEP"
fi

if ! /usr/bin/python3 -c 'import avro.datafile' 2>/dev/null; then
    if [ "${CI:-}" = true ]; then echo "FAIL: python3-avro missing under CI=true"; exit 1; fi
    echo "SKIP: python3-avro not installed (manifests not checked)"
    exit "$status"
fi
/usr/bin/python3 - "$TMP/avro_checks.json" "$FLOE_BIN" <<'PY' || status=1
import json, struct, subprocess, sys, warnings, zlib
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

def roaring32(b, at):
    """A 32-bit Roaring bitmap in the portable format at b[at:]: (values, end)."""
    cookie, = struct.unpack_from("<I", b, at); at += 4
    if cookie & 0xFFFF == 12347:
        n = (cookie >> 16) + 1
        runs = b[at:at + (n + 7) // 8]; at += (n + 7) // 8
        offsets = n >= 4
    elif cookie == 12346:
        n, = struct.unpack_from("<I", b, at); at += 4
        runs, offsets = bytes((n + 7) // 8), True
    else:
        raise ValueError(f"bad roaring cookie {cookie}")
    keys = [struct.unpack_from("<HH", b, at + 4 * i) for i in range(n)]; at += 4 * n
    if offsets: at += 4 * n
    out = []
    for i, (key, card1) in enumerate(keys):
        hi = key << 16
        if runs[i // 8] >> (i % 8) & 1:
            nr, = struct.unpack_from("<H", b, at); at += 2
            for j in range(nr):
                st, ln = struct.unpack_from("<HH", b, at + 4 * j)
                out.extend(hi | v for v in range(st, st + ln + 1))
            at += 4 * nr
        elif card1 + 1 > 4096:
            for w in range(1024):
                word, = struct.unpack_from("<Q", b, at + 8 * w)
                while word:
                    lo = word & -word
                    out.append(hi | (w * 64 + lo.bit_length() - 1)); word ^= lo
            at += 8192
        else:
            out.extend(hi | v for v in struct.unpack_from(f"<{card1 + 1}H", b, at)); at += 2 * (card1 + 1)
    return out, at

def deletion_vector(path, offset, size):
    """The positions of a deletion-vector-v1 blob (Puffin spec)."""
    with open(plain(path), "rb") as fh:
        fh.seek(offset); blob = fh.read(size)
    ln, = struct.unpack_from(">I", blob, 0)
    if blob[4:8] != bytes([0xD1, 0xD3, 0x39, 0x64]): raise ValueError("bad DV magic")
    if ln != size - 8: raise ValueError(f"DV length {ln}, blob of {size} bytes")
    crc, = struct.unpack_from(">I", blob, 4 + ln)
    if crc != zlib.crc32(blob[4:4 + ln]): raise ValueError("DV CRC mismatch")
    nb, = struct.unpack_from("<Q", blob, 8)
    at, out = 16, []
    for _ in range(nb):
        hi, = struct.unpack_from("<I", blob, at)
        vals, at = roaring32(blob, at + 4)
        out.extend((hi << 32) | v for v in vals)
    return out

def row_key(cols, obj):
    return json.dumps(["\u2205" if obj.get(c) is None else str(obj[c]) for c in cols], ensure_ascii=False, separators=(",", ":"))

checks = json.load(open(sys.argv[1]))
floe = sys.argv[2]
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
    dvs, counts = {}, {}
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
            if df["content"] == 0: counts[df["file_path"]] = df["record_count"]
            if df["content"] == 1 and str(df["file_format"]).upper() == "PUFFIN":
                ref, off, size = df.get("referenced_data_file"), df.get("content_offset"), df.get("content_size_in_bytes")
                if ref is None or off is None or size is None:
                    print(f"FAIL {name}: a deletion vector without referenced_data_file / content_offset / content_size_in_bytes"); fails += 1; continue
                if ref in dvs:
                    print(f"FAIL {name}: two live deletion vectors for {ref}"); fails += 1
                try:
                    pos = deletion_vector(df["file_path"], off, size)
                except Exception as ex:
                    print(f"FAIL {name}: the DV for {ref} in {df['file_path']} does not decode: {ex}"); fails += 1; continue
                if len(pos) != df["record_count"]:
                    print(f"FAIL {name}: the DV for {ref} holds {len(pos)} positions, its entry says {df['record_count']}"); fails += 1
                if pos != sorted(set(pos)):
                    print(f"FAIL {name}: the DV for {ref} is not sorted and distinct"); fails += 1
                dvs[ref] = pos
    want_data, want_del = set(c["data"]), set(c["deletes"])
    if live[0] != want_data:
        print(f"FAIL {name}: the manifests' live data files differ from t$files: "
              f"{len(live[0] - want_data)} only in manifests, {len(want_data - live[0])} only in t$files"); fails += 1
    if live[1] != want_del:
        print(f"FAIL {name}: the manifests' position delete files (content 1) differ from t$files: "
              f"{sorted(live[1] - want_del)} only in manifests, {sorted(want_del - live[1])} only in t$files"); fails += 1
    if live[2]:
        print(f"FAIL {name}: {len(live[2])} equality delete files"); fails += 1
    if c.get("dv"):
        # apply the DVs by hand to the data files' rows in file order
        got = []
        for f in sorted(live[0]):
            out = subprocess.run([floe, "parquet", "cat", plain(f), "--format", "jsonl"], check=True,
                                 capture_output=True, text=True).stdout
            rows = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
            if len(rows) != counts[f]:
                print(f"FAIL {name}: {f} has {len(rows)} rows, its entry says {counts[f]}"); fails += 1
            gone = set(dvs.get(f, ()))
            if gone and max(gone) >= len(rows):
                print(f"FAIL {name}: the DV for {f} deletes position {max(gone)} of {len(rows)} rows"); fails += 1
            got.extend(row_key(c["cols"], r) for i, r in enumerate(rows) if i not in gone)
        strays = set(dvs) - live[0]
        if strays:
            print(f"FAIL {name}: deletion vectors for files that are no live data files: {sorted(strays)[:3]}"); fails += 1
        if sorted(got) != sorted(c["rows"]):
            print(f"FAIL {name}: the data files less the positions of their deletion vectors are not floe's table "
                  f"({len(got)} rows vs {len(c['rows'])})"); fails += 1
        else:
            print(f"ok   {name}: {len(dvs)} deletion vectors decoded (Puffin, Roaring), applied to {len(live[0])} data files: floe's {len(got)} rows")
    if "merge-on-read" in name or "-mor-" in name:
        if not live[1]:
            print(f"FAIL {name}: no live entry with content 1 after a merge-on-read DELETE"); fails += 1
    print(f"ok   {name}: python3-avro reads snapshot {cur}: {len(mlist)} manifests ({delete_manifests} of deletes), "
          f"{len(live[0])} data files, {len(live[1])} delete files (content 1), as t$files says")
print(f"manifests of {len(checks)} tables checked with python3-avro, {fails} failures")
sys.exit(1 if fails else 0)
PY
exit "$status"
