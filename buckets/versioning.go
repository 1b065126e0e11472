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

// Versioning is S3's versioning switch of a bucket, kept in its settings
// so that every door and gateway sees it. GridFS keeps every revision of a
// name whatever the switch says (revisions are S3 versions); what it
// changes is deleting by name and S3's "null" version:
//
//   - unset (a bucket whose versioning was never set): as GridFS always
//     did; deleting a name removes every revision.
//   - Enabled: deleting a name writes a delete marker (below) and keeps
//     every revision; each revision committed is marked FieldVersioned.
//   - Suspended: deleting a name writes a delete marker too; a revision
//     committed (or a marker written) replaces the name's null version.
//
// Once set, versioning can be suspended but never unset again, as in S3:
// delete markers exist only in buckets whose versioning was set.
//
// A delete marker is a files document of length 0 without chunks whose
// top-level FieldDeleteMarker is true, dated after the name's newest
// revision under the name's lease like any commit. A name whose newest
// revision is a delete marker is absent through every read of this
// package: FindByName returns a *DeleteMarkerError (ErrFileNotFound),
// Stat of the marker's _id too, and listings leave out the name's
// revisions and every marker, unless Query.DeleteMarkers asks for them
// (S3's ListObjectVersions). Removing the marker by _id (Delete) makes the
// revision before it current again. Other GridFS tools know nothing of
// markers: they see one as a 0-byte revision of the name.
//
// The null version of a name (S3's version id "null") is its newest
// revision not marked FieldVersioned: one written before versioning was
// enabled, or while it was suspended, or by another tool.

// Versioning statuses (Settings.Versioning).
const (
	VersioningEnabled   = "Enabled"
	VersioningSuspended = "Suspended"
)

// FieldDeleteMarker is the top-level files document field, gridfsd's own,
// that makes a revision a delete marker (true).
const FieldDeleteMarker = "deleteMarker"

// FieldVersioned is the top-level files document field, gridfsd's own,
// true on the revisions committed while the bucket's versioning was
// Enabled: those have a version id of their own (their _id); the newest
// revision of a name without it is the name's null version.
const FieldVersioned = "versioned"

// notMarker is the clause of a filter that leaves delete markers out.
var notMarker = bson.E{Key: FieldDeleteMarker, Value: bson.D{{Key: "$ne", Value: true}}}

// ErrInvalidVersioning is a versioning status other than Enabled and
// Suspended.
var ErrInvalidVersioning = errors.New("invalid versioning status")

// ErrDeleteMarker is what a *DeleteMarkerError is, besides ErrFileNotFound.
var ErrDeleteMarker = errors.New("delete marker")

// DeleteMarkerError is the error of a read that met a delete marker: the
// name's newest revision (the name is deleted), or the revision asked for
// by _id. It is ErrFileNotFound and ErrDeleteMarker.
type DeleteMarkerError struct {
	Marker *File
}

func (e *DeleteMarkerError) Error() string {
	return fmt.Sprintf("%v: %q is deleted (delete marker %s)", ErrFileNotFound, e.Marker.Filename, FormatID(e.Marker.ID))
}

// Is makes a DeleteMarkerError both ErrFileNotFound and ErrDeleteMarker.
func (e *DeleteMarkerError) Is(target error) bool {
	return target == ErrFileNotFound || target == ErrDeleteMarker
}

// Versioned reports whether versioning was ever set on the bucket: only
// then can it hold delete markers.
func (s Settings) Versioned() bool { return s.Versioning != "" }

