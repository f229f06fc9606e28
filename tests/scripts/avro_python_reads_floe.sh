#!/usr/bin/env bash
# floe's Avro writer and reader against python3-avro (Debian), on real
# Iceberg manifests and manifest lists:
#   1. `floe avro rewrite` re-encodes each file (null, deflate codecs);
#      python3-avro reads the copy and finds the same records, the same
#      custom metadata, and every field-id / element-id / key-id / value-id
#      of the original schema;
#   2. `floe avro cat` output equals python3-avro's reading of the original.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
TESTDATA=${FLOE_TESTDATA:-${FLOE_TESTDATA_DEFAULT:-}}
if [ -z "$TESTDATA" ] || [ ! -d "$TESTDATA/duckdb__duckdb-iceberg" ]; then
    if [ "${CI:-}" = true ]; then echo "FAIL: test data missing under CI=true"; exit 1; fi
    echo "SKIP: shared test data not found"; exit 0
fi
if ! /usr/bin/python3 -c 'import avro.datafile' 2>/dev/null; then
    if [ "${CI:-}" = true ]; then echo "FAIL: python3-avro missing under CI=true"; exit 1; fi
    echo "SKIP: python3-avro not installed"; exit 0
fi
TMP=$(mktemp -d "${FLOE_BINARY_DIR:-/tmp}/avro_py.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# A spread of manifests and manifest lists (v1, v2, deletes, partitions).
mapfile -t FILES < <(find "$TESTDATA/duckdb__duckdb-iceberg" -name '*.avro' | sort | awk 'NR % 6 == 1' | head -30)
[ "${#FILES[@]}" -gt 5 ] || { echo "FAIL: too few Avro files found"; exit 1; }

n=0
for f in "${FILES[@]}"; do
    for codec in null deflate; do
        out="$TMP/copy-$n-$codec.avro"
        "$FLOE_BIN" avro rewrite "$f" "$out" --codec "$codec" --block-size 2000
    done
    "$FLOE_BIN" avro cat "$f" > "$TMP/cat-$n.jsonl"
    printf '%s\n' "$f" > "$TMP/src-$n"
    n=$((n + 1))
done

/usr/bin/python3 - "$TMP" "$n" <<'PY'
import json, sys, warnings, os
import avro.datafile, avro.io
warnings.simplefilter("ignore")
tmp, n = sys.argv[1], int(sys.argv[2])

def read(path):
    with open(path, "rb") as fh:
        r = avro.datafile.DataFileReader(fh, avro.io.DatumReader())
        meta = {k: v for k, v in r.meta.items() if k not in ("avro.schema", "avro.codec")}
        schema = json.loads(r.meta["avro.schema"].decode())
        recs = list(r)
        r.close()
    return schema, meta, recs

def ids(node, path="", out=None):
    """Every Iceberg id attribute in a schema JSON, keyed by its path."""
    if out is None: out = {}
    if isinstance(node, dict):
        for k in ("field-id", "element-id", "key-id", "value-id"):
            if k in node: out[path + "/" + k + ":" + str(node.get("name", ""))] = node[k]
        for k, v in node.items():
            if isinstance(v, (dict, list)): ids(v, path + "/" + k, out)
    elif isinstance(node, list):
        for i, v in enumerate(node): ids(v, path + "/" + str(i), out)
    return out

def norm(v):
    """python3-avro values in the shape of floe's JSON rendering."""
    if isinstance(v, bytes): return v.decode("latin-1")
    if isinstance(v, dict): return {k: norm(x) for k, x in v.items()}
    if isinstance(v, list): return [norm(x) for x in v]
    if isinstance(v, float): return float(v)
    return v

def wrap64(v):
    # python keeps longs beyond 64 bits; floe (like Java) drops the varint
    # bits past the 64th, i.e. truncates the zigzag form
    if isinstance(v, int) and not isinstance(v, bool) and not (-2**63 <= v < 2**63):
        z = (2 * v if v >= 0 else -2 * v - 1) % 2**64
        return (z >> 1) ^ -(z & 1)
    if isinstance(v, dict): return {k: wrap64(x) for k, x in v.items()}
    if isinstance(v, list): return [wrap64(x) for x in v]
    return v

fails = 0
checked_ids = 0
for i in range(n):
    src = open(f"{tmp}/src-{i}").read().strip()
    s0, m0, r0 = read(src)
    for codec in ("null", "deflate"):
        s1, m1, r1 = read(f"{tmp}/copy-{i}-{codec}.avro")
        if r1 != [wrap64(r) for r in r0]:
            print(f"FAIL {src} ({codec}): records differ"); fails += 1
        if m1 != m0:
            print(f"FAIL {src} ({codec}): metadata differs: {sorted(m0)} vs {sorted(m1)}"); fails += 1
        i0, i1 = ids(s0), ids(s1)
        if i0 != i1:
            print(f"FAIL {src} ({codec}): schema ids differ"); fails += 1
        checked_ids += len(i1)
    got = [json.loads(l) for l in open(f"{tmp}/cat-{i}.jsonl")]
    want = [wrap64(norm(r)) for r in r0]
    if got != want:
        print(f"FAIL {src}: floe avro cat differs from python3-avro"); fails += 1
if checked_ids == 0:
    print("FAIL: no field ids found in any schema"); fails += 1
print(f"{n} files, {checked_ids} schema ids checked, {fails} failures")
sys.exit(1 if fails else 0)
PY
