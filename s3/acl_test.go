package s3_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/dav"
	"github.com/gridfsd/gridfsd/gateway"
	"github.com/gridfsd/gridfsd/internal/grants"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/s3"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// aclEnv is the S3 door and the HTTP API over one database with access
// control on, wired as serve wires them: admin (every bucket), writer
// (write access to "pics"), and alice and bob, who own the buckets they
// create and no other.
type aclEnv struct {
	t             *testing.T
	mdb           *mongo.Database
	s3URL, apiURL string
}

var aclTokens = map[string]string{
	"admin": "admin-secret-0123456789", "writer": "writer-secret-0123456789",
	"alice": "alice-secret-0123456789", "bob": "bob-secret-0123456789",
}

func newACLEnv(t *testing.T, publicACLs bool) *aclEnv {
	t.Helper()
	return newACLEnvOn(t, storetest.MustOpenDB(t), publicACLs)
}

// newACLEnvOn is newACLEnv on a given database: another gateway.
func newACLEnvOn(t *testing.T, mdb *mongo.Database, publicACLs bool) *aclEnv {
	t.Helper()
	db := buckets.NewDB(mdb)
	db.SetPublicACLs(publicACLs)
	a, err := auth.New(auth.Config{Tokens: []auth.Token{
		{Name: "admin", Secret: aclTokens["admin"], Buckets: []string{"*"}, Access: auth.Admin},
		{Name: "writer", Secret: aclTokens["writer"], Buckets: []string{"pics"}, Access: auth.Write},
		{Name: "alice", Secret: aclTokens["alice"], Buckets: []string{auth.OwnedBuckets}, Access: auth.Admin},
		{Name: "bob", Secret: aclTokens["bob"], Buckets: []string{auth.OwnedBuckets}, Access: auth.Admin},
	}})
	if err != nil {
		t.Fatal(err)
	}
	a.SetGrants(grants.Of(db))
	srv, err := s3.New(s3.Config{DB: db, Auth: a})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	davDoor, err := dav.New(dav.Config{DB: db, Auth: a})
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(gateway.Config{DB: db, Auth: a, Mounts: []gateway.Mount{{Prefix: dav.DefaultPrefix, Handler: davDoor}}})
	if err != nil {
		t.Fatal(err)
	}
	gs := httptest.NewServer(gw.Handler())
	t.Cleanup(gs.Close)
	return &aclEnv{t: t, mdb: mdb, s3URL: hs.URL, apiURL: gs.URL}
}

// s3 sends an S3 request signed by token ("" for an anonymous one).
func (e *aclEnv) s3(token, method, path, body string, header ...string) reply {
	e.t.Helper()
	r, err := http.NewRequest(method, e.s3URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	if token != "" {
		newSigner(token, aclTokens[token]).signAll(r, []byte(body))
	}
	return e.do(r)
}

// api sends an HTTP API request with token's bearer token ("" for none).
func (e *aclEnv) api(token, method, path, body string) reply {
	e.t.Helper()
	r, err := http.NewRequest(method, e.apiURL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+aclTokens[token])
	}
	if method == "PROPFIND" {
		r.Header.Set("Depth", "1")
	}
	return e.do(r)
}

func (e *aclEnv) do(r *http.Request) reply {
	e.t.Helper()
	res, err := rawClient.Do(r)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return reply{res.StatusCode, res.Header, string(b)}
}

// check is one request and the status it must get.
type aclCheck struct {
	door, token, method, path, body string
	header                          []string
	want                            int
}

func (e *aclEnv) run(step string, checks ...aclCheck) {
	e.t.Helper()
	for _, c := range checks {
		var got reply
		if c.door == "api" {
			got = e.api(c.token, c.method, c.path, c.body)
		} else {
			got = e.s3(c.token, c.method, c.path, c.body, c.header...)
		}
		if got.status != c.want {
			who := c.token
			if who == "" {
				who = "anonymous"
			}
			e.t.Errorf("%s: %s %s %s by %s: %d, want %d\n%s", step, c.door, c.method, c.path, who, got.status, c.want, got.body)
		}
	}
}

