package buckets

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// Canned ACLs: what a bucket's or a file's owner grants beyond the
// gateway's tokens. A bucket's lives in its settings (Settings.ACL), a
// file's in gridfsd's own top-level FieldACL of its files document (never in
// metadata, which is the user's). Only the public ones are stored: every
// other canned ACL S3 knows grants nothing a token does not already have,
// and is kept as private.
//
//   - public-read: anyone, without a credential, may read (a bucket: list
//     it and read every file in it; a file: read that revision).
//   - public-read-write (buckets): anyone may also write files.
//   - authenticated-read: any valid token may read.
const (
	ACLPrivate           = "private"
	ACLPublicRead        = "public-read"
	ACLPublicReadWrite   = "public-read-write"
	ACLAuthenticatedRead = "authenticated-read"
)

// FieldACL is the files document root field holding a file's canned ACL
// when it is public; absent for private files.
const FieldACL = "acl"

// Errors of the ACL setters: a name that is no canned ACL (400), and a
// public ACL this gateway or the bucket's public access block refuses
// (403).
var (
	ErrInvalidACL       = errors.New("invalid canned ACL")
	ErrPublicACLRefused = errors.New("public ACL refused")
)

// cannedACLs are S3's canned ACLs, true for the public ones.
var cannedACLs = map[string]bool{
	ACLPrivate: false, ACLPublicRead: true, ACLPublicReadWrite: true, ACLAuthenticatedRead: true,
	"aws-exec-read": false, "bucket-owner-read": false, "bucket-owner-full-control": false, "log-delivery-write": false,
}

// CheckACL returns ErrInvalidACL unless acl is one of S3's canned ACLs.
func CheckACL(acl string) error {
	if _, ok := cannedACLs[acl]; !ok {
		return fmt.Errorf("%w: %q is not a canned ACL (private, public-read, public-read-write, authenticated-read, ...)", ErrInvalidACL, acl)
	}
	return nil
}

// PublicACL reports whether acl grants access to others than the gateway's
// tokens' lists: public-read, public-read-write or authenticated-read.
func PublicACL(acl string) bool { return cannedACLs[acl] }

// stored is the form of acl kept in the store: the public ones as they
// are, every other as "" (private).
func stored(acl string) string {
	if PublicACL(acl) {
		return acl
	}
	return ""
}

// SetPublicACLs turns public ACLs on (the default) or off for every bucket
// of d: off, setting one is ErrPublicACLRefused and those already stored
// grant nothing. Call it before d is used.
func (d *DB) SetPublicACLs(allowed bool) { d.noPublicACLs = !allowed }

// publicACLsHonoured reports whether s's stored public ACLs grant anything:
// public ACLs are on, ACLs are not disabled (BucketOwnerEnforced), and
// neither IgnorePublicAcls nor RestrictPublicBuckets withdraws them.
func (d *DB) publicACLsHonoured(s Settings) bool {
	p := s.PublicAccessBlock
	return !d.noPublicACLs && s.Ownership != OwnershipBucketOwnerEnforced && (p == nil || (!p.IgnorePublicACLs && !p.RestrictPublicBuckets))
}

// OwnershipBucketOwnerEnforced is S3's object ownership control that
// gridfsd keeps: the bucket's owner owns every object in it (gridfsd
// records no other owner) and ACLs are disabled: they grant nothing, and
// setting any but private or bucket-owner-full-control is
// ErrACLsDisabled.
const OwnershipBucketOwnerEnforced = "BucketOwnerEnforced"

// Errors of object ownership: ACLs asked for where they are disabled (400,
// S3's AccessControlListNotSupported), and ownership controls that would
// disable a public ACL the bucket holds (400, S3's
// InvalidBucketAclWithObjectOwnership).
var (
	ErrACLsDisabled       = errors.New("the bucket does not allow ACLs")
	ErrACLBlocksOwnership = errors.New("the bucket's ACL is not valid with BucketOwnerEnforced")
	errUnknownOwnership   = errors.New("unknown object ownership")
)

