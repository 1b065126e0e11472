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

// TestVersionIDOfAnotherKeysDeleteMarker: a version id names a version
// of the key in the path, never of another key, delete markers too: a
// DeleteObject (or DeleteObjects) of key "a" with the version id of key
// "b"'s delete marker must not remove b's marker and bring b back, and a
// GetObject of "a" with that id is 404 NoSuchVersion, not 405 with b's
// delete-marker headers.
func TestVersionIDOfAnotherKeysDeleteMarker(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/vers", "")
	e.must(200, "PUT", "/vers?versioning", `<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>`)
	e.must(200, "PUT", "/vers/a", "content of a")
	for _, key := range []string{"b", "c"} {
		e.must(200, "PUT", "/vers/"+key, "content of "+key)
	}
	markerB := e.must(204, "DELETE", "/vers/b", "").header.Get("x-amz-version-id")
	markerC := e.must(204, "DELETE", "/vers/c", "").header.Get("x-amz-version-id")
	e.must(404, "GET", "/vers/b", "")

	if r := e.do("GET", "/vers/a?versionId="+markerB, ""); r.status != 404 || between(r.body, "<Code>", "</Code>") != "NoSuchVersion" {
		t.Errorf("GET a with the version id of b's delete marker: %d %s, want 404 NoSuchVersion", r.status, between(r.body, "<Code>", "</Code>"))
	}
	// Deleting a version of a that does not exist is a no-op (204) ...
	e.must(204, "DELETE", "/vers/a?versionId="+markerB, "")
	e.must(200, "POST", "/vers?delete", "<Delete><Object><Key>a</Key><VersionId>"+markerC+"</VersionId></Object></Delete>")
	// ... and leaves b and c deleted.
	for _, key := range []string{"b", "c"} {
		if r := e.do("GET", "/vers/"+key, ""); r.status != 404 {
			t.Errorf("deleting a version of a brought %s back: GET %s is %d %q", key, key, r.status, r.body)
		}
	}
	if r := e.must(200, "GET", "/vers/a", ""); r.body != "content of a" {
		t.Errorf("a: %q", r.body)
	}
}
