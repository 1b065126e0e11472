package buckets_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// TestClientGone: the store's report of a cancelled operation is the
// client going away only when the request's context was cancelled; with
// the client there it stays the store being unavailable, and other errors
// are neither.
func TestClientGone(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	storeCancelled := fmt.Errorf("find file: %w", mongo.CommandError{Code: 1, Message: "context canceled"})
	for _, c := range []struct {
		ctx  context.Context
		err  error
		want bool
	}{
		{cancelled, storeCancelled, true},
		{cancelled, fmt.Errorf("find file: %w", context.Canceled), true}, // the driver saw it first
		{context.Background(), storeCancelled, false},
		{context.Background(), fmt.Errorf("find file: %w", context.Canceled), false},
		{cancelled, buckets.ErrFileNotFound, false},
	} {
		if got := buckets.ClientGone(c.ctx, c.err); got != c.want {
			t.Errorf("ClientGone(ctx err %v, %v) = %v, want %v", c.ctx.Err(), c.err, got, c.want)
		}
	}
	if !buckets.StoreUnavailable(storeCancelled) {
		t.Error("the store's cancellation with the client there is no longer StoreUnavailable")
	}
}

// A store that could not take its write lock in time wrote nothing: the
// operation may be tried again (503), never a bare 500.
func TestStoreBusyIsUnavailable(t *testing.T) {
	for _, err := range []error{
		mongo.CommandError{Code: 1, Message: "[msg_delete.go:95 handler.(*Handler).MsgDelete] database is locked (5) (SQLITE_BUSY)"},
		mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 1, Message: "database is locked (5) (SQLITE_BUSY)"}}},
		mongo.CommandError{Code: 24, Message: "Unable to acquire lock"},
	} {
		if !buckets.StoreUnavailable(fmt.Errorf("delete file: %w", err)) {
			t.Errorf("StoreUnavailable(%v) = false", err)
		}
	}
	if buckets.StoreUnavailable(mongo.CommandError{Code: 1, Message: "some other internal error"}) {
		t.Error("every internal error is unavailable")
	}
}
