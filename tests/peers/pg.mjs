// pg.mjs — node-postgres (npm `pg`) for scripts outside tests/peers (see
// duckdb.mjs: ESM resolves packages next to the importing file).
export { default } from 'pg';
