#!/usr/bin/python3
"""iceberg_rewrite_paths.py TABLE_DIR NEW FLOE_BIN

Rewrite every path an Iceberg table records — the metadata's location,
manifest lists, manifests' data and delete file paths, DV references and
the file_path column of position delete files — replacing the table's
recorded location (the newest metadata's) with NEW, in place.  The result is the table as another engine would have
written it at NEW (an s3:// bucket, an hdfs:// cluster, an absolute file:///
directory) and then copied here: what iceberg_moved_copies.sh reads with
allow_moved_paths.  Manifests and lists are rewritten with python3-avro
(schema, field ids and file metadata kept); position delete files with
floe's own COPY, their new sizes put into the manifests.
"""
import glob
import json
import os
import subprocess
import sys

import warnings

import avro.datafile
import avro.io

warnings.simplefilter('ignore')  # python3-avro warns about Iceberg's logical type "map"
table, new, floe = sys.argv[1:4]
newest = max(glob.glob(os.path.join(table, 'metadata', '*.metadata.json')), key=os.path.getmtime)
with open(newest) as f:
    old = json.load(f)['location'].rstrip('/')


def fix(p):
    return new + p[len(old):] if isinstance(p, str) and p.startswith(old) else p


def local(p):
    """Where a recorded path (old or new prefix) is in the copy."""
    for pre in (new, old):
        if isinstance(p, str) and p.startswith(pre):
            return os.path.join(table, p[len(pre):].lstrip('/'))
    return p


def wrap64(v):
    """Longs back into 64 bits: some writers' varints overflow (a snapshot
    id of -9876543210123456790), which python3-avro decodes unbounded and
    Java reads wrapped."""
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return ((v + 2**63) % 2**64) - 2**63
    if isinstance(v, dict):
        return {k: wrap64(x) for k, x in v.items()}
    if isinstance(v, list):
        return [wrap64(x) for x in v]
    return v


def rewrite_avro(path, fn):
    with open(path, 'rb') as f:
        reader = avro.datafile.DataFileReader(f, avro.io.DatumReader())
        schema = reader.datum_reader.writers_schema
        meta = {k: v for k, v in reader.meta.items() if not k.startswith('avro.')}
        codec = reader.meta.get('avro.codec', b'null').decode()
        records = [wrap64(fn(r)) for r in reader]
        reader.close()
    tmp = path + '.tmp'
    with open(tmp, 'wb') as f:
        writer = avro.datafile.DataFileWriter(f, avro.io.DatumWriter(), schema, codec=codec)
        for k, v in meta.items():
            writer.set_meta(k, v)
        for r in records:
            writer.append(r)
        writer.close()
    os.replace(tmp, path)


def rewrite_posdel(path):
    """The delete file with its file_path column rewritten; its new size."""
    out = path + '.new.parquet'
    sql = ("COPY (SELECT CASE WHEN starts_with(file_path, '{o}') THEN '{n}' || substr(file_path, {k}) "
           "ELSE file_path END AS file_path, pos FROM read_parquet('{p}')) TO '{out}'").format(
        o=old, n=new, k=len(old) + 1, p=path, out=out)
    subprocess.run([floe, '-c', sql], check=True, stdout=subprocess.DEVNULL)
    os.replace(out, path)
    return os.path.getsize(path)


def fix_entry(e):
    df = e['data_file']
    if df.get('content') == 1 and str(df.get('file_format')).upper() == 'PARQUET':
        lp = local(df['file_path'])
        if os.path.exists(lp) and lp not in done_posdel:
            done_posdel[lp] = rewrite_posdel(lp)
        if lp in done_posdel:
            df['file_size_in_bytes'] = done_posdel[lp]
    df['file_path'] = fix(df['file_path'])
    if df.get('referenced_data_file'):
        df['referenced_data_file'] = fix(df['referenced_data_file'])
    return e


def fix_list_entry(m):
    lp = local(m['manifest_path'])
    if os.path.exists(lp) and lp not in done_manifests:
        rewrite_avro(lp, fix_entry)
        done_manifests.add(lp)
        m['manifest_length'] = os.path.getsize(lp)
    m['manifest_path'] = fix(m['manifest_path'])
    return m


done_posdel, done_manifests, done_lists = {}, set(), set()
for mp in glob.glob(os.path.join(table, 'metadata', '*.metadata.json')):
    with open(mp) as f:
        md = json.load(f)
    md['location'] = fix(md['location'])
    for s in md.get('snapshots', []):
        lp = local(s.get('manifest-list'))
        if lp and os.path.exists(lp) and lp not in done_lists:
            rewrite_avro(lp, fix_list_entry)
            done_lists.add(lp)
        s['manifest-list'] = fix(s.get('manifest-list'))
    for e in md.get('metadata-log', []):
        e['metadata-file'] = fix(e['metadata-file'])
    for st in md.get('statistics', []) or []:
        st['statistics-path'] = fix(st.get('statistics-path'))
    with open(mp, 'w') as f:
        json.dump(md, f)
print(f"rewrote {len(done_lists)} manifest lists, {len(done_manifests)} manifests, "
      f"{len(done_posdel)} position delete files")
