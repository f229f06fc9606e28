// dml_vs_duckdb.mjs — floe's row-level DML (DELETE, UPDATE, TRUNCATE, MERGE)
// against DuckDB: the same table is made in floe (an Iceberg table in a fresh
// warehouse) and in an in-memory DuckDB database, the same seeded-random
// statements run on both, and after every statement the affected-row count
// (floe's psql-style tag) and the whole table must be equal.  Then, for the
// merge-on-read tables, DuckDB reads the position delete files floe wrote
// (their columns, paths and order) and applies them to the data files by
// hand; the result must equal floe's SELECT.
//
// usage: node tests/scripts/dml_vs_duckdb.mjs FLOE_BIN WORKDIR
// env:   FLOE_DML_SEED   fix the seed (printed at the start of every run)
//        FLOE_DML_STEPS  statements per table configuration (default 25)
//        FLOE_DML_ONLY   run only the configurations whose name contains it
//        FLOE_BINARY_DIR the build tree: its slt_runner checks the counts too
//        FLOE_DML_FEATURES=a,b  switch these FEATURES on for this run
//        CI=true         a feature switched ON below that floe refuses fails
//
// It writes WORKDIR/avro_checks.json (the merge-on-read tables' current
// metadata files and live files) for dml_vs_duckdb.sh's python3-avro check.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { DuckDBInstance } from '../peers/duckdb.mjs';

// ---- which parts run ------------------------------------------------------
// Switch a feature OFF here while floe lacks it.  A feature that is ON but
// refused by floe is skipped with a message, except under CI=true, where it
// fails: only what is OFF here may go untested in CI.
const ROWLEVEL = {
  delete: true,          // row-level DELETE ... WHERE (not just whole files)
  deleteUsing: true,     // DELETE ... USING other_table WHERE ...
  subquery: true,        // DELETE / UPDATE ... WHERE ... AND id IN (SELECT ...) / EXISTS (...)
                         // (floe takes IN / EXISTS subqueries only as AND-ed conditions)
  update: true,          // UPDATE ... SET ... WHERE ... (also of the partition columns)
  updateFrom: true,      // UPDATE ... SET ... FROM other_table WHERE ...
  truncate: true,        // TRUNCATE t
  merge: true,           // MERGE INTO t USING ... (WHEN [NOT] MATCHED ...)
};
const FEATURES = {
  tags: false,           // tags in the jsonl output read here: floe prints psql's tags (DELETE 3) in the
                         // table format only, so jsonl stays rows only; the counts go through slt_runner
  v3: true,              // format-version 3 tables (deletion vectors)
  // per write.delete.mode / write.update.mode / write.merge.mode
  'merge-on-read': { ...ROWLEVEL },
  'copy-on-write': { ...ROWLEVEL },
};

const CONFIGS = [
  { name: 'v2-mor-unpartitioned', fv: 2, mode: 'merge-on-read', part: '' },
  { name: 'v2-mor-region', fv: 2, mode: 'merge-on-read', part: 'region' },
  { name: 'v2-mor-bucket', fv: 2, mode: 'merge-on-read', part: 'bucket(4, k)' },
  { name: 'v2-cow-region-bucket', fv: 2, mode: 'copy-on-write', part: 'region, bucket(3, k)' },
  { name: 'v2-cow-unpartitioned', fv: 2, mode: 'copy-on-write', part: '' },
  { name: 'v3-mor-region', fv: 3, mode: 'merge-on-read', part: 'region' },
  { name: 'v3-cow-bucket', fv: 3, mode: 'copy-on-write', part: 'bucket(4, k)' },
];

// FLOE_DML_FEATURES=v3,merge switches features ON for one run (a
// developer's try; a name alone is for both write modes).
for (const f of (process.env.FLOE_DML_FEATURES || '').split(',').filter(Boolean)) {
  if (f === 'tags' || f === 'v3') FEATURES[f] = true;
  else for (const m of ['merge-on-read', 'copy-on-write']) FEATURES[m][f] = true;
}

// ---- set up -----------------------------------------------------------------
const [floe, work] = process.argv.slice(2);
if (!floe || !work) {
  console.error('usage: node dml_vs_duckdb.mjs FLOE_BIN WORKDIR');
  process.exit(2);
}
const CI = process.env.CI === 'true';
const STEPS = Number(process.env.FLOE_DML_STEPS || 25);
const SEED = process.env.FLOE_DML_SEED ? Number(process.env.FLOE_DML_SEED) : Math.floor(Math.random() * 2 ** 31);
const ONLY = process.env.FLOE_DML_ONLY || '';
console.log(`seed ${SEED} (rerun with FLOE_DML_SEED=${SEED})`);
mkdirSync(work, { recursive: true });
const t0 = Date.now();

const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await inst.connect();

