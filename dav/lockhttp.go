package dav

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/webdav"
)

// maxXMLBody bounds the XML bodies of PROPFIND, PROPPATCH and LOCK, which
// are read whole.
const maxXMLBody = 1 << 20

// readXMLBody reads r's body, at most maxXMLBody bytes, checks that it is
// XML a namespace-aware parser accepts, and puts it back for webdav.
func readXMLBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(clientBody{r.Body}, maxXMLBody+1))
	if err != nil {
		return nil, err
	}
	if len(body) > maxXMLBody {
		return nil, fmt.Errorf("%w: an XML body of more than %d bytes", errTooLarge, maxXMLBody)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	d := xml.NewDecoder(bytes.NewReader(body))
	for {
		t, err := d.RawToken()
		if err == io.EOF {
			return body, nil
		}
		if err != nil {
			return nil, badRequest("the body is not XML: %v", err)
		}
		if se, ok := t.(xml.StartElement); ok {
			for _, a := range se.Attr {
				// XML Namespaces 1.0: a prefix cannot be bound to the
				// empty name (Go's parser accepts it).
				if a.Name.Space == "xmlns" && a.Value == "" {
					return nil, badRequest("namespace prefix %q declared empty", a.Name.Local)
				}
			}
		}
	}
}

// lockInfo is the body of a LOCK that creates a lock (RFC 4918 14.11).
type lockInfo struct {
	XMLName   xml.Name  `xml:"DAV: lockinfo"`
	Exclusive *struct{} `xml:"DAV: lockscope>exclusive"`
	Shared    *struct{} `xml:"DAV: lockscope>shared"`
	Write     *struct{} `xml:"DAV: locktype>write"`
	Owner     struct {
		InnerXML string `xml:",innerxml"`
	} `xml:"DAV: owner"`
}

var tokenInIf = regexp.MustCompile(`<([^>]*)>`)

// lock serves LOCK: webdav knows only exclusive locks, and litmus and
// Office take shared ones. The Timeout header is capped already.
func (s *Server) lock(w http.ResponseWriter, r *http.Request, l loc, body []byte) error {
	q := requestOf(r.Context())
	duration, err := parseTimeout(r.Header.Get("Timeout"))
	if err != nil {
		return err
	}
	now := time.Now()
	if len(bytes.TrimSpace(body)) == 0 {
		// A refresh: the If header names the lock.
		m := tokenInIf.FindAllStringSubmatch(r.Header.Get("If"), -1)
		if len(m) != 1 {
			return badRequest("a LOCK without a body refreshes the one lock its If header names")
		}
		d, err := s.locks.refresh(now, q.principal, m[0][1], l.path(), duration)
		if errors.Is(err, webdav.ErrNoSuchLock) {
			return fmt.Errorf("%w: no live lock %s", errPrecondition, m[0][1])
		}
		if errors.Is(err, errOutOfScope) {
			// The If header's token is a condition on the Request-URI,
			// which it does not hold for (RFC 4918 9.10.2, 10.4.1).
			return fmt.Errorf("%w: %s: %w", errPrecondition, m[0][1], err)
		}
		if errors.Is(err, errNotYours) {
			return fmt.Errorf("%w: %s: %w", errForbidden, m[0][1], err)
		}
		if err != nil {
			return err
		}
		return s.writeLock(w, http.StatusOK, d)
	}
	var li lockInfo
	if err := xml.Unmarshal(body, &li); err != nil {
		return badRequest("LOCK body is not a DAV:lockinfo: %v", err)
	}
	if li.Write == nil || (li.Exclusive == nil) == (li.Shared == nil) {
		return badRequest("LOCK body asks for neither an exclusive nor a shared write lock")
	}
	depth := r.Header.Get("Depth")
	if depth != "" && depth != "0" && depth != "infinity" {
		return badRequest("LOCK with Depth %q: only 0 and infinity", depth)
	}
	d, err := s.locks.create(now, lockDoc{
		Root: l.path(), ZeroDepth: depth == "0", Shared: li.Shared != nil,
		Owner: li.Owner.InnerXML, Duration: int64(duration / time.Second), Principal: q.principal,
	})
	if errors.Is(err, webdav.ErrLocked) {
		return fmt.Errorf("%w: %s is locked by another client", errLocked, l.path())
	}
	if err != nil {
		return err
	}
	status := http.StatusOK
	if ok, err := s.fs.exists(r.Context(), l); err == nil && !ok && l.name != "" {
		// Locking an unmapped URL makes an empty file (RFC 4918 7.3).
		f, err := s.fs.create(r.Context(), l)
		if err == nil {
			err = f.Close()
		}
		if err != nil {
			s.locks.unlock(now, q.principal, d.Token, d.Root)
			return q.fail(err)
		}
		status = http.StatusCreated
	} else if err != nil {
		s.locks.unlock(now, q.principal, d.Token, d.Root)
		return err
	}
	w.Header().Set("Lock-Token", "<"+d.Token+">")
	return s.writeLock(w, status, d)
}

