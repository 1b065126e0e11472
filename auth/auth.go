// Package auth decides who may do what to which bucket: bearer tokens with
// per-bucket access levels, anonymous read of chosen buckets, and signed
// URLs that let a browser fetch or upload one path until they expire.
// It knows HTTP requests but nothing of routes or of MongoDB.
package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Access is what a token may do; each level includes the ones below it.
type Access int

const (
	// None is no access.
	None Access = iota
	// List lists a bucket's files (names, sizes, dates) without reading
	// them: what S3's READ permission on a bucket grants, and all that a
	// bucket's canned ACL gives others (see Authorizer.decide). Tokens
	// never hold it alone; Read includes it.
	List
	// Read lists and downloads files.
	Read
	// Write also uploads, renames, changes metadata and deletes files.
	Write
	// Admin also creates and drops buckets and changes their settings.
	Admin
)

func (a Access) String() string {
	switch a {
	case List:
		return "list"
	case Read:
		return "read"
	case Write:
		return "write"
	case Admin:
		return "admin"
	}
	return "none"
}

// ParseAccess reads "read", "write" or "admin".
func ParseAccess(s string) (Access, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "read":
		return Read, nil
	case "write":
		return Write, nil
	case "admin":
		return Admin, nil
	}
	return None, fmt.Errorf("access %q is not read, write or admin", s)
}

// Errors of Authorize: the first means 401, the second 403.
var (
	ErrUnauthenticated = errors.New("authentication required")
	ErrForbidden       = errors.New("not allowed")
)

// AllBuckets in a token's or the anonymous bucket list matches every bucket.
const AllBuckets = "*"

// MinSecretLength keeps secrets and signing keys out of guessing range.
const MinSecretLength = 16

// Token is one credential.
type Token struct {
	Name    string   // shown in logs, never the secret
	Secret  string   // sent as "Authorization: Bearer <secret>"
	Buckets []string // buckets it applies to; "*" for all
	Access  Access
}

// Config configures an Authorizer. The zero value disables access control.
type Config struct {
	Tokens        []Token
	AnonymousRead []string // buckets anyone may read; "*" for all
	SigningKey    string   // enables signed URLs
	// MaxSignedLife caps how far ahead a signed URL's expiry may lie, when
	// minted and again when verified; zero means DefaultMaxSignedLife.
	MaxSignedLife time.Duration
}

// DefaultMaxSignedLife is the longest a signed URL lives unless configured:
// a leaked URL stops working within a day.
const DefaultMaxSignedLife = 24 * time.Hour

// Enabled reports whether any access control is configured.
func (c Config) Enabled() bool {
	return len(c.Tokens) > 0 || len(c.AnonymousRead) > 0 || c.SigningKey != ""
}

// Authorizer answers whether a request may act on a bucket. It is safe for
// concurrent use.
type Authorizer struct {
	cfg    Config
	grants Grants // nil: the configuration only (SetGrants)
}

// New checks cfg: named tokens with unique names and secrets of at least
// MinSecretLength bytes, a bucket list and an access level each; a signing
// key, when set, as long as a secret.
func New(cfg Config) (*Authorizer, error) {
	names := map[string]bool{}
	secrets := map[string]bool{}
	for i, t := range cfg.Tokens {
		switch {
		case t.Name == "":
			return nil, fmt.Errorf("auth.tokens[%d]: name is empty", i)
		case names[t.Name]:
			return nil, fmt.Errorf("auth.tokens[%d]: name %q is used twice", i, t.Name)
		case t.Name == KeyHolder:
			return nil, fmt.Errorf("auth.tokens[%d]: name %q is reserved for URLs signed with the signing key", i, t.Name)
		case len(t.Secret) < MinSecretLength:
			return nil, fmt.Errorf("auth.tokens[%d] (%s): secret is shorter than %d characters", i, t.Name, MinSecretLength)
		case secrets[t.Secret]:
			return nil, fmt.Errorf("auth.tokens[%d] (%s): secret is used by another token", i, t.Name)
		case len(t.Buckets) == 0:
			return nil, fmt.Errorf("auth.tokens[%d] (%s): buckets is empty (use [\"*\"] for all)", i, t.Name)
		case t.Access < Read || t.Access > Admin:
			return nil, fmt.Errorf("auth.tokens[%d] (%s): access must be read, write or admin", i, t.Name)
		}
		names[t.Name], secrets[t.Secret] = true, true
	}
	if cfg.SigningKey != "" && len(cfg.SigningKey) < MinSecretLength {
		return nil, fmt.Errorf("auth.signing_key: shorter than %d characters", MinSecretLength)
	}
	if cfg.MaxSignedLife < 0 {
		return nil, fmt.Errorf("auth.max_signed_life: %s is negative", cfg.MaxSignedLife)
	}
	return &Authorizer{cfg: cfg}, nil
}

