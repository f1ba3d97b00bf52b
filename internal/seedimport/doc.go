// Package seedimport reads the feed lists people already keep (a feed
// reader's OPML, a spreadsheet's CSV, a crawler's URL list) into draft
// seeds (docs/seeds.md "Import").
//
// Parse reads a whole list into Rows, refusing one it cannot read with
// an error naming the line (field line[N]); Plan places every row
// (country, category, domain, content type, seed), refuses what cannot
// be an entry, groups the rows of one seed and makes the import batch;
// ChunkProcessor reads each group's entries in line order through an
// Examiner (contract.Discoverer.Examine: robots.txt, then the entry,
// once) until one is usable, and creates its seed as a draft with its
// evidence, its domain registered through research. An import never
// touches an existing seed. The site a list names decides the seed's
// domain even when the entry is on another one; such a seed's review
// reasons say so (contract.ReviewReasons: entry_off_domain), in the
// batch result too, and a promote by filter leaves it out.
package seedimport
