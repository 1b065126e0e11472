package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/config"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/spf13/cobra"
)

// logTimeFormat is the timestamp of mongofiles' log lines on stderr.
const logTimeFormat = "2006-01-02T15:04:05.000-0700"

// addFileCommands registers the mongofiles-compatible commands and the
// tools mongofiles lacks.
func (a *app) addFileCommands(root *cobra.Command) {
	root.AddCommand(
		a.listCommand(), a.searchCommand(),
		a.putCommand(), a.putIDCommand(),
		a.getCommand(), a.getIDCommand(), a.getRegexCommand(),
		a.deleteCommand(), a.deleteIDCommand(),
		a.renameCommand(), a.metaCommand(), a.statCommand(), a.catCommand(),
		a.verifyCommand(), a.fsckCommand(), a.bucketsCommand(),
	)
}

// fileFlags adds the flags every file command shares: the bucket and
// --quiet, both configuration keys.
func fileFlags(cmd *cobra.Command) {
	cmd.Flags().String(config.KeyPrefix, config.Default(config.KeyPrefix), "GridFS bucket (prefix of the .files and .chunks collections)")
	cmd.Flags().Bool(config.KeyQuiet, false, "print no log lines or progress on stderr, only errors")
}

// session is one command's connection and bucket.
type session struct {
	cmd    *cobra.Command
	ctx    context.Context
	cfg    config.Config
	client *mongo.Client
	db     *buckets.DB
	bucket *buckets.Bucket // nil for commands about buckets themselves
}

// open resolves the configuration, connects, waits until the store answers
// (at most the connect timeout) and opens the bucket --prefix names when
// withBucket is set.
func (a *app) open(cmd *cobra.Command, withBucket bool) (*session, error) {
	// Each command has flags of its own for these keys; only the one that
	// runs is bound, since viper keeps one flag per key.
	for _, key := range []string{config.KeyPrefix, config.KeyQuiet} {
		if f := cmd.Flags().Lookup(key); f != nil {
			a.bind(f)
		}
	}
	c, err := a.load()
	if err != nil {
		return nil, err
	}
	if withBucket && c.Prefix == "" {
		return nil, usagef("--prefix cannot be blank")
	}
	uri := c.URI
	if uri == "" {
		uri = embeddedURI(c.EmbeddedListen)
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	client, db, err := connect(ctx, uri, c)
	if err != nil {
		return nil, err
	}
	bdb := buckets.NewDB(db)
	bdb.SetLifecycleDay(c.LifecycleDebugDay)
	s := &session{cmd: cmd, ctx: ctx, cfg: c, client: client, db: bdb}
	s.db.SetLogger(slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn})))
	// A command reads each file once: chunks kept for other readers would
	// only be memory.
	s.db.SetChunkCache(0)
	if err := reach(ctx, client, uri, c.ConnectTimeout); err != nil {
		s.close()
		return nil, err
	}
	s.logf("connected to: %s", redactURI(uri))
	if withBucket {
		if s.bucket, err = s.db.Bucket(ctx, c.Prefix); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

func (s *session) close() {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 5*time.Second)
	defer cancel()
	s.client.Disconnect(ctx)
}

// logf writes a log line to stderr the way mongofiles does (timestamp, tab,
// message), unless --quiet.
func (s *session) logf(format string, args ...any) {
	if s.cfg.Quiet {
		return
	}
	fmt.Fprintf(s.cmd.ErrOrStderr(), "%s\t%s\n", time.Now().Format(logTimeFormat), fmt.Sprintf(format, args...))
}

func (s *session) out() io.Writer { return s.cmd.OutOrStdout() }

// redactURI hides the password of a connection string in messages.
func redactURI(uri string) string {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return uri
	}
	hosts := rest
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		hosts = rest[:i]
	}
	at := strings.LastIndex(hosts, "@")
	if at < 0 {
		return uri
	}
	user, _, hasPass := strings.Cut(hosts[:at], ":")
	if !hasPass {
		return uri
	}
	return scheme + "://" + user + ":[**REDACTED**]" + rest[at:]
}

// parseID reads an id argument as mongofiles does; see buckets.ParseID.
func parseID(s string) (any, error) {
	id, err := buckets.ParseID(s)
	if err != nil {
		return nil, asUsage(fmt.Errorf("%w (give an ObjectId as {\"$oid\":\"...\"}, a number, or a plain string)", err))
	}
	return id, nil
}

// target names one file: by --id, or by name and --revision.
type target struct {
	id       string
	revision int
}

func (t *target) flags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&t.id, "id", "", "the file with this _id (Extended JSON or a plain string) instead of a name")
	cmd.Flags().IntVar(&t.revision, "revision", -1, "which revision of the name: 0 the oldest, 1 the next, -1 the newest, -2 the one before")
}

// nameArgs is how many positional arguments name the file: none with --id.
func (t *target) nameArgs(cmd *cobra.Command) int {
	if cmd.Flags().Changed("id") {
		return 0
	}
	return 1
}

// resolve finds the file the target names; name is ignored with --id.
func (t *target) resolve(s *session, name string) (*buckets.File, error) {
	if s.cmd.Flags().Changed("id") {
		id, err := parseID(t.id)
		if err != nil {
			return nil, err
		}
		return s.bucket.Stat(s.ctx, id)
	}
	return s.bucket.FindByName(s.ctx, name, t.revision)
}

