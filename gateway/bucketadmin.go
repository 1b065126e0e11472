package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/labstack/echo/v4"
)

// bucketList is the JSON of GET /buckets.
type bucketList struct {
	Buckets []buckets.BucketInfo `json:"buckets"`
}

// listBuckets serves GET /buckets: every bucket the caller may read, with
// its settings, file count and total bytes.
func (h *handler) listBuckets(c echo.Context) error {
	var visible func(string) bool
	if a := h.cfg.Auth; a != nil && a.Enabled() {
		// Statistics of the others are never computed: they would cost
		// a scan each and tell nothing the caller may know.
		visible = func(name string) bool { return a.CanRead(c.Request(), name) }
	}
	list, err := h.db.ListOf(c.Request().Context(), visible)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, bucketList{Buckets: list})
}

// maxSettingsBytes bounds the body of PUT /buckets/{bucket}.
const maxSettingsBytes = 64 * 1024

// createBucket serves PUT /buckets/{bucket} with optional JSON settings
// {"chunkSize": N, "maxFileSize": N}: it creates the bucket's indexes and
// stores the settings, or updates those of an existing bucket.
func (h *handler) createBucket(c echo.Context) error {
	name, err := bucketParam(c)
	if err != nil {
		return err
	}
	if err := buckets.CheckBucketName(name); err != nil {
		return err
	}
	s, err := bucketSettings(c.Request().Body)
	if err != nil {
		return err
	}
	if p, ok := c.Get(ctxPrincipal).(auth.Principal); ok && p.Name != "anonymous" && p.Name != "signed-url" {
		s.Owner = p.Name // kept only by the Create that makes the bucket
	}
	b, err := h.db.Create(c.Request().Context(), name, s)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, buckets.BucketInfo{Name: b.Name(), Settings: b.Settings()})
}

func bucketSettings(r io.Reader) (buckets.Settings, error) {
	var s buckets.Settings
	raw, err := io.ReadAll(io.LimitReader(r, maxSettingsBytes+1))
	if err != nil {
		return s, fmt.Errorf("%w: %w", errIncompleteBody, err)
	}
	if len(raw) > maxSettingsBytes {
		return s, badRequest("settings body of more than %d bytes", maxSettingsBytes)
	}
	if len(raw) == 0 {
		return s, nil
	}
	// A map, not a struct: encoding/json matches field names without
	// regard to case and takes "8" for a json.Number, both of which would
	// hide a client's mistake.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return s, badRequest(`body is not a JSON object such as {"chunkSize": 261120, "maxFileSize": 1048576}`)
	}
	for k, v := range fields {
		if k == "acl" {
			// A canned ACL: "public-read" makes the bucket readable by
			// anyone on every door, "private" withdraws it.
			if err := json.Unmarshal(v, &s.ACL); err != nil || s.ACL == "" {
				return s, badRequest(`acl: %s is not a canned ACL such as "private" or "public-read"`, v)
			}
			if err := buckets.CheckACL(s.ACL); err != nil {
				return s, err
			}
			continue
		}
		if k == "lifecycle" {
			if s.Lifecycle, err = buckets.ParseLifecycleJSON(v); err != nil {
				return s, err
			}
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
		switch {
		case k != "chunkSize" && k != "maxFileSize":
			return s, badRequest("unknown setting %q (use chunkSize, maxFileSize, lifecycle and acl)", k)
		case err != nil:
			return s, badRequest("%s: %s is not a whole number of bytes", k, v)
		case k == "chunkSize":
			if n <= 0 || n > math.MaxInt32 {
				// 0 would mean the default; DB.Create checks the upper bound.
				return s, fmt.Errorf("%w: chunkSize %d", buckets.ErrInvalidChunkSize, n)
			}
			s.ChunkSize = int(n)
		case n < 0:
			return s, badRequest("maxFileSize %d is negative", n)
		default:
			s.MaxFileSize = n
		}
	}
	return s, nil
}

// dropBucket serves DELETE /buckets/{bucket}; a bucket holding files is
// dropped only with ?force=true.
func (h *handler) dropBucket(c echo.Context) error {
	name, err := bucketParam(c)
	if err != nil {
		return err
	}
	force := false
	if v := c.QueryParam("force"); v != "" {
		if force, err = strconv.ParseBool(v); err != nil {
			return badRequest("query parameter force: %q is not true or false", v)
		}
	}
	if err := h.db.Drop(c.Request().Context(), name, force); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
