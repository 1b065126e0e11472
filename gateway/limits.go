package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// streams reports whether a request streams a body in or out, and so may
// run longer than RequestTimeout: uploads, and GET or HEAD of a file
// (a GET of /b/{bucket}/ with an empty name is a listing).
func streams(c echo.Context) bool {
	method := c.Request().Method
	switch c.Path() {
	case "/b/:bucket/*":
		if method == http.MethodPut {
			return true
		}
		return (method == http.MethodGet || method == http.MethodHead) && c.Param("*") != ""
	case "/id/:bucket/*":
		return method == http.MethodGet || method == http.MethodHead
	case "/ui", "/ui/*", "/metrics":
		return true // no store behind them
	}
	return false
}

// limit applies max-concurrent-uploads and request-timeout.
func (s *Server) limit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if s.uploads != nil && c.Path() == "/b/:bucket/*" && req.Method == http.MethodPut {
			select {
			case s.uploads <- struct{}{}:
				defer func() { <-s.uploads }()
			default:
				s.metrics.busy.Inc()
				return fmt.Errorf("%w: %d are running, the most this gateway allows; retry later", errBusy, cap(s.uploads))
			}
		}
		if s.cfg.RequestTimeout <= 0 || streams(c) {
			return next(c)
		}
		ctx, cancel := context.WithTimeout(req.Context(), s.cfg.RequestTimeout)
		defer cancel()
		c.SetRequest(req.WithContext(ctx))
		err := next(c)
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && req.Context().Err() == nil {
			return fmt.Errorf("%w: after %s (request-timeout): %w", errTimeout, s.cfg.RequestTimeout, err)
		}
		return err
	}
}

// Headers of CORS replies. Requests may send the ones a browser client of
// the API needs; replies expose the ones it reads.
var (
	corsMethods       = "GET, HEAD, PUT, PATCH, DELETE, POST"
	corsExposeHeaders = strings.Join([]string{
		"ETag", "Content-Range", "Content-Length", "Content-Disposition", "Accept-Ranges", "Location",
		"Last-Modified", "Retry-After", HeaderID, HeaderMetadata, echo.HeaderXRequestID,
	}, ", ")
)

// corsHeaderAllowed reports whether a browser may send the request header
// name (lower case, as Access-Control-Request-Headers lists them).
func corsHeaderAllowed(name string) bool {
	switch name {
	case "authorization", "range", "content-type", "content-md5", "repr-digest", "content-digest",
		"x-gridfs-metadata", "x-request-id":
		return true
	}
	return strings.HasPrefix(name, "if-") || strings.HasPrefix(name, "x-meta-")
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
