package gateway

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// Header names of gridfsd's own.
const (
	HeaderMetadata = "X-Gridfs-Metadata"
	HeaderID       = "X-Gridfs-Id"
	// HeaderExpires is when a file expires: sent on PUT (a date or a delay,
	// buckets.ParseExpiry), answered on GET and HEAD (RFC 3339).
	HeaderExpires    = "X-Gridfs-Expires"
	headerMetaPrefix = "X-Meta-"
)

// uploadMetadata is the user metadata of an upload: the X-Gridfs-Metadata
// object, then each X-Meta-<Key> header as a string field named by the
// lower-cased key (HTTP header names are case-insensitive, so their case
// cannot be kept), replacing a field of the same name.
func uploadMetadata(h http.Header) (bson.D, error) {
	var md bson.D
	if v := h.Values(HeaderMetadata); len(v) > 0 {
		if len(v) > 1 {
			return nil, fmt.Errorf("%w: %s given %d times", buckets.ErrInvalidMetadata, HeaderMetadata, len(v))
		}
		var err error
		if md, err = buckets.ParseMetadataJSON([]byte(v[0])); err != nil {
			return nil, fmt.Errorf("%s: %w", HeaderMetadata, err)
		}
	}
	for name, values := range h {
		key, ok := strings.CutPrefix(name, headerMetaPrefix)
		if !ok {
			continue
		}
		key = strings.ToLower(key)
		value := strings.Join(values, ", ")
		if key == "" || strings.HasPrefix(key, "$") || strings.ContainsAny(key, ".\x00") || !utf8.ValidString(key) {
			return nil, fmt.Errorf("%w: header %s: field names may not be empty, start with $ or contain a dot", buckets.ErrInvalidMetadata, name)
		}
		if !utf8.ValidString(value) {
			return nil, fmt.Errorf("%w: header %s is not valid UTF-8", buckets.ErrInvalidMetadata, name)
		}
		md = setField(md, key, value)
	}
	if md == nil {
		return nil, nil
	}
	// The whole document, X-Meta-* fields included, is checked as the
	// store will see it, so that a bad field fails here and not at commit.
	if err := buckets.CheckMetadata(md); err != nil {
		return nil, err
	}
	return md, nil
}

func setField(d bson.D, key string, value any) bson.D {
	for i := range d {
		if d[i].Key == key {
			d[i].Value = value
			return d
		}
	}
	return append(d, bson.E{Key: key, Value: value})
}

// MaxMetadataDepth bounds how deeply metadata objects and arrays nest; the
// rule is buckets'.
const MaxMetadataDepth = buckets.MaxMetadataDepth

// digests are the integrity checks a client sent with an upload.
type digests struct {
	md5    []byte // Content-MD5 (RFC 1864)
	sha256 []byte // Repr-Digest or Content-Digest sha-256 (RFC 9530)
}

// parseDigests reads Content-MD5 and the sha-256 member of Repr-Digest and
// Content-Digest (the same thing here: gridfsd applies no content coding).
// Other algorithms are ignored, as RFC 9530 allows.
func parseDigests(h http.Header) (digests, error) {
	var d digests
	if v := h.Get("Content-MD5"); v != "" {
		sum, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
		if err != nil || len(sum) != md5.Size {
			return d, badRequest("Content-MD5 is not the base64 of 16 bytes")
		}
		d.md5 = sum
	}
	for _, name := range []string{"Repr-Digest", "Content-Digest"} {
		for _, member := range strings.Split(strings.Join(h.Values(name), ","), ",") {
			alg, val, ok := strings.Cut(strings.TrimSpace(member), "=")
			if !ok || strings.ToLower(strings.TrimSpace(alg)) != "sha-256" {
				continue
			}
			val = strings.TrimSpace(val)
			if len(val) < 2 || val[0] != ':' || val[len(val)-1] != ':' {
				return d, badRequest("%s: sha-256 is not a byte sequence such as :base64:", name)
			}
			sum, err := base64.StdEncoding.DecodeString(val[1 : len(val)-1])
			if err != nil || len(sum) != sha256.Size {
				return d, badRequest("%s: sha-256 is not the base64 of 32 bytes", name)
			}
			if d.sha256 != nil && !bytes.Equal(d.sha256, sum) {
				return d, badRequest("Repr-Digest and Content-Digest disagree")
			}
			d.sha256 = sum
		}
	}
	return d, nil
}

// check compares the sums of what was received with what the client sent.
func (d digests) check(sha, md []byte) error {
	if d.sha256 != nil && !bytes.Equal(d.sha256, sha) {
		return fmt.Errorf("%w: the body's sha-256 is :%s:, not the one in Repr-Digest", errDigestMismatch, base64.StdEncoding.EncodeToString(sha))
	}
	if d.md5 != nil && !bytes.Equal(d.md5, md) {
		return fmt.Errorf("%w: the body's MD5 is %s, not the one in Content-MD5", errDigestMismatch, base64.StdEncoding.EncodeToString(md))
	}
	return nil
}

// asciiJSON escapes every non-ASCII character of JSON text as \uXXXX, so
// that it can travel in an HTTP header field unchanged. Outside strings,
// JSON text is ASCII already.
func asciiJSON(b []byte) string {
	var out strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == 0x7f:
			// DEL is ASCII but not allowed in a header field value
			// (RFC 9110 5.5); JSON encoders leave it unescaped.
			out.WriteString(`\u007f`)
		case r < utf8.RuneSelf:
			out.WriteByte(b[0])
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
		b = b[size:]
	}
	return out.String()
}

// mediaType is the Content-Type of a download: what the uploader gave
// (metadata.contentType or the legacy contentType), else what the name's
// extension says, else "" for the caller to sniff.
func mediaType(f *buckets.File) string {
	if ct := f.MediaType(); ct != "" {
		return ct
	}
	return mime.TypeByExtension(path.Ext(f.Filename))
}

// headerContentType is a stored media type as a Content-Type header value.
// Files written by other tools may hold anything there: a control byte or
// non-ASCII would make the reply unreadable to clients (curl refuses a NUL
// in a header), so such a type is served as an opaque download.
func headerContentType(ct string) string {
	for i := 0; i < len(ct); i++ {
		if c := ct[i]; c < 0x20 && c != '\t' || c >= 0x7f {
			return "application/octet-stream"
		}
	}
	return ct
}

// intParam reads an optional integer query parameter.
func intParam(c interface{ QueryParam(string) string }, name string, def int) (int, error) {
	v := c.QueryParam(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, badRequest("query parameter %s: %q is not an integer", name, v)
	}
	return n, nil
}
