package dav

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"strings"
	"sync"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"golang.org/x/net/webdav"
)

var (
	errIsDir    = errors.New("is a folder")
	errNotDir   = errors.New("not a folder")
	errReadOnly = errors.New("opened to read")
)

// dirFile is an open folder, bucket or the root.
type dirFile struct {
	fsys   *fileSystem
	ctx    context.Context
	l      loc
	info   *fileInfo
	listed bool
}

var _ webdav.DeadPropsHolder = (*dirFile)(nil)

func (d *dirFile) Close() error                      { return nil }
func (d *dirFile) Read([]byte) (int, error)          { return 0, errIsDir }
func (d *dirFile) Seek(int64, int) (int64, error)    { return 0, errIsDir }
func (d *dirFile) Write([]byte) (int, error)         { return 0, errIsDir }
func (d *dirFile) Stat() (fs.FileInfo, error)        { return d.info, nil }
func (d *dirFile) ReadFrom(io.Reader) (int64, error) { return 0, errIsDir }

// Readdir lists the folder: one indexed listing (buckets.EachInFolder),
// whose entries the request remembers, so that webdav's stat
// of each entry costs nothing.
func (d *dirFile) Readdir(count int) ([]fs.FileInfo, error) {
	if d.listed {
		if count > 0 {
			return nil, io.EOF
		}
		return nil, nil
	}
	d.listed = true
	q := requestOf(d.ctx)
	out, err := d.list()
	if err != nil {
		return nil, q.fail(err)
	}
	return out, nil
}

func (d *dirFile) list() ([]fs.FileInfo, error) {
	q := requestOf(d.ctx)
	var out []fs.FileInfo
	add := func(fi *fileInfo) {
		out = append(out, fi)
		q.remember(path.Join(d.l.path(), fi.name), fi)
	}
	if d.l.bucket == "" {
		names, err := d.fsys.s.cfg.DB.Names(d.ctx)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if q.canRead(n) {
				add(dirInfo(n))
			}
		}
		return out, nil
	}
	b, err := d.fsys.bucket(d.ctx, d.l.bucket)
	if err != nil {
		return nil, err
	}
	prefix := d.l.folder()
	var last *fileInfo
	err = b.EachInFolder(d.ctx, prefix, "/", func(f *buckets.File, folder string) error {
		if f == nil {
			if base := strings.TrimSuffix(folder[len(prefix):], "/"); base != "" {
				add(dirInfo(base))
			}
			return nil
		}
		base := f.Filename[len(prefix):]
		switch {
		case base == "":
			// The folder's own marker.
		case last != nil && last.file.Filename == f.Filename:
			// Revisions come oldest first: the newest is the file.
			*last = *fileInfoOf(base, f)
		default:
			last = fileInfoOf(base, f)
			add(last)
		}
		return nil
	})
	return out, err
}

// DeadProps of a folder are those of its marker file, which the stat of
// the folder a request names found (not for every folder of a listing).
// The folder, bucket or root a PROPFIND names also answers RFC 4331's
// quota properties when the request asks for them (quota).
func (d *dirFile) DeadProps() (map[xml.Name]webdav.Property, error) {
	q := requestOf(d.ctx)
	if d.l.path() != q.target {
		return nil, nil
	}
	props := map[xml.Name]webdav.Property{}
	if q.wantsQuota {
		if err := d.quota(props); err != nil {
			return nil, q.fail(err)
		}
	}
	if d.info.marker != nil {
		maps.Copy(props, deadProps(d.info.marker.Metadata))
	}
	return props, nil
}

