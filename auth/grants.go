package auth

import (
	"context"
	"fmt"
	"net/http"
	"slices"
)

// Grants are what buckets' owners granted beyond the tokens' bucket lists
// (S3's canned ACLs, kept in the store by package buckets): an Authorizer
// asks them when a request's token (or its absence) does not reach on its
// own. Implementations may cache, briefly: a change must reach every
// gateway within seconds.
type Grants interface {
	// BucketGrants is what bucket grants to others than its tokens.
	BucketGrants(ctx context.Context, bucket string) (BucketGrants, error)
	// ObjectGrants is whom the object named name (its newest revision)
	// lets read it by its own ACL: anyone, or any valid token.
	ObjectGrants(ctx context.Context, bucket, name string) (anyone, authenticated bool, err error)
	// BucketExists reports whether bucket exists; asked only when a token
	// limited to its own buckets (OwnedBuckets) would create one.
	BucketExists(ctx context.Context, bucket string) (bool, error)
}

// BucketGrants is what one bucket grants beyond the tokens' lists.
type BucketGrants struct {
	// Owner is the name of the token that created the bucket; a token
	// whose list holds OwnedBuckets has its access on the buckets it owns.
	Owner string
	// Anyone is what every caller may do, with or without a credential,
	// and Authenticated what every valid token may, as S3 grants them on
	// a bucket: None, List (READ: list the bucket) or Write (READ and
	// WRITE: list it, and write and delete objects in it). Neither reads
	// an object: only the object's own ACL grants that, so that a bucket
	// made listable does not publish what is in it.
	Anyone, Authenticated Access
	// Restricted withdraws every access without a credential, the
	// configuration's AnonymousRead included, and Anyone and Authenticated
	// (S3's RestrictPublicBuckets).
	Restricted bool
}

// OwnedBuckets in a token's bucket list gives the token its access on the
// buckets it created (their Owner) and lets it create new ones, so that
// several tokens share a gateway as S3 accounts share S3: each sees its own
// buckets and no other's.
const OwnedBuckets = "$owned"

// SetGrants gives a the buckets' own grants (canned ACLs and owners);
// without, only the configuration counts. Call it before a is used.
func (a *Authorizer) SetGrants(g Grants) { a.grants = g }

// AuthorizeObject is Authorize for a request about the object name of
// bucket: an object whose own ACL makes it public may also be read by
// callers the bucket does not admit (Principal.ObjectGrant).
func (a *Authorizer) AuthorizeObject(r *http.Request, bucket, name string, need Access) (Principal, error) {
	return a.authorize(r, bucket, name, need)
}

// Decide is the access decision once a door has verified who asks by its
// own means (S3's signatures): token is the name of a verified token, ""
// for a request without a credential; object names the object a read is
// about ("" for none). It returns ErrUnauthenticated (no credential) or
// ErrForbidden when the request may not act with need on bucket, and an
// error of the Grants when they cannot be read.
func (a *Authorizer) Decide(ctx context.Context, token, bucket, object string, need Access) (Principal, error) {
	if !a.Enabled() {
		return Principal{Name: "anonymous", Access: Admin}, nil
	}
	var t *Token
	if token != "" {
		if t = a.tokenByName(token); t == nil {
			return Principal{}, fmt.Errorf("%w: unknown token", ErrUnauthenticated)
		}
	}
	return a.decide(ctx, t, bucket, object, need)
}

// decide is the one rule of who may do what: t is the caller's token, nil
// without a credential.
func (a *Authorizer) decide(ctx context.Context, t *Token, bucket, object string, need Access) (Principal, error) {
	p := Principal{Name: "anonymous"}
	if t != nil {
		p = Principal{Name: t.Name, Access: t.accessTo(bucket)}
	}
	if p.Access >= need {
		return p, nil
	}
	if bucket == "" {
		if t == nil && need <= Read {
			// Listing buckets: anonymous callers see the ones they may read.
			return p, nil
		}
		return p, p.refuse(t, bucket, need)
	}
	var g BucketGrants
	if a.grants != nil {
		var err error
		if g, err = a.grants.BucketGrants(ctx, bucket); err != nil {
			return Principal{}, fmt.Errorf("read the grants of bucket %q: %w", bucket, err)
		}
	}
	if t == nil && g.Restricted {
		return p, fmt.Errorf("%w: bucket %q admits no anonymous requests (RestrictPublicBuckets)", ErrUnauthenticated, bucket)
	}
	if t == nil && need <= Read && matches(a.cfg.AnonymousRead, bucket) {
		p.Access = Read
		return p, nil
	}
	if t != nil && slices.Contains(t.Buckets, OwnedBuckets) {
		switch {
		case g.Owner == t.Name:
			p.Access = t.Access
		case g.Owner == "" && need == Admin && a.grants != nil:
			// Creating a bucket: only one that does not exist yet.
			exists, err := a.grants.BucketExists(ctx, bucket)
			if err != nil {
				return Principal{}, fmt.Errorf("look for bucket %q: %w", bucket, err)
			}
			if !exists {
				p.Access = t.Access
			}
		}
	}
	if granted := g.Anyone; !g.Restricted {
		if t != nil {
			granted = max(granted, g.Authenticated)
		}
		switch {
		case need != Read && need <= granted:
			p.Access = max(p.Access, need)
		case granted >= List:
			// Recorded, so that a door may tell a caller who lists the
			// bucket that an object is not there (S3's 404 NoSuchKey
			// for a caller with ListBucket) rather than forbidden.
			p.Access = max(p.Access, List)
		}
	}
	if p.Access >= need {
		return p, nil
	}
	if need == Read && object != "" && !g.Restricted && a.grants != nil {
		anyone, authenticated, err := a.grants.ObjectGrants(ctx, bucket, object)
		if err != nil {
			return Principal{}, fmt.Errorf("read the grants of %q in bucket %q: %w", object, bucket, err)
		}
		if anyone || (t != nil && authenticated) {
			p.Access, p.ObjectGrant = Read, true
			return p, nil
		}
	}
	return p, p.refuse(t, bucket, need)
}

// refuse is the error for a caller with p.Access below need.
func (p Principal) refuse(t *Token, bucket string, need Access) error {
	switch {
	case t == nil:
		return fmt.Errorf("%w: send Authorization: Bearer <token>", ErrUnauthenticated)
	case p.Access == None:
		return fmt.Errorf("%w: token %s has no access to bucket %q", ErrForbidden, t.Name, bucket)
	}
	return fmt.Errorf("%w: token %s has %s access to bucket %q, this needs %s", ErrForbidden, t.Name, p.Access, bucket, need)
}
