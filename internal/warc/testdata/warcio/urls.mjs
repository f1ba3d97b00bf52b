// Gives, for each URL string in the JSON array on stdin, what Node and
// warcio (the pinned version in package.json) make of it:
//
//   node urls.mjs WARCIO_DIR < urls.json
//
// prints a JSON array of {href, surt}: href is new URL(url).href without
// the fragment (null when the URL does not parse), surt is warcio's
// getSurt(url), the key its CDXIndexer writes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dir] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node urls.mjs WARCIO_DIR < urls.json");
  process.exit(2);
}
const { getSurt } = await import(
  pathToFileURL(join(dir, "node_modules", "warcio", "dist", "index.js")).href
);

function href(url) {
  try {
    const u = new URL(url);
    u.hash = "";
    return u.href;
  } catch {
    return null;
  }
}

const urls = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(urls.map((url) => ({ href: href(url), surt: getSurt(url) }))) + "\n");