// Enabled reports whether requests are checked at all.
func (a *Authorizer) Enabled() bool { return a.cfg.Enabled() }

// Principal is who made a request.
type Principal struct {
	// Name is the token's name (also for a URL that token signed),
	// "anonymous", or "signed-url" for a URL signed with the signing key
	// itself (KeyHolder).
	Name   string
	Access Access // on the bucket asked about
	// ObjectGrant: the request may read only because the object's own
	// ACL makes it public (see Grants.ObjectGrants). A door that then
	// serves a revision checks that revision's ACL, which a write may
	// have changed since.
	ObjectGrant bool
}

// Query parameters of a signed URL.
const (
	ParamExpires   = "expires"
	ParamSignature = "signature"
	// ParamBy names the token that minted the URL, under the signature: at
	// every use the URL is decided as a request of that token would be, so
	// that it never grants more than the token has then (a bucket created
	// since by someone else, a token removed or narrowed).
	ParamBy = "by"
)

// KeyHolder is the ParamBy of URLs minted with the signing key itself
// rather than for a token (gridfsd sign, by whoever holds the
// configuration): they allow their method on their path. No token may
// have this name.
const KeyHolder = "$signing-key"

// Authorize decides whether r may act with need on bucket (empty for
// requests about no bucket, such as the bucket list). With access control
// off everything is allowed. It returns ErrUnauthenticated for a missing or
// wrong credential and ErrForbidden for a valid one that does not reach.
func (a *Authorizer) Authorize(r *http.Request, bucket string, need Access) (Principal, error) {
	return a.authorize(r, bucket, "", need)
}

func (a *Authorizer) authorize(r *http.Request, bucket, object string, need Access) (Principal, error) {
	if !a.Enabled() {
		return Principal{Name: "anonymous", Access: Admin}, nil
	}
	if h := r.Header.Get("Authorization"); h != "" {
		secret, ok := BearerToken(h)
		if !ok {
			return Principal{}, fmt.Errorf("%w: Authorization must be \"Bearer <token>\"", ErrUnauthenticated)
		}
		t := a.token(strings.TrimSpace(secret))
		if t == nil {
			return Principal{}, fmt.Errorf("%w: unknown token", ErrUnauthenticated)
		}
		return a.decide(r.Context(), t, bucket, object, need)
	}
	if q := r.URL.Query(); q.Has(ParamSignature) {
		if err := a.verify(r.Method, r.URL.Path, q, time.Now()); err != nil {
			return Principal{}, err
		}
		return a.decideSigned(r, q.Get(ParamBy), bucket, object, need)
	}
	return a.decide(r.Context(), nil, bucket, object, need)
}

// decideSigned decides a request whose signed URL verify accepted, minted
// by the token named by: what that token may do now, and no more than the
// access the route needs, however much the token has.
func (a *Authorizer) decideSigned(r *http.Request, by, bucket, object string, need Access) (Principal, error) {
	if by == KeyHolder {
		return Principal{Name: "signed-url", Access: need}, nil
	}
	t := a.tokenByName(by)
	if t == nil {
		return Principal{}, fmt.Errorf("%w: the token %q that signed this URL is no longer configured", ErrUnauthenticated, by)
	}
	p, err := a.decide(r.Context(), t, bucket, object, need)
	if err != nil {
		return p, fmt.Errorf("signed URL: %w", err)
	}
	p.Access = need
	return p, nil
}

// CanRead reports whether p, authorized for a bucket-less request, may read
// bucket; used to filter the bucket list.
func (a *Authorizer) CanRead(r *http.Request, bucket string) bool {
	_, err := a.Authorize(r, bucket, List)
	return err == nil
}

// token finds the token with secret, comparing every secret in constant
// time so that timing tells nothing about which bytes matched.
func (a *Authorizer) token(secret string) *Token {
	var found *Token
	for i := range a.cfg.Tokens {
		t := &a.cfg.Tokens[i]
		if subtle.ConstantTimeCompare([]byte(t.Secret), []byte(secret)) == 1 {
			found = t
		}
	}
	return found
}

// tokenByName finds the token named name, for credentials that name a
// token already verified otherwise (a signature).
func (a *Authorizer) tokenByName(name string) *Token {
	for i := range a.cfg.Tokens {
		if a.cfg.Tokens[i].Name == name {
			return &a.cfg.Tokens[i]
		}
	}
	return nil
}

func (t *Token) accessTo(bucket string) Access {
	if bucket == "" || matches(t.Buckets, bucket) {
		return t.Access
	}
	return None
}

func matches(list []string, bucket string) bool {
	return slices.Contains(list, AllBuckets) || slices.Contains(list, bucket)
}

// BearerToken is the credential of an Authorization header value with the
// Bearer scheme, whose name is case-insensitive (RFC 9110 11.1).
func BearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// SigningEnabled reports whether Sign can mint URLs: a signing key is set.
func (a *Authorizer) SigningEnabled() bool { return a.cfg.SigningKey != "" }

