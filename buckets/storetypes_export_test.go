package buckets

import (
	"context"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// StoreLacks reports whether the bucket's store cannot hold values of type t.
func (b *Bucket) StoreLacks(t bson.Type) bool {
	_, ok := b.db.lackedTypes(context.Background())[t]
	return ok
}
