package buckets

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// SettingsCollection holds one document per bucket created through gridfsd,
// so that every gateway instance sees the same settings.
const SettingsCollection = "_gridfsd_buckets"

// DefaultBucket is the bucket of GridFS tools that are not told another.
const DefaultBucket = "fs"

// Settings are a bucket's defaults, persisted in SettingsCollection.
type Settings struct {
	// ChunkSize for uploads that do not choose one; 0 means chunker.DefaultChunkSize.
	ChunkSize int `bson:"chunkSize,omitempty" json:"chunkSize,omitempty"`
	// MaxFileSize refuses larger uploads with ErrTooLarge; 0 means no limit
	// beyond the gateway's own.
	MaxFileSize int64 `bson:"maxFileSize,omitempty" json:"maxFileSize,omitempty"`
	// Lifecycle are the bucket's lifecycle rules (see Rule). In Create,
	// nil keeps the stored rules and an empty list removes them.
	Lifecycle []Rule `bson:"lifecycle,omitempty" json:"lifecycle,omitempty"`
	// CORS are the bucket's cross-origin rules, which the S3 door enforces
	// (see CORSRule); set with SetCORS.
	CORS []CORSRule `bson:"cors,omitempty" json:"cors,omitempty"`
	// Tags label the bucket (S3's bucket tagging); set with SetBucketTags.
	Tags []Tag `bson:"tags,omitempty" json:"tags,omitempty"`
	// Created is when the bucket was first created through gridfsd (S3's
	// CreationDate); set by Create, zero for buckets other tools made; not
	// part of the HTTP API's settings, which clients send back.
	Created time.Time `bson:"created,omitempty" json:"-"`
	// Owner is the name of the token that created the bucket through the
	// S3 door (S3's bucket owner: another token creating it again is told
	// it exists); empty when access control was off or another tool made
	// it. Location is the region its CreateBucket named (S3's
	// LocationConstraint; gridfsd has no regions and serves it as given).
	// Both are set once, by the Create that makes the bucket, and like
	// Created are not part of the HTTP API's settings.
	Owner    string `bson:"owner,omitempty" json:"-"`
	Location string `bson:"location,omitempty" json:"-"`
	// PublicAccessBlock is S3's public access block of the bucket, nil
	// when none; set with SetPublicAccessBlock.
	PublicAccessBlock *PublicAccessBlock `bson:"publicAccessBlock,omitempty" json:"-"`
	// ACL is the bucket's canned ACL when public (see ACLPublicRead), empty
	// for private; set with SetBucketACL, or by Create when not empty.
	ACL string `bson:"acl,omitempty" json:"acl,omitempty"`
	// Ownership is S3's object ownership control of the bucket
	// (OwnershipBucketOwnerEnforced, or empty for none); set with
	// SetOwnership.
	Ownership string `bson:"ownership,omitempty" json:"-"`
	// Versioning is S3's versioning status: "" (never set),
	// VersioningEnabled or VersioningSuspended; set with SetVersioning
	// (see versioning.go).
	Versioning string `bson:"versioning,omitempty" json:"versioning,omitempty"`
}

func (s Settings) check() error {
	if s.ChunkSize != 0 {
		if err := chunker.CheckChunkSize(int64(s.ChunkSize)); err != nil {
			return err
		}
	}
	if s.MaxFileSize < 0 {
		return fmt.Errorf("%w: maxFileSize %d is negative", ErrInvalidMetadata, s.MaxFileSize)
	}
	return CheckLifecycle(s.Lifecycle)
}

