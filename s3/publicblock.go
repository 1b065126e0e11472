package s3

import (
	"encoding/xml"
	"net/http"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
)

// Public access blocks (Get/Put/DeletePublicAccessBlock). gridfsd makes
// nothing public through ACLs or policies, so BlockPublicPolicy and
// IgnorePublicAcls hold by construction; BlockPublicAcls refuses requests
// that ask for a public canned ACL (403, as S3), and RestrictPublicBuckets
// withdraws the anonymous reads the gateway's anonymous_read grants.

type publicAccessBlockXML struct {
	XMLName               xml.Name `xml:"PublicAccessBlockConfiguration"`
	Xmlns                 string   `xml:"xmlns,attr,omitempty"`
	BlockPublicAcls       bool     `xml:"BlockPublicAcls"`
	IgnorePublicAcls      bool     `xml:"IgnorePublicAcls"`
	BlockPublicPolicy     bool     `xml:"BlockPublicPolicy"`
	RestrictPublicBuckets bool     `xml:"RestrictPublicBuckets"`
}

// ErrNoSuchPublicAccessBlock is GetPublicAccessBlock of a bucket without one.
var ErrNoSuchPublicAccessBlock = &Error{http.StatusNotFound, "NoSuchPublicAccessBlockConfiguration", "The public access block configuration was not found"}

func (s *Server) routePublicAccessBlock(req *request) error {
	op := s.operation(req)
	switch req.r.Method {
	case http.MethodGet:
		return op("GetPublicAccessBlock", auth.Read, s.getPublicAccessBlock)
	case http.MethodPut:
		return op("PutPublicAccessBlock", auth.Admin, s.putPublicAccessBlock)
	case http.MethodDelete:
		return op("DeletePublicAccessBlock", auth.Admin, s.deletePublicAccessBlock)
	}
	return ErrMethodNotAllowed
}

func (s *Server) getPublicAccessBlock(req *request) error {
	b, err := s.checkBucket(req.r.Context(), req.bucket)
	if err != nil {
		return err
	}
	p := b.Settings().PublicAccessBlock
	if p == nil {
		return ErrNoSuchPublicAccessBlock
	}
	return s.writeXML(req, http.StatusOK, publicAccessBlockXML{Xmlns: xmlns, BlockPublicAcls: p.BlockPublicACLs,
		IgnorePublicAcls: p.IgnorePublicACLs, BlockPublicPolicy: p.BlockPublicPolicy, RestrictPublicBuckets: p.RestrictPublicBuckets})
}

func (s *Server) putPublicAccessBlock(req *request) error {
	ctx := req.r.Context()
	if _, err := s.checkBucket(ctx, req.bucket); err != nil {
		return err
	}
	var c publicAccessBlockXML
	if err := s.readXML(req, &c); err != nil {
		return err
	}
	_, err := s.db.SetPublicAccessBlock(ctx, req.bucket, &buckets.PublicAccessBlock{BlockPublicACLs: c.BlockPublicAcls,
		IgnorePublicACLs: c.IgnorePublicAcls, BlockPublicPolicy: c.BlockPublicPolicy, RestrictPublicBuckets: c.RestrictPublicBuckets})
	if err != nil {
		return err
	}
	req.w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) deletePublicAccessBlock(req *request) error {
	ctx := req.r.Context()
	if _, err := s.checkBucket(ctx, req.bucket); err != nil {
		return err
	}
	if _, err := s.db.SetPublicAccessBlock(ctx, req.bucket, nil); err != nil {
		return err
	}
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

// publicACLs are the canned ACLs that would make something public.
var publicACLs = map[string]bool{"public-read": true, "public-read-write": true, "authenticated-read": true}

// checkPublicACL refuses a request asking for a public canned ACL on a
// bucket whose public access block has BlockPublicAcls (S3's 403).
func (s *Server) checkPublicACL(req *request) error {
	if !publicACLs[req.r.Header.Get("X-Amz-Acl")] || req.bucket == "" {
		return nil
	}
	if b, err := s.db.Bucket(req.r.Context(), req.bucket); err == nil && b.Settings().BlocksPublicACLs() {
		return errorf(ErrAccessDenied, "Access Denied: the bucket's public access block forbids public ACLs (BlockPublicAcls)")
	}
	return nil
}

// restrictsPublic reports whether bucket's public access block withdraws
// anonymous access (RestrictPublicBuckets).
func (s *Server) restrictsPublic(req *request, bucket string) bool {
	b, err := s.db.Bucket(req.r.Context(), bucket)
	return err != nil || b.Settings().RestrictsPublic()
}
