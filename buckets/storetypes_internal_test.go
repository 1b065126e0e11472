package buckets

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// TestStoreProbeDoesNotQueue: while one caller asks a store that does not
// answer what it is, another gets the DB's assumption at once (journaled
// chunks, every type held) instead of waiting its turn to ask: every upload
// asks, and before, each one of them waited for the probe of the one
// before it while the store was down.
func TestStoreProbeDoesNotQueue(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() { // accepts and never answers
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + l.Addr().String() + "/?directConnection=true"))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	d := NewDB(client.Database("probe"))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	first := make(chan bool)
	go func() { first <- d.orderedDurability(ctx) }()
	for {
		d.types.mu.Lock()
		probing := d.types.probing
		d.types.mu.Unlock()
		if probing {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if d.orderedDurability(context.Background()) {
		t.Error("ordered durability assumed while the store has not answered")
	}
	select {
	case <-first:
		t.Fatal("the first probe ended before the second call returned: the second did not get past it")
	default:
	}
	if <-first {
		t.Error("ordered durability from a store that never answered")
	}
	if d.types.known || d.types.probing {
		t.Errorf("after a failed probe: known %v, probing %v; want both false (ask again next time)", d.types.known, d.types.probing)
	}
}
