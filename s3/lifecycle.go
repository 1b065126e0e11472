package s3

import (
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
)

// Get/Put/DeleteBucketLifecycleConfiguration translate S3's lifecycle XML
// to and from a bucket's lifecycle rules (buckets.Rule), which every door
// applies: Expiration (Days, Date), Filter Prefix (or the older top-level
// Prefix), NoncurrentVersionExpiration (NoncurrentDays,
// NewerNoncurrentVersions), AbortIncompleteMultipartUpload, Filter Tag and
// And (Prefix and Tags) for expirations; a Filter's parts all apply. Size filters, transitions and
// delete markers have no GridFS meaning and are NotImplemented.

// ErrNoSuchLifecycle is GetBucketLifecycleConfiguration of a bucket without
// rules.
var ErrNoSuchLifecycle = &Error{http.StatusNotFound, "NoSuchLifecycleConfiguration", "The lifecycle configuration does not exist"}

type lifecycleConfiguration struct {
	XMLName xml.Name        `xml:"LifecycleConfiguration"`
	Xmlns   string          `xml:"xmlns,attr,omitempty"`
	Rules   []lifecycleRule `xml:"Rule"`
}

type lifecycleRule struct {
	ID                             *string                `xml:"ID"`
	Prefix                         *string                `xml:"Prefix"`
	Filter                         *lifecycleFilter       `xml:"Filter"`
	Status                         string                 `xml:"Status"`
	Expiration                     *lifecycleExpiration   `xml:"Expiration"`
	NoncurrentVersionExpiration    *noncurrentExpiration  `xml:"NoncurrentVersionExpiration"`
	AbortIncompleteMultipartUpload *abortIncompleteUpload `xml:"AbortIncompleteMultipartUpload"`
	Transition                     []struct{}             `xml:"Transition"`
	NoncurrentVersionTransition    []struct{}             `xml:"NoncurrentVersionTransition"`
}

type lifecycleFilter struct {
	Prefix                *string    `xml:"Prefix"`
	Tag                   *tagXML    `xml:"Tag"`
	ObjectSizeGreaterThan *int64     `xml:"ObjectSizeGreaterThan"`
	ObjectSizeLessThan    *int64     `xml:"ObjectSizeLessThan"`
	And                   *filterAnd `xml:"And"`
}

type filterAnd struct {
	Prefix                *string  `xml:"Prefix"`
	Tags                  []tagXML `xml:"Tag"`
	ObjectSizeGreaterThan *int64   `xml:"ObjectSizeGreaterThan"`
	ObjectSizeLessThan    *int64   `xml:"ObjectSizeLessThan"`
}

type lifecycleExpiration struct {
	Days                      *int64  `xml:"Days"`
	Date                      *string `xml:"Date"`
	ExpiredObjectDeleteMarker *bool   `xml:"ExpiredObjectDeleteMarker"`
}

type noncurrentExpiration struct {
	NoncurrentDays          *int64 `xml:"NoncurrentDays"`
	NewerNoncurrentVersions *int64 `xml:"NewerNoncurrentVersions"`
}

type abortIncompleteUpload struct {
	DaysAfterInitiation *int64 `xml:"DaysAfterInitiation"`
}

const (
	day = 24 * time.Hour
	// maxLifecycleBody bounds a PutBucketLifecycleConfiguration body:
	// 1,000 rules of a few hundred bytes.
	maxLifecycleBody = 2 << 20
	// maxDays keeps Days within buckets' 100 years.
	maxDays = 36500
)

func (s *Server) getLifecycle(req *request) error {
	b, err := s.checkBucket(req.r.Context(), req.bucket)
	if err != nil {
		return err
	}
	rules := b.Settings().Lifecycle
	if len(rules) == 0 {
		return ErrNoSuchLifecycle
	}
	out := lifecycleConfiguration{Xmlns: xmlns}
	for _, r := range rules {
		out.Rules = append(out.Rules, s3Rule(r))
	}
	return s.writeXML(req, http.StatusOK, out)
}

