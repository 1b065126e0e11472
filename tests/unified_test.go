package tests

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// A runner for the subset of the unified test format
// (mongodb/specifications, source/unified-test-format) that the GridFS tests
// use: client, database, bucket and collection entities; initialData; bucket
// operations driven through package buckets; direct collection operations;
// expectResult, expectError, saveResultAsEntity and outcome. Anything else in
// a file is an error, as the format requires, never silently ignored.

// supportedSchema is the newest schema version the runner implements.
const supportedSchema = "1.0"

type specFile struct {
	Description    string           `bson:"description"`
	SchemaVersion  string           `bson:"schemaVersion"`
	CreateEntities []bson.Raw       `bson:"createEntities"`
	InitialData    []collectionData `bson:"initialData"`
	Tests          []bson.Raw       `bson:"tests"`
}

type collectionData struct {
	CollectionName string     `bson:"collectionName"`
	DatabaseName   string     `bson:"databaseName"`
	Documents      []bson.Raw `bson:"documents"`
}

type specCase struct {
	Description string           `bson:"description"`
	Operations  []bson.Raw       `bson:"operations"`
	Outcome     []collectionData `bson:"outcome"`
}

type operation struct {
	Name                 string        `bson:"name"`
	Object               string        `bson:"object"`
	Arguments            bson.Raw      `bson:"arguments"`
	ExpectResult         bson.RawValue `bson:"expectResult"`
	ExpectError          bson.Raw      `bson:"expectError"`
	SaveResultAsEntity   string        `bson:"saveResultAsEntity"`
	IgnoreResultAndError bool          `bson:"ignoreResultAndError"`
}

type expectedError struct {
	IsError       bool   `bson:"isError"`
	IsClientError *bool  `bson:"isClientError"`
	ErrorContains string `bson:"errorContains"`
}