// DB is the set of buckets in one database. It is safe for concurrent use
// and holds no state that other gateway instances would need: indexes and
// settings live in MongoDB; DB only remembers, for IndexCheckInterval,
// which buckets it has checked the indexes of.
type DB struct {
	db *mongo.Database

	uploads   *chunker.Budget
	downloads *chunker.ReadBudget
	cache     *chunker.Cache // chunks downloads share (cache.go)

	limits limitsOf // see SetLimits

	types storeTypes // what the store told of itself

	log *slog.Logger // nil: slog.Default()

	day   time.Duration // a lifecycle day; 0 is 24 h (SetLifecycleDay)
	space *spaceGuard   // nil: the store's disk is not watched (MongoDB)

	noPublicACLs bool // SetPublicACLs(false)

	locks uploadLocks // the resumable uploads' locks this process holds

	mu       sync.Mutex
	indexed  map[string]indexCheck // bucket -> its indexes' last check
	settings map[string]cachedSettings
}

// cachedSettings are a bucket's settings as read at a time.
type cachedSettings struct {
	s  Settings
	at time.Time
}

// SettingsCacheTTL is how long a DB reuses a bucket's settings before it
// reads them again: every request opens its bucket, and the settings change
// rarely. A change made through another gateway reaches this one within it;
// one made through this DB, at once.
const SettingsCacheTTL = 5 * time.Second

// IndexCheckInterval is how long a DB trusts its last check of a bucket's
// indexes. The GridFS specification checks once per bucket object; a
// gateway lives for months, and another gateway or a person may drop a
// bucket meanwhile, after which the next upload must create the indexes
// again (without the unique {files_id, n} index, range reads on MongoDB
// would scan). One findOne a minute per bucket is the price.
const IndexCheckInterval = time.Minute

// Limits of the chunk writers of all uploads through one DB (see
// chunker.Budget): enough inserts in flight to keep a store busy, and a
// batch budget that gives one upload large batches and keeps memory flat
// however many clients upload at once.
const (
	ConcurrentInserts = 8
	UploadBufferBytes = 32 << 20
	// ConcurrentReads and DownloadBufferBytes are the chunk queries in
	// flight and the read-ahead of all downloads through one DB (see
	// chunker.ReadBudget): enough queries to keep a store busy, past which
	// readers queue in order, and memory flat however many read.
	ConcurrentReads     = 8
	DownloadBufferBytes = 32 << 20
)

// NewDB returns the buckets of db.
func NewDB(db *mongo.Database) *DB {
	return &DB{db: db, uploads: chunker.NewBudget(ConcurrentInserts, UploadBufferBytes), downloads: chunker.NewReadBudget(ConcurrentReads, DownloadBufferBytes), cache: chunker.NewCache(DefaultChunkCacheBytes), indexed: make(map[string]indexCheck), settings: make(map[string]cachedSettings)}
}

// SetLogger sets where d reports what it passes over without failing (a
// malformed files document in a listing, say); the default is
// slog.Default(). Call it before d is used.
func (d *DB) SetLogger(l *slog.Logger) { d.log = l }

func (d *DB) logger() *slog.Logger {
	if d.log == nil {
		return slog.Default()
	}
	return d.log
}

// Database is the underlying database.
func (d *DB) Database() *mongo.Database { return d.db }

// Bucket opens the bucket name, which need not exist yet: GridFS creates
// collections on the first upload. It returns ErrInvalidBucketName for a bad
// name.
func (d *DB) Bucket(ctx context.Context, name string) (*Bucket, error) {
	if err := CheckBucketName(name); err != nil {
		return nil, err
	}
	if s, ok := d.cachedSettings(name); ok {
		return d.bucket(name, s), nil
	}
	s, _, err := d.readSettings(ctx, name)
	if err != nil {
		return nil, err
	}
	d.cacheSettings(name, &s)
	return d.bucket(name, s), nil
}

func (d *DB) cachedSettings(name string) (Settings, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := d.settings[name]
	return c.s, ok && time.Since(c.at) < SettingsCacheTTL
}

// cacheSettings remembers s for name; nil forgets it.
func (d *DB) cacheSettings(name string, s *Settings) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s == nil {
		delete(d.settings, name)
		return
	}
	d.settings[name] = cachedSettings{s: *s, at: time.Now()}
}

func (d *DB) bucket(name string, s Settings) *Bucket {
	return &Bucket{
		db:       d,
		name:     name,
		settings: s,
		files:    d.db.Collection(name + ".files"),
		chunks:   d.db.Collection(name + ".chunks"),
	}
}

