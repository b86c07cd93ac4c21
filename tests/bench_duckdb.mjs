// The DuckDB peer of `make bench` (tests/bench.sh): the same aggregate as
// a dfnav report, through DuckDB's JSON reader on the same trace files,
// reading only the columns the query needs, as an analyst who knows SQL
// would write it. Prints one JSON line: the groups, and the events and
// summed duration over all of them (bench.sh checks these against dfnav's)
// and the seconds the query took inside the process.
//   usage: node bench_duckdb.mjs MODULE_DIR func|file|epoch FILE...
// MODULE_DIR holds node_modules/@duckdb/node-api (npm install --prefix).
import { createRequire } from 'node:module';
import path from 'node:path';

const [moduleDir, by, ...files] = process.argv.slice(2);
if (!moduleDir || !['func', 'file', 'epoch'].includes(by) || files.length === 0) {
    console.error('usage: node bench_duckdb.mjs MODULE_DIR func|file|epoch FILE...');
    process.exit(2);
}
const require = createRequire(path.join(path.resolve(moduleDir), 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const quote = (s) => `'${s.replaceAll("'", "''")}'`;
const list = `[${files.map(quote).join(', ')}]`;
// A trace file opens with a "[" line that is no record: ignore_errors
// skips it (and would skip a damaged line, as dfnav counts them apart).
// The newest era writes ph as a number (1: a call) and names files by the
// hash of an FH record; older eras write "X" and the name in fname.
const scan = (cols) => `read_json(${list}, format = 'newline_delimited', ignore_errors = true,
    columns = {${cols}})`;
const calls = `ph IN ('1', 'X')`;
let sql;
if (by === 'func') {
    sql = `SELECT name AS k, count(*) AS n, sum(dur) AS d FROM ${scan("name: 'VARCHAR', ph: 'VARCHAR', dur: 'UBIGINT'")}
           WHERE ${calls} GROUP BY name`;
} else if (by === 'file') {
    sql = `WITH t AS (SELECT name, ph, dur, args FROM ${scan(
        "name: 'VARCHAR', ph: 'VARCHAR', dur: 'UBIGINT', args: 'STRUCT(fhash UBIGINT, fname VARCHAR, name VARCHAR, value UBIGINT)'")}),
           fh AS (SELECT args.value AS h, any_value(args.name) AS path FROM t WHERE name = 'FH' GROUP BY args.value)
           SELECT coalesce(fh.path, t.args.fname, '') AS k, count(*) AS n, sum(t.dur) AS d
           FROM t LEFT JOIN fh ON t.args.fhash = fh.h WHERE t.ph IN ('1', 'X') GROUP BY 1`;
} else {
    sql = `SELECT coalesce(args.epoch, '') AS k, count(*) AS n, sum(dur) AS d FROM ${scan(
        "ph: 'VARCHAR', dur: 'UBIGINT', args: 'STRUCT(epoch VARCHAR)'")}
           WHERE ${calls} GROUP BY 1`;
}

const t0 = process.hrtime.bigint();
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const reader = await con.runAndReadAll(sql);
const rows = reader.getRows();
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
let events = 0n, dur = 0n;
for (const r of rows) { events += BigInt(r[1]); dur += BigInt(r[2] ?? 0); }
console.log(JSON.stringify({ by, groups: rows.length, events: events.toString(), dur_us: dur.toString(), seconds }));
