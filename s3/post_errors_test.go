package s3_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/s3"
)

// A form whose file part has no field name is MalformedPOSTRequest (it was
// "no file"); a failed policy condition is named with its quotes as sent,
// not as &#34; (minio-go's testPresignedPostPolicyEmptyFileName and
// testPresignedPostPolicyWrongFile read both).
func TestPresignedPostErrors(t *testing.T) {
	e := newSignedEnv(t, s3.Config{})
	date := time.Now().UTC().Format(http.TimeFormat)
	e.must(200, "PUT", "/forms", "", "Date", date, "Authorization", "AWS "+testKey+":"+signV2(testSecret, "PUT", "/forms", date, http.Header{}))
	policy, sig := signedPolicy(testSecret, time.Now().Add(time.Hour), map[string]string{"bucket": "forms"},
		[]any{"starts-with", "$key", "up/"}, []any{"eq", "$x-amz-meta-owner", "ana"})
	fields := [][2]string{{"key", "up/x"}, {"AWSAccessKeyId", testKey}, {"policy", policy}, {"signature", sig}}

	r := postForm(t, e.url+"/forms", append(fields, [2]string{"x-amz-meta-owner", "bob"}), "f", "x")
	if r.status != 403 || !strings.Contains(r.body, `Policy Condition failed: ["eq", "$x-amz-meta-owner", "ana"]`) {
		t.Errorf("failed condition: %d\n%s", r.status, r.body)
	}

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range append(fields, [2]string{"x-amz-meta-owner", "ana"}) {
		mw.WriteField(f[0], f[1])
	}
	fw, _ := mw.CreateFormFile("", "f.txt")
	io.WriteString(fw, "content")
	mw.Close()
	res, err := rawClient.Post(e.url+"/forms", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 400 || !strings.Contains(string(b), "<Code>MalformedPOSTRequest</Code>") {
		t.Errorf("file part without a name: %d\n%s", res.StatusCode, b)
	}
}
