package dav_test

import (
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
)

const exclusiveLockBody = `<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>holder</D:owner></D:lockinfo>`

// A write must present the token of every lock on what it changes,
// whatever resource the If header's lists are about: a tagged list
// (RFC 4918 10.4.3) about another file holds without saying anything of
// the locked one, and a list of entity tags presents no token; both are
// 423 (lock-token-submitted). A COPY only reads its source.
func TestIfHeaderMustSubmitTheTargetsLock(t *testing.T) {
	e := newEnv(t, nil)
	f := e.upload("media", "f.txt", "original", buckets.UploadOptions{})
	e.upload("media", "other.txt", "other", buckets.UploadOptions{})
	token := e.must("LOCK", "/dav/media/f.txt", nil, exclusiveLockBody, 200).header.Get("Lock-Token")
	aboutOther := "<" + e.url + "/dav/media/other.txt> (Not <urn:uuid:00000000-0000-4000-8000-000000000000>)"
	aboutF := "<" + e.url + "/dav/media/f.txt> (" + token + ")"
	to := func(name string) string { return e.url + "/dav/media/" + name }
	propPatch := `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:z"><D:set><D:prop><Z:k>v</Z:k></D:prop></D:set></D:propertyupdate>`
	for _, c := range []struct {
		method, path string
		hdr          map[string]string
		body         string
		want         int
	}{
		{"PUT", "f.txt", map[string]string{"If": aboutOther}, "overwritten", 423},
		{"PUT", "f.txt", map[string]string{"If": "([" + f.ETag() + "])"}, "overwritten", 423},
		{"DELETE", "f.txt", map[string]string{"If": aboutOther}, "", 423},
		{"PROPPATCH", "f.txt", map[string]string{"If": aboutOther}, propPatch, 423},
		{"MOVE", "f.txt", map[string]string{"If": aboutOther, "Destination": to("moved.txt")}, "", 423},
		{"MOVE", "other.txt", map[string]string{"If": aboutOther, "Destination": to("f.txt")}, "", 423},
		{"COPY", "other.txt", map[string]string{"If": aboutOther, "Destination": to("f.txt")}, "", 423},
		{"COPY", "f.txt", map[string]string{"If": aboutOther, "Destination": to("copy.txt")}, "", 201},
		{"PUT", "f.txt", map[string]string{"If": aboutOther + " " + aboutF}, "original", 201},
	} {
		if r := e.do(c.method, "/dav/media/"+c.path, c.hdr, c.body); r.status != c.want {
			t.Fatalf("%s %s %v: %d %s, want %d", c.method, c.path, c.hdr, r.status, r.body, c.want)
		}
		if got := e.must("GET", "/dav/media/f.txt", nil, "", 200).body; got != "original" {
			t.Fatalf("after %s %s %v, f.txt holds %q", c.method, c.path, c.hdr, got)
		}
		e.must("GET", "/dav/media/other.txt", nil, "", 200)
	}
}

