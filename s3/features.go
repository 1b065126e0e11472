package s3

import (
	"net/http"
	"net/url"

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
		case q.Has("ownershipControls") && m == http.MethodGet:
			return op("GetBucketOwnershipControls", auth.Read, s.getOwnership)
		case q.Has("ownershipControls") && m == http.MethodPut:
			return op("PutBucketOwnershipControls", auth.Admin, s.putOwnership)
		case q.Has("ownershipControls") && m == http.MethodDelete:
			return op("DeleteBucketOwnershipControls", auth.Admin, s.deleteOwnership)
		case q.Has("policyStatus") && m == http.MethodGet:
			return op("GetBucketPolicyStatus", auth.Read, s.getPolicyStatus)
		case q.Has("acl") && m == http.MethodPut:
			return op("PutBucketAcl", auth.Admin, s.putBucketACL)
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
		// Making the object public needs more: see checkACL.
		return op("PutObjectAcl", auth.Write, s.putObjectACL)
	}
	return false, nil
}
