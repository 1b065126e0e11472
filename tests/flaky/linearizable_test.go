package flaky

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/faultproxy"
	"github.com/gridfsd/gridfsd/resumable"
	"github.com/gridfsd/gridfsd/s3"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// A history checker in the manner of Jepsen's Knossos and porcupine (the
// Wing & Gong search with memoised states): operations of several clients
// through three gateways on one store, each with its own connection to the
// store through a fault proxy, are checked against a model of one register
// per name, "the newest revision of the name": its files _id and its HTTP
// ETag. A write whose outcome the client could not learn (a 5xx, a broken
// connection) may take effect at any point after it began, or never.

// state is the newest revision of a name: none (id ""), or its _id and
// HTTP ETag ("?" when it was written through S3 or tus, whose clients never
// see the HTTP ETag: the first read that shows it fixes it).
type state struct{ id, etag string }

type opKind int

const (
	opGet         opKind = iota // HTTP GET: observed state
	opS3Head                    // S3 HEAD: observed id
	opPutCreate                 // HTTP PUT If-None-Match: *
	opPutReplace                // HTTP PUT If-Match: arg
	opS3PutCreate               // S3 PUT If-None-Match: *
	opS3Put                     // S3 PUT, unconditional
	opDelete                    // HTTP DELETE If-Match: arg (by name)
	opPatch                     // HTTP PATCH /id/{argID} If-Match: arg (metadata)
	opTusCreate                 // tus POST If-None-Match: *, then PATCHes
	opTusReplace                // tus POST If-Match: arg, then PATCHes
	opTusPut                    // tus POST, unconditional, then PATCHes
	opDeleteName                // HTTP DELETE, unconditional: every revision
)

var opNames = [...]string{"GET", "S3 HEAD", "PUT create", "PUT replace", "S3 PUT create", "S3 PUT", "DELETE", "PATCH",
	"tus create", "tus replace", "tus", "DELETE all"}

type op struct {
	client        int
	kind          opKind
	arg, argID    string // the ETag and id a conditional write names
	call, ret     int64  // ns; ret = maxInt64 when the outcome is unknown
	ok            bool   // the write took effect (2xx), or not (412)
	unknown       bool
	res           state // what a read saw, or what a write created
	gatewayNumber int
}

const never = int64(1<<63 - 1)

var hexID = regexp.MustCompile(`[0-9a-f]{24}`)

// step applies o to s: whether o's outcome is possible in s, and the state
// after. An unknown outcome is tried as a success here; skipping it is the
// search's choice.
func step(s state, o op) (bool, state) {
	switch o.kind {
	case opGet:
		if o.res.id == "" || s.id == "" {
			return o.res.id == s.id, s
		}
		if s.id != o.res.id && s.id != "?" {
			return false, s
		}
		if s.etag == "?" {
			return true, o.res // the read fixes what the writer did not see
		}
		return s.etag == o.res.etag, s
	case opS3Head:
		if s.id == "?" && o.res.id != "" {
			return true, state{o.res.id, s.etag}
		}
		return s.id == o.res.id, s
	case opPutCreate, opS3PutCreate, opTusCreate:
		if o.ok || o.unknown {
			if s.id != "" {
				return false, s
			}
			if o.unknown {
				return true, state{"?", "?"}
			}
			return true, o.res
		}
		return s.id != "", s
	case opPutReplace, opDelete, opTusReplace:
		match := s.id != "" && s.etag == o.arg
		if !o.ok && !o.unknown {
			return !match, s
		}
		if !match {
			return false, s
		}
		if o.kind == opDelete {
			return true, state{}
		}
		if o.unknown {
			return true, state{"?", "?"}
		}
		return true, o.res
	case opDeleteName:
		if !o.ok && !o.unknown {
			return s.id == "", s // 404: there was none
		}
		if o.ok && s.id == "" {
			return false, s
		}
		return true, state{}
	case opS3Put, opTusPut:
		if o.unknown {
			return true, state{"?", "?"}
		}
		return true, o.res
	case opPatch:
		newest := s.id == o.argID && s.etag == o.arg
		if !o.ok && !o.unknown {
			return !newest, s
		}
		if newest {
			if o.unknown {
				return true, state{s.id, "?"}
			}
			return true, state{s.id, o.res.etag}
		}
		// A revision that is not the newest (S3 keeps older ones) may be
		// patched; the newest stays.
		return true, s
	}
	return false, s
}

