#!/usr/bin/env bash
# fuzz-smoke.sh — a short libFuzzer run of every fuzz/*.c target (part of
# `make test`).  Builds the targets with clang + ASan/UBSan in build/fuzz,
# seeds each from the real files in the shared test data (Parquet files for
# Parquet targets, Avro files for Avro targets, ORC files for ORC targets,
# parquet-testing's variant vectors as metadata + value for the variant
# target) and runs it for
# FUZZ_SECONDS (default 20).  A crash, leak or sanitizer report fails.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${FUZZ_SECONDS:-20}
testdata=${FLOE_TESTDATA:-$here/../shared/testdata}
build="$here/build/fuzz"

if [ ! -d "$testdata" ]; then
  if [ "${CI:-}" = true ]; then echo "fuzz-smoke: test data '$testdata' missing under CI=true" >&2; exit 1; fi
  echo "fuzz-smoke: SKIP (no test data at '$testdata' for seed corpora)"
  exit 0
fi

CC=clang cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DFLOE_FUZZ=ON \
  -DFLOE_SANITIZE=ON >/dev/null
targets=()
for f in "$here"/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" >/dev/null

for t in "${targets[@]}"; do
  corpus=$(mktemp -d)
  case "$t" in
    *parquet*) find "$testdata/apache__parquet-testing" -name '*.parquet' -size -256k \
                 -exec cp {} "$corpus/" \; ;;
    *orc*)     find "$testdata/apache__orc/examples" -name '*.orc' -size -256k \
                 -exec cp -t "$corpus/" {} + 2>/dev/null || true ;;
    *avro*)    find "$testdata/apache__avro" "$testdata/fastavro__fastavro" \
                 "$testdata/duckdb__duckdb-iceberg" -name '*.avro' -size -256k \
                 -exec cp -t "$corpus/" {} + 2>/dev/null || true ;;
    *variant*) # metadata then value, as the shredded cases' *.variant.bin are
               find "$testdata/apache__parquet-testing/shredded_variant" -name '*.variant.bin' \
                 -exec cp -t "$corpus/" {} + 2>/dev/null || true
               for m in "$testdata"/apache__parquet-testing/variant/*.metadata; do
                 cat "$m" "${m%.metadata}.value" >"$corpus/$(basename "${m%.metadata}").bin"
               done ;;
    *)         find "$testdata" -type f -size -64k | head -200 | xargs -r cp -t "$corpus/" ;;
  esac
  echo "fuzz-smoke: $t for ${seconds}s ($(ls "$corpus" | wc -l) seeds)"
  if ! "$build/$t" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=4096 \
        -print_final_stats=0 "$corpus" >"$build/$t.log" 2>&1; then
    tail -60 "$build/$t.log" >&2
    rm -rf "$corpus"
    echo "fuzz-smoke: $t FAILED (log: $build/$t.log)" >&2
    exit 1
  fi
  grep -E "^#[0-9]+.*DONE" "$build/$t.log" | tail -1 || true
  rm -rf "$corpus"
done
echo "fuzz-smoke: all targets clean"
