#!/usr/bin/env python3
"""parquet_canon.py — compare floe's and DuckDB's reading of Parquet files.

usage: parquet_canon.py DIR LISTFILE

LISTFILE has one line per file: "<index>\t<path>\t<expectation>\t<options>
\t<name>" where the expectation is "ok", "skip:<reason>" or "known:<reason>"
and the options may hold "tz-lenient" (time-zone flag of timestamps not
compared, only the instants).  DIR holds, per
index, <index>.duck.jsonl (tests/peers/parquet_canon.mjs) and
<index>.floe.jsonl (`floe parquet cat --format jsonl`) or <index>.floe.err.

Both sides are brought to ONE canonical form, driven by the type DuckDB
reports for each column, and compared exactly, row by row in file order:
  integers      exact decimal text (no float detour, so > 2^53 is exact)
  floats        the IEEE value (FLOAT rounded to binary32); NaN == NaN
  decimals      the exact value (Decimal), so 1.50 == 1.5
  dates         days since 1970-01-01
  times         ns since midnight
  timestamps    ns since the epoch plus a "utc" flag (floe's "+00" suffix,
                DuckDB's TIMESTAMP WITH TIME ZONE)
  blobs         hex of the bytes (floe prints base64 at top level, \\x hex
                as map-key text)
  uuids         lower-case text
  intervals     the 12 Parquet bytes (floe reads INTERVAL as fixed(12))
  time with tz  ns since midnight (DuckDB's offset must be +0)
  structs       [[field, value]...], lists as lists, maps as [[k, v]...]
Exit status 0 when every "ok" file matches; a "known" file that matches is
reported so the list can be trimmed, but does not fail the run.
"""
import base64
import json
import math
import struct
import sys
from decimal import Decimal

INTS = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT",
        "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"}
TIMESTAMPS = {"TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS", "TIMESTAMP_TZ"}


class Mismatch(Exception):
    pass


def days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (any year)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def parse_date(s):
    neg = s.startswith("-")
    y, m, d = s[1:].split("-") if neg else s.split("-")
    return days_from_civil(-int(y) if neg else int(y), int(m), int(d))


def parse_time_ns(s):
    hms, _, frac = s.partition(".")
    h, mi, se = (int(x) for x in hms.split(":"))
    return ((h * 60 + mi) * 60 + se) * 10**9 + int((frac + "000000000")[:9])


def parse_timestamp(s):
    """floe's 'YYYY-MM-DD HH:MM:SS.ffffff[fff][+00]' → (ns, utc)."""
    utc = s.endswith("+00")
    if utc:
        s = s[:-3]
    date, _, time = s.rpartition(" ")
    return (parse_date(date) * 86400 * 10**9 + parse_time_ns(time), utc)


def canon_float(text, single):
    x = float(text)  # accepts NaN / Infinity / -Infinity
    if math.isnan(x):
        return "nan"
    if single:
        x = struct.unpack("<f", struct.pack("<f", x))[0]
    return repr(x)


def canon_decimal(text):
    d = Decimal(text)
    return "0" if d == 0 else format(d.normalize(), "f")


