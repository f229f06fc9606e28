// rest_iceberg_js.mjs — the JavaScript REST catalog client iceberg-js
// (npm) drives `floe rest-server`: namespaces and tables are created,
// listed, loaded, changed, renamed and dropped, and what comes back is
// checked.  Run by rest_iceberg_js.sh:
//
//   node rest_iceberg_js.mjs BASE_URL none
//   node rest_iceberg_js.mjs BASE_URL oauth CLIENT_ID CLIENT_SECRET [VENDED_KEY_ID]
//
// In oauth mode a token is fetched from POST /v1/oauth/tokens (iceberg-js
// has no OAuth flow of its own; it sends the bearer token), a request
// without it must be refused with 401, and with VENDED_KEY_ID the table
// loads must carry that vended s3.access-key-id and a future expiry.
// Prints one line per check; exits 1 on the first failure.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../peers/package.json'));
const { IcebergRestCatalog, IcebergError } = await import(require.resolve('iceberg-js'));

const [baseUrl, mode, clientId, clientSecret, vendedKeyId] = process.argv.slice(2);
let passed = 0;
function check(cond, what) {
  if (!cond) {
    console.log(`FAIL: ${what}`);
    process.exit(1);
  }
  passed++;
  console.log(`ok ${passed} ${what}`);
}
async function expectError(promise, status, what) {
  try {
    await promise;
  } catch (e) {
    check(e instanceof IcebergError && e.status === status,
          `${what} -> ${status} (got ${e.status} ${e.icebergType ?? ''}: ${e.message})`);
    return e;
  }
  check(false, `${what} -> ${status} (it succeeded)`);
}

let auth = { type: 'none' };
if (mode === 'oauth') {
  const anon = new IcebergRestCatalog({ baseUrl });
  const e = await expectError(anon.listNamespaces(), 401, 'listNamespaces without a token');
  check(e.icebergType === 'NotAuthorizedException', 'the 401 uses the error model');
  const bad = new IcebergRestCatalog({ baseUrl, auth: { type: 'bearer', token: 'not-a-token' } });
  await expectError(bad.listNamespaces(), 401, 'listNamespaces with a made-up token');

  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId,
                                     client_secret: clientSecret, scope: 'catalog' });
  const res = await fetch(new URL('v1/oauth/tokens', baseUrl + '/'), { method: 'POST', body: form });
  const tok = await res.json();
  check(res.status === 200 && typeof tok.access_token === 'string' && tok.token_type === 'bearer' &&
        tok.expires_in > 0, 'client credentials grant a bearer token');
  const wrong = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId,
                                      client_secret: clientSecret + 'x' });
  const res2 = await fetch(new URL('v1/oauth/tokens', baseUrl + '/'), { method: 'POST', body: wrong });
  check(res2.status === 401 && (await res2.json()).error === 'invalid_client', 'a wrong secret is refused');
  auth = { type: 'bearer', token: tok.access_token };
}

const catalog = new IcebergRestCatalog({
  baseUrl, auth, accessDelegation: vendedKeyId ? ['vended-credentials'] : undefined,
});
const ns = { namespace: ['js_ns'] };

// ---- namespaces
await catalog.createNamespace(ns, { properties: { owner: 'iceberg-js' } });
check(true, 'createNamespace');
await expectError(catalog.createNamespace(ns), 409, 'createNamespace again');
const { namespaces } = await catalog.listNamespaces();
check(namespaces.some((n) => n.namespace.length === 1 && n.namespace[0] === 'js_ns'), 'listNamespaces has js_ns');
const meta = await catalog.loadNamespaceMetadata(ns);
check(meta.properties.owner === 'iceberg-js', 'loadNamespaceMetadata returns its properties');
check(await catalog.namespaceExists(ns), 'namespaceExists(js_ns)');
check(!(await catalog.namespaceExists({ namespace: ['no_such_ns'] })), '!namespaceExists(no_such_ns)');
const upd = await catalog.updateNamespaceProperties(ns, { updates: { team: 'floe' }, removals: ['owner', 'absent'] });
check(upd.updated.includes('team') && upd.removed.includes('owner') && upd.missing.includes('absent'),
      'updateNamespaceProperties reports updated, removed and missing');
check((await catalog.loadNamespaceMetadata(ns)).properties.team === 'floe', 'the update is stored');

