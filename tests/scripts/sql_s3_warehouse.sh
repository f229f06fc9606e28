#!/usr/bin/env bash
# sql_s3_warehouse.sh — a SQLite catalog whose tables live on S3.
#
# `--catalog FILE --warehouse s3://bucket/prefix` keeps the catalog database
# local and writes every table file (metadata, manifests, data) to the
# s3rver peer on 127.0.0.1 (behind a SigV4-checking proxy).  Checks that
# DDL and queries work there, that the files really are in the bucket and
# not on the local disk, that a second process opening the same catalog
# sees the tables, and that the secret key appears in no output.
# Skips when node or the s3rver peer is missing, except under CI=true.
set -euo pipefail
src=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bindir=${FLOE_BINARY_DIR:-$src/build/release}
FLOE_BIN=${FLOE_BIN:-$bindir/floe}

skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL: $*"; exit 1; fi
  echo "SKIP: $*"
  exit 0
}
command -v node >/dev/null 2>&1 || skip "node is not installed"
[ -f "$src/tests/peers/node_modules/s3rver/package.json" ] ||
  skip "s3rver not installed under tests/peers/node_modules (run scripts/install-deps.sh)"
[ -x "$FLOE_BIN" ] || { echo "FAIL: $FLOE_BIN not built"; exit 1; }

tmp=$(mktemp -d)
peer_pid=
cleanup() {
  [ -n "$peer_pid" ] && kill "$peer_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

bucket=floe-wh
# shellcheck source=../peers/s3_peer.bash
source "$src/tests/peers/s3_peer.bash"
s3_peer_start "$bucket" floewh

cd "$tmp"
floe() { "$FLOE_BIN" --catalog "$tmp/catalog.db" --warehouse "s3://$bucket/wh" --format csv "$@"; }

floe -c "CREATE SCHEMA sales" \
     -c "CREATE TABLE sales.orders (id bigint NOT NULL, day date, amount decimal(10,2)) PARTITIONED BY (day(day))" \
     -c "ALTER TABLE sales.orders ADD COLUMN note string" >"$tmp/ddl.out" 2>&1 || fail "DDL on an S3 warehouse: $(cat "$tmp/ddl.out")"

# A second process sees the table, with its evolved schema, from S3.
floe -c "DESCRIBE sales.orders" >"$tmp/describe.out" 2>&1 || fail "DESCRIBE: $(cat "$tmp/describe.out")"
grep -q '^note,' "$tmp/describe.out" || fail "DESCRIBE does not show the added column: $(cat "$tmp/describe.out")"
floe -c "SELECT count(*) AS n FROM sales.orders" >"$tmp/count.out" 2>&1 || fail "SELECT: $(cat "$tmp/count.out")"
[ "$(tail -n 1 "$tmp/count.out")" = 0 ] || fail "empty table counted $(cat "$tmp/count.out")"

# The metadata is in the bucket, not on the local disk.
meta=$(sqlite3 "$tmp/catalog.db" "SELECT metadata_location FROM iceberg_tables WHERE table_name = 'orders'")
case $meta in
  "s3://$bucket/wh/sales/orders/metadata/"*.metadata.json) ;;
  *) fail "metadata location is '$meta', expected under s3://$bucket/wh/sales/orders/metadata/" ;;
esac
[ ! -e "$tmp/s3:" ] && [ -z "$(find "$tmp" -name '*.metadata.json' -print -quit)" ] ||
  fail "metadata files were written to the local disk"
floe -c "SELECT count(*) FROM iceberg_scan('$meta')" >"$tmp/scan.out" 2>&1 || fail "iceberg_scan of the S3 metadata: $(cat "$tmp/scan.out")"

# INSERT writes data files to the bucket; the commit lands once; a second
# process reads the rows back from S3; INSERT OVERWRITE replaces a day.
floe -c "INSERT INTO sales.orders SELECT x, DATE '2024-03-01' + CAST(x % 3 AS int), CAST(x AS decimal(10,2)) / 100, 'n' || CAST(x AS text)
         FROM generate_series(1, 3000) g(x)" >"$tmp/insert.out" 2>&1 || fail "INSERT into an S3 table: $(cat "$tmp/insert.out")"
floe -c "SELECT count(*), sum(id), count(DISTINCT day) FROM sales.orders" >"$tmp/rows.out" 2>&1 ||
  fail "reading the inserted rows: $(cat "$tmp/rows.out")"
[ "$(tail -n 1 "$tmp/rows.out")" = "3000,4501500,3" ] || fail "rows read back from S3: $(cat "$tmp/rows.out")"
floe -c 'SELECT file_path FROM sales."orders$files"' >"$tmp/files.out" 2>&1 || fail "\$files: $(cat "$tmp/files.out")"
[ "$(tail -n +2 "$tmp/files.out" | wc -l)" = 3 ] || fail "expected one file per day (3): $(cat "$tmp/files.out")"
tail -n +2 "$tmp/files.out" | grep -v "^s3://$bucket/wh/sales/orders/data/day_day=2024-03-0[123]/" &&
  fail "a data file is outside the table's S3 data path"
floe -c "INSERT OVERWRITE sales.orders SELECT id, day, amount * 2, note FROM sales.orders WHERE day = DATE '2024-03-02'" \
  >"$tmp/overwrite.out" 2>&1 || fail "INSERT OVERWRITE on S3: $(cat "$tmp/overwrite.out")"
floe -c "SELECT (SELECT count(*) FROM sales.orders), count(*), sum(amount) FROM sales.orders WHERE day = DATE '2024-03-02'" \
  >"$tmp/after.out" 2>&1 || fail "reading after the overwrite: $(cat "$tmp/after.out")"
# 3000 rows still; the replaced day holds its 1000 rows with doubled amounts (2 x 14995.00)
[ "$(tail -n 1 "$tmp/after.out")" = "3000,1000,29990.00" ] || fail "after the overwrite: $(cat "$tmp/after.out")"
[ -z "$(find "$tmp" -name '*.parquet' -print -quit)" ] || fail "data files were written to the local disk"

# A catalog URI without a local database is refused with a clear message.
if "$FLOE_BIN" --warehouse "s3://$bucket/wh" -c "SELECT 1" >"$tmp/nodb.out" 2>&1; then
  fail "an s3:// warehouse without --catalog was accepted"
fi
grep -q "catalog" "$tmp/nodb.out" || fail "unclear error without --catalog: $(cat "$tmp/nodb.out")"

for f in "$tmp"/*.out; do
  if grep -qF -- "$rand" "$f"; then fail "the secret key leaked into $(basename "$f")"; fi
done
echo "ok: tables on s3://$bucket/wh with a local SQLite catalog"
