package s3

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/gridfsd/gridfsd/buckets"
)

// The parts of a completed multipart upload: Complete records each part's
// size and checksum in the files document's top-level s3Parts (gridfsd's
// own, beside s3ETag), so that GetObject and HeadObject serve ?partNumber=N
// with x-amz-mp-parts-count, and GetObjectAttributes lists them. Also
// UploadPartCopy, a part copied from (a range of) another object.

// fieldS3Parts is the files document field of a multipart object's parts.
const fieldS3Parts = "s3Parts"

// objectPart is one part as s3Parts keeps it.
type objectPart struct {
	Size     int64  `bson:"size"`
	Checksum string `bson:"checksum,omitempty"` // base64, of the object's algorithm
}

// objectParts returns the parts recorded for f; nil for an object that was
// not uploaded in parts.
func objectParts(f *buckets.File) []objectPart {
	if f.Raw == nil {
		return nil
	}
	v, err := f.Raw.LookupErr(fieldS3Parts)
	if err != nil {
		return nil
	}
	var parts []objectPart
	if v.Unmarshal(&parts) != nil {
		return nil
	}
	return parts
}

// recordParts keeps the sizes and checksums of the parts an upload is about
// to be completed from, in order.
func recordParts(ctx context.Context, b *buckets.Bucket, id string, list []buckets.CompletedPart) ([]objectPart, error) {
	parts, err := b.ListParts(ctx, id)
	if err != nil {
		return nil, err
	}
	sizes := make(map[int]int64, len(parts))
	for _, p := range parts {
		sizes[p.Number] = p.Size
	}
	fields, err := b.PartFields(ctx, id, "checksum")
	if err != nil {
		return nil, err
	}
	sums := partChecksumsOf(fields)
	out := make([]objectPart, len(list))
	for i, p := range list {
		out[i] = objectPart{Size: sizes[p.Number], Checksum: sums[p.Number].Value}
	}
	return out, nil
}

// ErrInvalidPartNumber is a partNumber the object does not have.
var ErrInvalidPartNumber = &Error{http.StatusBadRequest, "InvalidPart", "The requested partnumber is not satisfiable"}

// partRange turns GetObject's partNumber into the Range of that part, and
// sets x-amz-mp-parts-count; ok is false without a partNumber.
func partRange(r *http.Request, h http.Header, f *buckets.File) (rangeSpec string, ok bool, err error) {
	v := r.URL.Query().Get("partNumber")
	if v == "" {
		return "", false, nil
	}
	n, perr := strconv.Atoi(v)
	if perr != nil || n < 1 || n > buckets.MaxPartNumber {
		return "", false, errorf(ErrInvalidArgument, "Part number must be an integer between 1 and %d, inclusive", buckets.MaxPartNumber)
	}
	if r.Header.Get("Range") != "" {
		return "", false, errorf(ErrInvalidRequest, "Cannot specify both Range header and partNumber query parameter")
	}
	parts := objectParts(f)
	if parts == nil {
		if n != 1 {
			return "", false, ErrInvalidPartNumber
		}
		if f.Length == 0 {
			return "", true, nil
		}
		return fmt.Sprintf("bytes=0-%d", f.Length-1), true, nil
	}
	h.Set("x-amz-mp-parts-count", strconv.Itoa(len(parts)))
	if n > len(parts) {
		return "", false, ErrInvalidPartNumber
	}
	var start int64
	for _, p := range parts[:n-1] {
		start += p.Size
	}
	if parts[n-1].Size == 0 {
		return "", true, nil
	}
	return fmt.Sprintf("bytes=%d-%d", start, start+parts[n-1].Size-1), true, nil
}

// setPartChecksum sets, for a GetObject or HeadObject of part n (valid:
// partRange checked it) with checksum mode, that part's checksum: the
// object's own for an object not uploaded in parts.
func setPartChecksum(h http.Header, f *buckets.File, n string) {
	sum := f.Checksum()
	if sum == nil {
		return
	}
	parts := objectParts(f)
	if parts == nil {
		setChecksumHeaders(h, sum)
		return
	}
	i, _ := strconv.Atoi(n)
	if i < 1 || i > len(parts) || parts[i-1].Checksum == "" {
		return
	}
	h.Set(checksumHdrPref+strings.ToLower(sum.Algorithm), parts[i-1].Checksum)
}

