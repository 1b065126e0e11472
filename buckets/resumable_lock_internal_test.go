package buckets

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/storetest"
)

// A lingering lock that was asked for (or found lost) by its renewal is on
// its way back to the store: a request of the same process must not take
// it over in the moment before it goes, as it would take a lock that
// another gateway is about to get (or has).
func TestLingeringLockAskedIsNotResumed(t *testing.T) {
	ctx := context.Background()
	b, err := NewDB(storetest.MustOpenDB(t)).Bucket(ctx, "tus")
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := b.LockResumable(ctx, "u", 10*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Linger(time.Hour)
	l.ask() // what renew does when the store says release, before it gives the lock back
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	got, _, err := b.LockResumable(short, "u", 10*time.Second, nil)
	if err == nil {
		t.Fatalf("took the lock being given back (the same one: %v)", got == l)
	}
	if !errors.Is(err, ErrUploadLocked) {
		t.Fatal(err)
	}
	l.Unlock()
	l2, _, err := b.LockResumable(ctx, "u", 10*time.Second, nil)
	if err != nil || l2 == l {
		t.Fatalf("after it went: %v (the same lock: %v)", err, l2 == l)
	}
	l2.Unlock()
}
