// Command chart draws the concurrency group of a bench-results.json as an
// SVG: throughput and p99 latency against the number of concurrent clients,
// for uploads and range readers.
//
//	go run ./tests/bench/chart bench-results.json > docs/bench-concurrency.svg
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

type result struct {
	Group  string  `json:"group"`
	Name   string  `json:"name"`
	Median float64 `json:"median"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: chart bench-results.json > chart.svg")
		os.Exit(2)
	}
	raw, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "chart:", err)
		os.Exit(1)
	}
	var results []result
	if err := json.Unmarshal(raw, &results); err != nil {
		fmt.Fprintln(os.Stderr, "chart:", err)
		os.Exit(1)
	}
	// series[what][measure][level] = value
	series := map[string]map[string]map[int]float64{}
	levelSet := map[int]bool{}
	for _, r := range results {
		lv, ok := strings.CutPrefix(r.Group, "concurrency ")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(lv)
		if err != nil {
			continue
		}
		what, measure, ok := strings.Cut(r.Name, ": ")
		if !ok {
			continue
		}
		if series[what] == nil {
			series[what] = map[string]map[int]float64{}
		}
		if series[what][measure] == nil {
			series[what][measure] = map[int]float64{}
		}
		series[what][measure][n] = r.Median
		levelSet[n] = true
	}
	if len(levelSet) == 0 {
		fmt.Fprintln(os.Stderr, "chart: no concurrency rows in", os.Args[1])
		os.Exit(1)
	}
	var levels []int
	for n := range levelSet {
		levels = append(levels, n)
	}
	sort.Ints(levels)
	draw(os.Stdout, levels, series)
}

const (
	panelW, panelH = 380, 260
	margin         = 60
)

var colors = map[string]string{"uploads": "#1f77b4", "range readers": "#d62728"}

func draw(w io.Writer, levels []int, series map[string]map[string]map[int]float64) {
	width := 2*panelW + 3*margin
	height := panelH + 2*margin + 30
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	for i, p := range []struct{ measure, title, unit string }{
		{"throughput", "Throughput", "MB/s"},
		{"p99 latency", "p99 latency", "ms"},
	} {
		x0 := margin + i*(panelW+margin)
		panel(w, x0, margin, levels, series, p.measure, p.title, p.unit)
	}
	// legend
	y := height - 20
	x := margin
	for _, what := range []string{"uploads", "range readers"} {
		if series[what] == nil {
			continue
		}
		fmt.Fprintf(w, `<rect x="%d" y="%d" width="14" height="4" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", x, y-4, colors[what], x+20, y, what)
		x += 140
	}
	fmt.Fprintln(w, "</svg>")
}

func panel(w io.Writer, x0, y0 int, levels []int, series map[string]map[string]map[int]float64, measure, title, unit string) {
	top := 0.0
	for _, s := range series {
		for _, v := range s[measure] {
			top = math.Max(top, v)
		}
	}
	top = niceCeil(top)
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="14" font-weight="bold">%s (%s) against concurrent clients</text>`+"\n", x0, y0-20, title, unit)
	fmt.Fprintf(w, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>`+"\n", x0, y0, panelW, panelH)
	xAt := func(i int) float64 { return float64(x0) + float64(panelW)*(float64(i)+0.5)/float64(len(levels)) }
	yAt := func(v float64) float64 { return float64(y0+panelH) - float64(panelH)*v/top }
	for t := 0; t <= 4; t++ {
		v := top * float64(t) / 4
		y := yAt(v)
		fmt.Fprintf(w, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n",
			x0, x0+panelW, y, y, x0-6, y+4, strconv.FormatFloat(v, 'f', -1, 64))
	}
	for i, n := range levels {
		fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", xAt(i), y0+panelH+16, n)
	}
	for _, what := range []string{"uploads", "range readers"} {
		vals := series[what][measure]
		var pts []string
		for i, n := range levels {
			if v, ok := vals[n]; ok {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", xAt(i), yAt(v)))
				fmt.Fprintf(w, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", xAt(i), yAt(v), colors[what])
			}
		}
		if len(pts) > 1 {
			fmt.Fprintf(w, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), colors[what])
		}
	}
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}
