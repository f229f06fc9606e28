// duckdb.mjs — the DuckDB peer for scripts outside tests/peers (bench/,
// tests/scripts/): ESM resolves packages next to the importing file, so they
// import DuckDB through this module, which lives beside node_modules.
export * from '@duckdb/node-api';
