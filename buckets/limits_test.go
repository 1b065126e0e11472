package buckets_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

// TestLimitsHoldForEveryWrite: the size limits (the DB's MaxUploadSize,
// the bucket's maxFileSize, the smaller of the two) hold for uploads, for
// each part and for a multipart upload as a whole; what fails leaves no
// file behind.
func TestLimitsHoldForEveryWrite(t *testing.T) {
	ctx := context.Background()
	db := buckets.NewDB(storetest.MustOpenDB(t))
	if err := db.SetLimits(buckets.Limits{MaxUploadSize: 11 << 20}); err != nil {
		t.Fatal(err)
	}
	small, err := db.Create(ctx, "small", buckets.Settings{MaxFileSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	big, err := db.Bucket(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	if n, name := small.UploadLimit(); n != 1<<20 || !strings.Contains(name, "maxFileSize") {
		t.Errorf("small's limit: %d (%s)", n, name)
	}
	if n, name := big.UploadLimit(); n != 11<<20 || !strings.Contains(name, "max-upload-size") {
		t.Errorf("big's limit: %d (%s)", n, name)
	}
	if err := small.CheckUploadSize(1<<20 + 1); !errors.Is(err, buckets.ErrTooLarge) {
		t.Errorf("declared 1 MiB + 1 into a 1 MiB bucket: %v", err)
	}
	if err := small.CheckUploadSize(-1); err != nil {
		t.Errorf("an unknown length is checked while streaming, not before: %v", err)
	}

	// A plain upload over the bucket's limit.
	if _, err := small.Upload(ctx, "u", bytes.NewReader(make([]byte, 1<<20+1)), buckets.UploadOptions{}); !errors.Is(err, buckets.ErrTooLarge) {
		t.Errorf("upload of 1 MiB + 1 into a 1 MiB bucket: %v", err)
	}

	// One part of 2 MiB into a 1 MiB bucket: the part fails.
	mu, err := small.CreateMultipart(ctx, "one-part", buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := small.OpenPart(ctx, mu.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.ReadFrom(bytes.NewReader(make([]byte, 2<<20))); !errors.Is(err, buckets.ErrTooLarge) {
		t.Errorf("a 2 MiB part into a 1 MiB bucket: %v", err)
	}
	if _, err := small.CompleteMultipart(ctx, mu.ID, []buckets.CompletedPart{{Number: 1, MD5: "x"}}); err == nil {
		t.Error("completed an upload whose only part was refused")
	}

	// Three parts of 5 MiB past an 11 MiB limit: each part fits, the
	// whole does not.
	mu, err = big.CreateMultipart(ctx, "three-parts", buckets.UploadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, list := uploadParts(t, big, mu, 5<<20, 5<<20, 5<<20)
	if _, err := big.CompleteMultipart(ctx, mu.ID, list); !errors.Is(err, buckets.ErrTooLarge) {
		t.Errorf("15 MiB in parts past an 11 MiB limit: %v", err)
	}
	// Two of them fit.
	if f, err := big.CompleteMultipart(ctx, mu.ID, list[:2]); err != nil || f.Length != 10<<20 {
		t.Errorf("10 MiB of the same parts: %v, %v", f, err)
	}
	for _, name := range []string{"u", "one-part", "three-parts"} {
		b := small
		if name == "three-parts" {
			b = big
		}
		if f, err := b.FindByName(ctx, name, -1); err == nil && name != "three-parts" {
			t.Errorf("%s was stored (%d bytes)", name, f.Length)
		}
	}
}

// TestAcquireUpload: MaxConcurrentUploads slots, ErrBusy past them, a slot
// given back once however often release is called.
func TestAcquireUpload(t *testing.T) {
	db := buckets.NewDB(storetest.MustOpenDB(t))
	free, err := db.AcquireUpload()
	if err != nil {
		t.Fatalf("no limit: %v", err)
	}
	free()
	if err := db.SetLimits(buckets.Limits{MaxConcurrentUploads: 2}); err != nil {
		t.Fatal(err)
	}
	r1, err1 := db.AcquireUpload()
	r2, err2 := db.AcquireUpload()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if _, err := db.AcquireUpload(); !errors.Is(err, buckets.ErrBusy) {
		t.Fatalf("third of two: %v", err)
	}
	r1()
	r1() // a second release gives back nothing more
	r3, err := db.AcquireUpload()
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	if _, err := db.AcquireUpload(); !errors.Is(err, buckets.ErrBusy) {
		t.Fatalf("a double release freed two slots: %v", err)
	}
	r2()
	r3()
	if err := db.SetLimits(buckets.Limits{MaxUploadSize: -1}); err == nil {
		t.Error("a negative limit was taken")
	}
}
