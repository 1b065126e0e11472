package buckets

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// A store that speaks MongoDB's protocol may still lack BSON types. MongoDB
// holds every type; FerretDB v1 (the embedded store) has no Decimal128,
// MinKey, MaxKey, JavaScript, Symbol, DBPointer or Undefined, and drops the
// connection when sent one, which a client would take for an outage (503,
// retry) though no retry can succeed. So a DB asks its store once what it
// is, and the writes and filters of buckets refuse, before anything is
// written, a value of a type that store lacks: a client error (4xx) for a
// request that store can never accept. Stores that refuse with an error
// code instead are covered by RefusedDocument.

// ferretDBv1Lacks are the BSON types FerretDB v1 does not implement
// (FerretDB's documentation, "Supported data types"; measured on the
// embedded store: each one closes the connection).
var ferretDBv1Lacks = map[bson.Type]string{
	bson.TypeDecimal128:    "Decimal128",
	bson.TypeMinKey:        "MinKey",
	bson.TypeMaxKey:        "MaxKey",
	bson.TypeJavaScript:    "JavaScript code",
	bson.TypeCodeWithScope: "JavaScript code with scope",
	bson.TypeSymbol:        "Symbol",
	bson.TypeDBPointer:     "DBPointer",
	bson.TypeUndefined:     "Undefined",
}

// storeTypes remembers what a DB's store told of itself: the BSON types
// it lacks, and whether its durability is ordered.
type storeTypes struct {
	mu      sync.Mutex
	known   bool
	probing bool // a buildInfo is on its way: others do not wait for it
	lacks   map[bson.Type]string
	// ordered: a write the store makes durable makes every write it
	// acknowledged before it durable too (the embedded store says so: its
	// fork's buildInfo field gridfsdOrderedDurability, PATCHES.md item 50).
	ordered bool
}

// storeTypeProbeTimeout bounds the one buildInfo a DB sends to learn its
// store; on failure the DB assumes the store holds every type (the write
// then fails as it would have) and that its durability is not ordered, and
// asks again next time.
const storeTypeProbeTimeout = 5 * time.Second

// lackedTypes returns the BSON types the store lacks, asking it once.
func (d *DB) lackedTypes(ctx context.Context) map[bson.Type]string {
	lacks, _ := d.store(ctx)
	return lacks
}

// orderedDurability reports whether the store's durability is ordered
// (storeTypes.ordered), asking it once. MongoDB does not say so: a sharded
// cluster's shards keep journals of their own.
func (d *DB) orderedDurability(ctx context.Context) bool {
	_, ordered := d.store(ctx)
	return ordered
}

// store returns what the store told of itself, asking it once. While one
// caller asks, the others get what the DB assumes when the store does not
// answer, rather than wait: every upload asks (orderedDurability), and a
// store that is down would otherwise hold each of them up in turn.
func (d *DB) store(ctx context.Context) (lacks map[bson.Type]string, ordered bool) {
	d.types.mu.Lock()
	if d.types.known || d.types.probing {
		defer d.types.mu.Unlock()
		return d.types.lacks, d.types.ordered
	}
	d.types.probing = true
	d.types.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, storeTypeProbeTimeout)
	defer cancel()
	info, err := d.db.RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Raw()

	d.types.mu.Lock()
	defer d.types.mu.Unlock()
	d.types.probing = false
	if err != nil {
		return nil, false
	}
	d.types.known = true
	if _, err := info.LookupErr("ferretdbVersion"); err == nil {
		d.types.lacks = ferretDBv1Lacks
	}
	if v, err := info.LookupErr("gridfsdOrderedDurability"); err == nil {
		d.types.ordered, _ = v.BooleanOK()
	}
	return d.types.lacks, d.types.ordered
}

// checkStoreTypes returns sentinel, naming what, if v holds a value of a
// type the store lacks, at any depth. Only a value holding such a type
// costs the one question to the store.
func (d *DB) checkStoreTypes(ctx context.Context, what string, v any, sentinel error) error {
	if v == nil {
		return nil
	}
	t, data, err := bson.MarshalValue(v)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", sentinel, what, err)
	}
	raw := bson.RawValue{Type: t, Value: data}
	if _, rare := findType(raw, ferretDBv1Lacks, 0); !rare {
		return nil
	}
	if name, ok := findType(raw, d.lackedTypes(ctx), 0); ok {
		return fmt.Errorf("%w: %s holds a %s, which this store (FerretDB) cannot hold; MongoDB can", sentinel, what, name)
	}
	return nil
}

// findType reports the first value in v, at any depth, of a type in lacks.
func findType(v bson.RawValue, lacks map[bson.Type]string, depth int) (string, bool) {
	if name, ok := lacks[v.Type]; ok {
		return name, true
	}
	if (v.Type != bson.TypeEmbeddedDocument && v.Type != bson.TypeArray) || depth > MaxMetadataDepth {
		return "", false
	}
	vals, err := bson.Raw(v.Value).Values()
	if err != nil {
		return "", false
	}
	for _, e := range vals {
		if name, ok := findType(e, lacks, depth+1); ok {
			return name, true
		}
	}
	return "", false
}

// checkStored returns ErrInvalidID or ErrInvalidMetadata when id or md
// hold a value of a BSON type this bucket's store lacks, so that a request
// the store can never accept is refused as the client's, not sent.
func (b *Bucket) checkStored(ctx context.Context, id any, md bson.D) error {
	if id != nil {
		if err := b.db.checkStoreTypes(ctx, "the id", id, ErrInvalidID); err != nil {
			return err
		}
	}
	if md != nil {
		if err := b.db.checkStoreTypes(ctx, "metadata", md, ErrInvalidMetadata); err != nil {
			return err
		}
	}
	return nil
}

// checkID refuses an id that would act as a query (CheckID) or that the
// store cannot hold, before it goes into a filter.
func (b *Bucket) checkID(ctx context.Context, id any) error {
	if err := CheckID(id); err != nil {
		return err
	}
	return b.checkStored(ctx, id, nil)
}

// checkPatch is checkID and the store's types for Patch's metadata.
func (b *Bucket) checkPatch(ctx context.Context, id any, metadata *bson.D) error {
	if err := b.checkID(ctx, id); err != nil {
		return err
	}
	if metadata == nil {
		return nil
	}
	return b.checkStored(ctx, nil, *metadata)
}
