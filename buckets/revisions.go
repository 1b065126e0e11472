package buckets

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// DeleteOlderRevisions removes the revisions of f's name that come before f
// in (uploadDate, _id) order, the order FindByName numbers revisions in,
// and returns how many it removed. It is the second half of a safe replace:
// upload the new revision first, and only once it has committed remove what
// it replaces, so that a failed upload loses nothing. A revision another
// client committed after f stays, even one of the same millisecond whose
// _id sorts after f's.
func (b *Bucket) DeleteOlderRevisions(ctx context.Context, f *File) (int, error) {
	ids, err := b.revisionsUpTo(ctx, f)
	if err != nil {
		return 0, fmt.Errorf("delete older revisions of %q: %w", f.Filename, err)
	}
	files := make([]*File, len(ids))
	for i, id := range ids {
		files[i] = &File{ID: id, Filename: f.Filename}
	}
	removed, err := b.deleteAll(ctx, files)
	if err != nil {
		return removed, fmt.Errorf("delete older revisions of %q: %w", f.Filename, err)
	}
	return removed, nil
}

// liveRevisions returns the files documents of name that have not expired
// by themselves or by an age or date rule, newest first, in the order
// FindByName numbers revisions in.
func (b *Bucket) liveRevisions(ctx context.Context, name string, now time.Time, projection bson.D) ([]bson.Raw, error) {
	opts := options.Find().SetSort(bson.D{{Key: "uploadDate", Value: -1}, {Key: "_id", Value: -1}})
	if projection != nil {
		opts.SetProjection(projection)
	}
	cur, err := b.files.Find(ctx, b.live(bson.D{{Key: "filename", Value: name}}, now), opts)
	if err != nil {
		return nil, fmt.Errorf("find revisions of %q: %w", name, err)
	}
	var docs []bson.Raw
	if err := eachRaw(ctx, cur, func(raw bson.Raw) error {
		docs = append(docs, append(bson.Raw(nil), raw...))
		return nil
	}); err != nil {
		return nil, fmt.Errorf("find revisions of %q: %w", name, err)
	}
	return docs, nil
}

func stamps(docs []bson.Raw) []revisionStamp {
	out := make([]revisionStamp, len(docs))
	for i, d := range docs {
		out[i].id = d.Lookup("_id")
		if dt, ok := d.Lookup("uploadDate").DateTimeOK(); ok {
			out[i].uploadDate = time.UnixMilli(dt)
		}
	}
	return out
}

// visibleRevisions returns the revisions of name a reader sees at now,
// newest first: live ones the revision rules do not hide.
func (b *Bucket) visibleRevisions(ctx context.Context, name string, rules []Rule, now time.Time, projection bson.D) ([]bson.Raw, error) {
	docs, err := b.liveRevisions(ctx, name, now, projection)
	if err != nil {
		return nil, err
	}
	hidden := b.hiddenRevisions(rules, stamps(docs), now)
	if len(hidden) == 0 {
		return docs, nil
	}
	out := docs[:0:0]
	for i, d := range docs {
		if !hidden[i] {
			out = append(out, d)
		}
	}
	return out, nil
}

// findRevision is FindByName for a name whose older revisions rules hide:
// revisions are numbered among the visible ones.
func (b *Bucket) findRevision(ctx context.Context, name string, revision int, rules []Rule, now time.Time) (*File, error) {
	docs, err := b.visibleRevisions(ctx, name, rules, now, nil)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%w: %q in bucket %s", ErrFileNotFound, name, b.name)
	}
	i := len(docs) - 1 - revision // newest first
	if revision < 0 {
		i = -revision - 1
	}
	if i < 0 || i >= len(docs) {
		return nil, fmt.Errorf("%w: %q revision %d in bucket %s", ErrRevisionNotFound, name, revision, b.name)
	}
	return ParseFile(docs[i])
}

// hiddenRevision reports whether a revision rule hides f, a live file.
func (b *Bucket) hiddenRevision(ctx context.Context, f *File, now time.Time) (bool, error) {
	rules := b.revisionRules(f.Filename)
	if len(rules) == 0 {
		return false, nil
	}
	hidden, err := b.hiddenIDs(ctx, f.Filename, rules, now)
	if err != nil {
		return false, err
	}
	_, ok := hidden[idKey(f.Raw.Lookup("_id"))]
	return ok, nil
}

// hiddenIDs returns the live revisions of name that rules hide at now:
// their _ids by idKey.
func (b *Bucket) hiddenIDs(ctx context.Context, name string, rules []Rule, now time.Time) (map[string]any, error) {
	docs, err := b.liveRevisions(ctx, name, now, bson.D{{Key: "_id", Value: 1}, {Key: "uploadDate", Value: 1}})
	if err != nil {
		return nil, err
	}
	st := stamps(docs)
	out := map[string]any{}
	for i := range b.hiddenRevisions(rules, st, now) {
		out[idKey(st[i].id)] = rawID(docs[i])
	}
	return out, nil
}

