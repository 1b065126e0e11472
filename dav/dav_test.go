package dav_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/dav"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/event"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
	"github.com/prometheus/client_golang/prometheus"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// env is a WebDAV door on a fresh database, served at url+"/dav/".
type env struct {
	t     *testing.T
	db    *buckets.DB
	url   string
	reg   *prometheus.Registry
	finds *atomic.Int64 // find commands on *.files collections
}

func newEnv(t *testing.T, a *auth.Authorizer) *env {
	t.Helper()
	e := &env{t: t, reg: prometheus.NewRegistry(), finds: &atomic.Int64{}}
	name := storetest.MustOpenDB(t).Name()
	mon := &event.CommandMonitor{Started: func(_ context.Context, ev *event.CommandStartedEvent) {
		if ev.CommandName == "find" {
			if c, ok := ev.Command.Lookup("find").StringValueOK(); ok && strings.HasSuffix(c, ".files") {
				e.finds.Add(1)
			}
		}
	}}
	client, err := mongo.Connect(options.Client().ApplyURI(storetest.URI(t)).SetMonitor(mon))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Disconnect(context.Background()) })
	e.db = buckets.NewDB(client.Database(name))
	if err := e.db.SetLimits(buckets.Limits{MaxUploadSize: 1 << 20, MaxConcurrentUploads: 4}); err != nil {
		t.Fatal(err)
	}
	srv, err := dav.New(dav.Config{DB: e.db, Auth: a})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Register(e.reg); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	e.url = hs.URL
	return e
}

type reply struct {
	status int
	header http.Header
	body   string
}

