#!/usr/bin/env bash
# Branches and tags (Iceberg's Spark SQL extensions, docs/docs/
# spark-ddl.md "Branching and Tagging DDL"; semantics of Java's
# ManageSnapshots): ALTER TABLE ... CREATE / REPLACE / DROP BRANCH | TAG with
# their errors; the refs in the metadata file as the spec writes them
# (read with python3's json, not floe); reading a branch or tag by Spark's
# identifier (s.t.branch_b, s.t.tag_x) and by FOR SYSTEM_VERSION AS OF 'b';
# a branch write does not move main and a main write does not move the
# branch (parents checked in $snapshots); SET write.branch / spark.wap.branch;
# fast_forward of main to a branch; an empty table's branch gets an empty
# snapshot; expire_snapshots keeps a branch's retained snapshots; the same
# DDL and writes through the REST catalog.
set -euo pipefail
FLOE_BIN=${FLOE_BIN:?FLOE_BIN not set}
src=${FLOE_SOURCE_DIR:?FLOE_SOURCE_DIR not set}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sql_branches.XXXXXX")
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=rest_server_lib.bash
. "$src/tests/scripts/rest_server_lib.bash"
trap 'rest_server_cleanup; rm -rf "$tmp"' EXIT
W=$tmp/wh
floe() { "$FLOE_BIN" --warehouse "$W" --format csv "$@"; }
q() { floe -c "$1" | tail -n +2; }
expect() { # expect ACTUAL EXPECTED WHAT
  [ "$1" = "$2" ] || fail "$3: expected [$2], got [$1]"
}
expect_error() { # expect_error SQL TEXT
  local out
  if out=$(floe -c "$1" 2>&1); then fail "no error for: $1"; fi
  case "$out" in *"$2"*) ;; *) fail "error for [$1] lacks [$2]: $out" ;; esac
}
ref() { q "SELECT snapshot_id FROM db.t\$refs WHERE name = '$1'"; }
parent() { q "SELECT parent_id FROM db.t\$snapshots WHERE snapshot_id = $1"; }
# The refs of the newest metadata file, as JSON text sorted by name.
meta_refs() {
  python3 - "$W" <<'PY'
import glob, json, os, sys
files = sorted(glob.glob(os.path.join(sys.argv[1], "db", "t", "metadata", "*.metadata.json")))
md = json.load(open(files[-1]))
print(json.dumps(md.get("refs", {}), sort_keys=True))
PY
}

# ---- an empty table: CREATE BRANCH commits an empty snapshot to the branch
# only (Java's createBranch(name) without a current snapshot); a tag needs one
floe -c "CREATE SCHEMA db; CREATE TABLE db.t (a int)" >/dev/null
expect_error "ALTER TABLE db.t CREATE TAG t0" "Cannot complete create or replace tag operation on db.t, main has no snapshot"
floe -c "ALTER TABLE db.t CREATE BRANCH early" >/dev/null
expect "$(q "SELECT count(*) FROM db.t\$snapshots")" "1" "empty branch snapshot"
expect "$(q "SELECT name, type FROM db.t\$refs")" "early,BRANCH" "only the branch ref"
expect "$(q "SELECT count(*) FROM db.t")" "0" "main still empty"
expect "$(q "SELECT count(*) FROM db.t.branch_early")" "0" "empty branch reads"
expect "$(q "SELECT operation FROM db.t\$snapshots")" "append" "empty snapshot is an append"

# ---- main gets rows; branch and tag with retention
floe -c "INSERT INTO db.t VALUES (1), (2)" >/dev/null
m1=$(ref main)
floe -c "ALTER TABLE db.t CREATE BRANCH b RETAIN 7 DAYS WITH SNAPSHOT RETENTION 3 SNAPSHOTS 2 DAYS" >/dev/null
floe -c "ALTER TABLE db.t CREATE TAG x RETAIN 12 HOURS" >/dev/null
floe -c "ALTER TABLE db.t CREATE BRANCH \`Quoted\` AS OF VERSION $m1 WITH SNAPSHOT RETENTION 90 MINUTES" >/dev/null
expect "$(q "SELECT name, type, snapshot_id = $m1, max_reference_age_in_ms, min_snapshots_to_keep, max_snapshot_age_in_ms FROM db.t\$refs WHERE name <> 'early' ORDER BY name")" \
  "Quoted,BRANCH,true,,,5400000
