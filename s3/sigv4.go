package s3

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// AWS Signature Version 4, as S3 checks it: in the Authorization header or
// in the query of a presigned URL. The access key id is a token's name and
// the secret key its secret.

const (
	algorithm       = "AWS4-HMAC-SHA256"
	amzDateFormat   = "20060102T150405Z"
	maxClockSkew    = 15 * time.Minute
	maxPresignedAge = 7 * 24 * time.Hour // S3's limit of X-Amz-Expires

	unsignedPayload        = "UNSIGNED-PAYLOAD"
	streamingSigned        = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
	streamingSignedTrailer = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
	streamingUnsignedTrail = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
)

// emptySHA256 is the hex SHA-256 of nothing.
const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// signature is a request's verified (or, with access control off, merely
// parsed) signature: what the aws-chunked decoder needs to check the
// signatures of the chunks that follow.
type signature struct {
	accessKey string
	amzDate   string
	scope     string // date/region/service/aws4_request
	key       []byte // signing key; nil when signatures are not checked
	seed      string // the request's signature, hex
	payload   string // x-amz-content-sha256 (or UNSIGNED-PAYLOAD)
}

// credential is the parsed Credential=AKID/date/region/service/aws4_request.
type credential struct {
	accessKey, date, region, service string
}

func (c credential) scope() string {
	return c.date + "/" + c.region + "/" + c.service + "/aws4_request"
}

func parseCredential(s string) (credential, bool) {
	// The access key id may itself hold a "/": split from the right.
	parts := strings.Split(s, "/")
	if len(parts) < 5 || parts[len(parts)-1] != "aws4_request" {
		return credential{}, false
	}
	n := len(parts)
	return credential{
		accessKey: strings.Join(parts[:n-4], "/"),
		date:      parts[n-4], region: parts[n-3], service: parts[n-2],
	}, true
}

// secrets looks up the secret of an access key id.
type secrets interface {
	TokenSecret(name string) (string, bool)
}

// isSigned reports whether r carries a SigV4 signature in either form.
func isSigned(r *http.Request) bool {
	return r.Header.Get("Authorization") != "" || r.URL.Query().Has("X-Amz-Credential")
}

