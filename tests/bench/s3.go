package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// s3Rows puts the S3 front door beside the HTTP API on one gateway and one
// store, run for run: PUT and GET throughput (target: S3 at least 0.95× of
// HTTP), and the gateway's RSS rise over one large multipart upload
// (target: at most 32 MiB for 1 GiB). The gateway runs without access
// control, so requests go unsigned, as anonymous S3 requests.
func (b *bench) s3Rows(ctx context.Context, data *pattern, gw *gateway) error {
	size := b.s.size
	note := human(size) + ", same gateway and store as the HTTP row, run for run"
	var httpPut, s3Put, httpGet, s3Get []float64
	for run := 0; run < b.s.runs; run++ {
		for _, door := range []struct {
			base, path string
			put, get   *[]float64
		}{
			{gw.base, "/b/" + bucketName + "/f", &httpPut, &httpGet},
			{gw.s3base, "/" + bucketName + "/f", &s3Put, &s3Get},
		} {
			if _, err := b.fresh(ctx); err != nil {
				return err
			}
			start := time.Now()
			if err := gw.send(ctx, http.MethodPut, door.base+door.path, data.reader(size), size, nil); err != nil {
				return err
			}
			*door.put = append(*door.put, mbps(size, time.Since(start)))
			start = time.Now()
			v := newVerifier(data)
			if err := gw.send(ctx, http.MethodGet, door.base+door.path, nil, 0, v); err != nil {
				return err
			}
			if v.off != size || v.bad >= 0 {
				return fmt.Errorf("GET %s: %d bytes, first wrong byte at %d", door.base+door.path, v.off, v.bad)
			}
			*door.get = append(*door.get, mbps(size, time.Since(start)))
		}
	}
	b.add("s3", "HTTP PUT", "MB/s", httpPut, note)
	b.add("s3", "S3 PutObject", "MB/s", s3Put, note)
	b.add("s3", "S3 PUT / HTTP PUT", "×", ratios(s3Put, httpPut), "target ≥ 0.95")
	b.add("s3", "HTTP GET", "MB/s", httpGet, note)
	b.add("s3", "S3 GetObject", "MB/s", s3Get, note)
	b.add("s3", "S3 GET / HTTP GET", "×", ratios(s3Get, httpGet), "target ≥ 0.95")
	return b.s3Multipart(ctx, data, gw)
}

// ratios divides a by b run for run.
func ratios(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] / b[i]
	}
	return out
}

// s3Multipart uploads one large object in 16 MiB parts (5 MiB when
// smoking) and records the gateway's resident set above where it started.
// The gateway is a fresh process, as in the memory group: one that earlier
// rows have grown keeps pages it no longer uses (the Go runtime returns
// them lazily), which would hide the upload's rise.
func (b *bench) s3Multipart(ctx context.Context, data *pattern, _ *gateway) error {
	size, part := b.s.memSize, int64(16<<20)
	if b.s.smoke {
		part = 5 << 20
		size = 2*part + 3
	}
	if _, err := b.fresh(ctx); err != nil {
		return err
	}
	gw, err := b.startGateway()
	if err != nil {
		return err
	}
	defer gw.stop()
	before, _, err := gw.memory()
	if err != nil {
		return err
	}
	stopSampling := gw.samplePeakRSS(20 * time.Millisecond)
	start := time.Now()
	err = gw.multipart(ctx, gw.s3base+"/"+bucketName+"/big", data.reader(size), size, part)
	elapsed := time.Since(start)
	peak := stopSampling()
	if err != nil {
		return err
	}
	v := newVerifier(data)
	if err := gw.send(ctx, http.MethodGet, gw.s3base+"/"+bucketName+"/big", nil, 0, v); err != nil {
		return err
	}
	if v.off != size || v.bad >= 0 {
		return fmt.Errorf("multipart object: %d bytes, first wrong byte at %d", v.off, v.bad)
	}
	note := fmt.Sprintf("%s in %s parts, a fresh gateway's VmRSS sampled every 20 ms, idle %.1f MiB", human(size), human(part), float64(before)/(1<<20))
	b.add("s3", "multipart upload", "MB/s", []float64{mbps(size, elapsed)}, note)
	b.add("s3", "multipart upload: gateway RSS rise", "MiB", []float64{float64(max(peak-before, 0)) / (1 << 20)}, "target ≤ 32 MiB for 1 GiB")
	return nil
}

// send makes one request and checks for a 2xx; the body of the answer goes
// to w when given.
func (g *gateway) send(ctx context.Context, method, url string, body io.Reader, size int64, w io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return err
	}
	if body != nil {
		req.ContentLength = size
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s %s: %s %s", method, url, resp.Status, msg)
	}
	if w == nil {
		w = io.Discard
	}
	_, err = io.Copy(w, resp.Body)
	return err
}

// multipart uploads size bytes of r to url as an S3 multipart upload.
func (g *gateway) multipart(ctx context.Context, url string, r io.Reader, size, part int64) error {
	var created struct {
		UploadID string `xml:"UploadId"`
	}
	var buf bytes.Buffer
	if err := g.send(ctx, http.MethodPost, url+"?uploads", nil, 0, &buf); err != nil {
		return err
	}
	if err := xml.Unmarshal(buf.Bytes(), &created); err != nil || created.UploadID == "" {
		return fmt.Errorf("CreateMultipartUpload: %q: %v", buf.String(), err)
	}
	var complete strings.Builder
	complete.WriteString("<CompleteMultipartUpload>")
	for n, off := 1, int64(0); off < size; n, off = n+1, off+part {
		length := min(part, size-off)
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, fmt.Sprintf("%s?partNumber=%d&uploadId=%s", url, n, created.UploadID), io.LimitReader(r, length))
		if err != nil {
			return err
		}
		req.ContentLength = length
		resp, err := g.client.Do(req)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("UploadPart %d: %s", n, resp.Status)
		}
		fmt.Fprintf(&complete, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", n, resp.Header.Get("ETag"))
	}
	complete.WriteString("</CompleteMultipartUpload>")
	body := complete.String()
	return g.send(ctx, http.MethodPost, url+"?uploadId="+created.UploadID, strings.NewReader(body), int64(len(body)), nil)
}

// verifier checks what it is written against the pattern, from offset 0.
type verifier struct {
	p   *pattern
	off int64 // bytes written
	bad int64 // first wrong offset, -1 while none
}

func newVerifier(p *pattern) *verifier { return &verifier{p: p, bad: -1} }

func (v *verifier) Write(b []byte) (int, error) {
	if v.bad < 0 {
		if at := v.p.verify(b, v.off); at >= 0 {
			v.bad = at
		}
	}
	v.off += int64(len(b))
	return len(b), nil
}
