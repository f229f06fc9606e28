#!/usr/bin/env bash
# bench/mpi.sh — the MPI runtime against the threaded one on scan-heavy and
# aggregate-heavy queries over TPC-H SF 1 lineitem (an Iceberg table).
#
#   bench/mpi.sh [--build DIR] [--runs N] [--threads N] [--np "1 2"]
#                [--warehouse DIR] [--no-doc]
#
# Defaults: build/release (configured and built when missing), 5 runs,
# 2 threads per process, -np 1 and 2, warehouse bench/data/tpch-sf1-wh
# (made with `floe tpch generate --sf 1 --tables lineitem` when missing).
#
# Each query runs RUNS+1 times in one floe process with \timing on (the
# first run warms the page cache and is dropped); each time is the whole
# statement as rank 0's \timing reports it (parse, plan, schedule, execute
# on the workers, exchange, print CSV to /dev/null) — MPI start-up is not in
# it, and is measured on its own (`SELECT 1` as a whole command, wall time).
# Configurations: local (`floe`, FLOE_THREADS threads), and `mpirun -np N`
# with FLOE_THREADS threads in every rank (-np 1 is the local runtime under
# mpirun; at -np 2 both ranks run tasks, rank 0 also coordinates).  Ranks are
# not bound to cores (--bind-to none: Open MPI's default binding would put
# a rank's threads on one core).  Every configuration's rows must equal the
# local ones ("result").  The table (with machine, load and the command)
# replaces the "MPI runtime" section of docs/BENCHMARKS.md (between
# <!-- mpi:begin --> and <!-- mpi:end -->) unless --no-doc; printed either way.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build/release
RUNS=5
THREADS=2
NPS="1 2"
WH=$ROOT/bench/data/tpch-sf1-wh
DOC=1
ARGS="$*"
while [ $# -gt 0 ]; do
    case $1 in
        --build) BUILD=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        --threads) THREADS=$2; shift 2 ;;
        --np) NPS=$2; shift 2 ;;
        --warehouse) WH=$2; shift 2 ;;
        --no-doc) DOC=0; shift ;;
        -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench/mpi.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