// verifySignature checks r's signature against the secret of its access
// key. With keys nil (access control off) it parses without checking. It
// returns an *Error with S3's code on failure.
func verifySignature(r *http.Request, keys secrets, now time.Time) (*signature, error) {
	q := r.URL.Query()
	presigned := r.Header.Get("Authorization") == ""
	var (
		cred          credential
		signedHeaders []string
		sig, amzDate  string
		payload       string
		ok            bool
	)
	if presigned {
		if q.Get("X-Amz-Algorithm") != algorithm {
			return nil, errorf(ErrAuthQuery, "X-Amz-Algorithm must be %s", algorithm)
		}
		if cred, ok = parseCredential(q.Get("X-Amz-Credential")); !ok {
			return nil, errorf(ErrAuthQuery, "X-Amz-Credential is malformed")
		}
		amzDate, sig = q.Get("X-Amz-Date"), q.Get("X-Amz-Signature")
		signedHeaders = strings.Split(q.Get("X-Amz-SignedHeaders"), ";")
		payload = unsignedPayload
		if v := r.Header.Get("X-Amz-Content-Sha256"); v != "" {
			payload = v
		}
		t, err := time.Parse(amzDateFormat, amzDate)
		if err != nil {
			return nil, errorf(ErrAuthQuery, "X-Amz-Date is malformed")
		}
		expires, err := strconv.Atoi(q.Get("X-Amz-Expires"))
		if err != nil || expires < 0 || time.Duration(expires)*time.Second > maxPresignedAge {
			return nil, errorf(ErrAuthQuery, "X-Amz-Expires must be between 0 and 604800 seconds")
		}
		if now.After(t.Add(time.Duration(expires) * time.Second)) {
			return nil, errorf(ErrAccessDenied, "Request has expired")
		}
		if t.After(now.Add(maxClockSkew)) {
			return nil, errorf(ErrAccessDenied, "Request is not valid yet")
		}
	} else {
		h := r.Header.Get("Authorization")
		scheme, rest, _ := strings.Cut(h, " ")
		if !strings.EqualFold(scheme, algorithm) {
			return nil, errorf(ErrAuthHeader, "only AWS Signature Version 4 (%s) is supported", algorithm)
		}
		fields := map[string]string{}
		for _, f := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
			fields[k] = v
		}
		if cred, ok = parseCredential(fields["Credential"]); !ok || fields["Signature"] == "" || fields["SignedHeaders"] == "" {
			return nil, errorf(ErrAuthHeader, "the Authorization header is malformed")
		}
		sig = fields["Signature"]
		signedHeaders = strings.Split(fields["SignedHeaders"], ";")
		amzDate = r.Header.Get("X-Amz-Date")
		var t time.Time
		var err error
		if amzDate != "" {
			t, err = time.Parse(amzDateFormat, amzDate)
		} else if d := r.Header.Get("Date"); d != "" {
			t, err = http.ParseTime(d)
			amzDate = t.UTC().Format(amzDateFormat)
		} else {
			err = errors.New("no date")
		}
		if err != nil {
			return nil, errorf(ErrAccessDenied, "the request has no valid X-Amz-Date or Date")
		}
		if d := now.Sub(t); d > maxClockSkew || d < -maxClockSkew {
			return nil, errorf(ErrTimeSkewed, "the difference between the request time and the server's time is too large")
		}
		payload = r.Header.Get("X-Amz-Content-Sha256")
		if payload == "" {
			payload = unsignedPayload
		}
	}
	malformed := ErrAuthHeader
	if presigned {
		malformed = ErrAuthQuery
	}
	if err := checkScope(cred, amzDate); err != nil {
		return nil, errorf(malformed, "%s", err.Error())
	}
	if err := checkSignedHeaders(r, signedHeaders, presigned); err != nil {
		return nil, err
	}
	s := &signature{accessKey: cred.accessKey, amzDate: amzDate, scope: cred.scope(), seed: strings.ToLower(sig), payload: payload}
	if keys == nil {
		return s, nil
	}
	secret, found := keys.TokenSecret(cred.accessKey)
	if !found {
		return nil, errorf(ErrInvalidAccessKey, "the access key id does not exist")
	}
	s.key = signingKey(secret, cred)
	// Clients canonicalise the path from their own encoding of it; most
	// encode as S3 prescribes, some leave characters S3 would encode. The
	// signature is accepted if either form matches.
	raw := rawPath(r)
	candidates := []string{encodePath(decodePathOrRaw(raw))}
	if raw != candidates[0] {
		candidates = append(candidates, raw)
	}
	for _, path := range candidates {
		creq := canonicalRequest(r, path, signedHeaders, payload, presigned)
		want := hex.EncodeToString(hmacSHA256(s.key, stringToSign(amzDate, s.scope, creq)))
		if hmac.Equal([]byte(want), []byte(s.seed)) {
			return s, nil
		}
	}
	return nil, errorf(ErrSignatureMismatch, "the request signature we calculated does not match the signature you provided; check your key and signing method")
}

// checkScope checks a credential's scope against the request: the service
// is s3, the date is the request's (X-Amz-Date or Date) and the region a
// name. gridfsd has no regions: any region name is accepted, and since
// the region is part of the signing key, a request cannot change it once
// signed (see docs/S3.md).
func checkScope(c credential, amzDate string) error {
	if c.service != "s3" {
		return fmt.Errorf("the credential's service is %q; this endpoint belongs to \"s3\"", c.service)
	}
	if len(c.date) != 8 || len(amzDate) < 8 || c.date != amzDate[:8] {
		return fmt.Errorf("the credential's date %q is not the request's date %q", c.date, amzDate)
	}
	if !validRegion(c.region) {
		return fmt.Errorf("the credential's region %q is not a region name", c.region)
	}
	return nil
}