// MaxSignedLife is the longest a signed URL may live.
func (a *Authorizer) MaxSignedLife() time.Duration {
	if a.cfg.MaxSignedLife > 0 {
		return a.cfg.MaxSignedLife
	}
	return DefaultMaxSignedLife
}

// ErrSigningDisabled is returned by Sign without a signing key.
var ErrSigningDisabled = errors.New("signed URLs are not enabled (set auth.signing_key)")

// ErrSignedLifeTooLong is returned by Sign for an expiry beyond
// MaxSignedLife.
var ErrSignedLifeTooLong = errors.New("signed URL would live longer than allowed")

// clockSkew is how far a verifier's clock may be behind the signer's
// without refusing a URL of the longest life.
const clockSkew = time.Minute

// Sign returns the query string that makes method on path with query valid
// until expires for what the token named by may do (KeyHolder: for the
// signing key's holder): query's parameters with by, expires and
// signature. The signature covers the method, the path and every
// parameter, so a URL with a parameter added, removed or changed is
// refused. A GET signature also allows HEAD, never the reverse. It returns
// ErrSigningDisabled without a key and ErrSignedLifeTooLong when expires
// lies beyond MaxSignedLife.
func (a *Authorizer) Sign(by, method, path string, query url.Values, expires time.Time) (string, error) {
	if a.cfg.SigningKey == "" {
		return "", ErrSigningDisabled
	}
	if by != KeyHolder && a.tokenByName(by) == nil {
		return "", fmt.Errorf("sign for token %q: no such token", by)
	}
	if life := time.Until(expires); life > a.MaxSignedLife() {
		return "", fmt.Errorf("%w: %s is more than %s", ErrSignedLifeTooLong, life.Round(time.Second), a.MaxSignedLife())
	}
	if query.Has(ParamExpires) || query.Has(ParamSignature) || query.Has(ParamBy) {
		return "", fmt.Errorf("query may not hold %s, %s or %s", ParamBy, ParamExpires, ParamSignature)
	}
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set(ParamBy, by)
	q.Set(ParamExpires, strconv.FormatInt(expires.Unix(), 10))
	sig := a.signature(strings.ToUpper(method), path, q)
	return q.Encode() + "&" + ParamSignature + "=" + sig, nil
}

// signature is the MAC of a method, a path and a query without its
// signature parameter, in canonical form: url.Values.Encode sorts by key
// and escapes alike however the client spelled the query.
func (a *Authorizer) signature(method, path string, q url.Values) string {
	mac := hmac.New(sha256.New, []byte(a.cfg.SigningKey))
	mac.Write([]byte(method + "\n" + path + "\n" + q.Encode()))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func (a *Authorizer) verify(method, path string, q url.Values, now time.Time) error {
	if a.cfg.SigningKey == "" {
		return fmt.Errorf("%w: signed URLs are not enabled", ErrUnauthenticated)
	}
	given := q[ParamSignature]
	unsigned := url.Values{}
	for k, v := range q {
		if k != ParamSignature {
			unsigned[k] = v
		}
	}
	exp := q.Get(ParamExpires)
	unix, err := strconv.ParseInt(exp, 10, 64)
	if err != nil || len(q[ParamExpires]) != 1 {
		return fmt.Errorf("%w: signed URL has no valid %s", ErrUnauthenticated, ParamExpires)
	}
	if len(given) != 1 || !a.signedFor(method, path, unsigned, given[0]) {
		return fmt.Errorf("%w: signature does not match this method, path and query", ErrUnauthenticated)
	}
	// URLs minted before they named their token grant what their minter
	// may no longer do, or never could: they are refused.
	if len(q[ParamBy]) != 1 {
		return fmt.Errorf("%w: signed URL does not name the token that signed it (%s); sign it again", ErrUnauthenticated, ParamBy)
	}
	if now.Unix() > unix {
		return fmt.Errorf("%w: signed URL expired at %s", ErrUnauthenticated, time.Unix(unix, 0).UTC().Format(time.RFC3339))
	}
	// The cap holds whatever the URL says: one minted with a longer life
	// (another key holder, an older version) is refused until then.
	if time.Unix(unix, 0).Sub(now) > a.MaxSignedLife()+clockSkew {
		return fmt.Errorf("%w: signed URL lives longer than the %s allowed", ErrUnauthenticated, a.MaxSignedLife())
	}
	return nil
}

// signedFor reports whether sig signs method on path with q. HEAD is
// served by a GET signature: it is a GET without the body.
func (a *Authorizer) signedFor(method, path string, q url.Values, sig string) bool {
	m := strings.ToUpper(method)
	if hmac.Equal([]byte(a.signature(m, path, q)), []byte(sig)) {
		return true
	}
	return m == http.MethodHead && hmac.Equal([]byte(a.signature(http.MethodGet, path, q)), []byte(sig))
}
