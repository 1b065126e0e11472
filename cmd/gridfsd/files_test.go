package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// env runs gridfsd commands in-process against a fresh test database,
// from a temporary working directory.
type env struct {
	t   *testing.T
	uri string
	db  *mongo.Database
	dir string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := storetest.MustOpenDB(t)
	dir := t.TempDir()
	t.Chdir(dir)
	return &env{t: t, uri: storetest.URI(t), db: db, dir: dir}
}

// result is what one run of a command produced.
type result struct {
	out, err string
	e        error
}

// run runs gridfsd args with stdin, against the test database.
func (e *env) run(stdin io.Reader, args ...string) result {
	e.t.Helper()
	root := newRootCommand()
	root.SetArgs(append(args, "--uri", e.uri, "-d", e.db.Name()))
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	root.SetIn(stdin)
	root.SetOut(&out)
	root.SetErr(&errb)
	err := root.ExecuteContext(context.Background())
	return result{out: out.String(), err: errb.String(), e: err}
}

// ok runs a command that must succeed and returns its stdout.
func (e *env) ok(args ...string) string {
	e.t.Helper()
	r := e.run(nil, args...)
	if r.e != nil {
		e.t.Fatalf("gridfsd %s: %v\nstderr: %s", strings.Join(args, " "), r.e, r.err)
	}
	return r.out
}

// fails runs a command that must fail and returns its error message.
func (e *env) fails(args ...string) string {
	e.t.Helper()
	r := e.run(nil, args...)
	if r.e == nil {
		e.t.Fatalf("gridfsd %s succeeded; stdout %q", strings.Join(args, " "), r.out)
	}
	return oneLine(r.e)
}