func (e *env) do(method, path string, hdr map[string]string, body string) reply {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "user" {
			name, secret, _ := strings.Cut(v, ":")
			req.SetBasicAuth(name, secret)
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return reply{res.StatusCode, res.Header, string(b)}
}

func (e *env) must(method, path string, hdr map[string]string, body string, want int) reply {
	e.t.Helper()
	r := e.do(method, path, hdr, body)
	if r.status != want {
		e.t.Fatalf("%s %s: %d %s, want %d", method, path, r.status, r.body, want)
	}
	return r
}

func (e *env) upload(bucket, name, content string, opts buckets.UploadOptions) *buckets.File {
	e.t.Helper()
	b, err := e.db.Bucket(context.Background(), bucket)
	if err != nil {
		e.t.Fatal(err)
	}
	f, err := b.Upload(context.Background(), name, strings.NewReader(content), opts)
	if err != nil {
		e.t.Fatal(err)
	}
	return f
}

var depth1 = map[string]string{"Depth": "1"}

// multistatus is a PROPFIND reply.
type multistatus struct {
	Responses []struct {
		Href  string `xml:"href"`
		Props []struct {
			Prop struct {
				Inner []byte `xml:",innerxml"`
			} `xml:"prop"`
			Status string `xml:"status"`
		} `xml:"propstat"`
	} `xml:"response"`
}

func hrefs(t *testing.T, body string) []string {
	t.Helper()
	var ms multistatus
	if err := xml.Unmarshal([]byte(body), &ms); err != nil {
		t.Fatalf("PROPFIND reply: %v\n%s", err, body)
	}
	var out []string
	for _, r := range ms.Responses {
		out = append(out, r.Href)
	}
	slices.Sort(out)
	return out
}

// PROPFIND of depth 1 lists a folder as the UI does: files and folders
// (from "/" in names, markers or not), each once however many revisions,
// and costs a few indexed listings, not a query per entry.
func TestPropfindListsFolders(t *testing.T) {
	e := newEnv(t, nil)
	for _, n := range []string{"top.txt", "top.txt", "photos/", "photos/a.jpg", "photos/2024/b.jpg", "docs/x y é.txt", "empty/"} {
		e.upload("media", n, n, buckets.UploadOptions{})
	}
	for i := range 60 {
		e.upload("media", fmt.Sprintf("many/f%02d", i), "x", buckets.UploadOptions{})
	}
	got := hrefs(t, e.must("PROPFIND", "/dav/media/", depth1, "", 207).body)
	want := []string{"/dav/media/", "/dav/media/docs/", "/dav/media/empty/", "/dav/media/many/", "/dav/media/photos/", "/dav/media/top.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("PROPFIND /dav/media/: %q, want %q", got, want)
	}
	got = hrefs(t, e.must("PROPFIND", "/dav/media/photos/", depth1, "", 207).body)
	want = []string{"/dav/media/photos/", "/dav/media/photos/2024/", "/dav/media/photos/a.jpg"}
	if !slices.Equal(got, want) {
		t.Errorf("PROPFIND /dav/media/photos/: %q, want %q", got, want)
	}
	got = hrefs(t, e.must("PROPFIND", "/dav/media/docs/", depth1, "", 207).body)
	if want := []string{"/dav/media/docs/", "/dav/media/docs/x%20y%20%C3%A9.txt"}; !slices.Equal(got, want) {
		t.Errorf("PROPFIND /dav/media/docs/: %q, want %q", got, want)
	}
	got = hrefs(t, e.must("PROPFIND", "/dav/", depth1, "", 207).body)
	if want := []string{"/dav/", "/dav/media/"}; !slices.Equal(got, want) {
		t.Errorf("PROPFIND /dav/: %q, want %q", got, want)
	}
	before := e.finds.Load()
	r := e.must("PROPFIND", "/dav/media/many/", depth1, "", 207)
	if n := len(hrefs(t, r.body)); n != 61 {
		t.Fatalf("PROPFIND of 60 files: %d entries", n)
	}
	// The folder's marker, whether anything is in it (each asked once
	// however often webdav stats the folder) and one listing: a query per
	// entry would be 60 more.
	if n := e.finds.Load() - before; n > 3 {
		t.Errorf("PROPFIND of a folder of 60 files ran %d queries of the files collection, want 3", n)
	}
	if !strings.Contains(r.body, "<D:getcontentlength>1</D:getcontentlength>") || !strings.Contains(r.body, "getetag") {
		t.Errorf("entries lack their length or ETag:\n%.600s", r.body)
	}
}

// A range read through WebDAV fetches only the chunks that hold it, and
// the whole file reads back byte for byte.
func TestGetRangeFetchesItsChunks(t *testing.T) {
	e := newEnv(t, nil)
	data := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	e.upload("media", "big.bin", string(data), buckets.UploadOptions{ChunkSize: 1024})
	r := e.must("GET", "/dav/media/big.bin", map[string]string{"Range": "bytes=40000-40099"}, "", 206)
	if r.body != string(data[40000:40100]) {
		t.Errorf("range: %q", r.body)
	}
	if got := e.metric("gridfsd_dav_store_read_bytes_total"); got > 2*1024 {
		t.Errorf("a 100-byte range fetched %v bytes from the store, want at most 2 chunks of 1024", got)
	}
	r = e.must("GET", "/dav/media/big.bin", nil, "", 200)
	if r.body != string(data) {
		t.Errorf("whole file: %d bytes back", len(r.body))
	}
	for k, want := range map[string]string{"Accept-Ranges": "bytes", "Content-Security-Policy": "sandbox", "X-Content-Type-Options": "nosniff"} {
		if got := r.header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	r = e.must("GET", "/dav/media/big.bin", map[string]string{"Range": "bytes=70000-"}, "", 416)
	e.must("GET", "/dav/media/nothing", nil, "", 404)
	e.must("GET", "/dav/media/", nil, "", 405)
}

func (e *env) metric(name string) float64 {
	e.t.Helper()
	mfs, err := e.reg.Gather()
	if err != nil {
		e.t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	e.t.Fatalf("no metric %s", name)
	return 0
}

// Dead properties and the modification times clients set are kept in the
// files document's metadata and served back; the time as getlastmodified.
func TestPropertiesKeptInMetadata(t *testing.T) {
	e := newEnv(t, nil)
	e.must("MKCOL", "/dav/docs/", nil, "", 201)
	r := e.must("PUT", "/dav/docs/a.txt", map[string]string{"X-OC-Mtime": "1700000000", "Content-Type": "text/markdown"}, "hello", 201)
	if r.header.Get("X-OC-MTime") != "accepted" {
		t.Errorf("X-OC-MTime reply: %q", r.header.Get("X-OC-MTime"))
	}
	patch := `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:schemas-microsoft-com:" xmlns:x="urn:example:">` +
		`<D:set><D:prop><x:color>blue</x:color></D:prop></D:set></D:propertyupdate>`
	e.must("PROPPATCH", "/dav/docs/a.txt", nil, patch, 207)
	b, _ := e.db.Bucket(context.Background(), "docs")
	f, err := b.FindByName(context.Background(), "a.txt", -1)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Metadata.Lookup("mtime").StringValue(); got != "1700000000.000000000" {
		t.Errorf("metadata.mtime %q", got)
	}
	if got := f.Metadata.Lookup("contentType").StringValue(); got != "text/markdown" {
		t.Errorf("metadata.contentType %q", got)
	}
	if !strings.Contains(f.Metadata.String(), `"urn:example:"`) || !strings.Contains(f.Metadata.String(), `"blue"`) {
		t.Errorf("metadata lacks the dead property: %s", f.Metadata)
	}
	find := `<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:x="urn:example:"><D:prop><x:color/><D:getlastmodified/><D:getcontenttype/></D:prop></D:propfind>`
	r = e.must("PROPFIND", "/dav/docs/a.txt", map[string]string{"Depth": "0"}, find, 207)
	for _, want := range []string{"blue", "Tue, 14 Nov 2023 22:13:20 GMT", "text/markdown"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("PROPFIND lacks %q:\n%s", want, r.body)
		}
	}
	// Windows sets the time with PROPPATCH after its PUT.
	win := `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:schemas-microsoft-com:">` +
		`<D:set><D:prop><Z:Win32LastModifiedTime>Wed, 01 Jan 2020 10:00:00 GMT</Z:Win32LastModifiedTime></D:prop></D:set></D:propertyupdate>`
	e.must("PROPPATCH", "/dav/docs/a.txt", nil, win, 207)
	r = e.must("PROPFIND", "/dav/docs/", depth1, "", 207)
	if !strings.Contains(r.body, "Wed, 01 Jan 2020 10:00:00 GMT") {
		t.Errorf("getlastmodified after Win32LastModifiedTime:\n%s", r.body)
	}
	if r := e.must("GET", "/dav/docs/a.txt", nil, "", 200); r.header.Get("Last-Modified") != "Wed, 01 Jan 2020 10:00:00 GMT" {
		t.Errorf("Last-Modified %q", r.header.Get("Last-Modified"))
	}
	// A COPY keeps all of it.
	e.must("COPY", "/dav/docs/a.txt", map[string]string{"Destination": e.url + "/dav/docs/b.txt"}, "", 201)
	r = e.must("PROPFIND", "/dav/docs/b.txt", map[string]string{"Depth": "0"}, find, 207)
	for _, want := range []string{"blue", "text/markdown"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the copy lacks %q:\n%s", want, r.body)
		}
	}
	// A folder keeps its properties on its marker, made when missing.
	e.upload("docs", "implicit/x.txt", "x", buckets.UploadOptions{})
	e.must("PROPPATCH", "/dav/docs/implicit/", nil, patch, 207)
	if r := e.must("PROPFIND", "/dav/docs/implicit/", map[string]string{"Depth": "0"}, find, 207); !strings.Contains(r.body, "blue") {
		t.Errorf("folder property:\n%s", r.body)
	}
	// Quota of a bucket, on MongoDB (no DiskSpace): what it holds, and
	// no quota-available-bytes, which gridfsd does not know there.
	r = e.must("PROPFIND", "/dav/docs/", map[string]string{"Depth": "0"}, quotaFind, 207)
	if !strings.Contains(r.body, "<D:quota-used-bytes>11</D:quota-used-bytes>") ||
		!strings.Contains(r.body, "<D:quota-available-bytes></D:quota-available-bytes></D:prop><D:status>HTTP/1.1 404") {
		t.Errorf("quota of a bucket of two 5-byte files and one of 1, free space unknown:\n%s", r.body)
	}
}

var quotaFind = `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:quota-used-bytes/><D:quota-available-bytes/></D:prop></D:propfind>`

// fixedSpace is a store with a given room left (buckets.DiskSpace).
type fixedSpace struct{ free atomic.Uint64 }

func (s *fixedSpace) FreeBytes() (uint64, error) { return s.free.Load(), nil }

// RFC 4331's quota: used is what the bucket holds (a folder counts against
// its bucket), available the store's room above its reserve (the
// embedded store's --min-free-space), 0 below it; the root has only the
// room; the entries of a listing answer neither (a scan each).
func TestQuota(t *testing.T) {
	e := newEnv(t, nil)
	disk := &fixedSpace{}
	disk.free.Store(10 << 30)
	e.db.SetDiskSpace(disk, 1<<30)
	e.upload("media", "a/x", "12345", buckets.UploadOptions{})
	e.upload("media", "b", "123", buckets.UploadOptions{})
	e.upload("other", "c", "1", buckets.UploadOptions{})
	// A value answered, or "absent" (404 in its propstat).
	prop := func(body, name string) string {
		m := regexp.MustCompile("<D:"+name+">([0-9]+)</D:"+name+">").FindAllStringSubmatch(body, -1)
		if len(m) != 1 {
			return "absent"
		}
		return m[0][1]
	}
	depth0 := map[string]string{"Depth": "0"}
	for _, c := range []struct{ path, used, avail string }{
		{"/dav/media/", "8", "9663676416"},
		{"/dav/media/a/", "8", "9663676416"},
		{"/dav/", "absent", "9663676416"},
	} {
		r := e.must("PROPFIND", c.path, depth0, quotaFind, 207)
		if u, a := prop(r.body, "quota-used-bytes"), prop(r.body, "quota-available-bytes"); u != c.used || a != c.avail {
			t.Errorf("PROPFIND %s: used %s, available %s; want %s, %s\n%s", c.path, u, a, c.used, c.avail, r.body)
		}
	}
	// Listed entries: only the folder named has them.
	r := e.must("PROPFIND", "/dav/media/", depth1, quotaFind, 207)
	if n := len(regexp.MustCompile("<D:quota-used-bytes>[0-9]").FindAllString(r.body, -1)); n != 1 {
		t.Errorf("a listing of 2 entries answers quota-used-bytes %d times, want once (the folder)\n%s", n, r.body)
	}
	// Below the reserve: nothing is available.
	disk.free.Store(1 << 29)
	if a := prop(e.must("PROPFIND", "/dav/media/", depth0, quotaFind, 207).body, "quota-available-bytes"); a != "0" {
		t.Errorf("quota-available-bytes below the reserve: %s, want 0", a)
	}
	// allprop leaves them out (RFC 4331 3).
	if r := e.must("PROPFIND", "/dav/media/", depth0, "", 207); strings.Contains(r.body, "quota-") {
		t.Errorf("allprop answers the quota:\n%s", r.body)
	}
}

// MOVE renames every revision of a name, and a folder with everything in
// it; DELETE of a folder deletes what is in it.
func TestMoveAndDeleteFolders(t *testing.T) {
	e := newEnv(t, nil)
	for _, n := range []string{"a/one", "a/one", "a/sub/two", "a/", "ab"} {
		e.upload("fs", n, n, buckets.UploadOptions{})
	}
	list := func() []string {
		b, _ := e.db.Bucket(context.Background(), "fs")
		var out []string
		b.Each(context.Background(), buckets.Query{}, func(f *buckets.File) error {
			out = append(out, f.Filename)
			return nil
		})
		return out
	}
	e.must("MOVE", "/dav/fs/a/one", map[string]string{"Destination": e.url + "/dav/fs/a/uno"}, "", 201)
	if got, want := list(), []string{"a/", "a/sub/two", "a/uno", "a/uno", "ab"}; !slices.Equal(got, want) {
		t.Errorf("after MOVE of a file: %q, want %q", got, want)
	}
	e.must("MOVE", "/dav/fs/a/", map[string]string{"Destination": e.url + "/dav/fs/b/"}, "", 201)
	if got, want := list(), []string{"ab", "b/", "b/sub/two", "b/uno", "b/uno"}; !slices.Equal(got, want) {
		t.Errorf("after MOVE of a folder: %q, want %q", got, want)
	}
	// Overwrite: the destination's revisions give way to the source's.
	e.upload("fs", "b/dos", "old", buckets.UploadOptions{})
	e.must("MOVE", "/dav/fs/b/sub/two", map[string]string{"Destination": e.url + "/dav/fs/b/dos", "Overwrite": "F"}, "", 412)
	e.must("MOVE", "/dav/fs/b/sub/two", map[string]string{"Destination": e.url + "/dav/fs/b/dos"}, "", 204)
	if got := e.must("GET", "/dav/fs/b/dos", nil, "", 200).body; got != "a/sub/two" {
		t.Errorf("after MOVE onto a file: %q", got)
	}
	if got, want := list(), []string{"ab", "b/", "b/dos", "b/uno", "b/uno"}; !slices.Equal(got, want) {
		t.Errorf("after MOVE onto a file: %q, want %q", got, want)
	}
	e.must("MOVE", "/dav/fs/b/uno", map[string]string{"Destination": e.url + "/dav/fs/nowhere/uno"}, "", 409)
	e.must("MOVE", "/dav/fs/b/uno", map[string]string{"Destination": e.url + "/dav/other/uno"}, "", 403)
	e.must("DELETE", "/dav/fs/b/", nil, "", 204)
	if got, want := list(), []string{"ab"}; !slices.Equal(got, want) {
		t.Errorf("after DELETE of a folder: %q, want %q", got, want)
	}
	e.must("PUT", "/dav/fs/missing/parent.txt", nil, "x", 409)
	e.must("PUT", "/dav/nobucket/x.txt", nil, "x", 409)
	e.must("MKCOL", "/dav/fs/ab/", nil, "", 405)
	e.must("PUT", "/dav/fs/big", nil, strings.Repeat("x", 1<<20+1), 413)
	if got, want := list(), []string{"ab"}; !slices.Equal(got, want) {
		t.Errorf("refused writes left %q", got)
	}
}

// Access: HTTP Basic with a token's name and secret, bearer tokens, the
// bucket's access level, anonymous_read buckets, and a 401 that asks for
// Basic.
func TestAccess(t *testing.T) {
	a, err := auth.New(auth.Config{
		Tokens: []auth.Token{
			{Name: "writer", Secret: "writer-secret-0123456789", Buckets: []string{"media"}, Access: auth.Write},
			{Name: "reader", Secret: "reader-secret-0123456789", Buckets: []string{"media", "public"}, Access: auth.Read},
			{Name: "admin", Secret: "admin-secret-0123456789", Buckets: []string{"*"}, Access: auth.Admin},
		},
		AnonymousRead: []string{"public"},
	})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, a)
	e.upload("media", "m.txt", "media", buckets.UploadOptions{})
	e.upload("public", "p.txt", "public", buckets.UploadOptions{})
	e.upload("secret", "s.txt", "secret", buckets.UploadOptions{})
	writer := map[string]string{"user": "writer:writer-secret-0123456789"}
	reader := map[string]string{"user": "reader:reader-secret-0123456789"}
	for _, tc := range []struct {
		method, path string
		hdr          map[string]string
		want         int
	}{
		{"PROPFIND", "/dav/", map[string]string{"Depth": "1"}, 401},
		{"GET", "/dav/media/m.txt", nil, 401},
		{"GET", "/dav/public/p.txt", nil, 200},
		{"PROPFIND", "/dav/public/", map[string]string{"Depth": "1"}, 207},
		{"PUT", "/dav/public/new.txt", nil, 401},
		{"GET", "/dav/media/m.txt", reader, 200},
		{"PUT", "/dav/media/r.txt", reader, 403},
		{"GET", "/dav/secret/s.txt", reader, 403},
		{"PUT", "/dav/media/w.txt", writer, 201},
		{"MKCOL", "/dav/newbucket/", writer, 403},
		{"MKCOL", "/dav/newbucket/", map[string]string{"user": "admin:admin-secret-0123456789"}, 201},
		{"GET", "/dav/media/m.txt", map[string]string{"user": "writer:wrong-secret-0123456789"}, 401},
		{"GET", "/dav/media/m.txt", map[string]string{"user": "reader:writer-secret-0123456789"}, 401},
		{"GET", "/dav/media/m.txt", map[string]string{"Authorization": "Bearer writer-secret-0123456789"}, 200},
		{"COPY", "/dav/media/m.txt", map[string]string{"user": "reader:reader-secret-0123456789", "Destination": "/dav/media/c.txt"}, 403},
	} {
		body := ""
		if tc.method == "PUT" {
			body = "x"
		}
		r := e.do(tc.method, tc.path, tc.hdr, body)
		if r.status != tc.want {
			t.Errorf("%s %s %v: %d %s, want %d", tc.method, tc.path, tc.hdr, r.status, r.body, tc.want)
		}
		if r.status == 401 && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Basic realm=") {
			t.Errorf("%s %s: 401 with WWW-Authenticate %q", tc.method, tc.path, r.header.Get("WWW-Authenticate"))
		}
	}
	// The root lists what the caller may read.
	got := hrefs(t, e.must("PROPFIND", "/dav/", map[string]string{"Depth": "1", "user": "reader:reader-secret-0123456789"}, "", 207).body)
	if want := []string{"/dav/", "/dav/media/", "/dav/public/"}; !slices.Equal(got, want) {
		t.Errorf("root for the reader: %q, want %q", got, want)
	}
}