b,BRANCH,true,604800000,3,172800000
main,BRANCH,true,,,
x,TAG,true,43200000,," "\$refs after create"
# the metadata file holds the spec's fields (absent settings left out)
expect "$(meta_refs)" "$(python3 -c "import json; print(json.dumps({
  'Quoted': {'type': 'branch', 'snapshot-id': $m1, 'max-snapshot-age-ms': 5400000},
  'b': {'type': 'branch', 'snapshot-id': $m1, 'max-ref-age-ms': 604800000, 'min-snapshots-to-keep': 3, 'max-snapshot-age-ms': 172800000},
  'early': {'type': 'branch', 'snapshot-id': $(ref early)},
  'main': {'type': 'branch', 'snapshot-id': $m1},
  'x': {'type': 'tag', 'snapshot-id': $m1, 'max-ref-age-ms': 43200000}}, sort_keys=True))")" "refs in metadata.json"

# ---- DDL errors (Java's messages)
expect_error "ALTER TABLE db.t CREATE BRANCH b" "Ref b already exists"
expect_error "ALTER TABLE db.t CREATE TAG b" "Ref b already exists"
expect_error "ALTER TABLE db.t CREATE BRANCH main" "Ref main already exists"
expect_error "ALTER TABLE db.t DROP BRANCH main" "Cannot remove main branch"
expect_error "ALTER TABLE db.t DROP BRANCH x" "Ref x is a tag not a branch"
expect_error "ALTER TABLE db.t DROP TAG b" "Ref b is a branch not a tag"
expect_error "ALTER TABLE db.t DROP BRANCH nope" "Branch does not exist: nope"
expect_error "ALTER TABLE db.t DROP TAG nope" "Tag does not exist: nope"
expect_error "ALTER TABLE db.t REPLACE BRANCH nope" "Branch does not exist: nope"
expect_error "ALTER TABLE db.t REPLACE BRANCH x AS OF VERSION $m1" "Ref x is a tag not a branch"
expect_error "ALTER TABLE db.t REPLACE TAG b" "Ref b is a branch not a tag"
expect_error "ALTER TABLE db.t CREATE BRANCH c AS OF VERSION 12345" "Cannot set c to unknown snapshot: 12345"
expect_error "ALTER TABLE db.t CREATE BRANCH c RETAIN 0 DAYS" "RETAIN must be a positive number"
expect_error "ALTER TABLE db.t CREATE BRANCH c RETAIN 3 WEEKS" "expected DAYS, HOURS or MINUTES"
expect_error "ALTER TABLE db.t CREATE BRANCH c WITH SNAPSHOT RETENTION 0 SNAPSHOTS" "Min snapshots to keep must be greater than 0"
expect_error "ALTER TABLE db.t CREATE BRANCH" "expected the branch name"
expect_error "ALTER TABLE db.t CREATE TAG y trailing" "unexpected 'trailing'"
expect_error "ALTER TABLE db.nope CREATE BRANCH b" "nope"
# no-ops
floe -c "ALTER TABLE db.t CREATE BRANCH IF NOT EXISTS b; ALTER TABLE db.t CREATE TAG IF NOT EXISTS x;
  ALTER TABLE db.t DROP BRANCH IF EXISTS nope; ALTER TABLE db.t DROP TAG IF EXISTS nope;
  ALTER TABLE IF EXISTS db.nope CREATE BRANCH b" >/dev/null
# a column called tag is still dropped by DROP tag (no name after it)
floe -c "ALTER TABLE db.t ADD COLUMN tag int; ALTER TABLE db.t DROP tag" >/dev/null
expect "$(q "SELECT count(*) FROM db.t\$refs")" "5" "no-ops left refs alone"