// ---- tables
const schema = {
  type: 'struct',
  'schema-id': 0,
  fields: [
    { id: 1, name: 'id', type: 'long', required: true },
    { id: 2, name: 'ts', type: 'timestamp', required: false },
    { id: 3, name: 'user', type: 'string', required: false },
    { id: 4, name: 'amount', type: 'decimal(10, 2)', required: false },
  ],
  'identifier-field-ids': [1],
};
const created = await catalog.createTable(ns, {
  name: 'events',
  schema,
  'partition-spec': { 'spec-id': 0, fields: [{ 'source-id': 2, transform: 'day', name: 'ts_day' }] },
  'write-order': { 'order-id': 1, fields: [{ 'source-id': 1, transform: 'identity', direction: 'asc',
                                             'null-order': 'nulls-first' }] },
  properties: { 'write.format.default': 'parquet' },
});
check(created['format-version'] === 2 && typeof created['table-uuid'] === 'string', 'createTable returns v2 metadata');
const cur = created.schemas.find((s) => s['schema-id'] === created['current-schema-id']);
check(cur.fields.map((f) => f.name).join(',') === 'id,ts,user,amount', 'the schema has the four columns');
check(created['partition-specs'][0].fields[0].transform === 'day', 'the partition spec is kept');
check(created.properties['write.format.default'] === 'parquet', 'the table properties are kept');
await expectError(catalog.createTable(ns, { name: 'events', schema }), 409, 'createTable of an existing name');
await expectError(catalog.createTable({ namespace: ['no_such_ns'] }, { name: 'x', schema }), 404,
                  'createTable in a missing namespace');

const { identifiers } = await catalog.listTables(ns);
check(identifiers.length === 1 && identifiers[0].name === 'events', 'listTables has events');
const id = { namespace: ['js_ns'], name: 'events' };
const loaded = await catalog.loadTable(id);
check(loaded['table-uuid'] === created['table-uuid'], 'loadTable returns the same table');
const result = await catalog.loadTableResult(id);
check(/\.metadata\.json$/.test(result['metadata-location']), 'loadTableResult has a metadata-location');
if (vendedKeyId) {
  const cfg = result.config ?? {};
  check(cfg['s3.access-key-id'] === vendedKeyId, 'loadTable vends s3.access-key-id');
  const exp = Number(cfg['s3.session-token-expires-at-ms']);
  check(exp > Date.now() && exp < Date.now() + 2 * 3600 * 1000, 'the vended credentials carry a future expiry');
  const sc = result['storage-credentials'] ?? [];
  check(sc.length === 1 && sc[0].config['s3.access-key-id'] === vendedKeyId, 'storage-credentials has them too');
}
check(await catalog.tableExists(id), 'tableExists(events)');
check(!(await catalog.tableExists({ namespace: ['js_ns'], name: 'nope' })), '!tableExists(nope)');
await expectError(catalog.loadTable({ namespace: ['js_ns'], name: 'nope' }), 404, 'loadTable of a missing table');

const committed = await catalog.updateTable(id, {
  requirements: [{ type: 'assert-table-uuid', uuid: created['table-uuid'] }],
  updates: [{ action: 'set-properties', updates: { 'commit.by': 'iceberg-js' } }],
});
check(committed.metadata.properties['commit.by'] === 'iceberg-js' &&
      committed['metadata-location'] !== result['metadata-location'], 'updateTable commits new metadata');
const e409 = await expectError(catalog.updateTable(id, {
  requirements: [{ type: 'assert-table-uuid', uuid: '00000000-0000-0000-0000-000000000000' }],
  updates: [{ action: 'set-properties', updates: { x: 'y' } }],
}), 409, 'updateTable with a failing requirement');
check(e409.icebergType === 'CommitFailedException', 'the 409 is a CommitFailedException');

await catalog.renameTable({ source: id, destination: { namespace: ['js_ns'], name: 'events2' } });
check(!(await catalog.tableExists(id)) && (await catalog.tableExists({ namespace: ['js_ns'], name: 'events2' })),
      'renameTable moves the name');
await expectError(catalog.dropNamespace(ns), 409, 'dropNamespace of a namespace holding a table');
await catalog.dropTable({ namespace: ['js_ns'], name: 'events2' }, { purge: true });
check((await catalog.listTables(ns)).identifiers.length === 0, 'dropTable empties the namespace');
await expectError(catalog.dropTable({ namespace: ['js_ns'], name: 'events2' }), 404, 'dropTable again');
await catalog.dropNamespace(ns);
check(!(await catalog.namespaceExists(ns)), 'dropNamespace removes it');
await expectError(catalog.loadNamespaceMetadata(ns), 404, 'loadNamespaceMetadata after the drop');

console.log(`${passed} passed, 0 failed`);
