package s3

import (
	"encoding/xml"
	"net/http"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
)

// Public access blocks (Get/Put/DeletePublicAccessBlock), kept in the
// bucket's settings and enforced by package buckets and every door's
// authorizer: BlockPublicAcls refuses requests that ask for a public canned
// ACL (403, as S3), IgnorePublicAcls makes the stored ones grant nothing,
// RestrictPublicBuckets withdraws every anonymous access (the gateway's
// anonymous_read too). gridfsd has no bucket policies, so
// BlockPublicPolicy holds by construction.

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
