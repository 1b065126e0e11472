package buckets

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
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
	removed, err := b.deleteAll(ctx, ids)
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
	return hidden[idKey(f.Raw.Lookup("_id"))], nil
}

// hiddenIDs returns the idKeys of the live revisions of name that rules
// hide at now.
func (b *Bucket) hiddenIDs(ctx context.Context, name string, rules []Rule, now time.Time) (map[string]bool, error) {
	docs, err := b.liveRevisions(ctx, name, now, bson.D{{Key: "_id", Value: 1}, {Key: "uploadDate", Value: 1}})
	if err != nil {
		return nil, err
	}
	st := stamps(docs)
	out := map[string]bool{}
	for i := range b.hiddenRevisions(rules, st, now) {
		out[idKey(st[i].id)] = true
	}
	return out, nil
}

// dropHiddenRevisions leaves out of files (live files in listing order)
// the revisions rules hide, with one query per name under such a rule.
func (b *Bucket) dropHiddenRevisions(ctx context.Context, files []*File, now time.Time) ([]*File, error) {
	out := files[:0]
	var name string
	var hidden map[string]bool
	for _, f := range files {
		rules := b.revisionRules(f.Filename)
		if len(rules) == 0 {
			out = append(out, f)
			continue
		}
		if hidden == nil || f.Filename != name {
			var err error
			if hidden, err = b.hiddenIDs(ctx, f.Filename, rules, now); err != nil {
				return nil, err
			}
			name = f.Filename
		}
		if !hidden[idKey(f.Raw.Lookup("_id"))] {
			out = append(out, f)
		}
	}
	return out, nil
}

// hiddenRevisionStats counts the live files revision rules hide, and their
// bytes: a pass over the names under each such rule.
func (b *Bucket) hiddenRevisionStats(ctx context.Context, now time.Time) (Stats, error) {
	var s Stats
	seen := map[string]bool{}
	for _, r := range b.settings.Lifecycle {
		if r.Disabled || !r.revisions() {
			continue
		}
		err := b.eachRevisionGroup(ctx, r.Prefix, now, func(name string, docs []bson.Raw) error {
			if seen[name] {
				return nil
			}
			seen[name] = true
			for i := range b.hiddenRevisions(b.revisionRules(name), stamps(docs), now) {
				n, _ := docs[i].Lookup("length").AsInt64OK()
				s.Files++
				s.Bytes += n
			}
			return nil
		})
		if err != nil {
			return Stats{}, err
		}
	}
	return s, nil
}

// eachRevisionGroup calls fn with the live revisions (_id, filename,
// uploadDate, length), newest first, of each name under prefix that has
// more than one.
func (b *Bucket) eachRevisionGroup(ctx context.Context, prefix string, now time.Time, fn func(name string, docs []bson.Raw) error) error {
	filter := b.live(prefixFilter(prefix), now)
	cur, err := b.files.Find(ctx, filter, options.Find().
		SetProjection(bson.D{{Key: "_id", Value: 1}, {Key: "filename", Value: 1}, {Key: "uploadDate", Value: 1}, {Key: "length", Value: 1}}).
		SetSort(bson.D{{Key: "filename", Value: 1}, {Key: "uploadDate", Value: -1}, {Key: "_id", Value: -1}}))
	if err != nil {
		return fmt.Errorf("find revisions under %q: %w", prefix, err)
	}
	var name string
	var group []bson.Raw
	flush := func() error {
		if len(group) > 1 {
			return fn(name, group)
		}
		return nil
	}
	err = eachRaw(ctx, cur, func(raw bson.Raw) error {
		n, _ := raw.Lookup("filename").StringValueOK()
		if n != name || group == nil {
			if err := flush(); err != nil {
				return err
			}
			name, group = n, nil
		}
		group = append(group, append(bson.Raw(nil), raw...))
		return nil
	})
	if err != nil {
		return fmt.Errorf("find revisions under %q: %w", prefix, err)
	}
	return flush()
}
