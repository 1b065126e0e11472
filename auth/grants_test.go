package auth_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gridfsd/gridfsd/auth"
)

// fakeGrants are buckets' grants held in a map, as package buckets would
// answer them.
type fakeGrants struct {
	buckets map[string]auth.BucketGrants
	public  map[string]bool // "bucket/name" -> anyone may read
	exists  map[string]bool
	err     error
}

func (f fakeGrants) BucketGrants(_ context.Context, b string) (auth.BucketGrants, error) {
	return f.buckets[b], f.err
}

func (f fakeGrants) ObjectGrants(_ context.Context, b, name string) (bool, bool, error) {
	return f.public[b+"/"+name], f.public[b+"/"+name], f.err
}

func (f fakeGrants) BucketExists(_ context.Context, b string) (bool, error) {
	return f.exists[b] || f.buckets[b] != (auth.BucketGrants{}), f.err
}

// The one rule every door applies: the tokens' lists, then what buckets
// and objects grant anyone (or any token), RestrictPublicBuckets over all
// of that, and owners for OwnedBuckets tokens.
func TestDecideWithGrants(t *testing.T) {
	a, err := auth.New(auth.Config{
		Tokens: []auth.Token{
			{Name: "root", Secret: adminSecret, Buckets: []string{"*"}, Access: auth.Admin},
			{Name: "reader", Secret: readerSecret, Buckets: []string{"media"}, Access: auth.Read},
			{Name: "alice", Secret: writerSecret, Buckets: []string{auth.OwnedBuckets}, Access: auth.Admin},
		},
		AnonymousRead: []string{"anon", "restricted"},
	})
	if err != nil {
		t.Fatal(err)
	}
	a.SetGrants(fakeGrants{
		buckets: map[string]auth.BucketGrants{
			"pub":        {Owner: "root", Anyone: auth.List},
			"drop":       {Owner: "root", Anyone: auth.Write},
			"members":    {Owner: "root", Authenticated: auth.List},
			"restricted": {Owner: "root", Anyone: auth.List, Restricted: true},
			"mine":       {Owner: "alice"},
		},
		public: map[string]bool{"priv/open.txt": true, "restricted/open.txt": true},
		exists: map[string]bool{"priv": true, "made-by-mongofiles": true},
	})
	ctx := context.Background()
	for _, c := range []struct {
		token, bucket, object string
		need                  auth.Access
		ok, objectGrant       bool
	}{
		{"", "priv", "", auth.List, false, false},
		{"", "pub", "", auth.List, true, false},
		// A bucket's ACL lists it; its objects are read by their own.
		{"", "pub", "", auth.Read, false, false},
		{"", "pub", "x", auth.Read, false, false},
		{"", "pub", "", auth.Write, false, false},
		{"", "drop", "", auth.List, true, false},
		{"", "drop", "", auth.Write, true, false},
		{"", "drop", "x", auth.Read, false, false}, // public-read-write reads no object either
		{"", "drop", "", auth.Admin, false, false},
		{"reader", "pub", "", auth.List, true, false}, // anyone includes tokens
		{"reader", "drop", "", auth.Write, true, false},
		{"", "members", "", auth.List, false, false},
		{"reader", "members", "", auth.List, true, false},
		{"reader", "members", "x", auth.Read, false, false},
		{"reader", "members", "", auth.Write, false, false},
		{"reader", "media", "", auth.List, true, false}, // Read includes List
		{"", "anon", "", auth.Read, true, false},
		{"", "anon", "", auth.List, true, false},
		{"", "restricted", "", auth.List, false, false}, // anonymous_read withdrawn too
		{"", "restricted", "", auth.Read, false, false},
		{"", "restricted", "open.txt", auth.Read, false, false},
		{"reader", "restricted", "", auth.Read, false, false},
		{"root", "restricted", "", auth.Admin, true, false},
		{"", "priv", "open.txt", auth.Read, true, true},
		{"", "priv", "open.txt", auth.Write, false, false},
		{"", "priv", "closed.txt", auth.Read, false, false},
		{"reader", "priv", "open.txt", auth.Read, true, true},
		{"alice", "mine", "", auth.Admin, true, false},
		{"alice", "pub", "", auth.Write, false, false},
		{"alice", "priv", "", auth.Read, false, false},
		{"alice", "new-bucket", "", auth.Admin, true, false}, // creating one
		{"alice", "new-bucket", "", auth.Read, false, false},
		{"alice", "made-by-mongofiles", "", auth.Admin, false, false},
		{"", "", "", auth.Read, true, false}, // the anonymous bucket list
		{"alice", "", "", auth.Read, true, false},
	} {
		p, err := a.Decide(ctx, c.token, c.bucket, c.object, c.need)
		if (err == nil) != c.ok || p.ObjectGrant != c.objectGrant {
			t.Errorf("Decide(%q, %q, %q, %s) = %+v, %v; want ok %v, object grant %v", c.token, c.bucket, c.object, c.need, p, err, c.ok, c.objectGrant)
		}
		if err != nil && !errors.Is(err, auth.ErrUnauthenticated) && !errors.Is(err, auth.ErrForbidden) {
			t.Errorf("Decide(%q, %q): %v is neither 401 nor 403", c.token, c.bucket, err)
		}
	}
	if _, err := a.Decide(ctx, "nobody", "pub", "", auth.Read); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("an unknown token: %v", err)
	}
	// Grants that cannot be read refuse, never admit.
	a.SetGrants(fakeGrants{err: errors.New("store down")})
	if _, err := a.Decide(ctx, "", "pub", "", auth.Read); err == nil || errors.Is(err, auth.ErrForbidden) {
		t.Errorf("grants unreadable: %v, want the store's error", err)
	}
	if _, err := a.Decide(ctx, "root", "pub", "", auth.Admin); err != nil {
		t.Errorf("a token's own access needs no grants: %v", err)
	}
}
