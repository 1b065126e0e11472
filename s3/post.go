package s3

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"io"
	"mime"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/buckets"
)

// Presigned POST (S3's browser-based uploads): an HTML form POSTed to the
// bucket as multipart/form-data whose fields are checked against a policy
// the key holder signed (Version 4 fields x-amz-algorithm, x-amz-credential,
// x-amz-date, x-amz-signature, or Version 2 AWSAccessKeyId and signature).
// The policy's conditions (exact and starts-with matches on fields,
// x-amz-meta-* included, and content-length-range) must cover every field
// the form sends; the file, the last field, streams straight into the
// upload. success_action_status (200, 201 with an XML reply, 204 by
// default) and success_action_redirect / redirect say how to answer.

// maxPostFields bounds the form fields before the file.
const maxPostFields = 64 << 10

// postPolicy is the decoded policy document.
type postPolicy struct {
	expiration time.Time
	conditions []postCondition
	minLength  int64
	maxLength  int64 // -1: no content-length-range
}

type postCondition struct {
	op    string // "eq" or "starts-with"
	field string // lower case, without "$"
	value string
}

// parsePostPolicy decodes a base64 policy document: 400 for anything that is
// not one.
func parsePostPolicy(b64 string, now time.Time) (*postPolicy, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, errorf(ErrInvalidPolicyDocument, "the policy is not base64")
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, errorf(ErrInvalidPolicyDocument, "the policy is not a JSON object")
	}
	var exp string
	if err := json.Unmarshal(doc["expiration"], &exp); err != nil || exp == "" {
		return nil, errorf(ErrInvalidPolicyDocument, "Invalid Policy: Policy missing expiration.")
	}
	p := &postPolicy{maxLength: -1}
	if p.expiration, err = time.Parse(time.RFC3339Nano, exp); err != nil || !strings.HasSuffix(exp, "Z") {
		return nil, errorf(ErrInvalidPolicyDocument, "Invalid Policy: Invalid 'expiration' value: %q", exp)
	}
	var conds []json.RawMessage
	if err := json.Unmarshal(doc["conditions"], &conds); err != nil || len(conds) == 0 {
		return nil, errorf(ErrInvalidPolicyDocument, "Invalid Policy: Policy missing conditions.")
	}
	for _, c := range conds {
		var m map[string]string
		if json.Unmarshal(c, &m) == nil {
			if len(m) == 0 {
				return nil, errorf(ErrInvalidPolicyDocument, "Invalid Policy: an empty condition")
			}
			for k, v := range m {
				p.conditions = append(p.conditions, postCondition{"eq", strings.ToLower(k), v})
			}
			continue
		}
		var arr []json.RawMessage
		if json.Unmarshal(c, &arr) != nil || len(arr) == 0 {
			return nil, errorf(ErrInvalidPolicyDocument, "Invalid Policy: a condition is neither an object nor a list")
		}
		var op string
		json.Unmarshal(arr[0], &op)
		switch strings.ToLower(op) {
		case "content-length-range":
			var lo, hi int64
			if len(arr) != 3 || json.Unmarshal(arr[1], &lo) != nil || json.Unmarshal(arr[2], &hi) != nil || lo < 0 || hi < lo {
				return nil, errorf(ErrInvalidPolicyDocument, "Invalid Policy: content-length-range needs a minimum and a maximum, 0 <= min <= max")
			}
			p.minLength, p.maxLength = lo, hi
		case "eq", "starts-with":
			var field, value string
			if len(arr) != 3 || json.Unmarshal(arr[1], &field) != nil || json.Unmarshal(arr[2], &value) != nil || !strings.HasPrefix(field, "$") {
				return nil, errorf(ErrInvalidPolicyDocument, "Invalid Policy: %s needs a $field and a value", op)
			}
			p.conditions = append(p.conditions, postCondition{strings.ToLower(op), strings.ToLower(field[1:]), value})
		default:
			return nil, errorf(ErrInvalidPolicyDocument, "Invalid Policy: unknown condition %q", op)
		}
	}
	if now.After(p.expiration) {
		return nil, errorf(ErrAccessDenied, "Invalid according to Policy: Policy expired.")
	}
	return p, nil
}

// postExempt are the form fields a policy need not cover: the signature's
// own, x-ignore-*, and the x-amz-checksum-* of the file (a checksum only
// narrows what is accepted: the content must match it).
func postExempt(field string) bool {
	switch field {
	case "file", "policy", "signature", "awsaccesskeyid", "x-amz-signature":
		return true
	}
	return strings.HasPrefix(field, "x-ignore-") || strings.HasPrefix(field, checksumHdrPref)
}

// check verifies the form's fields against the policy's conditions: each
// condition holds, and each field is covered by one.
func (p *postPolicy) check(fields map[string]string) error {
	covered := map[string]bool{}
	for _, c := range p.conditions {
		v := fields[c.field]
		ok := c.op == "eq" && v == c.value || c.op == "starts-with" && strings.HasPrefix(v, c.value)
		if !ok {
			return errorf(ErrAccessDenied, "Invalid according to Policy: Policy Condition failed: [%q, \"$%s\", %q]", c.op, c.field, c.value)
		}
		covered[c.field] = true
	}
	for f := range fields {
		if !postExempt(f) && !covered[f] {
			return errorf(ErrAccessDenied, "Invalid according to Policy: Extra input fields: %s", f)
		}
	}
	return nil
}