// quota adds RFC 4331's properties to props. gridfsd has no byte quota of
// its own: what limits a bucket is the store's room. quota-used-bytes is
// what the bucket holds (its live files' lengths, a scan of the bucket,
// so only when asked; a folder counts against its bucket, and the root
// has none); quota-available-bytes is the room uploads may still take on
// the embedded store, its free disk above --min-free-space, and is left
// out where gridfsd does not know it (MongoDB, whose disks are its
// operator's, or a store without the reserve).
func (d *dirFile) quota(props map[xml.Name]webdav.Property) error {
	if s, ok, err := d.fsys.s.cfg.DB.Space(); ok && err == nil {
		avail := uint64(0)
		if !s.Low() {
			avail = s.Free - s.Reserve
		}
		props[quotaAvailable] = webdav.Property{XMLName: quotaAvailable, InnerXML: fmt.Appendf(nil, "%d", avail)}
	}
	if d.l.bucket == "" {
		return nil
	}
	b, err := d.fsys.bucket(d.ctx, d.l.bucket)
	if err != nil {
		return err
	}
	st, err := b.Stats(d.ctx)
	if err != nil {
		return err
	}
	props[quotaUsed] = webdav.Property{XMLName: quotaUsed, InnerXML: fmt.Appendf(nil, "%d", st.Bytes)}
	return nil
}

// Patch sets a folder's dead properties on its marker file, which it
// creates when the folder has none.
func (d *dirFile) Patch(patches []webdav.Proppatch) ([]webdav.Propstat, error) {
	q := requestOf(d.ctx)
	if d.l.name == "" {
		forbidden := webdav.Propstat{Status: 403}
		for _, p := range patches {
			for _, prop := range p.Props {
				forbidden.Props = append(forbidden.Props, webdav.Property{XMLName: prop.XMLName})
			}
		}
		return []webdav.Propstat{forbidden}, nil
	}
	b, err := d.fsys.bucket(d.ctx, d.l.bucket)
	if err != nil {
		return nil, q.fail(err)
	}
	marker, err := b.FindByName(d.ctx, d.l.folder(), -1)
	if errors.Is(err, buckets.ErrFileNotFound) {
		md, stats, err := patchedMetadata(nil, patches)
		if err != nil || md == nil {
			return stats, q.fail(err)
		}
		_, err = b.Upload(d.ctx, d.l.folder(), strings.NewReader(""), buckets.UploadOptions{Metadata: md})
		return stats, q.fail(err)
	}
	if err != nil {
		return nil, q.fail(err)
	}
	return patchFile(d.ctx, b, marker, patches)
}

// patchFile applies PROPPATCH to a file's metadata. The metadata is
// written only over the version it was read from (If-Match its ETag), and
// read again when another write came first: otherwise two PROPPATCHes of
// one file at once kept only the last one's properties.
func patchFile(ctx context.Context, b *buckets.Bucket, f *buckets.File, patches []webdav.Proppatch) ([]webdav.Propstat, error) {
	q := requestOf(ctx)
	for range maxPatchAttempts {
		md, stats, err := patchedMetadata(f.Metadata, patches)
		if err != nil || md == nil {
			return stats, q.fail(err)
		}
		_, err = b.PatchIf(ctx, f.ID, nil, &md, buckets.Conditions{IfMatch: f.ETag()})
		if !errors.Is(err, buckets.ErrPreconditionFailed) {
			if err != nil {
				return nil, q.fail(err)
			}
			return stats, nil
		}
		if f, err = b.Stat(ctx, f.ID); err != nil {
			return nil, q.fail(err)
		}
	}
	return nil, q.fail(fmt.Errorf("%w: %q kept changing", buckets.ErrPreconditionFailed, f.Filename))
}

// maxPatchAttempts bounds how often a PROPPATCH reads a file's metadata
// again because another write changed it first.
const maxPatchAttempts = 16

// readFile is an open file: its chunks are fetched only once it is read,
// from where it was sought to, so that a PROPFIND that opens every file
// of a listing reads no chunk, and a range reads only its own.
type readFile struct {
	fsys *fileSystem
	ctx  context.Context
	b    *buckets.Bucket
	info *fileInfo

	d   *buckets.Download
	off int64
}

var (
	_ webdav.File            = (*readFile)(nil)
	_ webdav.DeadPropsHolder = (*readFile)(nil)
)

func (f *readFile) open() error {
	if f.d != nil {
		return nil
	}
	d, err := f.b.Open(f.ctx, f.info.file)
	if err != nil {
		return err
	}
	if _, err := d.Seek(f.off, io.SeekStart); err != nil {
		d.Close()
		return err
	}
	f.d = d
	return nil
}