// Uploads through WebDAV take the same max-concurrent-uploads slots as
// every door: with all taken, a PUT is 503 with Retry-After and stores
// nothing.
func TestUploadSlotsAreShared(t *testing.T) {
	e := newEnv(t, nil)
	e.must("MKCOL", "/dav/fs/", nil, "", 201)
	var releases []func()
	for range 4 {
		release, err := e.db.AcquireUpload()
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, release)
	}
	r := e.must("PUT", "/dav/fs/a.txt", nil, "a", 503)
	if r.header.Get("Retry-After") == "" {
		t.Errorf("503 without Retry-After")
	}
	e.must("GET", "/dav/fs/a.txt", nil, "", 404)
	releases[0]()
	e.must("PUT", "/dav/fs/a.txt", nil, "a", 201)
	for _, release := range releases[1:] {
		release()
	}
}

// A lock is its taker's (RFC 4918 6.4): another principal that presents
// its token writes nothing, and may neither refresh nor remove it; the
// taker may do all three.
func TestLocksBelongToTheirPrincipal(t *testing.T) {
	a, err := auth.New(auth.Config{Tokens: []auth.Token{
		{Name: "alice", Secret: "alice-secret-0123456789", Buckets: []string{"media"}, Access: auth.Write},
		{Name: "bob", Secret: "bob-secret-0123456789", Buckets: []string{"media"}, Access: auth.Write},
	}})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, a)
	e.upload("media", "f.txt", "original", buckets.UploadOptions{})
	alice := map[string]string{"user": "alice:alice-secret-0123456789"}
	bob := map[string]string{"user": "bob:bob-secret-0123456789"}
	with := func(who map[string]string, kv ...string) map[string]string {
		h := maps.Clone(who)
		for i := 0; i < len(kv); i += 2 {
			h[kv[i]] = kv[i+1]
		}
		return h
	}
	lockBody := `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>alice</D:owner></D:lockinfo>`
	token := e.must("LOCK", "/dav/media/f.txt", alice, lockBody, 200).header.Get("Lock-Token")
	if token == "" {
		t.Fatal("LOCK answered no Lock-Token")
	}
	ifToken := "(" + token + ")"
	for _, c := range []struct {
		method string
		hdr    map[string]string
		body   string
		want   int
	}{
		{"PUT", with(bob, "If", ifToken), "bob's", 412},
		{"PUT", with(bob, "If", "<"+e.url+"/dav/media/f.txt> "+ifToken), "bob's", 412},
		{"PUT", bob, "bob's", 423},
		{"DELETE", with(bob, "If", ifToken), "", 412},
		{"LOCK", with(bob, "If", ifToken, "Timeout", "Second-60"), "", 403},
		{"UNLOCK", with(bob, "Lock-Token", token), "", 403},
		{"PUT", with(alice, "If", ifToken), "alice's", 201},
		{"LOCK", with(alice, "If", ifToken, "Timeout", "Second-60"), "", 200},
		{"UNLOCK", with(alice, "Lock-Token", token), "", 204},
		{"PUT", bob, "bob's", 201},
	} {
		if r := e.do(c.method, "/dav/media/f.txt", c.hdr, c.body); r.status != c.want {
			t.Fatalf("%s as %s %v: %d %s, want %d", c.method, c.hdr["user"], c.hdr, r.status, r.body, c.want)
		}
		if c.want == 412 || c.want == 423 || c.want == 403 {
			if got := e.must("GET", "/dav/media/f.txt", alice, "", 200).body; got != "original" && got != "alice's" {
				t.Fatalf("after a refused %s by bob, the file holds %q", c.method, got)
			}
		}
	}
}

