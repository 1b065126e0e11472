package s3

import (
	"encoding/xml"
	"strings"

	"github.com/gridfsd/gridfsd/buckets"
)

// listUserMetadata is the user metadata of an object in a listing, as
// MinIO's ListObjectsV2 extension (?metadata=true) sends it, which
// minio-go's ListObjects WithMetadata reads: one element per header.
type listUserMetadata struct {
	Items []xmlElem `xml:",any"`
}

// listMetadata describes f's metadata as GetObject's headers would, but
// for names that cannot be XML element names.
func listMetadata(f *buckets.File) *listUserMetadata {
	m := &listUserMetadata{}
	if ct := f.MediaType(); ct != "" {
		m.Items = append(m.Items, xmlElem{XMLName: xml.Name{Local: "content-type"}, Value: ct})
	}
	if f.Metadata != nil {
		elems, _ := f.Metadata.Elements()
		for _, e := range elems {
			key := strings.ToLower(e.Key())
			if buckets.IsContentHeaderField(e.Key()) || !validHeaderName(key) || strings.Trim(key, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != "" {
				continue
			}
			s, ok := e.Value().StringValueOK()
			if !ok {
				s = e.Value().String()
			}
			m.Items = append(m.Items, xmlElem{XMLName: xml.Name{Local: metaPrefix + key}, Value: s})
		}
	}
	if len(m.Items) == 0 {
		return nil
	}
	return m
}
