#!/usr/bin/env bash
# source_rules.sh — rules of the code's shape that a reviewer would
# otherwise have to remember (docs/ARCHITECTURE.md, "Conventions"):
#   1. no code compares plan node type names: what tools need to know of
#      a node is a slot of its vtable (child reads, progress, estimates,
#      paths, flags); only the codec's registry looks types up by name;
#   2. no source file is over 1,600 lines;
#   3. the big rooms are grouped: src/exec and src/iceberg keep their
#      files in sub-folders by family (a handful of core files at the top).
set -euo pipefail
src_dir="${FLOE_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
cd "$src_dir"
fail=0

# 1. Node type names, from the vtables themselves.
names=$(grep -rhoE '\.name = "[A-Za-z]+"' src | sed -E 's/.*"([A-Za-z]+)"/\1/' | sort -u)
[ "$(echo "$names" | wc -w)" -ge 15 ] || { echo "FAIL: found only $(echo "$names" | wc -w) node types"; exit 1; }
alt=$(echo "$names" | paste -sd'|')
hits=$(grep -rnE "(strcmp|strcasecmp|strncmp)[[:space:]]*\([^;]*(floe_plan_type_name|vt->name|\"($alt)\")" src include \
       | grep -v '^src/exec/plan.c:.*registered\[\|^src/exec/plan.c:.*floe_exec_node_types' || true)
# The codec registry (floe_plan_lookup / lookup_builtin) compares a name
# it was given with registered vtables' names: that is the one allowed use.
hits=$(echo "$hits" | grep -v '^$' | grep -vE 'src/exec/plan\.c:[0-9]+:\s+if \(strcmp\((floe_exec_node_types|registered)\[i\]->name, name\)' || true)
if [ -n "$hits" ]; then
    echo "FAIL: node type names compared outside the codec registry:"
    echo "$hits"
    fail=1
else
    echo "ok: no code compares plan node type names ($(echo "$names" | wc -w) node types known)"
fi

# 2. File sizes.
big=$(find src include -name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 1600 {print $2 " (" $1 " lines)"}')
if [ -n "$big" ]; then
    echo "FAIL: source files over 1,600 lines:"
    echo "$big"
    fail=1
else
    echo "ok: every source file is at most 1,600 lines (largest: $(find src include -name '*.[ch]' -exec wc -l {} + | grep -v ' total$' | sort -n | tail -1 | awk '{print $2, $1}'))"
fi

# 3. Grouped rooms.
for room in src/exec src/iceberg; do
    top=$(find "$room" -maxdepth 1 -name '*.c' | wc -l)
    sub=$(find "$room" -mindepth 2 -name '*.c' | wc -l)
    dirs=$(find "$room" -mindepth 1 -maxdepth 1 -type d | wc -l)
    if [ "$top" -gt 12 ] || [ "$dirs" -lt 3 ] || [ "$sub" -le "$top" ]; then
        echo "FAIL: $room has $top files at the top and $sub in $dirs sub-folders"
        fail=1
    else
        echo "ok: $room: $dirs sub-folders hold $sub files, $top at the top"
    fi
done
exit $fail
