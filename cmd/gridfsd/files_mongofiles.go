package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/spf13/cobra"
)

// The commands mongofiles has, with its names, arguments, flags and
// messages; docs/CLI.md says where gridfsd does better.

func (a *app) listCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [prefix]",
		Short: "List files: name<TAB>length lines, only names starting with prefix if given",
		Args:  argsBetween(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var q buckets.Query
			if len(args) == 1 {
				q.Prefix = args[0]
			}
			return a.listFiles(cmd, q, asJSON)
		},
	}
	fileFlags(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document per file instead")
	return cmd
}

func (a *app) searchCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "search <regex>",
		Short: "List files whose name matches a regular expression",
		Args:  argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := buckets.CheckRegex(args[0]); err != nil {
				return err
			}
			return a.listFiles(cmd, buckets.Query{Regex: args[0]}, asJSON)
		},
	}
	fileFlags(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document per file instead")
	return cmd
}

// listFiles prints the files q selects as mongofiles does, one
// "name<TAB>length" line each, or as JSON.
func (a *app) listFiles(cmd *cobra.Command, q buckets.Query, asJSON bool) error {
	s, err := a.open(cmd, true)
	if err != nil {
		return err
	}
	defer s.close()
	q.Limit = buckets.MaxLimit
	w := bufio.NewWriter(s.out())
	err = s.bucket.Each(s.ctx, q, func(f *buckets.File) error {
		if !asJSON {
			_, err := fmt.Fprintf(w, "%s\t%d\n", f.Filename, f.Length)
			return err
		}
		b, err := json.Marshal(f)
		if err != nil {
			return err
		}
		w.Write(b)
		return w.WriteByte('\n')
	})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("error retrieving list of GridFS files: %w", err)
	}
	return nil
}

// putOptions are the flags of put and put_id.
type putOptions struct {
	local       string
	contentType string
	replace     bool
	expires     string
}

func (o *putOptions) flags(cmd *cobra.Command) {
	fileFlags(cmd)
	cmd.Flags().StringVarP(&o.local, "local", "l", "", `local file to read ("-" for stdin); default: the GridFS name`)
	cmd.Flags().StringVarP(&o.contentType, "type", "t", "", "content type, stored as metadata.contentType")
	cmd.Flags().BoolVarP(&o.replace, "replace", "r", false, "remove the older revisions of the name once the new file is stored")
	cmd.Flags().StringVar(&o.expires, "expires", "", "the file expires then: an RFC 3339 or HTTP date, or a delay such as 3600s, 90m, 72h or 30d")
}

// expireAt is --expires as an instant; zero when not given.
func (o putOptions) expireAt() (time.Time, error) {
	if o.expires == "" {
		return time.Time{}, nil
	}
	at, err := buckets.ParseExpiry(o.expires, time.Now())
	if err != nil {
		return at, usagef("--expires: %v", err)
	}
	return at, nil
}

func (a *app) putCommand() *cobra.Command {
	var o putOptions
	cmd := &cobra.Command{
		Use:   "put <name>...",
		Short: "Store local files under these GridFS names",
		Args:  argsBetween(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 && o.local != "" {
				return usagef("cannot put multiple files with --local specified")
			}
			s, err := a.open(cmd, true)
			if err != nil {
				return err
			}
			defer s.close()
			for _, name := range args {
				if err := s.put(name, nil, o); err != nil {
					return err
				}
			}
			return nil
		},
	}
	o.flags(cmd)
	return cmd
}

func (a *app) putIDCommand() *cobra.Command {
	var o putOptions
	cmd := &cobra.Command{
		Use:   "put_id <name> <id>",
		Short: "Store a local file under a GridFS name with the given _id",
		Args:  argsBetween(2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[1])
			if err != nil {
				return err
			}
			s, err := a.open(cmd, true)
			if err != nil {
				return err
			}
			defer s.close()
			return s.put(args[0], id, o)
		},
	}
	o.flags(cmd)
	return cmd
}

