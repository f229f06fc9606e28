#!/usr/bin/env python3
"""slt_postgres.py — re-runs floe's sqllogictest files against PostgreSQL.

usage: slt_postgres.py [--host DIR_OR_HOST] [--port N] [--user U] [--dbname D]
                       [--all] [--verbose] FILE.slt...

floe's expected rows are PostgreSQL 15's.  A file that says so on a line
of its leading comment block

    # expected: postgresql 15

is checked here: each file gets a fresh database (created from template0
and dropped afterwards) and every record runs in it, except those under
"skipif postgresql" or "onlyif <engine>" for any engine but postgresql
(so "onlyif floe" records are floe-only, "skipif floe" ones run here).
Files without the line are skipped unless --all is given.

The file format and the rendering of values are tests/tools/slt_runner.c's,
so the same expected block passes in both:
  * statement ok / statement count N / statement error [text] — for an
    error only the failure is checked (the text is floe's message);
  * query <letters I R T B> [nosort|rowsort|valuesort] [label], the
    expected values tab-separated per row or one per line;
  * "# comments", hash-threshold (ignored), halt, require (skips the rest:
    floe's shared test data is not PostgreSQL's), ${TESTDATA}, ${TMPDIR}
    and __TEST_DIR__.
PostgreSQL's text values are mapped to floe's rendering: NULL, "(empty)",
booleans true/false, R as three decimals (NaN, inf, -inf), I of a float or
numeric truncated toward zero, double precision / real as floe prints them
(shortest round-trip text, ".0" when integral), times and timestamps with
six fraction digits, timestamptz in UTC with "+00", one-dimensional arrays
as floe's lists ("[1, NULL]", "['a', 'it''s']").  The session runs with
TimeZone UTC, DateStyle ISO and IntervalStyle postgres.

Each mismatch is reported as "FAIL file:line: what" with the SQL, the
expected rows and PostgreSQL's.  Exit status: 0 when every checked file
passed, 1 on any failure, 2 on a usage or connection problem, 77 when
every file was skipped.
"""
import argparse
import math
import os
import struct
import sys
import tempfile

try:
    import psycopg2
    import psycopg2.extensions
except ImportError:  # the caller (tests/scripts/slt_vs_postgres.sh) checks first
    sys.stderr.write("slt_postgres: python module psycopg2 missing (Debian: python3-psycopg2)\n")
    sys.exit(2)

OPT_IN = "# expected: postgresql 15"
ENGINE = "postgresql"

# Every value arrives as PostgreSQL's text: no Python conversions.
_raw = psycopg2.extensions.new_type
for _oid in list(psycopg2.extensions.string_types):
    psycopg2.extensions.register_type(_raw((_oid,), "RAW%d" % _oid, lambda s, cur: s))

BOOL = 16
INTS = {20, 21, 23, 26}
FLOAT4, FLOAT8, NUMERIC = 700, 701, 1700
TEXTS = {18, 19, 25, 705, 1042, 1043}
DATE, TIME, TIMESTAMP, TIMESTAMPTZ = 1082, 1083, 1114, 1184


# ------------------------------------------------------------------ values

def _f32(d):
    try:
        return struct.unpack("f", struct.pack("f", d))[0]
    except OverflowError:
        return math.copysign(math.inf, d)


def format_real(v, single):
    """floe's append_real (src/columnar/format.c): the shortest %e text that
    reads back as v; plain digits for decimal exponents -5..15 (".0" when
    integral), scientific otherwise."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "-Infinity" if v < 0 else "Infinity"
    s = None
    for prec in range(1, 18):
        s = "%.*e" % (prec - 1, v)
        if (_f32(float(s)) == _f32(v)) if single else (float(s) == v):
            break
    else:
        prec = 17
    exp = int(s[s.index("e") + 1:])
    if exp < -5 or exp >= 16:
        return s
    decimals = prec - 1 - exp
    s = "%.*f" % (max(decimals, 0), v)
    return s if "." in s else s + ".0"


def _bc_year(date):
    """'0044-03-15' of a BC date -> floe's astronomical year: '-0043-03-15'."""
    y, tail = date.split("-", 1)
    year = 1 - int(y)
    return ("-%04d" % -year if year < 0 else "%04d" % year) + "-" + tail


