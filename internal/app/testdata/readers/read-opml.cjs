// Reads an OPML file with opmlparser (danmactough/node-opmlparser, the
// parser of node's feed readers) and prints what it saw as JSON: the
// head's title, every outline with its xmlurl, htmlurl, url, type,
// category and the text of its parent group, and the errors it raised.
// Usage: node read.cjs NODE_MODULES_PARENT FILE
const path = require('path');
const fs = require('fs');
const OpmlParser = require(path.join(process.argv[2], 'node_modules', 'opmlparser'));

const parser = new OpmlParser({ resume_saxerror: false });
const out = { title: null, outlines: [], errors: [] };
parser.on('error', (err) => { out.errors.push(String(err && err.message || err)); });
parser.on('readable', function () {
  let o;
  while ((o = this.read()) !== null) {
    out.title = this.meta && this.meta.title;
    out.outlines.push({
      text: o.text || null,
      type: o['#type'] === 'feed' ? (o.type || 'rss') : (o.type || null),
      kind: o['#type'] || null,
      xmlUrl: o.xmlurl || null,
      htmlUrl: o.htmlurl || null,
      url: o.url || null,
      category: o.category || null,
      folder: o.folder || null,
    });
  }
});
parser.on('end', () => { process.stdout.write(JSON.stringify(out)); });
fs.createReadStream(process.argv[3]).pipe(parser);
