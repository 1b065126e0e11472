// Package ui is gridfsd's browser application: static HTML, CSS and
// JavaScript embedded in the binary, talking to the gateway's JSON API.
// Every request the application makes goes through static/api.js.
package ui

import (
	"embed"
	"io/fs"
	"net/http"
	"net/url"
)

//go:embed static
var static embed.FS

// Handler serves the application; mount it under /ui/ with the prefix
// stripped. The mount point without its slash (/ui) is redirected to /ui/,
// since the page's relative links would otherwise resolve against /.
func Handler() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// No other site may frame the application: it acts on the
		// gateway's origin, with no token at all when access control is
		// off, so a page that framed it could line its Delete buttons up
		// under a visitor's clicks (a DELETE its own script could not send
		// across origins).
		h := w.Header()
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "frame-ancestors 'none'; object-src 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		if r.URL.Path == "" {
			// StripPrefix left nothing: the original request named the
			// mount point itself, which RequestURI still holds.
			u, err := url.ParseRequestURI(r.RequestURI)
			if err != nil || u.Path == "" {
				http.NotFound(w, r)
				return
			}
			u.Path += "/"
			http.Redirect(w, r, u.RequestURI(), http.StatusMovedPermanently)
			return
		}
		files.ServeHTTP(w, r)
	})
}