// validRegion reports whether s looks like a region name (us-east-1,
// eu-central-1, auto, garage...): 1 to 64 lower-case letters, digits, "-"
// and "_".
func validRegion(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// checkSignedHeaders enforces that only what was signed counts, as AWS
// does: host is always signed, every x-amz-* header the request carries is
// signed, and so is Content-MD5 when present. On a presigned URL, whose
// holder is not the key's owner, Content-Type must be signed too when
// present. (A header-signed request may leave Content-Type unsigned:
// minio-go and other SDKs never sign it, and AWS accepts that; the key's
// owner built that request.) It returns 403 AccessDenied otherwise, and
// 400 for an empty or malformed list.
func checkSignedHeaders(r *http.Request, signed []string, presigned bool) error {
	malformed := ErrAuthHeader
	if presigned {
		malformed = ErrAuthQuery
	}
	set := make(map[string]bool, len(signed))
	for _, h := range signed {
		if h == "" || h != strings.ToLower(h) || strings.TrimSpace(h) != h {
			return errorf(malformed, "SignedHeaders must be a list of lower-case header names separated by \";\"")
		}
		set[h] = true
	}
	if !set["host"] {
		return errorf(ErrAccessDenied, "the host header must be signed")
	}
	var unsigned []string
	for name := range r.Header {
		lk := strings.ToLower(name)
		must := strings.HasPrefix(lk, "x-amz-") || lk == "content-md5" || presigned && lk == "content-type"
		if must && !set[lk] {
			unsigned = append(unsigned, lk)
		}
	}
	if len(unsigned) > 0 {
		sort.Strings(unsigned)
		return errorf(ErrAccessDenied, "There were headers present in the request which were not signed: %s", strings.Join(unsigned, ", "))
	}
	return nil
}

func signingKey(secret string, c credential) []byte {
	k := hmacSHA256([]byte("AWS4"+secret), c.date)
	k = hmacSHA256(k, c.region)
	k = hmacSHA256(k, c.service)
	return hmacSHA256(k, "aws4_request")
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func stringToSign(amzDate, scope, canonical string) string {
	return algorithm + "\n" + amzDate + "\n" + scope + "\n" + sha256Hex(canonical)
}

func canonicalRequest(r *http.Request, path string, signedHeaders []string, payload string, presigned bool) string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte('\n')
	b.WriteString(path)
	b.WriteByte('\n')
	b.WriteString(canonicalQuery(r.URL.RawQuery, presigned))
	b.WriteByte('\n')
	for _, h := range signedHeaders {
		b.WriteString(h)
		b.WriteByte(':')
		b.WriteString(headerValue(r, h))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(strings.Join(signedHeaders, ";"))
	b.WriteByte('\n')
	b.WriteString(payload)
	return b.String()
}

func headerValue(r *http.Request, name string) string {
	var values []string
	switch name {
	case "host":
		values = []string{r.Host}
	case "content-length":
		values = r.Header.Values("Content-Length")
		if len(values) == 0 && r.ContentLength >= 0 {
			values = []string{strconv.FormatInt(r.ContentLength, 10)}
		}
	case "transfer-encoding":
		values = r.TransferEncoding
	default:
		values = r.Header.Values(name)
	}
	for i, v := range values {
		values[i] = strings.Join(strings.Fields(v), " ")
	}
	return strings.Join(values, ",")
}

func canonicalQuery(raw string, presigned bool) string {
	type kv struct{ k, v string }
	var pairs []kv
	for _, p := range strings.Split(raw, "&") {
		if p == "" {
			continue
		}
		k, v, _ := strings.Cut(p, "=")
		dk, err1 := url.QueryUnescape(k)
		dv, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			dk, dv = k, v
		}
		if presigned && dk == "X-Amz-Signature" {
			continue
		}
		pairs = append(pairs, kv{uriEncode(dk, true), uriEncode(dv, true)})
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].k != pairs[j].k {
			return pairs[i].k < pairs[j].k
		}
		return pairs[i].v < pairs[j].v
	})
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		parts[i] = p.k + "=" + p.v
	}
	return strings.Join(parts, "&")
}

// rawPath is the path as the client sent it, before any decoding.
func rawPath(r *http.Request) string {
	p := r.RequestURI
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	if p == "" || strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://") {
		p = r.URL.EscapedPath()
	}
	return p
}

func decodePathOrRaw(p string) string {
	if d, err := url.PathUnescape(p); err == nil {
		return d
	}
	return p
}

// encodePath encodes a path as SigV4 canonicalises S3 paths: every byte
// but the unreserved characters and "/" percent-encoded.
func encodePath(p string) string {
	if p == "" {
		return "/"
	}
	return uriEncode(p, false)
}

// uriEncode is SigV4's UriEncode: A-Z a-z 0-9 - _ . ~ stay, everything
// else becomes %XX (upper-case hex); "/" stays unless encodeSlash.
func uriEncode(s string, encodeSlash bool) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' || c == '/' && !encodeSlash {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}