func (f *readFile) Read(p []byte) (int, error) {
	if f.off >= f.info.file.Length && f.d == nil {
		return 0, io.EOF
	}
	if err := f.open(); err != nil {
		return 0, requestOf(f.ctx).fail(err)
	}
	n, err := f.d.Read(p)
	f.off += int64(n)
	if err != nil && err != io.EOF {
		requestOf(f.ctx).fail(err)
	}
	return n, err
}

// writeTo writes n bytes from the offset to w straight from the chunk
// cache (chunker.Reader.Send), as the HTTP API's downloads do:
// ServeContent's io.Copy reaches it through reply.ReadFrom.
func (f *readFile) writeTo(w io.Writer, n int64) (int64, error) {
	if n <= 0 {
		return 0, nil
	}
	if err := f.open(); err != nil {
		return 0, requestOf(f.ctx).fail(err)
	}
	written, err := f.d.Send(w, n, nil)
	f.off += written
	if err != nil && !chunker.IsWriteError(err) {
		return written, requestOf(f.ctx).fail(err)
	}
	return written, err
}

// Seek is O(1): it moves the offset; the next Read fetches from there.
func (f *readFile) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		offset += f.info.file.Length
	}
	if offset < 0 {
		return f.off, fmt.Errorf("seek to %d: negative offset", offset)
	}
	f.off = offset
	if f.d != nil {
		return f.d.Seek(offset, io.SeekStart)
	}
	return offset, nil
}

// Expect tells the reader that only [first, end) will be read, so that it
// fetches exactly those chunks.
func (f *readFile) Expect(first, end int64) error {
	if err := f.open(); err != nil {
		return err
	}
	f.d.Expect(first, end)
	return nil
}

func (f *readFile) Close() error {
	if f.d == nil {
		return nil
	}
	f.fsys.s.metrics.downloads.StoreBytes.Add(float64(f.d.Fetched()))
	err := f.d.Close()
	f.d = nil
	return err
}

func (f *readFile) Readdir(int) ([]fs.FileInfo, error) { return nil, errNotDir }
func (f *readFile) Stat() (fs.FileInfo, error)         { return f.info, nil }
func (f *readFile) Write([]byte) (int, error)          { return 0, errReadOnly }

func (f *readFile) DeadProps() (map[xml.Name]webdav.Property, error) {
	return deadProps(f.info.file.Metadata), nil
}

func (f *readFile) Patch(patches []webdav.Proppatch) ([]webdav.Propstat, error) {
	return patchFile(f.ctx, f.b, f.info.file, patches)
}

// writeFile is a new revision being written: PUT's body streams into its
// chunks (io.Copy calls ReadFrom), and Close commits it, with the same
// rules and limits as every upload.
type writeFile struct {
	ctx context.Context
	b   *buckets.Bucket
	l   loc
	up  *buckets.Upload // enforces the size limits (buckets.Limits)

	mu        sync.Mutex
	closed    bool
	failed    error // the write that failed: Close commits nothing then
	committed *buckets.File
	props     []webdav.Proppatch
}

var (
	_ webdav.File            = (*writeFile)(nil)
	_ io.ReaderFrom          = (*writeFile)(nil)
	_ webdav.DeadPropsHolder = (*writeFile)(nil)
)

func openWrite(ctx context.Context, s *Server, b *buckets.Bucket, l loc) (*writeFile, error) {
	q := requestOf(ctx)
	opts := buckets.UploadOptions{}
	switch {
	case q.method == "COPY" && q.copySrc != nil:
		// A copy keeps what the original's metadata says (its type, its
		// time, its dead properties).
		if q.copySrc.Metadata != nil {
			if err := bson.Unmarshal(q.copySrc.Metadata, &opts.Metadata); err != nil {
				return nil, fmt.Errorf("read metadata of %s: %w", q.copySrc.Filename, err)
			}
		}
	case q.method == "PUT":
		opts = q.upload.options()
	}
	up, err := b.OpenUpload(ctx, l.name, opts)
	if err != nil {
		return nil, err
	}
	return &writeFile{ctx: ctx, b: b, l: l, up: up}, nil
}

