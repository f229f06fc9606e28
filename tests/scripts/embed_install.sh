#!/usr/bin/env bash
# embed_install.sh — floe as a C library, as an embedding program meets it:
# `cmake --install` into a fresh prefix, examples/query_iceberg.c built with
# nothing but `pkg-config --cflags --libs floe`, run against the installed
# libfloe.so (it writes and reads an Iceberg table), its rows checked; the
# soname carries the version; floe.h compiles as C++; libfloe.so exports floe_query but not the
# engine's internals; the installed libfloe.a links the same program.
# Sanitizer builds skip (77): a plain `cc` program cannot load them.
set -euo pipefail
SRC=${FLOE_SOURCE_DIR:?FLOE_SOURCE_DIR not set}
BIN=${FLOE_BINARY_DIR:?FLOE_BINARY_DIR not set}
if grep -Eq '^FLOE_(SANITIZE|TSAN):BOOL=ON' "$BIN/CMakeCache.txt"; then
    echo "SKIP: sanitizer build (libfloe.so needs the sanitizer runtime loaded first)"; exit 77
fi
command -v pkg-config >/dev/null || { echo "FAIL: pkg-config is not installed (scripts/install-deps.sh)"; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/embed_install.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

PREFIX="$TMP/prefix"
cmake --install "$BIN" --prefix "$PREFIX" >"$TMP/install.log" || { cat "$TMP/install.log"; fail "cmake --install"; }
PC_DIR=$(dirname "$(find "$PREFIX" -name floe.pc | head -1)")
[ -f "$PC_DIR/floe.pc" ] || fail "no floe.pc under $PREFIX"
LIBDIR=$(PKG_CONFIG_PATH="$PC_DIR" pkg-config --variable=libdir floe)
LIBDIR=$(cd "$LIBDIR" && pwd -P) || fail "floe.pc's libdir does not exist"
for f in libfloe.so libfloe.a; do [ -e "$LIBDIR/$f" ] || fail "$f not installed in $LIBDIR"; done
[ -f "$PREFIX/include/floe/floe.h" ] || fail "floe/floe.h not installed"
[ "$(PKG_CONFIG_PATH="$PC_DIR" pkg-config --modversion floe)" = "$(sed -n 's/.*FLOE_VERSION_STRING "\(.*\)"/\1/p' "$SRC/include/floe/version.h")" ] \
    || fail "floe.pc version differs from include/floe/version.h"
soname=$(readelf -d "$LIBDIR/libfloe.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = "libfloe.so.0.1" ] || fail "soname is '$soname'"

# Exported: the API; hidden: the engine.
syms=$(nm -D --defined-only "$LIBDIR/libfloe.so")
# (Here-strings, not pipes into `grep -q`: under pipefail a producer still
# writing when grep has matched and exited dies of SIGPIPE and fails the check.)
grep -qE ' T floe_query(@|$)' <<<"$syms" || fail "floe_query is not exported"
grep -qE ' T floe_status_message(@|$)' <<<"$syms" || fail "floe_status_message is not exported"
for internal in floe_session_execute floe_malloc floe_parquet_reader_open floe_sql_params_substitute; do
    ! grep -qE " $internal(@|\$)" <<<"$syms" || fail "internal symbol $internal is exported"
done
n_exported=$(echo "$syms" | grep -c ' T ')
[ "$n_exported" -lt 40 ] || fail "$n_exported symbols exported"

# The example, with only pkg-config's flags.
cd "$TMP"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "$SRC/examples/query_iceberg.c" $(PKG_CONFIG_PATH="$PC_DIR" pkg-config --cflags --libs floe) \
    -o query_iceberg || fail "the example does not build against the installed library"
expected='floe 0.1.0
INSERT 0 4
id | name | country
1 | Lisbon | PT
2 | Porto | PT
3 | Oslo | NO
4 | NULL | NO
n
2
error: not found'
out=$(LD_LIBRARY_PATH="$LIBDIR" ./query_iceberg "$TMP/wh") || fail "the example failed: $out"
[ "$out" = "$expected" ] || fail "the example printed:
$out
expected:
$expected"
# Run again on the same warehouse: the table is there, its rows replaced.
out=$(LD_LIBRARY_PATH="$LIBDIR" ./query_iceberg "$TMP/wh") || fail "the second run failed: $out"
[ "$out" = "$expected" ] || fail "the second run printed:
$out"
# The table is an Iceberg table: metadata and Parquet data files.
[ -n "$(find "$TMP/wh" -name '*.metadata.json')" ] || fail "no Iceberg metadata written"
[ -n "$(find "$TMP/wh" -name '*.parquet')" ] || fail "no Parquet data files written"
# ld.so prints ldd's lines one write at a time: take them all, then look.
deps=$(LD_LIBRARY_PATH="$LIBDIR" ldd ./query_iceberg)
grep -qF "$LIBDIR/libfloe.so.0.1" <<<"$deps" || fail "the example does not use the installed libfloe.so:
$deps"

# floe.h is also C++: a C++ program includes and links it.
if command -v c++ >/dev/null; then
    printf '#include <floe/floe.h>\n#include <cstdio>\nint main() { std::printf("%%s\\n", floe_library_version()); }\n' > version.cc
    # shellcheck disable=SC2046
    c++ -Wall -Werror version.cc $(PKG_CONFIG_PATH="$PC_DIR" pkg-config --cflags --libs floe) -o version_cc \
        || fail "floe/floe.h does not compile as C++"
    [ "$(LD_LIBRARY_PATH="$LIBDIR" ./version_cc)" = "0.1.0" ] || fail "the C++ program printed the wrong version"
fi

# The static archive links the same program, with the libraries floe.pc
# lists as private (shared versions of them: `pkg-config --static` would
# ask for static archives of libcurl's own dependencies).
requires=$(PKG_CONFIG_PATH="$PC_DIR" pkg-config --print-requires-private floe | awk '{print $1}')
private=$(sed -n 's/^Libs.private: //p' "$PC_DIR/floe.pc")
# shellcheck disable=SC2046,SC2086
cc -std=c11 "$SRC/examples/query_iceberg.c" -I"$PREFIX/include" "$LIBDIR/libfloe.a" \
    $(pkg-config --libs $requires) $private -o query_iceberg_static || fail "the example does not link against libfloe.a"
out=$(./query_iceberg_static "$TMP/wh2") || fail "the static example failed: $out"
[ "$out" = "$expected" ] || fail "the static example printed:
$out"
echo "ok: installed into $PREFIX; the example printed the rows through libfloe.so and libfloe.a"
