package s3

import (
	"encoding/xml"
	"errors"
	"net/http"
	"strings"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
)

// Canned ACLs (x-amz-acl on CreateBucket, PutBucketAcl, PutObject,
// CopyObject, CreateMultipartUpload, PutObjectAcl, and a POST form's acl
// field) are kept by package buckets and enforced by the authorizer of
// every door: a public-read bucket may be listed and read by anyone, a
// public-read-write one written too, a public-read object read by anyone.
// Grants to named grantees (x-amz-grant-*, an ACL document) are not
// supported: 501.

type accessControlPolicy struct {
	XMLName xml.Name `xml:"AccessControlPolicy"`
	Xmlns   string   `xml:"xmlns,attr,omitempty"`
	Owner   owner    `xml:"Owner"`
	Grants  []grant  `xml:"AccessControlList>Grant"`
}

type grant struct {
	Grantee    grantee `xml:"Grantee"`
	Permission string  `xml:"Permission"`
}

type grantee struct {
	XMLNSXSI    string `xml:"xmlns:xsi,attr"`
	Type        string `xml:"xsi:type,attr"`
	ID          string `xml:"ID,omitempty"`
	DisplayName string `xml:"DisplayName,omitempty"`
	URI         string `xml:"URI,omitempty"`
}

// The groups S3's canned ACLs grant to.
const (
	groupAllUsers           = "http://acs.amazonaws.com/groups/global/AllUsers"
	groupAuthenticatedUsers = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"
	xsiNamespace            = "http://www.w3.org/2001/XMLSchema-instance"
)

// aclPolicy is the ACL document of canned ACL acl for o: the groups' grants
// first, then the owner's FULL_CONTROL.
func aclPolicy(o owner, acl string) accessControlPolicy {
	group := func(uri, perm string) grant {
		return grant{Grantee: grantee{XMLNSXSI: xsiNamespace, Type: "Group", URI: uri}, Permission: perm}
	}
	var grants []grant
	switch acl {
	case buckets.ACLPublicRead:
		grants = append(grants, group(groupAllUsers, "READ"))
	case buckets.ACLPublicReadWrite:
		grants = append(grants, group(groupAllUsers, "READ"), group(groupAllUsers, "WRITE"))
	case buckets.ACLAuthenticatedRead:
		grants = append(grants, group(groupAuthenticatedUsers, "READ"))
	}
	grants = append(grants, grant{Grantee: grantee{XMLNSXSI: xsiNamespace, Type: "CanonicalUser", ID: o.ID, DisplayName: o.DisplayName},
		Permission: "FULL_CONTROL"})
	return accessControlPolicy{Xmlns: xmlns, Owner: o, Grants: grants}
}

func (s *Server) getACL(req *request) error {
	ctx := req.r.Context()
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	acl := b.Settings().ACLName()
	if req.key != "" {
		f, err := findObject(ctx, b, req.key, req.r.URL.Query().Get("versionId"))
		if err != nil {
			return err
		}
		acl = f.ACL()
	}
	// gridfsd records who created a bucket, not who wrote each object:
	// the bucket's owner stands for both.
	return s.writeXML(req, http.StatusOK, aclPolicy(ownerOf(b.Settings().Owner), acl))
}

// cannedACL is the canned ACL a Put*Acl request sets: its x-amz-acl, or
// an ACL document (what s3cmd, Cyberduck and older SDKs send) that says
// exactly what a canned ACL says: the owner's FULL_CONTROL and the groups'
// grants of one canned ACL. Any other document grants what gridfsd cannot
// keep (a named user, an e-mail address, the owner without full control):
// NotImplemented. "" means neither was sent.
func (s *Server) cannedACL(req *request, o owner) (string, error) {
	if err := checkACLHeaders(req.r.Header); err != nil {
		return "", err
	}
	body, err := s.readSmallBody(req)
	if err != nil {
		return "", err
	}
	header := req.r.Header.Get("X-Amz-Acl")
	if strings.TrimSpace(string(body)) == "" {
		return req.acl, nil // x-amz-acl as route's checkACL took it
	}
	if header != "" {
		return "", errorf(ErrInvalidRequest, "Specify either x-amz-acl or an access control policy document, not both")
	}
	var doc accessControlPolicyIn
	if err := xml.Unmarshal(body, &doc); err != nil {
		return "", ErrMalformedXML
	}
	acl, ok := doc.canned(o)
	if !ok {
		return "", errorf(ErrNotImplemented, "gridfsd takes canned ACLs only: an ACL document must say what one says (the owner's FULL_CONTROL, and READ or WRITE for AllUsers or READ for AuthenticatedUsers)")
	}
	return s.checkACL(req, acl)
}

