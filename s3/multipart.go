package s3

import (
	"context"
	"crypto/md5"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/gridfsd/gridfsd/buckets"
)

func md5Sum(b []byte) []byte {
	s := md5.Sum(b)
	return s[:]
}

// multipartOf returns the upload named by ?uploadId=, which must be one
// of this bucket and key.
func (s *Server) multipartOf(req *request) (*buckets.Bucket, *buckets.MultipartUpload, error) {
	ctx := req.r.Context()
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return nil, nil, err
	}
	mu, err := b.Multipart(ctx, req.r.URL.Query().Get("uploadId"))
	if err != nil {
		return nil, nil, err
	}
	if mu.Filename != req.key {
		return nil, nil, ErrNoSuchUpload
	}
	return b, mu, nil
}

// multipartACLField is where CreateMultipartUpload keeps a public
// x-amz-acl until Complete gives it to the object.
const multipartACLField = "acl"

func (s *Server) createMultipart(req *request) error {
	ctx, r := req.r.Context(), req.r
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	md, err := userMetadata(r.Header)
	if err != nil {
		return err
	}
	mc, err := multipartChecksumOf(r.Header)
	if err != nil {
		return err
	}
	tags, err := headerTags(r.Header)
	if err != nil {
		return err
	}
	mu, err := b.CreateMultipart(ctx, req.key, buckets.UploadOptions{Metadata: md, ContentType: r.Header.Get("Content-Type"), Initiator: s.owner(req)})
	if err != nil {
		return err
	}
	if len(tags) > 0 {
		if err := b.SetMultipartField(ctx, mu.ID, multipartTagsField, tags); err != nil {
			return err
		}
	}
	if buckets.PublicACL(req.acl) {
		if err := b.SetMultipartField(ctx, mu.ID, multipartACLField, req.acl); err != nil {
			return err
		}
	}
	if mc != nil {
		if err := b.SetMultipartField(ctx, mu.ID, "checksum", mc); err != nil {
			return err
		}
		req.w.Header().Set("x-amz-checksum-algorithm", strings.ToUpper(mc.Algorithm))
		req.w.Header().Set("x-amz-checksum-type", mc.Type)
	}
	return s.writeXML(req, http.StatusOK, initiateMultipartResult{Xmlns: xmlns, Bucket: req.bucket, Key: req.key, UploadID: mu.ID})
}

func (s *Server) uploadPart(req *request) error {
	ctx := req.r.Context()
	n, err := strconv.Atoi(req.r.URL.Query().Get("partNumber"))
	if err != nil || n < 1 || n > buckets.MaxPartNumber {
		return errorf(ErrInvalidArgument, "Part number must be an integer between 1 and %d, inclusive", buckets.MaxPartNumber)
	}
	b, mu, err := s.multipartOf(req)
	if err != nil {
		return err
	}
	cs, err := requestChecksum(req.r.Header)
	if err != nil {
		return err
	}
	u, err := s.uploadBody(req)
	if err != nil {
		return err
	}
	release, err := startUpload(s.db, b, u.declared(req.r))
	if err != nil {
		return err
	}
	defer release()
	u.body = cs.reader(u.body)
	pu, err := b.OpenPart(ctx, mu.ID, n)
	if err != nil {
		return err
	}
	if err := receive(pu, u); err != nil {
		return err
	}
	if cs != nil {
		pu.SetField("checksum", partChecksum{Algorithm: cs.alg, Value: cs.value(), Size: pu.Length()})
	}
	part, err := pu.Commit()
	if err != nil {
		return err
	}
	if cs != nil {
		req.w.Header().Set(checksumHdrPref+cs.alg, cs.value())
	}
	req.w.Header().Set("ETag", `"`+part.MD5+`"`)
	req.w.Header().Set("Content-Length", "0")
	req.w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) completeMultipart(req *request) error {
	ctx := req.r.Context()
	b, mu, err := s.multipartOf(req)
	if err == nil {
		err = s.complete(req, b, mu)
	}
	if errors.Is(err, ErrNoSuchUpload) || errors.Is(err, buckets.ErrUploadNotFound) {
		// Completed already, or by another try while this one read the
		// upload? SDKs retry a Complete that timed out: the answer is the
		// first one's. (The files document names its upload from its
		// commit on.)
		if b, berr := s.checkBucket(ctx, req.bucket); berr == nil {
			if f, ferr := b.FindCompleted(ctx, req.key, req.r.URL.Query().Get("uploadId")); ferr == nil {
				io.Copy(io.Discard, io.LimitReader(req.r.Body, maxXMLBody))
				return s.completed(req, f)
			}
		}
	}
	return err
}