// linearizable searches for an order of ops (all of one name) that
// respects real time and the model; unknown writes may be left out.
func linearizable(ops []op) (bool, string) {
	if len(ops) > 62 {
		return false, "history too long for the checker"
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].call < ops[j].call })
	type key struct {
		done uint64
		s    state
	}
	seen := map[key]bool{}
	var known uint64
	for i, o := range ops {
		if !o.unknown {
			known |= 1 << i
		}
	}
	var search func(done uint64, s state) bool
	search = func(done uint64, s state) bool {
		if done&known == known {
			return true
		}
		k := key{done, s}
		if seen[k] {
			return false
		}
		seen[k] = true
		// An op may go next if no other pending op returned before it began.
		minRet := never
		for i, o := range ops {
			if done&(1<<i) == 0 && o.ret < minRet {
				minRet = o.ret
			}
		}
		for i, o := range ops {
			if done&(1<<i) != 0 || o.call > minRet {
				continue
			}
			if ok, next := step(s, o); ok && search(done|1<<i, next) {
				return true
			}
			if o.unknown && search(done|1<<i, s) { // it never took effect
				return true
			}
		}
		return false
	}
	if search(0, state{}) {
		return true, ""
	}
	var sb strings.Builder
	for _, o := range ops {
		ret := fmt.Sprint(o.ret)
		if o.ret == never {
			ret = "?"
		}
		fmt.Fprintf(&sb, "  client %d via gateway %d: %s arg=%q/%q ok=%v unknown=%v res=%v [%d, %s]\n",
			o.client, o.gatewayNumber, opNames[o.kind], o.argID, o.arg, o.ok, o.unknown, o.res, o.call, ret)
	}
	return false, sb.String()
}

// TestCheckerCatchesViolations: the checker refuses histories that are not
// linearizable, so that its passing the real ones means something.
func TestCheckerCatchesViolations(t *testing.T) {
	a := state{"a", "ea"}
	for _, h := range [][]op{
		// two creates of one name both succeed, one after the other
		{{kind: opPutCreate, ok: true, res: a, call: 0, ret: 1}, {kind: opPutCreate, ok: true, res: state{"b", "eb"}, call: 2, ret: 3}},
		// a read after a successful create sees nothing
		{{kind: opPutCreate, ok: true, res: a, call: 0, ret: 1}, {kind: opGet, res: state{}, call: 2, ret: 3}},
		// a replace of the current ETag fails with 412
		{{kind: opPutCreate, ok: true, res: a, call: 0, ret: 1}, {kind: opPutReplace, arg: "ea", ok: false, call: 2, ret: 3}},
		// a read sees a value never written
		{{kind: opGet, res: state{"z", "ez"}, call: 0, ret: 1}},
		// a DELETE of every revision answered 204 where there was none
		{{kind: opDeleteName, ok: true, call: 0, ret: 1}},
		// a read sees the older revision after a DELETE of every revision
		{{kind: opPutCreate, ok: true, res: a, call: 0, ret: 1}, {kind: opDeleteName, ok: true, call: 2, ret: 3},
			{kind: opGet, res: a, call: 4, ret: 5}},
		// a tus create commits over a file an earlier PUT created
		{{kind: opPutCreate, ok: true, res: a, call: 0, ret: 1}, {kind: opTusCreate, ok: true, res: state{"b", "?"}, call: 2, ret: 3}},
		// a read after an unconditional tus upload sees the revision before it
		{{kind: opPutCreate, ok: true, res: a, call: 0, ret: 1}, {kind: opTusPut, ok: true, res: state{"b", "?"}, call: 2, ret: 3},
			{kind: opGet, res: a, call: 4, ret: 5}},
	} {
		if ok, _ := linearizable(h); ok {
			t.Errorf("accepted a history that is not linearizable: %+v", h)
		}
	}
	// concurrent creates: either order; an unknown write may have happened
	if ok, why := linearizable([]op{
		{kind: opPutCreate, ok: true, res: a, call: 0, ret: 5},
		{kind: opPutCreate, ok: false, call: 1, ret: 4},
		{kind: opGet, res: a, call: 6, ret: 7},
		{kind: opPutReplace, arg: "ea", unknown: true, call: 8, ret: never},
		{kind: opGet, res: state{"c", "ec"}, call: 9, ret: 10},
	}); !ok {
		t.Errorf("refused a linearizable history:\n%s", why)
	}
}

