package buckets

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// The expiry sweeper removes what has expired (expiry.go, lifecycle.go):
// files whose expireAt has passed or that a rule expires, and unfinished
// multipart uploads older than a rule's abortUnfinishedAfter. Every
// gateway runs it; one at a time sweeps a bucket, the holder of the
// bucket's sweep lease, a document in LeasesCollection that it renews
// between batches. It works in batches, each file as DELETE removes one:
// the files document first (only if the file is still expired, so a
// PATCH that just extended it wins), then its chunks, so a reader never
// sees a partial file: it has the whole file open, or none.
//
// A sweeper killed mid-batch leaves files documents removed and their
// chunks not yet: before each batch it records the batch's _ids in its
// lease (pending), and whoever takes the lease over next finishes them,
// removing the chunks of those whose files document is gone. The queries
// go through indexes on MongoDB and on the embedded store: files by
// expireAt (a range of dates) and by uploadDate, each file by _id, its
// chunks by files_id.

// Defaults of a sweep.
const (
	DefaultSweepBatch      = 100
	DefaultSweepBatchBytes = 16 << 20
	DefaultSweepLeaseTTL   = 30 * time.Second
	DefaultSweepRest       = 0.5
)

// SweepOptions tune SweepExpired; the zero value is the defaults.
type SweepOptions struct {
	// Batch is how many files a query finds and a lease renewal covers.
	Batch int
	// BatchBytes bounds the bytes of the files one batch removes (a batch
	// holds at least one file): the chunks of a batch go in one delete,
	// on the embedded store one write transaction, which readers of the
	// same bucket wait behind.
	BatchBytes int64
	// Rest is how long the sweeper pauses after each batch, as a fraction
	// of the time the batch took, so that readers get the store between
	// batches; negative: no pause.
	Rest float64
	// LeaseTTL is how long a sweeper that died holding a bucket's lease
	// keeps the others out.
	LeaseTTL time.Duration
	// Now, when set, is the clock (tests).
	Now func() time.Time
}

// SweepResult is what one sweep of a bucket did.
type SweepResult struct {
	Files int64 // files removed
	Bytes int64 // their length
	// Uploads are the unfinished multipart uploads aborted.
	Uploads int
	// Lag is how long after its expiry the longest-expired file removed
	// had been still stored; zero when none was removed.
	Lag time.Duration
	// Busy is true when another sweeper held the bucket's lease: this
	// sweep did nothing.
	Busy bool
}

// sweepLease is a held lease on sweeping one bucket.
type sweepLease struct {
	coll   *mongo.Collection
	id     string
	holder bson.ObjectID
	ttl    time.Duration
}

func sweepLeaseID(bucket string) string { return "sweep/" + bucket }

// takeSweepLease takes the bucket's sweep lease if it is free or its
// holder let it expire, and returns the _ids another holder left pending;
// nil when another sweeper holds it.
func (b *Bucket) takeSweepLease(ctx context.Context, ttl time.Duration, now time.Time) (*sweepLease, []bson.RawValue, error) {
	l := &sweepLease{coll: b.leaseColl(), id: sweepLeaseID(b.name), holder: bson.NewObjectID(), ttl: ttl}
	expires := bson.NewDateTimeFromTime(now.Add(ttl))
	_, err := l.coll.InsertOne(ctx, bson.D{
		{Key: "_id", Value: l.id}, {Key: "holder", Value: l.holder}, {Key: "expires", Value: expires},
		{Key: "bucket", Value: b.name}, {Key: "pending", Value: bson.A{}},
	})
	if err == nil {
		return l, nil, nil
	}
	if !mongo.IsDuplicateKeyError(err) {
		return nil, nil, fmt.Errorf("sweep lease of %s: %w", b.name, err)
	}
	var before bson.Raw
	before, err = l.coll.FindOneAndUpdate(ctx,
		bson.D{{Key: "_id", Value: l.id}, {Key: "expires", Value: bson.D{{Key: "$lt", Value: bson.NewDateTimeFromTime(now)}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "holder", Value: l.holder}, {Key: "expires", Value: expires}}}},
	).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("sweep lease of %s: %w", b.name, err)
	}
	var pending []bson.RawValue
	if arr, ok := before.Lookup("pending").ArrayOK(); ok {
		pending, _ = arr.Values()
	}
	return l, pending, nil
}