// complete completes the multipart upload mu of b with the list in the
// request's body.
func (s *Server) complete(req *request, b *buckets.Bucket, mu *buckets.MultipartUpload) error {
	ctx := req.r.Context()
	// Its x-amz-checksum-* header is the whole object's checksum (of the
	// upload's type), not its XML body's: checked against the one the
	// parts make, below.
	ckName, ckWant, err := checksumHeader(req.r.Header)
	if err != nil {
		return err
	}
	if ckName != "" {
		req.r.Header.Del(ckName)
	}
	var c completeMultipartRequest
	if err := s.readXML(req, &c); err != nil {
		return err
	}
	if len(c.Parts) > buckets.MaxPartNumber {
		return errorf(ErrMalformedXML, "at most %d parts", buckets.MaxPartNumber)
	}
	list := make([]buckets.CompletedPart, len(c.Parts))
	for i, p := range c.Parts {
		list[i] = buckets.CompletedPart{Number: p.PartNumber, MD5: p.ETag}
	}
	sum, err := s.completedChecksum(ctx, b, mu.ID, list)
	if err != nil {
		return err
	}
	if ckName != "" {
		if sum == nil || checksumHdrPref+strings.ToLower(sum.Algorithm) != ckName {
			return errorf(ErrInvalidRequest, "%s names a checksum the upload was not created with (x-amz-checksum-algorithm)", ckName)
		}
		got, _, _ := strings.Cut(sum.Value, "-")
		if want, _, _ := strings.Cut(ckWant, "-"); want != got {
			return errorf(ErrBadDigest, "the %s you specified did not match the calculated checksum", ckName)
		}
	}
	parts, err := recordParts(ctx, b, mu.ID, list)
	if err != nil {
		return err
	}
	tags, err := multipartTags(ctx, b, mu.ID)
	if err != nil {
		return err
	}
	acl, err := b.MultipartField(ctx, mu.ID, multipartACLField)
	if err != nil {
		return err
	}
	// CompleteMultipartIf checks the conditions under the name's lease
	// before any chunk moves.
	f, err := b.CompleteMultipartIf(ctx, mu.ID, list, writeConditions(req.r.Header))
	if err != nil {
		return err
	}
	// The object exists: what makes it whole is written even when the
	// client gives up now (an SDK's timeout, after which it retries).
	ctx = context.WithoutCancel(ctx)
	if err := b.SetFileField(ctx, f.ID, fieldS3Parts, parts); err != nil {
		return err
	}
	if len(tags) > 0 {
		if err := b.SetTags(ctx, f.ID, tags); err != nil {
			return err
		}
	}
	if name, ok := acl.StringValueOK(); ok {
		// Checked when the upload was created; the bucket's public access
		// block and the gateway's rule again now.
		if err := b.SetACL(ctx, f.ID, name); err != nil {
			return err
		}
	}
	if sum != nil {
		if err := b.SetFileField(ctx, f.ID, buckets.FieldS3Checksum, sum); err != nil {
			return err
		}
		if f, err = b.Stat(ctx, f.ID); err != nil {
			return err
		}
	}
	setExpiration(req.w.Header(), b, f)
	return s.completed(req, f)
}

// completed answers a CompleteMultipartUpload that made f.
func (s *Server) completed(req *request, f *buckets.File) error {
	req.w.Header().Set("x-amz-version-id", versionID(f.ID))
	return s.writeXML(req, http.StatusOK, completeMultipartResult{
		Xmlns: xmlns, Location: "/" + req.bucket + "/" + req.key, Bucket: req.bucket, Key: req.key, ETag: objectETag(f),
		Checksums: checksumXML(f.Checksum()),
	})
}

