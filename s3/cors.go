package s3

import (
	"encoding/xml"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/gridfsd/gridfsd/buckets"
)

// Bucket CORS (Get/Put/DeleteBucketCors), enforced on the S3 port: a
// browser's preflight (OPTIONS with Origin and Access-Control-Request-Method)
// is answered from the bucket's rules, without a signature as browsers send
// none; other requests with an Origin get the Access-Control-* headers of
// the first rule that admits them, whatever their outcome, so that a
// browser app can read its errors.

type corsConfiguration struct {
	XMLName xml.Name      `xml:"CORSConfiguration"`
	Xmlns   string        `xml:"xmlns,attr,omitempty"`
	Rules   []corsRuleXML `xml:"CORSRule"`
}

type corsRuleXML struct {
	ID             string   `xml:"ID,omitempty"`
	AllowedHeaders []string `xml:"AllowedHeader"`
	AllowedMethods []string `xml:"AllowedMethod"`
	AllowedOrigins []string `xml:"AllowedOrigin"`
	ExposeHeaders  []string `xml:"ExposeHeader"`
	MaxAgeSeconds  *int     `xml:"MaxAgeSeconds"`
}

// ErrNoSuchCORS is GetBucketCors of a bucket without rules.
var ErrNoSuchCORS = &Error{http.StatusNotFound, "NoSuchCORSConfiguration", "The CORS configuration does not exist"}

// errCORSForbidden answers a preflight no rule admits.
var errCORSForbidden = &Error{http.StatusForbidden, "AccessForbidden", "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec."}

func (s *Server) getBucketCors(req *request) error {
	b, err := s.checkBucket(req.r.Context(), req.bucket)
	if err != nil {
		return err
	}
	rules := b.Settings().CORS
	if len(rules) == 0 {
		return ErrNoSuchCORS
	}
	cfg := corsConfiguration{Xmlns: xmlns}
	for _, r := range rules {
		x := corsRuleXML{ID: r.ID, AllowedHeaders: r.AllowedHeaders, AllowedMethods: r.AllowedMethods, AllowedOrigins: r.AllowedOrigins,
			ExposeHeaders: r.ExposeHeaders}
		if r.MaxAgeSeconds > 0 {
			x.MaxAgeSeconds = &r.MaxAgeSeconds
		}
		cfg.Rules = append(cfg.Rules, x)
	}
	return s.writeXML(req, http.StatusOK, cfg)
}

func (s *Server) putBucketCors(req *request) error {
	if _, err := s.checkBucket(req.r.Context(), req.bucket); err != nil {
		return err
	}
	var cfg corsConfiguration
	if err := s.readXML(req, &cfg); err != nil {
		return err
	}
	if len(cfg.Rules) == 0 {
		return errorf(ErrMalformedXML, "a CORS configuration needs at least one CORSRule")
	}
	rules := make([]buckets.CORSRule, len(cfg.Rules))
	for i, x := range cfg.Rules {
		rules[i] = buckets.CORSRule{ID: x.ID, AllowedOrigins: x.AllowedOrigins, AllowedMethods: x.AllowedMethods,
			AllowedHeaders: x.AllowedHeaders, ExposeHeaders: x.ExposeHeaders}
		if x.MaxAgeSeconds != nil {
			rules[i].MaxAgeSeconds = *x.MaxAgeSeconds
		}
	}
	if _, err := s.db.SetCORS(req.r.Context(), req.bucket, rules); err != nil {
		if errors.Is(err, buckets.ErrInvalidCORS) {
			return errorf(ErrInvalidRequest, "%v", err)
		}
		return err
	}
	req.w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) deleteBucketCors(req *request) error {
	if _, err := s.checkBucket(req.r.Context(), req.bucket); err != nil {
		return err
	}
	if _, err := s.db.SetCORS(req.r.Context(), req.bucket, nil); err != nil {
		return err
	}
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

// preflight answers a CORS preflight request from the bucket's rules.
func (s *Server) preflight(req *request) error {
	req.op = "PreflightCORS"
	r := req.r
	origin, method := r.Header.Get("Origin"), r.Header.Get("Access-Control-Request-Method")
	if origin == "" || method == "" {
		return errorf(ErrInvalidRequest, "a CORS preflight needs the Origin and Access-Control-Request-Method headers")
	}
	if req.bucket == "" {
		return errCORSForbidden
	}
	b, err := s.checkBucket(r.Context(), req.bucket)
	if err != nil {
		return err
	}
	var headers []string
	for _, h := range strings.Split(r.Header.Get("Access-Control-Request-Headers"), ",") {
		if h = strings.TrimSpace(h); h != "" {
			headers = append(headers, strings.ToLower(h))
		}
	}
	rule := buckets.MatchCORS(b.Settings().CORS, origin, method, headers)
	h := req.w.Header()
	h.Add("Vary", "Origin, Access-Control-Request-Headers, Access-Control-Request-Method")
	if rule == nil {
		return errCORSForbidden
	}
	setCORSHeaders(h, rule, origin)
	if len(headers) > 0 {
		h.Set("Access-Control-Allow-Headers", strings.Join(headers, ", "))
	}
	if rule.MaxAgeSeconds > 0 {
		h.Set("Access-Control-Max-Age", strconv.Itoa(rule.MaxAgeSeconds))
	}
	h.Set("Content-Length", "0")
	req.w.WriteHeader(http.StatusOK)
	return nil
}

// corsHeaders adds the Access-Control-* headers to the reply of a request
// with an Origin, from the first rule of its bucket that admits it (the
// method the request announces in Access-Control-Request-Method, else its
// own).
func (s *Server) corsHeaders(req *request) {
	r := req.r
	origin := r.Header.Get("Origin")
	if origin == "" || req.bucket == "" {
		return
	}
	b, err := s.db.Bucket(r.Context(), req.bucket)
	if err != nil {
		return
	}
	method := r.Header.Get("Access-Control-Request-Method")
	if method == "" {
		method = r.Method
	}
	h := req.w.Header()
	h.Add("Vary", "Origin")
	if rule := buckets.MatchCORS(b.Settings().CORS, origin, method, nil); rule != nil {
		setCORSHeaders(h, rule, origin)
	}
}

func setCORSHeaders(h http.Header, rule *buckets.CORSRule, origin string) {
	allow := origin
	if len(rule.AllowedOrigins) == 1 && rule.AllowedOrigins[0] == "*" {
		allow = "*"
	} else {
		h.Set("Access-Control-Allow-Credentials", "true")
	}
	h.Set("Access-Control-Allow-Origin", allow)
	h.Set("Access-Control-Allow-Methods", strings.Join(rule.AllowedMethods, ", "))
	if len(rule.ExposeHeaders) > 0 {
		h.Set("Access-Control-Expose-Headers", strings.Join(rule.ExposeHeaders, ", "))
	}
}
