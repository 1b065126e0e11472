package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/labstack/echo/v4"
)

// Fuzz targets. Their seed corpora are in testdata/fuzz/<name>/ and run
// with every go test; go test -fuzz=<name> searches further.

// FuzzRange serves content of size bytes with a client's Range header
// through what the gateway does before ServeContent, and checks that the
// reply is 200 with the whole content, 206 with exactly the bytes asked
// for, or a JSON 416; never anything else.
func FuzzRange(f *testing.F) {
	f.Fuzz(func(t *testing.T, rangeHeader string, size uint16) {
		content := make([]byte, size)
		for i := range content {
			content[i] = byte(i*7 + i>>8)
		}
		req := httptest.NewRequest(http.MethodGet, "/b/fs/x", nil)
		req.Header["Range"] = []string{rangeHeader}
		rec := httptest.NewRecorder()
		c := echo.New().NewContext(req, rec)
		w := &jsonErrors{ResponseWriter: c.Response(), c: c, size: int64(size)}
		prepareRange(req, int64(size))
		http.ServeContent(w, req, "x", time.Unix(0, 0), bytes.NewReader(content))
		res := rec.Result()
		body, _ := io.ReadAll(res.Body)
		switch res.StatusCode {
		case http.StatusOK:
			if !bytes.Equal(body, content) {
				t.Fatalf("200 with %d bytes, not the %d of the content", len(body), size)
			}
		case http.StatusPartialContent:
			ct := res.Header.Get("Content-Type")
			if mt, params, _ := mime.ParseMediaType(ct); mt == "multipart/byteranges" {
				mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
				for {
					p, err := mr.NextPart()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("multipart: %v", err)
					}
					part, _ := io.ReadAll(p)
					checkPart(t, p.Header.Get("Content-Range"), part, content)
				}
				return
			}
			checkPart(t, res.Header.Get("Content-Range"), body, content)
		case http.StatusRequestedRangeNotSatisfiable:
			var e errorBody
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Code != "range_not_satisfiable" {
				t.Fatalf("416 body %q", body)
			}
			if want := fmt.Sprintf("bytes */%d", size); res.Header.Get("Content-Range") != want {
				t.Fatalf("416 Content-Range %q, want %q", res.Header.Get("Content-Range"), want)
			}
		default:
			t.Fatalf("Range %q on %d bytes: status %d", rangeHeader, size, res.StatusCode)
		}
	})
}

func checkPart(t *testing.T, contentRange string, part, content []byte) {
	t.Helper()
	var start, end, total int
	if _, err := fmt.Sscanf(contentRange, "bytes %d-%d/%d", &start, &end, &total); err != nil {
		t.Fatalf("Content-Range %q: %v", contentRange, err)
	}
	if total != len(content) || start < 0 || end < start || end >= total || !bytes.Equal(part, content[start:end+1]) {
		t.Fatalf("Content-Range %q with %d bytes that do not match", contentRange, len(part))
	}
}

// FuzzNames checks that what the name, bucket and id checks accept has the
// properties they promise, and that what they refuse wraps their sentinel.
func FuzzNames(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		if err := buckets.CheckFilename(s); err == nil {
			if s == "" || len(s) > buckets.MaxFilenameBytes || !utf8.ValidString(s) {
				t.Fatalf("filename %q accepted", s)
			}
			for _, seg := range strings.Split(s, "/") {
				if seg == ".." {
					t.Fatalf("filename %q with a .. segment accepted", s)
				}
			}
			for _, r := range s {
				if r < 0x20 || r == 0x7f {
					t.Fatalf("filename %q with a control character accepted", s)
				}
			}
		} else if !errors.Is(err, buckets.ErrInvalidFilename) {
			t.Fatalf("CheckFilename(%q): %v does not wrap ErrInvalidFilename", s, err)
		}

		if err := buckets.CheckBucketName(s); err == nil {
			if s == "" || len(s) > buckets.MaxBucketNameBytes || !utf8.ValidString(s) ||
				strings.ContainsAny(s, "$/\\\x00") || strings.HasPrefix(s, "system.") ||
				strings.Contains(s, "..") || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") {
				t.Fatalf("bucket name %q accepted", s)
			}
		} else if !errors.Is(err, buckets.ErrInvalidBucketName) {
			t.Fatalf("CheckBucketName(%q): %v does not wrap ErrInvalidBucketName", s, err)
		}

		// An id read from a path is written back to a path that reads as
		// the same id.
		id, err := ParseFileID(s)
		if err != nil {
			if !errors.Is(err, buckets.ErrInvalidID) {
				t.Fatalf("ParseFileID(%q): %v does not wrap ErrInvalidID", s, err)
			}
			return
		}
		p, err := url.PathUnescape(FileIDPath(id))
		if err != nil {
			t.Fatalf("FileIDPath of %q does not unescape: %v", s, err)
		}
		again, err := ParseFileID(p)
		if err != nil {
			t.Fatalf("id %q: its path %q does not parse: %v", s, p, err)
		}
		if a, b := buckets.FormatID(id), buckets.FormatID(again); a != b {
			t.Fatalf("id %q reads back as %s, not %s", s, b, a)
		}
	})
}

// FuzzMetadataHeader checks that metadata headers are either refused with
// ErrInvalidMetadata or give a document MongoDB will take: no empty or
// $-prefixed field name at any depth, no deeper than MaxMetadataDepth, no
// larger than MaxMetadataBytes.
func FuzzMetadataHeader(f *testing.F) {
	f.Fuzz(func(t *testing.T, js, metaKey, metaValue string) {
		h := http.Header{}
		if js != "" {
			h[HeaderMetadata] = []string{js}
		}
		if metaKey != "" {
			h[headerMetaPrefix+metaKey] = []string{metaValue}
		}
		md, err := uploadMetadata(h)
		if err != nil {
			if !errors.Is(err, buckets.ErrInvalidMetadata) {
				t.Fatalf("%v does not wrap ErrInvalidMetadata", err)
			}
			return
		}
		raw, err := bson.Marshal(md)
		if err != nil {
			t.Fatalf("accepted metadata does not marshal: %v", err)
		}
		if len(raw) > buckets.MaxMetadataBytes {
			t.Fatalf("accepted %d bytes of metadata", len(raw))
		}
		checkAccepted(t, bson.Raw(raw), 1)
	})
}

func checkAccepted(t *testing.T, doc bson.Raw, depth int) {
	t.Helper()
	if depth > MaxMetadataDepth {
		t.Fatalf("accepted metadata nested deeper than %d", MaxMetadataDepth)
	}
	elems, err := doc.Elements()
	if err != nil {
		t.Fatalf("accepted metadata: %v", err)
	}
	for _, e := range elems {
		if e.Key() == "" || strings.HasPrefix(e.Key(), "$") || !utf8.ValidString(e.Key()) {
			t.Fatalf("accepted field name %q", e.Key())
		}
		v := e.Value()
		if s, ok := v.StringValueOK(); ok && !utf8.ValidString(s) {
			t.Fatalf("accepted invalid UTF-8 value %q", s)
		}
		if sub, ok := v.DocumentOK(); ok {
			checkAccepted(t, sub, depth+1)
		}
		if arr, ok := v.ArrayOK(); ok {
			checkAccepted(t, bson.Raw(arr), depth+1)
		}
	}
}
