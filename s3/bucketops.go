package s3

import (
	"encoding/base64"
	"encoding/xml"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
)

// bucketEpoch stands in for the creation date of buckets that other GridFS
// tools made: they record none.
var bucketEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// maxBuckets is the largest page of ListBuckets (max-buckets).
const maxBuckets = 10000

// listBuckets lists the buckets the caller may read, by name, with
// max-buckets, continuation-token and prefix paging (ListBuckets' newer
// parameters; without them, every bucket at once).
func (s *Server) listBuckets(req *request) error {
	q := req.r.URL.Query()
	all, err := s.db.AllSettings(req.r.Context())
	if err != nil {
		return err
	}
	limit := maxBuckets
	if v := q.Get("max-buckets"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxBuckets {
			return errorf(ErrInvalidArgument, "max-buckets must be an integer from 1 to %d", maxBuckets)
		}
		limit = n
	}
	after := ""
	if tok := q.Get("continuation-token"); tok != "" {
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			return errorf(ErrInvalidArgument, "The continuation token provided is incorrect")
		}
		after = string(raw)
	}
	prefix := q.Get("prefix")
	names := make([]string, 0, len(all))
	for n := range all {
		if n > after && strings.HasPrefix(n, prefix) && s.canRead(req, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	res := listAllMyBucketsResult{Xmlns: xmlns, Owner: ownerOf(s.owner(req)), Buckets: []bucketInfo{}, Prefix: prefix}
	for i, n := range names {
		if i == limit {
			res.ContinuationToken = base64.RawURLEncoding.EncodeToString([]byte(names[i-1]))
			break
		}
		created := all[n].Created
		if created.IsZero() {
			created = bucketEpoch
		}
		res.Buckets = append(res.Buckets, bucketInfo{Name: n, CreationDate: timestamp(created)})
	}
	return s.writeXML(req, http.StatusOK, res)
}

// checkS3BucketName applies S3's rules for new bucket names (3 to 63
// characters: lower-case letters, digits, dots and hyphens; a letter or
// digit at both ends; no "..", no IP address), on top of the GridFS rules of
// buckets. Buckets that other tools named otherwise (GridFS's own "fs")
// stay reachable: only CreateBucket applies them.
func checkS3BucketName(name string) error {
	bad := func(why string) error {
		return errorf(ErrInvalidBucketName, "The specified bucket is not valid: %q %s.", name, why)
	}
	if len(name) < 3 || len(name) > 63 {
		return bad("must be 3 to 63 characters long")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return bad("may hold only lower-case letters, digits, dots and hyphens")
		}
	}
	if first, last := name[0], name[len(name)-1]; first == '.' || first == '-' || last == '.' || last == '-' {
		return bad("must begin and end with a letter or digit")
	}
	if strings.Contains(name, "..") || strings.Contains(name, ".-") || strings.Contains(name, "-.") {
		return bad("may not have two adjacent periods, or a period beside a hyphen")
	}
	if isIPv4(name) {
		return bad("may not be an IP address")
	}
	return nil
}

func isIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if n, err := strconv.Atoi(p); err != nil || n < 0 || n > 255 {
			return false
		}
	}
	return true
}

// createBucketConfiguration is CreateBucket's optional body.
type createBucketConfiguration struct {
	XMLName            xml.Name `xml:"CreateBucketConfiguration"`
	LocationConstraint string   `xml:"LocationConstraint"`
}

func (s *Server) createBucket(req *request) error {
	ctx, r := req.r.Context(), req.r
	if err := checkS3BucketName(req.bucket); err != nil {
		return err
	}
	if err := buckets.CheckBucketName(req.bucket); err != nil {
		return err
	}
	// Promises gridfsd would not keep are refused, not ignored.
	if strings.EqualFold(r.Header.Get("X-Amz-Bucket-Object-Lock-Enabled"), "true") {
		return errorf(ErrNotImplemented, "object lock is not supported by gridfsd")
	}
	if err := checkACLHeaders(r.Header); err != nil {
		return err
	}
	ownership, err := objectOwnership(r.Header.Get("X-Amz-Object-Ownership"))
	if err != nil {
		return err
	}
	body, err := s.readSmallBody(req) // the location constraint signed
	if err != nil {
		return err
	}
	var location string
	if len(strings.TrimSpace(string(body))) > 0 {
		var cfg createBucketConfiguration
		if err := xml.Unmarshal(body, &cfg); err != nil {
			return ErrMalformedXML
		}
		// Any region name is taken (gridfsd has one, wherever the client
		// thinks) and kept for GetBucketLocation.
		location = cfg.LocationConstraint
		if location != "" && location != "EU" && !validRegion(location) {
			return errorf(ErrInvalidLocationConstraint, "The specified location-constraint is not valid: %q", location)
		}
	}
	found, err := s.db.Exists(ctx, req.bucket)
	if err != nil {
		return err
	}
	if found {
		return s.bucketExists(req, location)
	}
	if _, err := s.db.Create(ctx, req.bucket, buckets.Settings{Owner: s.owner(req), Location: location, ACL: r.Header.Get("X-Amz-Acl"), Ownership: ownership}); err != nil {
		return err
	}
	req.w.Header().Set("Location", "/"+req.bucket)
	req.w.WriteHeader(http.StatusOK)
	return nil
}