// GetObjectAttributes.

type objectAttributes struct {
	XMLName      xml.Name      `xml:"GetObjectAttributesResponse"`
	Xmlns        string        `xml:"xmlns,attr"`
	ETag         string        `xml:"ETag,omitempty"`
	Checksum     *attrChecksum `xml:"Checksum,omitempty"`
	ObjectParts  *attrParts    `xml:"ObjectParts,omitempty"`
	StorageClass string        `xml:"StorageClass,omitempty"`
	ObjectSize   *int64        `xml:"ObjectSize,omitempty"`
}

type attrChecksum struct {
	Elems []xmlElem `xml:",any"`
}

type attrParts struct {
	PartsCount           int              `xml:"PartsCount"` // the SDKs' name (botocore, minio-go), not the docs' TotalPartsCount
	PartNumberMarker     int              `xml:"PartNumberMarker"`
	NextPartNumberMarker int              `xml:"NextPartNumberMarker"`
	MaxParts             int              `xml:"MaxParts"`
	IsTruncated          bool             `xml:"IsTruncated"`
	Parts                []objectAttrPart `xml:"Part"`
}

type objectAttrPart struct {
	PartNumber int       `xml:"PartNumber"`
	Size       int64     `xml:"Size"`
	Checksums  []xmlElem `xml:",any"`
}

func (s *Server) getObjectAttributes(req *request) error {
	ctx, r := req.r.Context(), req.r
	b, err := s.checkBucket(ctx, req.bucket)
	if err != nil {
		return err
	}
	version := r.URL.Query().Get("versionId")
	f, err := findVersion(ctx, b, req.key, version)
	if err != nil {
		return readError(req, b, version, err)
	}
	want := map[string]bool{}
	for _, v := range r.Header.Values("X-Amz-Object-Attributes") {
		for _, a := range strings.Split(v, ",") {
			want[strings.TrimSpace(a)] = true
		}
	}
	if len(want) == 0 {
		return errorf(ErrInvalidArgument, "x-amz-object-attributes names the attributes to return (ETag, Checksum, ObjectParts, StorageClass, ObjectSize)")
	}
	h := req.w.Header()
	h.Set("Last-Modified", f.UploadDate.UTC().Format(http.TimeFormat))
	switch {
	case version != "":
		h.Set("x-amz-version-id", version)
	case b.Settings().Versioned():
		// An unversioned bucket answers a version id only for the
		// version asked for.
		h.Set("x-amz-version-id", fileVersionID(b, f))
	}
	res := objectAttributes{Xmlns: xmlns}
	if want["ETag"] {
		res.ETag = strings.Trim(objectETag(f), `"`)
	}
	if want["StorageClass"] {
		res.StorageClass = "STANDARD"
	}
	if want["ObjectSize"] {
		res.ObjectSize = &f.Length
	}
	sum := f.Checksum()
	if want["Checksum"] && sum != nil {
		value, _, _ := strings.Cut(sum.Value, "-")
		res.Checksum = &attrChecksum{Elems: []xmlElem{{XMLName: xml.Name{Local: "Checksum" + sum.Algorithm}, Value: value},
			{XMLName: xml.Name{Local: "ChecksumType"}, Value: sum.Type}}}
	}
	if parts := objectParts(f); want["ObjectParts"] && parts != nil {
		max := 1000
		if v := r.Header.Get("X-Amz-Max-Parts"); v != "" {
			if n, err := strconv.Atoi(v); err == nil && n > 0 && n < max {
				max = n
			}
		}
		marker, _ := strconv.Atoi(r.Header.Get("X-Amz-Part-Number-Marker"))
		op := &attrParts{PartsCount: len(parts), PartNumberMarker: marker, MaxParts: max}
		for i, p := range parts {
			n := i + 1
			if n <= marker {
				continue
			}
			if len(op.Parts) == max {
				op.IsTruncated = true
				break
			}
			ap := objectAttrPart{PartNumber: n, Size: p.Size}
			if sum != nil && p.Checksum != "" {
				ap.Checksums = []xmlElem{{XMLName: xml.Name{Local: "Checksum" + sum.Algorithm}, Value: p.Checksum}}
			}
			op.Parts = append(op.Parts, ap)
			op.NextPartNumberMarker = n
		}
		res.ObjectParts = op
	}
	return s.writeXML(req, http.StatusOK, res)
}

