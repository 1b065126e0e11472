package buckets

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxBucketNameBytes keeps "<db>.<bucket>.chunks" well inside MongoDB's
// 255-byte namespace limit for any reasonable database name.
const MaxBucketNameBytes = 120

// MaxFilenameBytes bounds filenames gridfsd writes; GridFS itself has no
// limit, but names are keys in an index and in URLs.
const MaxFilenameBytes = 1024

// CheckBucketName reports whether name can be a bucket: non-empty, valid
// UTF-8, at most MaxBucketNameBytes, no "$", NUL, "/" or control character,
// no leading or trailing dot, no "..", and not in MongoDB's reserved
// "system." namespace.
func CheckBucketName(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidBucketName, name, why)
	}
	switch {
	case name == "":
		return bad("empty")
	case len(name) > MaxBucketNameBytes:
		return bad(fmt.Sprintf("longer than %d bytes", MaxBucketNameBytes))
	case !utf8.ValidString(name):
		return bad("not valid UTF-8")
	case strings.HasPrefix(name, "system."):
		return bad(`the "system." prefix is reserved`)
	case strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, ".."):
		return bad("empty name segment")
	}
	for _, r := range name {
		if r == '$' || r == '/' || r == '\\' || r < 0x20 || r == 0x7f {
			return bad(fmt.Sprintf("character %q is not allowed", r))
		}
	}
	return nil
}

// CheckFilename reports whether gridfsd may write a file under name:
// non-empty, valid UTF-8, at most MaxFilenameBytes, no NUL or other control
// character, and no ".." path segment (names often become local paths in
// other tools, and ".." would climb out of the directory they are written
// to). Names written by other tools are read as they are.
func CheckFilename(name string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidFilename, truncate(name, 64), why)
	}
	switch {
	case name == "":
		return bad("empty")
	case len(name) > MaxFilenameBytes:
		return bad(fmt.Sprintf("longer than %d bytes", MaxFilenameBytes))
	case !utf8.ValidString(name):
		return bad("not valid UTF-8")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return bad(fmt.Sprintf("control character %q", r))
		}
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return bad(`".." segments are not allowed`)
		}
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