// SetOwnership sets bucket name's object ownership control:
// OwnershipBucketOwnerEnforced, or "" to remove it. It returns
// ErrACLBlocksOwnership while the bucket's ACL is public, having written
// nothing.
func (d *DB) SetOwnership(ctx context.Context, name, ownership string) (*Bucket, error) {
	if ownership != "" && ownership != OwnershipBucketOwnerEnforced {
		return nil, fmt.Errorf("%w: %q", errUnknownOwnership, ownership)
	}
	if err := CheckBucketName(name); err != nil {
		return nil, err
	}
	b, err := d.Bucket(ctx, name)
	if err != nil {
		return nil, err
	}
	if ownership != "" && PublicACL(b.settings.ACL) {
		return nil, fmt.Errorf("%w: its ACL is %s", ErrACLBlocksOwnership, b.settings.ACL)
	}
	return d.saveSettings(ctx, b, bson.D{{Key: "ownership", Value: ownership}, {Key: "updated", Value: time.Now()}})
}

// CheckACL returns ErrInvalidACL for a name that is no canned ACL,
// ErrACLsDisabled for any but private in a BucketOwnerEnforced bucket, and
// ErrPublicACLRefused for a public one that the gateway (SetPublicACLs)
// or the bucket's public access block (BlockPublicAcls) forbids. Who may
// set a public ACL is the doors' to decide (their authorizer): this is
// what the store allows whoever asks.
func (b *Bucket) CheckACL(acl string) error {
	if err := CheckACL(acl); err != nil {
		return err
	}
	if b.settings.Ownership == OwnershipBucketOwnerEnforced && acl != ACLPrivate && acl != "bucket-owner-full-control" {
		return fmt.Errorf("%w: its object ownership is BucketOwnerEnforced (%s)", ErrACLsDisabled, acl)
	}
	if !PublicACL(acl) {
		return nil
	}
	if b.db.noPublicACLs {
		return fmt.Errorf("%w: public ACLs are turned off on this gateway (auth.public_acls)", ErrPublicACLRefused)
	}
	if b.settings.BlocksPublicACLs() {
		return fmt.Errorf("%w: the bucket's public access block forbids public ACLs (BlockPublicAcls)", ErrPublicACLRefused)
	}
	return nil
}

// ACLField is the files document root field that stores acl on upload (for
// UploadOptions.Extra); nothing for a private one. Check acl with
// Bucket.CheckACL first.
func ACLField(acl string) bson.D {
	if s := stored(acl); s != "" {
		return bson.D{{Key: FieldACL, Value: s}}
	}
	return nil
}

// ACL is f's canned ACL as stored: public-read, public-read-write,
// authenticated-read, or private.
func (f *File) ACL() string {
	if f.Raw != nil {
		if s, ok := f.Raw.Lookup(FieldACL).StringValueOK(); ok && PublicACL(s) {
			return s
		}
	}
	return ACLPrivate
}

// SetACL replaces the canned ACL of the file with _id id. It returns
// ErrInvalidACL or ErrPublicACLRefused (see CheckACL), having written
// nothing, or ErrFileNotFound.
func (b *Bucket) SetACL(ctx context.Context, id any, acl string) error {
	if err := b.CheckACL(acl); err != nil {
		return err
	}
	update := bson.D{{Key: "$unset", Value: bson.D{{Key: FieldACL, Value: ""}}}}
	if s := stored(acl); s != "" {
		update = bson.D{{Key: "$set", Value: bson.D{{Key: FieldACL, Value: s}}}}
	}
	res, err := b.files.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, update)
	if err != nil {
		return fmt.Errorf("set ACL of %v: %w", id, full(err))
	}
	if res.MatchedCount == 0 {
		return fmt.Errorf("%w: %v", ErrFileNotFound, id)
	}
	return nil
}

// ACLName is the bucket's canned ACL: public-read, public-read-write,
// authenticated-read, or private.
func (s Settings) ACLName() string {
	if PublicACL(s.ACL) {
		return s.ACL
	}
	return ACLPrivate
}

