package s3

import (
	"context"
	"encoding/base64"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gridfsd/gridfsd/buckets"
)

// maxListKeys is S3's page limit of the listings.
const maxListKeys = 1000

func (s *Server) headBucket(req *request) error {
	if _, err := s.checkBucket(req.r.Context(), req.bucket); err != nil {
		return err
	}
	req.w.Header().Set("x-amz-bucket-region", "us-east-1")
	req.w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) deleteBucket(req *request) error {
	s.forgetBucket(req.bucket)
	if err := s.db.Drop(req.r.Context(), req.bucket, false); err != nil {
		return err
	}
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) bucketLocation(req *request) error {
	b, err := s.checkBucket(req.r.Context(), req.bucket)
	if err != nil {
		return err
	}
	// The region CreateBucket named; none (us-east-1's empty answer) for
	// the default region and buckets made otherwise.
	loc := b.Settings().Location
	if loc == "us-east-1" {
		loc = ""
	}
	return s.writeXML(req, http.StatusOK, locationConstraint{Xmlns: xmlns, Value: loc})
}

// entry is one element of a listing: all revisions of one key (oldest
// first), or a common prefix.
type entry struct {
	revisions []*buckets.File
	prefix    string
}

func (e entry) name() string {
	if e.prefix != "" {
		return e.prefix
	}
	return e.revisions[0].Filename
}

