// Package grants gives package auth the grants that package buckets keeps
// (buckets' and files' canned ACLs, buckets' owners and public access
// blocks), so that every door's authorizer decides with them while auth
// knows nothing of the store and buckets nothing of credentials.
package grants

import (
	"context"
	"errors"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
)

// Of returns the grants kept in db. Bucket grants are read through db's
// settings cache (buckets.SettingsCacheTTL: a change made through another
// gateway counts there within it); object grants from the files document
// each time.
func Of(db *buckets.DB) auth.Grants { return store{db} }

type store struct{ db *buckets.DB }

var _ auth.Grants = store{}

func (s store) BucketGrants(ctx context.Context, bucket string) (auth.BucketGrants, error) {
	p, err := s.db.Publicity(ctx, bucket)
	if errors.Is(err, buckets.ErrInvalidBucketName) {
		return auth.BucketGrants{}, nil // no such bucket can grant anything
	}
	if err != nil {
		return auth.BucketGrants{}, err
	}
	g := auth.BucketGrants{Owner: p.Owner, Restricted: p.Restricted}
	switch {
	case p.AnyoneWrite:
		g.Anyone = auth.Write
	case p.AnyoneRead:
		g.Anyone = auth.List
	}
	if p.AuthenticatedRead {
		g.Authenticated = auth.List
	}
	return g, nil
}

func (s store) ObjectGrants(ctx context.Context, bucket, name string) (anyone, authenticated bool, err error) {
	anyone, authenticated, err = s.db.FilePublicity(ctx, bucket, name)
	if errors.Is(err, buckets.ErrInvalidBucketName) {
		return false, false, nil
	}
	return anyone, authenticated, err
}

func (s store) BucketExists(ctx context.Context, bucket string) (bool, error) {
	if buckets.CheckBucketName(bucket) != nil {
		return false, nil
	}
	return s.db.Exists(ctx, bucket)
}
