package s3_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/s3"
)

// allBetween returns every text between a and b in s, in order.
func allBetween(s, a, b string) []string {
	var out []string
	for {
		i := strings.Index(s, a)
		if i < 0 {
			return out
		}
		s = s[i+len(a):]
		j := strings.Index(s, b)
		if j < 0 {
			return out
		}
		out = append(out, s[:j])
		s = s[j+len(b):]
	}
}

// TestCommonPrefixListedOnceAcrossPages: paging with max-keys=1 through
// ListObjectsV2 (continuation-token), ListObjects (marker) and
// ListObjectVersions (key-marker) returns each common prefix once, as AWS,
// whatever the delimiter's last character: a common prefix ending in "~",
// "é" or U+10FFFF came back on every page, and clients paged forever. A
// common prefix that no string follows (only U+10FFFF) given as the marker
// is not listed again either.
func TestCommonPrefixListedOnceAcrossPages(t *testing.T) {
	e := newEnv(t, s3.Config{})
	for i, delim := range []string{"~", "é", "\U0010FFFF"} {
		bucket := []string{"/tilde", "/eacute", "/maxrune"}[i]
		e.must(200, "PUT", bucket, "")
		for _, k := range []string{"a" + delim + "1", "a" + delim + "2", "b"} {
			e.must(200, "PUT", bucket+"/"+url.PathEscape(k), "x")
		}
		for _, kind := range []string{"v2", "v1", "versions"} {
			var got []string
			next := ""
			for page := 0; page < 6; page++ {
				var path string
				switch kind {
				case "v2":
					path = bucket + "?list-type=2&max-keys=1&delimiter=" + url.QueryEscape(delim)
					if next != "" {
						path += "&continuation-token=" + url.QueryEscape(next)
					}
				case "v1":
					path = bucket + "?max-keys=1&delimiter=" + url.QueryEscape(delim)
					if next != "" {
						path += "&marker=" + url.QueryEscape(next)
					}
				case "versions":
					path = bucket + "?versions&max-keys=1&delimiter=" + url.QueryEscape(delim)
					if next != "" {
						path += "&key-marker=" + url.QueryEscape(next)
					}
				}
				r := e.must(200, "GET", path, "")
				got = append(got, allBetween(r.body, "<Key>", "</Key>")...)
				got = append(got, allBetween(r.body, "<CommonPrefixes><Prefix>", "</Prefix>")...)
				if between(r.body, "<IsTruncated>", "</IsTruncated>") != "true" {
					break
				}
				switch kind {
				case "v2":
					next = between(r.body, "<NextContinuationToken>", "</NextContinuationToken>")
				case "v1":
					next = between(r.body, "<NextMarker>", "</NextMarker>")
				case "versions":
					next = between(r.body, "<NextKeyMarker>", "</NextKeyMarker>")
				}
			}
			want := "a" + delim + ",b"
			if strings.Join(got, ",") != want {
				t.Errorf("delimiter %q, %s, max-keys=1 paging: got %q, want %q", delim, kind, got, want)
			}
		}
	}

	const top = "\U0010FFFF"
	e.must(200, "PUT", "/top", "")
	for _, k := range []string{top + "1", top + "2"} {
		e.must(200, "PUT", "/top/"+url.PathEscape(k), "x")
	}
	for _, marker := range []string{"marker", "start-after", "key-marker"} {
		path := "/top?delimiter=" + url.QueryEscape(top) + "&" + marker + "=" + url.QueryEscape(top)
		switch marker {
		case "start-after":
			path += "&list-type=2"
		case "key-marker":
			path += "&versions"
		}
		body := e.must(200, "GET", path, "").body
		if strings.Contains(body, "<Key>") || strings.Contains(body, "<CommonPrefixes>") || strings.Contains(body, "<IsTruncated>true") {
			t.Errorf("%s after the common prefix U+10FFFF: not empty\n%s", marker, body)
		}
	}
}

// TestVersionsMaxKeysZero: ListObjectVersions answers max-keys=0 in a
// bucket that has objects with an empty page that is not truncated, as
// ListObjects and ListObjectsV2 do. It answered IsTruncated=true with
// neither NextKeyMarker nor NextVersionIdMarker: a page that says more
// follows but not where, which a client following IsTruncated asks for
// again, forever.
func TestVersionsMaxKeysZero(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/zerokeys", "")
	e.must(200, "PUT", "/zerokeys/a", "x")
	body := e.must(200, "GET", "/zerokeys?versions&max-keys=0", "").body
	if between(body, "<IsTruncated>", "</IsTruncated>") != "false" || strings.Contains(body, "<Version>") {
		t.Errorf("ListObjectVersions max-keys=0: want an empty page, not truncated:\n%s", body)
	}
}
