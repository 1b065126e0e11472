package gateway

import (
	"net/http"
	"net/url"

	"github.com/gridfsd/gridfsd/gateway/ui"
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/semaphore"
)

// newRouter registers the routes of the API. It is the only place that
// knows paths and parameter names; handlers read parameters through
// bucketParam, nameParam and idParam.
func newRouter(s *Server, h *handler) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.JSONSerializer = jsonSerializer{}
	e.HTTPErrorHandler = func(err error, c echo.Context) { writeError(c, err) }
	// Order matters: preflights are answered before access control, and
	// access control runs before limits take an upload slot.
	e.Use(s.observe, s.cors, s.authorize, s.limit)

	// Every GET route answers HEAD too, with the same status and headers
	// (RFC 9110 9.3.2); the server drops the body.
	get := func(path string, h echo.HandlerFunc) {
		e.GET(path, h)
		e.HEAD(path, h)
	}
	get("/", func(c echo.Context) error { return c.Redirect(http.StatusFound, "/ui/") })
	uiHandler := echo.WrapHandler(http.StripPrefix("/ui", ui.Handler()))
	get("/ui", uiHandler)
	get("/ui/*", uiHandler)

	get("/healthz", h.healthz)
	get("/readyz", h.readyz)
	get("/metrics", echo.WrapHandler(promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{})))

	get("/auth", s.authStatus)
	e.POST("/sign", s.sign)
	get("/buckets", h.listBuckets)
	e.PUT("/buckets/:bucket", h.createBucket)
	e.DELETE("/buckets/:bucket", h.dropBucket)

	get("/b/:bucket", h.listFiles)
	get("/b/:bucket/*", h.getByName) // an empty name lists the bucket
	e.PUT("/b/:bucket/*", h.upload, refusePartialPut)
	e.DELETE("/b/:bucket/*", h.deleteByName)

	get("/id/:bucket/*", h.getByID)
	e.PATCH("/id/:bucket/*", h.patchByID, budgetBody(semaphore.NewWeighted(patchBufferBytes), maxPatchBytes+1))
	e.DELETE("/id/:bucket/*", h.deleteByID)

	for _, m := range s.cfg.Mounts {
		door := echo.WrapHandler(m.Handler)
		e.Any(m.Prefix, door)
		e.Any(m.Prefix+"*", door)
		// WebDAV's methods are not among those echo.Any registers.
		for _, method := range extensionMethods {
			e.Add(method, m.Prefix, door)
			e.Add(method, m.Prefix+"*", door)
		}
	}
	return e
}

// extensionMethods are the request methods of WebDAV (RFC 4918) that mounted
// doors may answer besides the standard ones.
var extensionMethods = []string{"PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK"}

// mounted reports whether route belongs to a door in Config.Mounts.
func (s *Server) mounted(route string) bool {
	for _, m := range s.cfg.Mounts {
		if route == m.Prefix || route == m.Prefix+"*" {
			return true
		}
	}
	return false
}

// refusePartialPut answers a PUT that carries Content-Range with 400 before
// anything is stored: RFC 9110 14.5 forbids storing a partial
// representation as the whole, and this is not a partial-update API.
func refusePartialPut(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if len(c.Request().Header.Values("Content-Range")) > 0 {
			return badRequest("PUT with Content-Range: a partial upload is not supported, send the whole file")
		}
		return next(c)
	}
}

func bucketParam(c echo.Context) (string, error) { return pathParam(c, "bucket") }

// nameParam is the filename: the rest of the path, which may hold "/".
func nameParam(c echo.Context) (string, error) { return pathParam(c, "*") }

// idParam is the file id as written in the path, before ParseFileID.
func idParam(c echo.Context) (string, error) { return pathParam(c, "*") }

// pathParam decodes a path parameter. Echo matches on the escaped path when
// the request has one (so that %2F in a name is not a separator) and on the
// decoded path otherwise; decoding twice would turn "%2541" into "A".
func pathParam(c echo.Context, name string) (string, error) {
	v := c.Param(name)
	if c.Request().URL.RawPath == "" {
		return v, nil
	}
	s, err := url.PathUnescape(v)
	if err != nil {
		return "", badRequest("path: %v", err)
	}
	return s, nil
}