// ErrInvalidPolicyDocument is a POST policy that cannot be read.
var ErrInvalidPolicyDocument = &Error{http.StatusBadRequest, "InvalidPolicyDocument", ""}

type postResponse struct {
	XMLName  xml.Name `xml:"PostResponse"`
	Location string   `xml:"Location"`
	Bucket   string   `xml:"Bucket"`
	Key      string   `xml:"Key"`
	ETag     string   `xml:"ETag"`
}

// postObject serves a browser form upload.
func (s *Server) postObject(req *request) error {
	req.op = "PostObject"
	r := req.r
	ctx := r.Context()
	mr, err := r.MultipartReader()
	if err != nil {
		return errorf(ErrInvalidArgument, "POST requires exactly one file upload per request (multipart/form-data)")
	}
	fields := map[string]string{}
	size := 0
	var filePart io.Reader
	filename := ""
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return errorf(ErrMalformedPOST, "the body is not valid multipart/form-data")
		}
		name := strings.ToLower(part.FormName())
		if name == "" {
			// Every part of a form is a named field (a nameless file is
			// no "file" field: a broken form, as S3 answers).
			return errorf(ErrMalformedPOST, "The body of your POST request is not well-formed multipart/form-data: a part has no field name")
		}
		if name == "file" {
			filePart, filename = part, part.FileName()
			break
		}
		v, err := io.ReadAll(io.LimitReader(part, int64(maxPostFields-size+1)))
		if err != nil {
			return errorf(ErrMalformedPOST, "the body is not valid multipart/form-data")
		}
		if size += len(name) + len(v); size > maxPostFields {
			return errorf(ErrMalformedPOST, "the form fields exceed %d bytes", maxPostFields)
		}
		fields[name] = string(v)
	}
	if filePart == nil {
		return errorf(ErrInvalidArgument, "POST requires exactly one file upload per request")
	}
	key := fields["key"]
	if key == "" {
		return errorf(ErrInvalidArgument, "Bucket POST must contain a field named 'key'.")
	}
	fields["key"] = strings.ReplaceAll(key, "${filename}", filename)
	if b := fields["bucket"]; b != "" && b != req.bucket {
		return errorf(ErrAccessDenied, "the form's bucket field names another bucket")
	}
	fields["bucket"] = req.bucket
	req.key = fields["key"]

	policy, err := s.verifyPost(req, fields)
	if err != nil {
		return err
	}
	if err := s.allow(req, req.bucket, auth.Write); err != nil {
		return err
	}
	acl, err := s.checkACL(req, fields["acl"])
	if err != nil {
		return err
	}
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	h := http.Header{}
	for k, v := range fields {
		h.Set(textproto.CanonicalMIMEHeaderKey(k), v)
	}
	if err := checkWriteHeaders(h); err != nil {
		return err
	}
	md, err := userMetadata(h)
	if err != nil {
		return err
	}
	tags, err := postTags(fields["tagging"])
	if err != nil {
		return err
	}
	cs, err := requestChecksum(h)
	if err != nil {
		return err
	}
	// The file's length is not known before it arrives; the writer
	// enforces the upload limits while it streams.
	release, err := startUpload(s.db, b, -1)
	if err != nil {
		return err
	}
	defer release()
	up, err := b.OpenUpload(ctx, req.key, buckets.UploadOptions{Metadata: md, ContentType: fields["content-type"], MD5: true,
		Extra: append(buckets.TagsField(tags), buckets.ACLField(acl)...)})
	if err != nil {
		return err
	}
	defer up.Abort() // after a commit, nothing
	body := cs.reader(filePart)
	if policy != nil && policy.maxLength >= 0 {
		body = &policyLimit{r: body, left: policy.maxLength}
	}
	if _, err := up.ReadFrom(body); err != nil {
		return err
	}
	if policy != nil && up.Length() < policy.minLength {
		return errorf(ErrEntityTooSmall, "Your proposed upload is smaller than the minimum allowed size (%d bytes)", policy.minLength)
	}
	if cs != nil {
		if want := fields[checksumHdrPref+cs.alg]; want != "" && want != cs.value() {
			return errorf(ErrBadDigest, "the %s%s you specified did not match the calculated checksum", checksumHdrPref, cs.alg)
		}
		st := cs.stored()
		up.SetField(buckets.FieldS3Checksum, st)
		setChecksumHeaders(req.w.Header(), &st)
	}
	f, err := up.Commit()
	if err != nil {
		return err
	}
	etag := objectETag(f)
	rh := req.w.Header()
	rh.Set("ETag", etag)
	rh.Set("x-amz-version-id", versionID(f.ID))
	scheme := "http://"
	if r.TLS != nil {
		scheme = "https://"
	}
	location := scheme + r.Host + "/" + req.bucket + "/" + encodePath(req.key)
	if s.virtualHost(r.Host) != "" {
		location = scheme + r.Host + "/" + encodePath(req.key)
	}
	rh.Set("Location", location)
	redirect := fields["success_action_redirect"]
	if redirect == "" {
		redirect = fields["redirect"]
	}
	if u, err := url.Parse(redirect); redirect != "" && err == nil && u.Scheme != "" {
		// Appended in S3's order (bucket, key, etag) after the URL's own
		// query, which stays as the form gave it: clients compare it.
		added := "bucket=" + url.QueryEscape(req.bucket) + "&key=" + url.QueryEscape(req.key) + "&etag=" + url.QueryEscape(etag)
		if u.RawQuery != "" {
			added = u.RawQuery + "&" + added
		}
		u.RawQuery = added
		rh.Set("Location", u.String())
		req.w.WriteHeader(http.StatusSeeOther)
		return nil
	}
	switch fields["success_action_status"] {
	case "200":
		req.w.WriteHeader(http.StatusOK)
	case "201":
		return s.writeXML(req, http.StatusCreated, postResponse{Location: location, Bucket: req.bucket, Key: req.key, ETag: etag})
	default:
		req.w.WriteHeader(http.StatusNoContent)
	}
	return nil
}

