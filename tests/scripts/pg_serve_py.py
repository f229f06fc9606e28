"""psycopg2 against `floe serve` (driven by pg_serve.sh): typed Python
values, an error in the middle of a multi-statement query (the session
stays usable), syntax error position, per-session SET, concurrent
sessions inserting into one table, and cancelling a running statement.
usage: pg_serve_py.py PORT"""
import datetime
import decimal
import sys
import threading
import time

import psycopg2

PORT = int(sys.argv[1])


def connect():
    return psycopg2.connect(host="127.0.0.1", port=PORT, user="py", dbname="floe")


def check(got, want, what):
    if got != want:
        print(f"FAIL: {what}: got {got!r}, want {want!r}")
        sys.exit(1)


c = connect()
cur = c.cursor()
cur.execute("SELECT id, name, price, day, ts, ok, big FROM items WHERE id = %s", (1,))
check(cur.fetchall(), [(1, "alpha", decimal.Decimal("10.00"), datetime.date(2024, 1, 2),
                        datetime.datetime(2024, 1, 2, 3, 4, 5, 250000), True, 9000000000)], "typed row")
check([d[1] for d in cur.description], [23, 25, 1700, 1082, 1114, 16, 20], "type OIDs")
cur.execute("SELECT name, price, day FROM items WHERE id = 3")
check(cur.fetchall(), [(None, None, None)], "NULLs are None")
cur.execute("SELECT TIMESTAMPTZ '2024-05-06 07:08:09+00', INTERVAL '1 day 02:00:00', 0.1::double precision")
check(cur.fetchall(), [(datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc),
                        datetime.timedelta(days=1, hours=2), 0.1)], "timestamptz, interval, float8")
c.commit()

# An error mid-batch: the first INSERT is kept (each statement commits),
# the rest is not run, and the session goes on.
try:
    cur.execute("INSERT INTO log VALUES (1); SELECT * FROM no_such_table; INSERT INTO log VALUES (2)")
    print("FAIL: expected an error")
    sys.exit(1)
except psycopg2.Error as e:
    check(e.pgcode, "42P01", "unknown table SQLSTATE")
c.rollback()
cur.execute("SELECT id FROM log ORDER BY id")
check(cur.fetchall(), [(1,)], "statements before the error kept, after it not run")
try:
    cur.execute("SELECT 1; SELEC 2")
except psycopg2.Error as e:
    check(e.pgcode, "42601", "syntax error SQLSTATE")
    check(e.diag.statement_position, "11", "syntax error position")
c.rollback()
try:
    cur.execute("SELECT 1 / 0")
except psycopg2.Error as e:
    check(e.pgcode, "22012", "division by zero SQLSTATE")
c.rollback()
cur.execute("SELECT count(*) FROM items")
check(cur.fetchone()[0], 3, "usable after errors")

# Settings are per session.
c.commit()
c.autocommit = True
cur.execute("SET target_partitions = 3")
other = connect()
other.autocommit = True
ocur = other.cursor()
ocur.execute("SHOW target_partitions")
mine = ocur.fetchone()[0]
cur.execute("SHOW target_partitions")
check(cur.fetchone()[0], "3", "SET in this session")
if mine == "3":
    print("FAIL: SET leaked into another session")
    sys.exit(1)
ocur.execute("SET application_name = 'other'")
ocur.execute("SHOW application_name")
check(ocur.fetchone()[0], "other", "a PostgreSQL setting")
other.close()

# Several sessions insert into one table at once: every commit is kept.
N_THREADS, N_INSERTS = 4, 5
errors = []


def writer(k):
    try:
        w = connect()
        w.autocommit = True
        wc = w.cursor()
        for n in range(N_INSERTS):
            wc.execute("INSERT INTO conc VALUES (%s, %s)", (k, n))
        w.close()
    except Exception as e:  # noqa: BLE001 - reported below
        errors.append(repr(e))


