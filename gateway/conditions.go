package gateway

import (
	"net/http"

	"github.com/gridfsd/gridfsd/buckets"
)

// writeConditions reads a write's preconditions (RFC 9110 §13.1). An
// If-Unmodified-Since that is not an HTTP date is ignored, as §13.1.4
// says; buckets evaluates the rest, atomically with the write.
func writeConditions(h http.Header) buckets.Conditions {
	cond := buckets.Conditions{IfMatch: h.Get("If-Match"), IfNoneMatch: h.Get("If-None-Match")}
	if v := h.Get("If-Unmodified-Since"); v != "" {
		if t, err := http.ParseTime(v); err == nil {
			cond.IfUnmodifiedSince = t
		}
	}
	return cond
}
