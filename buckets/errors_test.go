package buckets_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"go.mongodb.org/mongo-driver/v2/mongo"
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
