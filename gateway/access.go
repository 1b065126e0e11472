package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/labstack/echo/v4"
)

// Limits of POST /sign.
const (
	// DefaultSignExpiry is the life of a signed URL whose request names none.
	DefaultSignExpiry = 10 * time.Minute
	// maxSignBytes bounds the body of POST /sign.
	maxSignBytes = 8 * 1024
)

// routeAccess is the one table of who needs what: the access a request on
// route (echo's route template) with method needs, and whether the route is
// about a bucket at all. Routes it does not name (probes, metrics, the UI
// and unmatched paths) are open.
func routeAccess(method, route string) (need auth.Access, checked bool) {
	read := method == http.MethodGet || method == http.MethodHead
	switch route {
	case "/auth", "/sign":
		// Open, but they read the caller's token themselves: /auth to say
		// whether it is accepted (a wrong one is not a 401 there), /sign to
		// mint no more than it allows.
		return auth.None, false
	case "/buckets":
		return auth.List, true // the handler lists only the listable ones
	case "/buckets/:bucket":
		return auth.Admin, true
	case "/b/:bucket":
		if read {
			return auth.List, true // the bucket's files, listed
		}
		return auth.Write, true
	case "/b/:bucket/*", "/id/:bucket/*":
		if read {
			return auth.Read, true
		}
		return auth.Write, true
	}
	return auth.None, false
}

// authorize is the access-control middleware: it runs after routing, so
// c.Path() is the route and the bucket parameter is known. With no
// Authorizer configured it lets everything through.
func (s *Server) authorize(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		a := s.cfg.Auth
		if a == nil || !a.Enabled() {
			return next(c)
		}
		need, checked := routeAccess(c.Request().Method, c.Path())
		if !checked || c.Request().Method == http.MethodOptions {
			return next(c)
		}
		bucket := ""
		var err error
		if c.Path() != "/buckets" {
			if bucket, err = bucketParam(c); err != nil {
				return err
			}
			if bucket == "" {
				// "" is what the bucket list asks about: /b//x must not
				// pass as a request about no bucket.
				return badRequest("bucket name is empty")
			}
		}
		object := ""
		if need == auth.Read && c.Path() == "/b/:bucket/*" {
			if object, err = nameParam(c); err != nil {
				return err
			} // an object's own ACL may make it public
		}
		p, err := a.AuthorizeObject(c.Request(), bucket, object, need)
		if err != nil {
			return err
		}
		c.Set(ctxPrincipal, p)
		requestLogger(c).Debug("authorized", "principal", p.Name, "bucket", bucket, "need", need.String())
		c.Set(ctxLogger, requestLogger(c).With("principal", p.Name))
		return next(c)
	}
}

// authInfo is the reply of GET /auth: what a client, the browser UI above
// all, needs to know to offer a token field. It never holds a secret.
type authInfo struct {
	Enabled       bool   `json:"enabled"`       // access control is on
	Signing       bool   `json:"signing"`       // POST /sign works
	Principal     string `json:"principal"`     // the token's name, or "anonymous"
	Authenticated bool   `json:"authenticated"` // the request's bearer token is known
	// Doors are the prefixes of the other doors mounted on this port
	// (Config.Mounts), so that the UI uses the resumable uploads only
	// where they are served.
	Doors []string `json:"doors"`
}

// authStatus serves GET /auth. A missing or wrong token is an answer here,
// not a 401, so that the UI can say "token not accepted" and still show
// what anonymous users may see. Only the Authorization header counts: a
// signed URL is no identity, and the query of /auth is ignored.
func (s *Server) authStatus(c echo.Context) error {
	info := authInfo{Principal: "anonymous", Doors: []string{}}
	for _, m := range s.cfg.Mounts {
		info.Doors = append(info.Doors, m.Prefix)
	}
	// The reply depends on the caller's token: no cache may keep or share it.
	c.Response().Header().Set("Cache-Control", "no-store")
	c.Response().Header().Add("Vary", "Authorization")
	a := s.cfg.Auth
	if a == nil || !a.Enabled() {
		return c.JSON(http.StatusOK, info)
	}
	info.Enabled = true
	info.Signing = a.SigningEnabled()
	h := c.Request().Header.Values("Authorization")
	if len(h) == 0 {
		return c.JSON(http.StatusOK, info)
	}
	probe := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/auth"}, Header: http.Header{"Authorization": h}}
	p, err := a.Authorize(probe, "", auth.Read)
	if err != nil {
		requestLogger(c).Debug("token not accepted", "err", err)
		return c.JSON(http.StatusOK, info)
	}
	info.Principal, info.Authenticated = p.Name, true
	c.Set(ctxLogger, requestLogger(c).With("principal", p.Name))
	return c.JSON(http.StatusOK, info)
}

// signRequest is the body of POST /sign.
type signRequest struct {
	Method  string `json:"method"`
	Path    string `json:"path"`
	Expires string `json:"expires"` // a Go duration such as "10m"; default DefaultSignExpiry
}

// signResponse is its reply: URL is the path with the signature's query,
// to be used as it is against this gateway.
type signResponse struct {
	URL     string    `json:"url"`
	Method  string    `json:"method"`
	Path    string    `json:"path"`
	Expires time.Time `json:"expires"`
}