const COLS = ['id', 'k', 'v', 's', 'region', 'd'];
const COLDEFS = 'id bigint, k int, v int, s varchar, region varchar, d date';
const AUXDEFS = 'aid bigint, nv int, ns varchar, nregion varchar';
const ORDER = 'ORDER BY id, k, v, s, region, d';

let failures = 0;
// skipped parts: what -> { configurations, why }
const skipped = new Map();
const skip = (what, config, why) => {
  if (!skipped.has(what)) skipped.set(what, { configs: [], why });
  skipped.get(what).configs.push(config);
};
const notes = new Set();
const note = (msg) => { if (!notes.has(msg)) { notes.add(msg); console.log(`note ${msg}`); } };
const fail = (msg) => { failures++; console.log(`FAIL ${msg}`); };

// ---- floe -------------------------------------------------------------------
let runs = 0;
// Runs a script in floe (one process, stopping at the first error); returns
// { ok, out, err }.
function runFloe(wh, sql, name) {
  const file = `${work}/${name}.sql`;
  writeFileSync(file, sql);
  runs++;
  try {
    const out = execFileSync(floe, ['--warehouse', wh, '--format', 'jsonl', '-f', file],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 });
    return { ok: true, out, err: '' };
  } catch (e) {
    return { ok: false, out: String(e.stdout || ''), err: String(e.stderr || e.message).trim() };
  }
}

// The output of a script whose steps begin with `SELECT 'step N' AS __m`:
// per step, its tag lines and its rows (objects).
function splitSteps(out) {
  const steps = new Map();
  let cur = null;
  for (const line of out.split('\n')) {
    if (!line) continue;
    if (line.startsWith('{')) {
      const o = JSON.parse(line);
      if ('__m' in o) { cur = { tags: [], rows: [] }; steps.set(o.__m, cur); continue; }
      if (cur) cur.rows.push(o);
    } else if (cur) cur.tags.push(line.trim());
  }
  return steps;
}

// ---- values -----------------------------------------------------------------
const norm = (v) => (v === null || v === undefined ? '∅' : String(v));
const rowKey = (r) => JSON.stringify(r.map(norm));
const floeRowKey = (o) => rowKey(COLS.map((c) => o[c]));
async function duckRows(sql) {
  return (await con.runAndReadAll(sql)).getRowsJson();
}
async function duckTable(name = 't') {
  return (await duckRows(`SELECT ${COLS.join(', ')} FROM ${name} ${ORDER}`)).map(rowKey).sort();
}