// hiddenUnder returns the _ids of the live revisions of the names under
// prefix that the rules hide at now, or ErrTooManyFiles past limit. It
// reads the folder only when a revision rule is enabled.
func (b *Bucket) hiddenUnder(ctx context.Context, prefix string, now time.Time, limit int) ([]any, error) {
	if !b.hasRevisionRules() {
		return nil, nil
	}
	var ids []any
	err := b.eachRevisionGroup(ctx, prefix, now, func(name string, docs []bson.Raw) error {
		for i := range b.hiddenRevisions(b.revisionRules(name), stamps(docs), now) {
			if len(ids) == limit {
				return fmt.Errorf("%w: more than %d files start with %q", ErrTooManyFiles, limit, truncate(prefix, 64))
			}
			ids = append(ids, rawID(docs[i]))
		}
		return nil
	})
	return ids, err
}

// hasRevisionRules reports whether an enabled rule of b hides older
// revisions.
func (b *Bucket) hasRevisionRules() bool {
	for _, r := range b.settings.Lifecycle {
		if !r.Disabled && r.revisions() {
			return true
		}
	}
	return false
}

// expireIDs makes the files of ids expire at now: revisions the rules
// hide, before a rename takes them out of those rules' reach (a name no
// rule covers would show them again). Expired, they stay hidden under any
// name until the sweeper removes them.
func (b *Bucket) expireIDs(ctx context.Context, ids []any, now time.Time) error {
	// The embedded store answers an $in of up to 1,000 values from the
	// index (third_party/ferretdb PATCHES.md item 20).
	const perQuery = 1000
	for len(ids) > 0 {
		part := ids[:min(perQuery, len(ids))]
		ids = ids[len(part):]
		_, err := b.files.UpdateMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: part}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: FieldExpireAt, Value: bson.NewDateTimeFromTime(now)}}}})
		if err != nil {
			return fmt.Errorf("expire hidden revisions: %w", full(err))
		}
	}
	return nil
}