// renew extends the lease and records the _ids of the batch about to be
// removed; it fails when another sweeper took the lease over.
func (l *sweepLease) renew(ctx context.Context, pending bson.A, now time.Time) error {
	res, err := l.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: l.id}, {Key: "holder", Value: l.holder}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "expires", Value: bson.NewDateTimeFromTime(now.Add(l.ttl))}, {Key: "pending", Value: pending}}}})
	if err != nil {
		return fmt.Errorf("renew sweep lease: %w", err)
	}
	if res.MatchedCount == 0 {
		return errors.New("sweep lease taken over by another sweeper")
	}
	return nil
}

func (l *sweepLease) release() {
	ctx, cancel := context.WithTimeout(context.Background(), CommitTimeout)
	defer cancel()
	l.coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: l.id}, {Key: "holder", Value: l.holder}})
}

// candidate is a file the sweeper found expired.
type candidate struct {
	id       any
	length   int64
	at       time.Time // when it expired
	revision bool      // hidden by a revision rule, not expired by a date
	marker   bool      // a revision that is a lone delete marker (loneMarkerBatch)
	name     string    // a revision's name, which its delete filters on (see named)
}

// SweepExpired removes, in batches, every file of b that has expired and
// the multipart uploads its rules abort, unless another sweeper holds the
// bucket's lease (SweepResult.Busy). A failure stops the sweep; what it
// removed so far stays removed and the next sweep continues.
func (b *Bucket) SweepExpired(ctx context.Context, opts SweepOptions) (SweepResult, error) {
	if opts.Batch <= 0 {
		opts.Batch = DefaultSweepBatch
	}
	if opts.BatchBytes <= 0 {
		opts.BatchBytes = DefaultSweepBatchBytes
	}
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = DefaultSweepLeaseTTL
	}
	if opts.Rest == 0 {
		opts.Rest = DefaultSweepRest
	}
	clock := opts.Now
	if clock == nil {
		clock = time.Now
	}
	var res SweepResult
	// A bucket gridfsd never gave an expiry has nothing to sweep: no rules,
	// and no expireAt index, which every write of an expiry creates. Its
	// collections are left as they are (no index built, no lease taken).
	// Unless this process found the index before: then another process
	// dropped the bucket since, and this one's writes of an expiry, which
	// trusted that check, made no index again (ensureIndexes). A bucket
	// still empty since the drop is left dropped.
	if len(b.settings.Lifecycle) == 0 {
		used, err := hasIndex(ctx, b.files, expireAtIndex)
		if err != nil || !used && !b.db.hadIndexes(b.name+expiryIndexes) {
			return res, err
		}
		if !used {
			err := b.files.FindOne(ctx, bson.D{}, findOneID()).Err()
			if errors.Is(err, mongo.ErrNoDocuments) {
				return res, nil
			}
			if err != nil {
				return res, fmt.Errorf("sweep: check files: %w", err)
			}
			b.db.recheck(b.name)
			b.db.recheck(b.name + expiryIndexes)
			if err := b.ensureIndexes(ctx); err != nil {
				return res, err
			}
		}
	}
	if err := b.ensureExpiryIndexes(ctx); err != nil {
		return res, err
	}
	l, pending, err := b.takeSweepLease(ctx, opts.LeaseTTL, clock())
	if err != nil || l == nil {
		res.Busy = l == nil && err == nil
		return res, err
	}
	defer l.release()
	if err := b.finishPending(ctx, pending); err != nil {
		return res, err
	}
	for {
		now, started := clock(), time.Now()
		batch, err := b.expiredBatch(ctx, now, opts.Batch)
		if err != nil {
			return res, err
		}
		if len(batch) == 0 {
			break
		}
		batch = byBytes(batch, opts.BatchBytes)
		ids := make(bson.A, len(batch))
		for i, c := range batch {
			ids[i] = c.id
		}
		if err := l.renew(ctx, ids, now); err != nil {
			return res, err
		}
		gone, err := b.removeBatch(ctx, batch, now)
		for _, c := range gone {
			res.Files++
			res.Bytes += c.length
			res.Lag = max(res.Lag, now.Sub(c.at))
		}
		if err != nil {
			return res, err
		}
		removed := len(gone)
		if err := l.renew(ctx, bson.A{}, clock()); err != nil {
			return res, err
		}
		if removed == 0 {
			// Every file found un-expired meanwhile (or is a revision
			// whose rule changed): the next query finds the same.
			break
		}
		if opts.Rest > 0 {
			select {
			case <-ctx.Done():
				return res, ctx.Err()
			case <-time.After(time.Duration(opts.Rest * float64(time.Since(started)))):
			}
		}
	}
	n, err := b.abortUnfinished(ctx, clock())
	res.Uploads = n
	return res, err
}

