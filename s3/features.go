package s3

import (
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/gridfsd/gridfsd/auth"
)

// routeFeatures dispatches the sub-resources gridfsd serves beyond the
// core operations (CORS, tagging, canned ACLs, object attributes); handled
// is false for any other request.
func (s *Server) routeFeatures(req *request, q url.Values) (handled bool, err error) {
	run := s.operation(req)
	op := func(name string, need auth.Access, fn func(*request) error) (bool, error) {
		return true, run(name, need, fn)
	}
	m := req.r.Method
	if req.key == "" {
		switch {
		case m == http.MethodPost && !q.Has("delete") && isPostObject(req.r):
			return true, s.postObject(req) // checks its form's signature, then access
		case q.Has("cors") && m == http.MethodGet:
			return op("GetBucketCors", auth.Read, s.getBucketCors)
		case q.Has("cors") && m == http.MethodPut:
			return op("PutBucketCors", auth.Admin, s.putBucketCors)
		case q.Has("cors") && m == http.MethodDelete:
			return op("DeleteBucketCors", auth.Admin, s.deleteBucketCors)
		case q.Has("tagging") && m == http.MethodGet:
			return op("GetBucketTagging", auth.Read, s.getBucketTagging)
		case q.Has("tagging") && m == http.MethodPut:
			return op("PutBucketTagging", auth.Admin, s.putBucketTagging)
		case q.Has("tagging") && m == http.MethodDelete:
			return op("DeleteBucketTagging", auth.Admin, s.deleteBucketTagging)
		case q.Has("acl") && m == http.MethodGet:
			return op("GetBucketAcl", auth.Read, s.getACL)
		case q.Has("acl") && m == http.MethodPut:
			return op("PutBucketAcl", auth.Admin, s.putACL)
		}
		return false, nil
	}
	switch {
	case q.Has("tagging") && m == http.MethodGet:
		return op("GetObjectTagging", auth.Read, s.getObjectTagging)
	case q.Has("tagging") && m == http.MethodPut:
		return op("PutObjectTagging", auth.Write, s.putObjectTagging)
	case q.Has("tagging") && m == http.MethodDelete:
		return op("DeleteObjectTagging", auth.Write, s.deleteObjectTagging)
	case q.Has("attributes") && m == http.MethodGet:
		return op("GetObjectAttributes", auth.Read, s.getObjectAttributes)
	case q.Has("acl") && m == http.MethodGet:
		return op("GetObjectAcl", auth.Read, s.getACL)
	case q.Has("acl") && m == http.MethodPut:
		return op("PutObjectAcl", auth.Write, s.putACL)
	}
	return false, nil
}

// ACLs: gridfsd's access comes from its tokens, not from ACLs. GetBucketAcl
// and GetObjectAcl answer the one ACL that is true of every bucket and
// object (the owner has full control); Put*Acl takes a canned ACL as the
// no-op S3 tools expect and refuses grants (NotImplemented).

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
	ID          string `xml:"ID"`
	DisplayName string `xml:"DisplayName"`
}

func (s *Server) getACL(req *request) error {
	ctx := req.r.Context()
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	if req.key != "" {
		if _, err := findObject(ctx, b, req.key, req.r.URL.Query().Get("versionId")); err != nil {
			return err
		}
	}
	return s.writeXML(req, http.StatusOK, accessControlPolicy{Xmlns: xmlns, Owner: gridfsdOwner, Grants: []grant{{
		Grantee:    grantee{XMLNSXSI: "http://www.w3.org/2001/XMLSchema-instance", Type: "CanonicalUser", ID: gridfsdOwner.ID, DisplayName: gridfsdOwner.DisplayName},
		Permission: "FULL_CONTROL",
	}}})
}

func (s *Server) putACL(req *request) error {
	ctx := req.r.Context()
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	if req.key != "" {
		if _, err := findObject(ctx, b, req.key, req.r.URL.Query().Get("versionId")); err != nil {
			return err
		}
	}
	if err := checkACLHeaders(req.r.Header); err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(req.r.Body, maxXMLBody))
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(body)) != "" {
		return errorf(ErrNotImplemented, "gridfsd has no ACLs: access comes from its tokens; only canned ACLs (x-amz-acl) are taken, as a no-op")
	}
	req.w.WriteHeader(http.StatusOK)
	return nil
}