// Canned ACLs are real on every door, as S3 means them: a public-read
// bucket is listed by anyone (S3, the HTTP API, WebDAV) but its files are
// read only by their own ACL, public-read-write is written by anyone too,
// private withdraws both at once; a public-read object is read by anyone,
// and its newer private revision is not. Only a token with admin access to
// the bucket may make something public, and Get*Acl answer the grants.
func TestCannedACLsOnEveryDoor(t *testing.T) {
	e := newACLEnv(t, true)
	e.run("setup",
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics", want: 200},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics/a.txt", body: "hello", want: 200},
	)
	e.run("private (the default)",
		aclCheck{door: "s3", method: "GET", path: "/pics/a.txt", want: 403},
		aclCheck{door: "s3", method: "GET", path: "/pics", want: 403},
		aclCheck{door: "api", method: "GET", path: "/b/pics/a.txt", want: 401},
		aclCheck{door: "api", method: "GET", path: "/b/pics/", want: 401},
		aclCheck{door: "api", method: "GET", path: "/dav/pics/a.txt", want: 401},
	)
	e.run("only admins make things public",
		aclCheck{door: "s3", token: "writer", method: "PUT", path: "/pics?acl", header: []string{"x-amz-acl", "public-read"}, want: 403},
		aclCheck{door: "s3", token: "writer", method: "PUT", path: "/pics/a.txt?acl", header: []string{"x-amz-acl", "public-read"}, want: 403},
		aclCheck{door: "s3", token: "writer", method: "PUT", path: "/pics/w.txt", body: "w", header: []string{"x-amz-acl", "public-read"}, want: 403},
		aclCheck{door: "s3", token: "writer", method: "PUT", path: "/pics/w.txt", body: "w", header: []string{"x-amz-acl", "private"}, want: 200},
		aclCheck{door: "api", token: "writer", method: "PUT", path: "/buckets/pics", body: `{"acl": "public-read"}`, want: 403},
		aclCheck{door: "s3", method: "GET", path: "/pics/w.txt", want: 403},
	)
	if got := e.s3("admin", "GET", "/pics?acl", ""); got.status != 200 || strings.Contains(got.body, "AllUsers") || !strings.Contains(got.body, "FULL_CONTROL") {
		t.Errorf("GetBucketAcl of a private bucket: %d %s", got.status, got.body)
	}
	if got := e.s3("admin", "GET", "/pics?policyStatus", ""); !strings.Contains(got.body, "<IsPublic>false</IsPublic>") {
		t.Errorf("GetBucketPolicyStatus of a private bucket: %d %s", got.status, got.body)
	}

	e.run("public-read bucket",
		// CreateBucket of one's own bucket sets the ACL it names.
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics", header: []string{"x-amz-acl", "public-read"}, want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics?list-type=2", want: 200},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics?acl", header: []string{"x-amz-acl", "private"}, want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics?list-type=2", want: 403},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics?acl", header: []string{"x-amz-acl", "public-read"}, want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics?list-type=2", want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics", want: 200},
		aclCheck{door: "s3", method: "HEAD", path: "/pics", want: 200},
		// Listed, not published: a file is read by its own ACL only, and
		// one that is not there is NoSuchKey to whoever may list.
		aclCheck{door: "s3", method: "GET", path: "/pics/a.txt", want: 403},
		aclCheck{door: "s3", method: "HEAD", path: "/pics/a.txt", want: 403},
		aclCheck{door: "s3", method: "GET", path: "/pics/missing", want: 404},
		aclCheck{door: "api", method: "GET", path: "/b/pics", want: 200},
		aclCheck{door: "api", method: "GET", path: "/b/pics/a.txt", want: 401},
		aclCheck{door: "api", method: "PROPFIND", path: "/dav/pics/", want: 207},
		aclCheck{door: "api", method: "GET", path: "/dav/pics/a.txt", want: 401},
		aclCheck{door: "api", method: "PUT", path: "/dav/pics/anon.txt", body: "x", want: 401},
		aclCheck{door: "s3", method: "PUT", path: "/pics/anon.txt", body: "x", want: 403},
		aclCheck{door: "api", method: "PUT", path: "/b/pics/anon.txt", body: "x", want: 401},
		aclCheck{door: "s3", method: "DELETE", path: "/pics/a.txt", want: 403},
	)
	if got := e.s3("admin", "GET", "/pics?acl", ""); !strings.Contains(got.body, "<URI>http://acs.amazonaws.com/groups/global/AllUsers</URI></Grantee><Permission>READ</Permission>") ||
		!strings.Contains(got.body, "<ID>admin</ID>") {
		t.Errorf("GetBucketAcl of a public-read bucket:\n%s", got.body)
	}
	if got := e.s3("admin", "GET", "/pics?policyStatus", ""); !strings.Contains(got.body, "<IsPublic>true</IsPublic>") {
		t.Errorf("GetBucketPolicyStatus of a public-read bucket: %d %s", got.status, got.body)
	}

	e.run("public-read-write bucket",
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics?acl", header: []string{"x-amz-acl", "public-read-write"}, want: 200},
		aclCheck{door: "s3", method: "PUT", path: "/pics/anon.txt", body: "x", want: 200},
		aclCheck{door: "api", method: "PUT", path: "/b/pics/anon2.txt", body: "x", want: 201},
		// A public object ACL that grants no more than the bucket does.
		aclCheck{door: "s3", method: "PUT", path: "/pics/anon3.txt", body: "x", header: []string{"x-amz-acl", "public-read"}, want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics?list-type=2", want: 200},
		// Written by anyone, read by none but the tokens: S3's WRITE on a
		// bucket reads no object.
		aclCheck{door: "s3", method: "GET", path: "/pics/anon.txt", want: 403},
		aclCheck{door: "s3", token: "admin", method: "GET", path: "/pics/anon.txt", want: 200},
	)

	e.run("private again withdraws at once",
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics?acl", header: []string{"x-amz-acl", "private"}, want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics/a.txt", want: 403},
		aclCheck{door: "s3", method: "GET", path: "/pics", want: 403},
		aclCheck{door: "s3", method: "PUT", path: "/pics/anon.txt", body: "x", want: 403},
		aclCheck{door: "api", method: "GET", path: "/b/pics/a.txt", want: 401},
		aclCheck{door: "api", method: "GET", path: "/dav/pics/a.txt", want: 401},
		aclCheck{door: "api", method: "PUT", path: "/b/pics/anon.txt", body: "x", want: 401},
		// anon3.txt's public-read, asked for by a caller without admin
		// access while the bucket granted as much, was kept as private:
		// the object was as public as its bucket, no more.
		aclCheck{door: "s3", method: "GET", path: "/pics/anon3.txt", want: 403},
	)

	e.run("public-read object",
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics/o.txt", body: "open", header: []string{"x-amz-acl", "public-read"}, want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics/o.txt", want: 200},
		aclCheck{door: "api", method: "GET", path: "/b/pics/o.txt", want: 200},
		aclCheck{door: "api", method: "GET", path: "/dav/pics/o.txt", want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics/a.txt", want: 403},
		aclCheck{door: "s3", method: "GET", path: "/pics", want: 403},
		aclCheck{door: "s3", method: "PUT", path: "/pics/o.txt", body: "x", want: 403},
	)
	if got := e.s3("admin", "GET", "/pics/o.txt?acl", ""); !strings.Contains(got.body, "AllUsers</URI></Grantee><Permission>READ</Permission>") {
		t.Errorf("GetObjectAcl of a public-read object:\n%s", got.body)
	}
	e.run("a newer revision is private",
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics/o.txt", body: "closed", want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics/o.txt", want: 403},
		aclCheck{door: "api", method: "GET", path: "/b/pics/o.txt", want: 401},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics/o.txt?acl", header: []string{"x-amz-acl", "public-read"}, want: 200},
		aclCheck{door: "api", method: "GET", path: "/b/pics/o.txt", want: 200},
		// The older revision kept its own ACL; the newest's does not open it.
		aclCheck{door: "api", method: "GET", path: "/b/pics/o.txt?revision=0", want: 200},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics/o.txt?acl", header: []string{"x-amz-acl", "private"}, want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics/o.txt", want: 403},
	)

	// The newest revision's ACL admits a read of that revision only: an
	// older, private one stays closed (S3 versionId, HTTP ?revision).
	v1 := e.s3("admin", "PUT", "/pics/o2.txt", "private one").header.Get("x-amz-version-id")
	e.run("older revisions keep their own ACL",
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics/o2.txt", body: "public one", header: []string{"x-amz-acl", "public-read"}, want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics/o2.txt", want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics/o2.txt?versionId=" + v1, want: 403},
		aclCheck{door: "api", method: "GET", path: "/b/pics/o2.txt?revision=0", want: 403},
		aclCheck{door: "api", method: "GET", path: "/b/pics/o2.txt?revision=1", want: 200},
	)

	e.run("the HTTP API's bucket setting",
		aclCheck{door: "api", token: "admin", method: "PUT", path: "/buckets/pics", body: `{"acl": "public-read"}`, want: 200},
		aclCheck{door: "api", method: "GET", path: "/b/pics", want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics", want: 200},
		aclCheck{door: "api", method: "GET", path: "/b/pics/a.txt", want: 401},
		aclCheck{door: "api", token: "admin", method: "PUT", path: "/buckets/pics", body: `{"acl": "private"}`, want: 200},
		aclCheck{door: "api", method: "GET", path: "/b/pics", want: 401},
		aclCheck{door: "api", token: "admin", method: "PUT", path: "/buckets/pics", body: `{"acl": "world"}`, want: 400},
	)

	// An ACL document that says what a canned ACL says is that ACL; one
	// that grants what gridfsd cannot keep is NotImplemented.
	doc := func(grants ...string) string {
		return `<AccessControlPolicy xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Owner><ID>admin</ID></Owner><AccessControlList>` +
			strings.Join(grants, "") + `</AccessControlList></AccessControlPolicy>`
	}
	owner := `<Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="CanonicalUser"><ID>admin</ID></Grantee><Permission>FULL_CONTROL</Permission></Grant>`
	allRead := `<Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="Group"><URI>http://acs.amazonaws.com/groups/global/AllUsers</URI></Grantee><Permission>READ</Permission></Grant>`
	bobRead := `<Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="CanonicalUser"><ID>bob</ID></Grantee><Permission>READ</Permission></Grant>`
	e.run("ACL documents",
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics?acl", body: doc(owner, allRead), want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics", want: 200},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics?acl", body: doc(owner), want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics", want: 403},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics?acl", body: doc(owner, bobRead), want: 501},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics?acl", body: doc(allRead), want: 501},
		aclCheck{door: "s3", token: "writer", method: "PUT", path: "/pics/a.txt?acl", body: doc(owner, allRead), want: 403},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics/a.txt?acl", body: doc(owner, allRead), want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics/a.txt", want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics", want: 403},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics/a.txt?acl", body: doc(owner), want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics/a.txt", want: 403},
	)

	block := `<PublicAccessBlockConfiguration><IgnorePublicAcls>true</IgnorePublicAcls></PublicAccessBlockConfiguration>`
	e.run("IgnorePublicAcls",
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics?acl", header: []string{"x-amz-acl", "public-read"}, want: 200},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics?publicAccessBlock", body: block, want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics", want: 403},
		aclCheck{door: "api", method: "GET", path: "/b/pics", want: 401},
		aclCheck{door: "s3", token: "admin", method: "DELETE", path: "/pics?publicAccessBlock", want: 204},
		aclCheck{door: "api", method: "GET", path: "/b/pics", want: 200},
	)
}

