#!/usr/bin/env bash
# install-deps.sh — install what floe needs to build and test, when missing.
#
# Idempotent: checks each Debian package with dpkg and installs only the
# missing ones (apt-get, no prompts; runs as root or through sudo), then
# installs the npm test peers (DuckDB, s3rver, pg) from tests/peers/package-lock.json
# with `npm ci` when they are not installed at the locked versions.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  # build
  build-essential cmake pkg-config clang libclang-rt-14-dev
  # libraries floe links
  libjansson-dev libcurl4-openssl-dev libssl-dev libzstd-dev libsnappy-dev
  zlib1g-dev liblz4-dev libbrotli-dev libsqlite3-dev libpg-query-dev libedit-dev
  libmicrohttpd-dev libpcre2-dev
  libopenmpi-dev openmpi-bin
  # tests
  libcmocka-dev python3 python3-avro sqlite3 curl
  mpich libmpich-dev # tests/scripts/mpich_vs_local.sh; Open MPI stays the default
  postgresql-15 python3-psycopg2 # tests/scripts/slt_vs_postgres.sh (slt files vs PostgreSQL 15)
  iproute2 # ip netns: the simulated hosts of tests/scripts/mpi_netns.sh (netns_rig.bash)
  postgresql-client openssl # psql and a test certificate for tests/scripts/pg_serve.sh (floe serve)
  python3-sqlalchemy python3-pandas # tests/scripts/pg_serve_sqlalchemy.sh (clients of floe serve)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all Debian packages present"
fi

# npm test peers, pinned by the committed lock file.
peers="$here/tests/peers"
stamp="$peers/node_modules/.floe-lock-stamp"
if [ ! -f "$stamp" ] || ! cmp -s "$peers/package-lock.json" "$stamp"; then
  echo "install-deps: npm ci in tests/peers (@duckdb/node-api, s3rver, iceberg-js, pg)"
  (cd "$peers" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$peers/package-lock.json" "$stamp"
else
  echo "install-deps: npm test peers present"
fi