// cluster is three gateways (HTTP API with tus, and S3) on one store, each
// through a fault proxy of its own.
type cluster struct {
	http, s3 []*httptest.Server
	proxies  []*faultproxy.Proxy
}

func newCluster(t *testing.T, r *rig) *cluster {
	t.Helper()
	c := &cluster{}
	target := r.storeAddr
	if target == "" {
		target = r.proxy.Addr() // an external MongoDB: chain through the rig's proxy
	}
	for range 3 {
		p, err := faultproxy.Start(target)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		mc, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + p.Addr() + "/?directConnection=true").
			SetServerSelectionTimeout(2 * time.Second).SetConnectTimeout(2 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { mc.Disconnect(context.Background()) })
		db := buckets.NewDB(mc.Database(r.db.Database().Name()))
		log := slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelError}))
		db.SetLogger(log)
		tus, err := resumable.New(resumable.Config{DB: db, Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		gw, err := gateway.New(gateway.Config{DB: db, Logger: log,
			Mounts: []gateway.Mount{{Prefix: resumable.DefaultPrefix, Handler: tus, Signable: tus.Signable}}})
		if err != nil {
			t.Fatal(err)
		}
		authz, err := auth.New(auth.Config{}) // access control off
		if err != nil {
			t.Fatal(err)
		}
		s3srv, err := s3.New(s3.Config{DB: db, Auth: authz, Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		h, s := httptest.NewServer(gw.Handler()), httptest.NewServer(s3srv)
		t.Cleanup(h.Close)
		t.Cleanup(s.Close)
		c.http, c.s3, c.proxies = append(c.http, h), append(c.s3, s), append(c.proxies, p)
	}
	return c
}

// TestLinearizableAcrossGateways: clients write (conditional PUTs through
// the HTTP API and S3, tus uploads with and without preconditions, PATCHes,
// conditional DELETEs) and read a few names
// through three gateways at once while the store connections of the
// gateways are reset, slowed and swallowed; every name's history must be
// linearizable against "the newest revision of the name".
func TestLinearizableAcrossGateways(t *testing.T) {
	r := newRig(t)
	c := newCluster(t, r)
	if res := r.do("PUT", "/buckets/lin", nil, nil); res.status >= 300 {
		t.Fatalf("create bucket: %d %s", res.status, res.body)
	}
	// CI's size; GRIDFSD_TEST_LIN_OPS=N runs N operations per client over
	// as many names as keep each name's history within the checker's 62
	// (36 on average: 62 is over four standard deviations away).
	clients, opsPerClient := 6, envInt("GRIDFSD_TEST_LIN_OPS", 24)
	names := max(3, clients*opsPerClient/36)
	start := time.Now()
	now := func() int64 { return int64(time.Since(start)) }
	httpc := &http.Client{Timeout: 15 * time.Second}
	var mu sync.Mutex
	history := map[string][]op{}
	stopFaults := make(chan struct{})
	var fwg sync.WaitGroup
	fwg.Add(1)
	go func() { // a fault on a random gateway's store connection every 150 ms
		defer fwg.Done()
		rng := rand.New(rand.NewPCG(9, uint64(time.Now().UnixNano())))
		for {
			select {
			case <-stopFaults:
				for _, p := range c.proxies {
					p.Clear()
				}
				return
			case <-time.After(150 * time.Millisecond):
			}
			p := c.proxies[rng.IntN(len(c.proxies))]
			switch rng.IntN(4) {
			case 0:
				p.ResetOnce(int64(50 + rng.IntN(4000)))
			case 1:
				p.ResetAll()
			case 2:
				p.SetLatency(time.Duration(rng.IntN(30)) * time.Millisecond)
			case 3:
				p.BlackHole(true)
				time.Sleep(time.Duration(50+rng.IntN(250)) * time.Millisecond)
				p.BlackHole(false)
			}
		}
	}()
	var wg sync.WaitGroup
	for cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(cl), uint64(time.Now().UnixNano())))
			last := map[string]state{} // what this client last read of each name
			for i := range opsPerClient {
				name := fmt.Sprintf("n%d", rng.IntN(names))
				g := rng.IntN(3)
				o := op{client: cl, gatewayNumber: g}
				body := []byte(fmt.Sprintf("%d-%d", cl, i))
				var req *http.Request
				seen := last[name]
				var tusCond map[string]string // a tus upload's POST headers
				switch k := rng.IntN(14); {
				case k < 3:
					o.kind = opGet
					req, _ = http.NewRequest("GET", c.http[g].URL+"/b/lin/"+name, nil)
				case k == 3:
					o.kind = opS3Head
					req, _ = http.NewRequest("HEAD", c.s3[g].URL+"/lin/"+name, nil)
				case k == 4:
					o.kind = opPutCreate
					req, _ = http.NewRequest("PUT", c.http[g].URL+"/b/lin/"+name, bytes.NewReader(body))
					req.Header.Set("If-None-Match", "*")
				case k == 5 && seen.etag != "":
					o.kind, o.arg = opPutReplace, seen.etag
					req, _ = http.NewRequest("PUT", c.http[g].URL+"/b/lin/"+name, bytes.NewReader(body))
					req.Header.Set("If-Match", seen.etag)
				case k == 6:
					o.kind = opS3PutCreate
					req, _ = http.NewRequest("PUT", c.s3[g].URL+"/lin/"+name, bytes.NewReader(body))
					req.Header.Set("If-None-Match", "*")
				case k == 7:
					o.kind = opS3Put
					req, _ = http.NewRequest("PUT", c.s3[g].URL+"/lin/"+name, bytes.NewReader(body))
				case k == 8 && seen.etag != "":
					o.kind, o.arg = opDelete, seen.etag
					req, _ = http.NewRequest("DELETE", c.http[g].URL+"/b/lin/"+name, nil)
					req.Header.Set("If-Match", seen.etag)
				case k == 9 && seen.etag != "":
					o.kind, o.arg, o.argID = opPatch, seen.etag, seen.id
					req, _ = http.NewRequest("PATCH", c.http[g].URL+"/id/lin/"+seen.id, strings.NewReader(fmt.Sprintf(`{"metadata":{"v":"%d-%d"}}`, cl, i)))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("If-Match", seen.etag)
				case k == 10:
					o.kind, tusCond = opTusPut, map[string]string{}
				case k == 11:
					o.kind, tusCond = opTusCreate, map[string]string{"If-None-Match": "*"}
				case k == 12 && seen.etag != "":
					o.kind, o.arg, tusCond = opTusReplace, seen.etag, map[string]string{"If-Match": seen.etag}
				case k == 13:
					o.kind = opDeleteName
					req, _ = http.NewRequest("DELETE", c.http[g].URL+"/b/lin/"+name, nil)
				default:
					o.kind = opGet
					req, _ = http.NewRequest("GET", c.http[g].URL+"/b/lin/"+name, nil)
				}
				o.call = now()
				var status int
				var hdr http.Header
				var err error
				if tusCond != nil {
					var sent bool
					status, hdr, err, sent = tusUpload(httpc, c, rng, g, name, body, tusCond)
					if !sent {
						continue // the upload was never created: it cannot have taken effect
					}
				} else {
					var res *http.Response
					if res, err = httpc.Do(req); err == nil {
						io.Copy(io.Discard, res.Body)
						res.Body.Close()
						status, hdr = res.StatusCode, res.Header
					}
				}
				o.ret = now()
				idOf := func() string {
					if v := hdr.Get("x-amz-version-id"); v != "" {
						return v
					}
					return hexID.FindString(hdr.Get(gateway.HeaderID))
				}
				switch {
				case err != nil || status >= 500:
					if o.kind == opGet || o.kind == opS3Head {
						continue // a read that failed says nothing
					}
					o.unknown, o.ret = true, never
				case o.kind == opGet && status == 200:
					o.res = state{idOf(), hdr.Get("ETag")}
					last[name] = o.res
				case o.kind == opGet && status == 404, o.kind == opS3Head && status == 404:
					last[name] = state{}
				case o.kind == opS3Head && status == 200:
					o.res = state{id: idOf()}
				case status == 412, o.kind == opDeleteName && status == 404:
					o.ok = false
				case status < 300:
					o.ok = true
					o.res = state{idOf(), hdr.Get("ETag")}
					if o.kind == opS3Put || o.kind == opS3PutCreate || tusCond != nil {
						o.res.etag = "?"
					}
					if tusCond != nil && o.res.id == "" {
						o.res.id = "?" // committed, as a HEAD said after a lost reply
					}
					if o.kind == opDelete || o.kind == opDeleteName {
						o.res = state{}
					}
					if o.kind == opPatch {
						o.res.id = o.argID
					}
					if o.res.etag != "?" { // an S3 client does not learn the HTTP ETag
						last[name] = o.res
					}
				default:
					t.Errorf("%s %s via gateway %d: %d", opNames[o.kind], name, g, status)
					continue
				}
				mu.Lock()
				history[name] = append(history[name], o)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stopFaults)
	fwg.Wait()
	total, unknown, tus := 0, 0, 0
	for name, ops := range history {
		for _, o := range ops {
			total++
			if o.unknown {
				unknown++
			}
			if o.kind >= opTusCreate {
				tus++
			}
		}
		if ok, why := linearizable(ops); !ok {
			t.Errorf("the history of %s is not linearizable:\n%s", name, why)
		}
	}
	var resets int64
	for _, p := range c.proxies {
		resets += p.Resets()
	}
	t.Logf("%d operations (%d tus uploads) on %d names by %d clients through 3 gateways, %d of unknown outcome, %d store connections reset",
		total, tus, len(history), clients, unknown, resets)
}

