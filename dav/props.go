package dav

import (
	"context"
	"encoding/xml"
	"fmt"
	"io/fs"
	"math"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"golang.org/x/net/webdav"
)

// Where WebDAV keeps what clients set, in the files document's metadata
// (the user's part of it: every GridFS tool shows it):
//   - metadataMtime: the modification time a client gave (X-OC-Mtime,
//     Win32LastModifiedTime), as rclone's S3 backend writes it ("mtime",
//     decimal Unix seconds), so times set through S3 by rclone show too;
//   - metadataProps: PROPPATCH's dead properties, each {ns, name, xml}.
const (
	metadataMtime = "mtime"
	metadataProps = "davProps"
	// maxPropsBytes bounds the dead properties of one file.
	maxPropsBytes = 64 << 10
)

// The Windows mini-redirector sets a file's times with PROPPATCH.
var win32Modified = xml.Name{Space: "urn:schemas-microsoft-com:", Local: "Win32LastModifiedTime"}

// RFC 4331's quota properties, answered for buckets.
var (
	quotaUsed      = xml.Name{Space: "DAV:", Local: "quota-used-bytes"}
	quotaAvailable = xml.Name{Space: "DAV:", Local: "quota-available-bytes"}
)

// fileInfo describes a file, a folder, a bucket or the root.
type fileInfo struct {
	name string
	dir  bool
	file *buckets.File // the newest revision; nil for folders
	mod  time.Time
	// marker is a folder's "name/" file (its properties), when the stat
	// that found the folder saw it.
	marker *buckets.File
}

var (
	_ fs.FileInfo         = (*fileInfo)(nil)
	_ webdav.ETager       = (*fileInfo)(nil)
	_ webdav.ContentTyper = (*fileInfo)(nil)
)

func fileInfoOf(name string, f *buckets.File) *fileInfo {
	return &fileInfo{name: name, file: f, mod: modTime(f)}
}

func dirInfo(name string) *fileInfo {
	return &fileInfo{name: name, dir: true, mod: time.Unix(0, 0).UTC()}
}

func (fi *fileInfo) Name() string { return fi.name }
func (fi *fileInfo) Size() int64 {
	if fi.file == nil {
		return 0
	}
	return fi.file.Length
}
func (fi *fileInfo) Mode() fs.FileMode {
	if fi.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (fi *fileInfo) ModTime() time.Time { return fi.mod }
func (fi *fileInfo) IsDir() bool        { return fi.dir }
func (fi *fileInfo) Sys() any           { return fi.file }

// ETag is the HTTP API's ETag of the file, so that both doors agree.
func (fi *fileInfo) ETag(context.Context) (string, error) {
	if fi.file == nil {
		return "", webdav.ErrNotImplemented
	}
	return fi.file.ETag(), nil
}

// ContentType never reads content: a listing of thousands of files must
// not open each one to sniff it.
func (fi *fileInfo) ContentType(context.Context) (string, error) {
	if fi.file == nil {
		return "", webdav.ErrNotImplemented
	}
	return contentType(fi.file), nil
}

// contentType is the type the uploader gave, else the extension's, else
// application/octet-stream.
func contentType(f *buckets.File) string {
	if ct := f.MediaType(); ct != "" {
		if _, _, err := mime.ParseMediaType(ct); err == nil && !strings.ContainsAny(ct, "\r\n") {
			return ct
		}
	}
	if ct := mime.TypeByExtension(path.Ext(f.Filename)); ct != "" {
		return ct
	}
	return "application/octet-stream"
}

// modTime is the time a client set, else the upload's.
func modTime(f *buckets.File) time.Time {
	if f.Metadata != nil {
		if t, ok := parseMtime(f.Metadata.Lookup(metadataMtime)); ok {
			return t
		}
	}
	return f.UploadDate
}

// parseMtime reads a modification time as rclone writes it (decimal
// seconds in a string), as a number of seconds or as a date.
func parseMtime(v bson.RawValue) (time.Time, bool) {
	switch v.Type {
	case bson.TypeString:
		return parseUnixSeconds(v.StringValue())
	case bson.TypeDateTime:
		return v.Time().UTC(), true
	}
	if f, ok := v.AsFloat64OK(); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return time.Unix(0, int64(f*1e9)).UTC(), true
	}
	return time.Time{}, false
}

