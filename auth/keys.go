package auth

import "crypto/subtle"

// Protocols that sign requests with the secret instead of sending it (S3's
// Signature Version 4) name the token and need its secret to check the
// signature; these methods give them what Authorize decides from a bearer
// token.

// TokenSecret returns the secret of the token named name.
func (a *Authorizer) TokenSecret(name string) (secret string, ok bool) {
	var found *Token
	for i := range a.cfg.Tokens {
		t := &a.cfg.Tokens[i]
		if subtle.ConstantTimeCompare([]byte(t.Name), []byte(name)) == 1 {
			found = t
		}
	}
	if found == nil {
		return "", false
	}
	return found.Secret, true
}

// TokenAccess is the access the token named name has to bucket (None for
// an unknown token); an empty bucket asks about requests on no bucket.
func (a *Authorizer) TokenAccess(name, bucket string) Access {
	for i := range a.cfg.Tokens {
		if t := &a.cfg.Tokens[i]; t.Name == name {
			return t.accessTo(bucket)
		}
	}
	return None
}

// AnonymousRead reports whether anyone may read bucket without a
// credential.
func (a *Authorizer) AnonymousRead(bucket string) bool {
	return bucket != "" && matches(a.cfg.AnonymousRead, bucket)
}
