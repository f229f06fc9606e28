#!/usr/bin/env bash
# demo.sh — the main job `make run` shows, on data it makes itself.
#
# floe's SQL front end at work: a sample of a million sales rows made
# with SQL alone (generate_series and expressions), written to Parquet
# files with COPY, then queried in parallel — aggregates, a top-N, a
# join — with EXPLAIN showing the plan split over several partitions.
# The Parquet tools (`floe parquet ...`) show what COPY wrote, and a
# partitioned Iceberg table is made in the warehouse catalog.  Everything
# runs through the floe binary: `floe -c SQL`.
set -euo pipefail
floe=${1:-build/release/floe}
here=$(cd "$(dirname "$0")/.." && pwd)
out=${FLOE_DEMO_OUT:-$here/demo-out}
mkdir -p "$out"
rm -rf "$out/warehouse" "$out"/sales_*.parquet
export FLOE_WAREHOUSE="$out/warehouse"

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# Show a statement, then run it (with \timing so the cost shows too).
sql() {
    step "$1"
    "$floe" -c '\timing on' -c "SET target_partitions = 4; $1"
}

step "floe --version"
"$floe" --version

# The sample: four Parquet files of 250,000 rows each, written by COPY.
for part in 0 1 2 3; do
    lo=$((part * 250000 + 1)) hi=$(((part + 1) * 250000))
    sql "COPY (
  SELECT x AS id,
         x % 50 AS store,
         CASE (x / 12) % 4 WHEN 0 THEN 'north' WHEN 1 THEN 'south' WHEN 2 THEN 'east' ELSE 'west' END AS region,
         make_date(2024, CAST(1 + x % 12 AS int), CAST(1 + x % 28 AS int)) AS day,
         CAST((x * 7919) % 100000 AS double precision) / 100 AS amount,
         (x * 31) % 9 + 1 AS quantity
  FROM generate_series($lo, $hi) AS g(x)
) TO '$out/sales_$part.parquet'"
done

step "floe parquet schema demo-out/sales_0.parquet"
"$floe" parquet schema "$out/sales_0.parquet"

step "floe parquet meta demo-out/sales_0.parquet"
"$floe" parquet meta "$out/sales_0.parquet" | sed -n "1,14p"  # sed reads it all: no SIGPIPE

sales="read_parquet('$out/sales_*.parquet')"

sql "SELECT count(*) AS rows, sum(quantity) AS items, round(sum(amount)) AS revenue FROM $sales"

sql "SELECT region, count(*) AS sales, round(avg(amount), 2) AS avg_amount, max(quantity) AS max_qty
FROM $sales GROUP BY region ORDER BY region"

sql "SELECT store, round(sum(amount * quantity)) AS turnover
FROM $sales WHERE day >= DATE '2024-07-01' GROUP BY store ORDER BY turnover DESC LIMIT 5"

sql "SELECT m.manager, count(*) AS sales, round(sum(s.amount)) AS revenue
FROM $sales AS s
JOIN (VALUES ('north', 'Ada'), ('south', 'Grace'), ('east', 'Ada'), ('west', 'Edsger')) AS m(region, manager)
  ON s.region = m.region
WHERE s.quantity >= 8
GROUP BY m.manager ORDER BY revenue DESC"

step "the same result as CSV and as JSON lines"
"$floe" --format csv -c "SELECT region, count(*) AS n FROM $sales GROUP BY region ORDER BY region"
"$floe" --format jsonl -c "SELECT id, region, day, amount FROM $sales ORDER BY id LIMIT 3"

sql "EXPLAIN SELECT region, sum(amount) FROM $sales WHERE quantity > 5 GROUP BY region ORDER BY region"

sql "EXPLAIN ANALYZE SELECT store, count(*) FROM $sales GROUP BY store ORDER BY count(*) DESC LIMIT 3"

step "an Iceberg table in the warehouse catalog (demo-out/warehouse), loaded with INSERT"
"$floe" -c "CREATE TABLE sales (id bigint NOT NULL, store int, region text, day date, amount double precision, quantity int)
  PARTITIONED BY (month(day), region)" -c "DESCRIBE sales"

# The load: read in parallel, partition values computed per row, rows
# hash-distributed on the partition tuple so that each (month, region) is
# written by one writer, one commit on the coordinator.
sql "EXPLAIN INSERT INTO sales SELECT id, store, region, day, amount, quantity FROM $sales"
sql "INSERT INTO sales SELECT id, store, region, day, amount, quantity FROM $sales"

sql "SELECT count(*) AS partitions, sum(file_count) AS files, sum(record_count) AS rows FROM \"sales\$partitions\""
sql "SELECT file_path, record_count, file_size_in_bytes FROM \"sales\$files\" ORDER BY file_path LIMIT 3"

# Queries on the table prune by partition: July only reads July's files.
sql "SELECT region, count(*) AS sales, round(sum(amount)) AS revenue FROM sales
WHERE day BETWEEN DATE '2024-07-01' AND DATE '2024-07-31' GROUP BY region ORDER BY region"
sql "EXPLAIN SELECT count(*) FROM sales WHERE day BETWEEN DATE '2024-07-01' AND DATE '2024-07-31' AND region = 'north'"

# A second load (a year later: 2024 has 366 days) appends a snapshot and
# new partitions; time travel still sees the first.
sql "INSERT INTO sales SELECT id + 1000000, store, region, day + 366, amount, quantity FROM $sales WHERE store < 5"
first=$("$floe" --format csv -c 'SELECT snapshot_id FROM "sales$snapshots" ORDER BY committed_at LIMIT 1' | tail -n 1)
sql "SELECT (SELECT count(*) FROM sales) AS now, (SELECT count(*) FROM sales FOR SYSTEM_VERSION AS OF $first) AS first_load"
