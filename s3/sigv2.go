package s3

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// AWS Signature Version 2, for the legacy clients and appliances that still
// sign with it (as MinIO accepts it): "Authorization: AWS <key>:<sig>" or
// the query parameters AWSAccessKeyId, Expires and Signature, where sig is
// base64(HMAC-SHA1(secret, string to sign)) and the string to sign is
//
//	<method>\n<Content-MD5>\n<Content-Type>\n<Date or Expires>\n<x-amz-* headers><resource>
//
// Version 2 signs no payload hash: the body is as trustworthy as the
// connection it came over, which is why AWS retired it; a Content-MD5, when
// sent, is signed and checked. Streaming (aws-chunked) bodies need Version 4.

// isSignedV2 reports whether r carries a Version 2 signature.
func isSignedV2(r *http.Request) bool {
	if strings.HasPrefix(r.Header.Get("Authorization"), "AWS ") {
		return true
	}
	q := r.URL.Query()
	return q.Has("AWSAccessKeyId") && q.Has("Signature")
}

// subResources are the query parameters a Version 2 signature covers, in
// the order it lists them (sorted by byte). They are AWS's list and every
// other sub-resource the router chooses an operation by (publicAccessBlock,
// ownershipControls, policyStatus, attributes, and those it answers
// NotImplemented): one left unsigned would turn a signed request for one
// operation into another (a presigned DeleteBucket into a
// DeletePublicAccessBlock). Clients that leave those out of the string
// they sign (botocore, s3cmd) get SignatureDoesNotMatch for those
// operations: they must sign them with Version 4.
var subResources = []string{
	"accelerate", "acl", "analytics", "attributes", "cors", "delete", "encryption", "intelligent-tiering", "inventory",
	"legal-hold", "lifecycle", "location", "logging", "metrics", "notification", "object-lock", "ownershipControls",
	"partNumber", "policy", "policyStatus", "publicAccessBlock", "replication", "requestPayment", "response-cache-control",
	"response-content-disposition", "response-content-encoding", "response-content-language", "response-content-type",
	"response-expires", "restore", "retention", "select", "select-type", "tagging", "torrent", "uploadId", "uploads",
	"versionId", "versioning", "versions", "website",
}

// verifySignatureV2 checks r's Version 2 signature against keys (nil: not
// checked, as with access control off). bucket is the request's bucket when
// it came by virtual-hosted-style addressing (the resource then starts
// with it), else "".
func verifySignatureV2(r *http.Request, keys secrets, now time.Time, vhostBucket string) (*signature, error) {
	q := r.URL.Query()
	var accessKey, sig, date string
	if auth := r.Header.Get("Authorization"); auth != "" {
		cred, ok := strings.CutPrefix(auth, "AWS ")
		i := strings.LastIndexByte(cred, ':')
		if !ok || i <= 0 || i == len(cred)-1 {
			return nil, errorf(ErrAuthHeader, "the Authorization header is malformed: AWS <access key id>:<signature>")
		}
		accessKey, sig = cred[:i], cred[i+1:]
		var t time.Time
		var err error
		if d := r.Header.Get("X-Amz-Date"); d != "" {
			t, err = http.ParseTime(d)
			if err != nil {
				t, err = time.Parse(amzDateFormat, d)
			}
		} else {
			date = r.Header.Get("Date")
			t, err = http.ParseTime(date)
		}
		if err != nil {
			return nil, errorf(ErrAccessDenied, "the request has no valid Date or X-Amz-Date")
		}
		if d := now.Sub(t); d > maxClockSkew || d < -maxClockSkew {
			return nil, errorf(ErrTimeSkewed, "the difference between the request time and the server's time is too large")
		}
	} else {
		accessKey, sig, date = q.Get("AWSAccessKeyId"), q.Get("Signature"), q.Get("Expires")
		exp, err := strconv.ParseInt(date, 10, 64)
		if err != nil {
			return nil, errorf(ErrAuthQuery, "Expires must be a Unix time")
		}
		// Expires is the first second the link no longer works (a link
		// signed to expire now, or before, never works).
		if now.Unix() >= exp {
			return nil, errorf(ErrAccessDenied, "Request has expired")
		}
	}
	payload := r.Header.Get("X-Amz-Content-Sha256")
	if strings.HasPrefix(payload, "STREAMING-") {
		return nil, errorf(ErrInvalidRequest, "aws-chunked bodies need AWS Signature Version 4")
	}
	if payload == "" {
		payload = unsignedPayload
	}
	s := &signature{accessKey: accessKey, payload: payload}
	if keys == nil {
		return s, nil
	}
	secret, found := keys.TokenSecret(accessKey)
	if !found {
		return nil, errorf(ErrInvalidAccessKey, "the access key id does not exist")
	}
	got, err := base64.StdEncoding.DecodeString(sig)
	if err != nil {
		return nil, errorf(ErrSignatureMismatch, "the signature is not base64")
	}
	raw := rawPath(r)
	paths := []string{encodePath(decodePathOrRaw(raw))}
	if raw != paths[0] {
		paths = append(paths, raw)
	}
	// A bucket's resource is "/<bucket>/" (botocore's HmacV1Auth signs it
	// so) while the URL may be "/<bucket>".
	if vhostBucket == "" && len(raw) > 1 && !strings.Contains(raw[1:], "/") {
		paths = append(paths, raw+"/")
	}
	for _, p := range paths {
		if vhostBucket != "" {
			p = "/" + vhostBucket + p
		}
		m := hmac.New(sha1.New, []byte(secret))
		m.Write([]byte(stringToSignV2(r, date, p, q)))
		if hmac.Equal(m.Sum(nil), got) {
			return s, nil
		}
	}
	return nil, errorf(ErrSignatureMismatch, "the request signature we calculated does not match the signature you provided; check your key and signing method")
}

func stringToSignV2(r *http.Request, date, path string, q url.Values) string {
	var b strings.Builder
	b.WriteString(r.Method + "\n")
	b.WriteString(r.Header.Get("Content-Md5") + "\n")
	b.WriteString(r.Header.Get("Content-Type") + "\n")
	b.WriteString(date + "\n")
	var amz []string
	for k := range r.Header {
		if lk := strings.ToLower(k); strings.HasPrefix(lk, "x-amz-") {
			amz = append(amz, lk)
		}
	}
	sort.Strings(amz)
	for _, k := range amz {
		b.WriteString(k + ":" + strings.Join(r.Header.Values(k), ",") + "\n")
	}
	b.WriteString(path)
	sep := byte('?')
	for _, name := range subResources {
		vv, ok := q[name]
		if !ok {
			continue
		}
		b.WriteByte(sep)
		sep = '&'
		b.WriteString(name)
		if len(vv) > 0 && vv[0] != "" {
			b.WriteString("=" + vv[0])
		}
	}
	return b.String()
}
