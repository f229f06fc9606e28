#!/usr/bin/env python3
"""iceberg_expected_results.py — read every duckdb-iceberg test table with
`floe scan` and compare with the expected results the project ships.

(a) generated_spec{1,2}_0_001: floe scan (jsonl) sorted by uuid against the
    expected_results/last/data/*.parquet dump (read with `floe parquet cat`)
    and expected_results/last/count.csv.
(b) the sqllogictest files under test/sql: queries of the simple forms
        SELECT * | cols | count(*) FROM iceberg_scan('<path>' [, allow_moved_paths=true]
            [, version='<v>']) [WHERE simple predicates] [ORDER BY ...] [LIMIT n]
    are run through `floe scan` (WHERE becomes --filter-json), the rows are
    rendered in DuckDB's text forms and compared with the expected rows.
    Without ORDER BY (or with ORDER BY but no LIMIT) rows compare as
    multisets; with ORDER BY ... LIMIT the rows are sorted and cut here.
    Every other query is listed as unsupported with the reason.

Usage: iceberg_expected_results.py FLOE_BINARY DUCKDB_ICEBERG_DIR
Exit status 1 on any failure.
"""
import base64
import csv
import datetime
import glob
import json
import os
import re
import subprocess
import sys

FLOE, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
VERBOSE = os.environ.get("VERBOSE") == "1"


def run(args):
    p = subprocess.run([FLOE] + args, cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip() or "exit %d" % p.returncode)
    return p.stdout


def jsonl(text):
    return [json.loads(l, parse_float=str) for l in text.splitlines() if l.strip()]


# ---------------------------------------------------------------- rendering

TSTZ = re.compile(r"(\d{4,}-\d\d-\d\d) (\d\d):(\d\d):(\d\d)(\.\d+)?([+-]\d\d)(?::?(\d\d))?")
TS = re.compile(r"(\d{4,}-\d\d-\d\d \d\d:\d\d:\d\d|\b\d\d:\d\d:\d\d)\.(\d+)")


def trim_frac(m):
    f = m.group(2).rstrip("0")
    return m.group(1) + ("." + f if f else "")


def to_utc(m):
    """A timestamptz text in any offset as its UTC text."""
    try:
        d = datetime.datetime.strptime(m.group(1), "%Y-%m-%d")
    except ValueError:
        return m.group(0)
    secs = int(m.group(2)) * 3600 + int(m.group(3)) * 60 + int(m.group(4))
    off = int(m.group(6)) * 3600 + (int(m.group(7) or 0) * 60) * (1 if m.group(6)[0] == "+" else -1)
    t = d + datetime.timedelta(seconds=secs - off)
    return t.strftime("%Y-%m-%d %H:%M:%S").rjust(19, "0") + (m.group(5) or "") + "+00"


def normalize(s):
    """Canonical text for comparing: UTC offsets, trimmed fractions."""
    s = TSTZ.sub(to_utc, s)
    s = TS.sub(trim_frac, s)
    return s


def blob_text(b):
    return "".join(chr(c) if 32 <= c <= 126 and c != 92 else "\\x%02X" % c for c in b)


NEEDS_QUOTE = set(" :,{}[]='\"\\")


def render(v, t, nested=False):
    """DuckDB's text form of a jsonl value of Iceberg type t (JSON type)."""
    if v is None:
        return "NULL"
    if isinstance(t, dict):
        k = t["type"]
        if k == "struct":
            parts = []
            for f in t["fields"]:
                parts.append("'%s': %s" % (f["name"], render(v.get(f["name"]), f["type"], True)))
            return "{" + ", ".join(parts) + "}"
        if k == "list":
            return "[" + ", ".join(render(x, t["element"], True) for x in v) + "]"
        if k == "map":
            # floe writes maps as objects keyed by the key's text
            return "{" + ", ".join("%s=%s" % (quote(kk) if nested else kk, render(vv, t["value"], True))
                                   for kk, vv in v.items()) + "}"
        raise ValueError("type %r" % t)
    if t == "boolean":
        return "true" if v else "false"
    if t in ("binary",) or t.startswith("fixed"):
        s = blob_text(base64.b64decode(v))
    elif t in ("float", "double"):
        s = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(str(v), str(v))
    else:
        s = str(v)
    if nested and t not in ("boolean", "int", "long", "float", "double", "binary") and not t.startswith(("decimal", "fixed")):
        if t == "string" and s == "":
            return "''"
        if any(c in NEEDS_QUOTE for c in s):
            return quote(s)
    if not nested and s == "" and t == "string":
        return "(empty)"
    return s


