package s3

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// The example of AWS's "Signature Calculations for the Authorization
// Header: Transferring Payload in Multiple Chunks": 65 KiB of "a" in a
// 64 KiB and a 1 KiB chunk, signed with the documentation's example key.
func awsExample(t *testing.T, tamper bool) io.Reader {
	t.Helper()
	c := credential{accessKey: "AKIAIOSFODNN7EXAMPLE", date: "20130524", region: "us-east-1", service: "s3"}
	sig := &signature{
		amzDate: "20130524T000000Z", scope: c.scope(),
		key:  signingKey("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", c),
		seed: "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9",
	}
	first := strings.Repeat("a", 65536)
	if tamper {
		first = "b" + first[1:]
	}
	body := fmt.Sprintf("10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n%s\r\n"+
		"400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n%s\r\n"+
		"0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n",
		first, strings.Repeat("a", 1024))
	return newChunkedReader(strings.NewReader(body), sig, true, "")
}

func TestChunkedSignedAWSExample(t *testing.T) {
	got, err := io.ReadAll(awsExample(t, false))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, bytes.Repeat([]byte("a"), 66560)) {
		t.Fatalf("decoded %d bytes, want 66560 a's", len(got))
	}
	_, err = io.ReadAll(awsExample(t, true))
	var e *Error
	if !errors.As(err, &e) || e.Code != "SignatureDoesNotMatch" {
		t.Fatalf("tampered chunk: err %v, want SignatureDoesNotMatch", err)
	}
}

func TestChunkedUnsignedTrailer(t *testing.T) {
	for _, tc := range []struct {
		trailer string
		ok      bool
	}{
		{"x-amz-checksum-crc32:DUoRhQ==", true}, // CRC32 of "hello world"
		{"x-amz-checksum-crc32:AAAAAA==", false},
	} {
		body := "b\r\nhello world\r\n0\r\n" + tc.trailer + "\r\n\r\n"
		r := newChunkedReader(strings.NewReader(body), &signature{}, false, "x-amz-checksum-crc32")
		got, err := io.ReadAll(r)
		if tc.ok && (err != nil || string(got) != "hello world") {
			t.Fatalf("%s: %q, %v", tc.trailer, got, err)
		}
		if !tc.ok && err == nil {
			t.Fatalf("%s: accepted", tc.trailer)
		}
	}
}

// CRC-64/NVME's check value, the CRC of "123456789".
func TestCRC64NVME(t *testing.T) {
	h := newChecksum("x-amz-checksum-crc64nvme")
	h.Write([]byte("123456789"))
	if got := fmt.Sprintf("%x", h.Sum(nil)); got != "ae8b14860a799888" {
		t.Fatalf("crc64nvme = %s", got)
	}
}
