package s3_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/grants"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/s3"
)

// The hostile-request suite's tools: an S3 server on a loopback port over
// a fresh database, and a SigV4 signer of its own (not the server's code),
// which can sign exactly the headers a test chooses, with any scope, so
// that the tests can send what real clients never would.

// Tokens of the suite: admin has every bucket; writer may write "public"
// only; "public" is readable by anyone; "secret" only by admin.
const (
	adminKey, adminSecret   = "admin", "admin-secret-0123456789"
	writerKey, writerSecret = "writer", "writer-secret-0123456789"
)

func suiteAuth() auth.Config {
	return auth.Config{
		Tokens: []auth.Token{
			{Name: adminKey, Secret: adminSecret, Buckets: []string{"*"}, Access: auth.Admin},
			{Name: writerKey, Secret: writerSecret, Buckets: []string{"public"}, Access: auth.Write},
		},
		AnonymousRead: []string{"public"},
	}
}

type s3env struct {
	t   *testing.T
	db  *buckets.DB
	url string
	ln  net.Listener
}

// newS3Env serves the S3 API with access control ac through Server.Serve,
// so that the http.Server's settings (header limit) apply.
func newS3Env(t *testing.T, ac auth.Config, cfg s3.Config) *s3env {
	t.Helper()
	return newS3EnvOn(t, buckets.NewDB(storetest.MustOpenDB(t)), ac, cfg)
}

// newS3EnvOn is newS3Env on a given DB: several servers on one store are
// several gateways.
func newS3EnvOn(t *testing.T, db *buckets.DB, ac auth.Config, cfg s3.Config) *s3env {
	t.Helper()
	a, err := auth.New(ac)
	if err != nil {
		t.Fatal(err)
	}
	a.SetGrants(grants.Of(db)) // as serve wires it
	cfg.DB, cfg.Auth = db, a
	srv, err := s3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return &s3env{t: t, db: db, url: "http://" + ln.Addr().String(), ln: ln}
}

// signer signs requests with SigV4 as AWS documents it.
type signer struct {
	key, secret      string
	region, service  string
	now              time.Time
	scopeDate        string // overrides the credential's date when set
	unsignedPayload  bool   // x-amz-content-sha256: UNSIGNED-PAYLOAD
	omitPayloadValue bool   // send no x-amz-content-sha256 at all
}

func newSigner(key, secret string) *signer {
	return &signer{key: key, secret: secret, region: "us-east-1", service: "s3", now: time.Now().UTC()}
}

func (s *signer) credential() (date, scope string) {
	date = s.now.Format("20060102")
	if s.scopeDate != "" {
		date = s.scopeDate
	}
	return date, date + "/" + s.region + "/" + s.service + "/aws4_request"
}

func hmacSum(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

func (s *signer) signingKey(date string) []byte {
	k := hmacSum([]byte("AWS4"+s.secret), date)
	k = hmacSum(k, s.region)
	k = hmacSum(k, s.service)
	return hmacSum(k, "aws4_request")
}

func awsEncode(v string, slash bool) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.~", c) >= 0 || c == '/' && !slash {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}
	return b.String()
}

func canonicalQueryOf(q url.Values, skip string) string {
	var parts []string
	for k, vs := range q {
		if k == skip {
			continue
		}
		for _, v := range vs {
			parts = append(parts, awsEncode(k, true)+"="+awsEncode(v, true))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, "&")
}

// canonical is the canonical request of r over the headers named (lower
// case, sorted by the caller or here).
func canonical(r *http.Request, headers []string, payload, skipQuery string) string {
	sort.Strings(headers)
	var b strings.Builder
	b.WriteString(r.Method + "\n" + awsEncode(r.URL.Path, false) + "\n" + canonicalQueryOf(r.URL.Query(), skipQuery) + "\n")
	for _, h := range headers {
		v := r.Header.Get(h)
		if h == "host" {
			v = r.Host
			if v == "" {
				v = r.URL.Host
			}
		}
		if h == "content-length" {
			v = strconv.FormatInt(r.ContentLength, 10)
		}
		b.WriteString(h + ":" + strings.Join(strings.Fields(v), " ") + "\n")
	}
	b.WriteString("\n" + strings.Join(headers, ";") + "\n" + payload)
	return b.String()
}

// sign signs r in its Authorization header over exactly the headers named
// (plus x-amz-date and x-amz-content-sha256 when it sets them and they
// are listed); body is the payload, hashed unless unsignedPayload.
func (s *signer) sign(r *http.Request, body []byte, headers ...string) {
	amzDate := s.now.Format("20060102T150405Z")
	r.Header.Set("X-Amz-Date", amzDate)
	payload := "UNSIGNED-PAYLOAD"
	if !s.unsignedPayload {
		sum := sha256.Sum256(body)
		payload = hex.EncodeToString(sum[:])
	}
	if !s.omitPayloadValue {
		r.Header.Set("X-Amz-Content-Sha256", payload)
	}
	date, scope := s.credential()
	creq := canonical(r, headers, payload, "")
	sts := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(sha256Of(creq))
	sig := hex.EncodeToString(hmacSum(s.signingKey(date), sts))
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+s.key+"/"+scope+", SignedHeaders="+strings.Join(headers, ";")+", Signature="+sig)
}

