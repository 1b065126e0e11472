package auth

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
)

// AuthorizeBasic is Authorize for protocols whose clients send a user name
// and a password (WebDAV: file managers and mount helpers know no bearer
// tokens): HTTP Basic with a token's name as the user and its secret as the
// password. Any other request is decided by Authorize, so bearer tokens and
// anonymous access work the same. It returns ErrUnauthenticated for a
// missing or wrong credential and ErrForbidden for a valid one that does not
// reach.
func (a *Authorizer) AuthorizeBasic(r *http.Request, bucket string, need Access) (Principal, error) {
	return a.authorizeBasic(r, bucket, "", need)
}

// AuthorizeBasicObject is AuthorizeBasic for a request about the object
// name of bucket, as AuthorizeObject is Authorize's.
func (a *Authorizer) AuthorizeBasicObject(r *http.Request, bucket, name string, need Access) (Principal, error) {
	return a.authorizeBasic(r, bucket, name, need)
}

func (a *Authorizer) authorizeBasic(r *http.Request, bucket, object string, need Access) (Principal, error) {
	if !a.Enabled() {
		return a.authorize(r, bucket, object, need)
	}
	h := r.Header.Get("Authorization")
	scheme, _, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "Basic") {
		return a.authorize(r, bucket, object, need)
	}
	name, secret, ok := r.BasicAuth()
	if !ok {
		return Principal{}, fmt.Errorf("%w: Authorization: Basic is not base64 of name:secret", ErrUnauthenticated)
	}
	t := a.tokenNamed(name, secret)
	if t == nil {
		return Principal{}, fmt.Errorf("%w: unknown token name or wrong secret", ErrUnauthenticated)
	}
	return a.decide(r.Context(), t, bucket, object, need)
}

// tokenNamed finds the token with both name and secret, comparing every
// token in constant time.
func (a *Authorizer) tokenNamed(name, secret string) *Token {
	var found *Token
	for i := range a.cfg.Tokens {
		t := &a.cfg.Tokens[i]
		n := subtle.ConstantTimeCompare([]byte(t.Name), []byte(name))
		s := subtle.ConstantTimeCompare([]byte(t.Secret), []byte(secret))
		if n&s == 1 {
			found = t
		}
	}
	return found
}
