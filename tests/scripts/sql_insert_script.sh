#!/usr/bin/env bash
# A script of single-row INSERTs does the same metadata work for every
# INSERT, however many came before: counted from FLOE_LOG=debug lines
# ("[metadata] parse|write", "[manifest] read list|read"), not timed.
# Per INSERT after the first load: no metadata.json parsed (the catalog
# keeps what it wrote), one written, one manifest list read, no manifest
# read (an append lists the old manifests without opening them; the
# batches are placed so that none of them reaches the 100 manifests at
# which the commit merges them, see sql_manifest_merge.sh).
# Also: write.metadata.previous-versions-max / delete-after-commit keep the
# metadata log and the metadata folder bounded.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sql_insert_script.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP"
W=$TMP/wh
floe() { "$FLOE_BIN" --warehouse "$W" --format csv "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

floe -c "CREATE SCHEMA db" \
     -c "CREATE TABLE db.t (id bigint, s string) WITH ('write.metadata.previous-versions-max' = '5', 'write.metadata.delete-after-commit.enabled' = 'true')" > /dev/null

# count KIND_REGEX LOG: lines of the debug log matching
count() { grep -c -E "$1" "$2" || true; }

# run_batch FIRST N: N INSERTs in one `floe -f` process; writes
# "parses writes lists manifests", counted over the batch, to batch.counts.
run_batch() {
    local first=$1 n=$2 i
    : > "batch.sql"
    for i in $(seq "$first" $((first + n - 1))); do echo "INSERT INTO db.t VALUES ($i, 'row $i');" >> batch.sql; done
    FLOE_LOG=debug floe -f batch.sql > batch.out 2> batch.log || { cat batch.log; fail "batch at $first failed"; }
    echo "$(count '\[metadata\] parse .*metadata\.json' batch.log) $(count '\[metadata\] write ' batch.log)" \
         "$(count '\[manifest\] read list ' batch.log) $(count '\[manifest\] read /' batch.log)" > batch.counts
}

N=40
run_batch 0 1 # the first append has no manifest list to read
run_batch 1 $N
early=$(cat batch.counts)
# more history, so that any work growing with it shows in the late batch
run_batch 1001 200
run_batch 2001 $N
late=$(cat batch.counts)
echo "early batch (parses writes lists manifests): $early"
echo "late batch  (parses writes lists manifests): $late"
[ "$early" = "$late" ] || fail "the work per INSERT changed with the table's history: '$early' then '$late'"
read -r parses writes lists manifests <<< "$late"
[ "$parses" -le 1 ] || fail "$parses metadata.json parses for $N INSERTs (expected at most the first load)"
[ "$writes" = $N ] || fail "$writes metadata.json writes for $N INSERTs (expected one each)"
[ "$lists" = $N ] || fail "$lists manifest-list reads for $N INSERTs (expected one each)"
[ "$manifests" = 0 ] || fail "$manifests manifests read by $N appends (expected none)"

# The rows are all there, and a new process sees the last commit.
[ "$(floe -c "SELECT count(*), sum(id) FROM db.t" | tail -n 1)" = "281,$(( (1+40)*40/2 + (1001+1200)*200/2 + (2001+2040)*40/2 ))" ] \
    || fail "wrong rows: $(floe -c "SELECT count(*), sum(id) FROM db.t" | tail -n 1)"
# The log is trimmed to 5 entries, and the files that fell off are gone.
md=$(ls "$W"/db/t/metadata/*.metadata.json | sort | tail -n 1)
python3 - "$md" <<'EOF' || fail "metadata-log not bounded"
import json, sys
m = json.load(open(sys.argv[1]))
assert len(m["metadata-log"]) == 5, len(m["metadata-log"])
assert len(m["snapshots"]) == 281, len(m["snapshots"])
assert m["refs"]["main"]["snapshot-id"] == m["current-snapshot-id"] == m["snapshots"][-1]["snapshot-id"]
assert m["snapshot-log"][-1]["snapshot-id"] == m["current-snapshot-id"]
EOF
files=$(ls "$W"/db/t/metadata/*.metadata.json | wc -l)
[ "$files" -le 6 ] || fail "$files metadata.json files kept (previous-versions-max 5, delete-after-commit)"
echo "OK"