def quote(s):
    return "'" + s.replace("'", "''") + "'"


def sort_key(v, t):
    if v is None:
        return (1, 0, "")
    if t in ("int", "long") or (isinstance(t, str) and (t.startswith("decimal") or t in ("float", "double"))):
        try:
            return (0, float(v), "")
        except ValueError:
            return (0, float("nan"), "")
    if t == "boolean":
        return (0, float(bool(v)), "")
    return (0, 0.0, json.dumps(v, sort_keys=True) if not isinstance(v, str) else v)


# --------------------------------------------------------------- table info

def table_schema(path_args):
    md = jsonl(run(["inspect"] + path_args + ["--format", "jsonl"]))[0]
    sid = md.get("current-schema-id", 0)
    for s in md.get("schemas", [md.get("schema")]):
        if s and s.get("schema-id", 0) == sid:
            return s
    return md.get("schema")


# ------------------------------------------------------- generated_spec dumps

def check_generated(results):
    for spec in ("generated_spec1_0_001", "generated_spec2_0_001"):
        base = os.path.join("data/iceberg", spec)
        name = "%s/pyspark_iceberg_table" % spec
        try:
            got = jsonl(run(["scan", base + "/pyspark_iceberg_table", "--format", "jsonl"]))
            exp = []
            for f in sorted(glob.glob(os.path.join(ROOT, base, "expected_results/last/data/*.parquet"))):
                exp += jsonl(run(["parquet", "cat", f, "--format", "jsonl"]))
            with open(os.path.join(ROOT, base, "expected_results/last/count.csv")) as fh:
                count = int(list(csv.reader(fh))[1][0])
            key = lambda r: json.dumps(r.get("uuid"))
            got.sort(key=key)
            exp.sort(key=key)
            norm = lambda rows: [{k: normalize(str(v)) if v is not None else None for k, v in r.items()} for r in rows]
            if len(got) != count:
                results.append(("FAIL", name, "floe read %d rows, count.csv says %d" % (len(got), count)))
            elif norm(got) != norm(exp):
                diff = next(i for i, (a, b) in enumerate(zip(norm(got), norm(exp))) if a != b) if len(got) == len(exp) else -1
                results.append(("FAIL", name, "rows differ from the dump (first at sorted row %d)" % diff))
            else:
                results.append(("PASS", name, "%d rows match the dump and count.csv" % count))
        except Exception as e:  # noqa: BLE001 — report, don't stop
            results.append(("FAIL", name, str(e)))


# ------------------------------------------------------------ .test queries

def parse_test(path):
    """(line, sql, expected rows) for each `query` record."""
    out = []
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("query "):
            start = i + 1
            j = start
            while j < len(lines) and lines[j].strip() != "----":
                j += 1
            sql = " ".join(l.strip() for l in lines[start:j])
            k = j + 1
            rows = []
            while k < len(lines) and lines[k].strip() != "":
                rows.append(lines[k])
                k += 1
            out.append((i + 1, lines[i].split(), sql, rows))
            i = k
        else:
            i += 1
    return out


SCAN_RE = re.compile(
    r"^select\s+(?P<cols>.+?)\s+from\s+iceberg_scan\(\s*'(?P<path>[^']*)'(?P<opts>(\s*,\s*\w+\s*=\s*('[^']*'|\w+))*)\s*\)"
    r"(\s+where\s+(?P<where>.+?))?(\s+order\s+by\s+(?P<order>.+?))?(\s+limit\s+(?P<limit>\d+))?\s*;?\s*$",
    re.I)
PRED_RE = re.compile(r"^\s*\"?(?P<col>[A-Za-z_][\w.]*)\"?\s*(?P<op>=|!=|<>|<=|>=|<|>|is\s+not\s+null|is\s+null)\s*(?P<lit>'[^']*'(::blob)?|-?\d+(\.\d+)?|true|false)?\s*$", re.I)
OPS = {"=": "eq", "!=": "not-eq", "<>": "not-eq", "<": "lt", "<=": "lt-eq", ">": "gt", ">=": "gt-eq"}


