"""SQLAlchemy (psycopg2 dialect) and pandas against `floe serve`, each step
run the same way against a throwaway PostgreSQL 15 and the answers compared:
reflection (schemas, tables, columns with types and nullability, has_table,
Table(autoload_with=...)), Core INSERT with parameters and SELECT, pandas
read_sql / read_sql_table / to_sql (create, append, replace).

usage: pg_serve_sqlalchemy.py FLOE_URL POSTGRES_URL
"""
import sys

import pandas as pd
import sqlalchemy as sa

floe_url, pg_url = sys.argv[1], sys.argv[2]
DDL = [
    "CREATE SCHEMA sales",
    "CREATE TABLE sales.orders (id bigint NOT NULL, region text, amount decimal(10, 2), day date, "
    "at timestamp, ok boolean, score double precision, qty integer)",
]
ROWS = [
    {"id": 1, "region": "eu", "amount": "10.50", "day": "2024-01-02", "at": "2024-01-02 03:04:05.25", "ok": True,
     "score": 1.5, "qty": 3},
    {"id": 2, "region": None, "amount": None, "day": None, "at": None, "ok": None, "score": None, "qty": None},
    {"id": 3, "region": "us", "amount": "-7.25", "day": "1999-12-31", "at": "1999-12-31 23:59:59", "ok": False,
     "score": -0.125, "qty": -1},
]


def run(url):
    """Everything a client does, its observations as plain values."""
    eng = sa.create_engine(url)
    seen = {}
    with eng.begin() as c:
        for stmt in DDL:
            c.execute(sa.text(stmt))
    insp = sa.inspect(eng)
    seen["has sales"] = "sales" in insp.get_schema_names()
    seen["tables"] = insp.get_table_names(schema="sales")
    seen["columns"] = [(col["name"], str(col["type"]), col["nullable"]) for col in insp.get_columns("orders", schema="sales")]
    seen["has_table"] = (insp.has_table("orders", schema="sales"), insp.has_table("nope", schema="sales"))
    seen["pk"] = insp.get_pk_constraint("orders", schema="sales")["constrained_columns"]
    seen["indexes"] = insp.get_indexes("orders", schema="sales")
    t = sa.Table("orders", sa.MetaData(), schema="sales", autoload_with=eng)
    seen["reflected"] = [(col.name, str(col.type)) for col in t.columns]
    with eng.begin() as c:
        c.execute(t.insert(), ROWS)  # Core INSERT with bound parameters
    with eng.connect() as c:
        seen["rows"] = [tuple(r) for r in c.execute(sa.select(t).order_by(t.c.id))]
        seen["filtered"] = [tuple(r) for r in c.execute(
            sa.select(t.c.id, t.c.amount).where(t.c.region == sa.bindparam("r")).order_by(t.c.id), {"r": "us"})]
        seen["agg"] = [tuple(r) for r in c.execute(
            sa.select(sa.func.count(), sa.func.sum(t.c.amount), sa.func.max(t.c.day)).select_from(t))]
    frame = pd.read_sql("SELECT id, region, amount, day, score FROM sales.orders ORDER BY id", eng)
    seen["read_sql"] = (list(frame.columns), [str(d) for d in frame.dtypes], frame.astype(str).values.tolist())
    whole = pd.read_sql_table("orders", eng, schema="sales")
    seen["read_sql_table"] = (list(whole.columns), len(whole), sorted(whole["id"].tolist()))
    df = pd.DataFrame({"k": [1, 2, 3], "name": ["a", None, "c"], "x": [1.5, 2.5, None],
                       "ts": pd.to_datetime(["2024-01-01 10:00", "2024-01-02", None])})
    df.to_sql("frame", eng, schema="sales", index=False)
    back = pd.read_sql("SELECT * FROM sales.frame ORDER BY k", eng)
    seen["to_sql"] = ([str(d) for d in back.dtypes], back.astype(str).values.tolist())
    df.to_sql("frame", eng, schema="sales", index=False, if_exists="append")
    seen["append"] = pd.read_sql("SELECT count(*) AS n FROM sales.frame", eng)["n"].tolist()
    df.head(1).to_sql("frame", eng, schema="sales", index=False, if_exists="replace")
    seen["replace"] = pd.read_sql("SELECT count(*) AS n FROM sales.frame", eng)["n"].tolist()
    seen["frame columns"] = [(col["name"], str(col["type"])) for col in sa.inspect(eng).get_columns("frame", schema="sales")]
    eng.dispose()
    return seen


floe, pg = run(floe_url), run(pg_url)
bad = [k for k in pg if floe.get(k) != pg[k]]
for k in bad:
    print(f"FAIL: {k}:\n  floe:       {floe.get(k)!r}\n  PostgreSQL: {pg[k]!r}")
# The answers must also be the right ones, not only equal.
assert pg["columns"][0] == ("id", "BIGINT", False) and pg["columns"][2] == ("amount", "NUMERIC(10, 2)", True), pg
assert len(pg["rows"]) == 3 and pg["append"] == [6] and pg["replace"] == [1], pg
if bad:
    sys.exit(1)
print(f"ok: SQLAlchemy {sa.__version__} and pandas {pd.__version__} see the same through floe serve as "
      f"through PostgreSQL ({len(pg)} observations)")
