package chunker

import (
	"errors"
	"io"
	"time"
)

// WriteError is the error of the writer Send wrote to: the client's
// failure, where every other error of Send is the read's.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return "write: " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// IsWriteError reports whether err came from Send's writer.
func IsWriteError(err error) bool {
	var we *WriteError
	return errors.As(err, &we)
}

// Send writes the next n bytes from the current offset to w straight from
// the chunks r holds (Next): what io.CopyN would do without a buffer of its
// own, so that a thousand downloads of a popular file hold nothing but the
// cache's chunks. A file that ends before n bytes is io.ErrUnexpectedEOF; a
// failed write is a *WriteError. fetched, if not nil, is told how long each
// step that had to load a chunk waited for it.
func (r *Reader) Send(w io.Writer, n int64, fetched func(time.Duration)) (int64, error) {
	var written int64
	for written < n {
		start := time.Now()
		loads := r.pos < r.file.Length && r.pos/int64(r.file.ChunkSize) != r.curN
		p, err := r.Next(int(min(n-written, 1<<30)))
		if loads && len(p) > 0 && fetched != nil {
			fetched(time.Since(start))
		}
		if len(p) > 0 {
			m, werr := w.Write(p)
			written += int64(m)
			if werr != nil {
				return written, &WriteError{werr}
			}
		}
		if err == io.EOF {
			return written, io.ErrUnexpectedEOF
		}
		if err != nil {
			return written, err
		}
	}
	return written, nil
}
