#!/usr/bin/python3
"""proc_files_check.py TABLE_DIR — the files a table's current metadata
references, read independently of floe (json + python3-avro): the current
metadata file (highest NNNNN-*.metadata.json), its metadata-log, every
snapshot's manifest list, the manifests it lists and the data / delete
files of their entries (every entry status but a DELETED one whose
deleting snapshot is gone: such an entry holds no file, as in Iceberg
Java's expiry cleanup).  Prints them relative to
TABLE_DIR, sorted, one a line — to compare with a listing of the
directory."""
import glob
import json
import os
import sys

import avro.datafile
import avro.io


def rel(root, path):
    if path.startswith("file://"):
        path = path[len("file://"):]
    elif path.startswith("file:"):
        path = path[len("file:"):]
    return os.path.relpath(path, root)


def records(path):
    with open(path, "rb") as f:
        return list(avro.datafile.DataFileReader(f, avro.io.DatumReader()))


def main():
    root = os.path.realpath(sys.argv[1])
    metas = sorted(glob.glob(os.path.join(root, "metadata", "*.metadata.json")))
    current = metas[-1]
    md = json.load(open(current))
    out = {rel(root, current)}
    snapshot_ids = {s["snapshot-id"] for s in md.get("snapshots", [])}
    for e in md.get("metadata-log", []):
        out.add(rel(root, e["metadata-file"]))
    for s in md.get("snapshots", []):
        ml = s["manifest-list"]
        out.add(rel(root, ml))
        for m in records(rel(root, ml) if not os.path.isabs(ml) else ml):
            mp = m["manifest_path"]
            out.add(rel(root, mp))
            for e in records(mp if os.path.isabs(mp) else os.path.join(root, mp)):
                sid = e.get("snapshot_id")
                if sid is None:
                    sid = m.get("added_snapshot_id")
                if e["status"] == 2 and sid not in snapshot_ids:
                    continue
                out.add(rel(root, e["data_file"]["file_path"]))
    for s in md.get("statistics", []) + md.get("partition-statistics", []):
        out.add(rel(root, s["statistics-path"]))
    for p in sorted(out):
        print(p)


main()
