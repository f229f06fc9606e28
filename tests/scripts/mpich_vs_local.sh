#!/usr/bin/env bash
# The MPI runtime under MPICH: floe is built a second time against Debian's
# MPICH (cmake -DMPI_C_COMPILER=mpicc.mpich, only the `floe` target and the
# sql_status tool that mpi_vs_local.sh also runs under mpirun, -j2, into
# $FLOE_BINARY_DIR/mpich so later runs rebuild only what changed;
# build type None — no optimisation, no debug info — compiles in half the
# time of Release, and the queries here are small), and
# tests/scripts/mpi_vs_local.sh — every query, EXPLAIN, INSERT and failure
# case it runs under Open MPI — runs again with that binary under MPICH's
# launcher (mpiexec.mpich, hydra), comparing with the local runtime as it
# does.  One script, two MPI libraries: nothing here repeats its queries.
#
# mpi_vs_local.sh speaks Open MPI's mpirun; a small `mpirun` placed first on
# its PATH translates that command line for hydra (-np N; -x VAR becomes
# nothing, since hydra passes the whole environment, or -genv for VAR=value;
# --oversubscribe and --allow-run-as-root are hydra's behaviour already) and
# fails on any option it does not know, so a change there is noticed here.
# Its killed-rank check finds rank 2 by Open MPI's OMPI_COMM_WORLD_RANK, so
# each rank starts through `sh -c` setting it from hydra's PMI_RANK.
#
# Known difference, accepted (and reported): when a rank is killed, hydra
# ends the whole job (non-zero exit, no hang — both checked), but its
# message names the first rank in order, not the one that died, and floe
# prints nothing of its own, so "rank 2" appears nowhere; that check alone
# may fail.
#
# The default build must keep Open MPI: installing mpich leaves the mpicc /
# mpirun alternatives on Open MPI (higher priority), and this test checks
# that the binary it was given still links Open MPI and its own links MPICH.
# Skips when MPICH is not installed, except under CI=true.
set -euo pipefail
src=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bindir=${FLOE_BINARY_DIR:-$src/build/release}
build=${FLOE_MPICH_BUILD_DIR:-$bindir/mpich}
fail() { echo "FAIL: $*"; exit 1; }
skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL: $*"; exit 1; fi
  echo "SKIP: $*"
  exit 0
}
for c in mpicc.mpich mpiexec.mpich; do
  command -v "$c" >/dev/null 2>&1 || skip "$c is not installed (scripts/install-deps.sh: mpich libmpich-dev)"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- build: only the floe program and sql_status, cached in $build --------
t0=$SECONDS
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=None -DMPI_C_COMPILER="$(command -v mpicc.mpich)" \
    >"$tmp/configure.log" 2>&1 || { tail -30 "$tmp/configure.log"; fail "configuring the MPICH build"; }
fi
cmake --build "$build" -j2 --target floe sql_status >"$tmp/build.log" 2>&1 ||
  { tail -30 "$tmp/build.log"; fail "building floe against MPICH in $build"; }
echo "note: MPICH build in $build took $((SECONDS - t0)) s"
mpich_floe=$build/floe

# FindMPI took MPICH's headers and library, not Open MPI's
grep -q '^MPI_C_LIB_NAMES:STRING=mpich$' "$build/CMakeCache.txt" ||
  fail "FindMPI did not pick MPICH: $(grep '^MPI_C_LIB_NAMES' "$build/CMakeCache.txt")"
