package s3_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/s3"
)

// postForm POSTs a browser form upload: fields in order, then the file.
func postForm(t *testing.T, url string, fields [][2]string, filename, content string) reply {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range fields {
		mw.WriteField(f[0], f[1])
	}
	fw, _ := mw.CreateFormFile("file", filename)
	io.WriteString(fw, content)
	mw.WriteField("after-the-file", "ignored")
	mw.Close()
	res, err := rawClient.Post(url, mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return reply{res.StatusCode, res.Header, string(b)}
}

// signedPolicy is a Version 2 policy and its signature.
func signedPolicy(secret string, expires time.Time, conditions ...any) (policy, sig string) {
	doc, _ := json.Marshal(map[string]any{"expiration": expires.UTC().Format("2006-01-02T15:04:05Z"), "conditions": conditions})
	policy = base64.StdEncoding.EncodeToString(doc)
	m := hmac.New(sha1.New, []byte(secret))
	m.Write([]byte(policy))
	return policy, base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Presigned POST: the form's fields must satisfy the signed policy and be
// covered by it; the file streams into the object.
func TestPresignedPost(t *testing.T) {
	e := newSignedEnv(t, s3.Config{})
	date := time.Now().UTC().Format(http.TimeFormat)
	e.must(200, "PUT", "/forms", "", "Date", date, "Authorization", "AWS "+testKey+":"+signV2(testSecret, "PUT", "/forms", date, http.Header{}))
	later := time.Now().Add(time.Hour)
	conds := []any{map[string]string{"bucket": "forms"}, []any{"starts-with", "$key", "uploads/"}, []any{"starts-with", "$Content-Type", "image/"},
		[]any{"eq", "$x-amz-meta-owner", "ana"}, []any{"content-length-range", 1, 10}, map[string]string{"success_action_status": "201"}}
	policy, sig := signedPolicy(testSecret, later, conds...)
	form := func(extra ...[2]string) [][2]string {
		f := [][2]string{{"key", "uploads/${filename}"}, {"AWSAccessKeyId", testKey}, {"policy", policy}, {"signature", sig},
			{"Content-Type", "image/png"}, {"x-amz-meta-owner", "ana"}, {"success_action_status", "201"}}
		return append(f, extra...)
	}
	r := postForm(t, e.url+"/forms", form(), "cat.png", "meow")
	if r.status != 201 || !strings.Contains(r.body, "<Key>uploads/cat.png</Key>") || !strings.Contains(r.body, "<ETag>") {
		t.Fatalf("signed POST: %d\n%s", r.status, r.body)
	}
	get := e.do("GET", "/forms/uploads/cat.png", "", "Date", date, "Authorization", "AWS "+testKey+":"+signV2(testSecret, "GET", "/forms/uploads/cat.png", date, http.Header{}))
	if get.status != 200 || get.body != "meow" || get.header.Get("Content-Type") != "image/png" || get.header.Get("x-amz-meta-owner") != "ana" {
		t.Fatalf("the uploaded object: %d %q %v", get.status, get.body, get.header)
	}

	expired, expiredSig := signedPolicy(testSecret, time.Now().Add(-time.Minute), conds...)
	empty, emptySig := signedPolicy(testSecret, later, append(conds, map[string]string{})...)
	sumX := sha256.Sum256([]byte("x"))
	for _, tc := range []struct {
		name   string
		fields [][2]string
		file   string
		want   int
	}{
		{"content too large", form(), "0123456789A", 400},
		{"content too small", form(), "", 400},
		{"key outside the prefix", append(form(), [2]string{"key", "elsewhere/x"}), "x", 403},
		{"condition failed", append(form(), [2]string{"x-amz-meta-owner", "bob"}), "x", 403},
		{"field the policy does not cover", append(form(), [2]string{"x-amz-meta-extra", "1"}), "x", 403},
		{"ignored field", append(form(), [2]string{"x-ignore-me", "1"}), "x", 201},
		// A checksum field need not be covered: it only narrows what is
		// accepted (s3-tests' test_post_object_upload_checksum).
		{"checksum the policy does not name", append(form(), [2]string{"x-amz-checksum-sha256", base64.StdEncoding.EncodeToString(sumX[:])}), "x", 201},
		{"wrong checksum", append(form(), [2]string{"x-amz-checksum-sha256", base64.StdEncoding.EncodeToString(sumX[:])}), "y", 400},
		{"empty condition", append(form(), [2]string{"policy", empty}, [2]string{"signature", emptySig}), "x", 400},
		{"wrong signature", append(form(), [2]string{"signature", base64.StdEncoding.EncodeToString([]byte("01234567890123456789"))}), "x", 403},
		{"unknown key", append(form(), [2]string{"AWSAccessKeyId", "nobody"}), "x", 403},
		{"expired policy", append(form(), [2]string{"policy", expired}, [2]string{"signature", expiredSig}), "x", 403},
		{"no signature", [][2]string{{"key", "uploads/x"}, {"policy", policy}}, "x", 400},
		{"anonymous", [][2]string{{"key", "uploads/x"}}, "x", 403},
		{"no key", [][2]string{{"AWSAccessKeyId", testKey}, {"policy", policy}, {"signature", sig}}, "x", 400},
	} {
		fields := tc.fields
		// Later fields of the same name win in the form; keep the last.
		seen := map[string]int{}
		var dedup [][2]string
		for _, f := range fields {
			if i, ok := seen[strings.ToLower(f[0])]; ok {
				dedup[i] = f
				continue
			}
			seen[strings.ToLower(f[0])] = len(dedup)
			dedup = append(dedup, f)
		}
		if r := postForm(t, e.url+"/forms", dedup, "f.png", tc.file); r.status != tc.want {
			t.Errorf("%s: %d, want %d\n%s", tc.name, r.status, tc.want, r.body)
		}
	}
	// Redirect after success.
	redir := conds[:5]
	redir = append(redir, []any{"starts-with", "$success_action_redirect", "https://app.example/"})
	p2, s2 := signedPolicy(testSecret, later, redir...)
	r = postForm(t, e.url+"/forms", [][2]string{{"key", "uploads/r.png"}, {"AWSAccessKeyId", testKey}, {"policy", p2}, {"signature", s2},
		{"Content-Type", "image/png"}, {"x-amz-meta-owner", "ana"}, {"success_action_redirect", "https://app.example/done"}}, "r.png", "x")
	if r.status != 303 || !strings.HasPrefix(r.header.Get("Location"), "https://app.example/done?") || !strings.Contains(r.header.Get("Location"), "?bucket=forms&key=uploads%2Fr.png&etag=%22") {
		t.Errorf("redirect: %d %q", r.status, r.header.Get("Location"))
	}
}
