package buckets

import (
	"fmt"
	"mime"
	"path"
	"strings"
)

// Active content: stored files share the gateway's origin (its UI, its
// signed links), so every door serves them by one rule. A file whose
// media type a browser renders without running script is InlineSafe and
// may be shown inline; every other one (HTML, every XML and +xml,
// text/xsl, SVG, JavaScript, types nobody knows) is served with
// "Content-Security-Policy: " + ActiveContentPolicy and as an attachment,
// whatever the client or the stored metadata ask.

// ActiveContentPolicy is the Content-Security-Policy of a reply whose
// type is not InlineSafe: the document neither runs script in the
// gateway's origin nor reaches it (for browsers that ignore attachment on
// a navigation).
const ActiveContentPolicy = "sandbox"

// InlineSafe reports whether a document of media type ct may be shown
// inline in the gateway's origin: only types a browser renders without
// running script. An allow-list, because the types that can run script
// (HTML, every XML and +xml, text/xsl, SVG, JavaScript, whatever a browser
// learns next) cannot be listed.
func InlineSafe(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	major, minor, _ := strings.Cut(mt, "/")
	switch {
	case strings.HasSuffix(minor, "+xml"):
		return false // image/svg+xml above all
	case major == "image", major == "audio", major == "video":
		return true
	}
	return mt == "text/plain" || mt == "application/pdf" || mt == "application/json"
}

// ContentDisposition is the Content-Disposition every door serves for a
// file named filename of media type ct whose uploader stored disposition
// (possibly ""): the stored one where the type may be shown inline and the
// client did not ask for a download (attachment), or where it is an
// attachment already; else one naming the file (NameDisposition), an
// attachment when the type is not InlineSafe or the client asked for one.
func ContentDisposition(ct, stored, filename string, attachment bool) string {
	inline := InlineSafe(ct)
	if stored != "" && !attachment && (inline || strings.HasPrefix(strings.ToLower(stored), "attachment")) {
		return stored
	}
	return NameDisposition(filename, attachment || !inline)
}

// NameDisposition names the file for browsers (RFC 6266): the last
// segment of its name, with an ASCII fallback and the exact UTF-8 name in
// filename*.
func NameDisposition(filename string, attachment bool) string {
	kind := "inline"
	if attachment {
		kind = "attachment"
	}
	base := path.Base(filename)
	if base == "/" || base == "." {
		base = "file"
	}
	var ascii, ext strings.Builder
	for _, r := range base {
		if r >= 0x20 && r < 0x7f && r != '"' && r != '\\' && r != '%' {
			ascii.WriteRune(r)
		} else {
			ascii.WriteByte('_')
		}
	}
	for _, b := range []byte(base) {
		if b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("!#$&+-.^_`|~", b) >= 0 {
			ext.WriteByte(b)
		} else {
			fmt.Fprintf(&ext, "%%%02X", b)
		}
	}
	return fmt.Sprintf(`%s; filename="%s"; filename*=UTF-8''%s`, kind, ascii.String(), ext.String())
}