// SetBucketACL replaces the canned ACL of bucket name, leaving its other
// settings as they are. It returns ErrInvalidBucketName, ErrInvalidACL or
// ErrPublicACLRefused (see Bucket.CheckACL), having written nothing. The
// change reaches the other gateways within SettingsCacheTTL.
func (d *DB) SetBucketACL(ctx context.Context, name, acl string) (*Bucket, error) {
	if err := CheckBucketName(name); err != nil {
		return nil, err
	}
	b, err := d.Bucket(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := b.CheckACL(acl); err != nil {
		return nil, err
	}
	return d.saveSettings(ctx, b, bson.D{{Key: "acl", Value: stored(acl)}, {Key: "updated", Value: time.Now()}})
}

// Publicity is what a bucket's canned ACL and public access block grant
// beyond the gateway's tokens, as the doors' authorizer needs it.
type Publicity struct {
	// Owner is the token that created the bucket (Settings.Owner).
	Owner string
	// AnyoneRead and AnyoneWrite: anyone, without a credential, may read
	// the bucket (list it, read its files) or also write files in it.
	AnyoneRead, AnyoneWrite bool
	// AuthenticatedRead: any valid token may read the bucket.
	AuthenticatedRead bool
	// Restricted: RestrictPublicBuckets withdraws every anonymous access,
	// the gateway's anonymous_read included.
	Restricted bool
}

// Publicity returns what bucket name grants beyond the tokens, from its
// settings as cached (a change made through another gateway counts within
// SettingsCacheTTL). A bucket without settings grants nothing.
func (d *DB) Publicity(ctx context.Context, name string) (Publicity, error) {
	b, err := d.Bucket(ctx, name)
	if err != nil {
		return Publicity{}, err
	}
	s := b.settings
	p := Publicity{Owner: s.Owner, Restricted: s.RestrictsPublic()}
	if d.publicACLsHonoured(s) {
		acl := s.ACLName()
		p.AnyoneRead = acl == ACLPublicRead || acl == ACLPublicReadWrite
		p.AnyoneWrite = acl == ACLPublicReadWrite
		p.AuthenticatedRead = acl == ACLAuthenticatedRead
	}
	return p, nil
}

// FilePublicity reports who the newest revision of name in bucket grants
// read access to by its own canned ACL: anyone (public-read,
// public-read-write) or any valid token (authenticated-read). It reads the
// files document each time, so a change counts at once. A missing file
// grants nothing.
func (d *DB) FilePublicity(ctx context.Context, bucket, name string) (anyone, authenticated bool, err error) {
	b, err := d.Bucket(ctx, bucket)
	if err != nil {
		return false, false, err
	}
	if !d.publicACLsHonoured(b.settings) {
		return false, false, nil
	}
	f, err := b.FindByName(ctx, name, -1)
	if errors.Is(err, ErrFileNotFound) || errors.Is(err, ErrRevisionNotFound) || errors.Is(err, ErrInvalidFilename) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	anyone, authenticated = FileGrants(f.ACL())
	return anyone, authenticated, nil
}

// FileGrants is who a file's canned ACL lets read it: anyone, or any valid
// token.
func FileGrants(acl string) (anyone, authenticated bool) {
	switch acl {
	case ACLPublicRead, ACLPublicReadWrite:
		return true, true
	case ACLAuthenticatedRead:
		return false, true
	}
	return false, false
}

// FileReadable reports whether f's own ACL lets anyone (or, with
// authenticated, any valid token) read it, as the bucket b honours ACLs:
// a door that served f on the strength of FilePublicity checks the
// revision it actually serves with it, since a newer one may have been
// written between the two.
func (b *Bucket) FileReadable(f *File, authenticated bool) bool {
	if !b.db.publicACLsHonoured(b.settings) {
		return false
	}
	anyone, authd := FileGrants(f.ACL())
	return anyone || (authenticated && authd)
}
