// Package blobstore is the object store of seedengine: raw datasets, prod
// outputs and evidence, over gocloud blob (a local directory, memory, or any
// S3-compatible store).
//
// *Store implements seedengine.ObjectStore; the keys it stores under are
// built and parsed in internal/layout, the one place the layout of DESIGN
// §5 lives. The store itself only refuses keys no driver can hold safely.
//
// Errors carry seedengine codes: ENOTFOUND for a missing object, ECONFLICT
// when PutIfAbsent finds the key taken, EINVALID for a bad key or URL and
// EUNAVAILABLE from Check; anything else is wrapped with the operation and
// key.
//
// The file driver does its own writes and listing instead of going through
// fileblob, because fileblob v0.47.0 is not safe for this use: its IfNotExist
// is a stat followed by a rename (two concurrent writers can both succeed),
// its paged listing drops keys when a directory name is a prefix of a sibling
// ("abc.com" next to "abc.com.au"), and its temporary files live in
// os.TempDir, which cannot be renamed across file systems. Reads, attributes
// and deletes still go through fileblob.
package blobstore
