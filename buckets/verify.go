package buckets

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

var (
	// ErrExtraChunk means a chunk lies outside the file: its n is beyond
	// the last chunk the file's length needs, not a number, or repeated.
	ErrExtraChunk = errors.New("unexpected chunk")
	// ErrChecksum means a file's content does not match the checksum its
	// files document stores.
	ErrChecksum = errors.New("checksum mismatch")
)

// maxProblems bounds the problems reported for one file: a file whose
// chunks are all gone needs one line, not a million.
const maxProblems = 20

// Check is the outcome of verifying one file.
type Check struct {
	File *File
	// Checksum names the stored checksum the content was compared with:
	// "sha256" (gridfsd's), "md5" (legacy drivers'), or "" when the files
	// document stores neither and only the chunks' structure was checked.
	Checksum string
	// Problems is empty for a sound file. Each problem wraps
	// ErrChunkMissing, ErrChunkSize, ErrExtraChunk or ErrChecksum.
	Problems []error
}

// OK reports whether the file is sound.
func (c *Check) OK() bool { return len(c.Problems) == 0 }

// problems collects a file's problems up to maxProblems.
type problems struct {
	list    []error
	dropped int
}

func (p *problems) add(err error) {
	if len(p.list) < maxProblems {
		p.list = append(p.list, err)
		return
	}
	p.dropped++
}

func (p *problems) result() []error {
	if p.dropped > 0 {
		return append(p.list, fmt.Errorf("%w: and %d more problems", ErrChunkMissing, p.dropped))
	}
	return p.list
}

// missing reports chunks first..last as absent.
func (p *problems) missing(first, last int64) {
	if first == last {
		p.add(fmt.Errorf("chunk %d: %w", first, ErrChunkMissing))
		return
	}
	p.add(fmt.Errorf("chunks %d to %d: %w", first, last, ErrChunkMissing))
}

// expectedSize is the size chunk n of f must have.
func expectedSize(f *File, chunkN, n int64) int64 {
	if n == chunkN-1 {
		return f.Length - n*int64(f.ChunkSize)
	}
	return int64(f.ChunkSize)
}

func chunkCount(f *File) int64 {
	return (f.Length + int64(f.ChunkSize) - 1) / int64(f.ChunkSize)
}

// Verify re-reads every chunk of f and checks what a reader relies on: the
// chunk numbers run from 0 without gaps or extras, every chunk has the size
// the file's length and chunk size require, and the content matches the
// stored SHA-256 (or legacy MD5). It reports every problem it finds rather
// than stopping at the first, which is why it reads the chunks with a
// cursor of its own instead of chunker.Reader. The error is for failures
// of the store; a damaged file is a Check with Problems.
func (b *Bucket) Verify(ctx context.Context, f *File) (*Check, error) {
	return b.VerifyProgress(ctx, f, nil)
}

// Progress is told how many bytes of chunk data a check has just read, so
// that a command can show how far it has come. It runs in the caller's
// goroutine, between reads.
type Progress func(n int)

// VerifyProgress is Verify telling progress, unless nil, of every chunk
// it reads.
func (b *Bucket) VerifyProgress(ctx context.Context, f *File, progress Progress) (*Check, error) {
	c := &Check{File: f}
	var h hash.Hash
	var want string
	switch {
	case f.SHA256 != "":
		c.Checksum, h, want = "sha256", sha256.New(), f.SHA256
	case f.MD5 != "":
		c.Checksum, h, want = "md5", md5.New(), f.MD5
	}
	chunkN := chunkCount(f)
	batch := int32(max(4<<20/f.ChunkSize, 1))
	opts := options.Find().
		SetSort(bson.D{{Key: "n", Value: 1}}).
		SetBatchSize(batch)
	cur, err := b.chunks.Find(ctx, bson.D{{Key: "files_id", Value: f.ID}}, opts)
	if err != nil {
		return nil, fmt.Errorf("verify file %v: %w", f.ID, err)
	}
	defer closeCursor(ctx, cur)

	var p problems
	intact := true // the bytes hashed so far are the file's bytes, in order
	next := int64(0)
	for cur.Next(ctx) {
		n, ok := cur.Current.Lookup("n").AsInt64OK()
		switch {
		case !ok:
			p.add(fmt.Errorf("chunk with n=%v: %w", cur.Current.Lookup("n"), ErrExtraChunk))
			continue
		case n < next:
			p.add(fmt.Errorf("chunk %d appears twice: %w", n, ErrExtraChunk))
			intact = false
			continue
		case n >= chunkN:
			// Sorted by n, so every later chunk is extra too; next stays
			// put so that the chunks missing before it are still reported.
			p.add(fmt.Errorf("chunk %d, but the file has %d: %w", n, chunkN, ErrExtraChunk))
			continue
		case n > next:
			p.missing(next, n-1)
			intact = false
		}
		next = n + 1
		_, data, ok := cur.Current.Lookup("data").BinaryOK()
		if progress != nil {
			progress(len(data))
		}
		if size := expectedSize(f, chunkN, n); !ok || int64(len(data)) != size {
			p.add(fmt.Errorf("chunk %d has %d bytes, want %d: %w", n, len(data), size, ErrChunkSize))
			intact = false
			continue
		}
		if h != nil && intact {
			h.Write(data)
		}
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("verify file %v: %w", f.ID, err)
	}
	if next < chunkN {
		p.missing(next, chunkN-1)
		intact = false
	}
	if h != nil && intact {
		if got := hex.EncodeToString(h.Sum(nil)); !strings.EqualFold(got, want) {
			p.add(fmt.Errorf("%s is %s, the files document says %s: %w", c.Checksum, got, want, ErrChecksum))
		}
	}
	c.Problems = p.result()
	return c, nil
}