def canon(t, v, side, key=False):
    """Canonical form of value v of DuckDB type t, as given by `side`."""
    if v is None:
        return None
    k = t["t"]
    if k == "BOOLEAN":
        if side == "floe" and isinstance(v, str):  # map-key text
            return {"true": True, "false": False}.get(v, v)
        return v
    if k in INTS:
        return str(int(v))
    if k in ("FLOAT", "DOUBLE"):
        return canon_float(v, k == "FLOAT")
    if k == "DECIMAL":
        return canon_decimal(v)
    if k in ("VARCHAR", "ENUM"):
        return v
    if k in ("BLOB", "BIT"):
        if side == "duck":
            return v
        if key and v.startswith("\\x"):
            return v[2:]
        return base64.b64decode(v, validate=True).hex()
    if k == "UUID":
        return v.lower()
    if k == "DATE":
        return v if side == "duck" else parse_date(v)
    if k in ("TIME", "TIME_NS"):
        return str(v) if side == "duck" else str(parse_time_ns(v))
    if k == "TIME_TZ":
        # Parquet TIME(isAdjustedToUTC=true): DuckDB gives [ns, offset 0].
        return f"{v[0]}{v[1]:+d}" if side == "duck" else f"{parse_time_ns(v)}+0"
    if k == "INTERVAL":
        # Parquet INTERVAL is FIXED[12] (months, days, millis; uint32 LE):
        # floe reads the bytes, DuckDB the interval; compare the bytes.
        if side == "floe":
            return base64.b64decode(v, validate=True).hex()
        months, days, micros = v
        return struct.pack("<III", months, days, int(micros) // 1000).hex()
    if k in TIMESTAMPS:
        if side == "duck":
            return [str(v), k == "TIMESTAMP_TZ"]
        ns, utc = parse_timestamp(v)
        return [str(ns), utc]
    if k == "LIST":
        if not isinstance(v, list):
            raise Mismatch(f"expected a list, got {v!r}")
        return [canon(t["e"], x, side) for x in v]
    if k == "STRUCT":
        # floe: object → pairs (object_pairs_hook); DuckDB: [[name, value]].
        got = [(n, x) for n, x in v]
        names = [n for n, _ in t["f"]]
        if [n for n, _ in got] != names:
            raise Mismatch(f"struct fields {[n for n, _ in got]} != {names}")
        return [[n, canon(ft, x, side)] for (n, ft), (_, x) in zip(t["f"], got)]
    if k == "MAP":
        return [[canon(t["k"], kk, side, key=True), canon(t["v"], vv, side)] for kk, vv in v]
    raise Mismatch(f"type {k} has no canonical form in this test")


def load_duck(path):
    with open(path) as f:
        head = json.loads(f.readline())
        if "error" in head:
            return head, None
        rows = [json.loads(line) for line in f]
    return head, rows


def load_floe(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            rows.append(json.loads(line, parse_int=str, parse_float=str, object_pairs_hook=list,
                                   parse_constant=str))
    return rows


def compare(head, drows, frows, tz_lenient):
    """None when equal, else a message naming the first differences."""
    names, types = head["names"], head["types"]
    if len(drows) != len(frows):
        return f"row count: DuckDB {len(drows)}, floe {len(frows)}"
    diffs = []
    for r, (d, f) in enumerate(zip(drows, frows)):
        fnames = [n for n, _ in f]
        if fnames != names:
            return f"columns: DuckDB {names}, floe {fnames}"
        for c, t in enumerate(types):
            try:
                a = canon(t, d[c], "duck")
                b = canon(t, f[c][1], "floe")
            except (Mismatch, ValueError, TypeError) as e:
                diffs.append(f"row {r} column {names[c]}: {e}")
                continue
            if tz_lenient:
                a, b = strip_tz(a), strip_tz(b)
            if a != b:
                diffs.append(f"row {r} column {names[c]}: DuckDB {json.dumps(a)[:300]} "
                             f"floe {json.dumps(b)[:300]}")
            if len(diffs) >= 3:
                return "; ".join(diffs)
    return "; ".join(diffs) or None


def strip_tz(v):
    """Drop the utc flag of timestamps: [ns, bool] → ns, recursively."""
    if isinstance(v, list):
        if len(v) == 2 and isinstance(v[0], str) and isinstance(v[1], bool):
            return v[0]
        return [strip_tz(x) for x in v]
    return v


def main():
    out_dir, listfile = sys.argv[1], sys.argv[2]
    failures = passed = 0
    with open(listfile) as f:
        entries = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for idx, _path, expect, opts, name in entries:
        if expect.startswith("skip:"):
            print(f"SKIP  {name}: {expect[5:]}")
            continue
        head, drows = load_duck(f"{out_dir}/{idx}.duck.jsonl")
        try:
            with open(f"{out_dir}/{idx}.floe.err") as e:
                ferr = e.read().strip()
        except FileNotFoundError:
            ferr = ""
        if drows is None:
            problem = f"DuckDB cannot read it: {head['error']}"
        elif ferr:
            problem = f"floe failed: {ferr.splitlines()[-1] if ferr else ''}"
        else:
            problem = compare(head, drows, load_floe(f"{out_dir}/{idx}.floe.jsonl"),
                              "tz-lenient" in opts)
        if expect.startswith("known:"):
            if problem:
                print(f"KNOWN {name}: {expect[6:]}\n      ({problem[:400]})")
            else:
                print(f"NOTE  {name}: listed as a known failure but now matches; trim the list")
            continue
        if problem:
            failures += 1
            print(f"FAIL  {name}: {problem[:1500]}")
        else:
            passed += 1
            print(f"ok    {name} ({len(drows)} rows)")
    print(f"{passed} files match, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