// SetVersioning sets the versioning status of bucket name (Enabled or
// Suspended), leaving its other settings as they are. It returns
// ErrInvalidBucketName or ErrInvalidVersioning, having written nothing.
// Other gateways see the change within SettingsCacheTTL.
func (d *DB) SetVersioning(ctx context.Context, name, status string) (*Bucket, error) {
	if err := CheckBucketName(name); err != nil {
		return nil, err
	}
	if status != VersioningEnabled && status != VersioningSuspended {
		return nil, fmt.Errorf("%w: %q (Enabled or Suspended)", ErrInvalidVersioning, truncate(status, 32))
	}
	b, err := d.Bucket(ctx, name)
	if err != nil {
		return nil, err
	}
	return d.saveSettings(ctx, b, bson.D{{Key: "versioning", Value: status}, {Key: "updated", Value: time.Now()}})
}

// newestRevisions returns the newest revision of name a reader sees (nil
// when there is none or the name is deleted) and the newest revision
// stored, delete marker or not, which a commit dates itself after.
func (b *Bucket) newestRevisions(ctx context.Context, name string) (cur, top *File, err error) {
	top, err = b.findByName(ctx, name, -1)
	if errors.Is(err, ErrFileNotFound) || errors.Is(err, ErrRevisionNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if top.DeleteMarker {
		return nil, top, nil
	}
	return top, top, nil
}

// versionFields are the fields a revision committed now gets in b: the
// FieldVersioned mark while versioning is Enabled.
func (b *Bucket) versionFields() bson.D {
	if b.settings.Versioning == VersioningEnabled {
		return bson.D{{Key: FieldVersioned, Value: true}}
	}
	return nil
}

// replacedNull is the revision a commit of name replaces while b's
// versioning is Suspended: the name's null version, or nil. The caller
// holds the name's lease.
func (b *Bucket) replacedNull(ctx context.Context, name string) (*File, error) {
	if b.settings.Versioning != VersioningSuspended {
		return nil, nil
	}
	return b.nullVersion(ctx, name)
}

// nullVersion is the newest live revision of name not marked
// FieldVersioned (a delete marker too), or nil.
func (b *Bucket) nullVersion(ctx context.Context, name string) (*File, error) {
	filter := b.live(bson.D{{Key: "filename", Value: name}, {Key: FieldVersioned, Value: bson.D{{Key: "$ne", Value: true}}}}, time.Now())
	raw, err := b.files.FindOne(ctx, filter, options.FindOne().SetSort(bson.D{{Key: "uploadDate", Value: -1}, {Key: "_id", Value: -1}})).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find null version of %q: %w", name, err)
	}
	return ParseFile(raw)
}

// NullVersion returns the null version of name (S3's version id "null"):
// its newest revision not marked FieldVersioned; in a bucket whose
// versioning was never set, its newest revision. It returns
// ErrFileNotFound when there is none, and a *DeleteMarkerError when it is
// a delete marker.
func (b *Bucket) NullVersion(ctx context.Context, name string) (*File, error) {
	if !b.settings.Versioned() {
		return b.FindByName(ctx, name, -1)
	}
	f, err := b.nullVersion(ctx, name)
	if err != nil {
		return nil, err
	}
	if f == nil || b.expired(f, time.Now()) {
		return nil, fmt.Errorf("%w: %q has no null version in bucket %s", ErrFileNotFound, name, b.name)
	}
	if hidden, err := b.hiddenRevision(ctx, f, time.Now()); err != nil || hidden {
		return nil, errors.Join(err, fmt.Errorf("%w: %q has no null version in bucket %s", ErrFileNotFound, name, b.name))
	}
	if f.DeleteMarker {
		return nil, &DeleteMarkerError{Marker: f}
	}
	return f, nil
}

// IsNullVersion reports whether f is the null version of its name in b,
// among revs, the revisions of its name (any order): versioning was set,
// f is not marked FieldVersioned and no revision of revs that is not
// either is newer.
func (b *Bucket) IsNullVersion(f *File, revs []*File) bool {
	if !b.settings.Versioned() || f.Versioned {
		return false
	}
	for _, g := range revs {
		if g != f && !g.Versioned && (g.UploadDate.After(f.UploadDate) ||
			g.UploadDate.Equal(f.UploadDate) && compareIDs(g.Raw.Lookup("_id"), f.Raw.Lookup("_id")) > 0) {
			return false
		}
	}
	return true
}

