package auth

import "crypto/subtle"

// Protocols that sign requests with the secret instead of sending it (S3's
// Signature Version 4) name the token and need its secret to check the
// signature; then Decide gives them what Authorize decides from a bearer
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
