package buckets_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/gcfloor"
)

// TestDownloadHoldsGCFloor: an open download holds the garbage collector's
// floor until it is closed, once however often it is closed, so that every
// door's downloads (HTTP, S3, WebDAV, copies) get it; an upload holds none.
func TestDownloadHoldsGCFloor(t *testing.T) {
	ctx := context.Background()
	b := mustBucket(t, "fs")
	before := gcfloor.Held()
	f, err := b.Upload(ctx, "f", bytes.NewReader([]byte("content")), buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := gcfloor.Held(); n != before {
		t.Errorf("%d floors held after an upload, want %d", n, before)
	}
	d, err := b.Open(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if n := gcfloor.Held(); n != before+1 {
		t.Errorf("%d floors held while a download is open, want %d", n, before+1)
	}
	d.Close()
	d.Close()
	if n := gcfloor.Held(); n != before {
		t.Errorf("%d floors held after the download closed twice, want %d", n, before)
	}
}
