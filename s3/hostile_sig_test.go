package s3_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/s3"
)

// hostileTest is one request the S3 port must refuse (or, for controls,
// serve), and what must then hold.
type hostileTest struct {
	name string
	req  func(e *s3env) *http.Request
	code int
	s3   string // S3 error code expected, when refused
	// absent names objects ("bucket/key") that must not exist afterwards.
	absent []string
}

func (tc hostileTest) run(t *testing.T, e *s3env) {
	t.Helper()
	code, _, body := e.send(tc.req(e))
	if code != tc.code || tc.s3 != "" && xmlValue(body, "Code") != tc.s3 {
		t.Errorf("%s: %d %s, want %d %s", tc.name, code, body, tc.code, tc.s3)
	}
	for _, o := range tc.absent {
		b, k, _ := strings.Cut(o, "/")
		if _, found := e.object(b, k); found {
			t.Errorf("%s: %s was written", tc.name, o)
		}
	}
}

// hostileFixture is a server with access control and a secret object.
func hostileFixture(t *testing.T) *s3env {
	e := newS3Env(t, suiteAuth(), s3.Config{})
	e.mustSigned(200, "PUT", "/public", nil)
	e.mustSigned(200, "PUT", "/secret", nil)
	e.mustSigned(200, "PUT", "/secret/top.txt", []byte("TOP SECRET"))
	return e
}