func (e *env) bucket(name string) *buckets.Bucket {
	e.t.Helper()
	b, err := buckets.NewDB(e.db).Bucket(context.Background(), name)
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

func (e *env) upload(bucket, name, content string, opts buckets.UploadOptions) *buckets.File {
	e.t.Helper()
	f, err := e.bucket(bucket).Upload(context.Background(), name, strings.NewReader(content), opts)
	if err != nil {
		e.t.Fatal(err)
	}
	return f
}

func (e *env) writeLocal(name, content string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.dir, name), []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) readLocal(name string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, name))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// content reads the newest revision of name from bucket fs.
func (e *env) content(name string) string {
	e.t.Helper()
	d, err := e.bucket("fs").OpenName(context.Background(), name, -1)
	if err != nil {
		e.t.Fatal(err)
	}
	defer d.Close()
	b, err := io.ReadAll(d)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func (e *env) revisions(name string) int64 {
	e.t.Helper()
	n, err := e.bucket("fs").FilesCollection().CountDocuments(context.Background(), bson.D{{Key: "filename", Value: name}})
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

func (e *env) chunks() int64 {
	e.t.Helper()
	n, err := e.bucket("fs").ChunksCollection().CountDocuments(context.Background(), bson.D{})
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// logLine matches a mongofiles log line: timestamp, tab, message.
var logLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}\t`)

func logMessages(t *testing.T, stderr string) []string {
	t.Helper()
	var msgs []string
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if l == "" {
			continue
		}
		if !logLine.MatchString(l) {
			t.Fatalf("stderr line %q is not a mongofiles log line", l)
		}
		msgs = append(msgs, logLine.ReplaceAllString(l, ""))
	}
	return msgs
}

func TestListAndSearchPrintLikeMongofiles(t *testing.T) {
	e := newEnv(t)
	if out := e.ok("list"); out != "" {
		t.Fatalf("list of an empty bucket: %q", out)
	}
	e.upload("fs", "b.txt", "hello", buckets.UploadOptions{})
	e.upload("fs", "a/one", "", buckets.UploadOptions{})
	e.upload("fs", "a/two", "0123456789", buckets.UploadOptions{})
	e.upload("fs", "b.txt", "hello, again", buckets.UploadOptions{}) // a second revision
	e.upload("other", "in-other", "x", buckets.UploadOptions{})

	// Every revision, one name<TAB>length line each, as mongofiles prints.
	if out, want := e.ok("list"), "a/one\t0\na/two\t10\nb.txt\t5\nb.txt\t12\n"; out != want {
		t.Errorf("list:\n%q\nwant\n%q", out, want)
	}
	if out, want := e.ok("list", "a/"), "a/one\t0\na/two\t10\n"; out != want {
		t.Errorf("list a/: %q, want %q", out, want)
	}
	// A prefix is literal, not a regex.
	if out := e.ok("list", "a."); out != "" {
		t.Errorf("list a.: %q", out)
	}
	if out, want := e.ok("search", `t[wx]`), "a/two\t10\nb.txt\t5\nb.txt\t12\n"; out != want {
		t.Errorf("search: %q, want %q", out, want)
	}
	if out, want := e.ok("list", "--prefix", "other"), "in-other\t1\n"; out != want {
		t.Errorf("list --prefix other: %q, want %q", out, want)
	}
	out := e.ok("search", "^a/t", "--json")
	var doc struct {
		ID       any    `json:"id"`
		Filename string `json:"filename"`
		Length   int64  `json:"length"`
		SHA256   string `json:"sha256"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Filename != "a/two" || doc.Length != 10 || doc.SHA256 == "" {
		t.Errorf("search --json: %q (%v)", out, err)
	}
	if n := strings.Count(e.ok("list", "--json"), "\n"); n != 4 {
		t.Errorf("list --json printed %d lines, want 4", n)
	}
	if msg := e.fails("search", "("); !strings.Contains(msg, "invalid query") {
		t.Errorf("bad regex: %s", msg)
	}
	if msg := e.fails("search"); !strings.HasPrefix(msg, "'search' argument missing") {
		t.Errorf("search without regex: %s", msg)
	}
	if msg := e.fails("list", "a", "b"); !strings.Contains(msg, "too many positional arguments") {
		t.Errorf("list a b: %s", msg)
	}
}

func TestPutAndGetLocalFiles(t *testing.T) {
	e := newEnv(t)
	e.writeLocal("report.txt", "quarterly numbers")
	r := e.run(nil, "put", "report.txt", "--type", "text/plain")
	if r.e != nil {
		t.Fatal(r.e)
	}
	msgs := logMessages(t, r.err)
	want := []string{"connected to: " + redactURI(e.uri), "adding gridFile: report.txt", "added gridFile: report.txt"}
	if strings.Join(msgs, "|") != strings.Join(want, "|") {
		t.Errorf("put stderr %q, want %q", msgs, want)
	}
	f, err := e.bucket("fs").FindByName(context.Background(), "report.txt", -1)
	if err != nil {
		t.Fatal(err)
	}
	if f.MediaType() != "text/plain" || f.Metadata.Lookup("contentType").StringValue() != "text/plain" {
		t.Errorf("metadata %v, want contentType text/plain", f.Metadata)
	}

	// --local names the local file; the GridFS name is the argument.
	e.writeLocal("local.bin", "local bytes")
	e.ok("put", "stored/name", "-l", filepath.Join(e.dir, "local.bin"))
	if got := e.content("stored/name"); got != "local bytes" {
		t.Errorf("stored/name holds %q", got)
	}

	os.Remove("report.txt")
	r = e.run(nil, "get", "report.txt")
	if r.e != nil {
		t.Fatal(r.e)
	}
	if got := e.readLocal("report.txt"); got != "quarterly numbers" {
		t.Errorf("got %q", got)
	}
	if msgs := logMessages(t, r.err); msgs[len(msgs)-1] != "finished writing to report.txt" {
		t.Errorf("get stderr %q", msgs)
	}
	e.ok("get", "report.txt", "--local", "copy.txt")
	if got := e.readLocal("copy.txt"); got != "quarterly numbers" {
		t.Errorf("copy.txt holds %q", got)
	}
	// A name with a directory is written there, as mongofiles does.
	os.Mkdir("stored", 0o755)
	e.ok("get", "stored/name")
	if got := e.readLocal("stored/name"); got != "local bytes" {
		t.Errorf("stored/name holds %q", got)
	}

	// --quiet: nothing on stderr.
	r = e.run(nil, "get", "report.txt", "--quiet")
	if r.e != nil || r.err != "" {
		t.Errorf("get --quiet: %v, stderr %q", r.e, r.err)
	}
	r = e.run(nil, "put", "report.txt", "--quiet")
	if r.e != nil || r.err != "" {
		t.Errorf("put --quiet: %v, stderr %q", r.e, r.err)
	}
}

func TestPutAndGetSeveralFiles(t *testing.T) {
	e := newEnv(t)
	e.writeLocal("a", "A")
	e.writeLocal("b", "BB")
	e.ok("put", "a", "b")
	if out := e.ok("list"); out != "a\t1\nb\t2\n" {
		t.Fatalf("list: %q", out)
	}
	os.Remove("a")
	os.Remove("b")
	e.ok("get", "a", "b")
	if e.readLocal("a") != "A" || e.readLocal("b") != "BB" {
		t.Error("get a b wrote the wrong content")
	}
	if msg := e.fails("get", "a", "b", "-l", "x"); msg != "cannot get multiple files with --local specified" {
		t.Errorf("get a b -l x: %s", msg)
	}
	if msg := e.fails("put", "a", "b", "-l", "x"); msg != "cannot put multiple files with --local specified" {
		t.Errorf("put a b -l x: %s", msg)
	}
	// One missing name: nothing is written, not even the names that exist.
	os.Remove("a")
	if msg := e.fails("get", "a", "missing"); !strings.Contains(msg, "file not found") {
		t.Errorf("get a missing: %s", msg)
	}
	if _, err := os.Stat("a"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("get with a missing name wrote a: %v", err)
	}
}

func TestStdinAndStdout(t *testing.T) {
	e := newEnv(t)
	data := strings.Repeat("streamed through stdin\n", 1000)
	r := e.run(strings.NewReader(data), "put", "piped", "-l", "-")
	if r.e != nil {
		t.Fatal(r.e)
	}
	if got := e.content("piped"); got != data {
		t.Fatalf("stored %d bytes, want %d", len(got), len(data))
	}
	r = e.run(nil, "get", "piped", "-l", "-")
	if r.e != nil || r.out != data {
		t.Fatalf("get -l -: %v, %d bytes", r.e, len(r.out))
	}
	// Log lines stay on stderr, data alone on stdout.
	if msgs := logMessages(t, r.err); msgs[len(msgs)-1] != "finished writing to -" {
		t.Errorf("stderr %q", msgs)
	}
	f, _ := e.bucket("fs").FindByName(context.Background(), "piped", -1)
	r = e.run(nil, "get_id", buckets.FormatID(f.ID), "--local", "-")
	if r.e != nil || r.out != data {
		t.Fatalf("get_id -l -: %v, %d bytes", r.e, len(r.out))
	}
}

func TestIDsOfEveryType(t *testing.T) {
	e := newEnv(t)
	e.writeLocal("src", "by id")
	oid := bson.NewObjectID()
	cases := []struct {
		arg  string
		want any
	}{
		{`{"$oid":"` + oid.Hex() + `"}`, oid},
		{"my-id", "my-id"},
		{"42", int32(42)},
		{`{"$numberLong":"7"}`, int64(7)},
	}
	for _, tc := range cases {
		e.ok("put_id", "named-"+tc.arg, tc.arg, "-l", "src")
		f, err := e.bucket("fs").Stat(context.Background(), tc.want)
		if err != nil {
			t.Fatalf("put_id %s: %v", tc.arg, err)
		}
		if f.ID != tc.want || f.Filename != "named-"+tc.arg {
			t.Errorf("put_id %s stored _id %#v name %q", tc.arg, f.ID, f.Filename)
		}
		if out := e.ok("get_id", tc.arg, "-l", "-", "--quiet"); out != "by id" {
			t.Errorf("get_id %s: %q", tc.arg, out)
		}
		// An id that is taken is refused, and the file stays.
		if msg := e.fails("put_id", "again", tc.arg, "-l", "src"); !strings.Contains(msg, "already exists") {
			t.Errorf("put_id %s twice: %s", tc.arg, msg)
		}
	}
	// get_id without --local writes to the file's name.
	e.ok("get_id", "my-id")
	if got := e.readLocal("named-my-id"); got != "by id" {
		t.Errorf("named-my-id holds %q", got)
	}
	for _, tc := range cases {
		r := e.run(nil, "delete_id", tc.arg)
		if r.e != nil {
			t.Fatalf("delete_id %s: %v", tc.arg, r.e)
		}
		msgs := logMessages(t, r.err)
		if want := "successfully deleted file with _id " + tc.arg + " from GridFS"; msgs[len(msgs)-1] != want {
			t.Errorf("delete_id stderr %q, want %q", msgs, want)
		}
	}
	if out := e.ok("list"); out != "" || e.chunks() != 0 {
		t.Errorf("after delete_id: list %q, %d chunks", out, e.chunks())
	}
	if msg := e.fails("get_id", "my-id"); !strings.Contains(msg, "file not found") {
		t.Errorf("get_id of a deleted id: %s", msg)
	}
	if msg := e.fails("delete_id", "my-id"); !strings.Contains(msg, "file not found") {
		t.Errorf("delete_id of a deleted id: %s", msg)
	}
	if msg := e.fails("put_id", "x", `{"$oid":"nothex"}`, "-l", "src"); !strings.Contains(msg, "invalid id") {
		t.Errorf("bad id: %s", msg)
	}
	if msg := e.fails("get_id", `{"$oid":`); !strings.Contains(msg, "invalid id") {
		t.Errorf("bad id: %s", msg)
	}
	if out := e.ok("list"); out != "" {
		t.Errorf("a bad id stored something: %q", out)
	}
}

func TestGetWritesTheNewestRevision(t *testing.T) {
	e := newEnv(t)
	for _, v := range []string{"first", "second", "third"} {
		e.upload("fs", "doc", v, buckets.UploadOptions{})
		e.upload("fs", "other", v+"!", buckets.UploadOptions{})
	}
	e.ok("get", "doc")
	if got := e.readLocal("doc"); got != "third" {
		t.Errorf("get wrote %q, want the newest revision", got)
	}
	if out := e.ok("cat", "doc", "--revision", "0"); out != "first" {
		t.Errorf("cat --revision 0: %q", out)
	}
	if out := e.ok("cat", "doc", "--revision", "-2"); out != "second" {
		t.Errorf("cat --revision -2: %q", out)
	}
	if msg := e.fails("cat", "doc", "--revision", "3"); !strings.Contains(msg, "revision not found") {
		t.Errorf("cat --revision 3: %s", msg)
	}
	os.Remove("doc")
	e.ok("get_regex", "^(doc|oth)")
	if e.readLocal("doc") != "third" || e.readLocal("other") != "third!" {
		t.Errorf("get_regex wrote %q and %q, want the newest revisions", e.readLocal("doc"), e.readLocal("other"))
	}
	if out := e.ok("get_regex", "^DOC$", "--regexOptions", "i", "-l", "-", "--quiet"); out != "third" {
		t.Errorf("get_regex --regexOptions i: %q", out)
	}
	if msg := e.fails("get_regex", "^o|^d", "-l", "x"); msg != "cannot get multiple files with --local specified" {
		t.Errorf("get_regex of two names with --local: %s", msg)
	}
	if msg := e.fails("get_regex", "^nothing"); !strings.Contains(msg, "files matching the following pattern were not found: ^nothing") {
		t.Errorf("get_regex without match: %s", msg)
	}
	if msg := e.fails("get_regex", "x", "--regexOptions", "x"); !strings.Contains(msg, "only i, m and s") {
		t.Errorf("--regexOptions x: %s", msg)
	}
}

func TestStoredNamesStayInTheDirectory(t *testing.T) {
	e := newEnv(t)
	// Another tool may store any name; gridfsd itself refuses to.
	_, err := e.bucket("fs").FilesCollection().InsertOne(context.Background(), bson.D{
		{Key: "_id", Value: "evil"}, {Key: "length", Value: int64(0)}, {Key: "chunkSize", Value: int32(4)},
		{Key: "uploadDate", Value: bson.NewDateTimeFromTime(time.Now())}, {Key: "filename", Value: "../escape"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"get_id", "evil"}, {"get_regex", "escape"}} {
		if msg := e.fails(args...); !strings.Contains(msg, "outside the current directory") {
			t.Errorf("%s: %s", args, msg)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, "..", "escape")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("get wrote outside the directory: %v", err)
	}
	e.ok("get_id", "evil", "-l", "inside")
	if got := e.readLocal("inside"); got != "" {
		t.Errorf("inside holds %q", got)
	}
	// get takes the path the user typed, as mongofiles does.
	os.Mkdir("sub", 0o755)
	t.Chdir("sub")
	e.ok("get", "../escape")
	if got := e.readLocal("escape"); got != "" {
		t.Errorf("escape holds %q", got)
	}
}

// failingReader yields its data, then fails: a local file or pipe that
// breaks in the middle of an upload.
type failingReader struct {
	data []byte
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errors.New("disk read error")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReplace(t *testing.T) {
	e := newEnv(t)
	// 64 KiB chunks: the uploader inserts 1 MiB batches, so the failing
	// upload below has stored 16 chunks when its reader breaks.
	e.ok("buckets", "create", "fs", "--chunk-size", "64KiB")
	e.writeLocal("f", "version one")
	e.ok("put", "f")
	e.writeLocal("f", "version two")
	e.ok("put", "f")
	e.writeLocal("f", "version three")
	r := e.run(nil, "put", "f", "--replace")
	if r.e != nil {
		t.Fatal(r.e)
	}
	if n := e.revisions("f"); n != 1 || e.content("f") != "version three" {
		t.Fatalf("after put --replace: %d revisions, content %q", n, e.content("f"))
	}
	if msgs := logMessages(t, r.err); !strings.Contains(strings.Join(msgs, "|"), "removed 2 older revisions of f") {
		t.Errorf("put --replace stderr %q", msgs)
	}
	chunks := e.chunks()

	// The new upload fails midway: mongofiles would have deleted the old
	// file first; gridfsd keeps it, and the chunks written are removed.
	r = e.run(&failingReader{data: bytes.Repeat([]byte("never arrives"), 100_000)}, "put", "f", "--replace", "-l", "-")
	if r.e == nil || !strings.Contains(r.e.Error(), "disk read error") {
		t.Fatalf("failing put --replace: %v", r.e)
	}
	if n := e.revisions("f"); n != 1 || e.content("f") != "version three" {
		t.Fatalf("after a failed put --replace: %d revisions, content %q", n, e.content("f"))
	}
	if got := e.chunks(); got != chunks {
		t.Errorf("chunks after the failed upload: %d, want %d", got, chunks)
	}
	// A local file that cannot be read at all changes nothing either.
	if msg := e.fails("put", "f", "--replace", "-l", "no-such-file"); !strings.Contains(msg, "no-such-file") {
		t.Errorf("put of a missing local file: %s", msg)
	}
	if msg := e.fails("put", "f", "--replace", "-l", e.dir); !strings.Contains(msg, "is a directory") {
		t.Errorf("put of a directory: %s", msg)
	}
	if n := e.revisions("f"); n != 1 || e.content("f") != "version three" {
		t.Fatalf("after failed puts: %d revisions, content %q", n, e.content("f"))
	}
	// put_id --replace too.
	e.writeLocal("f", "version four")
	e.ok("put_id", "f", "v4", "-r")
	if f, err := e.bucket("fs").FindByName(context.Background(), "f", -1); err != nil || f.ID != "v4" || e.revisions("f") != 1 {
		t.Errorf("after put_id -r: %v, %d revisions", f, e.revisions("f"))
	}
}

func TestDelete(t *testing.T) {
	e := newEnv(t)
	for range 3 {
		e.upload("fs", "gone", "revision", buckets.UploadOptions{})
	}
	keep := e.upload("fs", "kept", "k", buckets.UploadOptions{})
	r := e.run(nil, "delete", "gone")
	if r.e != nil {
		t.Fatal(r.e)
	}
	if msgs := logMessages(t, r.err); !strings.HasPrefix(msgs[len(msgs)-1], "successfully deleted all instances of 'gone' from GridFS") {
		t.Errorf("delete stderr %q", msgs)
	}
	if out := e.ok("list"); out != "kept\t1\n" {
		t.Errorf("list after delete: %q", out)
	}
	if n, _ := e.bucket("fs").ChunksCollection().CountDocuments(context.Background(), bson.D{{Key: "files_id", Value: bson.D{{Key: "$ne", Value: keep.ID}}}}); n != 0 {
		t.Errorf("%d chunks of deleted files remain", n)
	}
	// Deleting a name that is not there succeeds, as with mongofiles.
	r = e.run(nil, "delete", "gone")
	if r.e != nil || !strings.Contains(r.err, "nothing deleted") {
		t.Errorf("delete of a missing name: %v, %q", r.e, r.err)
	}
	if msg := e.fails("delete"); !strings.HasPrefix(msg, "'delete' argument missing") {
		t.Errorf("delete without a name: %s", msg)
	}
}

func TestConfigurationFromEnvironment(t *testing.T) {
	e := newEnv(t)
	e.upload("env-bucket", "from-env", "e", buckets.UploadOptions{})
	e.upload("fs", "from-fs", "f", buckets.UploadOptions{})
	t.Setenv("GRIDFSD_PREFIX", "env-bucket")
	t.Setenv("GRIDFSD_QUIET", "true")
	r := e.run(nil, "list")
	if r.e != nil || r.out != "from-env\t1\n" || r.err != "" {
		t.Errorf("list with GRIDFSD_PREFIX and GRIDFSD_QUIET: %v %q %q", r.e, r.out, r.err)
	}
	// A flag beats the environment.
	if out := e.ok("list", "--prefix", "fs"); out != "from-fs\t1\n" {
		t.Errorf("list --prefix fs: %q", out)
	}
	if msg := e.failsWith(exitUsage, "list", "--prefix", ""); msg != "--prefix cannot be blank" {
		t.Errorf("blank prefix: %s", msg)
	}
}

func TestRedactURI(t *testing.T) {
	for in, want := range map[string]string{
		"mongodb://localhost:27017":                "mongodb://localhost:27017",
		"mongodb://u:secret@h1,h2/db?authSource=x": "mongodb://u:[**REDACTED**]@h1,h2/db?authSource=x",
		"mongodb+srv://user@cluster/":              "mongodb+srv://user@cluster/",
		"mongodb://u:p%40ss@h/?x=a@b":              "mongodb://u:[**REDACTED**]@h/?x=a@b",
	} {
		if got := redactURI(in); got != want {
			t.Errorf("redactURI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGetIntoSpecialLocalFiles(t *testing.T) {
	e := newEnv(t)
	e.upload("fs", "f", "new content", buckets.UploadOptions{})
	// A device is written to, not replaced.
	e.ok("get", "f", "-l", os.DevNull)
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s after get: %v, %v", os.DevNull, st, err)
	}
	// A symbolic link is written through; an existing file keeps its mode.
	e.writeLocal("real", "old")
	os.Chmod("real", 0o640)
	if err := os.Symlink("real", "link"); err != nil {
		t.Fatal(err)
	}
	e.ok("get", "f", "-l", "link")
	if got := e.readLocal("real"); got != "new content" {
		t.Errorf("real holds %q", got)
	}
	if st, err := os.Lstat("link"); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link is no longer a symbolic link: %v, %v", st, err)
	}
	if st, _ := os.Stat("real"); st.Mode().Perm() != 0o640 {
		t.Errorf("real has mode %v, want 0640", st.Mode().Perm())
	}
	// A failed download leaves the old file and no temporary file.
	e.writeLocal("kept", "old")
	if _, err := e.bucket("fs").ChunksCollection().DeleteMany(context.Background(), bson.D{}); err != nil {
		t.Fatal(err)
	}
	if msg := e.fails("get", "f", "-l", "kept"); !strings.Contains(msg, "chunk is missing") {
		t.Errorf("get of a file without chunks: %s", msg)
	}
	if got := e.readLocal("kept"); got != "old" {
		t.Errorf("kept holds %q after a failed get", got)
	}
	entries, _ := os.ReadDir(e.dir)
	for _, de := range entries {
		if strings.HasSuffix(de.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", de.Name())
		}
	}
}

// TestGetThroughDanglingSymlink: a link whose target does not exist yet is
// written through, as a plain create would: the target is created, read
// relative to the link's directory, and the link stays a link.
func TestGetThroughDanglingSymlink(t *testing.T) {
	e := newEnv(t)
	e.upload("fs", "f", "content", buckets.UploadOptions{})
	if err := os.Mkdir("sub", 0o777); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link": "target", "sub/link": "../sub-target"} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		e.ok("get", "f", "-l", link)
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link: %v", link, err)
		}
		written := filepath.Join(filepath.Dir(link), target)
		if b, err := os.ReadFile(written); err != nil || string(b) != "content" {
			t.Errorf("%s: %q, %v; want the content written through %s", written, b, err, link)
		}
	}
	// A loop has no file to write: refused, and the links left as they are.
	if err := os.Symlink("loop", "loop"); err != nil {
		t.Fatal(err)
	}
	if msg := e.fails("get", "f", "-l", "loop"); !strings.Contains(msg, "too many levels of symbolic links") {
		t.Errorf("get -l onto a loop: %s", msg)
	}
	if st, err := os.Lstat("loop"); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("loop is no longer a symbolic link: %v", err)
	}
}

// TestGetRegexOverAFolderWithItsMarker: a folder made through WebDAV
// (MKCOL) or an S3 tool is a zero-length "docs/" (API.md). get_regex,
// get_id and get make it a directory, never a file named docs that would
// leave no room for docs/a.txt; a file named like the folder still
// conflicts with it.
func TestGetRegexOverAFolderWithItsMarker(t *testing.T) {
	e := newEnv(t)
	marker := e.upload("fs", "docs/", "", buckets.UploadOptions{})
	e.upload("fs", "docs/a.txt", "A", buckets.UploadOptions{})
	isDir := func(p string) {
		t.Helper()
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			t.Errorf("%s: %v; want a directory", p, err)
		}
	}
	e.ok("get_regex", "^docs/")
	if got := e.readLocal("docs/a.txt"); got != "A" {
		t.Errorf("docs/a.txt holds %q", got)
	}
	isDir("docs")
	e.ok("get", "docs/")
	isDir("docs")
	if err := os.RemoveAll("docs"); err != nil {
		t.Fatal(err)
	}
	e.ok("get_id", buckets.FormatID(marker.ID))
	isDir("docs")

	e.upload("fs", "x/", "", buckets.UploadOptions{})
	e.upload("fs", "x", "a file", buckets.UploadOptions{})
	if msg := e.fails("get_regex", "^x"); !strings.Contains(msg, "one by one with --local") {
		t.Errorf("get_regex over a file and a folder of one name: %s", msg)
	}
	if _, err := os.Stat("x"); !os.IsNotExist(err) {
		t.Errorf("get_regex wrote x before refusing: %v", err)
	}
}
