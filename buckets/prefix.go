package buckets

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// Folders are the names that share a prefix ending in "/" (see FindFolder).
// These operations act on a whole folder, every revision of every name in
// it, as file managers and WebDAV clients move and delete folders.

// ErrTooManyFiles is a folder operation refused before it changed anything
// because the folder holds more files than one request may move.
var ErrTooManyFiles = errors.New("folder holds too many files")

// MaxFolderRename is the most files RenamePrefix moves in one call: its plan
// is held in memory, and a rename that fails half way is undone file by
// file.
const MaxFolderRename = 50000

// RenamePrefixTimeout bounds a folder rename, and again its undo. The
// rename runs on a context of its own, so that a client going away never
// leaves a folder half renamed.
var RenamePrefixTimeout = 2 * time.Minute

// renameBatch is how many renames go to the store in one round trip: few
// enough that a rename found too slow stops soon, with little to undo.
const renameBatch = 50

// HasPrefix reports whether any file's name starts with prefix: one live
// files document in the prefix's range, in no order, so the store stops
// at the first it finds (a folder of 10,000 files is not read and sorted
// to learn that it exists). The newest revision of a name is never one
// that lifecycle rules hide, so any live document will do, except in a
// versioned bucket, where a name whose newest revision is a delete marker
// is not listed: there it asks Find, following its pages until one lists
// a file, so that a folder whose names were all deleted is gone here as
// from every listing.
func (b *Bucket) HasPrefix(ctx context.Context, prefix string) (bool, error) {
	if b.settings.Versioned() {
		// The first page is one name's worth, what a name not deleted
		// needs; each that comes back empty doubles the next, so a
		// folder of many deleted names costs a few pages, not one per
		// name.
		q := Query{Prefix: prefix, Limit: 1}
		for {
			page, err := b.Find(ctx, q)
			switch {
			case err != nil:
				return false, err
			case len(page.Files) > 0:
				return true, nil
			case page.Next == "":
				return false, nil
			}
			q.After = page.Next
			q.Limit = min(2*q.Limit, MaxLimit)
		}
	}
	filter, err := b.filter(ctx, Query{Prefix: prefix})
	if err != nil {
		return false, err
	}
	err = b.files.FindOne(ctx, b.live(filter, time.Now()), options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 1}})).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	if err != nil {
		return false, queryError(err)
	}
	return true, nil
}

// RenamePrefix gives every file whose name starts with old (every revision)
// the name with new in its place, and returns how many files it renamed. It
// plans first and changes nothing when a new name is invalid
// (ErrInvalidFilename), the folder holds more than MaxFolderRename files
// (ErrTooManyFiles) or nothing starts with old (ErrFileNotFound). A store
// failure half way undoes the renames already made, so the folder is moved
// whole or not at all, unless the undo fails too, which the error then says.
// Files another client writes under old meanwhile stay there. Revisions
// the bucket's rules hide are not moved: they expire where they are.
func (b *Bucket) RenamePrefix(ctx context.Context, old, new string) (int, error) {
	if old == "" || new == "" {
		return 0, fmt.Errorf("%w: empty folder name", ErrInvalidFilename)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RenamePrefixTimeout)
	defer cancel()
	type move struct {
		id       any
		from, to string
	}
	var plan []move
	err := b.Each(ctx, Query{Prefix: old, Limit: MaxLimit}, func(f *File) error {
		if len(plan) == MaxFolderRename {
			return fmt.Errorf("%w: more than %d files start with %q; move it in parts", ErrTooManyFiles, MaxFolderRename, truncate(old, 64))
		}
		to := new + strings.TrimPrefix(f.Filename, old)
		if err := CheckFilename(to); err != nil {
			return err
		}
		plan = append(plan, move{f.ID, f.Filename, to})
		return nil
	})
	if err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded)) {
		return 0, fmt.Errorf("%w: listing the files to rename did not finish within %s (move the folder in smaller parts); nothing was renamed", ErrTooManyFiles, RenamePrefixTimeout)
	}
	if err != nil {
		return 0, err
	}
	if len(plan) == 0 {
		return 0, fmt.Errorf("%w: nothing starts with %q in bucket %s", ErrFileNotFound, old, b.name)
	}
	// The listing leaves out the revisions the rules hide. Left under
	// their names, they would be those names' only revisions, visible
	// again; moved, out of their rules' reach perhaps. They expire now,
	// before any name moves, and wait for the sweeper where they are.
	now := time.Now()
	hidden, err := b.hiddenUnder(ctx, old, now, MaxFolderRename-len(plan))
	if err == nil {
		err = b.expireIDs(ctx, hidden, now)
	}
	if err != nil {
		return 0, fmt.Errorf("rename %q to %q: %w; nothing was renamed", old, new, err)
	}
	// One update per file, by _id alone: the filter every store answers
	// from its _id index (the embedded store pushes down only that one).
	rename := func(ctx context.Context, batch []move, undo bool) error {
		models := make([]mongo.WriteModel, 0, len(batch))
		for _, m := range batch {
			to := m.to
			if undo {
				to = m.from
			}
			models = append(models, mongo.NewUpdateOneModel().
				SetFilter(bson.D{{Key: "_id", Value: m.id}}).
				SetUpdate(bson.D{{Key: "$set", Value: bson.D{{Key: "filename", Value: to}}}}))
		}
		_, err := b.files.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
		return err
	}
	start := time.Now()
	for i := 0; i < len(plan); i += renameBatch {
		batch := plan[i:min(i+renameBatch, len(plan))]
		err := rename(ctx, batch, false)
		done := i + len(batch)
		if err == nil && done < len(plan) {
			// A store that renames too slowly to finish in time is told
			// apart early, while the undo is short.
			elapsed := time.Since(start)
			if projected := elapsed * time.Duration(len(plan)) / time.Duration(done); projected > RenamePrefixTimeout {
				err = fmt.Errorf("%w: renaming %d files would take about %s at this store's pace (%d in %s), more than %s (move the folder in smaller parts)",
					ErrTooManyFiles, len(plan), projected.Round(time.Second), done, elapsed.Round(time.Millisecond), RenamePrefixTimeout)
			}
		}
		if err == nil {
			continue
		}
		switch {
		case errors.Is(err, ErrTooManyFiles):
		case errors.Is(err, context.DeadlineExceeded), errors.Is(ctx.Err(), context.DeadlineExceeded):
			err = fmt.Errorf("%w: renaming %d files did not finish within %s (move the folder in smaller parts)", ErrTooManyFiles, len(plan), RenamePrefixTimeout)
		default:
			err = fmt.Errorf("rename %q to %q: %w", old, new, full(err))
		}
		// Undo what was done, on a context of its own: the batch that
		// failed may have been applied in part, and an undo of a
		// rename that did not happen sets the name the file has.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RenamePrefixTimeout)
		defer cancel()
		for j := 0; j <= i; j += renameBatch {
			if uerr := rename(uctx, plan[j:min(j+renameBatch, len(plan))], true); uerr != nil {
				return 0, fmt.Errorf("%w; undoing it failed too, so files starting with %q may now start with %q: %v", err, old, new, uerr)
			}
		}
		return 0, fmt.Errorf("%w; nothing was renamed", err)
	}
	return len(plan), nil
}

