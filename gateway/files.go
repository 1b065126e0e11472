package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/labstack/echo/v4"
)

// Query parameters of a listing that filter on metadata: meta.<key>=<v>
// matches the string v; metajson.<key>=<Extended JSON> matches a value of
// any type ({"$numberInt":"5"}, true, {"$date":"..."}).
const (
	metaParam     = "meta."
	metaJSONParam = "metajson."
)

// listPage is the JSON of a listing. Next is "" on the last page.
type listPage struct {
	Files []*buckets.File `json:"files"`
	Next  string          `json:"next"`
}

// folderPage is the JSON of a listing with ?delimiter=: the files of one
// level and the folders below it.
type folderPage struct {
	Files    []*buckets.File `json:"files"`
	Prefixes []string        `json:"prefixes"`
	Next     string          `json:"next"`
}

// listFiles serves GET /b/{bucket}: one page of files ordered by name,
// upload date and id, filtered by ?prefix=, ?regex=, metadata and
// continued with ?cursor=; with ?delimiter=, one folder level.
func (h *handler) listFiles(c echo.Context) error {
	b, err := h.bucket(c)
	if err != nil {
		return err
	}
	q, err := listQuery(c)
	if err != nil {
		return err
	}
	if c.QueryParams().Has("delimiter") {
		page, err := b.FindFolder(c.Request().Context(), q, c.QueryParam("delimiter"))
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, folderPage{Files: page.Files, Prefixes: page.Prefixes, Next: page.Next})
	}
	page, err := b.Find(c.Request().Context(), q)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, listPage{Files: page.Files, Next: page.Next})
}

func listQuery(c echo.Context) (buckets.Query, error) {
	var q buckets.Query
	params := c.QueryParams()
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys) // a stable order for the metadata filter
	for _, k := range keys {
		v := params.Get(k)
		switch {
		case k == "prefix":
			q.Prefix = v
		case k == "regex":
			q.Regex = v
		case k == "cursor":
			q.After = v
		case k == "delimiter":
			// Read by listFiles, which lists folders with it.
		case k == auth.ParamExpires || k == auth.ParamSignature || k == auth.ParamBy:
			// A signed URL's credential, checked by access control.
		case k == "limit":
			n, err := intParam(c, "limit", 0)
			if err != nil {
				return q, fmt.Errorf("%w: %w", buckets.ErrInvalidQuery, err)
			}
			if n <= 0 {
				return q, fmt.Errorf("%w: limit %d is not between 1 and %d", buckets.ErrInvalidQuery, n, buckets.MaxLimit)
			}
			q.Limit = n
		case strings.HasPrefix(k, metaParam) && len(k) > len(metaParam):
			q.Metadata = append(q.Metadata, bson.E{Key: k[len(metaParam):], Value: v})
		case strings.HasPrefix(k, metaJSONParam) && len(k) > len(metaJSONParam):
			val, err := parseJSONValue(v)
			if err != nil {
				return q, fmt.Errorf("%w: %s: %w", buckets.ErrInvalidQuery, k, err)
			}
			q.Metadata = append(q.Metadata, bson.E{Key: k[len(metaJSONParam):], Value: val})
		default:
			return q, fmt.Errorf("%w: unknown parameter %q (use prefix, delimiter, regex, limit, cursor, meta.<key> or metajson.<key>)", buckets.ErrInvalidQuery, k)
		}
	}
	for _, e := range q.Metadata {
		if strings.HasPrefix(e.Key, "$") || strings.Contains(e.Key, "..") {
			return q, fmt.Errorf("%w: metadata field %q", buckets.ErrInvalidQuery, e.Key)
		}
	}
	return q, nil
}

// parseJSONValue reads one Extended JSON value of any type.
func parseJSONValue(s string) (bson.RawValue, error) {
	var doc struct {
		V bson.RawValue `bson:"v"`
	}
	if err := bson.UnmarshalExtJSON([]byte(`{"v":`+s+`}`), false, &doc); err != nil {
		return bson.RawValue{}, fmt.Errorf("not Extended JSON: %v", err)
	}
	return doc.V, nil
}

