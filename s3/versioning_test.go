package s3_test

import (
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/s3"
)

const (
	enableVersioning  = `<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>`
	suspendVersioning = `<VersioningConfiguration><Status>Suspended</Status><MfaDelete>Disabled</MfaDelete></VersioningConfiguration>`
)

// PutBucketVersioning sets the bucket's status, GetBucketVersioning reads
// it back; MFA delete and other statuses are refused.
func TestBucketVersioningConfiguration(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(404, "PUT", "/nobucket?versioning", enableVersioning)
	e.must(200, "PUT", "/ver", "")
	if got := e.must(200, "GET", "/ver?versioning", "").body; strings.Contains(got, "<Status>") {
		t.Errorf("a bucket never set answers a status:\n%s", got)
	}
	e.must(200, "PUT", "/ver?versioning", enableVersioning)
	if got := xmlValue(e.must(200, "GET", "/ver?versioning", "").body, "Status"); got != "Enabled" {
		t.Errorf("status %q after Enabled", got)
	}
	e.must(200, "PUT", "/ver?versioning", suspendVersioning)
	if got := xmlValue(e.must(200, "GET", "/ver?versioning", "").body, "Status"); got != "Suspended" {
		t.Errorf("status %q after Suspended", got)
	}
	e.must(501, "PUT", "/ver?versioning", `<VersioningConfiguration><Status>Enabled</Status><MfaDelete>Enabled</MfaDelete></VersioningConfiguration>`)
	e.must(400, "PUT", "/ver?versioning", `<VersioningConfiguration><Status>On</Status></VersioningConfiguration>`)
	e.must(400, "PUT", "/ver?versioning", `<VersioningConfiguration>`)
	if got := xmlValue(e.must(200, "GET", "/ver?versioning", "").body, "Status"); got != "Suspended" {
		t.Errorf("a refused configuration changed the status to %q", got)
	}
}

// In an Enabled bucket DeleteObject writes a delete marker: the key is
// gone on every door (S3 GET/HEAD 404 with x-amz-delete-marker, S3 and
// HTTP listings, HTTP GET by name), ListObjectVersions lists the marker,
// GET of the marker's version is 405, and deleting the marker brings the
// object back.
func TestDeleteMarkers(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/ver", "")
	e.must(200, "PUT", "/ver?versioning", enableVersioning)
	v1 := e.must(200, "PUT", "/ver/k", "one").header.Get("x-amz-version-id")
	v2 := e.must(200, "PUT", "/ver/k", "two").header.Get("x-amz-version-id")
	e.must(200, "PUT", "/ver/other", "x")
	if v1 == "" || v1 == "null" || v1 == v2 {
		t.Fatalf("version ids %q, %q", v1, v2)
	}
	del := e.must(204, "DELETE", "/ver/k", "")
	marker := del.header.Get("x-amz-version-id")
	if del.header.Get("x-amz-delete-marker") != "true" || marker == "" || marker == v2 {
		t.Fatalf("DeleteObject: %v", del.header)
	}
	for _, method := range []string{"GET", "HEAD"} {
		r := e.must(404, method, "/ver/k", "")
		if r.header.Get("x-amz-delete-marker") != "true" || r.header.Get("x-amz-version-id") != marker {
			t.Errorf("%s of a deleted key: %v", method, r.header)
		}
		r = e.must(405, method, "/ver/k?versionId="+marker, "")
		if r.header.Get("x-amz-delete-marker") != "true" {
			t.Errorf("%s of the marker's version: %v", method, r.header)
		}
	}
	if r := e.must(200, "GET", "/ver/k?versionId="+v1, ""); r.body != "one" {
		t.Errorf("an older version: %q", r.body)
	}
	// A version id that names nothing (minio-go sends a UUID) is
	// NoSuchVersion, on GetObjectAttributes too.
	for _, path := range []string{"/ver/k?versionId=0123456789abcdef01234567", "/ver/nokey?versionId=9b2cf535-f7e2-4b9c-9a4e-1b9a0c7f1e2d",
		"/ver/k?attributes&versionId=0123456789abcdef01234567"} {
		if r := e.do("GET", path, "", "x-amz-object-attributes", "ETag"); r.status != 404 || xmlValue(r.body, "Code") != "NoSuchVersion" {
			t.Errorf("GET %s: %d %s", path, r.status, r.body)
		}
	}
	if got := e.must(200, "GET", "/ver?list-type=2", "").body; strings.Contains(got, "<Key>k</Key>") || !strings.Contains(got, "<Key>other</Key>") {
		t.Errorf("ListObjectsV2 lists a deleted key:\n%s", got)
	}
	versions := e.must(200, "GET", "/ver?versions", "").body
	want := "<DeleteMarker><Key>k</Key><VersionId>" + marker + "</VersionId><IsLatest>true</IsLatest>"
	if !strings.Contains(versions, want) || strings.Count(versions, "<Version>") != 3 ||
		!strings.Contains(versions, "<Version><Key>k</Key><VersionId>"+v2+"</VersionId><IsLatest>false</IsLatest>") {
		t.Errorf("ListObjectVersions, want %s:\n%s", want, versions)
	}
	// The HTTP API: the name is absent, by name and in the listing.
	if r := e.send(e.httpURL, "GET", "/b/ver/k", ""); r.status != 404 {
		t.Errorf("HTTP GET by name of a deleted key: %d", r.status)
	}
	if r := e.send(e.httpURL, "GET", "/b/ver", ""); r.status != 200 || strings.Contains(r.body, `"k"`) || !strings.Contains(r.body, `"other"`) {
		t.Errorf("HTTP listing: %d %s", r.status, r.body)
	}
	// Removing the marker makes v2 current again.
	r := e.must(204, "DELETE", "/ver/k?versionId="+marker, "")
	if r.header.Get("x-amz-delete-marker") != "true" || r.header.Get("x-amz-version-id") != marker {
		t.Errorf("DELETE of the marker: %v", r.header)
	}
	if r := e.must(200, "GET", "/ver/k", ""); r.body != "two" || r.header.Get("x-amz-version-id") != v2 {
		t.Errorf("after removing the marker: %q %v", r.body, r.header)
	}
	// DeleteObjects writes markers too, and says so.
	got := e.must(200, "POST", "/ver?delete", `<Delete><Object><Key>k</Key></Object><Object><Key>none</Key></Object></Delete>`).body
	if strings.Count(got, "<DeleteMarker>true</DeleteMarker>") != 2 || !strings.Contains(got, "<DeleteMarkerVersionId>") {
		t.Errorf("DeleteObjects:\n%s", got)
	}
	e.must(404, "GET", "/ver/k", "")
	e.must(404, "GET", "/ver/none", "")
}