// With public ACLs turned off (auth.public_acls: false), asking for one is
// 403 and one stored before grants nothing.
func TestPublicACLsOff(t *testing.T) {
	e := newACLEnv(t, true)
	e.run("setup",
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics", header: []string{"x-amz-acl", "public-read"}, want: 200},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics/a.txt", body: "hello", header: []string{"x-amz-acl", "public-read"}, want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics", want: 200},
		aclCheck{door: "s3", method: "GET", path: "/pics/a.txt", want: 200},
	)
	off := newACLEnvOn(t, e.mdb, false)
	off.run("off",
		aclCheck{door: "s3", method: "GET", path: "/pics", want: 403},
		aclCheck{door: "api", method: "GET", path: "/b/pics", want: 401},
		aclCheck{door: "s3", method: "GET", path: "/pics/a.txt", want: 403},
		aclCheck{door: "api", method: "GET", path: "/b/pics/a.txt", want: 401},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics?acl", header: []string{"x-amz-acl", "public-read"}, want: 403},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics/b.txt", body: "x", header: []string{"x-amz-acl", "public-read"}, want: 403},
		aclCheck{door: "api", token: "admin", method: "PUT", path: "/buckets/pics", body: `{"acl": "public-read"}`, want: 403},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/pics?acl", header: []string{"x-amz-acl", "private"}, want: 200},
	)
}