// A name whose newest revision is a delete marker (S3 versioning) is
// absent through WebDAV: not listed, 404; a DELETE in such a bucket
// writes a marker, and the revisions stay.
func TestDeleteMarkersHideNames(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	e.upload("vers", "gone.txt", "old", buckets.UploadOptions{})
	e.upload("vers", "kept.txt", "x", buckets.UploadOptions{})
	e.upload("vers", "dav.txt", "y", buckets.UploadOptions{})
	b, err := e.db.SetVersioning(ctx, "vers", buckets.VersioningEnabled)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.MarkDeleted(ctx, "gone.txt", buckets.Conditions{}); err != nil {
		t.Fatal(err)
	}
	e.must("DELETE", "/dav/vers/dav.txt", nil, "", 204)
	got := hrefs(t, e.must("PROPFIND", "/dav/vers/", depth1, "", 207).body)
	if want := []string{"/dav/vers/", "/dav/vers/kept.txt"}; !slices.Equal(got, want) {
		t.Errorf("PROPFIND /dav/vers/: %q, want %q", got, want)
	}
	for _, p := range []string{"/dav/vers/gone.txt", "/dav/vers/dav.txt"} {
		e.must("GET", p, nil, "", 404)
		e.must("PROPFIND", p, map[string]string{"Depth": "0"}, "", 404)
	}
	if n, err := b.FilesCollection().CountDocuments(ctx, map[string]any{"filename": "dav.txt"}); err != nil || n != 2 {
		t.Errorf("dav.txt has %d files documents, want its revision and a marker (%v)", n, err)
	}
}

