#!/usr/bin/env bash
# rest_client.sh — floe as a client of an Iceberg REST catalog (floe's own
# `floe rest-server`, OAuth2 client credentials).
#
# Through --catalog rest:URL --catalog-credential ID:SECRET: create a
# namespace and a partitioned table, INSERT, SELECT, ALTER (add a column,
# set a property, rename), CREATE TABLE AS, DELETE, INSERT OVERWRITE, a
# second process sees it all, a catalog config file works the same, DROP
# TABLE / DROP SCHEMA.  Errors: an unknown table
# ("does not exist"), a wrong secret (refused, exit 1, secret not echoed),
# a wrong static token, --catalog-credential without a REST catalog.
set -euo pipefail
src=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bindir=${FLOE_BINARY_DIR:-$src/build/release}
FLOE_BIN=${FLOE_BIN:-$bindir/floe}
[ -x "$FLOE_BIN" ] || { echo "FAIL: $FLOE_BIN not built"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rest_client.XXXXXX")
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=rest_server_lib.bash
. "$src/tests/scripts/rest_server_lib.bash"
trap 'rest_server_cleanup; rm -rf "$tmp"' EXIT

rand=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
secret="rc-${rand}-secret"
rest_server_start "$tmp/wh" --client-id floe-test --client-secret "$secret" --token-lifetime 600

floe() { timeout 120 "$FLOE_BIN" --catalog "rest:$rest_url" --catalog-credential "floe-test:$secret" --format csv "$@"; }
expect() { # expect FILE EXPECTED-TEXT WHAT
  [ "$(cat "$1")" = "$2" ] || fail "$3: expected
$2
got
$(cat "$1")"
}

floe -c "CREATE SCHEMA sales" \
     -c "CREATE TABLE sales.orders (id bigint NOT NULL, region string, amount decimal(10,2)) PARTITIONED BY (region)" \
     -c "INSERT INTO sales.orders VALUES (1, 'eu', 10.50), (2, 'us', 20.00), (3, 'eu', 5.25)" \
     -c "SELECT region, count(*) AS n, sum(amount) AS total FROM sales.orders GROUP BY region ORDER BY region" \
     >"$tmp/a.out" 2>&1 || fail "create/insert/select: $(cat "$tmp/a.out")"
expect "$tmp/a.out" "region,n,total
eu,2,15.75
us,1,20.00" "first SELECT"

# ALTER through commits (requirements + updates on the server).
floe -c "ALTER TABLE sales.orders ADD COLUMN note string" \
     -c "ALTER TABLE sales.orders SET ('owner' = 'ops')" \
     -c "INSERT INTO sales.orders VALUES (4, 'us', 1.00, 'late')" \
     >"$tmp/b.out" 2>&1 || fail "ALTER + INSERT: $(cat "$tmp/b.out")"

# A second process sees everything.
floe -c "SELECT id, region, note FROM sales.orders ORDER BY id" >"$tmp/c.out" 2>&1 || fail "SELECT: $(cat "$tmp/c.out")"
expect "$tmp/c.out" "id,region,note
1,eu,
2,us,
3,eu,
4,us,late" "SELECT after ALTER"
# Row-level changes commit through the server too (v2 position deletes,
# v3 deletion vectors and row lineage).
for fv in 2 3; do
  floe -c "CREATE TABLE sales.rl$fv (id bigint, p int) PARTITIONED BY (p) WITH (format_version = $fv)" \
       -c "INSERT INTO sales.rl$fv SELECT k, CAST(k % 2 AS int) FROM generate_series(1, 20) g(k)" \
       -c "DELETE FROM sales.rl$fv WHERE id = 3" -c "UPDATE sales.rl$fv SET p = 5 WHERE id = 4" \
       -c "MERGE INTO sales.rl$fv USING (SELECT 6 AS id) x ON sales.rl$fv.id = x.id WHEN MATCHED THEN DELETE" \
       >"$tmp/rl.out" 2>&1 || fail "row-level changes on v$fv: $(cat "$tmp/rl.out")"
  floe -c "SELECT count(*) AS n, sum(id) AS s, sum(p) AS ps FROM sales.rl$fv" >"$tmp/rl.out" 2>&1 ||
    fail "SELECT after row-level changes: $(cat "$tmp/rl.out")"
  expect "$tmp/rl.out" "n,s,ps
18,201,14" "row-level changes on v$fv through REST"
  floe -c "DROP TABLE sales.rl$fv" >"$tmp/rl.out" 2>&1 || fail "DROP rl$fv: $(cat "$tmp/rl.out")"
done

floe -c "SHOW TABLES FROM sales" >"$tmp/d.out" 2>&1 || fail "SHOW TABLES: $(cat "$tmp/d.out")"
grep -qx orders "$tmp/d.out" || fail "SHOW TABLES does not list orders: $(cat "$tmp/d.out")"
floe -c "SELECT count(*) AS n FROM sales.\"orders\$snapshots\"" >"$tmp/e.out" 2>&1 || fail "snapshots: $(cat "$tmp/e.out")"
expect "$tmp/e.out" "n
2" "snapshot count"

# CREATE TABLE AS, DELETE (whole partitions) and INSERT OVERWRITE commit
# through the server too.
floe -c "CREATE TABLE sales.by_region PARTITIONED BY (region) AS SELECT region, sum(amount) AS total FROM sales.orders GROUP BY region" \
     -c "DELETE FROM sales.by_region WHERE region = 'us'" \
     -c "INSERT OVERWRITE sales.by_region SELECT 'eu' AS region, CAST(1.00 AS decimal(20,2)) AS total" \
     -c "INSERT INTO sales.by_region VALUES ('ap', 2.00)" \
     -c "SELECT region, total FROM sales.by_region ORDER BY region" >"$tmp/ctas.out" 2>&1 ||
  fail "CTAS / DELETE / INSERT OVERWRITE: $(cat "$tmp/ctas.out")"
expect "$tmp/ctas.out" "region,total
ap,2.00
eu,1.00" "CTAS, DELETE and INSERT OVERWRITE"
floe -c "DROP TABLE sales.by_region" >"$tmp/ctas2.out" 2>&1 || fail "DROP by_region: $(cat "$tmp/ctas2.out")"

# The table files are where the server put them (its warehouse).
[ -n "$(find "$tmp/wh" -path '*orders*' -name '*.metadata.json' -print -quit)" ] ||
  fail "no metadata under the server's warehouse"

# A catalog config file (JSON) instead of flags.
cat >"$tmp/catalog.json" <<EOF
{"uri": "$rest_url", "credential": "floe-test:$secret", "scope": "catalog"}
EOF
timeout 60 "$FLOE_BIN" --catalog-config "$tmp/catalog.json" --format csv -c "SELECT count(*) AS n FROM sales.orders" \
  >"$tmp/f.out" 2>&1 || fail "--catalog-config: $(cat "$tmp/f.out")"
expect "$tmp/f.out" "n
4" "count through --catalog-config"

# The same as key=value lines, the secret from the environment.
printf '# a REST catalog\nuri = rest:%s\nscope=catalog\n' "$rest_url" >"$tmp/catalog.properties"
FLOE_CATALOG_CREDENTIAL="floe-test:$secret" timeout 60 "$FLOE_BIN" --catalog-config "$tmp/catalog.properties" \
  --format csv -c "SELECT count(*) AS n FROM sales.orders" >"$tmp/f2.out" 2>&1 ||
  fail "--catalog-config key=value + FLOE_CATALOG_CREDENTIAL: $(cat "$tmp/f2.out")"
expect "$tmp/f2.out" "n
4" "count through a key=value config"

# Rename, then drop.
floe -c "ALTER TABLE sales.orders RENAME TO orders2" -c "SELECT count(*) AS n FROM sales.orders2" \
  >"$tmp/g.out" 2>&1 || fail "RENAME: $(cat "$tmp/g.out")"
expect "$tmp/g.out" "n
4" "count after RENAME"

# Errors.
if floe -c "SELECT * FROM sales.ordres" >"$tmp/h.out" 2>&1; then fail "an unknown table was read"; fi
grep -q "does not exist" "$tmp/h.out" || fail "unknown table message: $(cat "$tmp/h.out")"
grep -q "orders2" "$tmp/h.out" || fail "no 'did you mean' for the unknown table: $(cat "$tmp/h.out")"

if timeout 60 "$FLOE_BIN" --catalog "rest:$rest_url" --catalog-credential "floe-test:wrong-$rand" -c "SELECT 1" \
    >"$tmp/i.out" 2>&1; then fail "a wrong client secret was accepted"; fi
grep -qi "refused\|401\|auth" "$tmp/i.out" || fail "wrong secret message: $(cat "$tmp/i.out")"
if grep -q "$rand" "$tmp/i.out"; then fail "the wrong secret is echoed: $(cat "$tmp/i.out")"; fi

if timeout 60 "$FLOE_BIN" --catalog "rest:$rest_url" --catalog-token "tok-$rand" -c "SELECT 1" \
    >"$tmp/j.out" 2>&1; then fail "a made-up token was accepted"; fi
grep -q "401" "$tmp/j.out" || fail "bad token message: $(cat "$tmp/j.out")"
if grep -q "$rand" "$tmp/j.out"; then fail "the token is echoed: $(cat "$tmp/j.out")"; fi

if timeout 60 "$FLOE_BIN" --warehouse "$tmp/local" --catalog-credential "a:b" -c "SELECT 1" >"$tmp/k.out" 2>&1; then
  fail "--catalog-credential without a REST catalog was accepted"
fi
grep -q "REST catalogs" "$tmp/k.out" || fail "credential without REST message: $(cat "$tmp/k.out")"

# A namespace holding a table cannot be dropped; after DROP TABLE it can.
if floe -c "DROP SCHEMA sales" >"$tmp/l.out" 2>&1; then fail "a non-empty namespace was dropped"; fi
floe -c "DROP TABLE sales.orders2" -c "DROP SCHEMA sales" >"$tmp/m.out" 2>&1 || fail "DROP: $(cat "$tmp/m.out")"
if floe -c "SELECT * FROM sales.orders2" >"$tmp/n.out" 2>&1; then fail "a dropped table was read"; fi
grep -q "does not exist" "$tmp/n.out" || fail "dropped table message: $(cat "$tmp/n.out")"

rest_server_stop
if grep -q "$rand" "$rest_log"; then fail "a secret appears in the server log: $(grep "$rand" "$rest_log")"; fi
echo "rest_client: ok"