// loadSpecFile parses a test file as Extended JSON, relaxed or canonical.
func loadSpecFile(path string) (*specFile, bson.Raw, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var raw bson.Raw
	if err := bson.UnmarshalExtJSON(data, false, &raw); err != nil {
		return nil, nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if err := checkKeys(raw, "description", "schemaVersion", "createEntities", "initialData", "tests"); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	var f specFile
	if err := bson.Unmarshal(raw, &f); err != nil {
		return nil, nil, fmt.Errorf("decode %s: %w", path, err)
	}
	if !schemaSupported(f.SchemaVersion) {
		return nil, nil, fmt.Errorf("%s: schema version %q is newer than the runner's %s", path, f.SchemaVersion, supportedSchema)
	}
	return &f, raw, nil
}

// schemaSupported reports whether a file of version v can run: same major
// version, minor version not above the runner's.
func schemaSupported(v string) bool {
	var maj, min, smaj, smin int
	if _, err := fmt.Sscanf(v+".0", "%d.%d", &maj, &min); err != nil {
		return false
	}
	fmt.Sscanf(supportedSchema, "%d.%d", &smaj, &smin)
	return maj == smaj && min <= smin
}

// checkKeys fails on a key of doc that is not in allowed: the format wants
// runners to reject what they do not implement.
func checkKeys(doc bson.Raw, allowed ...string) error {
	elems, err := doc.Elements()
	if err != nil {
		return err
	}
	for _, e := range elems {
		if !slices.Contains(allowed, e.Key()) {
			return fmt.Errorf("unsupported field %q", e.Key())
		}
	}
	return nil
}

// runner runs one test case. Every database the file names is a fresh
// database of the test store, dropped when the case ends, so cases never
// see each other's data and run against any store.
type runner struct {
	t        *testing.T
	ctx      context.Context
	dbs      map[string]*mongo.Database
	entities map[string]any
	// wantErr is the sentinel an expectError of this case must wrap.
	wantErr error
	// sawError is set once an operation met its expectError.
	sawError bool
}

// specBucket is a bucket entity: the bucket and its bucketOptions.
type specBucket struct {
	*buckets.Bucket
	chunkSize int
}

func newRunner(t *testing.T, ctx context.Context, wantErr error) *runner {
	return &runner{t: t, ctx: ctx, dbs: map[string]*mongo.Database{}, entities: map[string]any{}, wantErr: wantErr}
}

func (r *runner) database(name string) *mongo.Database {
	if db, ok := r.dbs[name]; ok {
		return db
	}
	db := storetest.MustOpenDB(r.t)
	r.dbs[name] = db
	return db
}

func (r *runner) run(f *specFile, c specCase) error {
	for _, cd := range f.InitialData {
		if err := r.insertData(cd); err != nil {
			return fmt.Errorf("initialData: %w", err)
		}
	}
	for i, e := range f.CreateEntities {
		if err := r.createEntity(e); err != nil {
			return fmt.Errorf("createEntities[%d]: %w", i, err)
		}
	}
	for i, raw := range c.Operations {
		if err := r.operation(raw); err != nil {
			return fmt.Errorf("operations[%d]: %w", i, err)
		}
	}
	if r.wantErr != nil && !r.sawError {
		return fmt.Errorf("the case lists %v as its expected error, but no operation expects an error", r.wantErr)
	}
	for _, cd := range c.Outcome {
		if err := r.checkOutcome(cd); err != nil {
			return fmt.Errorf("outcome: %w", err)
		}
	}
	return nil
}

func (r *runner) insertData(cd collectionData) error {
	coll := r.database(cd.DatabaseName).Collection(cd.CollectionName)
	if err := coll.Drop(r.ctx); err != nil {
		return fmt.Errorf("drop %s: %w", cd.CollectionName, err)
	}
	if len(cd.Documents) == 0 {
		if err := coll.Database().CreateCollection(r.ctx, cd.CollectionName); err != nil {
			return fmt.Errorf("create %s: %w", cd.CollectionName, err)
		}
		return nil
	}
	docs := make([]any, len(cd.Documents))
	for i, d := range cd.Documents {
		docs[i] = d
	}
	if _, err := coll.InsertMany(r.ctx, docs); err != nil {
		return fmt.Errorf("insert into %s: %w", cd.CollectionName, err)
	}
	return nil
}

func (r *runner) checkOutcome(cd collectionData) error {
	coll := r.database(cd.DatabaseName).Collection(cd.CollectionName)
	cur, err := coll.Find(r.ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return fmt.Errorf("find in %s: %w", cd.CollectionName, err)
	}
	var got []bson.Raw
	if err := cur.All(r.ctx, &got); err != nil {
		return fmt.Errorf("find in %s: %w", cd.CollectionName, err)
	}
	if len(got) != len(cd.Documents) {
		return fmt.Errorf("%s holds %d documents, want %d:\n%s", cd.CollectionName, len(got), len(cd.Documents), docsString(got))
	}
	for i := range got {
		exp := bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: cd.Documents[i]}
		act := bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: got[i]}
		if err := sameValue(fmt.Sprintf("%s[%d]", cd.CollectionName, i), exp, act); err != nil {
			return err
		}
	}
	return nil
}

