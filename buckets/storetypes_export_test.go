package buckets

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// StoreLacks reports whether the bucket's store cannot hold values of type t.
func (b *Bucket) StoreLacks(t bson.Type) bool {
	_, ok := b.db.lackedTypes(context.Background())[t]
	return ok
}
