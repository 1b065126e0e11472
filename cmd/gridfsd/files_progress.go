package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
)

// progressMin is the size from which put and get draw a progress bar:
// smaller transfers finish before a bar would say anything.
const progressMin = 1 << 20

// progressEvery limits redraws, so a fast transfer does not spend its time
// writing to the terminal.
const progressEvery = 200 * time.Millisecond

// progress draws a one-line bar with bytes, rate and ETA on a terminal.
// A nil *progress draws nothing, so callers need not check.
type progress struct {
	w     io.Writer
	label string
	total int64 // -1 when unknown (stdin)
	done  int64
	start time.Time
	drawn time.Time
	now   func() time.Time
	shown bool
}

// newProgress returns a progress bar on w for a transfer of total bytes
// (-1 unknown), or nil when quiet, when w is not a terminal, or for a
// transfer known to be small.
func newProgress(w io.Writer, quiet bool, label string, total int64) *progress {
	if quiet || !isTerminal(w) || (total >= 0 && total <= progressMin) {
		return nil
	}
	return &progress{w: w, label: label, total: total, start: time.Now(), now: time.Now}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

func (p *progress) add(n int) {
	if p == nil {
		return
	}
	p.done += int64(n)
	if now := p.now(); now.Sub(p.drawn) >= progressEvery && p.done > progressMin {
		p.drawn = now
		p.shown = true
		fmt.Fprint(p.w, "\r"+p.line(now)+"\x1b[K")
	}
}

// finish draws the final state and ends the line, if a bar was drawn.
func (p *progress) finish() {
	if p == nil || !p.shown {
		return
	}
	fmt.Fprint(p.w, "\r"+p.line(p.now())+"\x1b[K\n")
}

// line renders the bar: label, bytes done of total, bar, percent, rate, ETA.
func (p *progress) line(now time.Time) string {
	elapsed := now.Sub(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.done) / elapsed
	}
	if p.total < 0 {
		return fmt.Sprintf("%s  %s  %s/s", p.label, byteSize(p.done), byteSize(int64(rate)))
	}
	const width = 24
	frac := 1.0
	if p.total > 0 {
		frac = min(float64(p.done)/float64(p.total), 1)
	}
	full := int(frac * width)
	bar := strings.Repeat("=", full)
	if full < width {
		bar += ">" + strings.Repeat(" ", width-full-1)
	}
	eta := "--"
	if rate > 0 {
		eta = time.Duration(float64(p.total-p.done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("%s  %s / %s  [%s] %3.0f%%  %s/s  ETA %s",
		p.label, byteSize(p.done), byteSize(p.total), bar, frac*100, byteSize(int64(rate)), eta)
}

// byteSize writes n in binary units: 512 B, 1.5 KiB, 20.0 MiB.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// progressReader counts what passes through it on a progress bar.
type progressReader struct {
	r io.Reader
	p *progress
}

func (r progressReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	r.p.add(n)
	return n, err
}
