// Reads a CSV file with csv-parse (RFC 4180, strict: every record as
// wide as the header, quotes closed) and prints its records as JSON
// objects keyed by the header row, or the error that stopped it.
// Usage: node read-csv.cjs NODE_MODULES_PARENT FILE
const path = require('path');
const fs = require('fs');
const { parse } = require(path.join(process.argv[2], 'node_modules', 'csv-parse', 'dist', 'cjs', 'sync.cjs'));

try {
  const records = parse(fs.readFileSync(process.argv[3]), { columns: true, bom: true, relax_quotes: false, relax_column_count: false });
  process.stdout.write(JSON.stringify({ records }));
} catch (err) {
  process.stdout.write(JSON.stringify({ records: [], error: String(err.message) }));
}
