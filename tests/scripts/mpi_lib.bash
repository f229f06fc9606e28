# mpi_lib.bash — what the MPI script tests share (sourced after FLOE_BIN and
# FLOE_SOURCE_DIR are set): a scratch directory $tmp, fail / skip (a skip
# fails under CI=true), mpirun as root on 2 cores (--allow-run-as-root,
# --oversubscribe), ASan's leak checking kept with Open MPI's by-design
# leaks suppressed (tests/lsan-mpi.supp; matched only with full malloc
# stacks, as the innermost frames belong to components unloaded at
# MPI_Finalize), FLOE_MPI_RIG=netns (below), and
#   floe ARGS...        floe alone on the $tmp/wh warehouse, csv output
#   floe_np N ARGS...   the same under `mpirun -np N` (FLOE_THREADS and the
#                       FLOE_DIST_* / FLOE_MPI settings passed to every rank)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
skip() {
  if [ "${CI:-}" = true ]; then echo "FAIL: $*"; exit 1; fi
  echo "SKIP: $*"
  exit 0
}
command -v mpirun >/dev/null 2>&1 || skip "mpirun is not installed (scripts/install-deps.sh: openmpi-bin)"

asan_local=${ASAN_OPTIONS:-}
mpi=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
# FLOE_MPI_RIG=netns: every mpirun below over three simulated hosts
# (tests/scripts/netns_rig.bash; ranks 0, 1, 2 on floe-h1, -h2, -h3, TCP
# only), or exit 77 where namespaces cannot be made
if [ "${FLOE_MPI_RIG:-}" = netns ]; then
  # shellcheck source=tests/scripts/netns_rig.bash
  source "$FLOE_SOURCE_DIR/tests/scripts/netns_rig.bash"
  netns_rig_up
  mpi=("${netns_rig_mpi[@]}")
  echo "note: every mpirun over the netns rig (hosts floe-h1..3 in namespaces $netns_rig_id-*)"
fi
export LSAN_OPTIONS="suppressions=$FLOE_SOURCE_DIR/tests/lsan-mpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export OMPI_MCA_btl_vader_single_copy_mechanism=none # containers without CMA
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
floe() { ASAN_OPTIONS=$asan_local "$FLOE_BIN" --warehouse "$tmp/wh" --format csv "$@"; }
floe_np() {
  local np=$1
  shift
  local pass=(-x LSAN_OPTIONS -x ASAN_OPTIONS)
  [ -n "${FLOE_THREADS:-}" ] && pass+=(-x FLOE_THREADS)
  [ -n "${FLOE_DIST_VIA_ROOT:-}" ] && pass+=(-x FLOE_DIST_VIA_ROOT)
  [ -n "${FLOE_DIST_EXCHANGE_BUFFER_BYTES:-}" ] && pass+=(-x FLOE_DIST_EXCHANGE_BUFFER_BYTES)
  [ -n "${FLOE_DIST_STREAM:-}" ] && pass+=(-x FLOE_DIST_STREAM)
  [ -n "${FLOE_DIST_CHECK_PATHS:-}" ] && pass+=(-x FLOE_DIST_CHECK_PATHS)
  [ -n "${FLOE_MPI:-}" ] && pass+=(-x FLOE_MPI)
  timeout 180 "${mpi[@]}" -np "$np" "${pass[@]}" "$FLOE_BIN" --warehouse "$tmp/wh" --format csv "$@"
}

