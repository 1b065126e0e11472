package s3

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/minio/sha256-simd"
)

// The request body of an upload, decoded: plain, or aws-chunked (signed
// chunks, unsigned chunks with trailing checksum), with the x-amz-checksum-*
// of the content checked at its end, in a header or a trailer. Nothing is
// buffered beyond one header line: chunk data passes straight through, and
// a bad chunk signature or checksum fails the read at the chunk's end,
// which aborts the upload before it commits.

// maxChunkLine bounds a chunk header or trailer line, maxTrailerBytes
// the whole trailer: before, trailer lines were buffered without end (300
// MiB of them took a gigabyte).
const (
	maxChunkLine    = 4096
	maxTrailerBytes = 16 << 10
)

// checksumHeader finds the x-amz-checksum-* header of r with its value.
// More than one, or one of an algorithm gridfsd does not know, is
// InvalidRequest, as AWS answers (before, a random one of several was
// checked, and an unknown one ignored).
func checksumHeader(h http.Header) (name, value string, err error) {
	for k, v := range h {
		lk := strings.ToLower(k)
		if !strings.HasPrefix(lk, "x-amz-checksum-") || lk == "x-amz-checksum-algorithm" || lk == "x-amz-checksum-type" || lk == "x-amz-checksum-mode" {
			continue
		}
		if name != "" || len(v) != 1 {
			return "", "", errorf(ErrInvalidRequest, "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.")
		}
		if newChecksum(lk) == nil {
			return "", "", errorf(ErrInvalidRequest, "Value for %s header is invalid: gridfsd checks crc32, crc32c, crc64nvme, sha1 and sha256", lk)
		}
		name, value = lk, v[0]
	}
	return name, value, nil
}

// checksumReader verifies the content against an x-amz-checksum-* value
// when it reaches EOF.
type checksumReader struct {
	r     io.Reader
	name  string
	want  string
	h     hash.Hash
	fails bool
}

func (c *checksumReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.h.Write(p[:n])
	if err == io.EOF && !c.matches() {
		return n, errorf(ErrBadDigest, "the %s you specified did not match the calculated checksum", c.name)
	}
	return n, err
}

func (c *checksumReader) matches() bool {
	return base64.StdEncoding.EncodeToString(c.h.Sum(nil)) == strings.TrimSpace(c.want)
}

// chunkedReader decodes an aws-chunked body:
//
//	<hex size>[;chunk-signature=<sig>]\r\n<data>\r\n ... 0[;chunk-signature=<sig>]\r\n[<trailer>:<value>\r\n ...]\r\n
type chunkedReader struct {
	br       *bufio.Reader
	sig      *signature // chunk signatures checked when sig.key != nil and signed
	signed   bool
	trailer  string    // name of the announced trailing checksum, if any
	sum      hash.Hash // of the decoded content, for the trailer
	left     int64     // bytes of the current chunk still to read
	chunkSig string    // signature announced for the current chunk
	chunk    hash.Hash // SHA-256 of the current chunk's data
	prevSig  string
	done     bool
	err      error
}