func docsString(docs []bson.Raw) string {
	var b strings.Builder
	for _, d := range docs {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}

func (r *runner) createEntity(raw bson.Raw) error {
	elems, err := raw.Elements()
	if err != nil || len(elems) != 1 {
		return fmt.Errorf("an entity is a document with one key, got %s", raw)
	}
	kind := elems[0].Key()
	spec, ok := elems[0].Value().DocumentOK()
	if !ok {
		return fmt.Errorf("%s entity is not a document", kind)
	}
	id, _ := spec.Lookup("id").StringValueOK()
	if id == "" {
		return fmt.Errorf("%s entity without id", kind)
	}
	if _, dup := r.entities[id]; dup {
		return fmt.Errorf("entity %q defined twice", id)
	}
	var ent any
	switch kind {
	case "client":
		if err := checkKeys(spec, "id"); err != nil {
			return fmt.Errorf("client %s: %w", id, err)
		}
		ent = storetest.Client(r.t)
	case "database":
		if err := checkKeys(spec, "id", "client", "databaseName"); err != nil {
			return fmt.Errorf("database %s: %w", id, err)
		}
		if _, err := entity[*mongo.Client](r, spec.Lookup("client").StringValue()); err != nil {
			return err
		}
		ent = r.database(spec.Lookup("databaseName").StringValue())
	case "collection":
		if err := checkKeys(spec, "id", "database", "collectionName"); err != nil {
			return fmt.Errorf("collection %s: %w", id, err)
		}
		db, err := entity[*mongo.Database](r, spec.Lookup("database").StringValue())
		if err != nil {
			return err
		}
		ent = db.Collection(spec.Lookup("collectionName").StringValue())
	case "bucket":
		ent, err = r.createBucket(spec)
		if err != nil {
			return fmt.Errorf("bucket %s: %w", id, err)
		}
	default:
		return fmt.Errorf("unsupported entity type %q", kind)
	}
	r.entities[id] = ent
	return nil
}

func (r *runner) createBucket(spec bson.Raw) (*specBucket, error) {
	if err := checkKeys(spec, "id", "database", "bucketOptions"); err != nil {
		return nil, err
	}
	db, err := entity[*mongo.Database](r, spec.Lookup("database").StringValue())
	if err != nil {
		return nil, err
	}
	name, chunkSize := buckets.DefaultBucket, 0
	if opts, ok := spec.Lookup("bucketOptions").DocumentOK(); ok {
		if err := checkKeys(opts, "bucketName", "chunkSizeBytes"); err != nil {
			return nil, fmt.Errorf("bucketOptions: %w", err)
		}
		if s, ok := opts.Lookup("bucketName").StringValueOK(); ok {
			name = s
		}
		if n, ok := opts.Lookup("chunkSizeBytes").AsInt64OK(); ok {
			chunkSize = int(n)
		}
	}
	b, err := buckets.NewDB(db).Bucket(r.ctx, name)
	if err != nil {
		return nil, err
	}
	return &specBucket{Bucket: b, chunkSize: chunkSize}, nil
}

// entity fetches entity name with type T, failing on a missing or mistyped one.
func entity[T any](r *runner, name string) (T, error) {
	v, ok := r.entities[name].(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("no entity %q of type %T (have %T)", name, zero, r.entities[name])
	}
	return v, nil
}

func (r *runner) operation(raw bson.Raw) error {
	if err := checkKeys(raw, "name", "object", "arguments", "expectResult", "expectError", "saveResultAsEntity", "ignoreResultAndError"); err != nil {
		return err
	}
	var op operation
	if err := bson.Unmarshal(raw, &op); err != nil {
		return fmt.Errorf("decode operation: %w", err)
	}
	a := &args{raw: op.Arguments, used: map[string]bool{}}
	var result bson.RawValue
	var err error
	switch obj := r.entities[op.Object].(type) {
	case *specBucket:
		result, err = r.bucketOperation(obj, op.Name, a)
	case *mongo.Collection:
		result, err = r.collectionOperation(obj, op.Name, a)
	default:
		return fmt.Errorf("%s on %q: no such entity (have %T)", op.Name, op.Object, obj)
	}
	if errors.Is(err, errUnsupported) {
		return fmt.Errorf("%s on %s: %w", op.Name, op.Object, err)
	}
	if op.IgnoreResultAndError {
		return nil
	}
	if op.ExpectError != nil {
		if err == nil {
			return fmt.Errorf("%s on %s succeeded with %s, want an error", op.Name, op.Object, result)
		}
		if cerr := r.checkError(op.ExpectError, err); cerr != nil {
			return fmt.Errorf("%s on %s: %w", op.Name, op.Object, cerr)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s on %s: %w", op.Name, op.Object, err)
	}
	if op.ExpectResult.Type != 0 {
		m := &matcher{entities: r.entities}
		if err := m.match("result", op.ExpectResult, result, true); err != nil {
			return fmt.Errorf("%s on %s: %w", op.Name, op.Object, err)
		}
	}
	if op.SaveResultAsEntity != "" {
		if result.Type == 0 {
			return fmt.Errorf("%s on %s: no result to save as %q", op.Name, op.Object, op.SaveResultAsEntity)
		}
		if _, dup := r.entities[op.SaveResultAsEntity]; dup {
			return fmt.Errorf("entity %q defined twice", op.SaveResultAsEntity)
		}
		r.entities[op.SaveResultAsEntity] = result
	}
	return nil
}

// checkError applies an expectError. Beyond the format's isClientError,
// it requires the exact sentinel the case's table entry names (the legacy
// GridFS tests name them: FileNotFound, RevisionNotFound, ChunkIsMissing,
// ChunkIsWrongSize).
func (r *runner) checkError(raw bson.Raw, err error) error {
	if cerr := checkKeys(raw, "isError", "isClientError", "errorContains"); cerr != nil {
		return fmt.Errorf("expectError: %w", cerr)
	}
	var want expectedError
	if derr := bson.Unmarshal(raw, &want); derr != nil {
		return fmt.Errorf("expectError: %w", derr)
	}
	if want.IsClientError != nil && *want.IsClientError != isClientError(err) {
		return fmt.Errorf("error %q: isClientError is %v, want %v", err, !*want.IsClientError, *want.IsClientError)
	}
	if want.ErrorContains != "" && !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(want.ErrorContains)) {
		return fmt.Errorf("error %q does not contain %q", err, want.ErrorContains)
	}
	if r.wantErr == nil {
		return fmt.Errorf("error %q: the case has no expected sentinel in specErrors", err)
	}
	if !errors.Is(err, r.wantErr) {
		return fmt.Errorf("error %q does not wrap %q", err, r.wantErr)
	}
	r.sawError = true
	return nil
}

// isClientError tells errors gridfsd detects itself from those of the
// server or the network.
func isClientError(err error) bool {
	var se mongo.ServerError
	return !errors.As(err, &se) && !mongo.IsNetworkError(err) && !mongo.IsTimeout(err)
}

var errUnsupported = errors.New("not supported by the runner")

// args gives out an operation's arguments and remembers which were taken,
// so that done can reject the others.
type args struct {
	raw  bson.Raw
	used map[string]bool
}

func (a *args) value(key string) (bson.RawValue, bool) {
	a.used[key] = true
	if a.raw == nil {
		return bson.RawValue{}, false
	}
	v, err := a.raw.LookupErr(key)
	return v, err == nil
}

func (a *args) str(key string) (string, error) {
	v, ok := a.value(key)
	if !ok {
		return "", fmt.Errorf("missing argument %q", key)
	}
	s, ok := v.StringValueOK()
	if !ok {
		return "", fmt.Errorf("argument %q is %s, want a string", key, v.Type)
	}
	return s, nil
}

func (a *args) doc(key string) (bson.Raw, bool, error) {
	v, ok := a.value(key)
	if !ok {
		return nil, false, nil
	}
	d, ok := v.DocumentOK()
	if !ok {
		return nil, false, fmt.Errorf("argument %q is %s, want a document", key, v.Type)
	}
	return d, true, nil
}

func (a *args) int(key string) (int64, bool, error) {
	v, ok := a.value(key)
	if !ok {
		return 0, false, nil
	}
	n, ok := v.AsInt64OK()
	if !ok {
		return 0, false, fmt.Errorf("argument %q is %s, want a number", key, v.Type)
	}
	return n, true, nil
}

// goValue turns an argument into the Go value the driver and buckets take
// (an ObjectID, a bson.D, ...).
func (a *args) goValue(key string) (any, error) {
	v, ok := a.value(key)
	if !ok {
		return nil, fmt.Errorf("missing argument %q", key)
	}
	var out any
	if err := v.Unmarshal(&out); err != nil {
		return nil, fmt.Errorf("argument %q: %w", key, err)
	}
	return out, nil
}

func (a *args) done() error {
	if a.raw == nil {
		return nil
	}
	elems, err := a.raw.Elements()
	if err != nil {
		return err
	}
	var unknown []string
	for _, e := range elems {
		if !a.used[e.Key()] {
			unknown = append(unknown, e.Key())
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("%w: arguments %s", errUnsupported, strings.Join(unknown, ", "))
	}
	return nil
}

// value marshals a Go result into the BSON value the matcher compares.
func value(v any) bson.RawValue {
	t, data, err := bson.MarshalValue(v)
	if err != nil {
		panic(fmt.Sprintf("marshal result %v: %v", v, err))
	}
	return bson.RawValue{Type: t, Value: data}
}

func (r *runner) bucketOperation(b *specBucket, name string, a *args) (bson.RawValue, error) {
	switch name {
	case "upload":
		return r.upload(b, a)
	case "download":
		id, err := a.goValue("id")
		if err != nil {
			return bson.RawValue{}, err
		}
		if err := a.done(); err != nil {
			return bson.RawValue{}, err
		}
		d, err := b.OpenID(r.ctx, id)
		return readAll(d, err)
	case "downloadByName":
		filename, err := a.str("filename")
		if err != nil {
			return bson.RawValue{}, err
		}
		revision, ok, err := a.int("revision")
		if err != nil {
			return bson.RawValue{}, err
		}
		if !ok {
			revision = -1 // the spec's default: the newest revision
		}
		if err := a.done(); err != nil {
			return bson.RawValue{}, err
		}
		d, err := b.OpenName(r.ctx, filename, int(revision))
		return readAll(d, err)
	case "delete":
		id, err := a.goValue("id")
		if err != nil {
			return bson.RawValue{}, err
		}
		if err := a.done(); err != nil {
			return bson.RawValue{}, err
		}
		return bson.RawValue{}, b.Delete(r.ctx, id)
	case "deleteByName":
		filename, err := a.str("filename")
		if err != nil {
			return bson.RawValue{}, err
		}
		if err := a.done(); err != nil {
			return bson.RawValue{}, err
		}
		_, err = b.DeleteName(r.ctx, filename)
		return bson.RawValue{}, err
	case "rename":
		id, err := a.goValue("id")
		if err != nil {
			return bson.RawValue{}, err
		}
		newName, err := a.str("newFilename")
		if err != nil {
			return bson.RawValue{}, err
		}
		if err := a.done(); err != nil {
			return bson.RawValue{}, err
		}
		return bson.RawValue{}, b.Rename(r.ctx, id, newName)
	case "renameByName":
		filename, err := a.str("filename")
		if err != nil {
			return bson.RawValue{}, err
		}
		newName, err := a.str("newFilename")
		if err != nil {
			return bson.RawValue{}, err
		}
		if err := a.done(); err != nil {
			return bson.RawValue{}, err
		}
		return bson.RawValue{}, b.RenameName(r.ctx, filename, newName)
	case "drop":
		if err := a.done(); err != nil {
			return bson.RawValue{}, err
		}
		return bson.RawValue{}, b.Drop(r.ctx)
	}
	return bson.RawValue{}, fmt.Errorf("%w: bucket operation %q", errUnsupported, name)
}

// readAll reads a whole download; a download result is its bytes.
func readAll(d *buckets.Download, err error) (bson.RawValue, error) {
	if err != nil {
		return bson.RawValue{}, err
	}
	defer d.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, d); err != nil {
		return bson.RawValue{}, err
	}
	return value(bson.Binary{Data: buf.Bytes()}), nil
}

func (r *runner) upload(b *specBucket, a *args) (bson.RawValue, error) {
	filename, err := a.str("filename")
	if err != nil {
		return bson.RawValue{}, err
	}
	src, ok, err := a.doc("source")
	if err != nil || !ok {
		return bson.RawValue{}, fmt.Errorf("upload needs a source {$$hexBytes: ...}: %v", err)
	}
	op, arg, isOp := operator(bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: src})
	hexStr, isStr := arg.StringValueOK()
	if !isOp || op != "$$hexBytes" || !isStr {
		return bson.RawValue{}, fmt.Errorf("%w: upload source %s", errUnsupported, src)
	}
	data, err := hex.DecodeString(hexStr)
	if err != nil {
		return bson.RawValue{}, fmt.Errorf("malformed $$hexBytes %q: %w", hexStr, err)
	}
	opts := buckets.UploadOptions{ChunkSize: b.chunkSize}
	if n, ok, err := a.int("chunkSizeBytes"); err != nil {
		return bson.RawValue{}, err
	} else if ok {
		opts.ChunkSize = int(n)
	}
	if md, ok, err := a.doc("metadata"); err != nil {
		return bson.RawValue{}, err
	} else if ok {
		if err := bson.Unmarshal(md, &opts.Metadata); err != nil {
			return bson.RawValue{}, fmt.Errorf("metadata: %w", err)
		}
	}
	// gridfsd never writes the deprecated md5, so disableMD5 changes
	// nothing; the spec lets drivers that never compute it accept it.
	if v, ok := a.value("disableMD5"); ok {
		if _, isBool := v.BooleanOK(); !isBool {
			return bson.RawValue{}, fmt.Errorf("disableMD5 is %s, want a boolean", v.Type)
		}
	}
	// Older versions of the tests pass the deprecated contentType and
	// aliases and expect them at the root of the files document.
	for _, key := range []string{"contentType", "aliases"} {
		if v, ok := a.value(key); ok {
			opts.Extra = append(opts.Extra, bson.E{Key: key, Value: v})
		}
	}
	if err := a.done(); err != nil {
		return bson.RawValue{}, err
	}
	f, err := b.Upload(r.ctx, filename, bytes.NewReader(data), opts)
	if err != nil {
		return bson.RawValue{}, err
	}
	return value(f.ID), nil
}

