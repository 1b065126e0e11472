package dav

import (
	"fmt"
	"strings"

	"github.com/gridfsd/gridfsd/buckets"
)

// loc is a WebDAV path as gridfsd reads it: "/" lists the buckets,
// "/{bucket}/" is a bucket, "/{bucket}/{name}" a file or a folder (the
// names that start with "{name}/").
type loc struct {
	bucket string // empty: the root, the list of buckets
	name   string // empty: the bucket itself; never starts or ends with "/"
	slash  bool   // the path ended in "/": a folder is meant
}

// parseLoc reads a path below the prefix ("/", "/b/", "/b/a/c.txt"). It
// refuses what no file name holds and what would climb out of a folder:
// "." and ".." segments, empty segments inside a name, NUL and other
// control characters, names longer than buckets.MaxFilenameBytes.
func parseLoc(p string) (loc, error) {
	var l loc
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return l, nil
	}
	l.slash = strings.HasSuffix(p, "/")
	p = strings.TrimSuffix(p, "/")
	bucket, name, _ := strings.Cut(p, "/")
	if err := buckets.CheckBucketName(bucket); err != nil {
		return l, err
	}
	for _, seg := range strings.Split(name, "/") {
		switch {
		case name == "":
		case seg == "." || seg == "..":
			return l, fmt.Errorf("%w %q: %q segments are not allowed", buckets.ErrInvalidFilename, truncate(name), seg)
		case seg == "":
			return l, fmt.Errorf("%w %q: empty path segment", buckets.ErrInvalidFilename, truncate(name))
		}
	}
	if name != "" {
		if err := buckets.CheckFilename(name); err != nil {
			return l, err
		}
		// A folder is written as a "name/" marker: it must fit too.
		if len(name)+1 > buckets.MaxFilenameBytes {
			return l, fmt.Errorf("%w %q: longer than %d bytes", buckets.ErrInvalidFilename, truncate(name), buckets.MaxFilenameBytes-1)
		}
	}
	l.bucket, l.name = bucket, name
	return l, nil
}

// path is l as the lock system and the request cache name it: "/",
// "/bucket", "/bucket/a/b".
func (l loc) path() string {
	switch {
	case l.bucket == "":
		return "/"
	case l.name == "":
		return "/" + l.bucket
	}
	return "/" + l.bucket + "/" + l.name
}

// folder is the prefix of the names in l as a folder: "" for a bucket.
func (l loc) folder() string {
	if l.name == "" {
		return ""
	}
	return l.name + "/"
}

// parent is the folder l is in; the bucket for a name at its top.
func (l loc) parent() loc {
	i := strings.LastIndex(l.name, "/")
	if i < 0 {
		return loc{bucket: l.bucket, slash: true}
	}
	return loc{bucket: l.bucket, name: l.name[:i], slash: true}
}

// base is the last segment of l.
func (l loc) base() string {
	switch {
	case l.bucket == "":
		return "/"
	case l.name == "":
		return l.bucket
	}
	return l.name[strings.LastIndex(l.name, "/")+1:]
}

// within reports whether l is inside the folder or bucket o (not o itself).
func (l loc) within(o loc) bool {
	switch {
	case o.bucket == "":
		return l.bucket != ""
	case l.bucket != o.bucket:
		return false
	case o.name == "":
		return l.name != ""
	}
	return strings.HasPrefix(l.name, o.name+"/")
}

func truncate(s string) string {
	if len(s) <= 64 {
		return s
	}
	return s[:64] + "..."
}
