package buckets

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// ErrInvalidCORS is a bucket CORS configuration that cannot be stored.
var ErrInvalidCORS = errors.New("invalid CORS configuration")

// MaxCORSRules is S3's limit of rules per bucket.
const MaxCORSRules = 100

// CORSRule is one rule of a bucket's cross-origin configuration (S3's
// CORSRule): the origins it admits (one "*" wildcard each at most), the
// methods, the request headers a preflight may ask for ("*" wildcards),
// the response headers browsers may read, and how long a preflight answer
// may be cached.
type CORSRule struct {
	ID             string   `bson:"id,omitempty" json:"id,omitempty"`
	AllowedOrigins []string `bson:"allowedOrigins" json:"allowedOrigins"`
	AllowedMethods []string `bson:"allowedMethods" json:"allowedMethods"`
	AllowedHeaders []string `bson:"allowedHeaders,omitempty" json:"allowedHeaders,omitempty"`
	ExposeHeaders  []string `bson:"exposeHeaders,omitempty" json:"exposeHeaders,omitempty"`
	MaxAgeSeconds  int      `bson:"maxAgeSeconds,omitempty" json:"maxAgeSeconds,omitempty"`
}

// corsMethods are the methods a CORS rule may allow.
var corsMethods = map[string]bool{"GET": true, "PUT": true, "POST": true, "DELETE": true, "HEAD": true}

// CheckCORS returns ErrInvalidCORS unless rules is a configuration S3 would
// take: at most MaxCORSRules rules, each with origins and methods, methods
// among GET, PUT, POST, DELETE and HEAD, at most one "*" per origin.
func CheckCORS(rules []CORSRule) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidCORS, fmt.Sprintf(format, args...))
	}
	if len(rules) > MaxCORSRules {
		return bad("%d rules, more than %d", len(rules), MaxCORSRules)
	}
	for i, r := range rules {
		if len(r.AllowedOrigins) == 0 || len(r.AllowedMethods) == 0 {
			return bad("rule %d needs AllowedOrigin and AllowedMethod", i+1)
		}
		for _, m := range r.AllowedMethods {
			if !corsMethods[m] {
				return bad("rule %d: unsupported method %q (GET, PUT, POST, DELETE or HEAD)", i+1, m)
			}
		}
		for _, o := range r.AllowedOrigins {
			if strings.Count(o, "*") > 1 {
				return bad("rule %d: origin %q has more than one wildcard", i+1, o)
			}
		}
		for _, h := range r.AllowedHeaders {
			if strings.Count(h, "*") > 1 {
				return bad("rule %d: header %q has more than one wildcard", i+1, h)
			}
		}
		if r.MaxAgeSeconds < 0 {
			return bad("rule %d: MaxAgeSeconds is negative", i+1)
		}
	}
	return nil
}

// SetCORS replaces the CORS rules of bucket name (none removes them),
// leaving its other settings as they are. It returns ErrInvalidBucketName
// or ErrInvalidCORS, having written nothing.
func (d *DB) SetCORS(ctx context.Context, name string, rules []CORSRule) (*Bucket, error) {
	if err := CheckBucketName(name); err != nil {
		return nil, err
	}
	if rules == nil {
		rules = []CORSRule{}
	}
	if err := CheckCORS(rules); err != nil {
		return nil, err
	}
	b, err := d.Bucket(ctx, name)
	if err != nil {
		return nil, err
	}
	return d.saveSettings(ctx, b, bson.D{{Key: "cors", Value: rules}, {Key: "updated", Value: time.Now()}})
}

// MatchWildcard reports whether s matches pattern, in which one "*" stands
// for any run of characters; fold compares without regard to case.
func MatchWildcard(pattern, s string, fold bool) bool {
	if fold {
		pattern, s = strings.ToLower(pattern), strings.ToLower(s)
	}
	before, after, found := strings.Cut(pattern, "*")
	if !found {
		return pattern == s
	}
	return len(s) >= len(before)+len(after) && strings.HasPrefix(s, before) && strings.HasSuffix(s, after)
}

// MatchCORS returns the first of rules that admits a request from origin
// with method and, for a preflight, the request headers it announces; nil
// when none does.
func MatchCORS(rules []CORSRule, origin, method string, headers []string) *CORSRule {
	for i := range rules {
		r := &rules[i]
		if !anyMatch(r.AllowedOrigins, origin, false) || !contains(r.AllowedMethods, method) {
			continue
		}
		ok := true
		for _, h := range headers {
			if !anyMatch(r.AllowedHeaders, h, true) {
				ok = false
				break
			}
		}
		if ok {
			return r
		}
	}
	return nil
}

func anyMatch(patterns []string, s string, fold bool) bool {
	for _, p := range patterns {
		if MatchWildcard(p, s, fold) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