func (r *runner) collectionOperation(coll *mongo.Collection, name string, a *args) (bson.RawValue, error) {
	switch name {
	case "find":
		return r.find(coll, a)
	case "insertOne":
		doc, ok, err := a.doc("document")
		if err != nil || !ok {
			return bson.RawValue{}, fmt.Errorf("insertOne needs a document: %v", err)
		}
		if err := a.done(); err != nil {
			return bson.RawValue{}, err
		}
		res, err := coll.InsertOne(r.ctx, doc)
		if err != nil {
			return bson.RawValue{}, err
		}
		return value(bson.D{{Key: "insertedId", Value: res.InsertedID}}), nil
	case "deleteOne", "deleteMany":
		filter, ok, err := a.doc("filter")
		if err != nil || !ok {
			return bson.RawValue{}, fmt.Errorf("%s needs a filter: %v", name, err)
		}
		if err := a.done(); err != nil {
			return bson.RawValue{}, err
		}
		var res *mongo.DeleteResult
		if name == "deleteOne" {
			res, err = coll.DeleteOne(r.ctx, filter)
		} else {
			res, err = coll.DeleteMany(r.ctx, filter)
		}
		if err != nil {
			return bson.RawValue{}, err
		}
		return value(bson.D{{Key: "deletedCount", Value: res.DeletedCount}}), nil
	case "updateOne", "updateMany":
		filter, ok, err := a.doc("filter")
		if err != nil || !ok {
			return bson.RawValue{}, fmt.Errorf("%s needs a filter: %v", name, err)
		}
		update, ok, err := a.doc("update")
		if err != nil || !ok {
			return bson.RawValue{}, fmt.Errorf("%s needs an update document: %v", name, err)
		}
		if err := a.done(); err != nil {
			return bson.RawValue{}, err
		}
		var res *mongo.UpdateResult
		if name == "updateOne" {
			res, err = coll.UpdateOne(r.ctx, filter, update)
		} else {
			res, err = coll.UpdateMany(r.ctx, filter, update)
		}
		if err != nil {
			return bson.RawValue{}, err
		}
		return value(bson.D{
			{Key: "matchedCount", Value: res.MatchedCount},
			{Key: "modifiedCount", Value: res.ModifiedCount},
			{Key: "upsertedCount", Value: res.UpsertedCount},
		}), nil
	case "bulkWrite":
		return r.bulkWrite(coll, a)
	case "countDocuments":
		filter, ok, err := a.doc("filter")
		if err != nil || !ok {
			return bson.RawValue{}, fmt.Errorf("countDocuments needs a filter: %v", err)
		}
		if err := a.done(); err != nil {
			return bson.RawValue{}, err
		}
		n, err := coll.CountDocuments(r.ctx, filter)
		if err != nil {
			return bson.RawValue{}, err
		}
		return value(n), nil
	}
	return bson.RawValue{}, fmt.Errorf("%w: collection operation %q", errUnsupported, name)
}

