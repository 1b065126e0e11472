package buckets

import (
	"context"
	"errors"
	"fmt"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

var (
	filesIndex  = bson.D{{Key: "filename", Value: int32(1)}, {Key: "uploadDate", Value: int32(1)}}
	chunksIndex = bson.D{{Key: "files_id", Value: int32(1)}, {Key: "n", Value: int32(1)}}
	// The sweeper's (sweep.go): files by expireAt, and by uploadDate for
	// rules that expire every file after an age. Created once a bucket
	// uses expiry, not by the GridFS specification's check.
	expireAtIndex   = bson.D{{Key: FieldExpireAt, Value: int32(1)}}
	uploadDateIndex = bson.D{{Key: "uploadDate", Value: int32(1)}}
)

// expiryIndexes follows a bucket's name in the key of its expiry indexes'
// check (DB.ensured).
const expiryIndexes = "\x00expiry"

// ensureExpiryIndexes creates the sweeper's indexes where missing, once
// per process and IndexCheckInterval.
func (b *Bucket) ensureExpiryIndexes(ctx context.Context) error {
	key := b.name + expiryIndexes
	if b.db.ensured(key) {
		return nil
	}
	for _, keys := range []bson.D{expireAtIndex, uploadDateIndex} {
		if err := ensureIndex(ctx, b.files, keys, false); err != nil {
			return fmt.Errorf("bucket %s: %w", b.name, err)
		}
	}
	b.db.setEnsured(key, true)
	return nil
}

// ensureIndexes does what the GridFS specification asks before the first
// write: if the files collection is empty, create the two indexes unless an
// index with the same keys (compared by value, so 1 and 1.0 match) exists.
// A process checks each bucket once per IndexCheckInterval.
//
// A files collection that is not empty keeps the indexes it has, as the
// specification says, but for one case: this process's last check found
// the indexes and they are gone. Another process dropped the bucket since,
// and this one, trusting its check, wrote into collections the writes
// created again without indexes (the unique {files_id, n} included). That
// signal costs one listing of the chunks' indexes per check.
func (b *Bucket) ensureIndexes(ctx context.Context) error {
	if b.db.ensured(b.name) {
		return nil
	}
	one, err := b.files.FindOne(ctx, bson.D{}, findOneID()).Raw()
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return b.createIndexes(ctx)
	case err != nil:
		return fmt.Errorf("bucket %s: check files: %w", b.name, err)
	case one == nil:
		return fmt.Errorf("bucket %s: check files: empty answer", b.name)
	}
	present, err := hasIndex(ctx, b.chunks, chunksIndex)
	if err != nil {
		return fmt.Errorf("bucket %s: %w", b.name, err)
	}
	if !present && b.db.hadIndexes(b.name) {
		return b.createIndexes(ctx)
	}
	b.db.setChecked(b.name, present)
	return nil
}

// createIndexes creates the files and chunks indexes where missing.
func (b *Bucket) createIndexes(ctx context.Context) error {
	if err := ensureIndex(ctx, b.files, filesIndex, false); err != nil {
		return fmt.Errorf("bucket %s: %w", b.name, err)
	}
	if err := ensureIndex(ctx, b.chunks, chunksIndex, true); err != nil {
		return fmt.Errorf("bucket %s: %w", b.name, err)
	}
	if len(b.settings.Lifecycle) > 0 || b.db.hadIndexes(b.name+expiryIndexes) {
		if err := b.ensureExpiryIndexes(ctx); err != nil {
			return err
		}
	}
	b.db.setEnsured(b.name, true)
	return nil
}

// hasIndex reports whether coll has an index of keys.
func hasIndex(ctx context.Context, coll *mongo.Collection, keys bson.D) (bool, error) {
	cur, err := coll.Indexes().List(ctx)
	var se mongo.ServerError
	if errors.As(err, &se) && se.HasErrorCode(26) { // NamespaceNotFound: no collection
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("list indexes of %s: %w", coll.Name(), err)
	}
	var specs []bson.Raw
	if err := cur.All(ctx, &specs); err != nil {
		return false, fmt.Errorf("list indexes of %s: %w", coll.Name(), err)
	}
	for _, spec := range specs {
		if sameKeys(spec.Lookup("key"), keys) {
			return true, nil
		}
	}
	return false, nil
}

func ensureIndex(ctx context.Context, coll *mongo.Collection, keys bson.D, unique bool) error {
	cur, err := coll.Indexes().List(ctx)
	if err != nil {
		return fmt.Errorf("list indexes of %s: %w", coll.Name(), err)
	}
	var specs []bson.Raw
	if err := cur.All(ctx, &specs); err != nil {
		return fmt.Errorf("list indexes of %s: %w", coll.Name(), err)
	}
	for _, spec := range specs {
		if sameKeys(spec.Lookup("key"), keys) {
			return nil
		}
	}
	model := mongo.IndexModel{Keys: keys}
	if unique {
		model.Options = options.Index().SetUnique(true)
	}
	if _, err := coll.Indexes().CreateOne(ctx, model); err != nil {
		return fmt.Errorf("create index on %s: %w", coll.Name(), full(err))
	}
	return nil
}

// sameKeys compares an index key document with keys by field order and
// numeric value, whatever numeric type either side uses.
func sameKeys(v bson.RawValue, keys bson.D) bool {
	doc, ok := v.DocumentOK()
	if !ok {
		return false
	}
	elems, err := doc.Elements()
	if err != nil || len(elems) != len(keys) {
		return false
	}
	for i, e := range elems {
		if e.Key() != keys[i].Key {
			return false
		}
		got, ok := e.Value().AsFloat64OK()
		if !ok || got != float64(keys[i].Value.(int32)) {
			return false
		}
	}
	return true
}

func findOneID() *options.FindOneOptionsBuilder {
	return options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 1}})
}

func optionsUpsert() *options.UpdateOneOptionsBuilder {
	return options.UpdateOne().SetUpsert(true)
}