// ReplacePrefix moves the folder old onto the folder new as RenamePrefix
// does, and only once the move succeeded removes what new held before it
// (each of those files only while it keeps its name, so never a moved
// one), so that a move that fails or is refused loses nothing (WebDAV's
// MOVE of a folder with Overwrite: T, whose destination webdav would
// delete first). It returns how many files it moved, and the errors of
// RenamePrefix; more than MaxFolderRename files already in new is
// ErrTooManyFiles, having changed nothing.
func (b *Bucket) ReplacePrefix(ctx context.Context, old, new string) (int, error) {
	before, err := b.ListPrefix(ctx, new, MaxFolderRename)
	if err != nil {
		return 0, err
	}
	n, err := b.RenamePrefix(ctx, old, new)
	if err != nil {
		return 0, err
	}
	if _, err := b.deleteAll(ctx, before); err != nil {
		return n, fmt.Errorf("moved %q to %q, but some of the files %q held before stay: %w", old, new, new, err)
	}
	return n, nil
}

// ListPrefix returns every file whose name starts with prefix, every
// revision, or ErrTooManyFiles when there are more than limit.
func (b *Bucket) ListPrefix(ctx context.Context, prefix string, limit int) ([]*File, error) {
	if prefix == "" {
		return nil, fmt.Errorf("%w: empty folder name", ErrInvalidFilename)
	}
	var files []*File
	err := b.Each(ctx, Query{Prefix: prefix, Limit: MaxLimit}, func(f *File) error {
		if len(files) == limit {
			return fmt.Errorf("%w: more than %d files start with %q", ErrTooManyFiles, limit, truncate(prefix, 64))
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

// DeleteListed removes the files listed (ListPrefix, Find), each only
// while it still has the name it was listed under, holding that name's
// lease, and returns how many it removed: a file another client deleted or
// moved meanwhile stays as it is, and is no error.
func (b *Bucket) DeleteListed(ctx context.Context, files []*File) (int, error) {
	return b.deleteAll(ctx, files)
}

// DeletePrefix removes every file whose name starts with prefix, every
// revision, each files document before its chunks, and returns how many it
// removed. A file another client deleted meanwhile is not an error; one
// moved out of the folder meanwhile (RenamePrefix) stays.
func (b *Bucket) DeletePrefix(ctx context.Context, prefix string) (int, error) {
	if prefix == "" {
		return 0, fmt.Errorf("%w: empty folder name", ErrInvalidFilename)
	}
	removed := 0
	for {
		page, err := b.Find(ctx, Query{Prefix: prefix, Limit: MaxLimit})
		if err != nil {
			return removed, err
		}
		if len(page.Files) == 0 {
			return removed, nil
		}
		n, err := b.deleteAll(ctx, page.Files)
		removed += n
		if err != nil {
			return removed, err
		}
		if n == 0 && page.Next == "" {
			return removed, nil // only files someone else removed meanwhile
		}
	}
}
