package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/errstatus"
	"github.com/labstack/echo/v4"
)

// Errors the gateway itself detects; buckets' sentinels cover the rest.
var (
	// errBadRequest is a malformed header, query parameter or body.
	errBadRequest = errors.New("bad request")
	// errDigestMismatch means the body does not match Content-MD5 or
	// Repr-Digest.
	errDigestMismatch = errors.New("digest mismatch")
	// errIncompleteBody means the client sent less than it announced, or
	// went away mid-upload.
	errIncompleteBody = errors.New("request body ended early")
	// errUnavailable means MongoDB did not answer.
	errUnavailable = errors.New("store unavailable")
	// errTimeout means a non-streaming request ran past request-timeout.
	errTimeout = errors.New("request timed out")
)

// retryAfter is the Retry-After, in seconds, of buckets.ErrBusy and store
// outages: long enough not to hammer, short enough to resume quickly.
const retryAfter = "2"

// badRequest is an errBadRequest with a reason a client can act on.
func badRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errBadRequest, fmt.Sprintf(format, args...))
}

// errorBody is the JSON shape of every error reply.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// classify maps an error to its HTTP status and stable code: the
// gateway's own errors, then buckets' and auth's as every door maps them
// (errstatus), then what echo and the connection say.
func classify(err error) (status int, code string) {
	switch {
	case errors.Is(err, errSigningDisabled):
		return http.StatusNotFound, "signing_disabled"
	case errors.Is(err, errTimeout):
		return http.StatusServiceUnavailable, "timeout"
	case errors.Is(err, errDigestMismatch):
		return http.StatusBadRequest, "digest_mismatch"
	case errors.Is(err, errIncompleteBody):
		return http.StatusBadRequest, "incomplete_body"
	}
	// The sentinels before errBadRequest: buckets' refusals of a bad
	// parameter wrap it with the reason, and say more.
	if c, ok := errstatus.Of(err); ok {
		return c.Status, c.Code
	}
	var he *echo.HTTPError
	switch {
	case errors.Is(err, errBadRequest):
		return http.StatusBadRequest, "bad_request"
	case errors.As(err, &he):
		return he.Code, strings.ToLower(strings.ReplaceAll(http.StatusText(he.Code), " ", "_"))
	case errors.Is(err, errUnavailable):
		return http.StatusServiceUnavailable, "store_unavailable"
	case errors.Is(err, context.Canceled):
		// The client went away, or the server is cutting requests at the
		// end of a shutdown; either way nobody waits for a useful reply.
		return http.StatusServiceUnavailable, "canceled"
	}
	return http.StatusInternalServerError, "internal"
}

// statusClientClosed is nginx's status for a request whose client closed the
// connection before the reply, for the access log.
const statusClientClosed = 499

// writeError is the one place that turns an error into an HTTP reply. Client
// errors carry gridfsd's own message, which never includes driver text;
// server errors are logged once, with the request id, and the client gets a
// generic message naming that id.
func writeError(c echo.Context, err error) {
	if buckets.ClientGone(c.Request().Context(), err) {
		// Nothing for the operator to act on; the access log shows nginx's
		// 499.
		requestLogger(c).Debug("request ended by the client", "error", err)
		if !c.Response().Committed {
			c.Response().WriteHeader(statusClientClosed)
		}
		return
	}
	status, code := classify(err)
	msg := err.Error()
	var he *echo.HTTPError
	if errors.As(err, &he) {
		msg = fmt.Sprint(he.Message)
	}
	if reason, ok := buckets.RefusedDocument(err); ok && code == "refused_by_store" {
		msg = "the store cannot hold this document: " + reason
	}
	log := requestLogger(c)
	rid := c.Response().Header().Get(echo.HeaderXRequestID)
	switch {
	case status == http.StatusUnauthorized:
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="gridfsd"`)
		c.Set(ctxClientError, msg)
	case code == "too_many_uploads" || code == "timeout" || code == "upload_interrupted":
		c.Response().Header().Set("Retry-After", retryAfter)
		c.Set(ctxClientError, msg)
	case status == http.StatusInsufficientStorage:
		log.Warn("write refused: the store is short of space", "error", err)
		msg = "insufficient storage: " + buckets.StorageReason(err)
	case status == http.StatusServiceUnavailable:
		c.Response().Header().Set("Retry-After", retryAfter)
		log.Warn("store unavailable", "error", err)
		msg = "the store is unavailable; try again later (request " + rid + ")"
	case status >= 500:
		log.Error("internal error", "error", err)
		msg = "internal error (request " + rid + ")"
	default:
		c.Set(ctxClientError, msg)
	}
	if c.Response().Committed {
		// Mid-stream: the status line is gone; the connection is cut so
		// the client sees a short body rather than a truncated success.
		log.Warn("error after the reply started", "error", err)
		return
	}
	if err := c.JSON(status, errorBody{Error: errorDetail{Code: code, Message: msg}}); err != nil {
		log.Debug("write error reply", "error", err)
	}
}

// jsonErrors makes the replies http.ServeContent writes itself (416, and 500
// when seeking fails) JSON like every other error, keeping the headers it
// set, such as Content-Range: bytes */LEN.
type jsonErrors struct {
	http.ResponseWriter
	c       echo.Context
	size    int64 // of the file, for Content-Range on 416
	discard bool
}

func (w *jsonErrors) WriteHeader(status int) {
	if status < 400 {
		w.ResponseWriter.WriteHeader(status)
		return
	}
	w.discard = true
	h := w.Header()
	h.Del("Content-Length")
	h.Set("Content-Type", "application/json")
	code := strings.ToLower(strings.ReplaceAll(http.StatusText(status), " ", "_"))
	msg := http.StatusText(status)
	if status == http.StatusRequestedRangeNotSatisfiable {
		code, msg = "range_not_satisfiable", "the Range header is malformed or no range overlaps the file"
		// ServeContent sends it only when no range overlaps; RFC 9110
		// 15.5.17 wants it on every 416 to a byte-range request.
		if h.Get("Content-Range") == "" {
			h.Set("Content-Range", fmt.Sprintf("bytes */%d", w.size))
		}
	}
	w.c.Set(ctxClientError, msg)
	w.ResponseWriter.WriteHeader(status)
	if w.c.Request().Method != http.MethodHead {
		fmt.Fprintf(w.ResponseWriter, `{"error":{"code":%q,"message":%q}}`+"\n", code, msg)
	}
}

func (w *jsonErrors) Write(p []byte) (int, error) {
	if w.discard {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}