// walk calls fn for each key under prefix after marker (in byte order),
// with the keys that share a delimiter-ended prefix rolled up into one
// common prefix, until fn returns false. Each page is one indexed range
// query; a rolled-up prefix is skipped with a new range query rather than
// read through when buckets.PrefixEnd can bound it. With markers, deleted
// keys and delete markers are walked too (buckets.Query.DeleteMarkers).
func walk(ctx context.Context, b *buckets.Bucket, prefix, delimiter, marker string, markers bool, fn func(entry) bool) error {
	from, lastPrefix := resume(marker, prefix, delimiter)
	q := buckets.Query{Prefix: prefix, From: from, Limit: buckets.MaxLimit, DeleteMarkers: markers}
	var group []*buckets.File
	flush := func() bool {
		if len(group) == 0 {
			return true
		}
		g := group
		group = nil
		return fn(entry{revisions: g})
	}
	for {
		page, err := b.Find(ctx, q)
		if err != nil {
			return err
		}
		restart := false
		for _, f := range page.Files {
			if len(group) > 0 && f.Filename == group[0].Filename {
				group = append(group, f)
				continue
			}
			if !flush() {
				return nil
			}
			if lastPrefix != "" && strings.HasPrefix(f.Filename, lastPrefix) {
				continue
			}
			if delimiter != "" {
				if i := strings.Index(f.Filename[len(prefix):], delimiter); i >= 0 {
					cp := f.Filename[:len(prefix)+i+len(delimiter)]
					lastPrefix = cp
					if !fn(entry{prefix: cp}) {
						return nil
					}
					if next, ok := buckets.PrefixEnd(cp); ok {
						q.From, q.After, restart = next, "", true
						break
					}
					continue
				}
			}
			group = append(group, f)
		}
		if restart {
			continue
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	flush()
	return nil
}

// resume is where a listing continues after marker (a key or a common
// prefix already returned): from, the first name to read, and skip, the
// common prefix holding marker, whose names are not listed again (with no
// buckets.PrefixEnd to start past them, walk reads through them).
func resume(marker, prefix, delimiter string) (from, skip string) {
	if marker == "" {
		return "", ""
	}
	if delimiter != "" && strings.HasPrefix(marker, prefix) {
		if i := strings.Index(marker[len(prefix):], delimiter); i >= 0 {
			cp := marker[:len(prefix)+i+len(delimiter)]
			if next, ok := buckets.PrefixEnd(cp); ok {
				return next, cp
			}
			return marker + "\x00", cp
		}
	}
	return marker + "\x00", ""
}

func maxKeys(q url.Values, name string) (int, error) {
	v := q.Get(name)
	if v == "" {
		return maxListKeys, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, errorf(ErrInvalidArgument, "%s must be a non-negative integer", name)
	}
	return min(n, maxListKeys), nil
}

// encoder applies encoding-type=url to the names in a listing.
type encoder bool

func (e encoder) enc(s string) string {
	if !e {
		return s
	}
	return urlEncode(s)
}

// urlEncode is S3's encoding-type=url: every byte but the unreserved
// characters of RFC 3986 and "/" percent-encoded (a space is %20, never
// the "+" of form encoding, which clients would decode as a plus).
func urlEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// listing runs walk for a ListObjects page: up to max entries after
// marker, and whether more follow.
func listing(ctx context.Context, b *buckets.Bucket, prefix, delimiter, marker string, max int) (entries []entry, truncated bool, err error) {
	if max == 0 {
		// As AWS: an empty page that is not truncated (it could not say
		// where the next one starts).
		return nil, false, nil
	}
	err = walk(ctx, b, prefix, delimiter, marker, false, func(e entry) bool {
		if len(entries) == max {
			// max-keys=0 asks for no key, not for a truncated page.
			truncated = max > 0
			return false
		}
		entries = append(entries, e)
		return true
	})
	return entries, truncated, err
}

func (s *Server) objectsPage(req *request, marker string, max int, enc encoder, res *listBucketResult) error {
	ctx := req.r.Context()
	q := req.r.URL.Query()
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	prefix, delimiter := q.Get("prefix"), q.Get("delimiter")
	res.Xmlns, res.Name, res.MaxKeys = xmlns, req.bucket, max
	res.Prefix, res.Delimiter = enc.enc(prefix), enc.enc(delimiter)
	if enc {
		res.EncodingType = "url"
	}
	entries, truncated, err := listing(ctx, b, prefix, delimiter, marker, max)
	if err != nil {
		return err
	}
	res.IsTruncated = truncated
	res.Contents = []object{}
	bucketOwner := ownerOf(b.Settings().Owner)
	for _, e := range entries {
		if e.prefix != "" {
			res.CommonPrefixes = append(res.CommonPrefixes, commonPrefix{Prefix: enc.enc(e.prefix)})
			continue
		}
		f := e.revisions[len(e.revisions)-1]
		o := object{Key: enc.enc(f.Filename), LastModified: timestamp(f.UploadDate), ETag: objectETag(f), Size: f.Length, StorageClass: "STANDARD"}
		if q.Get("fetch-owner") == "true" || q.Get("list-type") != "2" {
			// gridfsd records who created a bucket, not who wrote each
			// object: the bucket's owner stands for both (as in Get*Acl).
			o.Owner = &bucketOwner
		}
		if q.Get("metadata") == "true" {
			o.UserMetadata = listMetadata(f)
		}
		res.Contents = append(res.Contents, o)
	}
	if truncated && len(entries) > 0 {
		last := entries[len(entries)-1].name()
		res.NextMarker = last
		res.NextContinue = base64.RawURLEncoding.EncodeToString([]byte(last))
	}
	return nil
}

func (s *Server) listObjectsV1(req *request) error {
	q := req.r.URL.Query()
	max, err := maxKeys(q, "max-keys")
	if err != nil {
		return err
	}
	enc := encoder(q.Get("encoding-type") == "url")
	marker := q.Get("marker")
	res := listBucketResult{Marker: new(string)}
	*res.Marker = enc.enc(marker)
	if err := s.objectsPage(req, marker, max, enc, &res); err != nil {
		return err
	}
	res.NextContinue = ""
	// ListObjects (v1) echoes its prefix as given, encoding-type or not:
	// botocore, which asks for encoding-type=url itself, decodes every name
	// of a v1 listing but that one (and ceph's s3-tests check it as RGW
	// answers); v2 encodes it, and botocore decodes it there.
	res.Prefix = q.Get("prefix")
	if q.Get("delimiter") == "" {
		res.NextMarker = "" // S3 sends NextMarker only with a delimiter; clients use the last key
	} else {
		res.NextMarker = enc.enc(res.NextMarker)
	}
	return s.writeXML(req, http.StatusOK, res)
}

func (s *Server) listObjectsV2(req *request) error {
	q := req.r.URL.Query()
	max, err := maxKeys(q, "max-keys")
	if err != nil {
		return err
	}
	enc := encoder(q.Get("encoding-type") == "url")
	marker := q.Get("start-after")
	res := listBucketResult{StartAfter: enc.enc(marker)}
	if q.Has("continuation-token") {
		tok := q.Get("continuation-token")
		res.Continuation = &tok
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			return errorf(ErrInvalidArgument, "The continuation token provided is incorrect")
		}
		marker = string(raw)
	}
	if err := s.objectsPage(req, marker, max, enc, &res); err != nil {
		return err
	}
	res.NextMarker = ""
	n := len(res.Contents) + len(res.CommonPrefixes)
	res.KeyCount = &n
	return s.writeXML(req, http.StatusOK, res)
}

// listVersions lists every revision of each key, newest first. Pages end
// between keys; version-id-marker is accepted but paging is by key.
func (s *Server) listVersions(req *request) error {
	ctx := req.r.Context()
	q := req.r.URL.Query()
	max, err := maxKeys(q, "max-keys")
	if err != nil {
		return err
	}
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	enc := encoder(q.Get("encoding-type") == "url")
	prefix, delimiter, marker := q.Get("prefix"), q.Get("delimiter"), q.Get("key-marker")
	res := listVersionsResult{Xmlns: xmlns, Name: req.bucket, Prefix: enc.enc(prefix), Delimiter: enc.enc(delimiter),
		KeyMarker: enc.enc(marker), VersionIDMarker: q.Get("version-id-marker"), MaxKeys: max, Versions: []any{}}
	if enc {
		res.EncodingType = "url"
	}
	if max == 0 {
		// As listing: an empty page that is not truncated (it could not
		// say where the next one starts).
		return s.writeXML(req, http.StatusOK, res)
	}
	count := 0
	var last, lastVersion string
	err = walk(ctx, b, prefix, delimiter, marker, true, func(e entry) bool {
		if count >= max {
			res.IsTruncated = true
			return false
		}
		last, lastVersion = e.name(), "null"
		if e.prefix != "" {
			res.CommonPrefixes = append(res.CommonPrefixes, commonPrefix{Prefix: enc.enc(e.prefix)})
			count++
			return true
		}
		entries := versionEntries(b, e.revisions, enc)
		res.Versions = append(res.Versions, entries...)
		lastVersion = versionID(e.revisions[0].ID)
		count += len(entries)
		return true
	})
	if err != nil {
		return err
	}
	if res.IsTruncated {
		// Pages end between keys, so the version marker only has to be
		// there: clients pass it back, and the key marker alone resumes.
		res.NextKeyMarker, res.NextVersionIDMarker = enc.enc(last), lastVersion
	}
	return s.writeXML(req, http.StatusOK, res)
}

// maxXMLBody bounds the XML request bodies (DeleteObjects, Complete).
const maxXMLBody = 2 << 20

// readXML reads a small XML request body, checking the payload hash and
// Content-MD5 the client declared for it.
func (s *Server) readXML(req *request, v any) error {
	data, err := s.readSmallBody(req)
	if err != nil {
		return err
	}
	if err := xml.Unmarshal(data, v); err != nil {
		return ErrMalformedXML
	}
	return nil
}

// readSmallBody reads the body of a request that is not an upload (an XML
// document, or the empty body of a copy), at most maxXMLBody bytes, and
// checks it against the payload hash and Content-MD5 the client declared
// (signed, so that what was signed is what is acted on).
func (s *Server) readSmallBody(req *request) ([]byte, error) {
	u, err := s.uploadBody(req)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(u.body, maxXMLBody+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxXMLBody {
		return nil, errorf(ErrMalformedXML, "the XML body is larger than %d bytes", maxXMLBody)
	}
	if u.sha256 != "" && u.sha256 != sha256Hex(string(data)) {
		return nil, ErrSHA256Mismatch
	}
	if u.md5 != nil && string(u.md5) != string(md5Sum(data)) {
		return nil, ErrBadDigest
	}
	return data, nil
}

func (s *Server) deleteObjects(req *request) error {
	ctx := req.r.Context()
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	var d deleteRequest
	if err := s.readXML(req, &d); err != nil {
		return err
	}
	if len(d.Objects) > maxListKeys {
		return errorf(ErrMalformedXML, "at most %d keys per request", maxListKeys)
	}
	res := deleteResult{Xmlns: xmlns}
	for _, o := range d.Objects {
		var err error
		done := deletedObject{Key: o.Key, VersionID: o.VersionID}
		if o.VersionID != "" {
			done.DeleteMarker, err = deleteVersion(ctx, b, o.Key, o.VersionID, buckets.Conditions{})
			if done.DeleteMarker {
				done.DeleteMarkerVersionID = o.VersionID
			}
		} else {
			var m *buckets.File
			if m, err = deleteKey(ctx, b, o.Key, buckets.Conditions{}); m != nil {
				done.DeleteMarker, done.DeleteMarkerVersionID = true, fileVersionID(b, m)
			}
		}
		if err != nil {
			e, internal := toError(err)
			if internal {
				s.log.Error("s3: delete object", "request_id", req.id, "key", o.Key, "error", err)
			}
			res.Errors = append(res.Errors, deleteError{Key: o.Key, VersionID: o.VersionID, Code: e.Code, Message: e.Message})
			continue
		}
		if !d.Quiet {
			res.Deleted = append(res.Deleted, done)
		}
	}
	return s.writeXML(req, http.StatusOK, res)
}
