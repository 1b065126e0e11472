// Package buckets implements GridFS buckets on one MongoDB database: index
// creation as the GridFS specification prescribes, uploads and downloads
// with revisions, find, rename, delete, per-bucket settings and statistics.
// The chunk format itself lives in package chunker. Every rule about data
// (names, metadata, ids, sizes, preconditions) lives here, once, so that
// every front door (HTTP API, S3 API, command line) shares it.
//
// # Conditional writes
//
// A write can carry Conditions (RFC 9110's If-Match, If-None-Match and
// If-Unmodified-Since), evaluated against the file it replaces or changes:
//
//   - an upload: UploadOptions.Conditions, checked against the newest
//     revision of the name when it commits (CheckName checks early, before
//     the body, to fail fast); Upload.Replaced is the revision If-Match
//     matched, which a replacing front door removes with RemoveReplaced;
//   - PatchIf, DeleteIf: against the file with that _id;
//   - DeleteNameIf: against the newest revision of the name.
//
// A failed condition is ErrPreconditionFailed with nothing changed. The
// entity tag is File.ETag unless Conditions.ETag says otherwise (S3 uses
// its MD5 ETags); it changes whenever the filename, metadata or legacy
// contentType change.
//
// # The commit protocol
//
// A conditional write of a name (an upload with Conditions, a conditional
// delete by name) holds a lease on the name while it evaluates its
// conditions against the newest revision and writes: a document in
// LeasesCollection whose _id is derived from the bucket and the name. The
// lease is taken by inserting that document (the unique _id index lets
// exactly one insert succeed, on any number of gateways), or by taking over
// one whose expiry has passed (one conditional update, so again one winner),
// and given back by deleting it. Between taking and giving back, the holder
// reads the newest revision, checks the conditions, and inserts its files
// document; every other conditional writer of the name waits for the lease
// and then sees that revision. So of N concurrent If-None-Match: * uploads
// exactly one commits, and of N carrying the same If-Match at most one; the
// losers remove their chunks and return ErrPreconditionFailed, never
// ErrFileNotFound. A revision committed under the lease gets an uploadDate
// later than the one it was checked against even when gateways' clocks
// differ, so "newest" means the same on every gateway.
//
// This holds across gateways because it rests only on single-document
// atomicity and the unique _id index, which MongoDB guarantees; on a replica
// set it needs majority writes (MongoDB's default since 5.0; say w=majority
// in the URI for older servers) and primary reads (the driver's default),
// so that a lease or revision one gateway wrote is what the next holder
// reads, even after a failover. A lease outlives a crashed holder by at
// most LeaseTTL; the holder's own commit is bounded by CommitTimeout, half
// of it, so a lease is never taken over from a live holder unless the
// gateways' clocks differ by more than CommitTimeout.
//
// A write by id (PATCH, delete by id) needs no lease: it is one update or
// delete whose filter names the _id and the version fields the conditions
// were checked against (see ETag), so it applies only if the file is still
// that version, and is evaluated again otherwise.
//
// Unconditional uploads take no lease: a blind write has nothing to lose,
// and a conditional writer may see it or not depending on timing, as with
// any concurrent write. Files written by other tools behave the same.
package buckets