// tusUpload writes body as name through tus: a POST (with cond's
// preconditions, which the commit checks) on gateway g, then a PATCH of the
// whole body on a gateway picked at random, as a load balancer would. When
// a PATCH fails, or answers 409 (the offset moved: a retried update of the
// upload's record that had landed) or 423 (an earlier PATCH still holds the
// upload), it asks a gateway for the offset and sends the rest, as tus
// clients resume; an offset at the end means the upload committed, the
// file's id unknown (a 204 without X-Gridfs-Id). It returns the last reply,
// or an error when the outcome is unknown; sent is false when no upload was
// created, so nothing can be committed.
func tusUpload(httpc *http.Client, c *cluster, rng *rand.Rand, g int, name string, body []byte, cond map[string]string) (status int, hdr http.Header, err error, sent bool) {
	do := func(g int, method, path string, body []byte, h map[string]string) (*http.Response, error) {
		req, _ := http.NewRequest(method, c.http[g].URL+path, bytes.NewReader(body))
		req.Header.Set("Tus-Resumable", "1.0.0")
		for k, v := range h {
			req.Header.Set(k, v)
		}
		res, err := httpc.Do(req)
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		return res, err
	}
	post := map[string]string{"Upload-Length": fmt.Sprint(len(body)),
		"Upload-Metadata": "filename " + base64.StdEncoding.EncodeToString([]byte(name))}
	for k, v := range cond {
		post[k] = v
	}
	res, err := do(g, "POST", resumable.DefaultPrefix+"lin/", nil, post)
	switch {
	case err != nil || res.StatusCode >= 500:
		return 0, nil, nil, false
	case res.StatusCode == http.StatusPreconditionFailed:
		return res.StatusCode, res.Header, nil, true
	case res.StatusCode != http.StatusCreated || res.Header.Get("Location") == "":
		return 0, nil, fmt.Errorf("tus POST: %d", res.StatusCode), false
	}
	loc := res.Header.Get("Location")
	off := 0
	for range 4 {
		res, err = do(rng.IntN(len(c.http)), "PATCH", loc, body[off:], map[string]string{
			"Upload-Offset": fmt.Sprint(off), "Content-Type": "application/offset+octet-stream"})
		if err == nil && res.StatusCode < 500 && res.StatusCode != http.StatusConflict && res.StatusCode != http.StatusLocked {
			return res.StatusCode, res.Header, nil, true
		}
		head, herr := do(rng.IntN(len(c.http)), "HEAD", loc, nil, nil)
		if herr != nil || head.StatusCode != http.StatusOK {
			return 0, nil, fmt.Errorf("tus PATCH at %d: %v %v, then HEAD: %v %v", off, res, err, head, herr), true
		}
		if off, err = strconv.Atoi(head.Header.Get("Upload-Offset")); err != nil {
			return 0, nil, fmt.Errorf("tus HEAD: offset %q", head.Header.Get("Upload-Offset")), true
		}
		if off == len(body) {
			return http.StatusNoContent, http.Header{}, nil, true
		}
	}
	return 0, nil, fmt.Errorf("tus PATCH: gave up at %d", off), true
}