// parseUnixSeconds reads "1700000000" or "1700000000.123456789".
func parseUnixSeconds(s string) (time.Time, bool) {
	sec, frac, _ := strings.Cut(strings.TrimSpace(s), ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || n < 0 || n > 1<<40 {
		return time.Time{}, false
	}
	var ns int64
	if frac != "" {
		if len(frac) > 9 {
			frac = frac[:9]
		}
		f, err := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		if err != nil || f < 0 {
			return time.Time{}, false
		}
		ns = f
	}
	return time.Unix(n, ns).UTC(), true
}

func formatMtime(t time.Time) string {
	return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond())
}

// deadProps reads the dead properties kept in a file's metadata.
func deadProps(md bson.Raw) map[xml.Name]webdav.Property {
	out := map[xml.Name]webdav.Property{}
	if md == nil {
		return out
	}
	arr, ok := md.Lookup(metadataProps).ArrayOK()
	if !ok {
		return out
	}
	vals, _ := arr.Values()
	for _, v := range vals {
		doc, ok := v.DocumentOK()
		if !ok {
			continue
		}
		ns, _ := doc.Lookup("ns").StringValueOK()
		name, _ := doc.Lookup("name").StringValueOK()
		inner, _ := doc.Lookup("xml").StringValueOK()
		lang, _ := doc.Lookup("lang").StringValueOK()
		if name == "" {
			continue
		}
		n := xml.Name{Space: ns, Local: name}
		out[n] = webdav.Property{XMLName: n, Lang: lang, InnerXML: []byte(inner)}
	}
	return out
}

// patchedMetadata applies PROPPATCH's patches to the metadata md and
// returns the new metadata, or the propstats of a refusal.
func patchedMetadata(md bson.Raw, patches []webdav.Proppatch) (bson.D, []webdav.Propstat, error) {
	props := deadProps(md)
	var names []xml.Name
	var forbidden []webdav.Property
	var mtime *time.Time
	for _, p := range patches {
		for _, prop := range p.Props {
			names = append(names, prop.XMLName)
			if prop.XMLName == quotaUsed || prop.XMLName == quotaAvailable {
				forbidden = append(forbidden, webdav.Property{XMLName: prop.XMLName})
				continue
			}
			if p.Remove {
				delete(props, prop.XMLName)
				continue
			}
			props[prop.XMLName] = prop
			if prop.XMLName == win32Modified {
				if t, err := http.ParseTime(strings.TrimSpace(string(prop.InnerXML))); err == nil {
					mtime = &t
				}
			}
		}
	}
	if len(forbidden) > 0 {
		return nil, []webdav.Propstat{{Status: http.StatusForbidden, Props: forbidden,
			XMLError: `<D:cannot-modify-protected-property xmlns:D="DAV:"/>`}}, nil
	}
	var d bson.D
	if md != nil {
		if err := bson.Unmarshal(md, &d); err != nil {
			return nil, nil, fmt.Errorf("read metadata: %w", err)
		}
	}
	d = without(d, metadataProps)
	if len(props) > 0 {
		arr := bson.A{}
		size := 0
		for _, p := range props {
			e := bson.D{{Key: "ns", Value: p.XMLName.Space}, {Key: "name", Value: p.XMLName.Local}, {Key: "xml", Value: string(p.InnerXML)}}
			if p.Lang != "" {
				e = append(e, bson.E{Key: "lang", Value: p.Lang})
			}
			size += len(p.XMLName.Space) + len(p.XMLName.Local) + len(p.InnerXML)
			arr = append(arr, e)
		}
		if size > maxPropsBytes {
			return nil, nil, fmt.Errorf("%w: dead properties of more than %d bytes", buckets.ErrInvalidMetadata, maxPropsBytes)
		}
		d = append(d, bson.E{Key: metadataProps, Value: arr})
	}
	if mtime != nil {
		d = append(without(d, metadataMtime), bson.E{Key: metadataMtime, Value: formatMtime(*mtime)})
	}
	ok := webdav.Propstat{Status: http.StatusOK}
	for _, n := range names {
		ok.Props = append(ok.Props, webdav.Property{XMLName: n})
	}
	return d, []webdav.Propstat{ok}, nil
}

func without(d bson.D, key string) bson.D {
	out := d[:0:0]
	for _, e := range d {
		if e.Key != key {
			out = append(out, e)
		}
	}
	return out
}

// mtimeEntry is the metadata entry of a modification time a client sent
// as Unix seconds (checked by parseUnixSeconds).
func mtimeEntry(v string) bson.E {
	t, _ := parseUnixSeconds(v)
	return bson.E{Key: metadataMtime, Value: formatMtime(t)}
}
