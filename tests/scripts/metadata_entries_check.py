#!/usr/bin/python3
"""Print a table's manifest entries as read with python3-avro (not floe),
one CSV line per entry, sorted: status, snapshot_id, sequence_number,
file_sequence_number, content, file_path, record_count.  Inheritance as
the spec says: a null snapshot id / sequence number of an ADDED entry
comes from the manifest-list record.  Usage: metadata_entries_check.py
TABLE_DIR current|all"""
import glob
import json
import os
import sys

import avro.datafile
import avro.io


def local(path):
    return path[len("file://"):] if path.startswith("file://") else path


def records(path):
    with open(local(path), "rb") as f:
        reader = avro.datafile.DataFileReader(f, avro.io.DatumReader())
        rows = list(reader)
        reader.close()
    return rows


table_dir, which = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(os.path.join(table_dir, "metadata", "*.metadata.json")))
md = json.load(open(files[-1]))
snaps = md.get("snapshots", [])
if which == "current":
    snaps = [s for s in snaps if s["snapshot-id"] == md.get("current-snapshot-id")]
seen, out = set(), []
for s in snaps:
    for mf in records(s["manifest-list"]):
        if mf["manifest_path"] in seen:
            continue
        seen.add(mf["manifest_path"])
        for e in records(mf["manifest_path"]):
            added = e["status"] == 1
            snap = e.get("snapshot_id")
            seq = e.get("sequence_number")
            fseq = e.get("file_sequence_number")
            if snap is None:
                snap = mf["added_snapshot_id"]
            if seq is None and added:
                seq = mf["sequence_number"]
            if fseq is None and added:
                fseq = mf["sequence_number"]
            d = e["data_file"]
            out.append(",".join(str(v) for v in (e["status"], snap, seq, fseq, d.get("content", 0), d["file_path"],
                                                 d["record_count"])))
print("\n".join(sorted(out)))