// signAllAs is signAll with the payload value given (a STREAMING-* one),
// already set in x-amz-content-sha256.
func (s *signer) signAllAs(r *http.Request, payload string) {
	r.Header.Set("X-Amz-Date", s.now.Format("20060102T150405Z"))
	headers := []string{"host"}
	for k := range r.Header {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "x-amz-") || lk == "content-type" || lk == "content-md5" {
			headers = append(headers, lk)
		}
	}
	date, scope := s.credential()
	amzDate := r.Header.Get("X-Amz-Date")
	creq := canonical(r, headers, payload, "")
	sts := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(sha256Of(creq))
	sig := hex.EncodeToString(hmacSum(s.signingKey(date), sts))
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+s.key+"/"+scope+", SignedHeaders="+strings.Join(headers, ";")+", Signature="+sig)
}

// signAll signs r over host, every x-amz-* header it carries and
// Content-Type/Content-MD5 when present, as SDKs do.
func (s *signer) signAll(r *http.Request, body []byte) {
	r.Header.Set("X-Amz-Date", s.now.Format("20060102T150405Z"))
	if !s.omitPayloadValue {
		r.Header.Set("X-Amz-Content-Sha256", "x") // named now, set by sign
	}
	headers := []string{"host"}
	for k := range r.Header {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "x-amz-") || lk == "content-type" || lk == "content-md5" {
			headers = append(headers, lk)
		}
	}
	s.sign(r, body, headers...)
}

// presign puts a presigned-URL signature of r over the headers named into
// its query, valid for expires.
func (s *signer) presign(r *http.Request, expires time.Duration, headers ...string) {
	date, scope := s.credential()
	q := r.URL.Query()
	q.Set("X-Amz-Algorithm", "AWS4-HMAC-SHA256")
	q.Set("X-Amz-Credential", s.key+"/"+scope)
	q.Set("X-Amz-Date", s.now.Format("20060102T150405Z"))
	q.Set("X-Amz-Expires", strconv.Itoa(int(expires/time.Second)))
	q.Set("X-Amz-SignedHeaders", strings.Join(headers, ";"))
	r.URL.RawQuery = q.Encode()
	creq := canonical(r, headers, "UNSIGNED-PAYLOAD", "X-Amz-Signature")
	sts := "AWS4-HMAC-SHA256\n" + q.Get("X-Amz-Date") + "\n" + scope + "\n" + hex.EncodeToString(sha256Of(creq))
	q.Set("X-Amz-Signature", hex.EncodeToString(hmacSum(s.signingKey(date), sts)))
	r.URL.RawQuery = q.Encode()
}

func sha256Of(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:]
}

// request builds a request to the server; header pairs are name, value.
func (e *s3env) request(method, path string, body []byte, header ...string) *http.Request {
	e.t.Helper()
	r, err := http.NewRequest(method, e.url+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	return r
}

// send sends r and returns the status, headers and body.
func (e *s3env) send(r *http.Request) (int, http.Header, string) {
	e.t.Helper()
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		e.t.Fatalf("%s %s: %v", r.Method, r.URL, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// signed sends a request signed by the admin over everything it carries.
func (e *s3env) signed(method, path string, body []byte, header ...string) (int, http.Header, string) {
	e.t.Helper()
	r := e.request(method, path, body, header...)
	newSigner(adminKey, adminSecret).signAll(r, body)
	return e.send(r)
}

// mustSigned is signed, failing the test unless the status is want.
func (e *s3env) mustSigned(want int, method, path string, body []byte, header ...string) string {
	e.t.Helper()
	code, _, b := e.signed(method, path, body, header...)
	if code != want {
		e.t.Fatalf("%s %s: %d %s, want %d", method, path, code, b, want)
	}
	return b
}

// xmlValue is the text of the first <tag> in doc.
func xmlValue(doc, tag string) string {
	_, rest, ok := strings.Cut(doc, "<"+tag+">")
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, "</"+tag+">")
	return v
}

// object is the content of bucket/key read straight from the store, or
// found=false.
func (e *s3env) object(bucket, key string) (data []byte, found bool) {
	e.t.Helper()
	ctx := context.Background()
	b, err := e.db.Bucket(ctx, bucket)
	if err != nil {
		e.t.Fatal(err)
	}
	dl, err := b.OpenName(ctx, key, -1)
	if err != nil {
		return nil, false
	}
	defer dl.Close()
	data, err = io.ReadAll(dl)
	if err != nil {
		e.t.Fatalf("read %s/%s: %v", bucket, key, err)
	}
	return data, true
}
