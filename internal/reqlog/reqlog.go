// Package reqlog carries a request's log line from the door that serves
// it to the gateway that writes it: the gateway logs one line per request
// on its port, mounted doors included, and a door adds what only it knows
// (who the caller is, why it refused). It is a leaf: the gateway and every
// door import it, it imports neither.
package reqlog

import (
	"context"
	"log/slog"
	"sync"
)

// Line is what a request's log line holds beyond the gateway's own
// fields. It is safe for concurrent use.
type Line struct {
	logger *slog.Logger
	mu     sync.Mutex
	attrs  []any
}

// New starts the line of a request whose logger (carrying its request id)
// is logger.
func New(logger *slog.Logger) *Line { return &Line{logger: logger} }

type key struct{}

// With returns ctx carrying l.
func With(ctx context.Context, l *Line) context.Context { return context.WithValue(ctx, key{}, l) }

// From returns the line ctx carries; without one (a door served on its
// own, in tests), a line of its own whose logger is fallback.
func From(ctx context.Context, fallback *slog.Logger) *Line {
	if l, ok := ctx.Value(key{}).(*Line); ok {
		return l
	}
	return New(fallback)
}

// Add appends key-value pairs to the request's line.
func (l *Line) Add(attrs ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.attrs = append(l.attrs, attrs...)
}

// Attrs are the pairs added so far.
func (l *Line) Attrs() []any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]any(nil), l.attrs...)
}

// Logger is the request's logger, for the door's own lines (an internal
// error): it carries the request id and what was added.
func (l *Line) Logger() *slog.Logger { return l.logger.With(l.Attrs()...) }