// MarkDeleted writes a delete marker for name, as S3's DeleteObject does
// in a bucket whose versioning was set, if cond holds for the name's
// newest revision; a name without revisions gets one too. It returns the
// marker. While versioning is Suspended the marker replaces the name's
// null version. It returns ErrNotVersioned in a bucket whose versioning
// was never set, ErrPreconditionFailed for a failed condition.
func (b *Bucket) MarkDeleted(ctx context.Context, name string, cond Conditions) (*File, error) {
	return b.markDeleted(ctx, name, cond, true)
}

// ErrNotVersioned is a versioned operation in a bucket whose versioning
// was never set.
var ErrNotVersioned = errors.New("the bucket's versioning was never set")

// markDeleted is MarkDeleted; without always, a name without a revision
// a reader sees is ErrFileNotFound (the HTTP API's and WebDAV's delete).
func (b *Bucket) markDeleted(ctx context.Context, name string, cond Conditions, always bool) (*File, error) {
	if !b.settings.Versioned() {
		return nil, fmt.Errorf("%w: bucket %s", ErrNotVersioned, b.name)
	}
	if err := CheckFilename(name); err != nil {
		return nil, err
	}
	if err := b.ensureIndexes(ctx); err != nil {
		return nil, full(err)
	}
	var drop []any
	defer func() {
		// After the lease is given back (deferred later, run first).
		for _, id := range drop {
			b.dropChunks(ctx, id)
		}
	}()
	ls, err := b.acquireLeases(ctx, name)
	if err != nil {
		return nil, err
	}
	defer ls.release(ctx)
	cur, top, err := b.newestRevisions(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := cond.Check(cur); err != nil {
		return nil, err
	}
	if cur == nil && !always {
		return nil, fmt.Errorf("%w: %q in bucket %s", ErrFileNotFound, name, b.name)
	}
	null, err := b.replacedNull(ctx, name)
	if err != nil {
		return nil, err
	}
	doc := bson.D{
		{Key: "_id", Value: bson.NewObjectID()},
		{Key: "length", Value: int64(0)},
		{Key: "chunkSize", Value: int32(b.ChunkSize())},
		{Key: "uploadDate", Value: bson.NewDateTimeFromTime(after(top))},
		{Key: "filename", Value: name},
		{Key: FieldDeleteMarker, Value: true},
	}
	doc = append(doc, b.versionFields()...)
	raw, err := bson.Marshal(doc)
	if err != nil {
		return nil, err
	}
	if _, err := b.files.InsertOne(ctx, raw); err != nil {
		return nil, fmt.Errorf("write delete marker of %q: %w", name, full(err))
	}
	if null != nil {
		switch err := b.removeFilesDoc(ctx, null); {
		case errors.Is(err, errRenamed): // moved away meanwhile: it stays
		case err != nil:
			return nil, err
		default:
			drop = append(drop, null.ID)
		}
	}
	return ParseFile(raw)
}

// dropDeleted leaves out of files (live files in listing order) every
// delete marker and every revision of a name whose newest revision is a
// delete marker. Only names with a marker cost a second query: one finds
// which names of the page have markers, one their newest revisions.
func (b *Bucket) dropDeleted(ctx context.Context, files []*File, now time.Time) ([]*File, error) {
	var names bson.A
	seen := map[string]bool{}
	for _, f := range files {
		if !seen[f.Filename] {
			seen[f.Filename] = true
			names = append(names, f.Filename)
		}
	}
	deleted := map[string]bool{}
	const perQuery = 1000 // as dropHiddenRevisions
	for len(names) > 0 {
		part := names[:min(perQuery, len(names))]
		names = names[len(part):]
		filter := b.live(bson.D{{Key: "filename", Value: bson.D{{Key: "$in", Value: part}}}, {Key: FieldDeleteMarker, Value: true}}, now)
		cur, err := b.files.Find(ctx, filter, options.Find().SetProjection(bson.D{{Key: "filename", Value: 1}}))
		if err != nil {
			return nil, fmt.Errorf("find delete markers: %w", err)
		}
		var marked bson.A
		have := map[string]bool{}
		if err := eachRaw(ctx, cur, func(raw bson.Raw) error {
			if n, ok := raw.Lookup("filename").StringValueOK(); ok && !have[n] {
				have[n] = true
				marked = append(marked, n)
			}
			return nil
		}); err != nil {
			return nil, fmt.Errorf("find delete markers: %w", err)
		}
		if len(marked) == 0 {
			continue
		}
		err = b.eachNameGroup(ctx, b.live(bson.D{{Key: "filename", Value: bson.D{{Key: "$in", Value: marked}}}}, now), false, func(name string, docs []bson.Raw) error {
			if m, _ := docs[0].Lookup(FieldDeleteMarker).BooleanOK(); m {
				deleted[name] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := files[:0]
	for _, f := range files {
		if !f.DeleteMarker && !deleted[f.Filename] {
			out = append(out, f)
		}
	}
	return out, nil
}

// loneMarker reports whether the newest of docs, the live revisions of
// name (revisionFields, newest first), is a delete marker and the only
// revision a reader could reach, every older one hidden by a rule.
func (b *Bucket) loneMarker(name string, docs []bson.Raw, now time.Time) bool {
	if len(docs) == 0 {
		return false
	}
	if m, _ := docs[0].Lookup(FieldDeleteMarker).BooleanOK(); !m {
		return false
	}
	reachable := len(docs)
	if len(docs) > 1 {
		reachable -= len(b.hiddenRevisions(b.revisionRules(name), stamps(docs), now))
	}
	return reachable == 1
}

// loneMarkerBatch finds up to n expired object delete markers (S3's
// ExpiredObjectDeleteMarker, Rule.ExpireDeleteMarkers): delete markers
// that are the only revision of their name a reader could reach, every
// older one removed or hidden by a rule. Removing one changes nothing a
// reader sees. Markers are found first (few, in buckets that have them),
// then the revisions of their names.
func (b *Bucket) loneMarkerBatch(ctx context.Context, now time.Time, n int) ([]candidate, error) {
	var out []candidate
	seen := map[string]bool{}
	for _, r := range b.settings.Lifecycle {
		if r.Disabled || !r.ExpireDeleteMarkers || len(out) >= n {
			continue
		}
		filter := b.live(append(prefixFilter(r.Prefix), bson.E{Key: FieldDeleteMarker, Value: true}), now)
		cur, err := b.files.Find(ctx, filter, options.Find().SetProjection(bson.D{{Key: "filename", Value: 1}}).SetLimit(int64(MaxLimit)))
		if err != nil {
			return nil, fmt.Errorf("sweep: find delete markers: %w", err)
		}
		var names bson.A
		if err := eachRaw(ctx, cur, func(raw bson.Raw) error {
			if name, ok := raw.Lookup("filename").StringValueOK(); ok && !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
			return nil
		}); err != nil {
			return nil, fmt.Errorf("sweep: find delete markers: %w", err)
		}
		if len(names) == 0 {
			continue
		}
		err = b.eachNameGroup(ctx, b.live(bson.D{{Key: "filename", Value: bson.D{{Key: "$in", Value: names}}}}, now), false, func(name string, docs []bson.Raw) error {
			if len(out) >= n {
				return nil
			}
			if !b.loneMarker(name, docs, now) {
				return nil
			}
			var id any
			if err := docs[0].Lookup("_id").Unmarshal(&id); err != nil {
				return nil
			}
			dt, _ := docs[0].Lookup("uploadDate").DateTimeOK()
			out = append(out, candidate{id: id, at: time.UnixMilli(dt), revision: true, marker: true, name: name})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
