package dav

import (
	"net/http"

	"github.com/gridfsd/gridfsd/auth"
)

// need is the access method needs on a bucket: reading lists and
// downloads, creating or deleting a bucket is an administrator's, every
// other method writes.
func need(method string, l loc) auth.Access {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, "PROPFIND":
		if l.name == "" || l.slash {
			return auth.List // a collection: what is in it, not its files' bytes
		}
		return auth.Read
	case "MKCOL", http.MethodDelete:
		if l.name == "" {
			return auth.Admin
		}
	}
	return auth.Write
}

// authorize decides whether r may act on l (and, for COPY and MOVE, on
// dst) with HTTP Basic (a token's name and secret), a bearer token, or
// anonymously where a bucket is anonymous_read. With access control off
// everything is allowed. The root, the list of buckets, needs a
// credential when access control is on, so that clients (Windows above
// all) are asked for one, and lists the buckets the caller may read.
func (s *Server) authorize(r *http.Request, q *request, l loc, dst *loc) error {
	q.canRead = func(string) bool { return true }
	a := s.cfg.Auth
	if a == nil || !a.Enabled() {
		return nil
	}
	check := func(bucket string, need auth.Access) error {
		object := ""
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && bucket == l.bucket && !l.slash {
			object = l.name // a file's own ACL may make it public
		}
		p, err := a.AuthorizeBasicObject(r, bucket, object, need)
		if err != nil {
			return err
		}
		if !q.authorized {
			q.line.Add("principal", p.Name)
			q.authorized = true
			q.principal = p.Name
		}
		q.objectGrant = q.objectGrant || p.ObjectGrant
		return nil
	}
	if l.bucket == "" {
		if r.Header.Get("Authorization") == "" {
			return auth.ErrUnauthenticated
		}
		if err := check("", auth.List); err != nil {
			return err
		}
		q.canRead = func(bucket string) bool {
			_, err := a.AuthorizeBasic(r, bucket, auth.List)
			return err == nil
		}
		return nil
	}
	switch {
	case r.Method == "COPY":
		if err := check(l.bucket, auth.Read); err != nil {
			return err
		}
	default:
		if err := check(l.bucket, need(r.Method, l)); err != nil {
			return err
		}
	}
	if dst != nil && dst.bucket != "" {
		return check(dst.bucket, auth.Write)
	}
	return nil
}