func (s *Server) abortMultipart(req *request) error {
	b, mu, err := s.multipartOf(req)
	if err != nil {
		return err
	}
	if err := b.AbortMultipart(req.r.Context(), mu.ID); err != nil {
		return err
	}
	req.w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) listParts(req *request) error {
	q := req.r.URL.Query()
	b, mu, err := s.multipartOf(req)
	if err != nil {
		return err
	}
	max, err := maxKeys(q, "max-parts")
	if err != nil {
		return err
	}
	marker, _ := strconv.Atoi(q.Get("part-number-marker"))
	parts, err := b.ListParts(req.r.Context(), mu.ID)
	if err != nil {
		return err
	}
	res := listPartsResult{Xmlns: xmlns, Bucket: req.bucket, Key: req.key, UploadID: mu.ID, PartNumberMarker: marker,
		MaxParts: max, StorageClass: "STANDARD", Initiator: ownerOf(mu.Initiator), Owner: ownerOf(mu.Initiator), Parts: []partInfo{}}
	for _, p := range parts {
		if p.Number <= marker {
			continue
		}
		if len(res.Parts) == max {
			res.IsTruncated = max > 0
			break
		}
		res.Parts = append(res.Parts, partInfo{PartNumber: p.Number, LastModified: timestamp(p.Uploaded), ETag: `"` + p.MD5 + `"`, Size: p.Size})
		res.NextPartNumberMarker = p.Number
	}
	return s.writeXML(req, http.StatusOK, res)
}

func (s *Server) listMultipartUploads(req *request) error {
	ctx := req.r.Context()
	q := req.r.URL.Query()
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	max, err := maxKeys(q, "max-uploads")
	if err != nil {
		return err
	}
	list, err := b.ListMultipart(ctx, q.Get("prefix"))
	if err != nil {
		return err
	}
	enc := encoder(q.Get("encoding-type") == "url")
	prefix, delimiter := q.Get("prefix"), q.Get("delimiter")
	keyMarker, uploadMarker := q.Get("key-marker"), q.Get("upload-id-marker")
	res := listMultipartUploadsResult{Xmlns: xmlns, Bucket: req.bucket, KeyMarker: enc.enc(keyMarker), UploadIDMarker: uploadMarker,
		Prefix: enc.enc(prefix), Delimiter: enc.enc(delimiter), MaxUploads: max, Uploads: []uploadInfo{}}
	if enc {
		res.EncodingType = "url"
	}
	seen := map[string]bool{}
	count := 0
	passed := uploadMarker == "" // the marker upload was listed before
	for _, mu := range list {
		// After the markers: later keys, or the marker key's uploads that
		// started after the marker upload (the list's order).
		if keyMarker != "" && (mu.Filename < keyMarker || mu.Filename == keyMarker && !passed) {
			if mu.Filename == keyMarker && mu.ID == uploadMarker {
				passed = true
			}
			continue
		}
		cp := ""
		if delimiter != "" {
			if i := strings.Index(mu.Filename[len(prefix):], delimiter); i >= 0 {
				cp = mu.Filename[:len(prefix)+i+len(delimiter)]
			}
		}
		if cp != "" && seen[cp] {
			continue
		}
		if count == max {
			res.IsTruncated = max > 0
			break
		}
		count++
		if cp != "" {
			seen[cp] = true
			res.CommonPrefixes = append(res.CommonPrefixes, commonPrefix{Prefix: enc.enc(cp)})
			res.NextKeyMarker, res.NextUploadIDMarker = enc.enc(cp), ""
			continue
		}
		res.Uploads = append(res.Uploads, uploadInfo{Key: enc.enc(mu.Filename), UploadID: mu.ID, Initiated: timestamp(mu.Initiated),
			StorageClass: "STANDARD", Initiator: ownerOf(mu.Initiator), Owner: ownerOf(mu.Initiator)})
		res.NextKeyMarker, res.NextUploadIDMarker = enc.enc(mu.Filename), mu.ID
	}
	if !res.IsTruncated {
		res.NextKeyMarker, res.NextUploadIDMarker = "", ""
	}
	return s.writeXML(req, http.StatusOK, res)
}