// UploadPartCopy.

type copyPartResult struct {
	XMLName      xml.Name `xml:"CopyPartResult"`
	LastModified string   `xml:"LastModified"`
	ETag         string   `xml:"ETag"`
}

// uploadPartCopy makes part n of a multipart upload from a source object,
// whole or the x-amz-copy-source-range of it, streaming it through.
func (s *Server) uploadPartCopy(req *request) error {
	ctx, r := req.r.Context(), req.r
	n, err := strconv.Atoi(r.URL.Query().Get("partNumber"))
	if err != nil || n < 1 || n > buckets.MaxPartNumber {
		return errorf(ErrInvalidArgument, "Part number must be an integer between 1 and %d, inclusive", buckets.MaxPartNumber)
	}
	src, err := s.copySourceFile(req)
	if err != nil {
		return err
	}
	b, mu, err := s.multipartOf(req)
	if err != nil {
		return err
	}
	sb, f, srcVersion := src.bucket, src.file, src.version
	start, length := int64(0), f.Length
	if v := r.Header.Get("X-Amz-Copy-Source-Range"); v != "" {
		rng, err := parseRange(v, f.Length)
		if err != nil || !rng.partial || rng.open && !strings.HasSuffix(strings.TrimSpace(v), "-") {
			return errorf(ErrInvalidArgument, "The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy")
		}
		if last := strings.TrimPrefix(strings.TrimSpace(v), "bytes="); strings.HasPrefix(last, "-") || strings.HasSuffix(last, "-") {
			return errorf(ErrInvalidArgument, "The x-amz-copy-source-range value must be of the form bytes=first-last")
		}
		if first, last, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(v), "bytes="), "-"); first != "" && last != "" {
			if end, err := strconv.ParseInt(last, 10, 64); err != nil || end >= f.Length {
				return errorf(ErrInvalidRange, "Range specified is not valid for source object of size: %d", f.Length)
			}
		}
		start, length = rng.start, rng.length
	}
	// Copied chunk by chunk or streamed, a part copy writes as much as
	// an UploadPart of it would: it takes an upload slot as that does.
	release, err := startUpload(s.db, b, length)
	if err != nil {
		return err
	}
	defer release()
	// A chunk-aligned range is copied chunk document by chunk document
	// (buckets.CopyPart); any other is streamed through a part upload.
	part, err := b.CopyPart(ctx, mu.ID, n, sb, f, start, length)
	if errors.Is(err, buckets.ErrNotAligned) {
		part, err = streamPart(ctx, b, mu.ID, n, sb, f, start, length)
	}
	if err != nil {
		return err
	}
	if srcVersion != "" {
		req.w.Header().Set("x-amz-copy-source-version-id", srcVersion)
	}
	return s.writeXML(req, http.StatusOK, copyPartResult{LastModified: timestamp(part.Uploaded), ETag: `"` + part.MD5 + `"`})
}

// streamPart makes part n of upload from bytes [start, start+length) of f
// by reading them and writing them as a part upload would.
func streamPart(ctx context.Context, b *buckets.Bucket, upload string, n int, sb *buckets.Bucket, f *buckets.File, start, length int64) (*buckets.Part, error) {
	dl, err := sb.Open(ctx, f)
	if err != nil {
		return nil, err
	}
	defer dl.Close()
	if _, err := dl.Seek(start, io.SeekStart); err != nil {
		return nil, err
	}
	dl.Expect(start, start+length)
	pu, err := b.OpenPart(ctx, upload, n)
	if err != nil {
		return nil, err
	}
	if _, err := pu.ReadFrom(io.LimitReader(dl, length)); err != nil {
		pu.Abort()
		return nil, err
	}
	if pu.Length() != length {
		pu.Abort()
		return nil, errorf(ErrInternal, "the source ended early")
	}
	return pu.Commit()
}
