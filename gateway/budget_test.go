package gateway

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/sync/semaphore"
)

// TestBudgetBodyBoundsConcurrentBodies: bodies read under one budget never
// hold more than it at once, whatever the number of requests; a request
// that cannot get its share before its context ends is refused.
func TestBudgetBodyBoundsConcurrentBodies(t *testing.T) {
	const budget, limit = 100, 40
	var held, most atomic.Int64
	handler := budgetBody(semaphore.NewWeighted(budget), limit)(func(c echo.Context) error {
		n := c.Request().ContentLength
		if n < 0 {
			n = limit
		}
		now := held.Add(min(n, limit))
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		time.Sleep(5 * time.Millisecond)
		held.Add(-min(n, limit))
		return nil
	})
	e := echo.New()
	serve := func(ctx context.Context, body string, chunked bool) error {
		req := httptest.NewRequest(http.MethodPatch, "/id/fs/x", strings.NewReader(body)).WithContext(ctx)
		if chunked {
			req.ContentLength = -1
		}
		return handler(e.NewContext(req, httptest.NewRecorder()))
	}
	done := make(chan error)
	for i := 0; i < 64; i++ {
		go func() { done <- serve(context.Background(), strings.Repeat("x", 10+i%40), i%3 == 0) }()
	}
	for i := 0; i < 64; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if most.Load() > budget {
		t.Errorf("%d bytes of bodies held at once, budget %d", most.Load(), budget)
	}

	// The budget is taken: a request gives up with its context.
	full := semaphore.NewWeighted(budget)
	full.Acquire(context.Background(), budget)
	handler = budgetBody(full, limit)(func(echo.Context) error { t.Error("served without budget"); return nil })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := serve(ctx, "{}", false); !errors.Is(err, errTimeout) {
		t.Errorf("waiting past the context: %v", err)
	}
}