// accessControlPolicyIn is an ACL document as clients send it.
type accessControlPolicyIn struct {
	Grants []struct {
		Grantee struct {
			Type         string `xml:"type,attr"`
			ID           string `xml:"ID"`
			URI          string `xml:"URI"`
			EmailAddress string `xml:"EmailAddress"`
		} `xml:"Grantee"`
		Permission string `xml:"Permission"`
	} `xml:"AccessControlList>Grant"`
}

// canned is the canned ACL the document amounts to for owner o, if any.
func (d accessControlPolicyIn) canned(o owner) (string, bool) {
	ownerFull := false
	groups := map[string]bool{}
	for _, g := range d.Grants {
		switch {
		case g.Grantee.Type == "CanonicalUser" && g.Grantee.ID == o.ID && g.Permission == "FULL_CONTROL":
			ownerFull = true
		case g.Grantee.Type == "Group" && (g.Grantee.URI == groupAllUsers || g.Grantee.URI == groupAuthenticatedUsers):
			groups[g.Grantee.URI+" "+g.Permission] = true
		default:
			return "", false
		}
	}
	if !ownerFull {
		return "", false
	}
	for acl, want := range map[string][]string{
		buckets.ACLPrivate:           nil,
		buckets.ACLPublicRead:        {groupAllUsers + " READ"},
		buckets.ACLPublicReadWrite:   {groupAllUsers + " READ", groupAllUsers + " WRITE"},
		buckets.ACLAuthenticatedRead: {groupAuthenticatedUsers + " READ"},
	} {
		if len(want) != len(groups) {
			continue
		}
		all := true
		for _, w := range want {
			all = all && groups[w]
		}
		if all {
			return acl, true
		}
	}
	return "", false
}

func (s *Server) putBucketACL(req *request) error {
	ctx := req.r.Context()
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	acl, err := s.cannedACL(req, ownerOf(b.Settings().Owner))
	if err != nil {
		return err
	}
	if acl != "" {
		if _, err := s.db.SetBucketACL(ctx, req.bucket, acl); err != nil {
			return err
		}
	}
	req.w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) putObjectACL(req *request) error {
	ctx := req.r.Context()
	b, f, err := s.requestedObject(req)
	if err != nil {
		return err
	}
	acl, err := s.cannedACL(req, ownerOf(b.Settings().Owner))
	if err != nil {
		return err
	}
	if acl != "" {
		if err := b.SetACL(ctx, f.ID, acl); err != nil {
			return err
		}
	}
	req.w.Header().Set("x-amz-version-id", versionID(f.ID))
	req.w.WriteHeader(http.StatusOK)
	return nil
}

// checkACL refuses, before anything is written, a request asking for the
// canned ACL acl that it may not set: any but private where the bucket's
// object ownership disables ACLs (400), one this gateway or the bucket's
// public access block forbids (403), or a public one from a caller
// without admin access to the bucket (403). It returns the ACL to keep.
// An object write may also ask for a public ACL that grants no more than
// the bucket already grants everyone (an anonymous form upload to a
// public-read-write bucket sends acl=public-read): it is taken and kept as
// private, so that the object is as public as its bucket and no more:
// making the bucket private again withdraws it.
func (s *Server) checkACL(req *request, acl string) (string, error) {
	if acl == "" || req.bucket == "" {
		return acl, nil
	}
	if err := buckets.CheckACL(acl); err != nil {
		return "", errorf(ErrInvalidArgument, "x-amz-acl %q is not a canned ACL", acl)
	}
	ctx := req.r.Context()
	b, err := s.db.Bucket(ctx, req.bucket)
	if err != nil {
		return "", err
	}
	if err := b.CheckACL(acl); err != nil {
		return "", err
	}
	if !buckets.PublicACL(acl) || !s.auth.Enabled() {
		return acl, nil
	}
	if s.allow(req, req.bucket, auth.Admin) == nil {
		return acl, nil
	}
	if req.key != "" {
		p, err := s.db.Publicity(ctx, req.bucket)
		if err != nil {
			return "", err
		}
		if p.AnyoneRead || (acl == buckets.ACLAuthenticatedRead && p.AuthenticatedRead) {
			return buckets.ACLPrivate, nil
		}
	}
	return "", errorf(ErrAccessDenied, "Access Denied: a public ACL (%s) may be set only with admin access to bucket %q", acl, req.bucket)
}

