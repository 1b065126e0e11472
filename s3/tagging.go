package s3

import (
	"context"
	"encoding/xml"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/gridfsd/gridfsd/buckets"
)

// Object tagging (Get/Put/DeleteObjectTagging, x-amz-tagging on PutObject
// and CopyObject) and bucket tagging (Get/Put/DeleteBucketTagging). Object
// tags live in the files document's top-level tags (buckets.FieldTags),
// bucket tags in the bucket's settings.

type tagging struct {
	XMLName xml.Name `xml:"Tagging"`
	Xmlns   string   `xml:"xmlns,attr,omitempty"`
	TagSet  []tagXML `xml:"TagSet>Tag"`
}

type tagXML struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

// ErrNoSuchTagSet is GetBucketTagging of a bucket without tags.
var (
	ErrNoSuchTagSet = &Error{http.StatusNotFound, "NoSuchTagSet", "The TagSet does not exist"}
	ErrInvalidTag   = &Error{http.StatusBadRequest, "InvalidTag", ""}
)

func tagError(err error) error {
	if errors.Is(err, buckets.ErrInvalidTags) {
		return errorf(ErrInvalidTag, "%v", err)
	}
	return err
}

// toTagging answers a tag set sorted by key: a set has no order, and
// clients compare lists (as RGW, which keeps tags in a sorted map).
func toTagging(tags []buckets.Tag) tagging {
	t := tagging{Xmlns: xmlns, TagSet: []tagXML{}}
	for _, tag := range tags {
		t.TagSet = append(t.TagSet, tagXML(tag))
	}
	sort.SliceStable(t.TagSet, func(i, j int) bool { return t.TagSet[i].Key < t.TagSet[j].Key })
	return t
}

// readTagging reads a Tagging document and checks it against max.
func (s *Server) readTagging(req *request, max int) ([]buckets.Tag, error) {
	var t tagging
	if err := s.readXML(req, &t); err != nil {
		return nil, err
	}
	tags := make([]buckets.Tag, len(t.TagSet))
	for i, x := range t.TagSet {
		tags[i] = buckets.Tag(x)
	}
	return tags, tagError(buckets.CheckTags(tags, max))
}

// headerTags parses x-amz-tagging ("k1=v1&k2=v2", URL-encoded), keeping
// the order given.
func headerTags(h http.Header) ([]buckets.Tag, error) {
	v := h.Get("X-Amz-Tagging")
	if v == "" {
		return nil, nil
	}
	var tags []buckets.Tag
	for _, pair := range strings.Split(v, "&") {
		if pair == "" {
			continue
		}
		k, val, _ := strings.Cut(pair, "=")
		k, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(val)
		if err1 != nil || err2 != nil {
			return nil, errorf(ErrInvalidArgument, "x-amz-tagging is not URL-encoded key=value pairs")
		}
		tags = append(tags, buckets.Tag{Key: k, Value: val})
	}
	return tags, tagError(buckets.CheckTags(tags, buckets.MaxFileTags))
}

// multipartTagsField is where CreateMultipartUpload keeps its
// x-amz-tagging until Complete gives them to the object.
const multipartTagsField = "tags"

// multipartTags returns the tags CreateMultipartUpload kept for upload id.
func multipartTags(ctx context.Context, b *buckets.Bucket, id string) ([]buckets.Tag, error) {
	raw, err := b.MultipartField(ctx, id, multipartTagsField)
	if err != nil || raw.Type == 0 {
		return nil, err
	}
	var tags []buckets.Tag
	return tags, raw.Unmarshal(&tags)
}

func (s *Server) getObjectTagging(req *request) error {
	_, f, err := s.requestedObject(req)
	if err != nil {
		return err
	}
	req.w.Header().Set("x-amz-version-id", versionID(f.ID))
	return s.writeXML(req, http.StatusOK, toTagging(f.Tags()))
}

func (s *Server) putObjectTagging(req *request) error {
	ctx := req.r.Context()
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	tags, err := s.readTagging(req, buckets.MaxFileTags)
	if err != nil {
		return err
	}
	f, err := findObject(ctx, b, req.key, req.r.URL.Query().Get("versionId"))
	if err != nil {
		return err
	}
	if err := b.SetTags(ctx, f.ID, tags); err != nil {
		return tagError(err)
	}
	req.w.Header().Set("x-amz-version-id", versionID(f.ID))
	req.w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) deleteObjectTagging(req *request) error {
	ctx := req.r.Context()
	b, f, err := s.requestedObject(req)
	if err != nil {
		return err
	}
	if err := b.SetTags(ctx, f.ID, nil); err != nil {
		return err
	}
	req.w.Header().Set("x-amz-version-id", versionID(f.ID))
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) getBucketTagging(req *request) error {
	b, err := s.checkBucket(req.r.Context(), req.bucket)
	if err != nil {
		return err
	}
	tags := b.Settings().Tags
	if len(tags) == 0 {
		return ErrNoSuchTagSet
	}
	return s.writeXML(req, http.StatusOK, toTagging(tags))
}

func (s *Server) putBucketTagging(req *request) error {
	if _, err := s.checkBucket(req.r.Context(), req.bucket); err != nil {
		return err
	}
	tags, err := s.readTagging(req, buckets.MaxBucketTags)
	if err != nil {
		return err
	}
	if _, err := s.db.SetBucketTags(req.r.Context(), req.bucket, tags); err != nil {
		return tagError(err)
	}
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) deleteBucketTagging(req *request) error {
	if _, err := s.checkBucket(req.r.Context(), req.bucket); err != nil {
		return err
	}
	if _, err := s.db.SetBucketTags(req.r.Context(), req.bucket, nil); err != nil {
		return err
	}
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

// setTaggingCount tells GetObject and HeadObject how many tags f has.
func setTaggingCount(h http.Header, f *buckets.File) {
	if n := len(f.Tags()); n > 0 {
		h.Set("x-amz-tagging-count", strconv.Itoa(n))
	}
}
