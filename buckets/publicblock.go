package buckets

import (
	"context"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// PublicAccessBlock is a bucket's S3 public access block: what it forbids
// to make or keep public. gridfsd makes nothing public through ACLs or
// policies (canned ACLs grant nothing, policies are not supported), so the
// flags about those hold by construction; the doors enforce the two that
// can mean something here (see BlocksPublicACLs, RestrictsPublic).
type PublicAccessBlock struct {
	BlockPublicACLs       bool `bson:"blockPublicAcls"`
	IgnorePublicACLs      bool `bson:"ignorePublicAcls"`
	BlockPublicPolicy     bool `bson:"blockPublicPolicy"`
	RestrictPublicBuckets bool `bson:"restrictPublicBuckets"`
}

// BlocksPublicACLs reports whether a request that asks for a public ACL
// (a canned public-read, public-read-write or authenticated-read) must be
// refused: BlockPublicAcls is set.
func (s Settings) BlocksPublicACLs() bool {
	return s.PublicAccessBlock != nil && s.PublicAccessBlock.BlockPublicACLs
}

// RestrictsPublic reports whether anonymous access to the bucket is
// withdrawn: RestrictPublicBuckets is set, which overrides the gateway's
// anonymous_read for it (the nearest thing gridfsd has to a public policy).
func (s Settings) RestrictsPublic() bool {
	return s.PublicAccessBlock != nil && s.PublicAccessBlock.RestrictPublicBuckets
}

// SetPublicAccessBlock replaces the public access block of bucket name
// (nil removes it), leaving its other settings as they are. It returns
// ErrInvalidBucketName, having written nothing.
func (d *DB) SetPublicAccessBlock(ctx context.Context, name string, p *PublicAccessBlock) (*Bucket, error) {
	if err := CheckBucketName(name); err != nil {
		return nil, err
	}
	b, err := d.Bucket(ctx, name)
	if err != nil {
		return nil, err
	}
	// nil is stored as null, which reads back as none.
	return d.saveSettings(ctx, b, bson.D{{Key: "publicAccessBlock", Value: p}, {Key: "updated", Value: time.Now()}})
}
