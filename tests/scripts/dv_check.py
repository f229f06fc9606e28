#!/usr/bin/env python3
"""A reader of deletion vectors written from the spec alone, to check floe's
bit for bit: Puffin (magic, footer, blob metadata) and the DV blob framing
(big-endian length, magic D1 D3 39 64, portable 64-bit Roaring, CRC-32).

usage: dv_check.py PUFFIN_FILE OFFSET LENGTH
prints the positions of the blob at [OFFSET, OFFSET + LENGTH), one per line,
after checking the framing, the CRC, that the blob is listed in the footer
with type deletion-vector-v1 and a cardinality equal to its positions.
"""
import json
import struct
import sys
import zlib

MAGIC = b"PFA1"


def fail(msg):
    print("dv_check: " + msg, file=sys.stderr)
    sys.exit(1)


def footer(data):
    if data[:4] != MAGIC or data[-4:] != MAGIC:
        fail("not a Puffin file (magic)")
    size, flags = struct.unpack("<iI", data[-12:-4])
    if flags & 1:
        fail("compressed footer (this reader only reads plain ones)")
    start = len(data) - 12 - size
    if data[start - 4:start] != MAGIC:
        fail("footer magic missing")
    return json.loads(data[start:start + size])


def roaring32(buf, at):
    """Portable 32-bit Roaring bitmap at buf[at:]: (values, end offset)."""
    cookie = struct.unpack_from("<I", buf, at)[0]
    at += 4
    if cookie & 0xFFFF == 12347:
        n = (cookie >> 16) + 1
        run_bytes = (n + 7) // 8
        runs = buf[at:at + run_bytes]
        at += run_bytes
        has_run = [bool(runs[i // 8] >> (i % 8) & 1) for i in range(n)]
        offsets = n >= 4
    elif cookie == 12346:
        n = struct.unpack_from("<I", buf, at)[0]
        at += 4
        has_run = [False] * n
        offsets = True
    else:
        fail("bad Roaring cookie %d" % cookie)
    keys = []
    for i in range(n):
        key, card = struct.unpack_from("<HH", buf, at)
        keys.append((key, card + 1))
        at += 4
    if offsets:
        at += 4 * n
    values = []
    for i, (key, card) in enumerate(keys):
        base = key << 16
        if has_run[i]:
            nruns = struct.unpack_from("<H", buf, at)[0]
            at += 2
            for _ in range(nruns):
                start, length = struct.unpack_from("<HH", buf, at)
                at += 4
                values.extend(base + v for v in range(start, start + length + 1))
        elif card > 4096:
            words = struct.unpack_from("<1024Q", buf, at)
            at += 8192
            for w, word in enumerate(words):
                for b in range(64):
                    if word >> b & 1:
                        values.append(base + w * 64 + b)
        else:
            vals = struct.unpack_from("<%dH" % card, buf, at)
            at += 2 * card
            values.extend(base + v for v in vals)
    return values, at


def main():
    path, offset, length = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    data = open(path, "rb").read()
    meta = footer(data)
    blobs = [b for b in meta.get("blobs", []) if b["offset"] == offset and b["length"] == length]
    if len(blobs) != 1:
        fail("no blob at offset %d length %d in the footer" % (offset, length))
    blob = blobs[0]
    if blob["type"] != "deletion-vector-v1":
        fail("blob type %s" % blob["type"])
    raw = data[offset:offset + length]
    (n,) = struct.unpack(">I", raw[:4])
    if n != length - 8:
        fail("framing length %d for a %d-byte blob" % (n, length))
    if raw[4:8] != bytes([0xD1, 0xD3, 0x39, 0x64]):
        fail("DV magic")
    body = raw[8:4 + n]
    (crc,) = struct.unpack(">I", raw[4 + n:8 + n])
    if zlib.crc32(raw[4:4 + n]) & 0xFFFFFFFF != crc:
        fail("CRC-32 mismatch")
    (buckets,) = struct.unpack_from("<Q", body, 0)
    at, positions, last_high = 8, [], -1
    for _ in range(buckets):
        (high,) = struct.unpack_from("<I", body, at)
        at += 4
        if high <= last_high:
            fail("64-bit Roaring keys not ascending")
        last_high = high
        vals, at = roaring32(body, at)
        positions.extend((high << 32) | v for v in vals)
    if at != len(body):
        fail("%d bytes after the bitmap" % (len(body) - at))
    if positions != sorted(set(positions)):
        fail("positions not ascending and distinct")
    card = int(blob.get("properties", {}).get("cardinality", -1))
    if card != len(positions):
        fail("cardinality %d, %d positions" % (card, len(positions)))
    if "referenced-data-file" not in blob.get("properties", {}):
        fail("no referenced-data-file")
    print(blob["properties"]["referenced-data-file"])
    for p in positions:
        print(p)


main()