func (s *Server) putLifecycle(req *request) error {
	ctx := req.r.Context()
	if _, err := s.checkBucket(ctx, req.bucket); err != nil {
		return err
	}
	// The rules that expire files are what the client signed, no other.
	body, err := s.readSmallBody(req)
	if err != nil {
		return err
	}
	if len(body) > maxLifecycleBody {
		return errorf(ErrInvalidRequest, "the lifecycle configuration is larger than %d bytes", maxLifecycleBody)
	}
	var in lifecycleConfiguration
	if err := xml.Unmarshal(body, &in); err != nil {
		return ErrMalformedXML
	}
	if len(in.Rules) == 0 {
		return errorf(ErrMalformedXML, "a lifecycle configuration needs at least one Rule")
	}
	rules := make([]buckets.Rule, 0, len(in.Rules))
	for i, x := range in.Rules {
		r, err := gridfsRule(x)
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				return errorf(e, "Rule %d: %s", i+1, e.Message)
			}
			return err
		}
		rules = append(rules, r)
	}
	if _, err := s.db.SetLifecycle(ctx, req.bucket, rules); err != nil {
		if errors.Is(err, buckets.ErrInvalidLifecycle) {
			return errorf(ErrInvalidArgument, "%v", err)
		}
		return err
	}
	req.w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) deleteLifecycle(req *request) error {
	ctx := req.r.Context()
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	if len(b.Settings().Lifecycle) > 0 {
		if _, err := s.db.SetLifecycle(ctx, req.bucket, nil); err != nil {
			return err
		}
	}
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

// days reads a number of days of element name, which must be at least min.
func days(name string, v *int64, min int64) (time.Duration, error) {
	if *v < min || *v > maxDays {
		return 0, errorf(ErrInvalidArgument, "%s must be between %d and %d", name, min, maxDays)
	}
	return time.Duration(*v) * day, nil
}

// gridfsRule is the buckets rule of an S3 rule, or the S3 error that says
// why there is none.
func gridfsRule(x lifecycleRule) (buckets.Rule, error) {
	var r buckets.Rule
	if x.ID != nil {
		if len(*x.ID) > buckets.MaxRuleIDBytes {
			return r, errorf(ErrInvalidArgument, "ID is longer than %d characters", buckets.MaxRuleIDBytes)
		}
		r.ID = *x.ID
	}
	switch x.Status {
	case "Enabled":
	case "Disabled":
		r.Disabled = true
	default:
		return r, errorf(ErrMalformedXML, "Status must be Enabled or Disabled")
	}
	if len(x.Transition) > 0 || len(x.NoncurrentVersionTransition) > 0 {
		return r, errorf(ErrNotImplemented, "transitions between storage classes are not supported by gridfsd")
	}
	if x.Prefix != nil && x.Filter != nil {
		return r, errorf(ErrMalformedXML, "Prefix and Filter exclude each other")
	}
	if x.Prefix != nil {
		r.Prefix = *x.Prefix
	}
	if f := x.Filter; f != nil {
		if f.ObjectSizeGreaterThan != nil || f.ObjectSizeLessThan != nil ||
			(f.And != nil && (f.And.ObjectSizeGreaterThan != nil || f.And.ObjectSizeLessThan != nil)) {
			return r, errorf(ErrNotImplemented, "filters by size are not supported by gridfsd; filter by Prefix and tags")
		}
		// S3 asks for one of Prefix, Tag and And; Ceph RGW takes several
		// as all of them, and so does gridfsd (its s3-tests send such
		// filters): a file must match every one.
		var prefixes []string
		if f.Prefix != nil {
			prefixes = append(prefixes, *f.Prefix)
		}
		if f.Tag != nil {
			r.Tags = append(r.Tags, buckets.Tag{Key: f.Tag.Key, Value: f.Tag.Value})
		}
		if f.And != nil {
			if f.And.Prefix != nil {
				prefixes = append(prefixes, *f.And.Prefix)
			}
			for _, t := range f.And.Tags {
				r.Tags = append(r.Tags, buckets.Tag{Key: t.Key, Value: t.Value})
			}
		}
		for _, p := range prefixes {
			switch {
			case strings.HasPrefix(p, r.Prefix):
				r.Prefix = p
			case !strings.HasPrefix(r.Prefix, p):
				return r, errorf(ErrInvalidArgument, "Filter prefixes %q and %q match no key together", r.Prefix, p)
			}
		}
		if err := buckets.CheckTags(r.Tags, buckets.MaxBucketTags); err != nil {
			return r, errorf(ErrInvalidArgument, "%v", err)
		}
	}
	var err error
	if e := x.Expiration; e != nil {
		switch {
		case e.ExpiredObjectDeleteMarker != nil:
			if e.Days != nil || e.Date != nil {
				return r, errorf(ErrMalformedXML, "ExpiredObjectDeleteMarker excludes Days and Date")
			}
			// Kept and shown again; GridFS has no delete markers, so
			// it removes nothing.
			r.ExpireDeleteMarkers = *e.ExpiredObjectDeleteMarker
		case (e.Days == nil) == (e.Date == nil):
			return r, errorf(ErrMalformedXML, "Expiration takes Days or Date")
		case e.Days != nil:
			d, err := days("Expiration Days", e.Days, 1)
			if err != nil {
				return r, err
			}
			r.ExpireAfter = buckets.Age(d)
		default:
			t, err := lifecycleDate(*e.Date)
			if err != nil {
				return r, err
			}
			r.ExpireDate = &t
		}
	}
	if n := x.NoncurrentVersionExpiration; n != nil {
		if n.NoncurrentDays == nil {
			return r, errorf(ErrMalformedXML, "NoncurrentVersionExpiration takes NoncurrentDays")
		}
		// NoncurrentDays 0, which AWS refuses, is what
		// GetBucketLifecycleConfiguration shows of a keepRevisions rule
		// without expireOldRevisionsAfter (set through the HTTP API):
		// noncurrent revisions beyond those kept go at once. Taking it
		// back lets a client get, edit and put the configuration.
		d, err := days("NoncurrentDays", n.NoncurrentDays, 0)
		if err != nil {
			return r, err
		}
		r.ExpireOldRevisionsAfter = buckets.Age(d)
		if v := n.NewerNoncurrentVersions; v != nil {
			if *v < 1 || *v > 100 {
				return r, errorf(ErrInvalidArgument, "NewerNoncurrentVersions must be between 1 and 100")
			}
			// The newest revision and the v newest noncurrent ones stay.
			r.KeepRevisions = int(*v) + 1
		} else if d == 0 {
			r.KeepRevisions = 1 // the newest revision only
		}
	}
	if a := x.AbortIncompleteMultipartUpload; a != nil {
		if a.DaysAfterInitiation == nil {
			return r, errorf(ErrMalformedXML, "AbortIncompleteMultipartUpload takes DaysAfterInitiation")
		}
		d, err := days("DaysAfterInitiation", a.DaysAfterInitiation, 1)
		if err != nil {
			return r, err
		}
		r.AbortUnfinishedAfter = buckets.Age(d)
	}
	if !(r.ExpireAfter > 0 || r.ExpireDate != nil || r.ExpireOldRevisionsAfter > 0 || r.KeepRevisions > 0 || r.AbortUnfinishedAfter > 0 || r.ExpireDeleteMarkers) {
		return r, errorf(ErrInvalidRequest, "a rule needs an Expiration, NoncurrentVersionExpiration or AbortIncompleteMultipartUpload")
	}
	if len(r.Tags) > 0 {
		switch {
		case r.AbortUnfinishedAfter > 0:
			// As S3: uploads in progress have no tags yet.
			return r, errorf(ErrInvalidRequest, "AbortIncompleteMultipartUpload cannot be given with a tag filter")
		case r.ExpireOldRevisionsAfter > 0 || r.KeepRevisions > 0:
			return r, errorf(ErrNotImplemented, "a tag filter on NoncurrentVersionExpiration is not supported by gridfsd")
		case r.ExpireDeleteMarkers:
			return r, errorf(ErrInvalidRequest, "ExpiredObjectDeleteMarker cannot be given with a tag filter")
		}
	}
	return r, err
}

// lifecycleDate reads an Expiration Date: ISO 8601 at midnight UTC, as S3
// requires ("2030-01-01" or "2030-01-01T00:00:00Z").
func lifecycleDate(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			if !t.Equal(t.Truncate(day)) {
				return time.Time{}, errorf(ErrInvalidArgument, "Date must be at midnight UTC")
			}
			return t, nil
		}
	}
	return time.Time{}, errorf(ErrInvalidArgument, "Date %q is not an ISO 8601 date such as 2030-01-01T00:00:00Z", s)
}

