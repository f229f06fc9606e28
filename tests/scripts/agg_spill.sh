#!/usr/bin/env bash
# agg_spill.sh — a GROUP BY that spills under --memory-limit gives the
# in-memory result, really writes to the temp directory while it runs
# (FLOE_LOG=debug names the spill files, EXPLAIN ANALYZE counts them), and
# leaves that directory empty afterwards: on success, on a failing query
# and when killed mid-aggregate.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
spill="$tmp/spill"
q="SELECT count(*), sum(c), sum(s), max(m) FROM (SELECT x % 200000 AS k, count(*) AS c, sum(x) AS s, max('v' || CAST(x AS varchar)) AS m FROM generate_series(1, 600000) a(x) GROUP BY 1) t"
floe() { "$FLOE_BIN" --warehouse "$tmp/wh" --format csv "$@"; }

want=$(floe -c "$q")
got=$(FLOE_LOG=debug floe --memory-limit 32MB -c "SET temp_directory = '$spill'" -c "$q" 2>"$tmp/log")
[ "$got" = "$want" ] || { echo "FAIL: spilled '$got' != in-memory '$want'"; exit 1; }
grep -q "HashAggregate: 16 spill files" "$tmp/log" || { echo "FAIL: the aggregate did not spill"; cat "$tmp/log"; exit 1; }
[ -d "$spill" ] || { echo "FAIL: the aggregate did not spill to $spill"; exit 1; }
# EXPLAIN ANALYZE counts the files and bytes per partition
floe --memory-limit 32MB -c "SET temp_directory = '$spill'" -c "EXPLAIN ANALYZE $q" >"$tmp/explain"
grep -A1 "HashAggregate: mode=Final, gby=\[(" "$tmp/explain" | grep -Eq "spilled=[0-9]+ files [0-9.]+(B|KiB|MiB)" ||
    { echo "FAIL: EXPLAIN ANALYZE shows no spill"; cat "$tmp/explain"; exit 1; }
[ -z "$(ls -A "$spill")" ] || { echo "FAIL: $spill not empty after the query"; ls -la "$spill"; exit 1; }

# a failing query (division by zero in an aggregate after the groups spilled)
if floe --memory-limit 32MB -c "SET temp_directory = '$spill'" \
        -c "SELECT count(*), sum(s) FROM (SELECT x % 200000 AS k, sum(1 / (x - 599999)) AS s FROM generate_series(1, 600000) a(x) GROUP BY 1) t" \
        >/dev/null 2>"$tmp/err"; then
    echo "FAIL: division by zero succeeded"; exit 1
fi
grep -q "division by zero" "$tmp/err" || { echo "FAIL: unexpected error: $(cat "$tmp/err")"; exit 1; }
[ -z "$(ls -A "$spill")" ] || { echo "FAIL: $spill not empty after an error"; exit 1; }

# killed while aggregating: the files are anonymous, nothing is left
floe --memory-limit 32MB -c "SET temp_directory = '$spill'" \
     -c "SELECT count(*) FROM (SELECT x, count(*) FROM generate_series(1, 20000000) a(x) GROUP BY 1) t" >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
[ -z "$(ls -A "$spill")" ] || { echo "FAIL: $spill not empty after kill -9"; exit 1; }
echo "ok: aggregate spill"
