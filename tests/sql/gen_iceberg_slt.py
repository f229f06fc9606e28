#!/usr/bin/env python3
"""gen_iceberg_slt.py — write sqllogictest files (tests/sql/iceberg_*.slt)
that query the duckdb-iceberg test tables through floe's SQL and compare
with the rows DuckDB's own tests expect.

Which queries: the ones tests/scripts/iceberg_expected_results.py can
check with `floe scan` (simple SELECT cols | * | count(*) FROM
iceberg_scan(...) [WHERE simple predicates] [ORDER BY ... LIMIT n]), and
only those whose rows `floe scan` reproduces (the harness's comparison
passes): the expected rows in the .slt are then DuckDB's rows, written in
floe's text forms (which is what the SQL engine prints) — taken from the
same `floe scan` output that was just checked against DuckDB's.  Plus a
count(*) per generated_spec table against its count.csv.

One .slt per DuckDB .test file, named iceberg_<test name>.slt, beginning
with `require testdata`; table paths are written as ${TESTDATA}/... .

Usage: gen_iceberg_slt.py FLOE_BINARY [TESTDATA_DIR [OUT_DIR]]
  (defaults: /work/shared/testdata or $FLOE_TESTDATA, and tests/sql)
With SLT_RUNNER=path/to/slt_runner in the environment, each written file
is run and its failing records are moved to OUT_DIR/pending/<name>.slt
(not registered with ctest) so that what is registered passes; move them
back (re-run this) as the SQL engine learns what they need.
Run it by hand after changing it; the output is committed.
"""
import csv
import importlib.util
import io
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
FLOE = os.path.abspath(sys.argv[1])
TESTDATA = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                           os.environ.get("FLOE_TESTDATA", "/work/shared/testdata"))
OUT = os.path.abspath(sys.argv[3] if len(sys.argv) > 3 else HERE)
ROOT = os.path.join(TESTDATA, "duckdb__duckdb-iceberg")

# The harness reads its arguments at import time.
sys.argv = [sys.argv[0], FLOE, ROOT]
_spec = importlib.util.spec_from_file_location(
    "harness", os.path.join(SRC, "tests/scripts/iceberg_expected_results.py"))
h = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(h)

# How a named option of iceberg_scan is written in floe's SQL: PostgreSQL's
# named-argument form.
def option_sql(name, value):
    return "%s => %s" % (name, value)


def slt_type(t):
    """Type letter of an Iceberg type (JSON form)."""
    if t in ("int", "long"):
        return "I"
    if t in ("float", "double"):
        return "R"
    if t == "boolean":
        return "B"
    return "T"


def float_text(v):
    """A float the way the runner prints type R."""
    s = str(v)
    if s in ("NaN", "nan"):
        return "NaN"
    if s in ("Infinity", "inf"):
        return "inf"
    if s in ("-Infinity", "-inf"):
        return "-inf"
    return "%.3f" % float(s)


def scan_pairs(scan_args):
    """Rows of a `floe scan` as (jsonl dict, csv list) pairs, in order."""
    js = h.jsonl(h.run(scan_args + ["--format", "jsonl"]))
    rows = list(csv.reader(io.StringIO(h.run(scan_args + ["--format", "csv"]))))
    header, data = rows[0], rows[1:]
    if len(data) != len(js):
        raise RuntimeError("csv and jsonl row counts differ")
    return [(j, dict(zip(header, c))) for j, c in zip(js, data)]


def cell(jv, cv, t):
    if jv is None:
        return "NULL"
    if t in ("float", "double"):
        return float_text(jv)
    if t == "boolean":
        return "true" if jv else "false"
    if t == "string" and jv == "":
        return "(empty)"
    return cv


def blob_literal(m):
    """DuckDB '\\x01\\x02'::BLOB (or printable chars) as a PostgreSQL bytea."""
    raw = re.sub(r"\\x([0-9A-Fa-f]{2})", lambda x: chr(int(x.group(1), 16)), m.group(1))
    return "'\\x%s'::bytea" % raw.encode("latin-1").hex()


def floe_sql(m, path, opts, cols, keys, limit):
    """The DuckDB query in floe's SQL: path under ${TESTDATA}, options as
    named arguments, blobs as bytea, ORDER BY spelled out with DuckDB's
    NULLS LAST (and dropped when there is no LIMIT: rows compare sorted)."""
    args = ["'${TESTDATA}/duckdb__duckdb-iceberg/%s'" % path]
    # The tables record paths relative to the duckdb-iceberg checkout (its
    # tests run there); with allow_moved_paths floe finds them under the
    # table's location wherever the test data sits.
    if not any(k == "allow_moved_paths" for k, _ in opts):
        opts = opts + [("allow_moved_paths", "true")]
    for k, v in opts:
        args.append(option_sql(k, v))
    out = "SELECT %s FROM iceberg_scan(%s)" % (cols, ", ".join(args))
    if m.group("where"):
        w = re.sub(r"'((?:[^']|\\x[0-9A-Fa-f]{2})*)'::blob", blob_literal, m.group("where"), flags=re.I)
        out += " WHERE " + w
    if limit:
        if keys:
            out += " ORDER BY " + ", ".join('"%s"%s NULLS LAST' % (c, " DESC" if d else "") for c, d in keys)
        out += " LIMIT " + limit
    return out + ";"


