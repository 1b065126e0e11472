package s3

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestChunkedTrailerBounded: the trailer of an aws-chunked body is bounded
// (before, 300 MiB of trailer lines were buffered whole and answered 200).
func TestChunkedTrailerBounded(t *testing.T) {
	line := "x-amz-meta-pad:" + strings.Repeat("p", 100) + "\r\n"
	body := io.MultiReader(strings.NewReader("5\r\nhello\r\n0\r\n"), strings.NewReader(strings.Repeat(line, 100<<10)), strings.NewReader("\r\n"))
	_, err := io.ReadAll(newChunkedReader(body, &signature{}, false, ""))
	var e *Error
	if !errors.As(err, &e) || e.Status != http.StatusBadRequest {
		t.Fatalf("10 MiB of trailer: %v, want a 400", err)
	}
}

// TestChunkedTruncatedIsClientError: a body that ends before its final
// zero-size chunk is 400 IncompleteBody, not 500 (before, the bare
// io.ErrUnexpectedEOF became InternalError).
func TestChunkedTruncatedIsClientError(t *testing.T) {
	for _, body := range []string{"5\r\nhello\r\n", "5\r\nhel", "5\r\nhello\r\n0", ""} {
		_, err := io.ReadAll(newChunkedReader(strings.NewReader(body), &signature{}, false, ""))
		e, internal := toError(err)
		if internal || e.Status != http.StatusBadRequest || e.Code != "IncompleteBody" {
			t.Errorf("%q: %v, want 400 IncompleteBody", body, err)
		}
	}
}

func testHMAC(key []byte, s string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(s))
	return m.Sum(nil)
}

func testSHA(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestChunkedMinioTrailer: minio-go ends its signed trailing checksum line
// with "\n\r\n" (issue 26); the "\r\n" completes the line, the trailer
// signature that follows is read and checked (before: 403).
func TestChunkedMinioTrailer(t *testing.T) {
	key := testHMAC([]byte("secret"), "k")
	sig := &signature{amzDate: "20260101T000000Z", scope: "20260101/us-east-1/s3/aws4_request", key: key, seed: strings.Repeat("ab", 32)}
	chunkSig := func(prev, data string) string {
		return hex.EncodeToString(testHMAC(key, "AWS4-HMAC-SHA256-PAYLOAD\n"+sig.amzDate+"\n"+sig.scope+"\n"+prev+"\n"+testSHA("")+"\n"+testSHA(data)))
	}
	data := "hello, minio"
	sum := crc32.New(crc32.MakeTable(crc32.Castagnoli))
	sum.Write([]byte(data))
	trailer := "x-amz-checksum-crc32c:" + base64.StdEncoding.EncodeToString(sum.Sum(nil)) + "\n"
	s1 := chunkSig(sig.seed, data)
	s0 := chunkSig(s1, "")
	ts := hex.EncodeToString(testHMAC(key, "AWS4-HMAC-SHA256-TRAILER\n"+sig.amzDate+"\n"+sig.scope+"\n"+s0+"\n"+testSHA(trailer)))
	for _, tc := range []struct {
		name, trailerSig string
		ok               bool
	}{{"as signed", ts, true}, {"trailer signature tampered", strings.Repeat("0", 64), false}} {
		body := fmt.Sprintf("%x;chunk-signature=%s\r\n%s\r\n0;chunk-signature=%s\r\n%s\r\nx-amz-trailer-signature:%s\r\n\r\n", len(data), s1, data, s0, trailer, tc.trailerSig)
		got, err := io.ReadAll(newChunkedReader(strings.NewReader(body), sig, true, "x-amz-checksum-crc32c"))
		if tc.ok && (err != nil || !bytes.Equal(got, []byte(data))) {
			t.Errorf("%s: %q, %v", tc.name, got, err)
		}
		var e *Error
		if !tc.ok && (!errors.As(err, &e) || e.Code != "SignatureDoesNotMatch") {
			t.Errorf("%s: %v, want SignatureDoesNotMatch", tc.name, err)
		}
	}
}
