package buckets

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// FolderPage is one page of a folder listing, in Find's order: the files
// directly under the query's prefix (every revision), and the folders
// below it, each once. Next is empty on the last page.
type FolderPage struct {
	Files []*File
	// Prefixes are the folders: the query's prefix followed by what a name
	// holds up to and including the first delimiter after it.
	Prefixes []string
	Next     string
}

// FindFolder lists one level of the tree the delimiter makes of the names
// that match q, as object stores list with a delimiter: a name with the
// delimiter after q.Prefix is rolled up into the folder it is in. Files
// and folders both count towards q.Limit. A folder is passed over with a
// new range query that starts past its last possible name, so a page
// costs a query per folder on it, however many files each holds. q.After
// takes the Next of a previous FindFolder page (not of Find). It returns
// ErrInvalidQuery for an empty delimiter and as Find does.
func (b *Bucket) FindFolder(ctx context.Context, q Query, delimiter string) (*FolderPage, error) {
	if delimiter == "" {
		return nil, fmt.Errorf("%w: empty delimiter", ErrInvalidQuery)
	}
	limit, err := q.pageLimit()
	if err != nil {
		return nil, err
	}
	inner := q
	inner.After = ""
	// skip is the folder listed last: its names are passed over, by the
	// range query when PrefixEnd can bound it, else one by one.
	skip := ""
	startAfter := func(folder string) {
		skip = folder
		inner.After = ""
		if end, ok := PrefixEnd(folder); ok {
			inner.From = max(q.From, end)
		} else {
			inner.From = max(q.From, folder)
		}
	}
	if q.After != "" {
		c, err := decodeFolderCursor(q.After)
		if err != nil {
			return nil, err
		}
		if c.Folder != "" {
			startAfter(c.Folder)
		} else {
			inner.After = c.File
		}
	}

	page := &FolderPage{Files: []*File{}, Prefixes: []string{}}
	last := folderCursor{} // the entry listed last, where the next page starts
	for n := 0; ; {
		inner.Limit = min(MaxLimit, limit-n+1)
		if skip != "" && strings.HasPrefix(inner.From, skip) {
			inner.Limit = MaxLimit // reading through a folder that PrefixEnd could not bound
		}
		found, err := b.Find(ctx, inner)
		if err != nil {
			return nil, err
		}
		restarted := false
		for _, f := range found.Files {
			if skip != "" && strings.HasPrefix(f.Filename, skip) {
				continue
			}
			folder := ""
			if rest, ok := strings.CutPrefix(f.Filename, q.Prefix); ok {
				if i := strings.Index(rest, delimiter); i >= 0 {
					folder = f.Filename[:len(q.Prefix)+i+len(delimiter)]
				}
			}
			if n == limit {
				page.Next = last.encode()
				return page, nil
			}
			n++
			if folder == "" {
				page.Files = append(page.Files, f)
				last = folderCursor{File: encodeCursor(f)}
				continue
			}
			page.Prefixes = append(page.Prefixes, folder)
			last = folderCursor{Folder: folder}
			startAfter(folder)
			if strings.HasPrefix(inner.From, folder) {
				continue // no bound: read on, passing over the folder's names
			}
			restarted = true
			break
		}
		if restarted {
			continue
		}
		if found.Next == "" {
			return page, nil
		}
		inner.After = found.Next
	}
}

// folderCursor is where a folder listing continues: after a file (Find's
// cursor) or after a folder.
type folderCursor struct {
	File   string `bson:"a,omitempty"`
	Folder string `bson:"p,omitempty"`
}

func (c folderCursor) encode() string { return encodeToken(c) }

func decodeFolderCursor(s string) (folderCursor, error) {
	var c folderCursor
	err := decodeToken(s, &c)
	if err != nil || (c.File == "") == (c.Folder == "") {
		return c, fmt.Errorf("%w: cursor is not one this server issued for a folder listing", ErrInvalidQuery)
	}
	return c, nil
}

// EachInFolder calls fn for one level of the tree the delimiter makes of
// the names under prefix, as FindFolder lists it, without pages: each file
// directly in the folder (every revision, in Find's order) with folder
// "", and each folder below it once, where its first name sorts, with f
// nil. It reads with one cursor, streaming, and starts a new query only
// to pass over a folder it has listed, so a folder of files alone is one
// query however many it holds (a client listing a folder wants all of it,
// and a page of a thousand costs the embedded store a whole scan). In a
// versioned bucket a folder is reported only if Find lists a name in it
// (HasPrefix), which costs a short listing per folder, as FindFolder
// leaves out a folder whose names were all deleted. It returns
// ErrInvalidQuery for an empty delimiter, and what fn returns.
func (b *Bucket) EachInFolder(ctx context.Context, prefix, delimiter string, fn func(f *File, folder string) error) error {
	if delimiter == "" {
		return fmt.Errorf("%w: empty delimiter", ErrInvalidQuery)
	}
	now := time.Now()
	from, skip := "", ""
	// Files directly in the folder are passed on in groups of whole names,
	// so that the revisions lifecycle rules hide are found with one query
	// per group (dropHiddenRevisions), not one per name.
	const groupFiles = 256
	var group []*File
	flush := func() error {
		files, err := b.dropHiddenRevisions(ctx, group, now)
		if err == nil && b.settings.Versioned() {
			files, err = b.dropDeleted(ctx, files, now)
		}
		group = group[:0]
		if err != nil {
			return err
		}
		for _, f := range files {
			if err := fn(f, ""); err != nil {
				return err
			}
		}
		return nil
	}
	for {
		filter, err := b.filter(ctx, Query{Prefix: prefix, From: from})
		if err != nil {
			return err
		}
		cur, err := b.files.Find(ctx, b.live(filter, now), options.Find().SetSort(listingOrder))
		if err != nil {
			return queryError(err)
		}
		restart, err := func() (bool, error) {
			defer closeCursor(ctx, cur)
			for cur.Next(ctx) {
				raw := append(bson.Raw(nil), cur.Current...)
				f, err := listedFile(raw)
				if err != nil {
					b.db.logger().WarnContext(ctx, "listing skips a files document no GridFS reader can use",
						"bucket", b.name, "_id", FormatID(rawID(raw)), "error", err)
					continue
				}
				if skip != "" && strings.HasPrefix(f.Filename, skip) {
					continue // reading through a folder PrefixEnd could not bound
				}
				rest := strings.TrimPrefix(f.Filename, prefix)
				i := strings.Index(rest, delimiter)
				if i < 0 {
					if len(group) >= groupFiles && group[len(group)-1].Filename != f.Filename {
						if err := flush(); err != nil {
							return false, err
						}
					}
					group = append(group, f)
					continue
				}
				if err := flush(); err != nil {
					return false, err
				}
				folder := prefix + rest[:i+len(delimiter)]
				// In a versioned bucket a folder whose names were all
				// deleted is no folder: Find lists nothing in it.
				show := true
				if b.settings.Versioned() {
					if show, err = b.HasPrefix(ctx, folder); err != nil {
						return false, err
					}
				}
				if show {
					if err := fn(nil, folder); err != nil {
						return false, err
					}
				}
				skip = folder
				if end, ok := PrefixEnd(folder); ok {
					from = end
					return true, nil
				}
			}
			if err := cur.Err(); err != nil {
				return false, queryError(err)
			}
			return false, nil
		}()
		if err != nil {
			return err
		}
		if !restart {
			return flush()
		}
	}
}
