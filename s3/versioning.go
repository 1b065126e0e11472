package s3

import (
	"context"
	"encoding/xml"
	"errors"
	"net/http"

	"github.com/gridfsd/gridfsd/buckets"
)

// S3 versioning on GridFS revisions: the switch is a bucket setting
// (buckets.SetVersioning), delete markers and the null version are
// buckets' (see buckets/versioning.go); this file translates them.

// versioningConfiguration is PutBucketVersioning's body and
// GetBucketVersioning's answer.
type versioningConfiguration struct {
	XMLName   xml.Name `xml:"VersioningConfiguration"`
	Xmlns     string   `xml:"xmlns,attr,omitempty"`
	Status    string   `xml:"Status,omitempty"`
	MfaDelete string   `xml:"MfaDelete,omitempty"`
}

// deleteMarkerEntry is a delete marker in ListObjectVersions.
type deleteMarkerEntry struct {
	XMLName      xml.Name `xml:"DeleteMarker"`
	Key          string   `xml:"Key"`
	VersionID    string   `xml:"VersionId"`
	IsLatest     bool     `xml:"IsLatest"`
	LastModified string   `xml:"LastModified"`
	Owner        owner    `xml:"Owner"`
}

// getVersioning answers the bucket's versioning status: none when it was
// never set.
func (s *Server) getVersioning(req *request) error {
	b, err := s.checkBucket(req.r.Context(), req.bucket)
	if err != nil {
		return err
	}
	return s.writeXML(req, http.StatusOK, versioningConfiguration{Xmlns: xmlns, Status: b.Settings().Versioning})
}

// putVersioning sets the bucket's versioning to Enabled or Suspended. MFA
// delete is not supported: asking for it is NotImplemented.
func (s *Server) putVersioning(req *request) error {
	ctx := req.r.Context()
	if _, err := s.checkBucket(ctx, req.bucket); err != nil {
		return err
	}
	var in versioningConfiguration
	if err := s.readXML(req, &in); err != nil {
		return err
	}
	switch in.MfaDelete {
	case "", "Disabled":
	case "Enabled":
		return errorf(ErrNotImplemented, "MFA delete is not supported by gridfsd")
	default:
		return errorf(ErrMalformedXML, "MfaDelete must be Enabled or Disabled")
	}
	if in.Status != buckets.VersioningEnabled && in.Status != buckets.VersioningSuspended {
		return errorf(ErrMalformedXML, "Status must be Enabled or Suspended")
	}
	if _, err := s.db.SetVersioning(ctx, req.bucket, in.Status); err != nil {
		return err
	}
	req.w.WriteHeader(http.StatusOK)
	return nil
}

// fileVersionID is the version id S3 clients see of f, the newest
// revision of its name or one just written: "null" for the null version
// of a bucket whose versioning was set (a revision not written while it
// was Enabled), else its _id.
func fileVersionID(b *buckets.Bucket, f *buckets.File) string {
	if b.Settings().Versioned() && !f.Versioned {
		return "null"
	}
	return versionID(f.ID)
}

// findVersion returns the revision of key whose version id is version
// ("null" too); a delete marker is a *buckets.DeleteMarkerError. A version
// id that names no revision of key is NoSuchVersion, as S3 answers it.
func findVersion(ctx context.Context, b *buckets.Bucket, key, version string) (*buckets.File, error) {
	if version == "" {
		return findObject(ctx, b, key, version)
	}
	var f *buckets.File
	var err error
	if version == "null" {
		f, err = b.NullVersion(ctx, key)
	} else {
		f, err = findObject(ctx, b, key, version)
	}
	if errors.Is(err, buckets.ErrFileNotFound) && !errors.Is(err, buckets.ErrDeleteMarker) {
		return nil, ErrNoSuchVersion
	}
	return f, err
}

// readError is what a GetObject or HeadObject of key answers for err:
// S3's delete marker headers when it met one (404 for the key, 405 for a
// version id naming the marker), x-amz-delete-marker: false for another
// missing key, as RGW and s3-tests have it.
func readError(req *request, b *buckets.Bucket, version string, err error) error {
	h := req.w.Header()
	var dm *buckets.DeleteMarkerError
	if errors.As(err, &dm) {
		h.Set("x-amz-delete-marker", "true")
		if version != "" {
			h.Set("x-amz-version-id", version)
			return ErrMethodNotAllowed
		}
		h.Set("x-amz-version-id", fileVersionID(b, dm.Marker))
		return ErrNoSuchKey
	}
	if errors.Is(err, buckets.ErrFileNotFound) && version == "" {
		h.Set("x-amz-delete-marker", "false")
	}
	return err
}

// deleteVersion removes the revision (or delete marker) of key whose
// version id is version, and says which it was; one that is not there is
// no error, as in S3.
func deleteVersion(ctx context.Context, b *buckets.Bucket, key, version string, cond buckets.Conditions) (marker bool, err error) {
	f, err := findVersion(ctx, b, key, version)
	var dm *buckets.DeleteMarkerError
	switch {
	case errors.As(err, &dm):
		marker, err = true, b.Delete(ctx, dm.Marker.ID)
	case err == nil:
		err = b.DeleteIf(ctx, f.ID, cond)
	}
	if errors.Is(err, buckets.ErrFileNotFound) || errors.Is(err, ErrNoSuchVersion) {
		err = nil
	}
	return marker, err
}

// deleteKey is DeleteObject without a version id: in a bucket whose
// versioning was set it writes a delete marker and returns it, else it
// removes every revision of key (a key that is not there is no error).
func deleteKey(ctx context.Context, b *buckets.Bucket, key string, cond buckets.Conditions) (*buckets.File, error) {
	if b.Settings().Versioned() {
		return b.MarkDeleted(ctx, key, cond)
	}
	if _, err := b.DeleteNameIf(ctx, key, cond); err != nil && !errors.Is(err, buckets.ErrFileNotFound) {
		return nil, err
	}
	return nil, nil
}

// versionEntries lists the revisions of one key (oldest first, as walk
// gives them) newest first, as ListObjectVersions does: versions and
// delete markers, the null version named "null".
func versionEntries(b *buckets.Bucket, revs []*buckets.File, enc encoder) []any {
	out := make([]any, 0, len(revs))
	own := ownerOf(b.Settings().Owner)
	for i := len(revs) - 1; i >= 0; i-- {
		f := revs[i]
		id := versionID(f.ID)
		if b.IsNullVersion(f, revs) {
			id = "null"
		}
		latest := i == len(revs)-1
		if f.DeleteMarker {
			out = append(out, deleteMarkerEntry{Key: enc.enc(f.Filename), VersionID: id, IsLatest: latest,
				LastModified: timestamp(f.UploadDate), Owner: own})
			continue
		}
		out = append(out, objectVersion{XMLName: xml.Name{Local: "Version"},
			Key: enc.enc(f.Filename), VersionID: id, IsLatest: latest,
			LastModified: timestamp(f.UploadDate), ETag: objectETag(f), Size: f.Length, StorageClass: "STANDARD", Owner: own})
	}
	return out
}