def query_record(sql, expected):
    """(header, floe sql, rows) for a harness-passing query, else raises
    LookupError/ValueError/RuntimeError with the reason."""
    m = h.SCAN_RE.match(sql)
    if not m:
        raise LookupError("not a simple iceberg_scan query")
    path = h.resolve_path(m.group("path"))
    if not os.path.exists(os.path.join(ROOT, path)):
        raise LookupError("table not in the test data")
    args = [path]
    opts = []
    for k, v in re.findall(r"(\w+)\s*=\s*('[^']*'|\w+)", m.group("opts") or ""):
        kl = k.lower()
        if kl == "allow_moved_paths" and v.lower() == "true":
            args.append("--allow-moved-paths")
        elif kl == "version":
            vv = v.strip("'")
            cand = os.path.join(path, "metadata", vv + ".metadata.json")
            if not os.path.exists(os.path.join(ROOT, cand)):
                cand = os.path.join(path, "metadata", "v%s.metadata.json" % vv)
            args[0] = cand
            path = cand  # floe's iceberg_scan reads a metadata file named by its path
            continue
        else:
            raise LookupError("option %s" % k)
        opts.append((kl, v))
    schema = h.table_schema(args)
    fields = {f["name"]: f for f in schema["fields"]}
    cols = m.group("cols").strip()
    count = re.fullmatch(r"count\(\s*\*\s*\)", cols, re.I)
    excl = re.fullmatch(r"\*\s+exclude\s*\(([^)]*)\)", cols, re.I)
    sql_cols = m.group("cols").strip()
    if excl:
        drop = {c.strip().strip('"') for c in excl.group(1).split(",")}
        names = [f["name"] for f in schema["fields"] if f["name"] not in drop]
        cols = ", ".join(names)
        sql_cols = ", ".join('"%s"' % n for n in names)  # no EXCLUDE in floe's SQL
    if cols == "*" or count:
        names = [f["name"] for f in schema["fields"]]
    else:
        names = [c.strip() for c in cols.split(",")]
        for n in names:
            if n not in fields:
                raise LookupError("select list")
    scan = ["scan"] + args
    if not (cols == "*" or count):
        scan += ["--columns", ",".join(dict.fromkeys(names))]
    if m.group("where"):
        scan += ["--filter-json", h.where_to_json(m.group("where"), fields)]
    pairs = scan_pairs(scan)
    order, limit = m.group("order"), m.group("limit")
    types = [fields[n]["type"] for n in names]
    keys = []
    if count:
        got, rows, header = [str(len(pairs))], [[str(len(pairs))]], "query I"
    else:
        if any(isinstance(t, dict) for t in types):
            raise LookupError("nested columns print differently")
        if order and limit:
            for term in order.split(","):
                t = term.strip().split()
                col, desc = t[0], len(t) > 1 and t[1].lower() == "desc"
                if col.lower() == "all":
                    keys += [(n, False) for n in names]
                elif col in fields:
                    keys.append((col, desc))
                else:
                    raise LookupError("ORDER BY")
            for col, desc in reversed(keys):
                t = fields[col]["type"]
                pairs.sort(key=lambda p: (p[0].get(col) is None, h.sort_key(p[0].get(col), t)[1:]) if not desc else
                           (p[0].get(col) is not None, h.sort_key(p[0].get(col), t)[1:]), reverse=desc)
            pairs = pairs[: int(limit)]
        elif limit:
            raise LookupError("LIMIT without ORDER BY")
        got = ["\t".join(h.render(j.get(n), t) for n, t in zip(names, types)) for j, _ in pairs]
        rows = [[cell(j.get(n), c.get(n), t) for n, t in zip(names, types)] for j, c in pairs]
        header = "query %s %s" % ("".join(slt_type(t) for t in types), "nosort" if order and limit else "rowsort")
    g = [h.normalize(x).rstrip() for x in got]
    x = [h.normalize(y).rstrip() for y in expected]
    if not (order and limit):
        g.sort()
        x.sort()
    if g != x:
        raise RuntimeError("floe scan differs from DuckDB's expected rows")
    text = floe_sql(m, path, opts, sql_cols, keys, limit)
    if any("\t" in v or "\n" in v for r in rows for v in r):
        raise LookupError("values with tabs or newlines")
    return header, text, ["\t".join(r) for r in rows]


def slt_name(rel):
    stem = re.sub(r"^iceberg_", "", os.path.splitext(os.path.basename(rel))[0])
    return "iceberg_" + re.sub(r"[^A-Za-z0-9_]", "_", stem)