// byBytes returns the longest start of batch whose lengths add up to at
// most limit, and at least its first file.
func byBytes(batch []candidate, limit int64) []candidate {
	var sum int64
	for i, c := range batch {
		sum += c.length
		if i > 0 && sum > limit {
			return batch[:i]
		}
	}
	return batch
}

// removeBatch removes the files of batch that are still expired at now
// (a PATCH may have extended one meanwhile) or, for revisions, still
// removable (removeRevisions): their files documents in one command (and
// one per revisions' name), then the chunks of those gone in another, and
// returns the candidates it removed. Each command is a search of an index
// per _id ($in), on MongoDB and the embedded store.
func (b *Bucket) removeBatch(ctx context.Context, batch []candidate, now time.Time) ([]candidate, error) {
	var expired, all bson.A
	revisions := map[string][]candidate{} // by name
	var names []string
	for _, c := range batch {
		if c.revision {
			if revisions[c.name] == nil {
				names = append(names, c.name)
			}
			revisions[c.name] = append(revisions[c.name], c)
		} else {
			expired = append(expired, c.id)
		}
		all = append(all, c.id)
	}
	if len(expired) > 0 {
		in := bson.E{Key: "_id", Value: bson.D{{Key: "$in", Value: expired}}}
		if _, err := b.files.DeleteMany(ctx, bson.D{in, {Key: "$or", Value: b.expiredClauses(now)}}); err != nil {
			return nil, fmt.Errorf("sweep files: %w", full(err))
		}
	}
	for _, name := range names {
		if err := b.removeRevisions(ctx, name, revisions[name], now); err != nil {
			return nil, err
		}
	}
	present, err := b.present(ctx, all)
	if err != nil {
		return nil, fmt.Errorf("sweep files: %w", err)
	}
	var gone []candidate
	var ids bson.A
	for _, c := range batch {
		if !present(c.id) {
			gone = append(gone, c)
			ids = append(ids, c.id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	defer func() {
		for _, id := range ids {
			b.db.cache.Invalidate(b.chunks, id)
		}
	}()
	if _, err := b.chunks.DeleteMany(ctx, bson.D{{Key: "files_id", Value: bson.D{{Key: "$in", Value: ids}}}}); err != nil {
		// The files are gone either way; their chunks are pending in the
		// lease for the next sweep.
		return gone, fmt.Errorf("sweep chunks: %w", full(err))
	}
	return gone, nil
}

// removeRevisions removes the files documents of found, revisions of name
// the sweeper found removable, that still are at now. Whether a revision
// is hidden depends on the others of its name, which a write of the name
// may change after the sweeper looked (a delete of the newest makes the
// one before it current again), so it decides again under the name's
// lease, which every such write holds. The chunks are the caller's.
func (b *Bucket) removeRevisions(ctx context.Context, name string, found []candidate, now time.Time) error {
	ls, err := b.acquireLeases(ctx, name)
	if err != nil {
		return fmt.Errorf("sweep files: %w", err)
	}
	defer ls.release(ctx)
	docs, err := b.liveRevisions(ctx, name, now, revisionFields)
	if err != nil {
		return fmt.Errorf("sweep files: %w", err)
	}
	hidden := map[string]bool{}
	for i := range b.hiddenRevisions(b.revisionRules(name), stamps(docs), now) {
		hidden[idKey(docs[i].Lookup("_id"))] = true
	}
	removable := func(c candidate) bool {
		v, err := rawValue(c.id)
		if err != nil {
			return false
		}
		if c.marker {
			return b.loneMarker(name, docs, now) && idKey(docs[0].Lookup("_id")) == idKey(v)
		}
		return hidden[idKey(v)]
	}
	var ids bson.A
	for _, c := range found {
		if removable(c) {
			ids = append(ids, c.id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if _, err := b.files.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}, {Key: "filename", Value: name}}); err != nil {
		return fmt.Errorf("sweep files: %w", full(err))
	}
	return nil
}

// finishPending removes the chunks of the files a killed sweeper removed
// without their chunks: those of pending whose files document is gone.
func (b *Bucket) finishPending(ctx context.Context, pending []bson.RawValue) error {
	for _, v := range pending {
		var id any
		if err := v.Unmarshal(&id); err != nil {
			continue
		}
		_, err := b.files.FindOne(ctx, bson.D{{Key: "_id", Value: id}}, findOneID()).Raw()
		if err == nil {
			continue // not removed yet: found again as expired
		}
		if !errors.Is(err, mongo.ErrNoDocuments) {
			return fmt.Errorf("sweep: finish %v: %w", id, err)
		}
		if _, err := b.deleteChunks(ctx, id); err != nil {
			return fmt.Errorf("sweep: finish: %w", err)
		}
	}
	return nil
}

// sweepFields are what the sweeper reads of a files document.
var sweepFields = bson.D{{Key: "_id", Value: 1}, {Key: "length", Value: 1}, {Key: "filename", Value: 1}, {Key: "uploadDate", Value: 1}, {Key: FieldExpireAt, Value: 1}}

// expiredBatch finds up to n expired files: by their own expireAt first,
// then by each rule. Each query is a range of an index: the dates are
// bounded below by minExpireAt, which no date gridfsd writes precedes.
func (b *Bucket) expiredBatch(ctx context.Context, now time.Time, n int) ([]candidate, error) {
	var out []candidate
	seen := map[string]bool{} // a file two queries find is one candidate
	from := bson.NewDateTimeFromTime(minExpireAt)
	find := func(filter bson.D, at func(raw bson.Raw) time.Time) error {
		cur, err := b.files.Find(ctx, filter, options.Find().SetProjection(sweepFields).SetLimit(int64(n-len(out))))
		if err != nil {
			return fmt.Errorf("sweep: find expired files: %w", err)
		}
		return eachRaw(ctx, cur, func(raw bson.Raw) error {
			var id any
			if err := raw.Lookup("_id").Unmarshal(&id); err != nil || seen[idKey(raw.Lookup("_id"))] {
				return nil
			}
			seen[idKey(raw.Lookup("_id"))] = true
			length, _ := raw.Lookup("length").AsInt64OK()
			out = append(out, candidate{id: id, length: length, at: at(raw)})
			return nil
		})
	}
	err := find(bson.D{{Key: FieldExpireAt, Value: bson.D{{Key: "$gte", Value: from}, {Key: "$lte", Value: bson.NewDateTimeFromTime(now)}}}},
		expireAtOf)
	if err != nil || len(out) >= n {
		return out, err
	}
	for _, r := range b.settings.Lifecycle {
		if r.Disabled || len(out) >= n {
			continue
		}
		var filter bson.D
		var at func(raw bson.Raw) time.Time
		switch {
		case r.ExpireAfter > 0:
			age := b.scaled(r.ExpireAfter)
			filter = append(ruleFilter(r), bson.E{Key: "uploadDate", Value: bson.D{{Key: "$gte", Value: from}, {Key: "$lt", Value: bson.NewDateTimeFromTime(now.Add(-age))}}})
			at = func(raw bson.Raw) time.Time {
				dt, _ := raw.Lookup("uploadDate").DateTimeOK()
				return time.UnixMilli(dt).Add(age)
			}
		case r.ExpireDate != nil && !r.ExpireDate.After(now):
			filter = ruleFilter(r)
			if filter == nil {
				filter = bson.D{}
			}
			date := *r.ExpireDate
			at = func(bson.Raw) time.Time { return date }
		default:
			continue
		}
		if err := find(filter, at); err != nil {
			return out, err
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	return b.hiddenRevisionBatch(ctx, now, n)
}

// hiddenRevisionBatch finds up to n revisions that revision rules hide.
func (b *Bucket) hiddenRevisionBatch(ctx context.Context, now time.Time, n int) ([]candidate, error) {
	var out []candidate
	// Rules whose prefixes overlap walk a name once each, and find
	// the same revisions hidden (by all the name's rules) each time.
	seen := map[string]bool{}
	stop := errors.New("full")
	for _, r := range b.settings.Lifecycle {
		if r.Disabled || !r.revisions() {
			continue
		}
		err := b.eachRevisionGroup(ctx, r.Prefix, now, func(name string, docs []bson.Raw) error {
			st := stamps(docs)
			for i := range b.hiddenRevisions(b.revisionRules(name), st, now) {
				var id any
				if err := st[i].id.Unmarshal(&id); err != nil || seen[idKey(st[i].id)] {
					continue
				}
				seen[idKey(st[i].id)] = true
				length, _ := docs[i].Lookup("length").AsInt64OK()
				out = append(out, candidate{id: id, length: length, at: st[i-1].uploadDate, revision: true, name: name})
				if len(out) >= n {
					return stop
				}
			}
			return nil
		})
		if errors.Is(err, stop) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(out) < n {
		markers, err := b.loneMarkerBatch(ctx, now, n-len(out))
		if err != nil {
			return nil, err
		}
		out = append(out, markers...)
	}
	return out, nil
}

// abortUnfinished aborts the multipart uploads of names under a rule with
// abortUnfinishedAfter that started longer ago than that.
func (b *Bucket) abortUnfinished(ctx context.Context, now time.Time) (int, error) {
	n := 0
	for _, r := range b.settings.Lifecycle {
		if r.Disabled || r.AbortUnfinishedAfter <= 0 {
			continue
		}
		filter := bson.D{{Key: "bucket", Value: b.name}, {Key: "initiated", Value: bson.D{{Key: "$lt", Value: now.Add(-b.scaled(r.AbortUnfinishedAfter))}}}}
		filter = append(filter, prefixFilter(r.Prefix)...)
		cur, err := b.uploads().Find(ctx, filter, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			return n, fmt.Errorf("sweep multipart uploads: %w", err)
		}
		var ids []string
		if err := eachRaw(ctx, cur, func(raw bson.Raw) error {
			if s, ok := raw.Lookup("_id").StringValueOK(); ok {
				ids = append(ids, s)
			}
			return nil
		}); err != nil {
			return n, fmt.Errorf("sweep multipart uploads: %w", err)
		}
		for _, id := range ids {
			if err := b.removeMultipart(ctx, id, nil); errors.Is(err, ErrUploadCompleting) {
				continue
			} else if err != nil && !errors.Is(err, ErrUploadNotFound) {
				return n, err
			}
			n++
		}
		m, err := b.abortResumables(ctx, r.Prefix, now.Add(-b.scaled(r.AbortUnfinishedAfter)))
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// abortResumables removes the unfinished resumable uploads of names under
// prefix created before cutoff, with their chunks. (Partial uploads have no
// name: only a rule of prefix "" takes them.)
func (b *Bucket) abortResumables(ctx context.Context, prefix string, cutoff time.Time) (int, error) {
	filter := bson.D{{Key: "created", Value: bson.D{{Key: "$lt", Value: cutoff}}}, {Key: "finished", Value: bson.D{{Key: "$ne", Value: true}}}}
	filter = append(filter, prefixFilter(prefix)...)
	cur, err := b.resumables().Find(ctx, filter)
	if err != nil {
		return 0, fmt.Errorf("sweep resumable uploads: %w", err)
	}
	var old []Resumable
	if err := cur.All(ctx, &old); err != nil {
		return 0, fmt.Errorf("sweep resumable uploads: %w", err)
	}
	n := 0
	for i := range old {
		gone, err := b.removeIdle(ctx, old[i].ID, func(r *Resumable) bool { return !r.Finished && r.Created.Before(cutoff) })
		if err != nil {
			return n, err
		}
		if gone != nil {
			n++
		}
	}
	return n, nil
}

// ExpiredPresent counts the files of b that have expired (by expireAt or
// an age or date rule) but are still stored: what other GridFS tools still
// see until the sweeper runs. fsck reports it.
func (b *Bucket) ExpiredPresent(ctx context.Context) (int64, error) {
	n, err := b.files.CountDocuments(ctx, bson.D{{Key: "$or", Value: b.expiredClauses(time.Now())}})
	if err != nil {
		return 0, fmt.Errorf("count expired files of %s: %w", b.name, err)
	}
	return n, nil
}
