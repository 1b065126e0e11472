package s3_test

import (
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/s3"
)

// A version id that names no version of the key, nor any file, is
// NoSuchVersion on every read, the key there or not (S3; minio-go's
// testGetObjectAttributesErrorCases checks it): it was NoSuchKey.
func TestUnknownVersionIsNoSuchVersion(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/vbk", "")
	e.must(200, "PUT", "/vbk/k", "x")
	for _, path := range []string{
		"/vbk/k?versionId=6b05bf67f28b6392c03b870f",
		"/vbk/missing?versionId=6b05bf67f28b6392c03b870f",
		"/vbk/missing?versionId=3f9c7c1e-8b7a-4c53-9d1e-0f6f2c9b1a2d",
		"/vbk/missing?attributes&versionId=3f9c7c1e-8b7a-4c53-9d1e-0f6f2c9b1a2d",
	} {
		r := e.do("GET", path, "", "x-amz-object-attributes", "ETag")
		if r.status != 404 || !strings.Contains(r.body, "<Code>NoSuchVersion</Code>") {
			t.Errorf("GET %s: %d %s, want 404 NoSuchVersion", path, r.status, r.body)
		}
	}
}