// Tokens limited to their own buckets ($owned) see the buckets they create
// and no other's, as S3 accounts do.
func TestOwnedBuckets(t *testing.T) {
	e := newACLEnv(t, true)
	e.run("owners",
		aclCheck{door: "s3", token: "alice", method: "PUT", path: "/alices", want: 200},
		aclCheck{door: "s3", token: "alice", method: "PUT", path: "/alices/k", body: "a", want: 200},
		aclCheck{door: "s3", token: "alice", method: "GET", path: "/alices/k", want: 200},
		aclCheck{door: "s3", token: "bob", method: "GET", path: "/alices/k", want: 403},
		aclCheck{door: "s3", token: "bob", method: "PUT", path: "/alices/k", body: "b", want: 403},
		aclCheck{door: "s3", token: "bob", method: "PUT", path: "/alices", want: 409},
		aclCheck{door: "api", token: "bob", method: "GET", path: "/b/alices/k", want: 403},
		aclCheck{door: "s3", token: "bob", method: "PUT", path: "/bobs", want: 200},
		aclCheck{door: "s3", token: "bob", method: "PUT", path: "/bobs/k", body: "b", want: 200},
		aclCheck{door: "s3", token: "alice", method: "GET", path: "/bobs/k", want: 403},
		// Bob's copy from Alice's bucket into his own: he may not read it.
		aclCheck{door: "s3", token: "bob", method: "PUT", path: "/bobs/copy", header: []string{"x-amz-copy-source", "/alices/k"}, want: 403},
		// A bucket another tool made has no owner: not theirs.
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/shared", want: 200},
		aclCheck{door: "s3", token: "alice", method: "GET", path: "/shared", want: 403},
		aclCheck{door: "api", token: "alice", method: "PUT", path: "/buckets/alices2", want: 200},
		aclCheck{door: "api", token: "alice", method: "PUT", path: "/b/alices2/k", body: "a", want: 201},
		aclCheck{door: "api", token: "bob", method: "GET", path: "/b/alices2/k", want: 403},
		aclCheck{door: "api", token: "alice", method: "MKCOL", path: "/dav/alicedav/", want: 201},
		aclCheck{door: "api", token: "alice", method: "PUT", path: "/dav/alicedav/k", body: "a", want: 201},
		aclCheck{door: "api", token: "bob", method: "GET", path: "/dav/alicedav/k", want: 403},
	)
	e.run("expected bucket owner",
		aclCheck{door: "s3", token: "alice", method: "GET", path: "/alices", header: []string{"x-amz-expected-bucket-owner", "alice"}, want: 200},
		aclCheck{door: "s3", token: "alice", method: "GET", path: "/alices", header: []string{"x-amz-expected-bucket-owner", "bob"}, want: 403},
		aclCheck{door: "s3", token: "alice", method: "PUT", path: "/alices/k2", body: "x", header: []string{"x-amz-expected-bucket-owner", "bob"}, want: 403},
	)
	if got := e.s3("alice", "GET", "/alices", ""); !strings.Contains(got.body, "<Owner><ID>alice</ID>") {
		t.Errorf("ListObjects names another owner than the bucket's:\n%s", got.body)
	}
	got := e.s3("alice", "GET", "/", "")
	if !strings.Contains(got.body, "<Name>alices</Name>") || !strings.Contains(got.body, "<Name>alices2</Name>") || !strings.Contains(got.body, "<Name>alicedav</Name>") ||
		strings.Contains(got.body, "bobs") || strings.Contains(got.body, "shared") {
		t.Errorf("alice's ListBuckets:\n%s", got.body)
	}
	e.run("authenticated-read",
		aclCheck{door: "s3", token: "alice", method: "PUT", path: "/alices?acl", header: []string{"x-amz-acl", "authenticated-read"}, want: 200},
		aclCheck{door: "s3", token: "bob", method: "GET", path: "/alices", want: 200},
		aclCheck{door: "s3", method: "GET", path: "/alices", want: 403},
		aclCheck{door: "s3", token: "bob", method: "GET", path: "/alices/k", want: 403},
		aclCheck{door: "s3", token: "alice", method: "PUT", path: "/alices/k?acl", header: []string{"x-amz-acl", "authenticated-read"}, want: 200},
		aclCheck{door: "s3", token: "bob", method: "GET", path: "/alices/k", want: 200},
		aclCheck{door: "s3", method: "GET", path: "/alices/k", want: 403},
		aclCheck{door: "s3", token: "bob", method: "PUT", path: "/alices/k", body: "b", want: 403},
	)
}

