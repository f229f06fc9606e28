#!/usr/bin/env bash
# SET TimeZone under mpirun: the session zone reaches every rank.  The
# planner turns zone-dependent casts, date_trunc, EXTRACT and casts to text
# of timestamptz into timezone(zone, x) / timezone_text(zone, x) calls with
# the zone as a constant, so the workers' plan fragments carry it; rank 0
# prints timestamptz in the zone.  `mpirun -np 2` must print exactly what
# floe alone prints, and that must be the zone's wall clock (checked values).
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
FLOE_SOURCE_DIR=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/scripts/mpi_lib.bash
source "$FLOE_SOURCE_DIR/tests/scripts/mpi_lib.bash"

floe -c "CREATE TABLE ev (id bigint, t timestamptz)" \
     -c "INSERT INTO ev SELECT x, TIMESTAMPTZ '2024-03-30 20:00:00+00' + x * INTERVAL '1 hour' FROM generate_series(1, 200) AS g(x)" > /dev/null
q=(-c "SET TimeZone = 'Europe/Berlin'"
   -c "SELECT id, t, t::date, t::timestamp, date_trunc('day', t), EXTRACT(hour FROM t), CAST(t AS text) FROM ev WHERE id IN (3, 7, 150) ORDER BY id"
   -c "SELECT t::date AS d, count(*) FROM ev GROUP BY 1 ORDER BY 1")
local_out=$(floe "${q[@]}")
mpi_out=$(floe_np 2 "${q[@]}")
[ "$local_out" = "$mpi_out" ] || { echo "local:"; echo "$local_out"; echo "mpirun -np 2:"; echo "$mpi_out"; fail "results differ under mpirun"; }
# 2024-03-30 23:00 UTC is 2024-03-31 00:00 CET; 03:00 UTC on the 31st is 05:00 CEST
grep -qx '3,2024-03-31 00:00:00+01,2024-03-31,2024-03-31 00:00:00,2024-03-31 00:00:00+01,0,2024-03-31 00:00:00+01' <<< "$mpi_out" ||
    { echo "$mpi_out"; fail "row 3 not in Berlin time"; }
grep -qx '7,2024-03-31 05:00:00+02,2024-03-31,2024-03-31 05:00:00,2024-03-31 00:00:00+01,5,2024-03-31 05:00:00+02' <<< "$mpi_out" ||
    { echo "$mpi_out"; fail "row 7 not in Berlin time"; }
# days in Berlin: 2024-03-30 has ids 1-2 (21:00, 22:00 CET), the 31st has 23 hours
grep -qx '2024-03-30,2' <<< "$mpi_out" || { echo "$mpi_out"; fail "wrong day count for 2024-03-30"; }
grep -qx '2024-03-31,23' <<< "$mpi_out" || { echo "$mpi_out"; fail "wrong day count for 2024-03-31 (23 hours)"; }
echo "OK"