// In a versioned bucket a folder whose only name was deleted is gone
// through WebDAV as from the HTTP listing and S3: not listed, 404.
func TestPropfindHidesDeletedFolders(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	b, err := e.db.SetVersioning(ctx, "vb", buckets.VersioningEnabled)
	if err != nil {
		t.Fatal(err)
	}
	e.upload("vb", "keep.txt", "k", buckets.UploadOptions{})
	e.upload("vb", "gone/a.txt", "a", buckets.UploadOptions{})
	if _, err := b.DeleteName(ctx, "gone/a.txt"); err != nil {
		t.Fatal(err)
	}
	got := hrefs(t, e.must("PROPFIND", "/dav/vb/", depth1, "", 207).body)
	if want := []string{"/dav/vb/", "/dav/vb/keep.txt"}; !slices.Equal(got, want) {
		t.Errorf("PROPFIND /dav/vb/: %q, want %q", got, want)
	}
	e.must("PROPFIND", "/dav/vb/gone/", depth1, "", 404)
}

// A PUT the store's reserve refuses while it streams is a 507, and leaves
// nothing: before, the commit that webdav asks for after the failed copy
// failed in its turn ("chunker: closed"), and that error, a 500, replaced
// the refusal (tests/disk TestFullDisk, when the disk had a little more
// room than the reserve as the PUT began).
func TestPutRefusedWhileStreaming(t *testing.T) {
	e := newEnv(t, nil)
	if err := e.db.SetLimits(buckets.Limits{MaxUploadSize: 64 << 20, MaxConcurrentUploads: 4}); err != nil {
		t.Fatal(err)
	}
	e.upload("media", "x", "1", buckets.UploadOptions{})
	disk := &fillingSpace{}
	disk.free.Store(1<<30 + 3<<20)
	e.db.SetDiskSpace(disk, 1<<30)
	r := e.do("PUT", "/dav/media/big", nil, strings.Repeat("0123456789abcdef", 8<<20/16))
	if r.status != http.StatusInsufficientStorage {
		t.Fatalf("PUT of 8 MiB with 3 MiB above the reserve: %d %s, want 507", r.status, r.body)
	}
	e.must("GET", "/dav/media/big", nil, "", 404)
}

