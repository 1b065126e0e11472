package gateway

import (
	"context"
	"crypto/md5"
	"fmt"
	"hash"
	"io"
	"mime"
	"net/http"
	"net/url"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/labstack/echo/v4"
)

// upload stores the request body as a new revision of the name in the path
// (PUT /b/{bucket}/{name}). Every check that needs no body runs before the
// first byte is written; the body streams straight into the chunk writer;
// digests and preconditions are checked again before the files document is
// written, and any failure leaves nothing behind.
func (h *handler) upload(c echo.Context) error {
	req := c.Request()
	ctx := req.Context()
	b, err := h.bucket(c)
	if err != nil {
		return err
	}
	name, err := nameParam(c)
	if err != nil {
		return err
	}
	if err := buckets.CheckFilename(name); err != nil {
		return err
	}
	opts, err := uploadOptions(c)
	if err != nil {
		return err
	}
	sums, err := parseDigests(req.Header)
	if err != nil {
		return err
	}
	// The upload limits are buckets' (OpenUpload enforces them while the
	// body streams); a declared length is refused before the body.
	if err := b.CheckUploadSize(req.ContentLength); err != nil {
		return err
	}
	cond := writeConditions(req.Header)
	// Checked before the body, so a request bound to fail uploads
	// nothing; the commit checks again, atomically.
	if err := b.CheckName(ctx, name, cond); err != nil {
		return err
	}
	// If-Match replaces that revision: it goes in the commit, only once
	// its successor is stored, so a failure never loses the old content.
	opts.Conditions, opts.Replace = cond, true
	opts.Size = max(req.ContentLength, 0)

	start := time.Now()
	up, err := b.OpenUpload(ctx, name, opts)
	if err != nil {
		return err
	}
	// Whatever ends this handler, a panic included, a failed or unfinished
	// upload removes its chunks and gives back its share of the write
	// budget; after a commit Abort does nothing.
	defer up.Abort()
	defer h.live.add(b.Name(), up.ID())()
	f, err := h.receive(ctx, up, req.Body, sums)
	if err != nil {
		return err
	}
	h.metrics.uploads.Observe(time.Since(start).Seconds())
	if old, err := up.Replaced(); err != nil {
		requestLogger(c).Error("delete replaced revision", "id", buckets.FormatID(old.ID), "error", err)
	}
	hdr := c.Response().Header()
	hdr.Set("ETag", f.ETag())
	hdr.Set("Location", "/id/"+url.PathEscape(b.Name())+"/"+FileIDPath(f.ID))
	hdr.Set(HeaderID, asciiJSON([]byte(buckets.FormatID(f.ID))))
	return c.JSON(http.StatusCreated, f)
}

// receive copies body into up, verifies the digests and commits (which
// checks the upload's conditions); on any failure it aborts the upload.
func (h *handler) receive(ctx context.Context, up *buckets.Upload, body io.Reader, sums digests) (*buckets.File, error) {
	body = clientBody{body}
	var md hash.Hash
	if sums.md5 != nil {
		md = md5.New()
		body = io.TeeReader(body, md)
	}
	fail := func(err error) (*buckets.File, error) {
		if aerr := up.Abort(); aerr != nil {
			err = fmt.Errorf("%w (and abort: %w)", err, aerr)
		}
		return nil, err
	}
	if _, err := up.ReadFrom(body); err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	var mdSum []byte
	if md != nil {
		mdSum = md.Sum(nil)
	}
	if err := sums.check(up.SHA256(), mdSum); err != nil {
		return fail(err)
	}
	return up.Commit()
}

// uploadOptions reads ?chunkSize=, Content-Type and the metadata headers.
func uploadOptions(c echo.Context) (buckets.UploadOptions, error) {
	var opts buckets.UploadOptions
	cs, err := intParam(c, "chunkSize", 0)
	if err != nil {
		return opts, fmt.Errorf("%w: %w", buckets.ErrInvalidChunkSize, err)
	}
	if c.QueryParam("chunkSize") != "" && cs <= 0 {
		return opts, fmt.Errorf("%w: chunkSize %d is not positive", buckets.ErrInvalidChunkSize, cs)
	}
	opts.ChunkSize = cs
	if ct := c.Request().Header.Get("Content-Type"); ct != "" {
		if _, _, err := mime.ParseMediaType(ct); err != nil {
			return opts, badRequest("Content-Type %q: %v", ct, err)
		}
		opts.ContentType = ct
	}
	if opts.Metadata, err = uploadMetadata(c.Request().Header); err != nil {
		return opts, err
	}
	if v := c.Request().Header.Get(HeaderExpires); v != "" {
		if opts.ExpireAt, err = buckets.ParseExpiry(v, time.Now()); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

// clientBody marks the failures of reading the request body, a client
// that went away or sent less than it announced, so that they are not
// taken for the store's.
type clientBody struct{ r io.Reader }

func (b clientBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%w: %w", errIncompleteBody, err)
	}
	return n, err
}