// errSigningDisabled answers POST /sign on a gateway without a signing key.
var errSigningDisabled = errors.New("signed URLs are not enabled")

// sign serves POST /sign: it mints a signed URL for a method and path the
// caller's own bearer token may use, so that a browser can hand it to a
// <video> or <audio> element, which cannot send an Authorization header.
// A signed URL never grants more than the token that asked for it.
func (s *Server) sign(c echo.Context) error {
	a := s.cfg.Auth
	if a == nil || !a.Enabled() {
		return fmt.Errorf("%w: set auth.signing_key", errSigningDisabled)
	}
	req := c.Request()
	if _, ok := auth.BearerToken(req.Header.Get("Authorization")); !ok {
		return fmt.Errorf("%w: POST /sign needs Authorization: Bearer <token>", auth.ErrUnauthenticated)
	}
	sr, err := readSignRequest(req.Body, a.MaxSignedLife())
	if err != nil {
		return err
	}
	u, err := url.Parse(sr.Path)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Fragment != "" || !strings.HasPrefix(u.Path, "/") {
		return badRequest(`path %q is not an absolute URL path such as "/b/media/clip.mp4?download=1"`, sr.Path)
	}
	query, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return badRequest("path %q: query: %v", sr.Path, err)
	}
	probe := &http.Request{Method: sr.Method, URL: u, Header: http.Header{"Authorization": req.Header.Values("Authorization")}}
	if bucket, ok, door := s.signableMount(sr.Method, u.Path); door {
		if !ok {
			return badRequest("path %q with method %s cannot be signed", sr.Path, sr.Method)
		}
		return s.signURL(c, sr, u, query, probe, bucket, auth.Write)
	}
	if sr.Method == http.MethodPost {
		return badRequest("method POST is signed only for the resumable uploads' creation, POST /uploads/{bucket}/")
	}
	// The same router and table as real requests decide what the path
	// needs, so a signed URL cannot reach further than the route it names.
	pc := s.echo.NewContext(probe, nil)
	s.echo.Router().Find(sr.Method, echo.GetPath(probe), pc)
	need, checked := routeAccess(sr.Method, pc.Path())
	if !checked || pc.Path() == "/buckets" {
		return badRequest("path %q with method %s is not a file, listing or bucket route that can be signed", sr.Path, sr.Method)
	}
	bucket, err := bucketParam(pc)
	if err != nil {
		return err
	}
	if bucket == "" {
		return badRequest("path %q names no bucket", sr.Path)
	}
	return s.signURL(c, sr, u, query, probe, bucket, need)
}

// signableMount asks the door mounted at path, if any, whether method on
// path can be signed and for which bucket.
func (s *Server) signableMount(method, path string) (bucket string, ok, door bool) {
	for _, m := range s.cfg.Mounts {
		if strings.HasPrefix(path, m.Prefix) {
			if m.Signable == nil {
				return "", false, true
			}
			bucket, ok = m.Signable(method, path)
			return bucket, ok, true
		}
	}
	return "", false, false
}

// signURL mints the URL once the caller's token is known to allow need on
// bucket.
func (s *Server) signURL(c echo.Context, sr parsedSign, u *url.URL, query url.Values, probe *http.Request, bucket string, need auth.Access) error {
	a := s.cfg.Auth
	p, err := a.Authorize(probe, bucket, need)
	if err != nil {
		return err
	}
	exp := time.Now().Add(sr.expiry).Truncate(time.Second)
	q, err := a.Sign(p.Name, sr.Method, u.Path, query, exp)
	if errors.Is(err, auth.ErrSigningDisabled) {
		return fmt.Errorf("%w: set auth.signing_key", errSigningDisabled)
	}
	if err != nil {
		return badRequest("%v", err) // parameters of its own in the query
	}
	return c.JSON(http.StatusOK, signResponse{URL: u.EscapedPath() + "?" + q, Method: sr.Method, Path: u.Path, Expires: exp.UTC()})
}

// parsedSign is a checked signRequest.
type parsedSign struct {
	Method string
	Path   string
	expiry time.Duration
}

func readSignRequest(r io.Reader, maxLife time.Duration) (parsedSign, error) {
	var p parsedSign
	raw, err := io.ReadAll(io.LimitReader(r, maxSignBytes+1))
	if err != nil {
		return p, fmt.Errorf("%w: %w", errIncompleteBody, err)
	}
	if len(raw) > maxSignBytes {
		return p, badRequest("body of more than %d bytes", maxSignBytes)
	}
	var sr signRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sr); err != nil {
		return p, badRequest(`body is not {"method": "GET", "path": "/b/bucket/name", "expires": "10m"}: %v`, err)
	}
	p.Method, p.Path = strings.ToUpper(sr.Method), sr.Path
	switch p.Method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodPost:
	default:
		return p, badRequest("method %q is not GET, HEAD, PUT, PATCH, DELETE or POST", sr.Method)
	}
	p.expiry = DefaultSignExpiry
	if sr.Expires != "" {
		d, err := time.ParseDuration(sr.Expires)
		if err != nil || d <= 0 {
			return p, badRequest("expires %q is not a positive duration such as 10m or 2h", sr.Expires)
		}
		if d > maxLife {
			return p, badRequest("expires %s is more than the %s a signed URL may live", d, maxLife)
		}
		p.expiry = d
	}
	return p, nil
}