// dropHiddenRevisions leaves out of files (live files in listing order)
// the revisions rules hide. The revisions of the names under such rules
// come from one query per page (filename $in, through the files index on
// MongoDB and on the embedded store), not one per name.
func (b *Bucket) dropHiddenRevisions(ctx context.Context, files []*File, now time.Time) ([]*File, error) {
	var names bson.A
	seen := map[string]bool{}
	for _, f := range files {
		if !seen[f.Filename] && len(b.revisionRules(f.Filename)) > 0 {
			seen[f.Filename] = true
			names = append(names, f.Filename)
		}
	}
	if len(names) == 0 {
		return files, nil
	}
	hidden := map[string]bool{}
	// The embedded store answers an $in of up to 1,000 values from the
	// index (third_party/ferretdb PATCHES.md item 20).
	const perQuery = 1000
	for len(names) > 0 {
		part := names[:min(perQuery, len(names))]
		names = names[len(part):]
		filter := b.live(bson.D{{Key: "filename", Value: bson.D{{Key: "$in", Value: part}}}}, now)
		err := b.eachNameGroup(ctx, filter, false, func(name string, docs []bson.Raw) error {
			st := stamps(docs)
			for i := range b.hiddenRevisions(b.revisionRules(name), st, now) {
				hidden[idKey(st[i].id)] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := files[:0]
	for _, f := range files {
		if !hidden[idKey(f.Raw.Lookup("_id"))] {
			out = append(out, f)
		}
	}
	return out, nil
}

// revisionStats is Stats of a bucket with revision rules: one pass over
// its live files, name by name, that counts every file and its bytes but
// those the rules hide.
func (b *Bucket) revisionStats(ctx context.Context, now time.Time) (Stats, error) {
	var s Stats
	err := b.eachNameGroup(ctx, b.live(bson.D{}, now), true, func(name string, docs []bson.Raw) error {
		var hidden map[int]bool
		if len(docs) > 1 {
			hidden = b.hiddenRevisions(b.revisionRules(name), stamps(docs), now)
		}
		for i, d := range docs {
			if m, _ := d.Lookup(FieldDeleteMarker).BooleanOK(); !hidden[i] && !m {
				n, _ := d.Lookup("length").AsInt64OK()
				s.Files++
				s.Bytes += n
			}
		}
		return nil
	})
	return s, err
}

// eachRevisionGroup calls fn with the live revisions (_id, filename,
// uploadDate, length), newest first, of each name under prefix that has
// more than one.
func (b *Bucket) eachRevisionGroup(ctx context.Context, prefix string, now time.Time, fn func(name string, docs []bson.Raw) error) error {
	return b.eachNameGroup(ctx, b.live(prefixFilter(prefix), now), true, func(name string, docs []bson.Raw) error {
		if len(docs) > 1 {
			return fn(name, docs)
		}
		return nil
	})
}

// revisionFields are what deciding on revisions reads of files documents.
var revisionFields = bson.D{{Key: "_id", Value: 1}, {Key: "filename", Value: 1}, {Key: "uploadDate", Value: 1}, {Key: "length", Value: 1}, {Key: FieldDeleteMarker, Value: 1}}

// eachNameGroup calls fn with the files documents (revisionFields) that
// match filter, a name at a time, each name's newest first in the order
// FindByName numbers revisions in (uploadDate, then _id). With sorted the
// query asks for the files index's own order, {filename: 1, uploadDate:
// 1}, which MongoDB reads from the index instead of sorting the bucket in
// memory (where a large bucket would meet its sort's memory limit), and
// the names come one after the other; without it (a filter of a few
// names), documents are grouped in memory. Revisions of one instant are
// ordered by _id here.
func (b *Bucket) eachNameGroup(ctx context.Context, filter bson.D, sorted bool, fn func(name string, docs []bson.Raw) error) error {
	opts := options.Find().SetProjection(revisionFields)
	if sorted {
		opts.SetSort(filesIndex)
	}
	cur, err := b.files.Find(ctx, filter, opts)
	if err != nil {
		return fmt.Errorf("find revisions: %w", err)
	}
	groups := map[string][]bson.Raw{}
	var order []string
	var name string
	var group []bson.Raw
	flush := func() error {
		if group == nil {
			return nil
		}
		newestFirst(group)
		return fn(name, group)
	}
	err = eachRaw(ctx, cur, func(raw bson.Raw) error {
		n, _ := raw.Lookup("filename").StringValueOK()
		doc := append(bson.Raw(nil), raw...)
		if !sorted {
			if _, ok := groups[n]; !ok {
				order = append(order, n)
			}
			groups[n] = append(groups[n], doc)
			return nil
		}
		if n != name || group == nil {
			if err := flush(); err != nil {
				return err
			}
			name, group = n, nil
		}
		group = append(group, doc)
		return nil
	})
	if err != nil {
		return fmt.Errorf("find revisions: %w", err)
	}
	if sorted {
		return flush()
	}
	for _, n := range order {
		name, group = n, groups[n]
		if err := flush(); err != nil {
			return err
		}
	}
	return nil
}

// newestFirst orders the revisions of one name newest first: by
// uploadDate, then by _id, both descending.
func newestFirst(docs []bson.Raw) {
	sort.SliceStable(docs, func(i, j int) bool {
		di, _ := docs[i].Lookup("uploadDate").DateTimeOK()
		dj, _ := docs[j].Lookup("uploadDate").DateTimeOK()
		if di != dj {
			return di > dj
		}
		return compareIDs(docs[i].Lookup("_id"), docs[j].Lookup("_id")) > 0
	})
}

// compareIDs compares two _ids as MongoDB sorts them: by the rank of
// their type (numbers, strings, documents, arrays, binary data,
// ObjectIds, booleans, dates, ...), then by value: numbers by value
// whatever their type, strings and ObjectIds by their bytes. Other
// values of one type compare by their encoding, which orders them
// consistently (MongoDB may order them otherwise; they only break ties
// between revisions uploaded in the same millisecond).
func compareIDs(a, b bson.RawValue) int {
	if ra, rb := typeRank(a.Type), typeRank(b.Type); ra != rb {
		return ra - rb
	}
	switch a.Type {
	case bson.TypeInt32, bson.TypeInt64, bson.TypeDouble:
		x, _ := a.AsFloat64OK()
		y, _ := b.AsFloat64OK()
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case bson.TypeString:
		return strings.Compare(a.StringValue(), b.StringValue())
	}
	return bytes.Compare(a.Value, b.Value)
}

// typeRank is the place of a BSON type in MongoDB's order of values.
func typeRank(t bson.Type) int {
	switch t {
	case bson.TypeMinKey:
		return 0
	case bson.TypeNull, bson.TypeUndefined:
		return 1
	case bson.TypeInt32, bson.TypeInt64, bson.TypeDouble, bson.TypeDecimal128:
		return 2
	case bson.TypeString, bson.TypeSymbol:
		return 3
	case bson.TypeEmbeddedDocument:
		return 4
	case bson.TypeArray:
		return 5
	case bson.TypeBinary:
		return 6
	case bson.TypeObjectID:
		return 7
	case bson.TypeBoolean:
		return 8
	case bson.TypeDateTime:
		return 9
	case bson.TypeTimestamp:
		return 10
	case bson.TypeRegex:
		return 11
	case bson.TypeMaxKey:
		return 13
	}
	return 12
}
