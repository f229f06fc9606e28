"""rest_server_protocol_fuzz.py — bad request bodies never break `floe rest-server`.

Run by rest_server_protocol.sh:  python3 rest_server_protocol_fuzz.py BASE_URL SEED COUNT

Valid CreateTable, CommitTable, RenameTable, RegisterTable, CreateNamespace and
UpdateNamespaceProperties requests are mutated at random (members removed,
values replaced by nulls, numbers out of range, huge or empty strings, control
characters, wrong types) and sent.  Every answer must be 2xx or carry the
Iceberg error model with its own status; none may be 5xx; the server must still
answer afterwards.  Prints "N passed, M failed" and exits 1 on any failure.
"""
import copy
import json
import random
import sys
import urllib.error
import urllib.request

base, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)


def req(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    r = urllib.request.Request(base + path, data=data, method=method)
    try:
        with urllib.request.urlopen(r, timeout=60) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
    {"id": 1, "name": "id", "type": "long", "required": True},
    {"id": 2, "name": "s", "type": "string", "required": False},
    {"id": 3, "name": "l", "type": {"type": "list", "element-id": 4, "element": "int",
                                    "element-required": False}, "required": False}]}

req("POST", "/v1/namespaces", {"namespace": ["fuzz"]})
status, body = req("POST", "/v1/namespaces/fuzz/tables", {"name": "base", "schema": SCHEMA})
if status != 200:
    status, body = req("GET", "/v1/namespaces/fuzz/tables/base")
uuid = json.loads(body)["metadata"]["table-uuid"]
snapshot = {"snapshot-id": 5, "timestamp-ms": 1, "manifest-list": "/nonexistent/snap.avro",
            "summary": {"operation": "append"}, "schema-id": 0, "sequence-number": 1}

REQUESTS = {
    "create": ("/v1/namespaces/fuzz/tables", {
        "name": "t", "schema": SCHEMA, "location": None, "stage-create": False, "properties": {"a": "b"},
        "partition-spec": {"spec-id": 0, "fields": [{"source-id": 1, "transform": "bucket[8]", "name": "b",
                                                     "field-id": 1000}]},
        "write-order": {"order-id": 1, "fields": [{"source-id": 2, "transform": "identity", "direction": "asc",
                                                   "null-order": "nulls-first"}]}}),
    "commit": ("/v1/namespaces/fuzz/tables/base", {
        "identifier": {"namespace": ["fuzz"], "name": "base"},
        "requirements": [{"type": "assert-table-uuid", "uuid": uuid},
                         {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": None},
                         {"type": "assert-current-schema-id", "current-schema-id": 0}],
        "updates": [{"action": "add-snapshot", "snapshot": snapshot},
                    {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch", "snapshot-id": 5},
                    {"action": "add-schema", "schema": SCHEMA, "last-column-id": 4},
                    {"action": "set-properties", "updates": {"x": "y"}},
                    {"action": "remove-properties", "removals": ["x"]},
                    {"action": "add-spec", "spec": {"fields": []}}]}),
    "rename": ("/v1/tables/rename", {"source": {"namespace": ["fuzz"], "name": "base"},
                                     "destination": {"namespace": ["fuzz"], "name": "base"}}),
    "register": ("/v1/namespaces/fuzz/register", {"name": "r", "overwrite": False,
                                                  "metadata-location": "/nonexistent/v1.metadata.json"}),
    "ns-properties": ("/v1/namespaces/fuzz/properties", {"updates": {"a": "1"}, "removals": ["b"]}),
    "ns-create": ("/v1/namespaces", {"namespace": ["fuzz2"], "properties": {"a": "b"}}),
}
ODD = [None, 0, -1, 2 ** 63, -2 ** 63 - 1, 1.5, "", "x" * 300, [], {}, [None], {"a": None}, True,
       "\u0000", "..", "a/b", "\u001f", "\u00e9"]


def mutate(o):
    if isinstance(o, dict):
        o = dict(o)
        if o and rng.random() < 0.3:
            del o[rng.choice(list(o))]
        for k in list(o):
            o[k] = rng.choice(ODD) if rng.random() < 0.15 else mutate(o[k])
        return o
    if isinstance(o, list):
        o = [mutate(x) for x in o if rng.random() > 0.1]
        if rng.random() < 0.1:
            o.append(rng.choice(ODD))
        return o
    return rng.choice(ODD) if rng.random() < 0.1 else o


passed = failed = 0
for _ in range(count):
    name = rng.choice(sorted(REQUESTS))
    path, template = REQUESTS[name]
    status, body = req("POST", path, mutate(copy.deepcopy(template)))
    ok = status < 500
    if ok and status >= 300:
        try:
            err = json.loads(body)["error"]
            ok = err["code"] == status and isinstance(err["type"], str) and isinstance(err["message"], str)
        except (ValueError, KeyError, TypeError):
            ok = False
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {name}: HTTP {status}: {body[:300]!r}")
    # Undo what succeeded so the next request starts from the same state.
    if name == "create" and status == 200:
        req("DELETE", "/v1/namespaces/fuzz/tables/t?purgeRequested=true")
    if name == "ns-create" and status == 200:
        req("DELETE", "/v1/namespaces/fuzz2")
    if name == "register" and status == 200:
        req("DELETE", "/v1/namespaces/fuzz/tables/r")
alive = req("GET", "/v1/config")[0] == 200
if not alive:
    failed += 1
    print("FAIL: the server does not answer GET /v1/config after the fuzz")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