// UNLOCK and a LOCK refresh act on the lock of their token only through a
// URL within its scope (RFC 4918 9.11.1 lock-token-matches-request-uri,
// 409; 9.10.2, where the If header's token does not hold for the URL,
// 412): f.txt's token sent to other.txt leaves f.txt locked.
func TestUnlockAndRefreshWithinTheLocksScope(t *testing.T) {
	e := newEnv(t, nil)
	e.upload("media", "f.txt", "original", buckets.UploadOptions{})
	e.upload("media", "other.txt", "other", buckets.UploadOptions{})
	e.must("MKCOL", "/dav/media/dir/", nil, "", 201)
	e.must("MKCOL", "/dav/media/flat/", nil, "", 201)
	file := e.must("LOCK", "/dav/media/f.txt", nil, exclusiveLockBody, 200).header.Get("Lock-Token")
	dir := e.must("LOCK", "/dav/media/dir/", nil, exclusiveLockBody, 200).header.Get("Lock-Token")
	flat := e.must("LOCK", "/dav/media/flat/", map[string]string{"Depth": "0"}, exclusiveLockBody, 200).header.Get("Lock-Token")
	refresh := func(token string) map[string]string {
		return map[string]string{"If": "(" + token + ")", "Timeout": "Second-60"}
	}
	for _, c := range []struct {
		method, path string
		hdr          map[string]string
		want         int
	}{
		{"UNLOCK", "other.txt", map[string]string{"Lock-Token": file}, 409},
		{"LOCK", "other.txt", refresh(file), 412},
		{"UNLOCK", "dir", map[string]string{"Lock-Token": file}, 409},
		{"UNLOCK", "flat/a.txt", map[string]string{"Lock-Token": flat}, 409},
		{"LOCK", "flat/a.txt", refresh(flat), 412},
		{"PUT", "f.txt", nil, 423},
		{"LOCK", "dir/a.txt", refresh(dir), 200},
		{"UNLOCK", "dir/a.txt", map[string]string{"Lock-Token": dir}, 204},
		{"LOCK", "f.txt", refresh(file), 200},
		{"UNLOCK", "f.txt", map[string]string{"Lock-Token": file}, 204},
		{"UNLOCK", "flat/", map[string]string{"Lock-Token": flat}, 204},
		{"PUT", "f.txt", nil, 201},
	} {
		if r := e.do(c.method, "/dav/media/"+c.path, c.hdr, ""); r.status != c.want {
			t.Fatalf("%s %s %v: %d %s, want %d", c.method, c.path, c.hdr, r.status, r.body, c.want)
		}
	}
}

// A write to a folder removes or replaces what it holds: a lock on a
// file in it must be submitted as a lock on the folder would be, with an
// If header as without one (RFC 4918 9.6.1).
func TestIfHeaderMustSubmitTheLocksBelow(t *testing.T) {
	e := newEnv(t, nil)
	e.upload("media", "dir/a.txt", "original", buckets.UploadOptions{})
	e.upload("media", "other/b.txt", "other", buckets.UploadOptions{})
	token := e.must("LOCK", "/dav/media/dir/a.txt", nil, exclusiveLockBody, 200).header.Get("Lock-Token")
	holds := "(Not <urn:uuid:00000000-0000-4000-8000-000000000000>)"
	to := func(name string) string { return e.url + "/dav/media/" + name }
	for _, c := range []struct {
		method, path string
		hdr          map[string]string
		want         int
	}{
		{"DELETE", "dir/", nil, 423},
		{"DELETE", "dir/", map[string]string{"If": holds}, 423},
		{"MOVE", "dir/", map[string]string{"If": holds, "Destination": to("moved/")}, 423},
		{"MOVE", "other/", map[string]string{"If": "<" + to("other/") + "> " + holds, "Destination": to("dir/")}, 423},
		{"COPY", "other/", map[string]string{"If": "<" + to("other/") + "> " + holds, "Destination": to("dir/")}, 423},
		{"COPY", "dir/", map[string]string{"If": holds, "Destination": to("copy/")}, 201},
		{"MOVE", "dir/", map[string]string{"If": "<" + to("dir/a.txt") + "> (" + token + ")", "Destination": to("moved/")}, 201},
	} {
		if r := e.do(c.method, "/dav/media/"+c.path, c.hdr, ""); r.status != c.want {
			t.Fatalf("%s %s %v: %d %s, want %d", c.method, c.path, c.hdr, r.status, r.body, c.want)
		}
		if c.want == 423 {
			if got := e.must("GET", "/dav/media/dir/a.txt", nil, "", 200).body; got != "original" {
				t.Fatalf("after %s %s %v, dir/a.txt holds %q", c.method, c.path, c.hdr, got)
			}
		}
	}
	e.must("GET", "/dav/media/moved/a.txt", nil, "", 200)
}
