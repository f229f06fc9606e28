// node-postgres against `floe serve` (driven by pg_serve.sh): the extended
// query protocol with parameters, a named prepared statement run twice,
// an error that leaves the connection usable, typed values, and SCRAM:
// the right password logs in, a wrong one is refused with 28P01.
// usage: node pg_serve_node.mjs TRUST_PORT AUTH_PORT USER PASSWORD
import pg from '../peers/pg.mjs';
import assert from 'node:assert/strict';

const [trustPort, authPort, user, password] = process.argv.slice(2);
const c = new pg.Client({ host: '127.0.0.1', port: +trustPort, user: 'node', database: 'floe' });
await c.connect();

let r = await c.query('SELECT id, name, price FROM items WHERE id = $1', [2]);
assert.deepEqual(r.rows, [{ id: 2, name: 'beta', price: '20.50' }]);
assert.equal(r.command, 'SELECT');
assert.equal(r.rowCount, 1);

// a named statement: parsed once, bound and run twice
const ins = 'INSERT INTO items (id, name, price) VALUES ($1, $2, $3)';
r = await c.query({ name: 'ins', text: ins, values: [10, "o'neil", '1.25'] });
assert.equal(r.command, 'INSERT');
assert.equal(r.rowCount, 1);
r = await c.query({ name: 'ins', text: ins, values: [11, null, null] });
assert.equal(r.rowCount, 1);
r = await c.query({ name: 'sel', text: 'SELECT id, name, price FROM items WHERE id >= $1 ORDER BY id', values: [10] });
assert.deepEqual(r.rows, [{ id: 10, name: "o'neil", price: '1.25' }, { id: 11, name: null, price: null }]);

// typed results: int8 and numeric stay strings in pg (as from PostgreSQL), bool, date
r = await c.query("SELECT count(*) AS n, true AS t, DATE '2024-02-29' AS d, 1.5::double precision AS f FROM items");
assert.equal(r.rows[0].n, '5');
assert.equal(r.rows[0].t, true);
assert.equal(r.rows[0].f, 1.5);
assert.equal(r.rows[0].d.getFullYear(), 2024);
assert.deepEqual(r.fields.map((f) => f.dataTypeID), [20, 16, 1082, 701]);

// an error inside the extended protocol, then the connection goes on
await assert.rejects(c.query('SELECT * FROM no_such_table WHERE x = $1', [1]), (e) => e.code === '42P01');
await assert.rejects(c.query('SELECT nope FROM items WHERE id = $1', [1]), (e) => e.code === '42703');
r = await c.query('SELECT $1::int + $2::int AS s', [40, 2]);
assert.equal(r.rows[0].s, 42);
await c.end();

// SCRAM-SHA-256
const good = new pg.Client({ host: '127.0.0.1', port: +authPort, user, password, database: 'floe' });
await good.connect();
r = await good.query('SELECT count(*)::int AS n FROM items');
assert.equal(r.rows[0].n, 5);
await good.end();
const bad = new pg.Client({ host: '127.0.0.1', port: +authPort, user, password: password + 'x', database: 'floe' });
await assert.rejects(bad.connect(), (e) => e.code === '28P01');
console.log('ok: node-postgres: parameters, named statements, errors, SCRAM');