function mulberry32(a) {
  return () => {
    a |= 0; a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---- probes: which statements floe takes ---------------------------------------
const PROBES = {
  delete: 'DELETE FROM p WHERE id = 1',
  deleteUsing: 'DELETE FROM p USING pk WHERE p.id = pk.id',
  subquery: 'DELETE FROM p WHERE id IN (SELECT id FROM pk)',
  update: 'UPDATE p SET v = 7 WHERE id = 2',
  updateFrom: 'UPDATE p SET v = pk.v FROM pk WHERE p.id = pk.id',
  truncate: 'TRUNCATE p',
  merge: 'MERGE INTO p USING pk ON p.id = pk.id WHEN MATCHED THEN UPDATE SET v = pk.v WHEN NOT MATCHED THEN INSERT VALUES (pk.id, 0, pk.v, NULL, NULL, NULL)',
};
const probeWh = `${work}/probe-warehouse`;
// works[fv][mode][feature] = true | error text
const works = {};
function probe(fv, mode) {
  const key = `v${fv} ${mode}`;
  if (works[key]) return works[key];
  const w = (works[key] = {});
  let n = 0;
  for (const [f, stmt] of Object.entries(PROBES)) {
    const sql = `DROP TABLE IF EXISTS p; DROP TABLE IF EXISTS pk;
CREATE TABLE p (${COLDEFS}) PARTITIONED BY (region)
  WITH ('format-version' = '${fv}', 'write.delete.mode' = '${mode}', 'write.update.mode' = '${mode}', 'write.merge.mode' = '${mode}');
CREATE TABLE pk (id bigint, v int);
INSERT INTO p VALUES (1, 1, 1, 'a', 'eu', NULL), (2, 2, 2, 'b', 'eu', NULL), (3, 3, 3, 'c', 'eu', NULL);
INSERT INTO p VALUES (4, 4, 4, 'd', 'us', NULL), (5, 5, 5, 'e', 'us', NULL);
INSERT INTO pk VALUES (2, 20), (6, 60);
SELECT 'step probe' AS __m;
${stmt};
`;
    const r = runFloe(probeWh, sql, `probe-${fv}-${mode}-${n++}`);
    w[f] = r.ok ? true : r.err.split('\n')[0];
    if (f === 'delete' && r.ok) {
      // also: does -c print tags (the DELETE's)?
      const st = splitSteps(r.out).get('step probe');
      w.tags = st && st.tags.length ? true : 'floe prints no statement tags for -c / -f scripts';
    }
  }
  if (!('tags' in w)) {
    const r = runFloe(probeWh, `DROP TABLE IF EXISTS p; CREATE TABLE p (a int); SELECT 'step probe' AS __m; INSERT INTO p VALUES (1);`, `probe-tags`);
    const st = r.ok && splitSteps(r.out).get('step probe');
    w.tags = st && st.tags.length ? true : 'floe prints no statement tags for -c / -f scripts';
  }
  return w;
}

// What runs in configuration `c`: a set of feature names (plus reasons
// for what does not).
function enabled(c) {
  const on = new Set();
  if (c.fv >= 3 && !FEATURES.v3) { skip('v3 (OFF in FEATURES)', c.name, 'the whole configuration'); return null; }
  const w = probe(c.fv, c.mode);
  const wanted = (f) => (f === 'tags' ? FEATURES.tags : FEATURES[c.mode][f]);
  for (const f of [...Object.keys(PROBES), 'tags']) {
    if (w[f] === true) {
      if (wanted(f)) on.add(f);
      else note(`${f} is OFF in FEATURES (${c.mode}) but floe takes it now: switch it on?`);
    } else if (wanted(f)) {
      if (CI) fail(`${c.name}: ${f} is ON in FEATURES but floe refuses it under CI=true: ${w[f]}`);
      else skip(`v${c.fv} ${c.mode}: ${f}`, c.name, w[f]);
    }
  }
  return on;
}

// ---- random statements --------------------------------------------------------
const STRS = ['a', 'b', 'ab', 'abc', 'x_1', 'X', "o'q", 'ü', 'zz'];
const REGIONS = ['eu', 'us', 'apac', null];
const lit = (v) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
const dateLit = (day) => `DATE '${new Date(Date.UTC(2024, 0, 1 + day)).toISOString().slice(0, 10)}'`;

function makeGen(rnd) {
  const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const chance = (p) => rnd() < p;
  let nextId = 1;
  let maxId = 0;
  const row = () => {
    const id = nextId++;
    maxId = id;
    return [id, int(0, 99), chance(0.15) ? null : int(-50, 50), chance(0.15) ? null : pick(STRS),
      pick(REGIONS), chance(0.1) ? null : int(0, 365)];
  };
  const rowSql = (r) => `(${r.slice(0, 5).map(lit).join(', ')}, ${r[5] === null ? 'NULL' : dateLit(r[5])})`;
  const values = (n) => Array.from({ length: n }, () => rowSql(row())).join(',\n  ');
  const anyId = () => int(1, Math.max(1, maxId));

  // one condition on the target, its columns qualified by q ('' / 't.' / 'x.')
  function atom(q) {
    const c = (n) => q + n;
    return pick([
      () => `${c('id')} = ${anyId()}`,
      () => { const a = anyId(); return `${c('id')} BETWEEN ${a} AND ${a + int(0, 80)}`; },
      () => `${c('id')} IN (${Array.from({ length: int(1, 8) }, anyId).join(', ')})`,
      () => `${c('id')} < ${int(1, 120)}`,
      () => `${c('k')} = ${int(0, 110)}`,
      () => `${c('k')} % ${int(5, 13)} = ${int(0, 4)}`,
      () => `${c('k')} > ${int(80, 120)}`,
      () => `${c('v')} IS NULL`,
      () => `${c('v')} IS NOT NULL AND ${c('k')} < ${int(5, 30)}`,
      () => `${c('v')} > ${int(30, 60)}`,
      () => `${c('v')} BETWEEN ${int(-50, 0)} AND ${int(-45, 10)}`,
      () => `${c('v')} IN (${int(-50, 50)}, ${int(-50, 50)}, NULL)`,
      () => `${c('s')} = ${lit(pick(STRS))}`,
      () => `${c('s')} LIKE 'a%'`,
      () => `${c('s')} IN (${lit(pick(STRS))}, ${lit(pick(STRS))})`,
      () => `${c('s')} IS NULL`,
      () => `${c('region')} = ${lit(pick(REGIONS.slice(0, 3)))}`,
      () => `${c('region')} IS NULL`,
      () => `${c('region')} IN ('us', 'apac') AND ${c('k')} < ${int(5, 40)}`,
      () => `${c('d')} < ${dateLit(int(0, 60))}`,
      () => `${c('d')} IS NULL`,
    ])();
  }
  // a subquery condition (AND-ed to the rest: floe takes no other)
  function subAtom(q, alone) {
    const c = (n) => q + n;
    return pick([
      () => `${c('id')} IN (SELECT aid FROM aux WHERE nv < ${int(-45, -20)})`,
      () => `EXISTS (SELECT 1 FROM aux WHERE aux.aid = ${c('id')} AND aux.ns IS NULL)`,
      () => `${c('k')} IN (SELECT nv FROM aux WHERE aux.nregion = 'eu' AND nv > 40)`,
      ...(alone ? [] : [ // most of the table: only with more conditions
        () => `${c('id')} NOT IN (SELECT aid FROM aux)`,
        () => `NOT EXISTS (SELECT 1 FROM aux WHERE aux.aid = ${c('id')})`]),
    ])();
  }
  function pred0(q) {
    switch (int(0, 6)) {
      case 0: return `${atom(q)} AND ${atom(q)}`;
      case 1: return `${atom(q)} OR ${atom(q)}`;
      case 2: return `NOT (${atom(q)})`;
      case 3: return `(${atom(q)} OR ${atom(q)}) AND ${atom(q)}`;
      default: return atom(q);
    }
  }
  function pred(q, sub) {
    if (sub && chance(0.3)) {
      const alone = chance(0.3);
      const s = subAtom(q, alone);
      return alone ? s : `(${narrow(pred0(q), q)}) AND ${s}`;
    }
    return narrow(pred0(q), q);
  }
  // NOT (x) keeps only rows where x is false: with a NULL-able x it is a
  // good test, but its complement is most of the table; narrow it.
  function narrow(p, q) { return (p.startsWith('NOT') ? `${p} AND ${q}id % 10 = ${int(0, 9)}` : p); }

  function sets(q) {
    const opts = {
      v: [`v = v + 1`, `v = NULL`, `v = DEFAULT`, `v = k * 2 - 50`, `v = coalesce(v, -1) - 1`, `v = ${int(-50, 50)}`],
      s: [`s = s || '_u'`, `s = upper(s)`, `s = NULL`, `s = ${lit(pick(STRS))}`, `s = CASE WHEN v IS NULL THEN 'vnull' ELSE s END`],
      region: [`region = ${lit(pick(REGIONS))}`, `region = CASE WHEN k % 2 = 0 THEN 'apac' ELSE region END`, `region = NULL`],
      k: [`k = k + 7`, `k = (k * 3) % 100`],
      d: [`d = ${dateLit(int(0, 365))}`, `d = NULL`],
      id: [`id = id + 500000`],
    };
    if (chance(0.12)) {
      return pick([`(v, s) = (${q}v - 1, 'pair')`, `(region, k) = (${lit(pick(REGIONS))}, ${q}k + 1)`,
        `(s, d) = (${q}region, NULL)`]);
    }
    const cols = Object.keys(opts).filter(() => chance(0.4));
    if (!cols.length) cols.push(pick(['v', 's', 'region', 'k']));
    return cols.map((c) => pick(opts[c]).replace(/\b(v|s|k|region|d|id)\b(?! =)/g, (m) => q + m)).join(', ');
  }

  let insertOffset = 0;
  return {
    int, pick, chance, values, anyId,
    initial: (n) => values(n),
    aux() {
      const rows = [];
      const ids = new Set();
      while (ids.size < 300) ids.add(int(1, 3400));
      for (const id of [...ids].sort((a, b) => a - b))
        rows.push(`(${id}, ${chance(0.1) ? 'NULL' : int(-50, 50)}, ${lit(chance(0.2) ? null : pick(STRS))}, ${lit(pick(REGIONS))})`);
      return rows.join(',\n  ');
    },
    insert() {
      if (chance(0.7)) return `INSERT INTO t VALUES\n  ${values(int(1, 40))}`;
      insertOffset += 1000000;
      return `INSERT INTO t SELECT id + ${insertOffset}, k, v, s, region, d FROM t WHERE ${pred('', false)}`;
    },
    delete(on) {
      const alias = chance(0.3);
      const q = alias ? 'x.' : chance(0.3) ? 't.' : '';
      const p = pred(q, on.has('subquery'));
      return `DELETE FROM t${alias ? ' AS x' : ''} WHERE ${p}`;
    },
    deletePartition(c) {
      if (!/region/.test(c.part) || chance(0.1)) return 'DELETE FROM t';
      return `DELETE FROM t WHERE ${pick([`region = ${lit(pick(REGIONS.slice(0, 3)))}`, 'region IS NULL', "region IN ('eu', 'apac')"])}`;
    },
    deleteUsing(on) {
      const alias = chance(0.3);
      const q = alias ? 'x.' : 't.';
      const p = pick([`a.nv > ${int(20, 45)}`, 'a.ns IS NULL', `a.nregion = ${lit(pick(REGIONS.slice(0, 3)))} AND a.nv < 0`]);
      const more = chance(0.4) ? ` AND (${pred(q, false)})` : '';
      return `DELETE FROM t${alias ? ' AS x' : ''} USING aux a WHERE ${q}id = a.aid AND ${p}${more}`;
    },
    update(on) {
      const alias = chance(0.3);
      const q = alias ? 'x.' : chance(0.3) ? 't.' : '';
      return `UPDATE t${alias ? ' AS x' : ''} SET ${sets(q)} WHERE ${pred(q, on.has('subquery'))}`;
    },
    updateFrom() {
      const alias = chance(0.3);
      const q = alias ? 'x.' : 't.';
      const set = pick([`v = a.nv`, `v = a.nv, s = coalesce(a.ns, ${q}s)`, `region = a.nregion`,
        `s = a.ns, k = ${q}k + 1`, `v = ${q}v + a.nv, region = coalesce(a.nregion, 'eu')`]);
      const p = pick([`a.nv > ${int(0, 40)}`, 'a.ns IS NOT NULL', `${q}k < ${int(10, 60)}`, `a.nregion IS NULL`]);
      return `UPDATE t${alias ? ' AS x' : ''} SET ${set} FROM aux a WHERE ${q}id = a.aid AND ${p}`;
    },
    merge() {
      const src = chance(0.5) ? 'aux' : `(SELECT * FROM aux WHERE nv > ${int(-50, 20)})`;
      const alias = chance(0.3) ? 'x' : 't';
      const clauses = [];
      if (chance(0.6)) clauses.push('WHEN MATCHED AND a.nv IS NULL THEN DELETE');
      if (chance(0.3)) clauses.push(`WHEN MATCHED AND ${alias}.k < ${int(0, 30)} THEN DO NOTHING`);
      clauses.push(pick([
        `WHEN MATCHED AND a.nv < ${int(-40, 0)} THEN UPDATE SET v = a.nv, s = a.ns, region = a.nregion`,
        `WHEN MATCHED THEN UPDATE SET v = coalesce(${alias}.v, 0) + a.nv`,
        `WHEN MATCHED AND a.ns IS NOT NULL THEN UPDATE SET s = a.ns, k = ${alias}.k + 1`]));
      if (chance(0.8)) clauses.push(`WHEN NOT MATCHED${chance(0.5) ? ' BY TARGET' : ''} AND a.nv > ${int(0, 40)} THEN INSERT VALUES (a.aid, 1, a.nv, a.ns, a.nregion, NULL)`);
      if (chance(0.3)) clauses.push(`WHEN NOT MATCHED BY SOURCE AND ${alias}.k = ${int(0, 99)} THEN ${pick(['DELETE', "UPDATE SET s = 'orphan'"])}`);
      return `MERGE INTO t${alias === 'x' ? ' AS x' : ''} USING ${src} a ON ${alias}.id = a.aid\n  ${clauses.join('\n  ')}`;
    },
  };
}

// The statements of one configuration, each with DuckDB's count and table
// after it.
async function plan(c, on, gen) {
  const steps = [];
  const kinds = [['insert', 3]];
  if (on.has('delete')) kinds.push(['delete', 5]);
  else kinds.push(['deletePartition', 1]);
  if (on.has('deleteUsing')) kinds.push(['deleteUsing', 2]);
  if (on.has('update')) kinds.push(['update', 5]);
  if (on.has('updateFrom')) kinds.push(['updateFrom', 2]);
  if (on.has('merge')) kinds.push(['merge', 2]);
  const total = kinds.reduce((a, [, w]) => a + w, 0);
  // TRUNCATE once, early, then three INSERTs fill the table again
  const truncateAt = on.has('truncate') && STEPS >= 12 ? gen.int(Math.floor(STEPS / 4), Math.floor(STEPS / 2)) : -1;
  for (let i = 0; i < STEPS; i++) {
    let kind, sql;
    if (i === truncateAt) { kind = 'truncate'; sql = gen.chance(0.5) ? 'TRUNCATE t' : 'TRUNCATE TABLE t'; }
    else if (truncateAt >= 0 && i > truncateAt && i <= truncateAt + 3) { kind = 'insert'; sql = `INSERT INTO t VALUES\n  ${gen.values(gen.int(400, 700))}`; }
    else if (i === STEPS - 1 && c.mode === 'merge-on-read' && on.has('delete')) {
      // the last: a row-level delete of rows that share files with others,
      // for the delete file checks
      kind = 'delete';
      sql = `DELETE FROM t WHERE id % 17 = ${gen.int(0, 16)} AND k < 50`;
    } else {
      let r = gen.int(1, total);
      kind = kinds.find(([, w]) => (r -= w) <= 0)[0];
      sql = kind === 'deletePartition' ? gen.deletePartition(c) : gen[kind](on);
    }
    let count;
    try {
      const res = await con.run(sql);
      count = Number(res.rowsChanged);
    } catch (e) {
      throw new Error(`DuckDB refused a generated statement (a bug of this test): ${sql}\n${e.message}`);
    }
    steps.push({ kind, sql, count, table: await duckTable() });
  }
  return steps;
}

// The counts, when floe prints no tags: the same statements as a
// sqllogictest file for the build's slt_runner (a session of its own on a
// fresh warehouse), each DML statement as `statement count <DuckDB's>`.
// Returns true when they agree, false after a failure or when there is no
// slt_runner (then noted as skipped; under CI=true a failure).
const SLT = process.env.FLOE_BINARY_DIR ? `${process.env.FLOE_BINARY_DIR}/slt_runner` : '';
function checkCounts(c, setup, steps, report) {
  if (!SLT || !existsSync(SLT)) {
    if (CI) fail(`${c.name}: no statement tags and no slt_runner (FLOE_BINARY_DIR) to check the counts with`);
    else skip('the affected-row counts', c.name, 'floe prints no tags and no slt_runner was found (set FLOE_BINARY_DIR)');
    return true;
  }
  let text = '', line = 1;
  const at = [];
  const add = (head, sql) => {
    at.push(line);
    const rec = `${head}\n${sql}\n\n`;
    text += rec;
    line += rec.split('\n').length - 1;
  };
  for (const s of setup) add('statement ok', s);
  for (const s of steps) add(s.kind === 'truncate' ? 'statement ok' : `statement count ${s.count}`, s.sql);
  const file = `${work}/${c.name}.slt`;
  writeFileSync(file, text);
  runs++;
  let err = '';
  try {
    execFileSync(SLT, [file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
    return true;
  } catch (e) {
    err = String(e.stderr || '') + String(e.stdout || '');
  }
  const m = /FAIL [^\n]*:(\d+): ([^\n]*)/.exec(err);
  if (!m) { fail(`${c.name}: slt_runner failed: ${err.trim()}`); return false; }
  const idx = at.findIndex((l, i) => Number(m[1]) >= l && (i + 1 === at.length || Number(m[1]) < at[i + 1]));
  const step = idx - setup.length + 1;
  report(step, `affected rows (slt_runner, ${file}:${m[1]}): ${m[2]}${step > 0 ? ` (DuckDB changed ${steps[step - 1].count})\n  statement: ${steps[step - 1].sql}` : ''}`);
  return false;
}

function tagOk(kind, sql, tags, count) {
  if (!tags.length) return 'no tag printed';
  const tag = tags[tags.length - 1];
  const word = sql.trim().split(/\s+/)[0].toUpperCase();
  if (word === 'TRUNCATE') return /^TRUNCATE TABLE( \d+)?$/.test(tag) ? null : `tag "${tag}", want "TRUNCATE TABLE"`;
  const want = word === 'INSERT' ? `INSERT 0 ${count}` : `${word} ${count}`;
  return tag === want ? null : `tag "${tag}", want "${want}"`;
}

function diff(got, want) {
  const g = new Map(), w = new Map();
  for (const r of got) g.set(r, (g.get(r) || 0) + 1);
  for (const r of want) w.set(r, (w.get(r) || 0) + 1);
  const lines = [];
  for (const [r, n] of g) if ((w.get(r) || 0) < n) lines.push(`  only in floe:   ${r}${n - (w.get(r) || 0) > 1 ? ` x${n - (w.get(r) || 0)}` : ''}`);
  for (const [r, n] of w) if ((g.get(r) || 0) < n) lines.push(`  only in DuckDB: ${r}${n - (g.get(r) || 0) > 1 ? ` x${n - (g.get(r) || 0)}` : ''}`);
  return lines.length > 30 ? [...lines.slice(0, 30), `  ... ${lines.length - 30} more`].join('\n') : lines.join('\n');
}

// ---- delete files, read by DuckDB ---------------------------------------------
const plainPath = (p) => p.replace(/^file:\/\//, '').replace(/^file:/, '');
function floeFiles(wh, name) {
  const r = runFloe(wh, `SELECT content, file_path, file_format, record_count FROM "t$files";`, `${name}-files`);
  if (!r.ok) throw new Error(`floe could not list "t$files": ${r.err}`);
  return r.out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}
function currentMetadata(wh, name) {
  const r = runFloe(wh, `SELECT file FROM "t$metadata_log_entries";`, `${name}-metadata`);
  if (!r.ok) throw new Error(`floe could not list "t$metadata_log_entries": ${r.err}`);
  const rows = r.out.split('\n').filter((l) => l.startsWith('{'));
  return JSON.parse(rows[rows.length - 1]).file;
}

async function checkDeleteFiles(c, wh, before, floeTable, avroChecks) {
  const files = floeFiles(wh, c.name);
  const data = files.filter((f) => f.content === 0).map((f) => plainPath(f.file_path));
  const dels = files.filter((f) => f.content === 1);
  const eq = files.filter((f) => f.content === 2);
  const what = `${c.name} delete files`;
  if (eq.length) fail(`${what}: floe wrote ${eq.length} equality delete files`);
  if (c.mode === 'copy-on-write') {
    if (dels.length) fail(`${what}: a copy-on-write table has ${dels.length} delete files: ${dels.map((f) => f.file_path).join(', ')}`);
    else console.log(`ok   ${what}: copy-on-write left no delete files (${data.length} data files)`);
    avroChecks.push({ config: c.name, metadata: currentMetadata(wh, c.name), data: files.filter((f) => f.content === 0).map((f) => f.file_path),
      deletes: dels.map((f) => f.file_path) });
    return;
  }
  if (c.fv >= 3) {
    const bad = dels.filter((f) => String(f.file_format).toLowerCase() !== 'puffin');
    if (bad.length) fail(`${what}: a v3 table has position delete files that are no deletion vectors: ${bad.map((f) => f.file_path).join(', ')}`);
    else console.log(`ok   ${what}: ${dels.length} deletion vectors (decoded and applied by dml_vs_duckdb.sh's python3 check)`);
    // python3 decodes the DVs and applies them to the rows of
    // `floe parquet cat`: it must find these rows
    avroChecks.push({ config: c.name, metadata: currentMetadata(wh, c.name), data: files.filter((f) => f.content === 0).map((f) => f.file_path),
      deletes: dels.map((f) => f.file_path), dv: true, cols: COLS, rows: floeTable });
    return;
  }
  const dataSet = new Set(data);
  const added = dels.filter((f) => !before.has(f.file_path));
  if (!added.length) { fail(`${what}: the last row-level DELETE added no position delete file`); return; }
  let ok = true;
  for (const f of dels) {
    const p = plainPath(f.file_path);
    const cols = (await duckRows(`DESCRIBE SELECT * FROM read_parquet('${p}')`)).map((r) => r[0]);
    if (cols[0] !== 'file_path' || cols[1] !== 'pos') {
      fail(`${what}: ${p} has columns ${cols.join(', ')}, want file_path, pos first`); ok = false; continue;
    }
    const rows = await duckRows(`SELECT file_path, pos FROM read_parquet('${p}', file_row_number = true) ORDER BY file_row_number`);
    if (rows.length !== Number(f.record_count)) {
      fail(`${what}: ${p} has ${rows.length} rows, its manifest entry says ${f.record_count}`); ok = false;
    }
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1], rows[i]];
      if (a[0] > b[0] || (a[0] === b[0] && BigInt(a[1]) >= BigInt(b[1]))) {
        fail(`${what}: ${p} is not sorted by (file_path, pos) at row ${i}: (${a}) then (${b})`); ok = false; break;
      }
    }
    const strays = [...new Set(rows.map((r) => plainPath(r[0])))].filter((x) => !dataSet.has(x));
    if (strays.length) {
      // a delete file of an earlier snapshot may name a data file removed
      // since (legal); one the last DELETE wrote may not
      if (added.includes(f)) { fail(`${what}: ${p} (just written) names files that are no data files of the table: ${strays.join(', ')}`); ok = false; }
      else console.log(`note ${what}: ${p} names data files removed since: ${strays.length}`);
    }
  }
  if (!data.length) return;
  const list = (a) => `[${a.map((x) => `'${x}'`).join(', ')}]`;
  const delScan = dels.length ? `read_parquet(${list(dels.map((f) => plainPath(f.file_path)))})` : null;
  const applied = (await duckRows(`SELECT ${COLS.join(', ')} FROM read_parquet(${list(data)}, filename = true, file_row_number = true) d
    ${delScan ? `WHERE NOT EXISTS (SELECT 1 FROM ${delScan} p
                  WHERE replace(replace(p.file_path, 'file://', ''), 'file:', '') = d.filename AND p.pos = d.file_row_number)` : ''}`)).map(rowKey).sort();
  const dd = diff(applied, floeTable);
  if (dd) { fail(`${what}: DuckDB applying floe's position deletes by hand differs from floe's SELECT\n${dd}`); ok = false; }
  if (ok) console.log(`ok   ${what}: ${dels.length} position delete files (${added.length} new) read by DuckDB: sorted, naming data files; applied by hand they give floe's ${floeTable.length} rows`);
  avroChecks.push({ config: c.name, metadata: currentMetadata(wh, c.name), data: files.filter((f) => f.content === 0).map((f) => f.file_path),
    deletes: dels.map((f) => f.file_path) });
}

// ---- one configuration --------------------------------------------------------
async function runConfig(c, ci, avroChecks) {
  const on = enabled(c);
  if (!on) return;
  const wh = `${work}/wh-${c.name}`;
  const gen = makeGen(mulberry32(SEED + ci * 7919));
  const props = `'format-version' = '${c.fv}', 'write.delete.mode' = '${c.mode}', 'write.update.mode' = '${c.mode}', 'write.merge.mode' = '${c.mode}'`;
  const inserts = [1, 2, 3, 4].map(() => `INSERT INTO t VALUES\n  ${gen.initial(gen.int(500, 900))}`);
  const aux = `INSERT INTO aux VALUES\n  ${gen.aux()}`;
  const setup = [
    `CREATE TABLE t (${COLDEFS})${c.part ? ` PARTITIONED BY (${c.part})` : ''} WITH (${props})`,
    `CREATE TABLE aux (${AUXDEFS})`, aux, ...inserts,
  ];
  await con.run('DROP TABLE IF EXISTS t; DROP TABLE IF EXISTS aux');
  await con.run(`CREATE TABLE t (${COLDEFS}); CREATE TABLE aux (${AUXDEFS})`);
  await con.run(aux);
  for (const s of inserts) await con.run(s);
  const start = await duckTable();
  const tStart = Date.now();
  const steps = await plan(c, on, gen);

  // floe: the setup, then each step as: marker, statement, the table;
  // before the last step the live files (which delete files are new)
  const sel = `SELECT ${COLS.join(', ')} FROM t ${ORDER}`;
  let script = setup.map((s) => s + ';\n').join('') + `SELECT 'step 0' AS __m;\n${sel};\n`;
  steps.forEach((s, i) => {
    if (i === steps.length - 1) script += `SELECT 'files' AS __m;\nSELECT content, file_path FROM "t$files";\n`;
    script += `SELECT 'step ${i + 1}' AS __m;\n${s.sql};\n${sel};\n`;
  });
  const tPlan = Date.now();
  const r = runFloe(wh, script, c.name);
  const tFloe = Date.now();
  const out = splitSteps(r.out);
  const last = [...out.keys()].pop();
  const history = () => [...setup.map((s) => (s.length > 300 ? s.slice(0, 300) + ' ...' : s)),
    ...steps.map((s, i) => `-- step ${i + 1} (${s.kind}, DuckDB count ${s.count})\n${s.sql}`)];
  const report = (i, msg) => {
    fail(`${c.name} (seed ${SEED}) step ${i}: ${msg}`);
    console.log(`  floe script: ${work}/${c.name}.sql\n  statements so far:`);
    for (const line of history().slice(0, setup.length + i)) console.log('    ' + line.replace(/\n/g, '\n    '));
  };
  const s0 = out.get('step 0');
  if (!s0 || (!r.ok && last === 'step 0')) { report(0, `floe failed in the setup: ${r.err}`); return; }
  const d0 = diff(s0.rows.map(floeRowKey).sort(), start);
  if (d0) { report(0, `the initial table differs\n${d0}`); return; }
  for (let i = 0; i < steps.length; i++) {
    const name = `step ${i + 1}`;
    const st = out.get(name);
    const step = steps[i];
    if (!st || (!r.ok && last === name)) {
      report(i + 1, `floe failed: ${r.err}\n  statement: ${step.sql}`);
      return;
    }
    if (on.has('tags')) {
      const bad = tagOk(step.kind, step.sql, st.tags, step.count);
      if (bad) { report(i + 1, `affected rows: ${bad} (DuckDB changed ${step.count} rows)\n  statement: ${step.sql}`); return; }
    }
    const got = st.rows.map(floeRowKey).sort();
    const d = diff(got, step.table);
    if (d) { report(i + 1, `the table differs after\n  ${step.sql}\n  floe ${got.length} rows, DuckDB ${step.table.length}\n${d}`); return; }
  }
  if (!r.ok) { report(steps.length, `floe failed: ${r.err}`); return; }
  const counted = on.has('tags') ? ' and counts' : checkCounts(c, setup, steps, report) ? ' and counts (slt_runner)' : null;
  if (counted === null) return;
  const kinds = {};
  for (const s of steps) kinds[s.kind] = (kinds[s.kind] || 0) + 1;
  console.log(`ok   ${c.name}: ${steps.length} statements (${Object.entries(kinds).map(([k, n]) => `${k} ${n}`).join(', ')}) ` +
    `give DuckDB's tables${counted}` +
    ` (DuckDB ${((tPlan - tStart) / 1000).toFixed(1)} s, floe ${((tFloe - tPlan) / 1000).toFixed(1)} s)`);
  if (c.mode === 'merge-on-read' && !on.has('delete')) {
    skip('the delete file checks', c.name, 'no row-level DELETE');
    return;
  }
  const before = new Set(out.get('files').rows.filter((f) => f.content === 1).map((f) => f.file_path));
  await checkDeleteFiles(c, wh, before, steps[steps.length - 1].table, avroChecks);
}

const avroChecks = [];
for (const [i, c] of CONFIGS.entries()) {
  if (ONLY && !c.name.includes(ONLY)) continue;
  try {
    await runConfig(c, i, avroChecks);
  } catch (e) {
    fail(`${c.name}: ${e.message}`);
  }
}
writeFileSync(`${work}/avro_checks.json`, JSON.stringify(avroChecks, null, 1));
for (const [what, { configs, why }] of skipped) console.log(`SKIP ${what} [${configs.join(', ')}]: ${why}`);
console.log(`${failures ? 'FAILED' : 'passed'}: seed ${SEED}, ${runs} floe runs, ${((Date.now() - t0) / 1000).toFixed(1)} s` +
  (skipped.size ? `, ${skipped.size} parts skipped (see SKIP lines)` : ''));
process.exit(failures ? 1 : 0);