// s3Rule is r as S3 describes it; ages that are no whole number of days
// (set through the HTTP API) are rounded up, and a keepRevisions rule
// without an age has NoncurrentDays 0 (gridfsRule takes it back).
func s3Rule(r buckets.Rule) lifecycleRule {
	id, prefix := r.ID, r.Prefix
	x := lifecycleRule{ID: &id, Prefix: &prefix, Status: "Enabled"}
	switch {
	case len(r.Tags) == 1 && prefix == "":
		x.Prefix, x.Filter = nil, &lifecycleFilter{Tag: &tagXML{Key: r.Tags[0].Key, Value: r.Tags[0].Value}}
	case len(r.Tags) > 0:
		and := &filterAnd{Prefix: &prefix}
		for _, t := range r.Tags {
			and.Tags = append(and.Tags, tagXML{Key: t.Key, Value: t.Value})
		}
		x.Prefix, x.Filter = nil, &lifecycleFilter{And: and}
	}
	if r.Disabled {
		x.Status = "Disabled"
	}
	toDays := func(a buckets.Age) *int64 {
		n := int64(math.Ceil(float64(a) / float64(day)))
		return &n
	}
	switch {
	case r.ExpireAfter > 0:
		x.Expiration = &lifecycleExpiration{Days: toDays(r.ExpireAfter)}
	case r.ExpireDate != nil:
		d := r.ExpireDate.UTC().Format(time.RFC3339)
		x.Expiration = &lifecycleExpiration{Date: &d}
	case r.ExpireDeleteMarkers:
		t := true
		x.Expiration = &lifecycleExpiration{ExpiredObjectDeleteMarker: &t}
	}
	if r.ExpireOldRevisionsAfter > 0 || r.KeepRevisions > 0 {
		n := &noncurrentExpiration{}
		if r.ExpireOldRevisionsAfter > 0 {
			n.NoncurrentDays = toDays(r.ExpireOldRevisionsAfter)
		} else {
			zero := int64(0)
			n.NoncurrentDays = &zero
		}
		if r.KeepRevisions > 1 {
			v := int64(r.KeepRevisions - 1)
			n.NewerNoncurrentVersions = &v
		}
		x.NoncurrentVersionExpiration = n
	}
	if r.AbortUnfinishedAfter > 0 {
		x.AbortIncompleteMultipartUpload = &abortIncompleteUpload{DaysAfterInitiation: toDays(r.AbortUnfinishedAfter)}
	}
	return x
}

// setExpiration sends x-amz-expiration when a rule of b expires f, as S3
// does on PutObject, GetObject and HeadObject replies.
func setExpiration(h http.Header, b *buckets.Bucket, f *buckets.File) {
	if at, rule, ok := b.S3Expiration(f); ok {
		h.Set("x-amz-expiration", fmt.Sprintf(`expiry-date="%s", rule-id="%s"`, at.UTC().Format(http.TimeFormat), rule))
	}
}