// deleteByName removes every revision of a name, as mongofiles delete does.
func (h *handler) deleteByName(c echo.Context) error {
	b, err := h.bucket(c)
	if err != nil {
		return err
	}
	name, err := nameParam(c)
	if err != nil {
		return err
	}
	if name == "" {
		return fmt.Errorf("%w: empty name (to drop a bucket, DELETE /buckets/{bucket})", buckets.ErrInvalidFilename)
	}
	if _, err := b.DeleteNameIf(c.Request().Context(), name, writeConditions(c.Request().Header)); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// deleteByID removes one file if the request's preconditions hold for it.
func (h *handler) deleteByID(c echo.Context) error {
	b, err := h.bucket(c)
	if err != nil {
		return err
	}
	id, err := fileID(c)
	if err != nil {
		return err
	}
	if err := b.DeleteIf(c.Request().Context(), id, writeConditions(c.Request().Header)); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// maxPatchBytes bounds a PATCH body: metadata up to its own limit, plus
// the filename and JSON around it.
const maxPatchBytes = buckets.MaxMetadataBytes + buckets.MaxFilenameBytes + 64*1024

// patchByID renames a file and/or replaces its metadata:
// {"filename": "new", "metadata": {...}}; "metadata": null or {} removes
// it. The request's preconditions must hold for the file, atomically with
// the update.
func (h *handler) patchByID(c echo.Context) error {
	b, err := h.bucket(c)
	if err != nil {
		return err
	}
	id, err := fileID(c)
	if err != nil {
		return err
	}
	p, err := patchBody(c.Request().Body)
	if err != nil {
		return err
	}
	// One update: a failure must not leave the file renamed with its old
	// metadata.
	f, err := b.PatchFileIf(c.Request().Context(), id, p, writeConditions(c.Request().Header))
	if err != nil {
		return err
	}
	c.Response().Header().Set("ETag", f.ETag())
	return c.JSON(http.StatusOK, f)
}

// patchBody reads and checks a PATCH body before anything is written:
// {"filename": ..., "metadata": {...}, "expires": ...}, where "expires"
// is a date or a delay (buckets.ParseExpiry) and null removes the expiry.
func patchBody(r io.Reader) (p buckets.FilePatch, err error) {
	raw, err := io.ReadAll(io.LimitReader(r, maxPatchBytes+1))
	if err != nil {
		return p, fmt.Errorf("%w: %w", errIncompleteBody, err)
	}
	if len(raw) > maxPatchBytes {
		return p, fmt.Errorf("%w: PATCH body of more than %d bytes", buckets.ErrTooLarge, maxPatchBytes)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return p, badRequest(`body is not a JSON object such as {"filename": "...", "metadata": {...}, "expires": "72h"}`)
	}
	for k := range fields {
		if k != "filename" && k != "metadata" && k != "expires" {
			return p, badRequest("unknown field %q (use filename, metadata and expires)", k)
		}
	}
	if v, ok := fields["filename"]; ok {
		var name string
		if err := json.Unmarshal(v, &name); err != nil {
			return p, fmt.Errorf("%w: filename is not a string", buckets.ErrInvalidFilename)
		}
		if err := buckets.CheckFilename(name); err != nil {
			return p, err
		}
		p.Filename = &name
	}
	if v, ok := fields["metadata"]; ok {
		d := bson.D{}
		if !isNull(v) {
			if d, err = buckets.ParseMetadataJSON(v); err != nil {
				return p, err
			}
		}
		p.Metadata = &d
	}
	if v, ok := fields["expires"]; ok {
		var at time.Time
		if !isNull(v) {
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return p, fmt.Errorf("%w: expires is not a string such as \"2030-01-02T15:04:05Z\" or \"72h\", nor null", buckets.ErrInvalidExpiry)
			}
			if at, err = buckets.ParseExpiry(s, time.Now()); err != nil {
				return p, err
			}
		}
		p.ExpireAt = &at
	}
	if p.Filename == nil && p.Metadata == nil && p.ExpireAt == nil {
		return p, badRequest("nothing to change: give filename, metadata and/or expires")
	}
	return p, nil
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }
