package s3

import (
	"net/http"
	"net/url"

	"github.com/gridfsd/gridfsd/auth"
)

// unsupported are the sub-resources S3 knows and gridfsd does not serve;
// they answer NotImplemented rather than being taken for plain requests.
var unsupported = []string{
	"acl", "policy", "cors", "tagging", "website", "logging", "notification",
	"replication", "encryption", "object-lock", "retention", "legal-hold", "accelerate",
	"requestPayment", "analytics", "inventory", "metrics", "intelligent-tiering",
	"publicAccessBlock", "torrent", "restore", "select", "attributes",
}

// route dispatches a request by method, path shape and query to its
// operation, after checking that the caller may perform it.
func (s *Server) route(req *request) error {
	r := req.r
	q := r.URL.Query()
	if req.bucket == "" {
		req.op = "ListBuckets"
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			return ErrMethodNotAllowed
		}
		return s.listBuckets(req)
	}
	if q.Has("publicAccessBlock") && req.key == "" {
		return s.routePublicAccessBlock(req)
	}
	acl, err := s.checkACL(req, r.Header.Get("X-Amz-Acl"))
	if err != nil {
		return err
	}
	req.acl = acl
	if err := s.checkExpectedOwner(req); err != nil {
		return err
	}
	if handled, err := s.routeFeatures(req, q); handled {
		return err
	}
	for _, sub := range unsupported {
		if q.Has(sub) {
			req.op = "Unsupported"
			return errorf(ErrNotImplemented, "the ?%s sub-resource is not supported by gridfsd", sub)
		}
	}
	if req.key == "" {
		return s.routeBucket(req, q)
	}
	return s.routeObject(req, q)
}

// operation returns how a route runs the S3 operation name on req: it
// names the operation (for logs and metrics), checks that the caller has
// need on the bucket, then calls fn.
func (s *Server) operation(req *request) func(name string, need auth.Access, fn func(*request) error) error {
	return func(name string, need auth.Access, fn func(*request) error) error {
		req.op = name
		object := ""
		if name == "GetObject" || name == "HeadObject" {
			object = req.key // an object's own ACL may make it public
		}
		p, err := s.decide(req, req.bucket, object, need)
		if err != nil {
			return err
		}
		req.objectGrant = p.ObjectGrant
		return fn(req)
	}
}

func (s *Server) routeBucket(req *request, q url.Values) error {
	op := s.operation(req)
	switch req.r.Method {
	case http.MethodPut:
		if q.Has("lifecycle") {
			return op("PutBucketLifecycleConfiguration", auth.Admin, s.putLifecycle)
		}
		if q.Has("versioning") {
			return op("PutBucketVersioning", auth.Admin, s.putVersioning)
		}
		return op("CreateBucket", auth.Admin, s.createBucket)
	case http.MethodHead:
		return op("HeadBucket", auth.List, s.headBucket)
	case http.MethodDelete:
		if q.Has("lifecycle") {
			return op("DeleteBucketLifecycle", auth.Admin, s.deleteLifecycle)
		}
		return op("DeleteBucket", auth.Admin, s.deleteBucket)
	case http.MethodPost:
		if q.Has("delete") {
			return op("DeleteObjects", auth.Write, s.deleteObjects)
		}
	case http.MethodGet:
		switch {
		case q.Has("location"):
			return op("GetBucketLocation", auth.Read, s.bucketLocation)
		case q.Has("lifecycle"):
			return op("GetBucketLifecycleConfiguration", auth.Read, s.getLifecycle)
		case q.Has("versioning"):
			return op("GetBucketVersioning", auth.Read, s.getVersioning)
		case q.Has("versions"):
			return op("ListObjectVersions", auth.List, s.listVersions)
		case q.Has("uploads"):
			// Uploads in progress and their ids are the writers' business:
			// anonymous readers of a public bucket do not see them.
			return op("ListMultipartUploads", auth.Write, s.listMultipartUploads)
		case q.Get("list-type") == "2":
			return op("ListObjectsV2", auth.List, s.listObjectsV2)
		default:
			return op("ListObjects", auth.List, s.listObjectsV1)
		}
	}
	return ErrMethodNotAllowed
}

func (s *Server) routeObject(req *request, q url.Values) error {
	op := s.operation(req)
	r := req.r
	switch r.Method {
	case http.MethodGet:
		if q.Has("uploadId") {
			return op("ListParts", auth.Write, s.listParts)
		}
		return op("GetObject", auth.Read, s.getObject)
	case http.MethodHead:
		return op("HeadObject", auth.Read, s.getObject)
	case http.MethodPut:
		switch {
		case q.Has("uploadId") && r.Header.Get("X-Amz-Copy-Source") != "":
			return op("UploadPartCopy", auth.Write, s.uploadPartCopy)
		case q.Has("uploadId"):
			return op("UploadPart", auth.Write, refusePartialPut(s.uploadPart))
		case r.Header.Get("X-Amz-Copy-Source") != "":
			return op("CopyObject", auth.Write, checkedWrite(s.copyObject))
		}
		return op("PutObject", auth.Write, refusePartialPut(checkedWrite(s.putObject)))
	case http.MethodDelete:
		if q.Has("uploadId") {
			return op("AbortMultipartUpload", auth.Write, s.abortMultipart)
		}
		return op("DeleteObject", auth.Write, s.deleteObject)
	case http.MethodPost:
		switch {
		case q.Has("uploads"):
			return op("CreateMultipartUpload", auth.Write, checkedWrite(s.createMultipart))
		case q.Has("uploadId"):
			return op("CompleteMultipartUpload", auth.Write, s.completeMultipart)
		}
	}
	return ErrMethodNotAllowed
}

// refusePartialPut refuses, before fn reads the body, an upload that
// carries Content-Range, as the HTTP API and WebDAV do: RFC 9110 14.5
// forbids storing a partial representation as the whole, and S3 has no
// partial update.
func refusePartialPut(fn func(*request) error) func(*request) error {
	return func(req *request) error {
		if len(req.r.Header.Values("Content-Range")) > 0 {
			return errorf(ErrInvalidRequest, "PUT with Content-Range: a partial upload is not supported, send the whole object")
		}
		return fn(req)
	}
}

// checkedWrite refuses, before fn runs, an object write whose headers ask
// for what gridfsd does not do (see checkWriteHeaders).
func checkedWrite(fn func(*request) error) func(*request) error {
	return func(req *request) error {
		if err := checkWriteHeaders(req.r.Header); err != nil {
			return err
		}
		return fn(req)
	}
}

// checkExpectedOwner refuses a request whose x-amz-expected-bucket-owner
// names another owner than the bucket's (403, as S3): a client's guard
// against writing to, or reading from, a bucket someone else made.
func (s *Server) checkExpectedOwner(req *request) error {
	want := req.r.Header.Get("X-Amz-Expected-Bucket-Owner")
	if want == "" {
		return nil
	}
	b, err := s.db.Bucket(req.r.Context(), req.bucket)
	if err != nil {
		return nil // the operation answers for a bad name
	}
	if got := ownerOf(b.Settings().Owner).ID; got != want {
		return errorf(ErrAccessDenied, "Access Denied: the bucket's owner is not %q", want)
	}
	return nil
}
