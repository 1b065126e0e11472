package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/labstack/echo/v4"
)

// bucketList is the JSON of GET /buckets.
type bucketList struct {
	Buckets []buckets.BucketInfo `json:"buckets"`
}

// listBuckets serves GET /buckets: every bucket with its settings, file
// count and total bytes.
func (h *handler) listBuckets(c echo.Context) error {
	list, err := h.db.List(c.Request().Context())
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
	var in struct {
		ChunkSize   *json.Number `json:"chunkSize"`
		MaxFileSize *json.Number `json:"maxFileSize"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return s, badRequest(`body is not {"chunkSize": N, "maxFileSize": N}: %v`, err)
	}
	if in.ChunkSize != nil {
		n, err := strconv.ParseInt(in.ChunkSize.String(), 10, 32)
		if err != nil || n <= 0 {
			return s, fmt.Errorf("%w: chunkSize %s", buckets.ErrInvalidChunkSize, in.ChunkSize)
		}
		s.ChunkSize = int(n)
	}
	if in.MaxFileSize != nil {
		n, err := strconv.ParseInt(in.MaxFileSize.String(), 10, 64)
		if err != nil || n < 0 {
			return s, badRequest("maxFileSize %s is not a number of bytes", in.MaxFileSize)
		}
		s.MaxFileSize = n
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
