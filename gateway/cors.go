package gateway

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// Headers of CORS replies. Requests may send the ones a browser client of
// the API needs; replies expose the ones it reads.
var (
	corsMethods       = "GET, HEAD, PUT, PATCH, DELETE, POST"
	corsExposeHeaders = strings.Join([]string{
		"ETag", "Content-Range", "Content-Length", "Content-Disposition", "Accept-Ranges", "Location",
		"Last-Modified", "Retry-After", HeaderID, HeaderMetadata, HeaderExpires, echo.HeaderXRequestID,
		// The resumable uploads' (tus) replies.
		"Tus-Resumable", "Tus-Version", "Tus-Extension", "Tus-Max-Size", "Tus-Checksum-Algorithm",
		"Upload-Offset", "Upload-Length", "Upload-Metadata", "Upload-Defer-Length", "Upload-Concat",
		"Upload-Expires", "X-Gridfs-Location",
	}, ", ")
)

// corsHeaderAllowed reports whether a browser may send the request header
// name (lower case, as Access-Control-Request-Headers lists them).
func corsHeaderAllowed(name string) bool {
	switch name {
	case "authorization", "range", "content-type", "content-md5", "repr-digest", "content-digest",
		"x-gridfs-metadata", "x-gridfs-expires", "x-request-id":
		return true
	}
	return strings.HasPrefix(name, "if-") || strings.HasPrefix(name, "x-meta-") ||
		strings.HasPrefix(name, "upload-") || name == "tus-resumable" || name == "x-http-method-override"
}

// cors answers preflight requests and marks replies to allowed origins.
// It runs before authorize: preflights carry no credentials.
func (s *Server) cors(next echo.HandlerFunc) echo.HandlerFunc {
	anyOrigin := slices.Contains(s.cfg.CORSOrigins, "*")
	return func(c echo.Context) error {
		if len(s.cfg.CORSOrigins) == 0 {
			return next(c)
		}
		req, h := c.Request(), c.Response().Header()
		h.Add("Vary", "Origin")
		origin := req.Header.Get("Origin")
		if origin == "" || !(anyOrigin || slices.Contains(s.cfg.CORSOrigins, origin)) {
			return next(c)
		}
		if anyOrigin {
			h.Set("Access-Control-Allow-Origin", "*")
		} else {
			h.Set("Access-Control-Allow-Origin", origin)
		}
		if req.Method != http.MethodOptions || req.Header.Get("Access-Control-Request-Method") == "" {
			h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
			return next(c)
		}
		h.Add("Vary", "Access-Control-Request-Method")
		h.Add("Vary", "Access-Control-Request-Headers")
		var allowed []string
		for _, name := range strings.Split(req.Header.Get("Access-Control-Request-Headers"), ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "" && corsHeaderAllowed(name) {
				allowed = append(allowed, name)
			}
		}
		h.Set("Access-Control-Allow-Methods", corsMethods)
		if len(allowed) > 0 {
			h.Set("Access-Control-Allow-Headers", strings.Join(allowed, ", "))
		}
		h.Set("Access-Control-Max-Age", "600")
		return c.NoContent(http.StatusNoContent)
	}
}