BUILD=$(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD")
command -v mpirun >/dev/null || { echo "bench/mpi.sh: mpirun not found (scripts/install-deps.sh)" >&2; exit 1; }
if [ ! -x "$BUILD/floe" ]; then
    cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release > /dev/null
    cmake --build "$BUILD" -j2 --target floe > /dev/null
fi
FLOE=$BUILD/floe
# a floe built without MPI (or against MPICH) would run as N separate copies
if ! grep -q 'libmpi\.so' <<<"$(ldd "$FLOE")"; then
    echo "bench/mpi.sh: $FLOE does not link Open MPI; rebuild it (cmake --build $BUILD --target floe)" >&2
    exit 1
fi
mkdir -p "$(dirname "$WH")"
WH=$(cd "$(dirname "$WH")" && pwd)/$(basename "$WH")
# (checked from another directory: a table made with a relative warehouse
# path records relative locations and cannot be read from elsewhere)
if ! (cd / && "$FLOE" --warehouse "$WH" --format csv -c "SELECT 1 FROM tpch.lineitem LIMIT 1") >/dev/null 2>&1; then
    FLOE_THREADS=$THREADS "$FLOE" tpch generate --sf 1 --warehouse "$WH" --tables lineitem --replace >&2
fi

mpi=(mpirun --oversubscribe --bind-to none)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
export OMPI_MCA_btl_vader_single_copy_mechanism=none # containers without CMA

L=tpch.lineitem
names=(q01 q06 scan groups)
labels=(
    "TPC-H q01 (filter, 4 groups, 8 aggregates)"
    "TPC-H q06 (range filters, one sum)"
    "scan: count and sums over all of lineitem"
    "GROUP BY l_orderkey (1.5M groups), then count/sum"
)
sqls=(
    "$(sed "s#{lineitem}#$L#" "$ROOT/bench/tpch/q01.sql")"
    "$(sed "s#{lineitem}#$L#" "$ROOT/bench/tpch/q06.sql")"
    "SELECT count(*), sum(l_quantity), sum(l_extendedprice), sum(l_discount), min(l_shipdate), max(l_receiptdate) FROM $L;"
    "SELECT count(*), sum(s), max(n) FROM (SELECT l_orderkey, sum(l_extendedprice) AS s, count(*) AS n FROM $L GROUP BY l_orderkey) t;"
)
for i in "${!sqls[@]}"; do
    [[ ${sqls[$i]} == *"$L"* ]] || { echo "bench/mpi.sh: ${names[$i]}: no lineitem in the query" >&2; exit 1; }
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/mpi_bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
configs=(local)
for np in $NPS; do configs+=("np$np"); done

run_cfg() { # config, then floe arguments
    local cfg=$1
    shift
    if [ "$cfg" = local ]; then
        (cd "$TMP" && FLOE_THREADS=$THREADS "$FLOE" --warehouse "$WH" --format csv "$@")
    else
        (cd "$TMP" && FLOE_THREADS=$THREADS timeout 1800 "${mpi[@]}" -np "${cfg#np}" -x FLOE_THREADS \
            -x OMPI_MCA_btl_vader_single_copy_mechanism "$FLOE" --warehouse "$WH" --format csv "$@")
    fi
}

: > "$TMP/times.jsonl"
for i in "${!names[@]}"; do
    q=${names[$i]}
    { printf '%s\n' '\timing on'; for _ in $(seq 0 "$RUNS"); do echo "${sqls[$i]}"; done; } > "$TMP/$q.sql"
    for cfg in "${configs[@]}"; do
        if ! out=$(run_cfg "$cfg" -f "$TMP/$q.sql" 2> "$TMP/$q.$cfg.err"); then
            echo "$q $cfg: failed: $(head -c 300 "$TMP/$q.$cfg.err")" >&2
            out=error
        fi
        times=$(echo "$out" | sed -n 's/^Time: \([0-9.]*\) ms$/\1/p' | tail -n "$RUNS" | tr '\n' ' ')
        echo "$out" | grep -v '^Time: ' > "$TMP/$q.$cfg.rows" || true
        same=yes
        [ "$out" != error ] && cmp -s "$TMP/$q.local.rows" "$TMP/$q.$cfg.rows" || same=no
        echo "$q $cfg ms: ${times:-none} (rows equal local: $same)" >&2
        python3 -c 'import json,sys; print(json.dumps({"q": sys.argv[1], "cfg": sys.argv[2], "ms": sys.argv[3], "same": sys.argv[4]}))' \
            "$q" "$cfg" "$times" "$same" >> "$TMP/times.jsonl"
    done
done
# start-up and shutdown: `SELECT 1` as a whole command, wall time
for cfg in "${configs[@]}"; do
    ms=
    for _ in $(seq 1 "$RUNS"); do
        t0=$(date +%s%N)
        run_cfg "$cfg" -c "SELECT 1" > /dev/null 2>&1 || true
        ms+="$((($(date +%s%N) - t0) / 1000)) "
    done
    ms=$(for u in $ms; do awk -v u="$u" 'BEGIN { printf "%.3f ", u / 1000 }'; done)
    echo "start-up $cfg ms: $ms" >&2
    python3 -c 'import json,sys; print(json.dumps({"q": "startup", "cfg": sys.argv[1], "ms": sys.argv[2], "same": "yes"}))' \
        "$cfg" "$ms" >> "$TMP/times.jsonl"
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$TMP" "$ROOT" "$THREADS" "$RUNS" "$FLOE" "$DOC" "$LOAD_BEFORE" "$LOAD_AFTER" "bench/mpi.sh $ARGS" \
    "${configs[*]}" "${names[*]}" "${labels[@]}" <<'PY'
import json, os, re, statistics, subprocess, sys, datetime
tmp, root, threads, runs, floe, doc, load0, load1, cmd, configs, names = sys.argv[1:12]
labels = dict(zip(names.split(), sys.argv[12:]))
labels["startup"] = "`SELECT 1` as a whole command (start-up + shutdown)"
configs = configs.split()
rows = [json.loads(l) for l in open(os.path.join(tmp, "times.jsonl"))]
def sh(*a):
    try: return subprocess.run(a, capture_output=True, text=True).stdout.strip()
    except OSError: return "?"
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
mem = next((int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal")), 0) / 2**20
osname = next((l.split("=", 1)[1].strip().strip('"') for l in open("/etc/os-release") if l.startswith("PRETTY_NAME")), "?")
m = re.search(r"[0-9]+\.[0-9.]+", sh("mpirun", "--version"))
ompi = m.group(0) if m else "?"
btype = "?"
try:
    cache = open(os.path.join(os.path.dirname(floe), "CMakeCache.txt")).read()
    btype = re.search(r"^CMAKE_BUILD_TYPE:\w+=(\w*)", cache, re.M).group(1) or "?"
except (OSError, AttributeError):
    pass
commit = sh("git", "-C", root, "rev-parse", "--short", "HEAD")
med = {}
same = {}
for r in rows:
    t = r["ms"].split()
    med[(r["q"], r["cfg"])] = statistics.median(float(x) / 1000 for x in t) if t else None
    same[(r["q"], r["cfg"])] = r["same"] == "yes"
def head(c):
    if c == "local": return f"local, {threads} threads"
    return f"`mpirun -np {c[2:]}`"
out = ["## MPI runtime", ""]
out.append(f"TPC-H SF 1 `lineitem` as an Iceberg table (`floe tpch generate --sf 1 --tables lineitem`: "
           "zstd Parquet, 2 files) read by the threaded runtime and by the MPI runtime under Open "
           f"MPI's `mpirun` on this one machine, {threads} threads in every process. Times are rank 0's "
           f"`\\timing` of the whole statement (plan, schedule, run on the workers, exchange, print CSV), "
           f"median of {runs} runs after a warm-up in one `floe -f` process, so MPI start-up is not in "
           "them; the last row is that start-up: `SELECT 1` as a whole command, wall time. "
           "`-np 1` is the local runtime under mpirun; at `-np 2` rank 0 plans, coordinates and runs "
           f"tasks beside rank 1, each on {threads} threads — twice the threads of the local run on the "
           "same cores, so this shows the runtime's overhead, not a second machine's gain. "
           "Ranks are not bound to cores. "
           "\"rows\" says whether each configuration printed exactly the local rows.")
out.append("")
out.append(f"**Machine:** {os.cpu_count()} cores ({cpu}), {mem:.0f} GiB, {osname}, Open MPI {ompi}, "
           f"{btype} build at {commit}. Measured {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, "
           f"load average {load0} before the run and {load1} after.")
out.append("")
out.append(f"**Command:** `{cmd.strip()}`")
out.append("")
hdr = "| query | " + " | ".join(head(c) for c in configs)
last = configs[-1]
if last != "local": hdr += f" | {head(last)} / local"
out.append(hdr + " | rows |")
out.append("|---" * (len(configs) + (2 if last != "local" else 1)) + "|---|")
for q in names.split() + ["startup"]:
    cells = []
    for c in configs:
        m = med.get((q, c))
        cells.append("error" if m is None else f"{m:.3f} s")
    line = f"| {labels[q]} | " + " | ".join(cells)
    if last != "local":
        a, b = med.get((q, last)), med.get((q, "local"))
        line += " | " + (f"{a / b:.2f}" if a and b else "")
    ok = all(same.get((q, c), False) for c in configs)
    line += " | " + ("equal" if q != "startup" and ok else ("" if q == "startup" else "DIFFER")) + " |"
    out.append(line)
if float(load0.split()[0]) > 1.0:
    out.append("")
    out.append(f"Measured under load (load average {load0.split()[0]} on {os.cpu_count()} cores, other jobs "
               "running): the times say as much about the CPU share each process got as about the "
               "runtimes; re-run on a quiet machine before comparing.")
text = "\n".join(out) + "\n"
print(text)
if doc == "1":
    path = os.path.join(root, "docs/BENCHMARKS.md")
    old = open(path).read()
    begin, end = "<!-- mpi:begin -->", "<!-- mpi:end -->"
    block = f"{begin}\n{text}{end}\n"
    if begin in old and end in old:
        new = old[:old.index(begin)] + block + old[old.index(end) + len(end) + 1:]
    elif "\n## MPI runtime" in old:
        # the first time: replace the unmarked section, up to the next heading
        a = old.index("\n## MPI runtime") + 1
        b = old.find("\n## ", a)
        new = old[:a] + block + (old[b + 1:] if b >= 0 else "")
    else:
        new = old.rstrip("\n") + "\n\n" + block
    open(path, "w").write(new)
    print(f"(written to {path})", file=sys.stderr)
PY