// In an unversioned bucket DeleteObject removes every revision, as before:
// no marker, and a missing key's HEAD says x-amz-delete-marker: false.
func TestDeleteUnversioned(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/unv", "")
	e.must(200, "PUT", "/unv/k", "one")
	e.must(200, "PUT", "/unv/k", "two")
	if r := e.must(204, "DELETE", "/unv/k", ""); r.header.Get("x-amz-delete-marker") != "" {
		t.Errorf("DeleteObject in an unversioned bucket: %v", r.header)
	}
	if got := e.must(200, "GET", "/unv?versions", "").body; strings.Contains(got, "<Version>") || strings.Contains(got, "<DeleteMarker>") {
		t.Errorf("versions left:\n%s", got)
	}
	if r := e.must(404, "HEAD", "/unv/k", ""); r.header.Get("x-amz-delete-marker") != "false" {
		t.Errorf("HEAD of a missing key: %v", r.header)
	}
}

// The null version: an object written before versioning was enabled, or
// while it is suspended, has version id "null"; a write in a suspended
// bucket replaces it.
func TestNullVersion(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/nul", "")
	e.must(200, "PUT", "/nul/k", "plain")
	e.must(200, "PUT", "/nul?versioning", enableVersioning)
	if r := e.must(200, "GET", "/nul/k?versionId=null", ""); r.body != "plain" || r.header.Get("x-amz-version-id") != "null" {
		t.Errorf("GET versionId=null: %q %v", r.body, r.header)
	}
	v := e.must(200, "PUT", "/nul/k", "versioned").header.Get("x-amz-version-id")
	got := e.must(200, "GET", "/nul?versions", "").body
	if !strings.Contains(got, "<VersionId>null</VersionId><IsLatest>false</IsLatest>") || !strings.Contains(got, "<VersionId>"+v+"</VersionId><IsLatest>true</IsLatest>") {
		t.Errorf("versions:\n%s", got)
	}
	e.must(200, "PUT", "/nul?versioning", suspendVersioning)
	if r := e.must(200, "PUT", "/nul/k", "suspended"); r.header.Get("x-amz-version-id") != "null" {
		t.Errorf("PUT in a suspended bucket: version %q", r.header.Get("x-amz-version-id"))
	}
	got = e.must(200, "GET", "/nul?versions", "").body
	if strings.Count(got, "<Version>") != 2 || strings.Contains(got, "plain") {
		t.Errorf("the suspended write did not replace the null version:\n%s", got)
	}
	if r := e.must(200, "GET", "/nul/k?versionId=null", ""); r.body != "suspended" {
		t.Errorf("null version %q", r.body)
	}
	e.must(204, "DELETE", "/nul/k?versionId=null", "")
	if r := e.must(200, "GET", "/nul/k", ""); r.body != "versioned" {
		t.Errorf("after removing the null version: %q", r.body)
	}
	// A delete while suspended writes a null marker.
	r := e.must(204, "DELETE", "/nul/k", "")
	if r.header.Get("x-amz-delete-marker") != "true" || r.header.Get("x-amz-version-id") != "null" {
		t.Errorf("DeleteObject while suspended: %v", r.header)
	}
	e.must(404, "GET", "/nul/k", "")
}