func (r *runner) find(coll *mongo.Collection, a *args) (bson.RawValue, error) {
	filter, ok, err := a.doc("filter")
	if err != nil {
		return bson.RawValue{}, err
	}
	if !ok {
		filter = bson.Raw(bsonEmptyDoc)
	}
	opts := options.Find()
	if sort, ok, err := a.doc("sort"); err != nil {
		return bson.RawValue{}, err
	} else if ok {
		opts.SetSort(sort)
	}
	if n, ok, err := a.int("limit"); err != nil {
		return bson.RawValue{}, err
	} else if ok {
		opts.SetLimit(n)
	}
	if n, ok, err := a.int("skip"); err != nil {
		return bson.RawValue{}, err
	} else if ok {
		opts.SetSkip(n)
	}
	if err := a.done(); err != nil {
		return bson.RawValue{}, err
	}
	cur, err := coll.Find(r.ctx, filter, opts)
	if err != nil {
		return bson.RawValue{}, err
	}
	docs := []bson.Raw{}
	if err := cur.All(r.ctx, &docs); err != nil {
		return bson.RawValue{}, err
	}
	return value(docs), nil
}

// bsonEmptyDoc is the encoding of {}.
var bsonEmptyDoc = []byte{5, 0, 0, 0, 0}

func (r *runner) bulkWrite(coll *mongo.Collection, a *args) (bson.RawValue, error) {
	v, ok := a.value("requests")
	reqs, isArr := v.ArrayOK()
	if !ok || !isArr {
		return bson.RawValue{}, errors.New("bulkWrite needs an array of requests")
	}
	ordered := true
	if v, ok := a.value("ordered"); ok {
		ordered = v.Boolean()
	}
	if err := a.done(); err != nil {
		return bson.RawValue{}, err
	}
	vals, err := reqs.Values()
	if err != nil {
		return bson.RawValue{}, err
	}
	var models []mongo.WriteModel
	for i, rv := range vals {
		op, arg, isOp := singleKey(rv)
		if !isOp {
			return bson.RawValue{}, fmt.Errorf("requests[%d] is not {op: {...}}", i)
		}
		ra := &args{raw: arg, used: map[string]bool{}}
		filter, _, err := ra.doc("filter")
		if err != nil {
			return bson.RawValue{}, err
		}
		switch op {
		case "insertOne":
			doc, _, err := ra.doc("document")
			if err != nil {
				return bson.RawValue{}, err
			}
			models = append(models, mongo.NewInsertOneModel().SetDocument(doc))
		case "updateOne", "updateMany":
			update, _, err := ra.doc("update")
			if err != nil {
				return bson.RawValue{}, err
			}
			if op == "updateOne" {
				models = append(models, mongo.NewUpdateOneModel().SetFilter(filter).SetUpdate(update))
			} else {
				models = append(models, mongo.NewUpdateManyModel().SetFilter(filter).SetUpdate(update))
			}
		case "replaceOne":
			repl, _, err := ra.doc("replacement")
			if err != nil {
				return bson.RawValue{}, err
			}
			models = append(models, mongo.NewReplaceOneModel().SetFilter(filter).SetReplacement(repl))
		case "deleteOne":
			models = append(models, mongo.NewDeleteOneModel().SetFilter(filter))
		case "deleteMany":
			models = append(models, mongo.NewDeleteManyModel().SetFilter(filter))
		default:
			return bson.RawValue{}, fmt.Errorf("%w: bulkWrite request %q", errUnsupported, op)
		}
		if err := ra.done(); err != nil {
			return bson.RawValue{}, fmt.Errorf("requests[%d]: %w", i, err)
		}
	}
	res, err := coll.BulkWrite(r.ctx, models, options.BulkWrite().SetOrdered(ordered))
	if err != nil {
		return bson.RawValue{}, err
	}
	return value(bson.D{
		{Key: "insertedCount", Value: res.InsertedCount},
		{Key: "matchedCount", Value: res.MatchedCount},
		{Key: "modifiedCount", Value: res.ModifiedCount},
		{Key: "deletedCount", Value: res.DeletedCount},
		{Key: "upsertedCount", Value: res.UpsertedCount},
	}), nil
}

// singleKey splits {key: {...}}.
func singleKey(v bson.RawValue) (string, bson.Raw, bool) {
	d, ok := v.DocumentOK()
	if !ok {
		return "", nil, false
	}
	elems, err := d.Elements()
	if err != nil || len(elems) != 1 {
		return "", nil, false
	}
	arg, ok := elems[0].Value().DocumentOK()
	return elems[0].Key(), arg, ok
}

// caseTimeout bounds one spec case; the embedded store answers these tiny
// collections in milliseconds.
const caseTimeout = 2 * time.Minute