def format_datetime(oid, s):
    if s in ("infinity", "-infinity"):
        return s
    bc = s.endswith(" BC")
    if bc:
        s = s[:-3]
    if oid == TIME:
        return s
    date, _, clock = s.partition(" ")
    if bc:
        date = _bc_year(date)
    if oid == DATE:
        return date
    return date + " " + clock  # floe shows times as PostgreSQL does


# One-dimensional arrays: element type of each array type.
ARRAYS = {1000: BOOL, 1005: 21, 1007: 23, 1016: 20, 1021: FLOAT4, 1022: FLOAT8, 1231: NUMERIC,
          1009: 25, 1015: 1043, 1014: 1042, 1182: DATE, 1183: TIME, 1115: TIMESTAMP, 1185: TIMESTAMPTZ}


def parse_array(text):
    """PostgreSQL's text of a 1-D array -> list of element texts (None: NULL)."""
    if not (text.startswith("{") and text.endswith("}")):
        return None
    body, out, i = text[1:-1], [], 0
    if body == "":
        return out
    while i <= len(body):
        if i < len(body) and body[i] == '"':
            j, v = i + 1, []
            while body[j] != '"':
                if body[j] == "\\":
                    j += 1
                v.append(body[j])
                j += 1
            out.append("".join(v))
            i = j + 1
        else:
            j = body.find(",", i)
            j = len(body) if j < 0 else j
            v = body[i:j]
            if v.startswith("{"):
                return None  # more than one dimension
            out.append(None if v == "NULL" else v)
            i = j
        i += 1  # the comma
    return out


def render_array(value, elem):
    """floe's text of a list: [a, b], strings single-quoted (quotes doubled)."""
    items = parse_array(value)
    if items is None:
        return value
    parts = []
    for v in items:
        if v is None:
            parts.append("NULL")
        elif elem in TEXTS:
            parts.append("'" + v.replace("'", "''") + "'")
        else:
            r = render(v, elem, "T")
            parts.append(v if r == "(empty)" else r)
    return "[" + ", ".join(parts) + "]"


def render(value, oid, letter):
    """The text slt_runner.c's render() gives for this value."""
    if value is None:
        return "NULL"
    if oid == BOOL:
        return "true" if value == "t" else "false"
    numeric = oid in INTS or oid in (FLOAT4, FLOAT8, NUMERIC)
    if numeric and letter == "R":
        d = float(value)
        if math.isnan(d):
            return "NaN"
        if math.isinf(d):
            return "inf" if d > 0 else "-inf"
        return "%.3f" % d
    if numeric and letter == "I" and oid in (FLOAT4, FLOAT8, NUMERIC):
        d = float(value)
        if not (math.isnan(d) or d > 9.2e18 or d < -9.2e18):
            return "%d" % int(d)  # truncated, as sqllogictest does
    if oid == FLOAT8:
        return format_real(float(value), False)
    if oid == FLOAT4:
        return format_real(_f32(float(value)), True)
    if oid in TEXTS and value == "":
        return "(empty)"
    if oid in (DATE, TIME, TIMESTAMP, TIMESTAMPTZ):
        return format_datetime(oid, value)
    if oid in ARRAYS:
        return render_array(value, ARRAYS[oid])
    return value


# ------------------------------------------------------------------- files