// TestCopySourceNullVersion: in a bucket whose versioning was set, an
// object written before it was enabled (or while suspended) has version
// id "null", which x-amz-copy-source takes as GetObject, HeadObject and
// DeleteObject take it, for CopyObject and UploadPartCopy alike. A version
// id naming a delete marker is S3's 400 InvalidRequest; a source whose
// newest revision is one, NoSuchKey.
func TestCopySourceNullVersion(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/nullv", "")
	e.must(200, "PUT", "/nullv/k", "the null version")
	e.must(200, "PUT", "/nullv?versioning", enableVersioning)
	e.must(200, "PUT", "/nullv/k", "a newer version")
	if got := e.must(200, "GET", "/nullv/k?versionId=null", "").body; got != "the null version" {
		t.Fatalf("GET versionId=null: %q", got)
	}
	r := e.do("PUT", "/nullv/copy", "", "x-amz-copy-source", "/nullv/k?versionId=null")
	if r.status != 200 {
		t.Fatalf("CopyObject from versionId=null: %d %s", r.status, between(r.body, "<Code>", "</Code>"))
	}
	if got := e.must(200, "GET", "/nullv/copy", "").body; got != "the null version" {
		t.Errorf("the copy of the null version holds %q", got)
	}
	id := between(e.must(200, "POST", "/nullv/mp?uploads", "").body, "<UploadId>", "</UploadId>")
	if r := e.do("PUT", "/nullv/mp?partNumber=1&uploadId="+id, "", "x-amz-copy-source", "/nullv/k?versionId=null"); r.status != 200 {
		t.Errorf("UploadPartCopy from versionId=null: %d %s", r.status, between(r.body, "<Code>", "</Code>"))
	}

	marker := e.must(204, "DELETE", "/nullv/k", "").header.Get("x-amz-version-id")
	if r := e.do("PUT", "/nullv/copy", "", "x-amz-copy-source", "/nullv/k?versionId="+marker); r.status != 400 || between(r.body, "<Code>", "</Code>") != "InvalidRequest" {
		t.Errorf("CopyObject from a delete marker's version id: %d %s, want 400 InvalidRequest", r.status, between(r.body, "<Code>", "</Code>"))
	}
	if r := e.do("PUT", "/nullv/copy", "", "x-amz-copy-source", "/nullv/k"); r.status != 404 || between(r.body, "<Code>", "</Code>") != "NoSuchKey" {
		t.Errorf("CopyObject from a deleted key: %d %s, want 404 NoSuchKey", r.status, between(r.body, "<Code>", "</Code>"))
	}
}

// TestDeleteObjectsErrorVersionID: a DeleteObjects entry that fails for a
// version names the version in its Error (AWS's Error element: Key,
// VersionId, Code, Message), so that a client deleting several versions of
// one key can tell which one failed.
func TestDeleteObjectsErrorVersionID(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/delerrv", "")
	e.must(200, "PUT", "/delerrv?versioning", `<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>`)
	v := e.must(200, "PUT", "/delerrv/k", "x").header.Get("x-amz-version-id")
	body := e.must(200, "POST", "/delerrv?delete", `<Delete><Object><Key>k</Key><VersionId>`+v+`</VersionId></Object><Object><Key>k</Key><VersionId>{bad</VersionId></Object></Delete>`).body
	errEl := between(body, "<Error>", "</Error>")
	if errEl == "" || !strings.Contains(errEl, "<VersionId>{bad</VersionId>") {
		t.Errorf("DeleteObjects Error for version {bad: %q, want its VersionId\n%s", errEl, body)
	}
}