threads = [threading.Thread(target=writer, args=(k,)) for k in range(N_THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
check(errors, [], "concurrent writers")
cur.execute("SELECT count(*), count(DISTINCT k * 100 + n) FROM conc")
check(cur.fetchone(), (N_THREADS * N_INSERTS, N_THREADS * N_INSERTS), "every concurrent INSERT kept")

# CancelRequest interrupts a running statement; the session goes on.
cancel_done = threading.Event()


def cancel_soon():
    # again and again: a cancel that arrives before the statement starts
    # (a slow, loaded machine) is lost, as in PostgreSQL
    while not cancel_done.wait(0.7):
        c.cancel()


canceller = threading.Thread(target=cancel_soon)
canceller.start()
t0 = time.time()
try:
    cur.execute("SELECT count(*) FROM generate_series(1, 20000000000) g(x)")
    print("FAIL: the statement was not cancelled")
    sys.exit(1)
except psycopg2.Error as e:
    check(e.pgcode, "57014", "cancelled SQLSTATE")
cancel_done.set()
canceller.join()
if time.time() - t0 > 60:
    print("FAIL: cancel took too long")
    sys.exit(1)
cur.execute("SELECT 7")
check(cur.fetchone()[0], 7, "usable after cancel")
c.close()

# Malformed input gets an error or a closed connection, never a crash or
# hang: the server keeps serving others.
import random
import socket
import struct


def raw(payload, read=True):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=30)
    try:
        s.sendall(payload)
        s.shutdown(socket.SHUT_WR)  # EOF after the payload: the server must close
    except OSError:
        pass  # it already closed on us
    got = b""
    if read:
        try:
            while True:
                try:
                    chunk = s.recv(65536)
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                got += chunk
        except socket.timeout:
            print("FAIL: the server neither answered nor closed")
            sys.exit(1)
    s.close()
    return got


def startup(user=b"raw"):
    body = struct.pack("!i", 196608) + b"user\0" + user + b"\0\0"
    return struct.pack("!i", len(body) + 4) + body


def msg(kind, body):
    return kind + struct.pack("!i", len(body) + 4) + body


raw(struct.pack("!i", 3))                                   # a startup length below its own size
raw(struct.pack("!i", 1 << 30))                             # absurd startup length
raw(struct.pack("!ii", 8, 0x00020000))                      # protocol 2.0
raw(startup() + b"Q" + struct.pack("!i", 0x7FFFFFF0))       # absurd message length
raw(startup() + msg(b"Q", b"SELECT 1"))                     # no terminating NUL: answered, then EOF
rng = random.Random(7)
for _ in range(30):
    raw(startup() + bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))))
# an extended-protocol error is answered and skipped to Sync
got = raw(startup() + msg(b"B", b"\0nostmt\0\0\0\0\0\0\0") + msg(b"E", b"\0\0\0\0\0") + msg(b"S", b""))
if b"26000" not in got and b"does not exist" not in got:
    print("FAIL: Bind of an unknown statement:", got[-200:])
    sys.exit(1)
if not got.endswith(b"Z\0\0\0\x05I"):
    print("FAIL: no ReadyForQuery after Sync:", got[-40:])
    sys.exit(1)


def messages(data):
    out, i = [], 0
    while i + 5 <= len(data):
        n = struct.unpack("!i", data[i + 1:i + 5])[0]
        out.append((data[i:i + 1], data[i + 5:i + 1 + n]))
        i += 1 + n
    return out


def extended(*msgs):
    got = messages(raw(startup() + b"".join(msgs) + msg(b"X", b"")))
    return [(k, b) for k, b in got if k not in (b"R", b"S", b"K")]


sel = b"SELECT id FROM items WHERE id <= $1 ORDER BY id\0"
bind = msg(b"B", b"\0\0" + struct.pack("!hh", 0, 1) + struct.pack("!i", 1) + b"3" + struct.pack("!h", 0))
# executed whole without Describe: streamed
got = extended(msg(b"P", b"\0" + sel + struct.pack("!h", 0)), bind, msg(b"E", b"\0" + struct.pack("!i", 0)),
               msg(b"S", b""))
check([k for k, _ in got], [b"Z", b"1", b"2", b"D", b"D", b"D", b"C", b"Z"], "Parse/Bind/Execute stream")
check(got[6][1], b"SELECT 3\0", "streamed CommandComplete")
# described, then two rows at a time: PortalSuspended, then the rest
ex2 = msg(b"E", b"\0" + struct.pack("!i", 2))
got = extended(msg(b"P", b"\0" + sel + struct.pack("!hi", 1, 23)), bind, msg(b"D", b"P\0"), ex2, ex2,
               msg(b"S", b""))
check([k for k, _ in got], [b"Z", b"1", b"2", b"T", b"D", b"D", b"s", b"D", b"C", b"Z"], "Execute with max_rows")
# binary parameter (int4) and binary result
bind_bin = msg(b"B", b"\0\0" + struct.pack("!hh", 1, 1) + struct.pack("!h", 1) + struct.pack("!i", 4) +
               struct.pack("!i", 2) + struct.pack("!hh", 1, 1))
got = extended(msg(b"P", b"\0" + sel + struct.pack("!hi", 1, 23)), bind_bin, msg(b"D", b"P\0"),
               msg(b"E", b"\0" + struct.pack("!i", 0)), msg(b"S", b""))
rows = [b for k, b in got if k == b"D"]
check(rows, [struct.pack("!hii", 1, 4, 1), struct.pack("!hii", 1, 4, 2)], "binary int4 rows")
# Describe of a statement: ParameterDescription and the row shape, nothing run
got = extended(msg(b"P", b"st\0" + sel + struct.pack("!h", 0)), msg(b"D", b"Sst\0"), msg(b"S", b""))
check([k for k, _ in got], [b"Z", b"1", b"t", b"T", b"Z"], "Describe statement")
check(got[2][1], struct.pack("!hi", 1, 25), "ParameterDescription")

c = connect()
cur = c.cursor()
cur.execute("SELECT 8")
check(cur.fetchone()[0], 8, "usable after malformed clients")
c.close()
print("ok: psycopg2: typed values, errors, settings, concurrent sessions, cancel")
