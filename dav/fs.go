package dav

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"golang.org/x/net/webdav"
)

// fileSystem is GridFS as golang.org/x/net/webdav sees it: the buckets of
// a database as folders, in each the names as a tree of folders split at
// "/". Every read and write goes through package buckets, so its rules
// (names, limits, expiry, preconditions) hold here as on every door.
type fileSystem struct {
	s *Server
}

var _ webdav.FileSystem = (*fileSystem)(nil)

func (fsys *fileSystem) bucket(ctx context.Context, name string) (*buckets.Bucket, error) {
	return fsys.s.cfg.DB.Bucket(ctx, name)
}

// Stat describes the file, folder or bucket at name.
func (fsys *fileSystem) Stat(ctx context.Context, name string) (os.FileInfo, error) {
	q := requestOf(ctx)
	l, err := parseLoc(name)
	if err != nil {
		return nil, q.fail(err)
	}
	fi, err := fsys.stat(ctx, l)
	if err != nil {
		return nil, q.fail(err)
	}
	return fi, nil
}

func (fsys *fileSystem) stat(ctx context.Context, l loc) (*fileInfo, error) {
	q := requestOf(ctx)
	// webdav asks for the path a request names several times, and for
	// each entry of a listing, which the listing remembered.
	key := l.path()
	if l.slash && l.name != "" {
		key += "/" // a folder only, where "name" could be a file
	}
	if fi := q.cached(key); fi != nil {
		return fi, nil
	}
	switch {
	case l.bucket == "":
		return dirInfo("/"), nil
	case l.name == "":
		ok, err := fsys.s.cfg.DB.Exists(ctx, l.bucket)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, notExist("stat", l)
		}
		return dirInfo(l.bucket), nil
	}
	b, err := fsys.bucket(ctx, l.bucket)
	if err != nil {
		return nil, err
	}
	if !l.slash {
		f, err := b.FindByName(ctx, l.name, -1)
		if err == nil && q.objectGrant && !b.FileReadable(f, q.principal != "anonymous") {
			// Admitted by the newest revision's ACL: one written since
			// grants nothing.
			return nil, fmt.Errorf("%w: %q is not public", auth.ErrForbidden, l.name)
		}
		if err == nil {
			fi := fileInfoOf(l.base(), f)
			q.remember(key, fi)
			return fi, nil
		}
		if !errors.Is(err, buckets.ErrFileNotFound) {
			return nil, err
		}
	}
	// A folder is its marker file, or any name in it: two index lookups,
	// however many files the folder holds.
	fi := dirInfo(l.base())
	marker, err := b.FindByName(ctx, l.folder(), -1)
	switch {
	case err == nil:
		fi.marker = marker // its properties are the folder's
	case !errors.Is(err, buckets.ErrFileNotFound):
		return nil, err
	default:
		ok, err := b.HasPrefix(ctx, l.folder())
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, notExist("stat", l)
		}
	}
	q.remember(key, fi)
	return fi, nil
}

