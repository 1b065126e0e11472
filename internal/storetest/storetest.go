// Package storetest gives tests a MongoDB database: the embedded store,
// started once per test binary, or the real MongoDB that GRIDFSD_TEST_URI
// names. Each test gets a database of its own, dropped when it ends, so
// buckets stay small and the embedded store's full scans stay cheap.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/embedded"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// EnvURI names the environment variable that points the tests at a real MongoDB.
const EnvURI = "GRIDFSD_TEST_URI"

// The store and client are shared by every test of one binary; Main starts
// them lazily and tears them down.
var shared struct {
	once    sync.Once
	uri     string
	client  *mongo.Client
	store   *embedded.Store
	dataDir string
	err     error
}

// Main runs the tests of a package and stops the embedded store afterwards.
// Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if shared.client != nil {
		shared.client.Disconnect(context.Background())
	}
	if shared.store != nil {
		shared.store.Close()
	}
	if shared.dataDir != "" {
		os.RemoveAll(shared.dataDir)
	}
	os.Exit(code)
}

func start() {
	shared.uri = os.Getenv(EnvURI)
	if shared.uri == "" {
		shared.dataDir, shared.err = os.MkdirTemp("", "gridfsd-test-*")
		if shared.err != nil {
			return
		}
		shared.store, shared.err = embedded.Start(embedded.Config{DataDir: shared.dataDir})
		if shared.err != nil {
			return
		}
		shared.uri = shared.store.URI()
	}
	shared.client, shared.err = mongo.Connect(options.Client().ApplyURI(shared.uri).SetServerSelectionTimeout(10 * time.Second))
}

// URI is the connection string of the store the tests use.
func URI(tb testing.TB) string {
	tb.Helper()
	shared.once.Do(start)
	if shared.err != nil {
		tb.Fatalf("test store: %v", shared.err)
	}
	return shared.uri
}

// Client is a client connected to the test store.
func Client(tb testing.TB) *mongo.Client {
	tb.Helper()
	URI(tb)
	return shared.client
}

// MustOpenDB returns a fresh, uniquely named database that is dropped when
// the test ends.
func MustOpenDB(tb testing.TB) *mongo.Database {
	tb.Helper()
	db := Client(tb).Database(DBName())
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := db.Drop(ctx); err != nil {
			tb.Errorf("drop test database %s: %v", db.Name(), err)
		}
	})
	return db
}

// DBName returns a new unique database name for a test.
func DBName() string {
	var b [6]byte
	rand.Read(b[:])
	return fmt.Sprintf("gridfsd_test_%s", hex.EncodeToString(b[:]))
}
