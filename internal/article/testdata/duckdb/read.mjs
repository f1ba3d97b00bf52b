// Reads articles' Parquet files with DuckDB (@duckdb/node-api, the
// version package.json pins) for TestDuckDBReadsArticles:
//
//   node read.mjs DUCKDB_DIR PATH [hive]
//
// DUCKDB_DIR holds node_modules/@duckdb/node-api. PATH is a file or a
// glob; with "hive" it is read as docs/articles.md says to read the
// partitioned files: hive_partitioning=true, with the partition columns'
// types given (hive_types), not guessed from the paths. It prints one
// JSON document on stdout: "columns", DESCRIBE's name and type of each
// column, and "rows", SELECT * FROM read_parquet(PATH) ORDER BY id, each
// row an object by column name. Values become JSON as follows: integers
// numbers (strings beyond 2^53), DATE "YYYY-MM-DD", TIMESTAMP WITH TIME
// ZONE the instant in RFC 3339 UTC with microseconds
// ("2024-05-01T10:00:00.123456Z"), lists arrays, maps objects, NULL null.
// Errors go to stderr with exit status 1.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, path, mode] = process.argv.slice(2);
if (!dir || !path || (mode !== undefined && mode !== "hive")) {
  console.error("usage: node read.mjs DUCKDB_DIR PATH [hive]");
  process.exit(2);
}
const duckdb = await import(
  pathToFileURL(join(dir, "node_modules", "@duckdb", "node-api", "lib", "index.js")).href
);

function micros(us) {
  // us: BigInt microseconds since the epoch, as RFC 3339 UTC.
  const ms = us / 1000n - (us % 1000n < 0n ? 1n : 0n);
  const sub = us - ms * 1000n;
  const iso = new Date(Number(ms)).toISOString(); // …T10:00:00.123Z
  return iso.slice(0, -1) + String(sub).padStart(3, "0") + "Z";
}

function toJSON(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(v)
      : String(v);
  }
  if (typeof v !== "object") return v;
  if (v instanceof duckdb.DuckDBTimestampTZValue || v instanceof duckdb.DuckDBTimestampValue) {
    return micros(v.micros);
  }
  if (v instanceof duckdb.DuckDBDateValue) return v.toString();
  if (v instanceof duckdb.DuckDBListValue) return v.items.map(toJSON);
  if (v instanceof duckdb.DuckDBMapValue) {
    const o = {};
    for (const { key, value } of v.entries) o[String(toJSON(key))] = toJSON(value);
    return o;
  }
  throw new Error(`no JSON form for ${v.constructor?.name}: ${v}`);
}

try {
  const instance = await duckdb.DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  const quoted = "'" + path.replaceAll("'", "''") + "'";
  const hive =
    ", hive_partitioning = true, hive_types = {'country': VARCHAR, 'category': VARCHAR, 'date': DATE}";
  const source = `read_parquet(${quoted}${mode === "hive" ? hive : ""})`;
  const describe = await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`);
  const columns = describe
    .getRowObjects()
    .map((r) => ({ name: r.column_name, type: r.column_type }));
  const result = await conn.runAndReadAll(`SELECT * FROM ${source} ORDER BY id`);
  const rows = result.getRowObjects().map((r) => {
    const o = {};
    for (const [k, v] of Object.entries(r)) o[k] = toJSON(v);
    return o;
  });
  process.stdout.write(JSON.stringify({ columns, rows }) + "\n");
} catch (e) {
  console.error(String(e?.stack ?? e));
  process.exit(1);
}