// writeLock answers a LOCK with the lock's lockdiscovery.
func (s *Server) writeLock(w http.ResponseWriter, status int, d lockDoc) error {
	depth, scope := "infinity", "exclusive"
	if d.ZeroDepth {
		depth = "0"
	}
	if d.Shared {
		scope = "shared"
	}
	root := strings.TrimSuffix(s.cfg.Prefix, "/") + d.Root
	var b bytes.Buffer
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="utf-8"?>`+"\n"+
		`<D:prop xmlns:D="DAV:"><D:lockdiscovery><D:activelock>`+
		`<D:locktype><D:write/></D:locktype><D:lockscope><D:%s/></D:lockscope>`+
		`<D:depth>%s</D:depth><D:owner>%s</D:owner><D:timeout>Second-%d</D:timeout>`+
		`<D:locktoken><D:href>%s</D:href></D:locktoken><D:lockroot><D:href>%s</D:href></D:lockroot>`+
		`</D:activelock></D:lockdiscovery></D:prop>`+"\n",
		scope, depth, d.Owner, d.Duration, xmlText(d.Token), xmlText((&url.URL{Path: root}).EscapedPath()))
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.WriteHeader(status)
	_, err := w.Write(b.Bytes())
	return err
}

func xmlText(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// parseTimeout reads a Timeout header that lockTimeout capped:
// "Second-N".
func parseTimeout(h string) (time.Duration, error) {
	first, _, _ := strings.Cut(h, ",")
	n, ok := strings.CutPrefix(strings.TrimSpace(first), "Second-")
	v, err := strconv.ParseInt(n, 10, 64)
	if !ok || err != nil || v < 0 {
		return 0, badRequest("Timeout %q is not Second-N or Infinite", h)
	}
	return time.Duration(v) * time.Second, nil
}

// unlock serves UNLOCK of l.
func (s *Server) unlock(w http.ResponseWriter, r *http.Request, l loc) error {
	t := r.Header.Get("Lock-Token")
	if len(t) < 2 || t[0] != '<' || t[len(t)-1] != '>' {
		return badRequest("UNLOCK needs a Lock-Token header: <token>")
	}
	err := s.locks.unlock(time.Now(), requestOf(r.Context()).principal, t[1:len(t)-1], l.path())
	if errors.Is(err, webdav.ErrNoSuchLock) {
		return fmt.Errorf("%w: no live lock %s", errConflict, t)
	}
	if errors.Is(err, errOutOfScope) {
		// RFC 4918 9.11.1: 409, lock-token-matches-request-uri.
		return fmt.Errorf("%w: %s: %w (lock-token-matches-request-uri)", errConflict, t, err)
	}
	if errors.Is(err, errNotYours) {
		// RFC 4918 9.11.1: 403 when the principal may not remove it.
		return fmt.Errorf("%w: %s: %w", errForbidden, t, err)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