// Object ownership: BucketOwnerEnforced is kept (the bucket's owner owns
// every object) and disables ACLs; the two others promise objects owned by
// their writers: 501. A public bucket cannot become BucketOwnerEnforced.
func TestOwnershipControls(t *testing.T) {
	e := newACLEnv(t, true)
	enforced := `<OwnershipControls><Rule><ObjectOwnership>BucketOwnerEnforced</ObjectOwnership></Rule></OwnershipControls>`
	writer := `<OwnershipControls><Rule><ObjectOwnership>ObjectWriter</ObjectOwnership></Rule></OwnershipControls>`
	e.run("ownership",
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own", want: 200},
		aclCheck{door: "s3", token: "admin", method: "GET", path: "/own?ownershipControls", want: 404},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own?ownershipControls", body: writer, want: 501},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own?acl", header: []string{"x-amz-acl", "public-read"}, want: 200},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own?ownershipControls", body: enforced, want: 400},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own?acl", header: []string{"x-amz-acl", "private"}, want: 200},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own?ownershipControls", body: enforced, want: 200},
		aclCheck{door: "s3", token: "admin", method: "GET", path: "/own?ownershipControls", want: 200},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own?acl", header: []string{"x-amz-acl", "public-read"}, want: 400},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own/k", body: "x", header: []string{"x-amz-acl", "public-read"}, want: 400},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own/k", body: "x", header: []string{"x-amz-acl", "bucket-owner-read"}, want: 400},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own/k", body: "x", header: []string{"x-amz-acl", "bucket-owner-full-control"}, want: 200},
		aclCheck{door: "api", token: "admin", method: "PUT", path: "/buckets/own", body: `{"acl": "public-read"}`, want: 400},
		aclCheck{door: "s3", method: "GET", path: "/own/k", want: 403},
		aclCheck{door: "s3", token: "admin", method: "DELETE", path: "/own?ownershipControls", want: 204},
		aclCheck{door: "s3", token: "admin", method: "GET", path: "/own?ownershipControls", want: 404},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own?acl", header: []string{"x-amz-acl", "public-read"}, want: 200},
		aclCheck{door: "s3", method: "GET", path: "/own", want: 200},
		// On CreateBucket.
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own2", header: []string{"x-amz-object-ownership", "BucketOwnerEnforced"}, want: 200},
		aclCheck{door: "s3", token: "admin", method: "GET", path: "/own2?ownershipControls", want: 200},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own3", header: []string{"x-amz-object-ownership", "BucketOwnerEnforced", "x-amz-acl", "public-read"}, want: 400},
		aclCheck{door: "s3", token: "admin", method: "PUT", path: "/own4", header: []string{"x-amz-object-ownership", "ObjectWriter"}, want: 501},
	)
	if got := e.s3("admin", "GET", "/own2?ownershipControls", ""); !strings.Contains(got.body, "<Rule><ObjectOwnership>BucketOwnerEnforced</ObjectOwnership></Rule>") {
		t.Errorf("GetBucketOwnershipControls: %s", got.body)
	}
}