// exists reports whether l names a folder, a file or a bucket.
func (fsys *fileSystem) exists(ctx context.Context, l loc) (bool, error) {
	_, err := fsys.stat(ctx, l)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// checkParent refuses to create l in a folder or bucket that does not
// exist (RFC 4918: 409 Conflict), as a file system would.
func (fsys *fileSystem) checkParent(ctx context.Context, l loc) error {
	p := l.parent()
	fi, err := fsys.stat(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return notExist("create", p)
	}
	if err != nil {
		return err
	}
	if !fi.dir {
		return notExist("create", p)
	}
	return nil
}

// Mkdir creates a bucket, or a folder as a zero-length file "name/", the
// convention of S3 tools.
func (fsys *fileSystem) Mkdir(ctx context.Context, name string, _ os.FileMode) error {
	q := requestOf(ctx)
	l, err := parseLoc(name)
	if err != nil {
		return q.fail(err)
	}
	return q.fail(fsys.mkdir(ctx, l))
}

func (fsys *fileSystem) mkdir(ctx context.Context, l loc) error {
	if l.bucket == "" {
		return fs.ErrExist
	}
	// A file of that name is in the way too, however the path ends; but
	// a folder of a copy over a folder gets a new marker, the old one
	// going with the rest of what it held (see removeAll).
	if q := requestOf(ctx); q.copyOver == nil || (l.path() != q.copyOverAt.path() && !l.within(q.copyOverAt)) {
		plain := l
		plain.slash = false
		ok, err := fsys.exists(ctx, plain)
		if err != nil {
			return err
		}
		if ok {
			return &fs.PathError{Op: "mkdir", Path: l.path(), Err: fs.ErrExist}
		}
	}
	if l.name == "" {
		// The creating token owns the bucket (what a "$owned" token
		// reaches), as through S3 and the HTTP API.
		_, err := fsys.s.cfg.DB.Create(ctx, l.bucket, buckets.Settings{Owner: requestOf(ctx).principal})
		return err
	}
	if err := fsys.checkParent(ctx, l); err != nil {
		return err
	}
	b, err := fsys.bucket(ctx, l.bucket)
	if err != nil {
		return err
	}
	_, err = b.Upload(ctx, l.folder(), strings.NewReader(""), buckets.UploadOptions{})
	requestOf(ctx).forget()
	return err
}

// OpenFile opens a file or a folder to read, or a file to write when flag
// has O_CREATE: a new revision, committed by Close.
func (fsys *fileSystem) OpenFile(ctx context.Context, name string, flag int, _ os.FileMode) (webdav.File, error) {
	q := requestOf(ctx)
	l, err := parseLoc(name)
	if err != nil {
		return nil, q.fail(err)
	}
	if flag&os.O_CREATE != 0 {
		f, err := fsys.create(ctx, l)
		return f, q.fail(err)
	}
	fi, err := fsys.stat(ctx, l)
	if err != nil {
		return nil, q.fail(err)
	}
	if fi.dir {
		return &dirFile{fsys: fsys, ctx: ctx, l: l, info: fi}, nil
	}
	b, err := fsys.bucket(ctx, l.bucket)
	if err != nil {
		return nil, q.fail(err)
	}
	if q.method == "COPY" {
		q.copySrc = fi.file
	}
	return &readFile{fsys: fsys, ctx: ctx, b: b, info: fi}, nil
}

func (fsys *fileSystem) create(ctx context.Context, l loc) (webdav.File, error) {
	if l.bucket == "" || l.name == "" || (l.slash && requestOf(ctx).method == "PUT") {
		return nil, fmt.Errorf("%w: %s is a collection", errNotAllowed, l.path())
	}
	if err := fsys.checkParent(ctx, l); err != nil {
		return nil, err
	}
	b, err := fsys.bucket(ctx, l.bucket)
	if err != nil {
		return nil, err
	}
	requestOf(ctx).forget()
	return openWrite(ctx, fsys.s, b, l)
}

// RemoveAll deletes a file (every revision) or a folder and everything in
// it. A bucket is dropped only when empty: a whole bucket is not something
// to lose to a slip of the mouse in a file manager.
func (fsys *fileSystem) RemoveAll(ctx context.Context, name string) error {
	q := requestOf(ctx)
	l, err := parseLoc(name)
	if err != nil {
		return q.fail(err)
	}
	defer q.forget()
	return q.fail(fsys.removeAll(ctx, l))
}

func (fsys *fileSystem) removeAll(ctx context.Context, l loc) error {
	switch {
	case l.bucket == "":
		return fmt.Errorf("%w: the list of buckets cannot be deleted", errForbidden)
	case l.name == "":
		err := fsys.s.cfg.DB.Drop(ctx, l.bucket, false)
		if errors.Is(err, buckets.ErrBucketNotEmpty) {
			return fmt.Errorf("%w; delete its files first, or drop it with DELETE /buckets/%s?force=true", err, l.bucket)
		}
		return err
	}
	fi, err := fsys.stat(ctx, l)
	if err != nil {
		return err
	}
	b, err := fsys.bucket(ctx, l.bucket)
	if err != nil {
		return err
	}
	q := requestOf(ctx)
	switch {
	case q.moveDst != "" && q.moveDst == l.path():
		// webdav deletes a MOVE's destination before the rename: a file
		// or a folder is replaced by the rename instead, so that a
		// failed rename loses nothing.
		q.replacing, q.replacingFolder = true, fi.dir
		return nil
	case q.copyOver != nil && l.within(q.copyOverAt):
		return nil // replaced with the rest of the folder (finishCopyOver)
	case q.copyDst != "" && q.copyDst == l.path() && !fi.dir && q.copySrc != nil:
		// And a COPY's before the copy: when a file is copied (webdav
		// opened it already), the copy's commit replaces the file
		// instead (writeFile.Close), so that a failed copy loses nothing.
		q.replacing = true
		return nil
	}
	if fi.dir && q.copyDst != "" && q.copyDst == l.path() && q.copySrc == nil {
		// A folder copied over a folder: what it holds goes once the
		// whole copy succeeded (finishCopyOver), up to a move's worth of
		// files; a larger one is emptied first, as webdav asks.
		held, err := b.ListPrefix(ctx, l.folder(), buckets.MaxFolderRename)
		if err == nil {
			q.copyOver, q.copyOverAt, q.copyOverIn = held, l, b
			return nil
		}
		if !errors.Is(err, buckets.ErrTooManyFiles) {
			return err
		}
	}
	if fi.dir {
		_, err = b.DeletePrefix(ctx, l.folder())
		return err
	}
	_, err = b.DeleteName(ctx, l.name)
	if errors.Is(err, buckets.ErrFileNotFound) {
		return nil
	}
	return err
}

// Rename moves a file, every revision of its name, or a folder, every file
// in it, within a bucket.
func (fsys *fileSystem) Rename(ctx context.Context, oldName, newName string) error {
	q := requestOf(ctx)
	if renameStarting != nil {
		renameStarting()
	}
	from, err := parseLoc(oldName)
	if err != nil {
		return q.fail(err)
	}
	to, err := parseLoc(newName)
	if err != nil {
		return q.fail(err)
	}
	defer q.forget()
	return q.fail(fsys.rename(ctx, from, to))
}

func (fsys *fileSystem) rename(ctx context.Context, from, to loc) error {
	switch {
	case from.name == "" || to.name == "":
		return fmt.Errorf("%w: buckets cannot be renamed through WebDAV", errForbidden)
	case from.bucket != to.bucket:
		return fmt.Errorf("%w: MOVE between buckets is not supported; COPY, then DELETE", errForbidden)
	case to.within(from):
		return fmt.Errorf("%w: cannot move %s into itself", errForbidden, from.path())
	}
	fi, err := fsys.stat(ctx, from)
	if err != nil {
		return err
	}
	if err := fsys.checkParent(ctx, to); err != nil {
		return fmt.Errorf("%w: the destination's folder %s does not exist", errConflict, to.parent().path())
	}
	b, err := fsys.bucket(ctx, from.bucket)
	if err != nil {
		return err
	}
	q := requestOf(ctx)
	replacing := q.replacing
	if fi.dir {
		if !replacing {
			_, err := b.RenamePrefix(ctx, from.folder(), to.folder())
			return err
		}
		// The destination was a folder (replaced with what it held) or
		// a file of the folder's name (removed after the move).
		if _, err := b.ReplacePrefix(ctx, from.folder(), to.folder()); err != nil {
			return err
		}
		_, err = b.DeleteName(ctx, to.name)
		if errors.Is(err, buckets.ErrFileNotFound) {
			err = nil
		}
		return err
	}
	// webdav looked at the destination before this call, without a
	// lease: one written meanwhile is replaced (Overwrite: T) or makes
	// the move fail (F), under the names' leases, not merged into.
	if replacing || q.overwrites() {
		if err := b.ReplaceName(ctx, from.name, to.name); err != nil || !q.replacingFolder {
			return err
		}
		_, err := b.DeletePrefix(ctx, to.folder()) // the folder the file replaced
		return err
	}
	err = b.RenameNameIf(ctx, from.name, to.name, buckets.Conditions{IfNoneMatch: "*"})
	if errors.Is(err, buckets.ErrPreconditionFailed) {
		return fmt.Errorf("%w: %s exists and Overwrite is F", errPrecondition, to.path())
	}
	return err
}

// renameStarting, when set (by tests), runs as Rename starts: after
// webdav looked at the destination.
var renameStarting func()

// etag is the ETag of the file at name, "" for a folder or nothing.
func (fsys *fileSystem) etag(name string) (string, error) {
	l, err := parseLoc(name)
	if err != nil {
		return "", nil
	}
	ctx, cancel := opCtx()
	defer cancel()
	fi, err := fsys.stat(ctx, l)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil || fi.file == nil {
		return "", err
	}
	return fi.file.ETag(), nil
}
