// Package ui is gridfsd's browser application: static HTML, CSS and
// JavaScript embedded in the binary, talking to the gateway's JSON API.
package ui

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var static embed.FS

// Handler serves the application; mount it under /ui/ with the prefix
// stripped.
func Handler() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	return http.FileServerFS(sub)
}