// put stores one local file (or stdin) as name, with _id id (nil: a new
// ObjectID). With --replace the older revisions are removed only after the
// new one has committed, so a failed upload never loses the file.
func (s *session) put(name string, id any, o putOptions) error {
	local := o.local
	if local == "" {
		local = name
	}
	expireAt, err := o.expireAt()
	if err != nil {
		return err
	}
	in, size, err := openLocal(s.cmd, local)
	if err != nil {
		return err
	}
	defer in.Close()
	s.logf("adding gridFile: %s", name)
	up, err := s.bucket.OpenUpload(s.ctx, name, buckets.UploadOptions{ID: id, ContentType: o.contentType, ExpireAt: expireAt})
	if err != nil {
		return err
	}
	p := newProgress(s.cmd.ErrOrStderr(), s.cfg.Quiet, name, size)
	_, err = up.ReadFrom(progressReader{r: in, p: p})
	p.finish()
	if err != nil {
		up.Abort()
		return fmt.Errorf("error while storing '%s' into GridFS: %w", local, err)
	}
	f, err := up.Commit()
	if err != nil {
		return err
	}
	if o.replace {
		n, err := s.bucket.DeleteOlderRevisions(s.ctx, f)
		if err != nil {
			return fmt.Errorf("stored %s as %s, but removing its older revisions failed: %w", name, buckets.FormatID(f.ID), err)
		}
		if n > 0 {
			s.logf("removed %d older revisions of %s", n, name)
		}
	}
	s.logf("added gridFile: %s", name)
	return nil
}

// getOptions are the flags of the get commands.
type getOptions struct {
	local string
}

func (o *getOptions) flags(cmd *cobra.Command) {
	fileFlags(cmd)
	cmd.Flags().StringVarP(&o.local, "local", "l", "", `local file to write ("-" for stdout); default: the GridFS name`)
}

func (a *app) getCommand() *cobra.Command {
	var o getOptions
	cmd := &cobra.Command{
		Use:   "get <name>...",
		Short: "Write the newest revision of each named file to a local file",
		Args:  argsBetween(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 && o.local != "" {
				return usagef("cannot get multiple files with --local specified")
			}
			s, err := a.open(cmd, true)
			if err != nil {
				return err
			}
			defer s.close()
			// Find them all before writing any, so that a missing name
			// writes nothing.
			var files []*buckets.File
			for _, name := range args {
				f, err := s.bucket.FindByName(s.ctx, name, -1)
				if err != nil {
					return err
				}
				files = append(files, f)
			}
			for i, f := range files {
				// The name typed is the local path, as with mongofiles:
				// the user chose it, unlike the names get_id and
				// get_regex find.
				local := o.local
				if local == "" {
					local = args[i]
				}
				if err := s.get(f, local); err != nil {
					return err
				}
			}
			return nil
		},
	}
	o.flags(cmd)
	return cmd
}

func (a *app) getIDCommand() *cobra.Command {
	var o getOptions
	cmd := &cobra.Command{
		Use:   "get_id <id>",
		Short: "Write the file with this _id to a local file",
		Args:  argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			s, err := a.open(cmd, true)
			if err != nil {
				return err
			}
			defer s.close()
			f, err := s.bucket.Stat(s.ctx, id)
			if err != nil {
				return err
			}
			return s.get(f, o.local)
		},
	}
	o.flags(cmd)
	return cmd
}

