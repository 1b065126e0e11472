package s3

import (
	"net"
	"strings"
)

// virtualHost returns the bucket a virtual-hosted-style request addresses:
// the label(s) before Config.Domain in its Host, port ignored; "" for a
// path-style request (no Domain configured, the domain itself, another
// host).
func (s *Server) virtualHost(host string) string {
	domain := strings.ToLower(strings.TrimSuffix(s.cfg.Domain, "."))
	if domain == "" {
		return ""
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	bucket, ok := strings.CutSuffix(host, "."+domain)
	if !ok || bucket == "" {
		return ""
	}
	return bucket
}