def literal(lit, t):
    """The JSON single-value form of a DuckDB literal for a column of type t."""
    if lit.lower() in ("true", "false"):
        return lit.lower() == "true"
    blob = re.fullmatch(r"'(.*)'::blob", lit, re.I)
    if blob:
        raw = re.sub(r"\\x([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), blob.group(1))
        return raw.encode("latin-1").hex()
    if lit.startswith("'"):
        v = lit[1:-1]
        if isinstance(t, str) and t.startswith("timestamp"):
            v = v.replace(" ", "T")
            if t.startswith("timestamptz") and not re.search(r"[+-]\d\d(:\d\d)?$|Z$", v):
                v += "+00:00"
        if isinstance(t, str) and (t.startswith("fixed") or t == "binary"):
            v = v.encode("utf-8").hex()
        return v
    if isinstance(t, str) and t.startswith("decimal"):
        return lit
    return float(lit) if "." in lit else int(lit)


def field_type(fields, col):
    """Type of a possibly dotted column name (struct fields) or None."""
    parts = col.split(".")
    f = fields.get(parts[0]) if fields else None
    for p in parts[1:]:
        if not f or not isinstance(f["type"], dict) or f["type"].get("type") != "struct":
            return None
        f = next((x for x in f["type"]["fields"] if x["name"] == p), None)
    return f["type"] if f else None


def where_to_json(where, fields=None):
    where = re.sub(r"\b(date|timestamp|timestamptz)\s+'", "'", where, flags=re.I)
    where = re.sub(r"'::(date|timestamp|timestamptz)\b", "'", where, flags=re.I)
    where = re.sub(r"(\S+)\s+between\s+(\S+)\s+and\s+(\S+)", r"\1 >= \2 and \1 <= \3", where, flags=re.I)
    parts = re.split(r"\s+and\s+", where, flags=re.I)
    exprs = []
    for p in parts:
        m = PRED_RE.match(p)
        if not m:
            raise ValueError("WHERE '%s' is beyond the harness" % where)
        op = m.group("op").lower()
        if op.startswith("is"):
            exprs.append({"type": "not-null" if "not" in op else "is-null", "term": m.group("col")})
            continue
        lit = m.group("lit")
        if lit is None:
            raise ValueError("WHERE '%s' is beyond the harness" % where)
        col = m.group("col")
        t = field_type(fields, col)
        e = {"type": OPS[op], "term": col, "value": literal(lit, t)}
        if isinstance(t, str):
            e["value-type"] = t
        exprs.append(e)
    e = exprs[0]
    for x in exprs[1:]:
        e = {"type": "and", "left": e, "right": x}
    return json.dumps(e)


def resolve_path(p):
    for ph in ("{WORKING_DIRECTORY}/", "__WORKING_DIRECTORY__/"):
        if p.startswith(ph):
            return p[len(ph):]
    if "{" in p or "__" in p:
        raise ValueError("path '%s' is generated by the test at run time" % p)
    return p


def run_query(sql, expected):
    m = SCAN_RE.match(sql)
    if not m:
        raise LookupError("not a simple iceberg_scan query")
    path = resolve_path(m.group("path"))
    if not os.path.exists(os.path.join(ROOT, path)):
        raise LookupError("table '%s' is not in the shared test data" % path)
    args = [path]
    opts = m.group("opts") or ""
    for k, v in re.findall(r"(\w+)\s*=\s*('[^']*'|\w+)", opts):
        k = k.lower()
        if k == "allow_moved_paths" and v.lower() == "true":
            args.append("--allow-moved-paths")
        elif k == "version":
            v = v.strip("'")
            cand = os.path.join(path, "metadata", v + ".metadata.json")
            if not os.path.exists(os.path.join(ROOT, cand)):
                cand = os.path.join(path, "metadata", "v%s.metadata.json" % v)
            args[0] = cand
        else:
            raise LookupError("option %s=%s is beyond the harness" % (k, v))
    schema = table_schema(args)
    fields = {f["name"]: f for f in schema["fields"]}
    cols = m.group("cols").strip()
    count = re.fullmatch(r"count\(\s*\*\s*\)", cols, re.I)
    excl = re.fullmatch(r"\*\s+exclude\s*\(([^)]*)\)", cols, re.I)
    if excl:
        drop = {c.strip().strip('"') for c in excl.group(1).split(",")}
        names = [f["name"] for f in schema["fields"] if f["name"] not in drop]
        cols = ", ".join(names)
    if cols == "*" or count:
        names = [f["name"] for f in schema["fields"]]
    else:
        names = [c.strip() for c in cols.split(",")]
        for n in names:
            if n not in fields:
                raise LookupError("select list '%s' is beyond the harness" % cols)
    scan = ["scan"] + args + ["--format", "jsonl"]
    if not (cols == "*" or count):
        scan += ["--columns", ",".join(dict.fromkeys(names))]
    if m.group("where"):
        try:
            scan += ["--filter-json", where_to_json(m.group("where"), fields)]
        except ValueError as e:
            raise LookupError(str(e))
    rows = jsonl(run(scan))
    if count:
        got = [str(len(rows))]
        return got, expected, True
    order, limit = m.group("order"), m.group("limit")
    types = [fields[n]["type"] for n in names]
    if order and limit:
        keys = []
        for term in order.split(","):
            t = term.strip().split()
            col, desc = t[0], len(t) > 1 and t[1].lower() == "desc"
            if col.lower() == "all":
                keys += [(n, False) for n in names]
            elif col in fields:
                keys.append((col, desc))
            else:
                raise LookupError("ORDER BY '%s' is beyond the harness" % order)
        for col, desc in reversed(keys):
            t = fields[col]["type"]
            # DuckDB: NULLS LAST in both directions
            rows.sort(key=lambda r: (r.get(col) is None, sort_key(r.get(col), t)[1:]) if not desc else
                      (r.get(col) is not None, sort_key(r.get(col), t)[1:]), reverse=desc)
        rows = rows[: int(limit)]
    elif limit:
        raise LookupError("LIMIT without ORDER BY depends on scan order")
    got = ["\t".join(render(r.get(n), t) for n, t in zip(names, types)) for r in rows]
    ordered = bool(order and limit)
    return got, expected, ordered


# Queries whose expected rows are DuckDB's reading where it departs from
# the Iceberg spec; floe follows the spec.
KNOWN = {
    "test/sql/local/partitioning/identity/identity_bool.test:12":
        "DuckDB prints the boolean partition column as 0/1 (an integer); the schema says boolean",
    "test/sql/local/partitioning/identity/identity_double.test:12":
        "the table's column is float (schema), DuckDB shows the manifest's double partition value",
}


def check_tests(results):
    for path in sorted(glob.glob(os.path.join(ROOT, "test/sql/**/*.test"), recursive=True)):
        rel = os.path.relpath(path, ROOT)
        for line, header, sql, expected in parse_test(path):
            name = "%s:%d" % (rel, line)
            if name in KNOWN:
                results.append(("UNSUPPORTED", name, KNOWN[name]))
                continue
            if len(header) >= 4 and header[2] == "nosort" and not expected:
                results.append(("UNSUPPORTED", name, "result compared with the query labelled '%s' (the "
                                "generated_spec dump check covers these tables)" % header[3]))
                continue
            if len(expected) == 1 and expected[0].startswith("<FILE>:"):
                with open(os.path.join(ROOT, expected[0][7:])) as fh:
                    expected = ["\t".join(r) for r in list(csv.reader(fh))[1:]]
            if "iceberg_scan" not in sql.lower():
                results.append(("UNSUPPORTED", name, "no iceberg_scan (catalog, metadata function or other SQL)"))
                continue
            try:
                got, exp, ordered = run_query(sql, expected)
            except LookupError as e:
                results.append(("UNSUPPORTED", name, str(e)))
                continue
            except ValueError as e:
                results.append(("UNSUPPORTED", name, str(e)))
                continue
            except RuntimeError as e:
                results.append(("FAIL", name, "floe: " + str(e)))
                continue
            g = [normalize(x).rstrip() for x in got]
            x = [normalize(y).rstrip() for y in exp]
            if not ordered:
                g.sort()
                x.sort()
            if g == x:
                results.append(("PASS", name, "%d rows" % len(g)))
            else:
                bad = next((i for i, (a, b) in enumerate(zip(g, x)) if a != b), min(len(g), len(x)))
                results.append(("FAIL", name, "%d rows vs %d expected; first difference at %d: got %r expected %r" % (
                    len(g), len(x), bad, g[bad] if bad < len(g) else None, x[bad] if bad < len(x) else None)))


def main():
    results = []
    check_generated(results)
    check_tests(results)
    counts = {}
    for status, name, why in results:
        counts[status] = counts.get(status, 0) + 1
        if status != "PASS" or VERBOSE:
            print("%-11s %s: %s" % (status, name, why))
    print("summary: %d passed, %d failed, %d unsupported" % (
        counts.get("PASS", 0), counts.get("FAIL", 0), counts.get("UNSUPPORTED", 0)))
    return 1 if counts.get("FAIL") else 0


if __name__ == "__main__":
    sys.exit(main())
