#!/usr/bin/env python3
"""promote_pending.py — move the records of tests/sql/pending/*.slt that
pass now into tests/sql/<same name>.slt (registered with ctest).

tests/sql/pending/ holds sqllogictest records that failed when they were
written because the engine lacked something; they are not registered.  Run
this after the engine learns more:

    python3 tests/sql/promote_pending.py build/<dir>/slt_runner [FILE...]

Each pending file is run; every record without a failure is appended to
the registered file of the same name (created with the pending file's
header comment when missing) and removed from the pending file, which is
deleted once empty.  Records in a pending file must not depend on each
other's side effects (each is run, and may be moved, alone).  The
iceberg_*.slt files are better regenerated: gen_iceberg_slt.py does the
same split.
"""
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def blocks_of(text):
    """Blank-line separated blocks with their first line numbers."""
    out, line = [], 1
    for b in text.strip("\n").split("\n\n"):
        out.append((b, line))
        line += b.count("\n") + 2
    return out


def is_comment(b):
    return all(l.startswith("#") for l in b.split("\n"))


def promote(runner, path):
    p = subprocess.run([runner, path], capture_output=True, text=True)
    if p.returncode == 77:
        print("%s: skipped by the runner (needs FLOE_TESTDATA?): nothing moved" % os.path.relpath(path))
        return
    bad = {int(x) for x in re.findall(r"^FAIL [^:\n]+:(\d+):", p.stderr, re.M)}
    blocks = blocks_of(open(path).read())
    intro = blocks[0][0] if blocks and is_comment(blocks[0][0]) else None
    body = blocks[1:] if intro is not None else blocks
    require = [b for b, _ in body if b.startswith("require ")]
    good, keep = [], []
    for b, start in body:
        if b.startswith("require "):
            continue
        n = b.count("\n") + 1
        (keep if any(start <= x < start + n for x in bad) else good).append(b)
    if not good:
        print("%s: nothing passes yet" % os.path.relpath(path))
        return
    target = os.path.join(os.path.dirname(os.path.dirname(path)), os.path.basename(path))
    if os.path.exists(target):
        text = open(target).read().rstrip("\n") + "\n\n" + "\n\n".join(good) + "\n"
    else:
        head = [re.sub(r"\n(#\n)?# PENDING:.*", "", intro, flags=re.S)] if intro else []
        text = "\n\n".join(head + require + good) + "\n"
    open(target, "w").write(text)
    if keep:
        open(path, "w").write("\n\n".join(([intro] if intro else []) + require + keep) + "\n")
    else:
        os.remove(path)
    print("%s: %d records moved to %s, %d still pending" % (
        os.path.relpath(path), len(good), os.path.relpath(target), len(keep)))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    runner = os.path.abspath(sys.argv[1])
    files = sys.argv[2:] or sorted(glob.glob(os.path.join(HERE, "pending", "*.slt")))
    for f in files:
        promote(runner, f)


if __name__ == "__main__":
    main()