# ---- writes: a branch write does not move main, a main write not the branch
floe -c "INSERT INTO db.t.branch_b VALUES (3)" >/dev/null
b1=$(ref b)
expect "$(ref main)" "$m1" "main unmoved by branch write"
expect "$(parent "$b1")" "$m1" "branch snapshot's parent is the branch head"
expect "$(q "SELECT count(*) FROM db.t")" "2" "main rows"
expect "$(q "SELECT count(*) FROM db.t.branch_b")" "3" "branch rows by identifier"
expect "$(q "SELECT count(*) FROM db.t FOR SYSTEM_VERSION AS OF 'b'")" "3" "branch rows by AS OF"
expect "$(q "SELECT count(*) FROM db.t.tag_x")" "2" "tag rows by identifier"
expect "$(q "SELECT count(*) FROM db.t FOR SYSTEM_VERSION AS OF 'x'")" "2" "tag rows by AS OF"
# the session's branch (Spark's spark.wap.branch; write.branch the same)
floe -c "SET spark.wap.branch = 'b'; INSERT INTO db.t VALUES (4)" >/dev/null
b2=$(ref b)
expect "$(parent "$b2")" "$b1" "session branch write parent"
expect "$(ref main)" "$m1" "main unmoved by session branch write"
expect "$(q "SELECT a FROM db.t.branch_b ORDER BY a" | tr '\n' ' ')" "1 2 3 4 " "branch rows"
# fast_forward main to the branch (main is b's ancestor)
expect "$(q "CALL system.fast_forward('db.t', 'main', 'b')")" "main,$m1,$b2" "fast_forward result"
expect "$(q "SELECT count(*) FROM db.t")" "4" "main after fast_forward"
# now main moves on its own; the branch stays
floe -c "INSERT INTO db.t VALUES (5)" >/dev/null
m2=$(ref main)
expect "$(parent "$m2")" "$b2" "main write parent"
expect "$(ref b)" "$b2" "branch unmoved by main write"
expect "$(q "SELECT count(*) FROM db.t.branch_b")" "4" "branch rows after main write"
# SET write.branch to a branch that does not exist yet creates it from main
floe -c "SET write.branch = 'fresh'; INSERT INTO db.t VALUES (6)" >/dev/null
expect "$(parent "$(ref fresh)")" "$m2" "new branch from main"
expect "$(q "SELECT count(*) FROM db.t.branch_fresh")" "6" "new branch rows"
expect "$(ref main)" "$m2" "main unmoved by new branch"
# COPY FROM follows the session's branch too
printf 'a\n7\n8\n' >"$tmp/in.csv"
floe -c "SET write.branch = 'fresh'; COPY db.t FROM '$tmp/in.csv' (FORMAT csv, HEADER)" >/dev/null
expect "$(q "SELECT count(*) FROM db.t.branch_fresh")" "8" "COPY FROM into a branch"
expect "$(ref main)" "$m2" "main unmoved by COPY into a branch"
# write errors
expect_error "INSERT INTO db.t.tag_x VALUES (1)" "x is a tag, not a branch. Tags cannot be targets for producing snapshots"
expect_error "SET write.branch = 'x'; INSERT INTO db.t VALUES (1)" "x is a tag, not a branch"
expect_error "INSERT INTO db.t.branch_zz VALUES (1)" "Cannot use branch (does not exist): zz"
expect_error "SET write.branch = 'x'; TRUNCATE db.t" "x is a tag, not a branch"
# a row-level change on a branch moves only the branch, on its own head
f1=$(ref fresh)
floe -c "DELETE FROM db.t.branch_fresh WHERE a = 7" >/dev/null
f2=$(ref fresh)
expect "$(parent "$f2")" "$f1" "branch delete's parent is the branch head"
expect "$(ref main)" "$m2" "main unmoved by a branch delete"
floe -c "SET write.branch = 'fresh'; UPDATE db.t SET a = 80 WHERE a = 8" >/dev/null
expect "$(parent "$(ref fresh)")" "$f2" "session branch update's parent"
expect "$(q "SELECT a FROM db.t.branch_fresh WHERE a > 6 ORDER BY a" | tr '\n' ' ')" "80 " "branch rows after delete and update"
expect "$(q "SELECT count(*) FROM db.t")" "5" "main rows after branch changes"
expect_error "SELECT * FROM db.t.branch_zz" "Cannot find snapshot associated with branch name: zz"
expect_error "SELECT * FROM db.t.tag_x FOR SYSTEM_VERSION AS OF 1" "cannot be combined with AS OF"
# a table literally named branch_b wins over the branch form (as Spark's
# SparkCatalog tries the table first) — through the catalog name floe
floe -c "CREATE SCHEMA t; CREATE TABLE t.branch_b (z int); INSERT INTO t.branch_b VALUES (42)" >/dev/null
expect "$(q "SELECT z FROM floe.t.branch_b")" "42" "real table wins"

# ---- REPLACE keeps retention; CREATE OR REPLACE; REPLACE TAG creates
floe -c "ALTER TABLE db.t REPLACE BRANCH b AS OF VERSION $m1" >/dev/null
expect "$(q "SELECT snapshot_id = $m1, max_reference_age_in_ms, min_snapshots_to_keep FROM db.t\$refs WHERE name = 'b'")" \
  "true,604800000,3" "replace keeps retention"
floe -c "ALTER TABLE db.t CREATE OR REPLACE BRANCH b AS OF VERSION $b2 RETAIN 1 DAYS;
  ALTER TABLE db.t CREATE OR REPLACE BRANCH c AS OF VERSION $b1;
  ALTER TABLE db.t REPLACE TAG y AS OF VERSION $b1; ALTER TABLE db.t CREATE OR REPLACE TAG x" >/dev/null
