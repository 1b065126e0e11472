// Package buckets implements GridFS buckets on one MongoDB database: index
// creation as the GridFS specification prescribes, uploads and downloads
// with revisions, find, rename, delete, per-bucket settings and statistics.
// The chunk format itself lives in package chunker. Every rule about data
// (names, metadata, ids, sizes, preconditions) lives here, once, so that
// every front door (HTTP API, S3 API, command line) shares it.
//
// # Versioning and delete markers
//
// A bucket's S3 versioning switch lives in its settings (SetVersioning).
// Once it is set, deleting a name writes a delete marker, a 0-byte files
// document without chunks whose top-level deleteMarker is true, committed
// under the name's lease like any revision; a name whose newest revision
// is a marker is absent through every read here, so on every door. Other
// GridFS tools see a marker as a 0-byte revision. See versioning.go.
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
// A write of a name (an upload's commit, a conditional delete by name)
// holds a lease on the name while it evaluates its
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
// A write by id (PatchIf, DeleteIf, and Delete without conditions) holds
// the lease of the file's name (and of the new name, for a rename), so it is atomic with the
// conditional writes by name; its update or delete also names the _id and
// the version fields the conditions were checked against (see File.ETag),
// so on MongoDB it applies only if the file is still that version even
// against writers that take no lease, and is evaluated again otherwise. (A
// filter alone is not enough everywhere: FerretDB evaluates filters outside
// its storage transaction, so two updates may both match.) Under the lease
// go only the files documents; chunks nobody can see any more are removed
// after it is given back, so a large delete does not hold up other writers.
//
// Uploads without conditions (and S3 multipart completions) take the lease
// too, for their commit only: a blind write that dated itself before a
// conditional write checked the name, and landed after it, would become an
// older revision than one that claimed the name was free. With the lease,
// every commit of a name through gridfsd is dated after the revision it
// follows, and the order of revisions is the order of the commits. Files
// written by other tools take no lease; a conditional writer sees them or
// not depending on timing, as with any concurrent write.
//
// An upload with Replace removes the revision its If-Match matched in the
// same lease, so no conditional writer sees the name with both, and
// DeleteOlderRevisions removes only what precedes a revision in
// (uploadDate, _id) order, never a concurrent one of the same millisecond.
package buckets
