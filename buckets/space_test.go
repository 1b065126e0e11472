package buckets_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// fakeDisk has free bytes, less what was taken since (by taking).
type fakeDisk struct {
	free  atomic.Int64
	taken atomic.Int64
}

func (d *fakeDisk) FreeBytes() (uint64, error) {
	return uint64(max(d.free.Load()-d.taken.Load(), 0)), nil
}

// takingReader takes from the disk what it delivers.
type takingReader struct {
	r    *bytes.Reader
	disk *fakeDisk
}

func (t takingReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.disk.taken.Add(int64(n))
	return n, err
}

func countChunks(t *testing.T, b *buckets.Bucket) int64 {
	t.Helper()
	n, err := b.ChunksCollection().CountDocuments(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReserveRefusesUploads: with a disk reserve, an upload is refused
// (ErrInsufficientStorage, with a reason free of store text) when the disk
// is below it, when its announced size would take it there, and when it
// gets there while streaming; nothing of a refused upload stays, and
// deletes are never refused.
func TestReserveRefusesUploads(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	disk := &fakeDisk{}
	const reserve = 8 << 20
	db.SetDiskSpace(disk, reserve)
	b, err := db.Bucket(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Upload(ctx, "kept", bytes.NewReader([]byte("kept")), buckets.UploadOptions{}); err == nil {
		t.Fatal("an upload on a disk with no room succeeded")
	} else if !errors.Is(err, buckets.ErrInsufficientStorage) || !strings.Contains(buckets.StorageReason(err), "reserve") {
		t.Fatalf("upload below the reserve: %v (reason %q)", err, buckets.StorageReason(err))
	}

	disk.free.Store(reserve + 4<<20)
	if _, err := b.Upload(ctx, "kept", bytes.NewReader([]byte("kept")), buckets.UploadOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.OpenUpload(ctx, "big", buckets.UploadOptions{Size: 5 << 20}); !errors.Is(err, buckets.ErrInsufficientStorage) {
		t.Fatalf("an upload announcing more than the room: %v", err)
	}
	if got := countChunks(t, b); got != 1 {
		t.Fatalf("%d chunks after a refused open", got)
	}

	// 4 MiB of room: the reader takes space as it streams 6 MiB.
	disk.taken.Store(0)
	content := bytes.Repeat([]byte("x"), 6<<20)
	_, err = b.Upload(ctx, "streamed", takingReader{bytes.NewReader(content), disk}, buckets.UploadOptions{ChunkSize: 64 << 10})
	if !errors.Is(err, buckets.ErrInsufficientStorage) {
		t.Fatalf("an upload that ran out of room while streaming: %v", err)
	}
	if got := countChunks(t, b); got != 1 {
		t.Fatalf("%d chunks after a refused upload, want the kept file's 1", got)
	}
	if _, err := b.FindByName(ctx, "streamed", -1); !errors.Is(err, buckets.ErrFileNotFound) {
		t.Fatalf("the refused upload is visible: %v", err)
	}
	mu, err := b.CreateMultipart(ctx, "mp", buckets.UploadOptions{})
	if !errors.Is(err, buckets.ErrInsufficientStorage) {
		t.Fatalf("CreateMultipart with no room: %v, %v", mu, err)
	}
	if _, err := b.DeleteName(ctx, "kept"); err != nil {
		t.Fatalf("a delete with no room: %v", err)
	}
}

// TestStoreFullIsInsufficientStorage: the stores' own "disk full" errors
// are ErrInsufficientStorage, whatever wraps them, and the reason a client
// sees holds none of the store's text.
func TestStoreFullIsInsufficientStorage(t *testing.T) {
	for _, err := range []error{
		mongo.CommandError{Code: 14031, Name: "OutOfDiskSpace", Message: "Can't write: out of disk space"},
		mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 14031, Message: "out of disk space"}}},
		mongo.CommandError{Code: 1, Name: "InternalError", Message: "[msg_insert.go:168 handler.(*Handler).MsgInsert] database or disk is full (13)"},
		mongo.CommandError{Code: 8, Name: "UnknownError", Message: "WiredTiger error (28) [1700000000:0][1:0x7f], file:collection-2.wt: __posix_file_write, 617: /data/db/collection-2.wt: handle-write: pwrite: failed to write 4096 bytes at offset 0: No space left on device"},
	} {
		wrapped := buckets.WrapStoreError(fmt.Errorf("insert chunks 0-3: %w", err))
		if !errors.Is(wrapped, buckets.ErrInsufficientStorage) {
			t.Errorf("%v: not ErrInsufficientStorage", err)
		}
		if r := buckets.StorageReason(wrapped); r != "the store's disk is full" {
			t.Errorf("%v: reason %q", err, r)
		}
		var ce mongo.ServerError
		if !errors.As(wrapped, &ce) {
			t.Errorf("%v: the store's error is lost for the log", err)
		}
	}
	for _, err := range []error{
		mongo.CommandError{Code: 11000, Message: "duplicate key"},
		errors.New("connection reset"),
	} {
		if errors.Is(buckets.WrapStoreError(err), buckets.ErrInsufficientStorage) {
			t.Errorf("%v: taken for a full disk", err)
		}
	}
}
