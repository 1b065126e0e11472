package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
	"golang.org/x/sync/semaphore"
)

// patchBufferBytes is the memory all PATCH bodies being read at once may
// take: each is read whole before it is checked (maxPatchBytes at most),
// so without a bound 64 concurrent ones could hold a gigabyte.
const patchBufferBytes = 64 << 20

// budgetBody makes a request wait for its share of budget before its body
// is read: its Content-Length, or limit when it does not say (chunked),
// limit being the most the handler reads. Waiting ends with the request's
// context (request-timeout, or the client going away). Downloads have
// their budget in buckets (chunker.ReadBudget), uploads theirs in
// chunker.Budget.
func budgetBody(budget *semaphore.Weighted, limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			n := limit
			if req.ContentLength >= 0 {
				n = min(req.ContentLength, limit)
			}
			if err := budget.Acquire(req.Context(), n); err != nil {
				return fmt.Errorf("%w: waiting for memory to read the body: %w", errTimeout, err)
			}
			defer budget.Release(n)
			return next(c)
		}
	}
}

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

// bounded reports whether RequestTimeout applies to a request: not to
// streams, nor to the mounted doors, which stream and bound their own
// requests.
func (s *Server) bounded(c echo.Context) bool {
	return !streams(c) && !s.mounted(c.Path())
}

// limit applies max-concurrent-uploads and request-timeout.
func (s *Server) limit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if c.Path() == "/b/:bucket/*" && req.Method == http.MethodPut {
			release, err := s.cfg.DB.AcquireUpload()
			if err != nil {
				s.metrics.busy.Inc()
				return err
			}
			defer release()
		}
		if s.cfg.RequestTimeout <= 0 || !s.bounded(c) {
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