class SltFile:
    def __init__(self, path, conn, tmpdir, verbose):
        self.path = path
        self.conn = conn
        self.tmpdir = tmpdir
        self.verbose = verbose
        with open(path, encoding="utf-8") as fp:
            self.lines = [l.rstrip("\r\n") for l in fp]
        self.at = 0
        self.failures = 0
        self.records = 0

    def substitute(self, s):
        td = os.environ.get("FLOE_TESTDATA") or "/nonexistent-testdata"
        return s.replace("${TESTDATA}", td).replace("${TMPDIR}", self.tmpdir).replace(
            "__TEST_DIR__", self.tmpdir)

    def fail(self, line, sql, msg):
        sys.stderr.write("FAIL %s:%d: %s\n  SQL: %s\n" % (self.path, line, msg, sql))
        self.failures += 1

    def read_block(self):
        """Lines up to a blank line, "----" or the end; (text, dashes)."""
        out = []
        while self.at < len(self.lines):
            l = self.lines[self.at]
            if is_blank(l):
                break
            self.at += 1
            if l == "----":
                return "\n".join(out), True
            out.append(l)
        return "\n".join(out), False

    def read_expected(self):
        out = []
        while self.at < len(self.lines) and not is_blank(self.lines[self.at]):
            out.append(self.substitute(self.lines[self.at]))
            self.at += 1
        return out

    def skip_record(self):
        while self.at < len(self.lines) and not is_blank(self.lines[self.at]):
            self.at += 1

    def execute(self, sql):
        """(cursor, None) or (None, PostgreSQL's message)."""
        cur = self.conn.cursor()
        try:
            cur.execute(sql)
            return cur, None
        except psycopg2.Error as e:
            cur.close()
            return None, (e.pgerror or str(e)).strip().replace("\n", " | ")

    def run_statement(self, line, tok):
        raw, dashes = self.read_block()
        sql = self.substitute(raw)
        if dashes:
            self.read_expected()
        want_error = len(tok) >= 2 and tok[1] == "error"
        want_count = len(tok) == 3 and tok[1] == "count"
        if len(tok) < 2 or (tok[1] != "ok" and not want_error and not want_count):
            self.fail(line, sql, "bad statement header (statement ok | statement count N | statement error [text])")
            return
        cur, err = self.execute(sql)
        if want_error and not err:
            self.fail(line, sql, "statement succeeded; expected an error")
        elif not want_error and err:
            self.fail(line, sql, "statement failed: " + err)
        elif want_count and cur.rowcount != int(tok[2]):
            self.fail(line, sql, "statement changed %d rows; expected %s" % (cur.rowcount, tok[2]))
        elif self.verbose and err:
            print("  %s:%d: PostgreSQL's error: %s" % (self.path, line, err))
        if cur:
            cur.close()

    def run_query(self, line, tok):
        raw, dashes = self.read_block()
        sql = self.substitute(raw)
        exp_lines = self.read_expected() if dashes else []
        types = tok[1] if len(tok) >= 2 else ""
        mode = tok[2] if len(tok) >= 3 else "nosort"
        if not types or any(c not in "IRTB" for c in types):
            self.fail(line, sql, "bad query header: types must be letters I, R, T, B")
            return
        if mode not in ("nosort", "rowsort", "valuesort"):
            self.fail(line, sql, "unknown sort mode '%s' (nosort, rowsort, valuesort)" % mode)
            return
        cur, err = self.execute(sql)
        if err:
            self.fail(line, sql, "query failed: " + err)
            return
        desc = cur.description or []
        rows = cur.fetchall() if cur.description else []
        cur.close()
        ncols = len(types)
        if len(desc) != ncols:
            self.fail(line, sql, "query returned %d columns; the header's types '%s' say %d"
                      % (len(desc), types, ncols))
            return
        values = [render(v, desc[c].type_code, types[c]) for r in rows for c, v in enumerate(r)]
        exp_vals = expected_values(exp_lines, ncols, len(rows))
        if exp_vals is None:
            self.fail(line, sql, "expected rows do not have %d tab-separated values each" % ncols)
            print_values("expected", exp_lines)
            return
        if mode == "valuesort":
            got, exp = sorted(values), sorted(exp_vals)
        else:
            got, exp = join_rows(values, ncols), join_rows(exp_vals, ncols)
            if mode == "rowsort":
                got.sort()
                exp.sort()
        if got == exp:
            return
        if len(got) != len(exp):
            self.fail(line, sql, "wrong result: %d rows, expected %d" % (len(got), len(exp)))
        else:
            first = next(i for i in range(len(got)) if got[i] != exp[i])
            self.fail(line, sql, "wrong result: first difference at row %d" % (first + 1))
        print_values("expected", exp)
        print_values("postgresql", got)

    def run(self):
        """'pass', 'fail' or 'skip'."""
        while self.at < len(self.lines):
            line = self.at + 1
            l = self.lines[self.at]
            self.at += 1
            if is_blank(l) or l.startswith("#"):
                continue
            tok = l.split()
            skip = False
            # Conditions apply to the record that follows them.
            while len(tok) >= 2 and tok[0] in ("skipif", "onlyif"):
                ours = tok[1] == ENGINE
                if (ours if tok[0] == "skipif" else not ours):
                    skip = True
                if self.at >= len(self.lines):
                    return self.result()
                line = self.at + 1
                l = self.lines[self.at]
                self.at += 1
                tok = l.split()
            if not tok:
                continue
            if skip:
                self.skip_record()
            elif tok[0] == "statement":
                if self.verbose:
                    print("%s:%d: %s" % (self.path, line, l))
                self.records += 1
                self.run_statement(line, tok)
            elif tok[0] == "query":
                if self.verbose:
                    print("%s:%d: %s" % (self.path, line, l))
                self.records += 1
                self.run_query(line, tok)
            elif tok[0] == "hash-threshold":
                pass
            elif tok[0] == "halt":
                break
            elif tok[0] == "require":
                print("SKIP: %s:%d: the rest needs 'require %s' (floe only)"
                      % (self.path, line, tok[1] if len(tok) > 1 else ""))
                break
            else:
                self.records += 1
                sys.stderr.write("FAIL %s:%d: unknown record '%s'\n" % (self.path, line, tok[0]))
                self.failures += 1
                self.skip_record()
        return self.result()

    def result(self):
        return "fail" if self.failures else "pass"


