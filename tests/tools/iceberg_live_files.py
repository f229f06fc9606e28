#!/usr/bin/python3
"""iceberg_live_files.py — an independent lister of an Iceberg table's live files.

Reads the table's current metadata JSON (version-hint.text, else the
highest-numbered metadata file; gzip handled), its current snapshot's
manifest list and manifests with python3-avro (Debian's, so run with
/usr/bin/python3), and prints one JSON object per live file (status != 2):
    {"content", "file_path", "record_count", "file_size_in_bytes"}
Manifest lists and manifests are found by their base name in the table's
metadata/ directory, whatever prefix the table recorded.  Exit status 3 with
a reason on stderr when the table cannot be listed (no snapshot, missing
manifest list, ...).

usage: iceberg_live_files.py TABLE_DIR
"""
import gzip
import json
import os
import re
import sys

import avro.datafile
import avro.io


def fail(reason):
    print(reason, file=sys.stderr)
    sys.exit(3)


def metadata_file(mdir):
    hint = os.path.join(mdir, "version-hint.text")
    names = os.listdir(mdir)
    if os.path.exists(hint):
        text = open(hint).read().strip()
        cands = ([f"v{text}.metadata.json", f"v{text}.gz.metadata.json"] if text.isdigit()
                 else [f"{text}.metadata.json", f"{text}.gz.metadata.json", text])
        if text.isdigit():
            cands += [n for n in names if re.match(r"0*%s-.*\.metadata\.json$" % int(text), n)]
        for c in cands:
            if os.path.exists(os.path.join(mdir, c)):
                return os.path.join(mdir, c)
    best = None
    for n in names:
        m = re.match(r"v(\d+)(\.gz)?\.metadata\.json$", n) or re.match(r"(\d+)-.*\.metadata\.json$", n)
        if m and (best is None or int(m.group(1)) > best[0] or (int(m.group(1)) == best[0] and n > best[1])):
            best = (int(m.group(1)), n)
    if not best:
        odd = [n for n in names if n.endswith(".metadata.json")]
        if not odd:
            fail("no metadata file")
        return os.path.join(mdir, max(odd, key=lambda n: (os.path.getmtime(os.path.join(mdir, n)), n)))
    return os.path.join(mdir, best[1])


def load_json(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw)


def records(path):
    with open(path, "rb") as f:
        reader = avro.datafile.DataFileReader(f, avro.io.DatumReader())
        for r in reader:
            yield r
        reader.close()


def local(mdir, recorded):
    p = os.path.join(mdir, os.path.basename(recorded))
    if not os.path.exists(p):
        fail("missing file %s" % os.path.basename(recorded))
    return p


def main():
    root = sys.argv[1].rstrip("/")
    mdir = os.path.join(root, "metadata")
    md = load_json(metadata_file(mdir))
    cur = md.get("current-snapshot-id")
    if cur is None or cur == -1:
        fail("no current snapshot")
    snap = next((s for s in md.get("snapshots", []) if s["snapshot-id"] == cur), None)
    if snap is None:
        fail("current snapshot not in metadata")
    if "manifest-list" in snap:
        manifests = [m["manifest_path"] for m in records(local(mdir, snap["manifest-list"]))]
    else:
        manifests = snap.get("manifests", [])
    for mp in manifests:
        for e in records(local(mdir, mp)):
            if e["status"] == 2:
                continue
            df = e["data_file"]
            print(json.dumps({"content": df.get("content", 0), "file_path": df["file_path"],
                              "record_count": df["record_count"],
                              "file_size_in_bytes": df["file_size_in_bytes"]}))


if __name__ == "__main__":
    main()