func (a *app) getRegexCommand() *cobra.Command {
	var o getOptions
	var regexOptions string
	cmd := &cobra.Command{
		Use:   "get_regex <regex>",
		Short: "Write the newest revision of every file whose name matches to local files",
		Args:  argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			regex, err := withRegexOptions(args[0], regexOptions)
			if err != nil {
				return err
			}
			if err := buckets.CheckRegex(regex); err != nil {
				return err
			}
			s, err := a.open(cmd, true)
			if err != nil {
				return err
			}
			defer s.close()
			// Each lists by name, then upload date: the last of a name is
			// its newest revision.
			var files []*buckets.File
			err = s.bucket.Each(s.ctx, buckets.Query{Regex: regex, Limit: buckets.MaxLimit}, func(f *buckets.File) error {
				if n := len(files); n > 0 && files[n-1].Filename == f.Filename {
					files[n-1] = f
				} else {
					files = append(files, f)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if len(files) == 0 {
				return fmt.Errorf("%w: files matching the following pattern were not found: %s", buckets.ErrFileNotFound, args[0])
			}
			if len(files) > 1 && o.local != "" {
				return usagef("cannot get multiple files with --local specified")
			}
			if o.local == "" {
				if err := distinctLocalPaths(files); err != nil {
					return err
				}
			}
			for _, f := range files {
				if err := s.get(f, o.local); err != nil {
					return err
				}
			}
			return nil
		},
	}
	o.flags(cmd)
	cmd.Flags().StringVar(&regexOptions, "regexOptions", "", "regex options: i (case-insensitive), m (multi-line), s (dot matches newline)")
	return cmd
}

// distinctLocalPaths refuses, before anything is written, names that would
// land on one local file ("a/b" and "a//b"; "x" and "x/y", a file and a
// directory): the later would silently replace the earlier. A folder's
// marker is a directory, which the files inside it need, not a file.
func distinctLocalPaths(files []*buckets.File) error {
	byPath := map[string]string{}
	folders := map[string]string{}
	for _, f := range files {
		p, err := localPathFor(f.Filename)
		if err != nil {
			return err
		}
		if isFolderMarker(f) {
			folders[p] = f.Filename
			continue
		}
		if other, ok := byPath[p]; ok {
			return fmt.Errorf("GridFS files %q and %q would both be written to %s; get them one by one with --local", other, f.Filename, p)
		}
		byPath[p] = f.Filename
	}
	inside := func(p string) (dir, other string, ok bool) {
		for dir := p; dir != "."; dir = filepath.Dir(dir) {
			if other, ok := byPath[dir]; ok {
				return dir, other, true
			}
		}
		return "", "", false
	}
	for p, name := range byPath {
		if dir, other, ok := inside(filepath.Dir(p)); ok {
			return fmt.Errorf("GridFS file %q would be written inside %s, which GridFS file %q is written to; get them one by one with --local", name, dir, other)
		}
	}
	for p, name := range folders {
		if dir, other, ok := inside(p); ok {
			return fmt.Errorf("GridFS folder %q would be made a directory at %s, which GridFS file %q is written to; get them one by one with --local", name, dir, other)
		}
	}
	return nil
}

// isFolderMarker tells the zero-length "docs/" that WebDAV's MKCOL and S3
// tools store for a folder (API.md): locally it is a directory, and
// writing it as a file named docs would leave no room for docs/a.txt.
func isFolderMarker(f *buckets.File) bool {
	return f.Length == 0 && strings.HasSuffix(f.Filename, "/")
}

// withRegexOptions turns mongofiles' --regexOptions into the inline flags
// that both MongoDB's PCRE and Go's RE2 read.
func withRegexOptions(regex, opts string) (string, error) {
	if opts == "" {
		return regex, nil
	}
	for _, c := range opts {
		if !strings.ContainsRune("ims", c) {
			return "", fmt.Errorf("%w: --regexOptions %q: only i, m and s are supported", buckets.ErrInvalidQuery, opts)
		}
	}
	return "(?" + opts + ")" + regex, nil
}

// get writes f to local, or, when local is empty, to a path from its
// name, which the store chose (see localPathFor). A folder's marker makes
// a directory there instead.
func (s *session) get(f *buckets.File, local string) error {
	path := local
	if path == "" {
		var err error
		if path, err = localPathFor(f.Filename); err != nil {
			return err
		}
	}
	if isFolderMarker(f) && path != "-" {
		if err := os.MkdirAll(path, 0o777); err != nil {
			return fmt.Errorf("error while making local directory '%s': %w", path, err)
		}
		s.logf("made directory %s", path)
		return nil
	}
	d, err := s.bucket.Open(s.ctx, f)
	if err != nil {
		return err
	}
	defer d.Close()
	p := newProgress(s.cmd.ErrOrStderr(), s.cfg.Quiet, f.Filename, f.Length)
	err = writeLocal(path, s.out(), progressReader{r: d, p: p})
	p.finish()
	if err != nil {
		return err
	}
	s.logf("finished writing to %s", path)
	return nil
}

func (a *app) deleteCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete <name>",
		Short: "Delete every revision of the named file",
		Args:  argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open(cmd, true)
			if err != nil {
				return err
			}
			defer s.close()
			n, err := s.bucket.DeleteName(s.ctx, args[0])
			// Like mongofiles, deleting a name that is not there succeeds,
			// so scripts may delete before they put.
			if errors.Is(err, buckets.ErrFileNotFound) {
				s.logf("no file named '%s' in GridFS; nothing deleted", args[0])
				return nil
			}
			if err != nil {
				return err
			}
			s.logf("successfully deleted all instances of '%s' from GridFS (%d revisions)", args[0], n)
			return nil
		},
	}
	fileFlags(cmd)
	return cmd
}

func (a *app) deleteIDCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete_id <id>",
		Short: "Delete the file with this _id",
		Args:  argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			s, err := a.open(cmd, true)
			if err != nil {
				return err
			}
			defer s.close()
			if err := s.bucket.Delete(s.ctx, id); err != nil {
				return err
			}
			s.logf("successfully deleted file with _id %s from GridFS", args[0])
			return nil
		},
	}
	fileFlags(cmd)
	return cmd
}