def is_blank(s):
    return s.strip(" \t") == ""


def expected_values(lines, ncols, actual_rows):
    """slt_runner.c's expected_values: rows of ncols tab-separated values, or
    (when the line count says so) one value per line; None when neither."""
    tabbed = all(l.count("\t") + 1 == ncols for l in lines)
    if not tabbed and not (ncols > 1 and len(lines) == actual_rows * ncols):
        return None
    if not tabbed:
        return list(lines)
    return [v for l in lines for v in l.split("\t")]


def join_rows(values, ncols):
    return ["\t".join(values[i:i + ncols]) for i in range(0, len(values) - ncols + 1, ncols)]


def print_values(title, rows):
    sys.stderr.write("  %s (%d lines):\n" % (title, len(rows)))
    for r in rows[:50]:
        sys.stderr.write("    %s\n" % r)
    if len(rows) > 50:
        sys.stderr.write("    ...\n")


def opted_in(path):
    """The opt-in line, within the file's leading comment block."""
    with open(path, encoding="utf-8") as fp:
        for l in fp:
            l = l.rstrip("\r\n")
            if not l.startswith("#"):
                return False
            if l.strip() == OPT_IN:
                return True
    return False


# -------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description="re-run sqllogictest files against PostgreSQL")
    ap.add_argument("--host", default=os.environ.get("PGHOST", "/tmp"))
    ap.add_argument("--port", default=os.environ.get("PGPORT", "5432"))
    ap.add_argument("--user", default=os.environ.get("PGUSER", "postgres"))
    ap.add_argument("--dbname", default="postgres", help="database to connect to for CREATE DATABASE")
    ap.add_argument("--all", action="store_true", help="also files without '%s'" % OPT_IN)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    def connect(db):
        c = psycopg2.connect(host=args.host, port=args.port, user=args.user, dbname=db)
        c.autocommit = True
        return c

    try:
        admin = connect(args.dbname)
    except psycopg2.Error as e:
        sys.stderr.write("slt_postgres: cannot connect to PostgreSQL at %s: %s\n" % (args.host, e))
        return 2
    cur = admin.cursor()
    cur.execute("SELECT current_setting('server_version_num')::int")
    version = int(cur.fetchone()[0])
    if version // 10000 != 15:
        sys.stderr.write("slt_postgres: note: the server is PostgreSQL %d, the files expect 15\n"
                         % (version // 10000))
    failed = skipped = 0
    for n, path in enumerate(args.files):
        if not args.all and not opted_in(path):
            print("SKIP %s: no '%s' line" % (path, OPT_IN))
            skipped += 1
            continue
        db = "slt_%d_%d" % (os.getpid(), n)
        cur.execute('CREATE DATABASE "%s" TEMPLATE template0' % db)
        try:
            conn = connect(db)
            c = conn.cursor()
            c.execute("SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET IntervalStyle = 'postgres';"
                      " SET extra_float_digits = 1")
            c.close()
            with tempfile.TemporaryDirectory(prefix="slt-pg-") as tmp:
                f = SltFile(path, conn, tmp, args.verbose)
                res = f.run()
            conn.close()
        finally:
            cur.execute('DROP DATABASE IF EXISTS "%s" WITH (FORCE)' % db)
        if res == "pass":
            print("PASS %s (%d records on PostgreSQL)" % (path, f.records))
        else:
            print("FAIL %s (%d of %d records failed on PostgreSQL)" % (path, f.failures, f.records))
            failed += 1
    admin.close()
    if failed:
        return 1
    return 77 if skipped == len(args.files) else 0


if __name__ == "__main__":
    sys.exit(main())
