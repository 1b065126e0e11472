package buckets

import (
	"mime"
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