def split_pending(runner, path):
    """Run `path`; move its failing records to pending/<name>.slt."""
    import subprocess
    env = dict(os.environ, FLOE_TESTDATA=TESTDATA)
    p = subprocess.run([runner, path], capture_output=True, text=True, env=env)
    bad = {int(x) for x in re.findall(r"^FAIL [^:\n]+:(\d+):", p.stderr, re.M)}
    pending_path = os.path.join(os.path.dirname(path), "pending", os.path.basename(path))
    if not bad:
        if os.path.exists(pending_path):
            os.remove(pending_path)
        return
    text = open(path).read().strip("\n")
    blocks, starts, line = [], [], 1
    for b in text.split("\n\n"):
        blocks.append(b)
        starts.append(line)
        line += b.count("\n") + 2
    intro, require = blocks[0], blocks[1]  # header comment, "require testdata"
    good, pend = [], []
    for b, st in zip(blocks[2:], starts[2:]):
        n = b.count("\n") + 1
        (pend if any(st <= x < st + n for x in bad) else good).append(b)
    why = {}
    for m in re.finditer(r"^FAIL [^:\n]+:(\d+): (.*)$", p.stderr, re.M):
        why[int(m.group(1))] = m.group(2)
    os.makedirs(os.path.dirname(pending_path), exist_ok=True)
    with open(pending_path, "w") as fh:
        fh.write("\n\n".join([intro + "\n# PENDING: these records fail today; see tests/sql/gen_iceberg_slt.py.", require] + pend) + "\n")
    if good:
        with open(path, "w") as fh:
            fh.write("\n\n".join([intro, require] + good) + "\n")
    else:
        os.remove(path)
    for st in sorted(why):
        print("  pending %s:%d: %s" % (os.path.basename(path), st, why[st][:200]))


def main():
    files = {}
    skipped = []
    import glob
    for path in sorted(glob.glob(os.path.join(ROOT, "test/sql/**/*.test"), recursive=True)):
        rel = os.path.relpath(path, ROOT)
        for line, header, sql, expected in h.parse_test(path):
            where = "%s:%d" % (rel, line)
            if where in h.KNOWN or (len(header) >= 4 and header[2] == "nosort" and not expected):
                continue
            if len(expected) == 1 and expected[0].startswith("<FILE>:"):
                with open(os.path.join(ROOT, expected[0][7:])) as fh:
                    expected = ["\t".join(r) for r in list(csv.reader(fh))[1:]]
            if "iceberg_scan" not in sql.lower():
                continue
            try:
                rec = query_record(sql, expected)
            except (LookupError, ValueError, RuntimeError) as e:
                skipped.append((where, str(e)))
                continue
            if len(rec[2]) > 200:
                skipped.append((where, "%d rows: too many for a .slt" % len(rec[2])))
                continue
            files.setdefault(rel, []).append((where, rec))
    names = {}
    for rel in files:
        n = slt_name(rel)
        if n in names.values():
            n = slt_name(os.path.dirname(rel).split("/")[-1] + "_" + os.path.basename(rel))
        names[rel] = n
    written = []
    for rel, recs in files.items():
        out = os.path.join(OUT, names[rel] + ".slt")
        with open(out, "w") as fh:
            fh.write("# %s.slt — generated by tests/sql/gen_iceberg_slt.py from duckdb-iceberg's\n" % names[rel])
            fh.write("# %s: DuckDB's expected rows, in floe's text forms. Do not edit by hand.\n\n" % rel)
            fh.write("require testdata\n")
            for where, (header, sql, rows) in recs:
                fh.write("\n# %s\n%s\n%s\n----\n" % (where, header, sql))
                for r in rows:
                    fh.write(r + "\n")
        written.append(out)
    # The generated_spec tables: row counts from count.csv.
    out = os.path.join(OUT, "iceberg_generated_spec.slt")
    with open(out, "w") as fh:
        fh.write("# iceberg_generated_spec.slt — generated by tests/sql/gen_iceberg_slt.py: row counts\n"
                 "# of duckdb-iceberg's generated_spec tables against expected_results/last/count.csv.\n\n"
                 "require testdata\n")
        for spec in ("generated_spec1_0_001", "generated_spec2_0_001"):
            base = os.path.join("data/iceberg", spec)
            with open(os.path.join(ROOT, base, "expected_results/last/count.csv")) as c:
                n = int(list(csv.reader(c))[1][0])
            fh.write("\nquery I\nSELECT count(*) FROM iceberg_scan('${TESTDATA}/duckdb__duckdb-iceberg/%s/pyspark_iceberg_table', "
                     "allow_moved_paths => true);\n"
                     "----\n%d\n" % (base, n))
    written.append(out)
    runner = os.environ.get("SLT_RUNNER")
    for w in written:
        print("wrote", os.path.relpath(w, SRC))
        if runner:
            split_pending(runner, w)
    for where, why in skipped:
        print("skipped %s: %s" % (where, why))


if __name__ == "__main__":
    main()