// fillingSpace is a store whose room shrinks by a MiB each time it is
// asked (an upload asks every MiB it writes).
type fillingSpace struct{ free atomic.Uint64 }

func (s *fillingSpace) FreeBytes() (uint64, error) { return s.free.Add(^uint64(1<<20 - 1)), nil }

// TestConcurrentPropPatchesKeepEach: PROPPATCHes of different properties
// of one file at once all land. Each reads the metadata, changes it and
// writes it back; without a condition on the version it read, the last
// writer removed what the others had set meanwhile.
func TestConcurrentPropPatchesKeepEach(t *testing.T) {
	e := newEnv(t, nil)
	e.must("MKCOL", "/dav/docs/", nil, "", 201)
	e.must("PUT", "/dav/docs/a.txt", nil, "hello", 201)
	const n = 8
	statuses := make(chan int, n)
	for i := range n {
		go func() {
			patch := fmt.Sprintf(`<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:x="urn:example:">`+
				`<D:set><D:prop><x:p%d>v%d</x:p%d></D:prop></D:set></D:propertyupdate>`, i, i, i)
			statuses <- e.do("PROPPATCH", "/dav/docs/a.txt", nil, patch).status
		}()
	}
	for range n {
		if s := <-statuses; s != 207 {
			t.Errorf("PROPPATCH: %d, want 207", s)
		}
	}
	b, _ := e.db.Bucket(context.Background(), "docs")
	f, err := b.FindByName(context.Background(), "a.txt", -1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if want := fmt.Sprintf(`"v%d"`, i); !strings.Contains(f.Metadata.String(), want) {
			t.Errorf("property p%d lost: %s", i, f.Metadata)
		}
	}
}