expect "$(q "SELECT name, snapshot_id = $b2, max_reference_age_in_ms FROM db.t\$refs WHERE name = 'b'")" "b,true,86400000" "create or replace existing"
expect "$(q "SELECT count(*) FROM db.t.branch_c")" "3" "create or replace new"
expect "$(q "SELECT type, snapshot_id = $b1 FROM db.t\$refs WHERE name = 'y'")" "TAG,true" "replace tag creates"
expect "$(q "SELECT snapshot_id = $m2, max_reference_age_in_ms FROM db.t\$refs WHERE name = 'x'")" "true,43200000" "tag replaced to current"
# REPLACE BRANCH main moves the table's current snapshot
floe -c "ALTER TABLE db.t REPLACE BRANCH main AS OF VERSION $m1" >/dev/null
expect "$(q "SELECT count(*) FROM db.t")" "2" "main replaced"
expect "$(q "SELECT snapshot_id FROM db.t\$history ORDER BY made_current_at DESC LIMIT 1")" "$m1" "history records it"
# ---- drops
floe -c "ALTER TABLE db.t DROP BRANCH c; ALTER TABLE db.t DROP TAG y; ALTER TABLE db.t DROP BRANCH \`Quoted\`" >/dev/null
expect "$(q "SELECT name FROM db.t\$refs ORDER BY name" | tr '\n' ' ')" "b early fresh main x " "refs after drops"

# ---- expire_snapshots honours a branch's retention: Spark's docs (WITH
# SNAPSHOT RETENTION n SNAPSHOTS) keep n snapshots of the branch, however
# old and whatever retain_last says for main
floe -c "CREATE TABLE db.e (a int); INSERT INTO db.e VALUES (1); INSERT INTO db.e VALUES (2);
  INSERT INTO db.e VALUES (3); ALTER TABLE db.e CREATE BRANCH k3 WITH SNAPSHOT RETENTION 3 SNAPSHOTS;
  INSERT INTO db.e VALUES (4); CREATE TABLE db.f (a int); INSERT INTO db.f VALUES (1);
  INSERT INTO db.f VALUES (2); INSERT INTO db.f VALUES (3); ALTER TABLE db.f CREATE BRANCH plain;
  INSERT INTO db.f VALUES (4)" >/dev/null
floe -c "CALL system.expire_snapshots(table => 'db.e', older_than => now(), retain_last => 1);
  CALL system.expire_snapshots(table => 'db.f', older_than => now(), retain_last => 1)" >/dev/null
expect "$(q "SELECT count(*) FROM db.e\$snapshots")" "4" "branch min-snapshots-to-keep retained"
expect "$(q "SELECT count(*) FROM db.f\$snapshots")" "2" "plain branch keeps its head only"
expect "$(q "SELECT count(*) FROM db.e.branch_k3")" "3" "retained branch reads"

# ---- metadata of an older writer without "refs" (main implied by
# current-snapshot-id): a new branch keeps main
floe -c "CREATE TABLE db.old (a int); INSERT INTO db.old VALUES (1)" >/dev/null
python3 - "$W/db/old/metadata" <<'PY'
import glob, json, os, sys
f = sorted(glob.glob(os.path.join(sys.argv[1], "*.metadata.json")))[-1]
md = json.load(open(f)); md.pop("refs", None); json.dump(md, open(f, "w"))
PY
floe -c "ALTER TABLE db.old CREATE BRANCH nb" >/dev/null
expect "$(q "SELECT name FROM db.old\$refs ORDER BY name" | tr '\n' ' ')" "main nb " "implied main kept"
expect "$(q "SELECT count(*) FROM db.old")" "1" "implied main rows"

# ---- through the REST catalog (refs travel as set-snapshot-ref /
# remove-snapshot-ref updates)
rest_server_start "$tmp/rwh"
rf() { timeout 120 "$FLOE_BIN" --catalog "rest:$rest_url" --format csv -c "$1" | tail -n +2; }
rf "CREATE SCHEMA r; CREATE TABLE r.t (a int); INSERT INTO r.t VALUES (1)" >/dev/null
rf "ALTER TABLE r.t CREATE BRANCH rb RETAIN 2 DAYS; ALTER TABLE r.t CREATE TAG rt" >/dev/null
rf "INSERT INTO r.t.branch_rb VALUES (2)" >/dev/null
expect "$(rf "SELECT count(*) FROM r.t")" "1" "REST main rows"
expect "$(rf "SELECT count(*) FROM r.t.branch_rb")" "2" "REST branch rows"
expect "$(rf "SELECT name, type, max_reference_age_in_ms FROM r.t\$refs ORDER BY name" | tr '\n' ' ')" \
  "main,BRANCH, rb,BRANCH,172800000 rt,TAG, " "REST refs"
rf "ALTER TABLE r.t DROP TAG rt" >/dev/null
expect "$(rf "SELECT count(*) FROM r.t\$refs")" "2" "REST drop"
rest_server_stop
echo "sql_branches: ok"