func newChunkedReader(body io.Reader, sig *signature, signed bool, trailer string) *chunkedReader {
	c := &chunkedReader{br: bufio.NewReaderSize(body, 64<<10), sig: sig, signed: signed, trailer: strings.ToLower(trailer), left: -1, prevSig: sig.seed}
	if c.trailer != "" {
		c.sum = newChecksum(c.trailer)
	}
	if signed && sig.key != nil {
		c.chunk = sha256.New()
	}
	return c
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.done {
		return 0, io.EOF
	}
	if c.left <= 0 {
		if err := c.nextChunk(); err != nil {
			if err == io.ErrUnexpectedEOF {
				err = errTruncated
			}
			c.err = err
			return 0, err
		}
		if c.done {
			return 0, io.EOF
		}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.br.Read(p)
	c.left -= int64(n)
	if c.chunk != nil {
		c.chunk.Write(p[:n])
	}
	if c.sum != nil {
		c.sum.Write(p[:n])
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = errTruncated
	}
	if err != nil {
		c.err = err
	}
	return n, err
}

// errTruncated is a body that ends before its final zero-size chunk (or
// its trailer): the client's error, not the gateway's.
var errTruncated = errorf(ErrIncompleteBody, "the aws-chunked body ended before its final zero-size chunk and trailer")

func (c *chunkedReader) line() (string, error) {
	l, _, err := c.rawLine()
	return l, err
}

// rawLine reads a line and reports whether it ended with a bare "\n"
// rather than "\r\n".
func (c *chunkedReader) rawLine() (line string, bareLF bool, err error) {
	b, err := c.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull || len(b) > maxChunkLine {
		return "", false, errorf(ErrIncompleteBody, "an aws-chunked line is too long")
	}
	if err == io.EOF {
		return "", false, io.ErrUnexpectedEOF
	}
	if err != nil {
		return "", false, err
	}
	bareLF = len(b) < 2 || b[len(b)-2] != '\r'
	return strings.TrimRight(string(b), "\r\n"), bareLF, nil
}

// nextChunk ends the current chunk (checking its signature) and reads the
// next chunk header; after the last, the trailer.
func (c *chunkedReader) nextChunk() error {
	if c.left == 0 {
		if l, err := c.line(); err != nil || l != "" {
			return errorf(ErrIncompleteBody, "an aws-chunked chunk does not end with CRLF")
		}
		if err := c.checkChunk(); err != nil {
			return err
		}
	}
	l, err := c.line()
	if err != nil {
		return err
	}
	sizeText, ext, _ := strings.Cut(l, ";")
	size, err := strconv.ParseInt(strings.TrimSpace(sizeText), 16, 64)
	if err != nil || size < 0 {
		return errorf(ErrIncompleteBody, "an aws-chunked chunk size is malformed")
	}
	c.chunkSig = ""
	if k, v, ok := strings.Cut(ext, "="); ok && strings.TrimSpace(k) == "chunk-signature" {
		c.chunkSig = strings.TrimSpace(v)
	}
	if c.signed && c.chunkSig == "" {
		return errorf(ErrSignatureMismatch, "an aws-chunked chunk has no chunk-signature")
	}
	c.left = size
	if size > 0 {
		return nil
	}
	if err := c.checkChunk(); err != nil {
		return err
	}
	if err := c.readTrailer(); err != nil {
		return err
	}
	c.done = true
	return nil
}

func (c *chunkedReader) checkChunk() error {
	if c.chunk == nil {
		return nil
	}
	sts := "AWS4-HMAC-SHA256-PAYLOAD\n" + c.sig.amzDate + "\n" + c.sig.scope + "\n" + c.prevSig + "\n" + emptySHA256 + "\n" + hex.EncodeToString(c.chunk.Sum(nil))
	c.chunk.Reset()
	want := hex.EncodeToString(hmacSHA256(c.sig.key, sts))
	if !hmac.Equal([]byte(want), []byte(strings.ToLower(c.chunkSig))) {
		return errorf(ErrSignatureMismatch, "an aws-chunked chunk signature does not match")
	}
	c.prevSig = want
	return nil
}

// readTrailer reads the trailing headers up to the empty line, checks the
// trailer signature of a signed body and the announced checksum.
func (c *chunkedReader) readTrailer() error {
	var text bytes.Buffer
	trailerSig, checksum := "", ""
	size, afterBareLF := 0, false
	for {
		l, bareLF, err := c.rawLine()
		if err == io.ErrUnexpectedEOF && (c.trailer == "" || checksum != "") {
			// Some clients end the body right after "0\r\n", or after
			// their trailer line.
			break
		}
		if err != nil {
			return err
		}
		size += len(l) + 2
		if size > maxTrailerBytes {
			return errorf(ErrIncompleteBody, "the aws-chunked trailer is longer than %d bytes", maxTrailerBytes)
		}
		if l == "" && afterBareLF {
			// minio-go ends its trailing checksum line with "\n\r\n": the
			// "\r\n" completes that line, it does not end the trailer.
			afterBareLF = false
			continue
		}
		if l == "" {
			break
		}
		afterBareLF = bareLF
		k, v, _ := strings.Cut(l, ":")
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(v)
		if k == "x-amz-trailer-signature" {
			trailerSig = v
			continue
		}
		fmt.Fprintf(&text, "%s:%s\n", k, v)
		if k == c.trailer {
			checksum = v
		}
	}
	if c.signed && c.trailer != "" && c.sig.key != nil {
		sts := "AWS4-HMAC-SHA256-TRAILER\n" + c.sig.amzDate + "\n" + c.sig.scope + "\n" + c.prevSig + "\n" + sha256Hex(text.String())
		want := hex.EncodeToString(hmacSHA256(c.sig.key, sts))
		if !hmac.Equal([]byte(want), []byte(strings.ToLower(trailerSig))) {
			return errorf(ErrSignatureMismatch, "the aws-chunked trailer signature does not match")
		}
	}
	if c.sum != nil {
		if checksum == "" {
			return errorf(ErrIncompleteBody, "the announced trailer %s is missing", c.trailer)
		}
		if base64.StdEncoding.EncodeToString(c.sum.Sum(nil)) != checksum {
			return errorf(ErrBadDigest, "the %s you specified did not match the calculated checksum", c.trailer)
		}
	}
	return nil
}