// TestHostileSignedHeaders: only what was signed counts. Before, the
// SignedHeaders list was taken as given: a presigned PUT with an added
// x-amz-copy-source copied a bucket its holder cannot read, unsigned
// metadata and Content-Type were stored, an empty list and a list without
// host were accepted.
func TestHostileSignedHeaders(t *testing.T) {
	e := hostileFixture(t)
	writer := func() *signer { return newSigner(writerKey, writerSecret) }
	admin := func() *signer { return newSigner(adminKey, adminSecret) }
	// The links are the admin's, handed out for an upload into public:
	// their holder must not reach what the admin can.
	presignedPut := func(e *s3env, key string, header ...string) *http.Request {
		r := e.request("PUT", "/public/"+key, []byte("hello"))
		admin().presign(r, time.Hour, "host")
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		return r
	}
	for _, tc := range []hostileTest{
		{name: "presigned PUT turned into a copy of a secret", code: 403, s3: "AccessDenied", absent: []string{"public/upload.txt"},
			req: func(e *s3env) *http.Request {
				return presignedPut(e, "upload.txt", "X-Amz-Copy-Source", "/secret/top.txt")
			}},
		{name: "presigned PUT with unsigned metadata", code: 403, s3: "AccessDenied", absent: []string{"public/meta.txt"},
			req: func(e *s3env) *http.Request { return presignedPut(e, "meta.txt", "X-Amz-Meta-Owner", "mallory") }},
		{name: "presigned PUT with unsigned Content-Type", code: 403, s3: "AccessDenied", absent: []string{"public/page.html"},
			req: func(e *s3env) *http.Request { return presignedPut(e, "page.html", "Content-Type", "text/html") }},
		{name: "presigned PUT with an unsigned payload hash", code: 403, s3: "AccessDenied", absent: []string{"public/hash.txt"},
			req: func(e *s3env) *http.Request {
				return presignedPut(e, "hash.txt", "X-Amz-Content-Sha256", "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
			}},
		{name: "presigned PUT with unsigned Content-MD5", code: 403, s3: "AccessDenied", absent: []string{"public/md5.txt"},
			req: func(e *s3env) *http.Request {
				return presignedPut(e, "md5.txt", "Content-MD5", "XUFAKrxLKna5cZ2REBfFkg==")
			}},
		{name: "presigned URL with empty X-Amz-SignedHeaders", code: 400, s3: "AuthorizationQueryParametersError", absent: []string{"public/empty.txt"},
			req: func(e *s3env) *http.Request {
				r := e.request("PUT", "/public/empty.txt", []byte("x"))
				writer().presign(r, time.Hour)
				return r
			}},
		{name: "presigned URL without host", code: 403, s3: "AccessDenied", absent: []string{"public/nohost.txt"},
			req: func(e *s3env) *http.Request {
				r := e.request("PUT", "/public/nohost.txt", []byte("x"), "X-Amz-Meta-A", "b")
				writer().presign(r, time.Hour, "x-amz-meta-a")
				return r
			}},
		{name: "header-signed without host, sent to another host", code: 403, s3: "AccessDenied", absent: []string{"public/evil.txt"},
			req: func(e *s3env) *http.Request {
				r := e.request("PUT", "/public/evil.txt", []byte("x"))
				r.Host = "evil.example"
				writer().sign(r, []byte("x"), "x-amz-content-sha256", "x-amz-date")
				return r
			}},
		{name: "replay with an added x-amz-copy-source", code: 403, s3: "AccessDenied", absent: []string{"public/replay.txt"},
			req: func(e *s3env) *http.Request {
				r := e.request("PUT", "/public/replay.txt", []byte("x"))
				admin().signAll(r, []byte("x"))
				r.Header.Set("X-Amz-Copy-Source", "/secret/top.txt")
				return r
			}},
		{name: "replay with added metadata", code: 403, s3: "AccessDenied", absent: []string{"public/replay2.txt"},
			req: func(e *s3env) *http.Request {
				r := e.request("PUT", "/public/replay2.txt", []byte("x"))
				writer().signAll(r, []byte("x"))
				r.Header.Set("X-Amz-Meta-Injected", "1")
				return r
			}},
		{name: "replay with an added Content-MD5", code: 403, s3: "AccessDenied", absent: []string{"public/replay3.txt"},
			req: func(e *s3env) *http.Request {
				r := e.request("PUT", "/public/replay3.txt", []byte("x"))
				writer().signAll(r, []byte("x"))
				r.Header.Set("Content-MD5", "nRLGxMzTzrrBPk8JAm2ZyQ==")
				return r
			}},
		{name: "replay with a changed key (the path is signed)", code: 403, s3: "SignatureDoesNotMatch", absent: []string{"public/other.txt"},
			req: func(e *s3env) *http.Request {
				r := e.request("PUT", "/public/mine.txt", []byte("x"))
				writer().signAll(r, []byte("x"))
				r.URL.Path = "/public/other.txt"
				return r
			}},
		{name: "presigned URL with a changed key", code: 403, s3: "SignatureDoesNotMatch", absent: []string{"public/b.txt"},
			req: func(e *s3env) *http.Request {
				r := presignedPut(e, "a.txt")
				r.URL.Path = "/public/b.txt"
				return r
			}},
		{name: "presigned URL with an added query parameter", code: 403, s3: "SignatureDoesNotMatch",
			req: func(e *s3env) *http.Request {
				r := presignedPut(e, "q.txt")
				r.URL.RawQuery += "&uploads="
				r.Method = "POST"
				return r
			}},
		{name: "presigned URL with a longer life", code: 403, s3: "SignatureDoesNotMatch", absent: []string{"public/life.txt"},
			req: func(e *s3env) *http.Request {
				r := presignedPut(e, "life.txt")
				q := r.URL.Query()
				q.Set("X-Amz-Expires", "604800")
				r.URL.RawQuery = q.Encode()
				return r
			}},
		{name: "expired presigned URL", code: 403, s3: "AccessDenied", absent: []string{"public/old.txt"},
			req: func(e *s3env) *http.Request {
				r := e.request("PUT", "/public/old.txt", []byte("x"))
				s := writer()
				s.now = s.now.Add(-2 * time.Hour)
				s.presign(r, time.Hour, "host")
				return r
			}},
		{name: "CopyObject whose body is not the one signed", code: 400, s3: "XAmzContentSHA256Mismatch", absent: []string{"public/copy.txt"},
			req: func(e *s3env) *http.Request {
				r := e.request("PUT", "/public/copy.txt", []byte("not empty"), "X-Amz-Copy-Source", "/secret/top.txt")
				admin().signAll(r, nil)
				return r
			}},
		{name: "writer copies from a bucket it cannot read", code: 403, s3: "AccessDenied", absent: []string{"public/stolen.txt"},
			req: func(e *s3env) *http.Request {
				r := e.request("PUT", "/public/stolen.txt", nil, "X-Amz-Copy-Source", "/secret/top.txt")
				writer().signAll(r, nil)
				return r
			}},
		{name: "anonymous copy", code: 403, s3: "AccessDenied", absent: []string{"public/anon.txt"},
			req: func(e *s3env) *http.Request {
				return e.request("PUT", "/public/anon.txt", nil, "X-Amz-Copy-Source", "/public/ok.txt")
			}},
		// Controls: what clients send is served.
		{name: "presigned PUT as signed", code: 200,
			req: func(e *s3env) *http.Request { return presignedPut(e, "ok.txt") }},
		{name: "presigned PUT with a signed Content-Type", code: 200,
			req: func(e *s3env) *http.Request {
				r := e.request("PUT", "/public/typed.txt", []byte("x"), "Content-Type", "text/plain")
				writer().presign(r, time.Hour, "content-type", "host")
				return r
			}},
		{name: "header-signed with an unsigned Content-Type (minio-go never signs it)", code: 200,
			req: func(e *s3env) *http.Request {
				r := e.request("PUT", "/public/minio.txt", []byte("x"))
				writer().signAll(r, []byte("x"))
				r.Header.Set("Content-Type", "text/plain")
				return r
			}},
	} {
		tc.run(t, e)
	}
	if data, _ := e.object("public", "ok.txt"); string(data) != "hello" {
		t.Errorf("public/ok.txt holds %q", data)
	}
	code, _, body := e.send(e.request("GET", "/public/upload.txt", nil))
	if strings.Contains(body, "TOP SECRET") {
		t.Errorf("an anonymous GET served the secret: %d", code)
	}
}

// TestHostileCredentialScope: the scope's service must be s3 and its date
// the request's (before, a request signed for sts, or for another day,
// was accepted); any region name is accepted (docs/S3.md).
func TestHostileCredentialScope(t *testing.T) {
	e := hostileFixture(t)
	signedBy := func(change func(*signer)) func(e *s3env) *http.Request {
		return func(e *s3env) *http.Request {
			r := e.request("GET", "/secret/top.txt", nil)
			s := newSigner(adminKey, adminSecret)
			change(s)
			s.signAll(r, nil)
			return r
		}
	}
	presignedBy := func(change func(*signer)) func(e *s3env) *http.Request {
		return func(e *s3env) *http.Request {
			r := e.request("GET", "/secret/top.txt", nil)
			s := newSigner(adminKey, adminSecret)
			change(s)
			s.presign(r, time.Hour, "host")
			return r
		}
	}
	for _, tc := range []hostileTest{
		{name: "service sts", code: 400, s3: "AuthorizationHeaderMalformed", req: signedBy(func(s *signer) { s.service = "sts" })},
		{name: "service iam, presigned", code: 400, s3: "AuthorizationQueryParametersError", req: presignedBy(func(s *signer) { s.service = "iam" })},
		{name: "scope of another day", code: 400, s3: "AuthorizationHeaderMalformed",
			req: signedBy(func(s *signer) { s.scopeDate = s.now.Add(-48 * time.Hour).Format("20060102") })},
		{name: "scope date a prefix of the request's", code: 400, s3: "AuthorizationHeaderMalformed",
			req: signedBy(func(s *signer) { s.scopeDate = s.now.Format("2006") })},
		{name: "presigned, scope of another day", code: 400, s3: "AuthorizationQueryParametersError",
			req: presignedBy(func(s *signer) { s.scopeDate = s.now.Add(24 * time.Hour).Format("20060102") })},
		{name: "region that is not a name", code: 400, s3: "AuthorizationHeaderMalformed", req: signedBy(func(s *signer) { s.region = "US East" })},
		{name: "wrong secret", code: 403, s3: "SignatureDoesNotMatch", req: signedBy(func(s *signer) { s.secret += "x" })},
		{name: "unknown key", code: 403, s3: "InvalidAccessKeyId", req: signedBy(func(s *signer) { s.key = "nobody" })},
		{name: "any region name (control)", code: 200, req: signedBy(func(s *signer) { s.region = "eu-west-3" })},
		{name: "presigned, any region name (control)", code: 200, req: presignedBy(func(s *signer) { s.region = "auto" })},
	} {
		tc.run(t, e)
	}
}