// ErrMalformedPOST is a form that cannot be read.
var ErrMalformedPOST = &Error{http.StatusBadRequest, "MalformedPOSTRequest", ""}

// verifyPost checks the form's signature and policy, and sets req.sig to
// the signer; a form without a policy is anonymous (policy nil).
func (s *Server) verifyPost(req *request, fields map[string]string) (*postPolicy, error) {
	b64 := fields["policy"]
	if b64 == "" {
		if fields["x-amz-signature"] != "" || fields["signature"] != "" {
			return nil, errorf(ErrInvalidArgument, "a signed form needs its policy")
		}
		return nil, nil
	}
	var keys secrets
	if s.auth.Enabled() {
		keys = s.auth
	}
	now := time.Now()
	var accessKey, secret string
	check := func(mac []byte, sig string, decode func(string) ([]byte, error)) error {
		got, err := decode(sig)
		if err != nil || !hmac.Equal(got, mac) {
			return errorf(ErrSignatureMismatch, "the form's signature does not match its policy")
		}
		return nil
	}
	switch {
	case fields["x-amz-signature"] != "":
		if !strings.EqualFold(fields["x-amz-algorithm"], algorithm) {
			return nil, errorf(ErrInvalidArgument, "x-amz-algorithm must be %s", algorithm)
		}
		cred, ok := parseCredential(fields["x-amz-credential"])
		if !ok {
			return nil, errorf(ErrInvalidArgument, "x-amz-credential is malformed")
		}
		accessKey = cred.accessKey
		if keys != nil {
			var found bool
			if secret, found = keys.TokenSecret(accessKey); !found {
				return nil, errorf(ErrInvalidAccessKey, "the access key id does not exist")
			}
			mac := hmacSHA256(signingKey(secret, cred), b64)
			if err := check(mac, strings.ToLower(fields["x-amz-signature"]), hex.DecodeString); err != nil {
				return nil, err
			}
		}
	case fields["signature"] != "":
		accessKey = fields["awsaccesskeyid"]
		if keys != nil {
			var found bool
			if secret, found = keys.TokenSecret(accessKey); !found {
				return nil, errorf(ErrInvalidAccessKey, "the access key id does not exist")
			}
			m := hmac.New(sha1.New, []byte(secret))
			m.Write([]byte(b64))
			if err := check(m.Sum(nil), fields["signature"], base64.StdEncoding.DecodeString); err != nil {
				return nil, err
			}
		}
	default:
		return nil, errorf(ErrInvalidArgument, "a form with a policy needs its signature (x-amz-signature, or signature and AWSAccessKeyId)")
	}
	policy, err := parsePostPolicy(b64, now)
	if err != nil {
		return nil, err
	}
	if err := policy.check(fields); err != nil {
		return nil, err
	}
	req.sig = &signature{accessKey: accessKey, payload: unsignedPayload}
	return policy, nil
}

// postTags parses the form's tagging field (a Tagging XML document).
func postTags(doc string) ([]buckets.Tag, error) {
	if strings.TrimSpace(doc) == "" {
		return nil, nil
	}
	var t tagging
	if err := xml.Unmarshal([]byte(doc), &t); err != nil {
		return nil, ErrMalformedXML
	}
	tags := make([]buckets.Tag, len(t.TagSet))
	for i, x := range t.TagSet {
		tags[i] = buckets.Tag(x)
	}
	return tags, tagError(buckets.CheckTags(tags, buckets.MaxFileTags))
}

// isPostObject reports whether r is a browser form upload to a bucket.
func isPostObject(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// policyLimit fails with EntityTooLarge past the policy's
// content-length-range.
type policyLimit struct {
	r    io.Reader
	left int64
}

func (l *policyLimit) Read(p []byte) (int, error) {
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1] // one byte more tells a full file from an oversized one
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, errorf(ErrEntityTooLarge, "Your proposed upload exceeds the maximum allowed size of the policy")
	}
	return n, err
}