// TestCopySourceRevisionACL: a caller admitted to read an object only by
// its newest revision's own ACL (public-read) may not read an older,
// private revision: GetObject checks the served revision's ACL
// (objectGrant), and CopyObject and UploadPartCopy check the revision they
// copy, or a token that may write only "public" would copy a private
// version of a "secret" object into "public" and read it there.
func TestCopySourceRevisionACL(t *testing.T) {
	e := newS3Env(t, suiteAuth(), s3.Config{})
	e.mustSigned(200, "PUT", "/secret", nil)
	e.mustSigned(200, "PUT", "/public", nil)
	code, h, body := e.signed("PUT", "/secret/k", []byte("private draft"))
	if code != 200 {
		t.Fatalf("PUT secret/k: %d %s", code, body)
	}
	old := h.Get("x-amz-version-id")
	if code, _, body := e.signed("PUT", "/secret/k", []byte("published"), "x-amz-acl", "public-read"); code != 200 {
		t.Skipf("a public-read object in secret: %d %s", code, body)
	}
	writer := func(method, path string, header ...string) (int, string) {
		r := e.request(method, path, nil, header...)
		newSigner(writerKey, writerSecret).signAll(r, nil)
		code, _, body := e.send(r)
		return code, body
	}
	// The rule: the newest revision is public, the old one is not.
	if code, _ := writer("GET", "/secret/k"); code != 200 {
		t.Fatalf("writer GET secret/k (public-read): %d", code)
	}
	if code, body := writer("GET", "/secret/k?versionId="+old); code != 403 {
		t.Fatalf("writer GET of the private version: %d %s", code, body)
	}
	// A copy of the private version is a read of it.
	code, body = writer("PUT", "/public/leak", "x-amz-copy-source", "/secret/k?versionId="+old)
	if code != 403 {
		t.Errorf("writer CopyObject of the private version into public: %d, want 403", code)
	}
	if data, found := e.object("public", "leak"); found {
		t.Errorf("the private version was copied out: public/leak holds %q", data)
	}
	id := xmlValue(e.mustSigned(200, "POST", "/public/mp?uploads", nil), "UploadId")
	code, body = writer("PUT", "/public/mp?partNumber=1&uploadId="+id, "x-amz-copy-source", "/secret/k?versionId="+old)
	if code != 403 {
		t.Errorf("writer UploadPartCopy of the private version: %d %s, want 403", code, xmlValue(body, "Code"))
	}
}
