package gateway

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/gridfsd/gridfsd/internal/reqlog"
	"github.com/labstack/echo/v4"
)

// Keys of values a request carries in its echo.Context.
const (
	ctxLogger      = "gridfsd.logger"
	ctxClientError = "gridfsd.clientError"
	ctxPrincipal   = "gridfsd.principal" // auth.Principal, when access control is on
)

// maxRequestIDBytes bounds a client-chosen X-Request-Id, which ends up in
// every log line of the request.
const maxRequestIDBytes = 128

// observe is the outermost middleware: it gives the request an id and a
// logger carrying it, turns a handler's error into the reply, counts the
// request in the metrics and logs one line for it.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		s.inflight.Add(1)
		defer s.inflight.Done()
		start := time.Now()
		req := c.Request()
		rid := requestID(req.Header.Get(echo.HeaderXRequestID))
		c.Response().Header().Set(echo.HeaderXRequestID, rid)
		log := s.cfg.Logger.With("request_id", rid)
		c.Set(ctxLogger, log)
		body := &countingReader{r: req.Body}
		// On a copy: the server reads its own request's body to decide
		// whether a client that expects "100 Continue" was sent one; a
		// body replaced in place hides that, and a refusal sent before
		// the body was read would then wait for a body that never comes.
		line := reqlog.New(log)
		req = req.WithContext(reqlog.With(req.Context(), line))
		req.Body = body
		c.SetRequest(req)

		if err := serveRecovered(c, next); err != nil {
			writeError(c, err)
		}

		route := c.Path()
		if route == "" {
			route = "unmatched"
		}
		res := c.Response()
		s.metrics.requests.WithLabelValues(route, methodLabel(req.Method), statusLabel(res.Status)).Inc()
		s.metrics.bytesIn.Add(float64(body.n))
		s.metrics.bytesOut.Add(float64(res.Size))
		attrs := []any{
			"method", req.Method,
			"path", req.URL.Path,
			"route", route,
			"status", res.Status,
			"bytes_in", body.n,
			"bytes_out", res.Size,
			"duration", time.Since(start).String(),
		}
		if msg, ok := c.Get(ctxClientError).(string); ok {
			attrs = append(attrs, "error", msg)
		}
		// What a mounted door added: its caller, its reason to refuse.
		attrs = append(attrs, line.Attrs()...)
		level := slog.LevelInfo
		if res.Status < 400 && (route == "/healthz" || route == "/readyz" || route == "/metrics") {
			level = slog.LevelDebug // probes and scrapes every few seconds would drown the rest
		}
		// The handler's logger: access control adds the principal to it.
		requestLogger(c).Log(req.Context(), level, "request", attrs...)
		return nil
	}
}

// methodLabel is a request method as a metric label: the methods the API
// knows, and "other" for whatever a client invents, which would otherwise
// grow the series without bound.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPost,
		http.MethodDelete, http.MethodPatch, http.MethodOptions:
		return m
	}
	for _, x := range extensionMethods {
		if m == x {
			return m
		}
	}
	return "other"
}

// statusLabel is a status code as a metric label, from 100 to 599 only.
func statusLabel(code int) string {
	if code < 100 || code > 599 {
		return "other"
	}
	return strconv.Itoa(code)
}

// errPanic is a handler's panic, answered 500 like any internal error.
var errPanic = errors.New("handler panicked")

// serveRecovered runs next and turns its panic into an error, logged with
// the request id and the stack, so that one bad request neither kills the
// process nor loses its log line. Deferred cleanups in the handler (an
// upload's abort) have run by then. http.ErrAbortHandler is the standard
// way to cut a reply short and passes through.
func serveRecovered(c echo.Context, next echo.HandlerFunc) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if r == http.ErrAbortHandler {
			panic(r)
		}
		requestLogger(c).Error("handler panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		err = fmt.Errorf("%w: %v", errPanic, r)
	}()
	return next(c)
}

// requestLogger is the logger of the request c, which carries its id.
func requestLogger(c echo.Context) *slog.Logger {
	if l, ok := c.Get(ctxLogger).(*slog.Logger); ok {
		return l
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// requestID keeps a client's X-Request-Id when it is short and printable,
// so that a request can be followed across proxies, and makes one otherwise.
func requestID(given string) string {
	if given != "" && len(given) <= maxRequestIDBytes {
		ok := true
		for i := 0; i < len(given); i++ {
			if given[i] < 0x21 || given[i] > 0x7e {
				ok = false
				break
			}
		}
		if ok {
			return given
		}
	}
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// countingReader counts the request body bytes the handler read.
type countingReader struct {
	r io.ReadCloser
	n int64
}

func (r *countingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.n += int64(n)
	return n, err
}

func (r *countingReader) Close() error { return r.r.Close() }