// TestMoveOntoANameWrittenMeanwhile: a file written at a MOVE's
// destination after webdav found the destination free, and before the
// rename, makes a MOVE with Overwrite: F fail (412) and is replaced by one
// with Overwrite: T. Before, both moves merged the moved revisions into
// the new file's name: the move answered success and the name still showed
// the other writer's content.
func TestMoveOntoANameWrittenMeanwhile(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		overwrite string
		status    int
		want      string // b.txt's content after the move
		revisions int
	}{
		{"F", 412, "written meanwhile", 1},
		{"T", 201, "moved", 1},
	} {
		e := newEnv(t, nil)
		e.must("MKCOL", "/dav/docs/", nil, "", 201)
		e.must("PUT", "/dav/docs/a.txt", nil, "moved", 201)
		b, err := e.db.Bucket(ctx, "docs")
		if err != nil {
			t.Fatal(err)
		}
		restore := dav.SetRenameStarting(func() {
			if _, err := b.Upload(ctx, "b.txt", strings.NewReader("written meanwhile"), buckets.UploadOptions{}); err != nil {
				t.Error(err)
			}
		})
		r := e.do("MOVE", "/dav/docs/a.txt", map[string]string{"Destination": e.url + "/dav/docs/b.txt", "Overwrite": c.overwrite}, "")
		restore()
		if r.status != c.status {
			t.Errorf("Overwrite: %s: MOVE %d %s, want %d", c.overwrite, r.status, r.body, c.status)
		}
		if got := e.must("GET", "/dav/docs/b.txt", nil, "", 200).body; got != c.want {
			t.Errorf("Overwrite: %s: b.txt is %q, want %q", c.overwrite, got, c.want)
		}
		page, err := b.Find(ctx, buckets.Query{Prefix: "b.txt"})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Files) != c.revisions {
			t.Errorf("Overwrite: %s: %d revisions of b.txt, want %d", c.overwrite, len(page.Files), c.revisions)
		}
		if _, err := b.FindByName(ctx, "a.txt", -1); (err == nil) != (c.overwrite == "F") {
			t.Errorf("Overwrite: %s: a.txt left: %v", c.overwrite, err == nil)
		}
	}
}

// TestCopyOverAFileKeepsItOnFailure: webdav deletes a COPY's destination
// before it copies; a copy that then fails (the disk fills) must leave the
// destination as it was. Before, the destination was gone.
func TestCopyOverAFileKeepsItOnFailure(t *testing.T) {
	e := newEnv(t, nil)
	if err := e.db.SetLimits(buckets.Limits{MaxUploadSize: 64 << 20, MaxConcurrentUploads: 4}); err != nil {
		t.Fatal(err)
	}
	e.upload("media", "big", strings.Repeat("0123456789abcdef", 8<<20/16), buckets.UploadOptions{})
	e.upload("media", "dst", "keep me", buckets.UploadOptions{})
	e.upload("media", "small", "copied", buckets.UploadOptions{})
	disk := &fillingSpace{}
	disk.free.Store(1<<30 + 3<<20)
	e.db.SetDiskSpace(disk, 1<<30)
	r := e.do("COPY", "/dav/media/big", map[string]string{"Destination": e.url + "/dav/media/dst", "Overwrite": "T"}, "")
	if r.status != http.StatusInsufficientStorage {
		t.Errorf("COPY of 8 MiB with 3 MiB above the reserve: %d %s, want 507", r.status, r.body)
	}
	if got := e.must("GET", "/dav/media/dst", nil, "", 200).body; got != "keep me" {
		t.Errorf("the destination after a failed COPY: %q", got)
	}
	// With room, the copy replaces the destination, earlier revision and all.
	disk.free.Store(10 << 30)
	e.must("COPY", "/dav/media/small", map[string]string{"Destination": e.url + "/dav/media/dst", "Overwrite": "T"}, "", 204)
	if got := e.must("GET", "/dav/media/dst", nil, "", 200).body; got != "copied" {
		t.Errorf("the destination after a COPY: %q", got)
	}
	b, _ := e.db.Bucket(context.Background(), "media")
	if page, err := b.Find(context.Background(), buckets.Query{Prefix: "dst"}); err != nil || len(page.Files) != 1 {
		t.Errorf("revisions of the destination after a COPY: %d, %v; want 1", len(page.Files), err)
	}
}

