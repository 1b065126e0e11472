package buckets

import (
	"context"
	"fmt"
	"strconv"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// DefaultChunkCacheBytes is the size of a DB's chunk cache unless
// SetChunkCache says otherwise: 64 MiB, 256 chunks of the default size,
// enough for a popular clip or the stretch of a long video that its
// current viewers are spread over.
const DefaultChunkCacheBytes = 64 << 20

// The chunk cache (chunker.Cache) of a DB is shared by every download
// through it, whatever the door. It never serves a chunk of a file after
// gridfsd has deleted or replaced that file:
//   - every path in buckets that deletes or moves chunks invalidates the
//     file's cached chunks after the store has answered (deleteChunks;
//     Drop invalidates the whole bucket), before the caller is answered;
//   - chunks are cached under the file's version (its files document's
//     uploadDate and SHA-256, see fileVersion) as well as its _id, so a
//     file deleted and written again under the same _id by another tool or
//     another gateway (mongofiles delete + put_id, fsck of another
//     process) is a new key: a Reader that opens the new files document
//     never sees the old chunks.
//
// What the rule cannot see: another process that deletes a file and writes
// different content under the same _id with the same uploadDate to the
// millisecond and no SHA-256 (or rewrites chunks in place, which GridFS
// forbids) while this gateway has the old chunks cached. A Reader that
// opened the files document before a delete by another process may finish
// from the cache where, without it, it would have failed with missing
// chunks; it reads the bytes of the version it opened either way.

// SetChunkCache gives d a chunk cache of bytes (0: none kept beyond what
// downloads are serving). Call it before d is used.
func (d *DB) SetChunkCache(bytes int64) { d.cache = chunker.NewCache(bytes) }

// ChunkCacheStats are the counters of d's chunk cache, for metrics.
func (d *DB) ChunkCacheStats() chunker.CacheStats { return d.cache.Stats() }

// fileVersion tells apart contents written under one _id (chunker.File's
// Version).
func fileVersion(f *File) string {
	return strconv.FormatInt(f.UploadDate.UnixNano(), 10) + "/" + f.SHA256 + "/" + f.MD5
}

// dropChunks removes the chunks of a file whose files document is gone. The
// delete has happened for every reader by then, so it is the caller's
// success whatever this step meets: a failure (the store unreachable, busy
// or gone meanwhile) is logged and leaves the chunks to the orphan sweeper
// and fsck --repair, which remove chunks without a files document. It runs
// past the request's cancellation (a client that hangs up after asking
// leaves nothing behind), for DeleteTimeout at most.
func (b *Bucket) dropChunks(ctx context.Context, id any) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DeleteTimeout)
	defer cancel()
	if _, err := b.deleteChunks(ctx, id); err != nil {
		b.db.logger().Warn("file deleted; its chunks are left to the orphan sweeper", "bucket", b.name, "id", id, "error", err)
	}
}

// deleteChunks removes the chunks of the file with _id id and drops them
// from the chunk cache, even when the store failed part way.
func (b *Bucket) deleteChunks(ctx context.Context, id any) (int64, error) {
	defer b.db.cache.Invalidate(b.chunks, id)
	res, err := b.chunks.DeleteMany(ctx, bson.D{{Key: "files_id", Value: id}})
	if err != nil {
		return 0, fmt.Errorf("delete chunks of %v: %w", id, full(err))
	}
	return res.DeletedCount, nil
}
