#!/usr/bin/env bash
# s3_fileio.sh — S3 FileIO secrets never reach logs or messages.
#
# Runs the S3 unit tests (test_io_s3, which starts s3rver behind a
# signature-checking proxy on 127.0.0.1 and stops it afterwards) with a
# fresh, distinctive secret key and session token, once with FLOE_LOG=debug
# and once with FLOE_LOG=trace (curl's header dump included), captures
# everything they print, and checks that
#   - the tests pass,
#   - the S3 debug lines really were written (so the check is not vacuous),
#   - neither the secret key nor the session token appears anywhere.
# Skips when the npm peers are not installed, except under CI=true.
set -euo pipefail
src=${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${FLOE_S3_TEST_BIN:-${FLOE_BINARY_DIR:-$src/build/release}/test_io_s3}

if [ ! -f "$src/tests/peers/node_modules/s3rver/package.json" ]; then
  if [ "${CI:-}" = true ]; then
    echo "FAIL: s3rver not installed under tests/peers/node_modules (run scripts/install-deps.sh)"
    exit 1
  fi
  echo "SKIP: s3rver not installed under tests/peers/node_modules"
  exit 0
fi
if [ ! -x "$bin" ]; then
  echo "FAIL: test binary $bin not built"
  exit 1
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

rand=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
export FLOE_TEST_S3_SECRET="wJalr/Xut+nFEMI${rand}K7MDENGfloe"
export FLOE_TEST_S3_TOKEN="IQoJb3JpZ2luX2Vj/${rand}+FloeSessionTokenZ=="

fail=0
for level in debug trace; do
  log="$out/$level.log"
  if ! FLOE_LOG=$level "$bin" >"$log" 2>&1; then
    echo "FAIL: $bin failed with FLOE_LOG=$level:"
    tail -n 40 "$log"
    fail=1
    continue
  fi
  if ! grep -q '\[s3\]' "$log"; then
    echo "FAIL: FLOE_LOG=$level produced no S3 debug lines; the redaction check would be vacuous"
    fail=1
  fi
  if [ "$level" = trace ] && ! grep -qi 'authorization: \*\*\*' "$log"; then
    echo "FAIL: FLOE_LOG=trace did not show the (redacted) Authorization header"
    fail=1
  fi
  for s in "$FLOE_TEST_S3_SECRET" "$FLOE_TEST_S3_TOKEN" "$rand"; do
    if grep -qF -- "$s" "$log"; then
      echo "FAIL: a secret leaked into the FLOE_LOG=$level output:"
      grep -nF -- "$s" "$log" | head -5 | sed "s/$rand/<RAND>/g"
      fail=1
    fi
  done
  echo "FLOE_LOG=$level: $(wc -l <"$log") lines checked, no secret found"
done
exit $fail