func (w *writeFile) Write(p []byte) (int, error) {
	n, err := w.up.Write(p)
	return n, w.fail(err)
}

// fail remembers a failed write for Close, and for the request's reply.
func (w *writeFile) fail(err error) error {
	if err == nil {
		return nil
	}
	w.mu.Lock()
	if w.failed == nil {
		w.failed = err
	}
	w.mu.Unlock()
	return requestOf(w.ctx).fail(err)
}

// ReadFrom streams r into the file's chunks, memory flat however large.
// A PUT's body that fails is the client's (errIncompleteBody); a COPY's
// source, a file of the store, fails as the store does.
func (w *writeFile) ReadFrom(r io.Reader) (int64, error) {
	if _, copied := r.(*readFile); !copied {
		r = clientBody{r}
	}
	n, err := w.up.ReadFrom(r)
	if err != nil {
		w.up.Abort()
		return n, w.fail(err)
	}
	if err := w.ctx.Err(); err != nil {
		w.up.Abort()
		return n, w.fail(err)
	}
	return n, nil
}

// Close commits the revision; a failed commit leaves nothing stored. After
// a failed write it commits nothing and returns that failure: webdav
// closes the file before it answers the write's error, and a commit of
// the aborted upload failed in its turn ("chunker: closed"), an error that
// replaced the cause in the reply (a 500 for a 507).
func (w *writeFile) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	defer w.up.Abort()
	if w.failed != nil {
		return w.failed
	}
	q := requestOf(w.ctx)
	f, err := w.up.Commit()
	if err != nil {
		return q.fail(err)
	}
	w.committed = f
	if q.method == "COPY" && q.replacing {
		// The destination webdav asked to delete first (see RemoveAll)
		// goes now that its replacement is in place; what is left of
		// it on a failure is older revisions, not a lost file.
		if _, err := w.b.DeleteOlderRevisions(w.ctx, f); err != nil {
			q.refused(fmt.Errorf("COPY replaced %s, but its earlier revisions stay: %w", w.l.path(), err), true)
		}
	}
	if len(w.props) > 0 {
		if _, err := patchFile(w.ctx, w.b, f, w.props); err != nil {
			return err
		}
		if f, err = w.b.Stat(w.ctx, f.ID); err == nil {
			w.committed = f
		}
	}
	return nil
}

func (w *writeFile) Read([]byte) (int, error)           { return 0, errors.New("opened to write") }
func (w *writeFile) Seek(int64, int) (int64, error)     { return 0, errors.New("opened to write") }
func (w *writeFile) Readdir(int) ([]fs.FileInfo, error) { return nil, errNotDir }

// Stat describes the file being written; its ETag, asked for after
// Close, is the committed revision's.
func (w *writeFile) Stat() (fs.FileInfo, error) { return &writtenInfo{w: w}, nil }

func (w *writeFile) DeadProps() (map[xml.Name]webdav.Property, error) { return nil, nil }

// Patch keeps properties for the commit: a COPY sets the copy's after its
// content (the copy's metadata already holds them, so this is for
// properties set otherwise).
func (w *writeFile) Patch(patches []webdav.Proppatch) ([]webdav.Propstat, error) {
	if q := requestOf(w.ctx); q.method == "COPY" && q.copySrc != nil {
		return []webdav.Propstat{{Status: 200}}, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.props = append(w.props, patches...)
	return []webdav.Propstat{{Status: 200}}, nil
}

type writtenInfo struct {
	fileInfo
	w *writeFile
}

func (wi *writtenInfo) Name() string { return wi.w.l.base() }
func (wi *writtenInfo) Size() int64  { return wi.w.up.Length() }
func (wi *writtenInfo) ETag(context.Context) (string, error) {
	wi.w.mu.Lock()
	defer wi.w.mu.Unlock()
	if wi.w.committed == nil {
		return "", webdav.ErrNotImplemented
	}
	return wi.w.committed.ETag(), nil
}

// clientBody marks failures of reading the request body as the client's.
type clientBody struct{ r io.Reader }

func (b clientBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%w: %w", errIncompleteBody, err)
	}
	return n, err
}