type policyStatus struct {
	XMLName  xml.Name `xml:"PolicyStatus"`
	Xmlns    string   `xml:"xmlns,attr,omitempty"`
	IsPublic bool     `xml:"IsPublic"`
}

// getPolicyStatus serves GetBucketPolicyStatus: whether the bucket is
// public, by what the authorizer would let a request without a credential
// do (auth.anonymous_read, a public canned ACL, access control off) or an
// authenticated-read ACL give every token. gridfsd has no bucket policies;
// this is what they would report.
func (s *Server) getPolicyStatus(req *request) error {
	ctx := req.r.Context()
	if _, err := s.checkBucket(ctx, req.bucket); err != nil {
		return err
	}
	public := true
	if s.auth.Enabled() {
		_, err := s.auth.Decide(ctx, "", req.bucket, "", auth.List)
		if err != nil && !errors.Is(err, auth.ErrUnauthenticated) && !errors.Is(err, auth.ErrForbidden) {
			return err
		}
		p, perr := s.db.Publicity(ctx, req.bucket)
		if perr != nil {
			return perr
		}
		public = err == nil || (p.AuthenticatedRead && !p.Restricted)
	}
	return s.writeXML(req, http.StatusOK, policyStatus{Xmlns: xmlns, IsPublic: public})
}

// Object ownership controls: gridfsd records buckets' owners, not objects',
// so the bucket's owner owns every object. BucketOwnerEnforced says so and
// disables ACLs (buckets.OwnershipBucketOwnerEnforced); ObjectWriter and
// BucketOwnerPreferred would promise objects owned by their writers:
// NotImplemented.

type ownershipControls struct {
	XMLName xml.Name `xml:"OwnershipControls"`
	Xmlns   string   `xml:"xmlns,attr,omitempty"`
	Rules   []struct {
		ObjectOwnership string `xml:"ObjectOwnership"`
	} `xml:"Rule"`
}

// ErrNoSuchOwnershipControls is GetBucketOwnershipControls of a bucket
// without them.
var ErrNoSuchOwnershipControls = &Error{http.StatusNotFound, "OwnershipControlsNotFoundError", "The bucket ownership controls were not found"}

// objectOwnership checks an ObjectOwnership value: "" and
// BucketOwnerEnforced are kept, the other two S3 values are
// NotImplemented, anything else is 400.
func objectOwnership(v string) (string, error) {
	switch v {
	case "", buckets.OwnershipBucketOwnerEnforced:
		return v, nil
	case "ObjectWriter", "BucketOwnerPreferred":
		return "", errorf(ErrNotImplemented, "object ownership %s: gridfsd records no object owners (the bucket's owner owns every object: BucketOwnerEnforced)", v)
	}
	return "", errorf(ErrInvalidArgument, "%q is not an object ownership (BucketOwnerEnforced, BucketOwnerPreferred, ObjectWriter)", v)
}

func (s *Server) getOwnership(req *request) error {
	b, err := s.checkBucket(req.r.Context(), req.bucket)
	if err != nil {
		return err
	}
	o := b.Settings().Ownership
	if o == "" {
		return ErrNoSuchOwnershipControls
	}
	c := ownershipControls{Xmlns: xmlns}
	c.Rules = append(c.Rules, struct {
		ObjectOwnership string `xml:"ObjectOwnership"`
	}{o})
	return s.writeXML(req, http.StatusOK, c)
}

func (s *Server) putOwnership(req *request) error {
	ctx := req.r.Context()
	if _, err := s.checkBucket(ctx, req.bucket); err != nil {
		return err
	}
	var c ownershipControls
	if err := s.readXML(req, &c); err != nil {
		return err
	}
	if len(c.Rules) != 1 {
		return ErrMalformedXML
	}
	o, err := objectOwnership(c.Rules[0].ObjectOwnership)
	if err != nil {
		return err
	}
	if o == "" {
		return ErrMalformedXML
	}
	if _, err := s.db.SetOwnership(ctx, req.bucket, o); err != nil {
		return err
	}
	req.w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) deleteOwnership(req *request) error {
	ctx := req.r.Context()
	if _, err := s.checkBucket(ctx, req.bucket); err != nil {
		return err
	}
	if _, err := s.db.SetOwnership(ctx, req.bucket, ""); err != nil {
		return err
	}
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}