// readSettings reads the persisted settings of a bucket; found is false
// when gridfsd never stored any.
func (d *DB) readSettings(ctx context.Context, name string) (s Settings, found bool, err error) {
	err = d.db.Collection(SettingsCollection).FindOne(ctx, bson.D{{Key: "_id", Value: name}}).Decode(&s)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return Settings{}, false, nil
	}
	if err != nil {
		return Settings{}, false, fmt.Errorf("read settings of bucket %s: %w", name, err)
	}
	return s, true, nil
}

// Create creates bucket name with settings s, or updates the settings of an
// existing one, and ensures its indexes. It returns ErrInvalidBucketName,
// ErrInvalidChunkSize, ErrInvalidLifecycle, ErrInvalidACL or
// ErrPublicACLRefused for bad input, having written nothing. A nil
// s.Lifecycle keeps the rules stored, an empty s.ACL the ACL ("private"
// makes the bucket private).
func (d *DB) Create(ctx context.Context, name string, s Settings) (*Bucket, error) {
	if err := CheckBucketName(name); err != nil {
		return nil, err
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	b := d.bucket(name, s)
	if err := b.createIndexes(ctx); err != nil {
		return nil, err
	}
	doc := bson.D{
		{Key: "chunkSize", Value: s.ChunkSize},
		{Key: "maxFileSize", Value: s.MaxFileSize},
		{Key: "updated", Value: time.Now()},
	}
	if s.Lifecycle != nil {
		doc = append(doc, bson.E{Key: "lifecycle", Value: s.Lifecycle})
	}
	if s.Ownership != "" {
		if s.Ownership != OwnershipBucketOwnerEnforced {
			return nil, fmt.Errorf("%w: %q", errUnknownOwnership, s.Ownership)
		}
		if PublicACL(s.ACL) {
			return nil, fmt.Errorf("%w: %s", ErrACLBlocksOwnership, s.ACL)
		}
		doc = append(doc, bson.E{Key: "ownership", Value: s.Ownership})
	}
	if s.ACL != "" {
		// The public access block, if any, is the stored bucket's.
		cur, err := d.Bucket(ctx, name)
		if err != nil {
			return nil, err
		}
		if err := cur.CheckACL(s.ACL); err != nil {
			return nil, err
		}
		doc = append(doc, bson.E{Key: "acl", Value: stored(s.ACL)})
	}
	var onInsert bson.D
	if s.Owner != "" {
		onInsert = append(onInsert, bson.E{Key: "owner", Value: s.Owner})
	}
	if s.Location != "" {
		onInsert = append(onInsert, bson.E{Key: "location", Value: s.Location})
	}
	return d.saveSettingsOnInsert(ctx, b, doc, onInsert)
}

// SetLifecycle replaces the lifecycle rules of bucket name (none removes
// them), leaving its other settings as they are, and ensures the indexes
// its sweeps use. It returns ErrInvalidBucketName or ErrInvalidLifecycle,
// having written nothing.
func (d *DB) SetLifecycle(ctx context.Context, name string, rules []Rule) (*Bucket, error) {
	if err := CheckBucketName(name); err != nil {
		return nil, err
	}
	if rules == nil {
		rules = []Rule{}
	}
	if err := CheckLifecycle(rules); err != nil {
		return nil, err
	}
	b, err := d.Bucket(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := b.createIndexes(ctx); err != nil {
		return nil, err
	}
	return d.saveSettings(ctx, b, bson.D{{Key: "lifecycle", Value: rules}, {Key: "updated", Value: time.Now()}})
}

// saveSettings sets the fields of doc in b's settings and returns b with
// the settings as stored.
func (d *DB) saveSettings(ctx context.Context, b *Bucket, doc bson.D) (*Bucket, error) {
	return d.saveSettingsOnInsert(ctx, b, doc, nil)
}

// saveSettingsOnInsert is saveSettings that also sets the fields of
// onInsert when it creates the settings document (never over an existing
// one's).
func (d *DB) saveSettingsOnInsert(ctx context.Context, b *Bucket, doc, onInsert bson.D) (*Bucket, error) {
	now := time.Now().UTC().Truncate(time.Millisecond)
	onInsert = append(bson.D{{Key: "created", Value: now}}, onInsert...)
	_, err := d.db.Collection(SettingsCollection).UpdateOne(ctx,
		bson.D{{Key: "_id", Value: b.name}},
		bson.D{{Key: "$set", Value: doc}, {Key: "$setOnInsert", Value: onInsert}},
		optionsUpsert())
	if err != nil {
		return nil, fmt.Errorf("save settings of bucket %s: %w", b.name, full(err))
	}
	s, _, err := d.readSettings(ctx, b.name)
	if err != nil {
		return nil, err
	}
	d.cacheSettings(b.name, &s)
	return d.bucket(b.name, s), nil
}

// Drop removes bucket name: its files, chunks and settings. Unless force is
// set, it refuses a bucket that holds files with ErrBucketNotEmpty. It
// returns ErrBucketNotFound when there is no such bucket.
func (d *DB) Drop(ctx context.Context, name string, force bool) error {
	b, err := d.Bucket(ctx, name)
	if err != nil {
		return err
	}
	exists, err := d.exists(ctx, name)
	if err != nil {
		return err
	}
	if !exists {
		return fmt.Errorf("%w: %s", ErrBucketNotFound, name)
	}
	// A commit counts its chunks, then writes its files document: a drop
	// between the two (or, without force, between a look at the bucket
	// and the drop) removed files already acknowledged, or their chunks.
	// The fence stops new writes of names; the writes under way end first.
	fence, err := b.acquireLease(ctx, dropFenceID(name), "")
	if err != nil {
		return fmt.Errorf("drop %s: %w", name, err)
	}
	defer leases{fence}.release(ctx)
	if err := b.waitForWriters(ctx); err != nil {
		return fmt.Errorf("drop %s: %w", name, err)
	}
	if !force {
		one, err := b.files.FindOne(ctx, bson.D{}, findOneID()).Raw()
		if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
			return fmt.Errorf("check bucket %s: %w", name, err)
		}
		if one != nil {
			return fmt.Errorf("%w: %s (drop with force to remove its files)", ErrBucketNotEmpty, name)
		}
	}
	return b.Drop(ctx)
}

// waitForWriters waits until no lease of a name of b is held (the drop's
// fence and the sweeper's lease aside), for at most LeaseTTL: a holder
// that died lets its lease expire.
func (b *Bucket) waitForWriters(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, LeaseTTL)
	defer cancel()
	wait := time.Millisecond
	for {
		err := b.leaseColl().FindOne(ctx, bson.D{
			{Key: "bucket", Value: b.name},
			{Key: "_id", Value: bson.D{{Key: "$nin", Value: bson.A{dropFenceID(b.name), sweepLeaseID(b.name)}}}},
			{Key: "expires", Value: bson.D{{Key: "$gt", Value: bson.NewDateTimeFromTime(time.Now())}}},
		}, findOneID()).Err()
		if errors.Is(err, mongo.ErrNoDocuments) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("wait for the writers of %s: %w", b.name, full(err))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("wait for the writers of %s: %w", b.name, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// Exists reports whether bucket name exists: it has a files or chunks
// collection, or settings stored through Create.
func (d *DB) Exists(ctx context.Context, name string) (bool, error) { return d.exists(ctx, name) }

func (d *DB) exists(ctx context.Context, name string) (bool, error) {
	names, err := d.collections(ctx)
	if err != nil {
		return false, err
	}
	if names[name+".files"] || names[name+".chunks"] {
		return true, nil
	}
	_, found, err := d.readSettings(ctx, name)
	return found, err
}

func (d *DB) collections(ctx context.Context) (map[string]bool, error) {
	list, err := d.db.ListCollectionNames(ctx, bson.D{})
	if err != nil {
		return nil, fmt.Errorf("list collections: %w", err)
	}
	names := make(map[string]bool, len(list))
	for _, n := range list {
		names[n] = true
	}
	return names, nil
}

// BucketInfo describes one bucket of the database.
type BucketInfo struct {
	Name     string   `json:"name"`
	Settings Settings `json:"settings"`
	Stats
}

// List returns every bucket of the database, sorted by name, with its
// statistics: any pair of collections X.files/X.chunks, whoever wrote them,
// and every bucket created through gridfsd.
func (d *DB) List(ctx context.Context) ([]BucketInfo, error) {
	return d.ListOf(ctx, nil)
}

// ListOf is List restricted to the buckets keep accepts (nil keeps all):
// the statistics, a scan of each files collection, are computed only for
// those, so a caller who may see few buckets costs few scans.
func (d *DB) ListOf(ctx context.Context, keep func(name string) bool) ([]BucketInfo, error) {
	seen, err := d.all(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]BucketInfo, 0, len(seen))
	for name, s := range seen {
		if keep != nil && !keep(name) {
			continue
		}
		st, err := d.bucket(name, s).Stats(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, BucketInfo{Name: name, Settings: s, Stats: st})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Names returns the names of the buckets List would, sorted, without the
// statistics, which cost a scan of every files collection.
func (d *DB) Names(ctx context.Context) ([]string, error) {
	seen, err := d.all(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(seen))
	for name := range seen {
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

// AllSettings returns the settings of every bucket Names lists, without
// the statistics.
func (d *DB) AllSettings(ctx context.Context) (map[string]Settings, error) { return d.all(ctx) }

// all returns the settings of every bucket List names.
func (d *DB) all(ctx context.Context) (map[string]Settings, error) {
	names, err := d.collections(ctx)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]Settings)
	for n := range names {
		if b, ok := strings.CutSuffix(n, ".files"); ok && CheckBucketName(b) == nil {
			seen[b] = Settings{}
		}
	}
	cur, err := d.db.Collection(SettingsCollection).Find(ctx, bson.D{})
	if err != nil {
		return nil, fmt.Errorf("list bucket settings: %w", err)
	}
	defer closeCursor(ctx, cur)
	for cur.Next(ctx) {
		var s struct {
			Name     string `bson:"_id"`
			Settings `bson:",inline"`
		}
		if err := cur.Decode(&s); err == nil {
			seen[s.Name] = s.Settings
		}
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("list bucket settings: %w", err)
	}
	return seen, nil
}

// indexCheck is what a DB remembers of its last check of a bucket's
// indexes.
type indexCheck struct {
	at time.Time
	// present: the indexes were there once the check was done, made or
	// found. Missing at a later check, they went with the bucket, which
	// another process dropped since; what this process wrote meanwhile
	// trusted the check and recreated the collections without them.
	present bool
}

// ensured reports whether the indexes of bucket name were checked by this
// process within IndexCheckInterval.
func (d *DB) ensured(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := d.indexed[name]
	return ok && time.Since(c.at) < IndexCheckInterval
}

// hadIndexes reports whether this process's last check of bucket name,
// however long ago, found its indexes there (see indexCheck.present).
func (d *DB) hadIndexes(name string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.indexed[name].present
}

// setEnsured remembers a check of bucket name's indexes that found them
// there (ok), or forgets every check of them.
func (d *DB) setEnsured(name string, ok bool) {
	if ok {
		d.setChecked(name, true)
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.indexed, name)
}

// setChecked remembers a check of bucket name's indexes, and whether it
// found them there.
func (d *DB) setChecked(name string, present bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.indexed[name] = indexCheck{at: time.Now(), present: present}
}

// recheck makes the next use of bucket name check its indexes again, and
// keeps what the last check found.
func (d *DB) recheck(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c, ok := d.indexed[name]; ok {
		d.indexed[name] = indexCheck{present: c.present}
	}
}