// TestMoveOntoAFolderKeepsItOnFailure: webdav deletes a MOVE's destination
// before the rename; a folder's move that is then refused (a name it would
// give is too long) must leave the destination folder as it was, and one
// that succeeds must leave only what it moved there. Before, a refused move
// had deleted the destination's files.
func TestMoveOntoAFolderKeepsItOnFailure(t *testing.T) {
	e := newEnv(t, nil)
	long := strings.Repeat("x", 900)
	dst := "d" + strings.Repeat("y", 200)
	e.upload("fs", "a/"+long, "too long a name once moved", buckets.UploadOptions{})
	e.upload("fs", "b/one", "moved", buckets.UploadOptions{})
	e.upload("fs", dst+"/keep", "kept", buckets.UploadOptions{})
	over := map[string]string{"Destination": e.url + "/dav/fs/" + dst + "/", "Overwrite": "T"}
	if r := e.do("MOVE", "/dav/fs/a/", over, ""); r.status < 400 {
		t.Errorf("MOVE giving a name of over 1024 bytes: %d, want a refusal", r.status)
	}
	if got := e.must("GET", "/dav/fs/"+dst+"/keep", nil, "", 200).body; got != "kept" {
		t.Errorf("the destination's file after a refused MOVE: %q", got)
	}
	e.must("GET", "/dav/fs/a/"+long, nil, "", 200)
	e.must("MOVE", "/dav/fs/b/", over, "", 204)
	if got := e.must("GET", "/dav/fs/"+dst+"/one", nil, "", 200).body; got != "moved" {
		t.Errorf("the moved file: %q", got)
	}
	e.must("GET", "/dav/fs/"+dst+"/keep", nil, "", 404)
	e.must("GET", "/dav/fs/b/one", nil, "", 404)
	// A file moved onto a folder replaces the folder, once it is moved.
	e.upload("fs", "c", "a file", buckets.UploadOptions{})
	e.must("MOVE", "/dav/fs/c", map[string]string{"Destination": e.url + "/dav/fs/" + dst, "Overwrite": "T"}, "", 204)
	if got := e.must("GET", "/dav/fs/"+dst, nil, "", 200).body; got != "a file" {
		t.Errorf("the file moved onto a folder: %q", got)
	}
	e.must("GET", "/dav/fs/"+dst+"/one", nil, "", 404)
}

// TestCopyOfAnUnreadableFile: a COPY whose source cannot be read is the
// store's failure, not a client's body that ended early: a 5xx, not 400.
// (On a full disk the read of the source can fail first, and the COPY was
// then a 400 instead of 507.)
func TestCopyOfAnUnreadableFile(t *testing.T) {
	e := newEnv(t, nil)
	f := e.upload("media", "src", strings.Repeat("x", 300<<10), buckets.UploadOptions{})
	b, _ := e.db.Bucket(context.Background(), "media")
	if _, err := b.ChunksCollection().DeleteMany(context.Background(), bson.D{{Key: "files_id", Value: f.ID}, {Key: "n", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	r := e.do("COPY", "/dav/media/src", map[string]string{"Destination": e.url + "/dav/media/dst"}, "")
	if r.status < 500 {
		t.Errorf("COPY of a file whose chunk is gone: %d %s, want a 5xx", r.status, r.body)
	}
	e.must("GET", "/dav/media/dst", nil, "", 404)
}

// TestCopyFolderOverAFolder: webdav deletes a COPY's destination before
// it copies; a folder's copy over a folder that then fails (the disk fills)
// must leave the destination's files, and one that succeeds must leave
// exactly the copy's. Before, the failed copy had deleted them.
func TestCopyFolderOverAFolder(t *testing.T) {
	e := newEnv(t, nil)
	if err := e.db.SetLimits(buckets.Limits{MaxUploadSize: 64 << 20, MaxConcurrentUploads: 4}); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("0123456789abcdef", 8<<20/16)
	for name, content := range map[string]string{"src/a": big, "src/b": "new b", "dst/a": "old a", "dst/c": "old c"} {
		e.upload("media", name, content, buckets.UploadOptions{})
	}
	disk := &fillingSpace{}
	disk.free.Store(1<<30 + 3<<20)
	e.db.SetDiskSpace(disk, 1<<30)
	over := map[string]string{"Destination": e.url + "/dav/media/dst/", "Overwrite": "T"}
	if r := e.do("COPY", "/dav/media/src/", over, ""); r.status != http.StatusInsufficientStorage {
		t.Errorf("COPY of a folder with 8 MiB and 3 MiB above the reserve: %d %s, want 507", r.status, r.body)
	}
	for name, want := range map[string]string{"dst/a": "old a", "dst/c": "old c"} {
		if got := e.must("GET", "/dav/media/"+name, nil, "", 200).body; got != want {
			t.Errorf("%s after a failed COPY: %q, want %q", name, got, want)
		}
	}
	disk.free.Store(10 << 30)
	e.must("COPY", "/dav/media/src/", over, "", 204)
	if got := e.must("GET", "/dav/media/dst/a", nil, "", 200).body; got != big {
		t.Errorf("dst/a after the COPY: %d bytes, want the copy's %d", len(got), len(big))
	}
	if got := e.must("GET", "/dav/media/dst/b", nil, "", 200).body; got != "new b" {
		t.Errorf("dst/b after the COPY: %q", got)
	}
	e.must("GET", "/dav/media/dst/c", nil, "", 404)
	b, _ := e.db.Bucket(context.Background(), "media")
	page, err := b.Find(context.Background(), buckets.Query{Prefix: "dst/"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range page.Files {
		names = append(names, f.Filename)
	}
	if want := []string{"dst/", "dst/a", "dst/b"}; !slices.Equal(names, want) {
		t.Errorf("files under dst/ after the COPY: %q, want %q (one revision each)", names, want)
	}
}