// bucketExists answers a CreateBucket of an existing bucket as S3 does:
// BucketAlreadyExists when another token created it; for its owner (or a
// bucket with none recorded: made by another tool, or with access control
// off) 200 and nothing changed in the default region (us-east-1's legacy
// answer, which SDKs and ceph's s3-tests expect there) but the canned ACL
// it names, else BucketAlreadyOwnedByYou.
func (s *Server) bucketExists(req *request, location string) error {
	b, err := s.db.Bucket(req.r.Context(), req.bucket)
	if err != nil {
		return err
	}
	if owner, me := b.Settings().Owner, s.owner(req); owner != "" && me != "" && owner != me {
		return ErrBucketAlreadyExists
	}
	if location == "" || location == "us-east-1" {
		if acl := req.r.Header.Get("X-Amz-Acl"); acl != "" {
			// us-east-1 sets the ACL a CreateBucket of one's own
			// bucket names; an ACL taken and not applied would be a
			// promise not kept.
			if _, err := s.db.SetBucketACL(req.r.Context(), req.bucket, acl); err != nil {
				return err
			}
		}
		req.w.Header().Set("Location", "/"+req.bucket)
		req.w.WriteHeader(http.StatusOK)
		return nil
	}
	return ErrBucketExists
}

// owner is the S3 owner of what req creates: its token's name, empty
// without access control (or unsigned).
func (s *Server) owner(req *request) string {
	if !s.auth.Enabled() || req.sig == nil {
		return ""
	}
	return req.sig.accessKey
}

// storageClasses are S3's storage classes. gridfsd has one kind of
// storage; STANDARD is it, and REDUCED_REDUNDANCY promises less than it
// keeps, so both are taken. The others promise tiers gridfsd does not
// have: NotImplemented. Anything else is no storage class: 400.
var storageClasses = map[string]bool{
	"STANDARD": true, "REDUCED_REDUNDANCY": true,
	"STANDARD_IA": false, "ONEZONE_IA": false, "INTELLIGENT_TIERING": false, "GLACIER": false, "DEEP_ARCHIVE": false,
	"OUTPOSTS": false, "GLACIER_IR": false, "SNOW": false, "EXPRESS_ONEZONE": false,
}

// checkWriteHeaders refuses the headers of an object write that ask for
// what gridfsd does not do: another storage class, server-side encryption,
// object lock, ACL grants.
func checkWriteHeaders(h http.Header) error {
	if sc := h.Get("X-Amz-Storage-Class"); sc != "" {
		ok, known := storageClasses[sc]
		switch {
		case !known:
			return ErrInvalidStorageClass
		case !ok:
			return errorf(ErrNotImplemented, "storage class %s is not supported by gridfsd (STANDARD only)", sc)
		}
	}
	for _, name := range []string{"X-Amz-Server-Side-Encryption", "X-Amz-Server-Side-Encryption-Customer-Algorithm",
		"X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id", "X-Amz-Object-Lock-Mode", "X-Amz-Object-Lock-Retain-Until-Date",
		"X-Amz-Object-Lock-Legal-Hold"} {
		if h.Get(name) != "" {
			return errorf(ErrNotImplemented, "%s is not supported by gridfsd", name)
		}
	}
	return checkACLHeaders(h)
}

func checkACLHeaders(h http.Header) error {
	if acl := h.Get("X-Amz-Acl"); acl != "" && buckets.CheckACL(acl) != nil {
		return errorf(ErrInvalidArgument, "x-amz-acl %q is not a canned ACL", acl)
	}
	for _, name := range []string{"X-Amz-Grant-Full-Control", "X-Amz-Grant-Read", "X-Amz-Grant-Read-Acp", "X-Amz-Grant-Write", "X-Amz-Grant-Write-Acp"} {
		if h.Get(name) != "" {
			return errorf(ErrNotImplemented, "gridfsd takes canned ACLs only (x-amz-acl), not grants to named grantees (%s)", name)
		}
	}
	return nil
}
