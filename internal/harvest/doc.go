// Package harvest turns the reads of active seeds into items: every
// article URL an entry lists (a feed's items, a news sitemap's or a
// sitemap's URLs) becomes one seedengine.Item the first time it is seen,
// recorded by internal/seedcheck in the transaction that records the
// check. It holds what is pure about that (the items of one read, Pace:
// when to read a seed next so that no item scrolls out of its entry
// unseen) and the Flusher, which writes the recorded items to immutable
// JSON Lines files in the object store, partition by partition.
package harvest
