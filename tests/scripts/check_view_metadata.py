#!/usr/bin/env python3
"""check_view_metadata.py FILE N_VERSIONS SQL... — assert that FILE is an
Iceberg view metadata file as format/view-spec.md describes it
(format-version 1) with N_VERSIONS versions whose SQL representations
are, in order, the SQL arguments, the last one current."""
import json
import sys
import uuid

path, n = sys.argv[1], int(sys.argv[2])
sqls = sys.argv[3:]
md = json.load(open(path))


def need(cond, what):
    if not cond:
        sys.exit(f"FAIL {path}: {what}\n{json.dumps(md, indent=1)}")


for key in ("view-uuid", "format-version", "location", "current-version-id", "versions", "version-log", "schemas"):
    need(key in md, f"missing required field {key}")
need(md["format-version"] == 1, "format-version is not 1")
uuid.UUID(md["view-uuid"])
need(isinstance(md["location"], str) and md["location"], "location is not a non-empty string")
vers = md["versions"]
need(len(vers) == n, f"expected {n} versions, got {len(vers)}")
schema_ids = {s["schema-id"] for s in md["schemas"]}
for s in md["schemas"]:
    need(s.get("type") == "struct" and isinstance(s.get("fields"), list), "a schema is not a struct with fields")
ids = [v["version-id"] for v in vers]
need(len(set(ids)) == len(ids), "version ids repeat")
for v, sql in zip(vers, sqls):
    for key in ("version-id", "schema-id", "timestamp-ms", "summary", "representations", "default-namespace"):
        need(key in v, f"version lacks {key}")
    need(v["schema-id"] in schema_ids, "a version's schema-id names no schema")
    need(isinstance(v["summary"], dict), "summary is not a map")
    need(isinstance(v["default-namespace"], list), "default-namespace is not a list")
    reps = v["representations"]
    need(len(reps) == 1 and reps[0]["type"] == "sql" and reps[0]["dialect"] == "floe", "representation is not sql/floe")
    need(reps[0]["sql"] == sql, f"sql {reps[0]['sql']!r} != {sql!r}")
need(md["current-version-id"] == ids[-1], "the last version is not current")
log = md["version-log"]
need([e["version-id"] for e in log] == ids, "version-log does not list every version in order")
need(all("timestamp-ms" in e for e in log), "a version-log entry lacks timestamp-ms")
print("ok", path)
