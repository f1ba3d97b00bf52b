// Reads a .warc.gz with Webrecorder's warcio (the pinned version in
// package.json) and checks it independently of the Go package:
//
//   node verify.mjs WARCIO_DIR FILE FILENAME
//
// WARCIO_DIR holds node_modules/warcio. For every record it prints, as one
// JSON document on stdout: the WARC-Type, target URI, record id,
// WARC-Concurrent-To, the offset and length warcio found, the HTTP status
// and whether the block and payload digests match what node:crypto
// computes over the bytes warcio read. It also prints the CDXJ fields and
// lines of warcio's own CDXIndexer. Any digest that does not match is listed in
// "errors" and the exit status is 1.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dir, file, filename] = process.argv.slice(2);
if (!dir || !file || !filename) {
  console.error("usage: node verify.mjs WARCIO_DIR FILE FILENAME");
  process.exit(2);
}
const { WARCParser, CDXIndexer } = await import(
  pathToFileURL(join(dir, "node_modules", "warcio", "dist", "index.js")).href
);

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

// base32 is RFC 4648 base32 (a SHA-1 is 20 bytes: 32 characters, no padding).
function base32(bytes) {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

function sha1(bytes) {
  return "sha1:" + base32(createHash("sha1").update(bytes).digest());
}

const errors = [];

function check(kind, rec, header, bytes) {
  if (!header) {
    errors.push(`${kind} digest missing in ${rec.id}`);
    return false;
  }
  const computed = sha1(bytes);
  if (header.toUpperCase() !== computed.toUpperCase()) {
    errors.push(`${kind} digest mismatch in ${rec.id}: header ${header}, computed ${computed}`);
    return false;
  }
  return true;
}

// Pass 1: the WARC framing only. Each record's block exactly as stored.
const records = [];
{
  const parser = new WARCParser(createReadStream(file), { parseHttp: false });
  for await (const record of parser) {
    const block = await record.readFully(false);
    const rec = {
      type: record.warcType,
      uri: record.warcTargetURI ?? null,
      id: record.warcHeader("WARC-Record-ID"),
      concurrentTo: record.warcConcurrentTo,
      refersTo: record.warcHeader("WARC-Refers-To") ?? null,
      offset: parser.offset,
      length: parser.recordLength,
      contentLength: record.warcContentLength,
      blockLength: block.length,
    };
    rec.blockDigestOK = check("block", rec, record.warcBlockDigest, block);
    records.push(rec);
  }
}

// Pass 2: warcio splits the HTTP messages; the payload is what follows
// the header block warcio parsed.
{
  const parser = new WARCParser(createReadStream(file), { parseHttp: true });
  let i = 0;
  for await (const record of parser) {
    const rec = records[i++];
    if (!rec || rec.id !== record.warcHeader("WARC-Record-ID")) {
      errors.push(`pass 2 found record ${record.warcHeader("WARC-Record-ID")} at ${i - 1}`);
      break;
    }
    if (!record.httpHeaders) continue;
    rec.status = record.httpHeaders.statusCode ?? null;
    const payload = await record.readFully(false);
    rec.payloadLength = payload.length;
    if (rec.type === "response" || rec.type === "request") {
      rec.payloadDigestOK = check("payload", rec, record.warcPayloadDigest, payload);
    } else if (rec.type === "revisit") {
      rec.payloadDigest = record.warcPayloadDigest ?? null;
    }
  }
}

// Pass 3: warcio's own CDX indexer: its entries, and its CDXJ lines as
// warcio cdx-index prints them (without the newline).
const cdx = [];
const cdxj = [];
{
  const indexer = new CDXIndexer({ format: "cdxj" });
  for await (const entry of indexer.iterIndex([{ filename, reader: createReadStream(file) }])) {
    cdx.push({ ...entry });
    cdxj.push(indexer.serialize(entry).replace(/\n$/, ""));
  }
}

// exitCode, not exit(): a pipe's write finishes after this line, and
// exit() would cut a long report short.
process.exitCode = errors.length ? 1 : 0;
process.stdout.write(JSON.stringify({ records, cdx, cdxj, errors }, null, 1) + "\n");
