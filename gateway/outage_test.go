package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/embedded"
	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// outageClient bounds every request: a gateway that hung instead of
// answering 503 would fail the test rather than stall it.
var outageClient = &http.Client{Timeout: 30 * time.Second}

// TestStoreOutage stops the store under load and starts it again on the
// same port and data: during the outage /readyz and every request that
// needs the store answer 503 JSON, an upload in flight is aborted and never
// committed; afterwards service resumes by itself, every file committed
// before is intact, and new requests succeed.
func TestStoreOutage(t *testing.T) {
	dir := t.TempDir()
	addr := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().String()
	}()
	store, err := embedded.Start(embedded.Config{DataDir: dir, Listen: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { store.Close() }()
	client, err := mongo.Connect(options.Client().ApplyURI(store.URI()).
		SetServerSelectionTimeout(time.Second).SetConnectTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	db := buckets.NewDB(client.Database("outage"))
	var logs proctest.Log // what stood behind a reply the test did not expect
	srv, err := gateway.New(gateway.Config{DB: db, ReadyTimeout: time.Second, SweepGrace: time.Nanosecond,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelError}))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	defer func() { cancel(); <-served }()
	e := &env{t: t, db: db, srv: srv, url: "http://" + ln.Addr().String()}

	// Files committed before the outage.
	committed := map[string]string{}
	for i := range 4 {
		name := fmt.Sprintf("before-%d", i)
		committed[name] = pattern(3000 + i*1000)
		e.put("/b/fs/"+name+"?chunkSize=1024", committed[name], nil)
	}

	// An upload in flight when the store goes away: more than one insert
	// batch is written, then the body stalls.
	inflight, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer inflight.Close()
	fmt.Fprintf(inflight, "PUT /b/fs/inflight?chunkSize=65536 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", 4<<20)
	inflight.Write([]byte(pattern(3 << 19)))
	waitFor(t, "chunks of the in-flight upload", func() bool {
		_, c := e.counts("fs")
		return c > 20
	})

	// Load: uploads and ranged downloads that run through the outage. Every
	// reply is a success or a 503 with a JSON body, never a 500 or a hang.
	stopLoad := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	var created []string
	var loadErrs []string
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stopLoad:
					return
				default:
				}
				var req *http.Request
				if i%2 == 0 {
					req, _ = http.NewRequest("PUT", fmt.Sprintf("%s/b/fs/load-%d-%d?chunkSize=512", e.url, w, i), strings.NewReader(pattern(2000)))
				} else {
					req, _ = http.NewRequest("GET", e.url+"/b/fs/before-1", nil)
					req.Header.Set("Range", "bytes=100-1999")
				}
				res, err := outageClient.Do(req)
				if err != nil {
					mu.Lock()
					loadErrs = append(loadErrs, err.Error())
					mu.Unlock()
					return
				}
				body, rerr := io.ReadAll(res.Body)
				res.Body.Close()
				mu.Lock()
				statuses[res.StatusCode]++
				if res.StatusCode == http.StatusCreated {
					created = append(created, req.URL.Path)
				}
				switch {
				case rerr != nil:
					// The store went away mid-body: the status line was
					// sent, so the server cuts the connection and the
					// client sees a short body, never a wrong one.
					statuses[-1]++
				case res.StatusCode == 206 && string(body) != pattern(4000)[100:2000]:
					loadErrs = append(loadErrs, "a ranged download returned wrong bytes")
				case res.StatusCode == 503 && !strings.Contains(string(body), `"code":"store_unavailable"`):
					loadErrs = append(loadErrs, "503 without the JSON error: "+string(body))
				case res.StatusCode != 201 && res.StatusCode != 206 && res.StatusCode != 503:
					loadErrs = append(loadErrs, fmt.Sprintf("status %d: %s", res.StatusCode, body))
				}
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	time.Sleep(300 * time.Millisecond) // some load before the outage

	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	e.run([]httpTest{
		{name: "readyz during the outage", method: "GET", path: "/readyz", code: 503, errCode: "store_unavailable",
			resHeader: map[string]string{"Retry-After": "2"}},
		{name: "healthz during the outage", method: "GET", path: "/healthz", code: 200},
		{name: "download during the outage", method: "GET", path: "/b/fs/before-0", code: 503, errCode: "store_unavailable"},
		{name: "upload during the outage", method: "PUT", path: "/b/fs/during", body: "x", code: 503, errCode: "store_unavailable"},
		{name: "listing during the outage", method: "GET", path: "/b/fs/", code: 503, errCode: "store_unavailable"},
		{name: "buckets during the outage", method: "GET", path: "/buckets", code: 503, errCode: "store_unavailable"},
	})
	// The in-flight upload's next batch fails: the upload is aborted and
	// answered 503, or its connection cut; it is never committed. The
	// client sends the rest of its body, as a real one would, since the
	// writer notices a failed insert at its next batch.
	inflight.SetDeadline(time.Now().Add(30 * time.Second))
	go inflight.Write([]byte(pattern(4<<20 - 3<<19)))
	res, err := http.ReadResponse(bufio.NewReader(inflight), nil)
	if err == nil {
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 503 {
			t.Errorf("in-flight upload during the outage: %d %s", res.StatusCode, body)
		}
		t.Logf("in-flight upload: %d %s", res.StatusCode, body)
	} else {
		t.Logf("in-flight upload: connection cut: %v", err) // also an abort
	}
	time.Sleep(300 * time.Millisecond) // load keeps running against the dead store

	// The store comes back on the same port and data directory.
	store, err = embedded.Start(embedded.Config{DataDir: dir, Listen: addr})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "readyz after the store is back", func() bool {
		res, err := outageClient.Get(e.url + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == 200
	})
	time.Sleep(300 * time.Millisecond) // load runs against the restored store
	close(stopLoad)
	wg.Wait()
	if len(loadErrs) > 0 {
		t.Errorf("load during the outage: %d errors, first: %s\ngateway errors:\n%s", len(loadErrs), loadErrs[0], logs.String())
	}
	t.Logf("load statuses: %v", statuses)
	if statuses[503] == 0 || statuses[201] == 0 || statuses[206] == 0 {
		t.Errorf("load saw no outage or no success: %v", statuses)
	}

	for name, want := range committed {
		e.run([]httpTest{{name: "intact " + name, method: "GET", path: "/b/fs/" + name, code: 200, resBody: str(want)}})
	}
	e.put("/b/fs/after", "service resumed", nil)
	e.run([]httpTest{
		{name: "new upload reads back", method: "GET", path: "/b/fs/after", code: 200, resBody: str("service resumed")},
		{name: "aborted upload never committed", method: "GET", path: "/b/fs/inflight", code: 404, errCode: "file_not_found"},
	})
	// What aborted uploads could not remove while the store was down is
	// swept now; then the bucket is consistent.
	srv.Sweep(context.Background())
	rep, err := mustBucket(t, e, "fs").Fsck(context.Background(), time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Damaged) != 0 || len(rep.Old) != 0 || len(rep.Pending) != 0 {
		t.Errorf("fsck after the outage: %d damaged, %d orphans", len(rep.Damaged), len(rep.Old)+len(rep.Pending))
	}
	// Every upload the load saw succeed is there and complete. An upload
	// answered 503 may still have committed (its acknowledgement lost with
	// the connection), so other load files may exist: they are complete too.
	for _, p := range created {
		if _, b := e.do("GET", p, nil, ""); string(b) != pattern(2000) {
			t.Errorf("%s: answered 201 but wrong content after the outage", p)
		}
	}
	res, body := e.do("GET", "/b/fs/?prefix=load-&limit=1000", nil, "")
	var page struct{ Files []struct{ Filename string } }
	if res.StatusCode != 200 || json.Unmarshal(body, &page) != nil {
		t.Fatalf("listing: %d %s", res.StatusCode, body)
	}
	if len(page.Files) < len(created) {
		t.Errorf("%d load files stored, %d uploads answered 201", len(page.Files), len(created))
	}
	for _, f := range page.Files {
		if _, b := e.do("GET", "/b/fs/"+f.Filename, nil, ""); string(b) != pattern(2000) {
			t.Errorf("%s: incomplete after the outage", f.Filename)
		}
	}
}