// targetArgs checks the arguments of a command taking <name|--id id> and
// extra more.
func (t *target) args(extra int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		n := t.nameArgs(cmd) + extra
		return argsBetween(n, n)(cmd, args)
	}
}

// localPathFor is where get_id and get_regex write a file when --local is
// not given: its name, as mongofiles does, but never outside the current
// directory, since the name comes from whoever wrote the bucket rather
// than from the command line.
func localPathFor(name string) (string, error) {
	local := filepath.FromSlash(name)
	if !filepath.IsLocal(local) {
		return "", fmt.Errorf("refusing to write GridFS file %q outside the current directory; choose a path with --local", name)
	}
	return filepath.Clean(local), nil
}

// writeLocal writes r to path through a temporary file in the same
// directory that replaces path only once complete, so a failed download
// leaves no partial file and keeps what path held. "-" is w. A path that
// is a device or a pipe (/dev/null, a FIFO) is written to directly, and a
// symbolic link is written through, as a plain create would.
func writeLocal(path string, w io.Writer, r io.Reader) (err error) {
	if path == "-" {
		if _, err := copyLarge(w, r); err != nil {
			return fmt.Errorf("write to stdout: %w", err)
		}
		return nil
	}
	target, err := linkTarget(path)
	if err != nil {
		return fmt.Errorf("error while opening local file '%s': %w", path, err)
	}
	st, statErr := os.Stat(target)
	if statErr == nil && !st.Mode().IsRegular() && !st.IsDir() {
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return fmt.Errorf("error while opening local file '%s': %w", path, err)
		}
		_, err = copyLarge(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("error while writing data into local file '%s': %w", path, err)
		}
		return nil
	}
	// As "get docs/final.pdf" asks: the file lands in docs/, made if new.
	if err := os.MkdirAll(filepath.Dir(target), 0o777); err != nil {
		return fmt.Errorf("error while opening local file '%s': %w", path, err)
	}
	tmp, err := createTemp(target)
	if err != nil {
		return fmt.Errorf("error while opening local file '%s': %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if statErr == nil && st.Mode().IsRegular() {
		// Replacing a file keeps its permissions, as writing into it would.
		if err := tmp.Chmod(st.Mode().Perm()); err != nil {
			return fmt.Errorf("error while opening local file '%s': %w", path, err)
		}
	}
	if _, err := copyLarge(tmp, r); err != nil {
		return fmt.Errorf("error while writing data into local file '%s': %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("error while writing data into local file '%s': %w", path, err)
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("error while writing data into local file '%s': %w", path, err)
	}
	return nil
}

// maxLinks is how many symbolic links linkTarget follows, as Linux's
// MAXSYMLINKS.
const maxLinks = 40

// errLinkLoop is a chain of symbolic links longer than maxLinks.
var errLinkLoop = errors.New("too many levels of symbolic links")

// linkTarget is the file a create of path would write: path with its
// symbolic links resolved. A link whose target does not exist yet, which
// EvalSymlinks refuses, names that target, read relative to the link's
// directory; replacing the link itself with the file would break it.
func linkTarget(path string) (string, error) {
	for range maxLinks {
		if p, err := filepath.EvalSymlinks(path); err == nil {
			return p, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return path, nil // not a link: a new file, or an error the create reports
		}
		if !filepath.IsAbs(dest) {
			dir := filepath.Dir(path)
			if d, err := filepath.EvalSymlinks(dir); err == nil {
				dir = d
			}
			dest = filepath.Join(dir, dest)
		}
		path = dest
	}
	return "", errLinkLoop
}

// copyBufferBytes is the size of copyLarge's writes: four default chunks.
const copyBufferBytes = 1 << 20

// copyLarge copies r to w in writes of up to copyBufferBytes. io.Copy to an
// *os.File would go through its ReadFrom, which writes 32 KiB at a time
// from a reader that is neither a file nor a socket: a system call per
// 32 KiB, an eighth of the command's CPU on a large get.
func copyLarge(w io.Writer, r io.Reader) (int64, error) {
	buf := make([]byte, copyBufferBytes)
	return io.CopyBuffer(struct{ io.Writer }{w}, struct{ io.Reader }{r}, buf)
}

// createTemp creates a hidden file beside path with the permissions a new
// file gets (0666 less the umask), which os.CreateTemp does not give.
func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	for i := 0; ; i++ {
		name := filepath.Join(dir, fmt.Sprintf(".%s.gridfsd-%d-%d.tmp", base, os.Getpid(), time.Now().UnixNano()+int64(i)))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, os.ErrExist) && i < 100 {
			continue
		}
		return f, err
	}
}

// openLocal opens what put reads: a local file, or stdin for "-". size is
// -1 when unknown.
func openLocal(cmd *cobra.Command, path string) (r io.ReadCloser, size int64, err error) {
	if path == "-" {
		return io.NopCloser(cmd.InOrStdin()), -1, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("error while opening local file '%s': %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("error while opening local file '%s': %w", path, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, 0, fmt.Errorf("error while opening local file '%s': is a directory", path)
	}
	size = -1
	if st.Mode().IsRegular() {
		size = st.Size()
	}
	return f, size, nil
}
