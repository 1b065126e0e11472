package gateway_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/gateway"
)

type folderJSON struct {
	Files    []fileJSON `json:"files"`
	Prefixes []string   `json:"prefixes"`
	Next     string     `json:"next"`
}

// TestListFolders walks a folder listing page by page: folders once each,
// the files of the level with their revisions, and cursors that carry on
// past a folder.
func TestListFolders(t *testing.T) {
	e := newEnv(t, gateway.Config{})
	for _, name := range []string{"a/1.txt", "a/2.txt", "a/b/3.txt", "a.txt", "a.txt", "c/4.txt", "d.txt"} {
		e.put("/b/fs/"+name, name, nil)
	}
	for _, c := range []struct {
		query string
		want  string
	}{
		{"delimiter=/", "a.txt a.txt a/ c/ d.txt"},
		{"delimiter=/&prefix=a/", "a/1.txt a/2.txt a/b/"},
		{"delimiter=/&prefix=a", "a.txt a.txt a/"},
		{"delimiter=/&prefix=a/b/", "a/b/3.txt"},
		{"delimiter=.&prefix=a/", "a/1. a/2. a/b/3."},
	} {
		for _, limit := range []string{"1", "2", "100"} {
			var got []string
			path := "/b/fs?limit=" + limit + "&" + c.query
			for pages := 0; ; pages++ {
				if pages > 10 {
					t.Fatalf("%s: pagination does not end", path)
				}
				var l folderJSON
				res, body := e.do("GET", path, nil, "")
				if res.StatusCode != 200 {
					t.Fatalf("GET %s: %d %s", path, res.StatusCode, body)
				}
				mustJSON(t, body, &l)
				for _, f := range l.Files {
					got = append(got, f.Filename)
				}
				got = append(got, l.Prefixes...)
				if l.Next == "" {
					break
				}
				path = "/b/fs?limit=" + limit + "&" + c.query + "&cursor=" + url.QueryEscape(l.Next)
			}
			// Files and folders of a page come in two lists: compare as sets in name order.
			if g := strings.Join(sorted(got), " "); g != c.want {
				t.Errorf("GET ?%s limit %s: %q, want %q", c.query, limit, g, c.want)
			}
		}
	}
	flat := e.list("/b/fs?limit=1")
	e.run([]httpTest{
		{name: "JSON shape", method: "GET", path: "/b/fs?delimiter=/&prefix=c", code: 200,
			contains: []string{`"files":[]`, `"prefixes":["c/"]`, `"next":""`}},
		{name: "no prefixes without a delimiter", method: "GET", path: "/b/fs?prefix=c", code: 200,
			contains: []string{`"files":[{`, `"next":""}`}},
		{name: "empty delimiter", method: "GET", path: "/b/fs?delimiter=", code: 400, errCode: "invalid_query"},
		{name: "a cursor of the flat listing", method: "GET", path: "/b/fs?delimiter=/&cursor=" + url.QueryEscape(flat.Next), code: 400, errCode: "invalid_query"},
	})
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