cmd=$(python3 -c 'import json, sys
print(next((e.get("command") or " ".join(e.get("arguments", [])) for e in json.load(open(sys.argv[1]))
            if e["file"].endswith("src/dist/transport.c")), ""))' "$build/compile_commands.json")
if [[ $cmd != *"isystem /usr/include/"*"/mpich"* ]] || [[ $cmd == *openmpi* ]]; then
  fail "src/dist/transport.c is not compiled with MPICH's mpi.h: $cmd"
fi
libs=$(ldd "$mpich_floe")
grep -q 'libmpich\.so' <<<"$libs" || fail "$mpich_floe does not link libmpich: $libs"
grep -q 'libmpi\.so' <<<"$libs" && fail "$mpich_floe links Open MPI's libmpi too: $libs"
# ...and the main build (the binary ctest handed us) still links Open MPI
if [ -n "${FLOE_BIN:-}" ] && [ -x "$FLOE_BIN" ]; then
  libs=$(ldd "$FLOE_BIN")
  if grep -q 'libmpich\.so' <<<"$libs" || ! grep -q 'libmpi\.so' <<<"$libs"; then
    fail "$FLOE_BIN (the default build) does not link Open MPI (see MPI_C_COMPILER in CMakeLists.txt): $libs"
  fi
fi

# ---- mpirun (Open MPI's syntax) -> mpiexec.mpich -------------------------
mkdir "$tmp/bin"
cat >"$tmp/bin/mpirun" <<'EOF'
#!/usr/bin/env bash
# mpirun as tests/scripts/mpi_*.sh call it (Open MPI), run by MPICH's hydra.
# Several programs separated by ':' (MPMD) keep their own -np / -wdir.
set -euo pipefail
globals=() segs=() local=()
while (($#)); do
  case $1 in
    --oversubscribe | --allow-run-as-root) shift ;;
    -np | -n) local+=(-np "$2"); shift 2 ;;
    -wdir) local+=(-wdir "$2"); shift 2 ;;
    -x)
      if [[ $2 == *=* ]]; then globals+=(-genv "${2%%=*}" "${2#*=}"); fi
      shift 2 ;;
    -*) echo "mpirun (MPICH shim of tests/scripts/mpich_vs_local.sh): unknown option $1" >&2; exit 2 ;;
    *)
      cmd=()
      while (($#)) && [ "$1" != : ]; do cmd+=("$1"); shift; done
      if ((${#segs[@]})); then segs+=(:); fi
      # shellcheck disable=SC2016
      segs+=("${local[@]}" sh -c 'OMPI_COMM_WORLD_RANK=$PMI_RANK; export OMPI_COMM_WORLD_RANK; exec "$@"' rank "${cmd[@]}")
      local=()
      if (($#)); then shift; fi # the ':'
      ;;
  esac
done
exec mpiexec.mpich "${globals[@]}" "${segs[@]}"
EOF
chmod +x "$tmp/bin/mpirun"
got=$(PATH="$tmp/bin:$PATH" timeout 60 mpirun -np 2 "$mpich_floe" --warehouse "$tmp/wh" --format csv \
  -c "EXPLAIN SELECT x % 3, count(*) FROM generate_series(1, 1000) t(x) GROUP BY 1" 2>&1) || true
grep -q "^Distributed over 2 ranks" <<<"$got" || fail "floe under mpiexec.mpich -np 2 does not distribute: $got"

# ---- the Open MPI test, under MPICH ---------------------------------------
t0=$SECONDS
set +e
PATH="$tmp/bin:$PATH" FLOE_BIN="$mpich_floe" bash "$src/tests/scripts/mpi_vs_local.sh" >"$tmp/out" 2>&1
rc=$?
set -e
echo "note: mpi_vs_local.sh under MPICH took $((SECONDS - t0)) s"
if [ "$rc" = 0 ] && [ "$(tail -n 1 "$tmp/out")" = PASS ]; then
  echo "PASS"
  exit 0
fi
if [ "$rc" != 0 ] && [ "$(grep -c '^FAIL' "$tmp/out")" = 1 ] &&
  grep -q '^FAIL: a killed rank is not named:' "$tmp/out" && grep -q "BAD TERMINATION" "$tmp/out"; then
  # everything before the killed-rank check passed; the job ended (exit
  # status non-zero, no timeout) — only the naming is missing (see top)
  echo "note: a killed rank ends the MPICH job without a hang, but is not named (hydra names rank order's first)"
  echo "PASS"
  exit 0
fi
cat "$tmp/out"
fail "mpi_vs_local.sh under MPICH (exit $rc)"
