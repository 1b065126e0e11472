package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// sqliteHeader reports a database file's page size and whether it is in WAL
// mode, from its 100-byte header (https://www.sqlite.org/fileformat.html).
func sqliteHeader(t *testing.T, path string) (pageSize int, wal bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := make([]byte, 100)
	if _, err := io.ReadFull(f, h); err != nil {
		t.Fatal(err)
	}
	pageSize = int(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	return pageSize, h[18] == 2 && h[19] == 2
}

// putAndGet stores a file of 3 MiB through the driver's GridFS and reads it back.
func putAndGet(t *testing.T, db *mongo.Database, bucket string) {
	t.Helper()
	ctx := context.Background()
	data := bytes.Repeat([]byte("gridfsd pages "), 3<<20/14)
	b := db.GridFSBucket(options.GridFSBucket().SetName(bucket))
	id, err := b.UploadFromStream(ctx, "pages.bin", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if _, err := b.DownloadToStream(ctx, id, &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatalf("read back %d bytes, not the %d written", got.Len(), len(data))
	}
}

// A new database gets 32 KiB pages in WAL mode (PATCHES.md item 15): a chunk's
// row then spans 11 pages instead of 85, each a WAL frame and a checkpoint
// write. Before the change the WAL switch ran first and fixed 4 KiB pages.
func TestNewDatabaseHasLargePages(t *testing.T) {
	dir := t.TempDir()
	putAndGet(t, connect(t, startStore(t, dir)).Database("pages"), "fs")
	size, wal := sqliteHeader(t, filepath.Join(dir, "pages.sqlite"))
	if size != 32768 || !wal {
		t.Errorf("new database: page size %d, WAL %v; want 32768, true", size, wal)
	}
}
