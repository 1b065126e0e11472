package tests

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/internal/storetest"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// Interoperability with PyMongo's GridFS (gridfs.GridFSBucket), driven
// through tests/testdata/gridfs_interop.py: files gridfsd writes, Python
// reads byte for byte with their fields, and the reverse. Debian's
// python3-pymongo is what CI installs (.ci/run); a missing interpreter or
// module fails the test rather than skipping it, so the check cannot
// silently vanish.

const pythonScript = "testdata/gridfs_interop.py"

// pythonWithGridfs returns an interpreter that can import gridfs: python3 on
// PATH, else Debian's own, which is where apt installs python3-pymongo when
// PATH leads to another Python first (pyenv, a virtualenv).
func pythonWithGridfs(t *testing.T) string {
	t.Helper()
	var tried []string
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(py)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s: %v", py, err))
			continue
		}
		out, err := exec.Command(path, "-c", "import gridfs, pymongo").CombinedOutput()
		if err == nil {
			return path
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		tried = append(tried, fmt.Sprintf("%s: %v: %s", path, err, lines[len(lines)-1]))
	}
	t.Fatalf("no python3 with pymongo's gridfs module; install it (Debian: apt-get install python3-pymongo python3-gridfs):\n%s",
		strings.Join(tried, "\n"))
	return ""
}

// runPython runs the script's command against the bucket and decodes its
// canonical Extended JSON answer into out.
func runPython(t *testing.T, env *interopEnv, cmd string, stdin any, out any) {
	t.Helper()
	py := pythonWithGridfs(t)
	ctx, cancel := context.WithTimeout(env.ctx, 5*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, py, pythonScript, cmd, storetest.URI(t), env.db.Name(), env.ours.Name())
	if stdin != nil {
		in, err := bson.MarshalExtJSON(stdin, true, false)
		if err != nil {
			t.Fatal(err)
		}
		c.Stdin = bytes.NewReader(in)
	}
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("python %s: %v\n%s", cmd, err, stderr.Bytes())
	}
	if err := bson.UnmarshalExtJSON(stdout.Bytes(), true, out); err != nil {
		t.Fatalf("python %s answered %q: %v", cmd, stdout.Bytes(), err)
	}
}

// pyFile is one file as PyMongo's GridOut sees it, with the SHA-256 of
// what it read whole by id, whole by name, and of the middle third after a
// seek.
type pyFile struct {
	ID           any       `bson:"_id"`
	Filename     string    `bson:"filename"`
	Length       int64     `bson:"length"`
	ChunkSize    int64     `bson:"chunkSize"`
	UploadDate   time.Time `bson:"uploadDate"`
	Metadata     bson.Raw  `bson:"metadata"`
	SHA256       string    `bson:"sha256"`
	SHA256ByName string    `bson:"sha256ByName"`
	SHA256Middle string    `bson:"sha256Middle"`
}

type pythonCase struct {
	size        int
	chunkSize   int
	metadata    bson.D
	contentType string
	id          any // for files Python writes: nil means an ObjectID
}

func pythonCases() []pythonCase {
	const cs = 1000
	md := bson.D{
		{Key: "owner", Value: "alice"},
		{Key: "n32", Value: int32(7)},
		{Key: "n64", Value: int64(1) << 40},
		{Key: "ratio", Value: 0.25},
		{Key: "when", Value: bson.DateTime(1700000000123)},
		{Key: "nested", Value: bson.D{{Key: "tags", Value: bson.A{"a", "b", int32(3)}}, {Key: "ok", Value: true}}},
	}
	return []pythonCase{
		{size: 0, chunkSize: cs},
		{size: 0, chunkSize: cs, metadata: md, contentType: "text/plain"},
		{size: 1, chunkSize: cs, id: "python-string-id"},
		{size: cs - 1, chunkSize: cs, metadata: md},
		{size: cs, chunkSize: cs, contentType: "application/octet-stream"},
		{size: cs + 1, chunkSize: cs, metadata: md, id: int64(42)},
		// A few hundred KiB in small chunks: 74 full chunks and a partial one.
		{size: 300<<10 + 7, chunkSize: 4096, metadata: md, contentType: "image/png"},
	}
}

func (c pythonCase) name() string {
	return fmt.Sprintf("size=%d,chunkSize=%d,metadata=%v,contentType=%q", c.size, c.chunkSize, c.metadata != nil, c.contentType)
}

func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestInteropPythonReadsGridfsd(t *testing.T) {
	env := newInteropEnv(t)
	type written struct {
		c    pythonCase
		file *buckets.File
		data []byte
	}
	byName := map[string]written{}
	for i, c := range pythonCases() {
		data := randomBytes(uint64(300+i), c.size)
		name := fmt.Sprintf("ours/%d", i)
		f, err := env.ours.Upload(env.ctx, name, bytes.NewReader(data),
			buckets.UploadOptions{ChunkSize: c.chunkSize, Metadata: c.metadata, ContentType: c.contentType})
		if err != nil {
			t.Fatalf("%s: %v", c.name(), err)
		}
		if f, err = env.ours.Stat(env.ctx, f.ID); err != nil {
			t.Fatal(err)
		}
		byName[name] = written{c, f, data}
	}

	var got struct {
		Files []pyFile `bson:"files"`
	}
	runPython(t, env, "read", nil, &got)
	if len(got.Files) != len(byName) {
		t.Errorf("python lists %d files, gridfsd wrote %d", len(got.Files), len(byName))
	}
	for _, p := range got.Files {
		w, ok := byName[p.Filename]
		if !ok {
			t.Errorf("python lists %q, which gridfsd did not write", p.Filename)
			continue
		}
		delete(byName, p.Filename)
		t.Run(w.c.name(), func(t *testing.T) {
			f, data := w.file, w.data
			if p.ID != f.ID {
				t.Errorf("python reads _id %v (%T), gridfsd wrote %v (%T)", p.ID, p.ID, f.ID, f.ID)
			}
			if p.Length != int64(len(data)) || p.ChunkSize != int64(w.c.chunkSize) {
				t.Errorf("python reads length %d, chunkSize %d; want %d, %d", p.Length, p.ChunkSize, len(data), w.c.chunkSize)
			}
			if !p.UploadDate.Equal(f.UploadDate) {
				t.Errorf("python reads uploadDate %v, stored %v", p.UploadDate, f.UploadDate)
			}
			want := hexSHA256(data)
			if p.SHA256 != want || p.SHA256ByName != want {
				t.Errorf("python read content with SHA-256 %s by id, %s by name; want %s", p.SHA256, p.SHA256ByName, want)
			}
			if lo, hi := len(data)/3, len(data)-len(data)/3; p.SHA256Middle != hexSHA256(data[lo:hi]) {
				t.Errorf("python read bytes %d..%d after a seek with the wrong SHA-256", lo, hi)
			}
			if !bytes.Equal(p.Metadata, f.Metadata) {
				t.Errorf("python reads metadata %s, stored %s", p.Metadata, f.Metadata)
			}
			// And what the user gave is what Python sees: their fields, then
			// the content type.
			wantMD := w.c.metadata
			if w.c.contentType != "" {
				wantMD = append(wantMD[:len(wantMD):len(wantMD)], bson.E{Key: "contentType", Value: w.c.contentType})
			}
			if wantMD == nil {
				if p.Metadata != nil {
					t.Errorf("python reads metadata %s, none was given", p.Metadata)
				}
			} else if !bytes.Equal(p.Metadata, mustMarshal(t, wantMD)) {
				t.Errorf("python reads metadata %s, want %v", p.Metadata, wantMD)
			}
		})
	}
	for name := range byName {
		t.Errorf("python does not list %q", name)
	}
}

func TestInteropGridfsdReadsPython(t *testing.T) {
	env := newInteropEnv(t)
	dir := t.TempDir()
	type spec struct {
		ID        any    `bson:"_id,omitempty"`
		Filename  string `bson:"filename"`
		Path      string `bson:"path"`
		ChunkSize int32  `bson:"chunkSize"`
		Metadata  bson.D `bson:"metadata,omitempty"`
	}
	cases := pythonCases()
	var specs []spec
	var datas [][]byte
	for i, c := range cases {
		data := randomBytes(uint64(400+i), c.size)
		path := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		md := c.metadata
		if c.contentType != "" {
			md = append(md[:len(md):len(md)], bson.E{Key: "contentType", Value: c.contentType})
		}
		specs = append(specs, spec{ID: c.id, Filename: fmt.Sprintf("python/%d", i), Path: path, ChunkSize: int32(c.chunkSize), Metadata: md})
		datas = append(datas, data)
	}

	var got struct {
		IDs []any `bson:"ids"`
	}
	runPython(t, env, "write", bson.D{{Key: "files", Value: specs}}, &got)
	if len(got.IDs) != len(specs) {
		t.Fatalf("python answered %d ids for %d files", len(got.IDs), len(specs))
	}

	for i, c := range cases {
		t.Run(c.name(), func(t *testing.T) {
			s, data, id := specs[i], datas[i], got.IDs[i]
			if _, isOID := id.(bson.ObjectID); c.id != nil && id != c.id || c.id == nil && !isOID {
				t.Errorf("python wrote _id %v (%T), want %v", id, id, c.id)
			}
			checkChunks(t, env, id, interopCase{size: c.size, chunkSize: c.chunkSize}, data)

			d, err := env.ours.OpenID(env.ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			all, err := io.ReadAll(d)
			d.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(all, data) {
				t.Fatalf("read %d bytes by id, not the %d python wrote", len(all), len(data))
			}
			f := d.File
			if f.ID != id || f.Length != int64(c.size) || f.ChunkSize != c.chunkSize || f.Filename != s.Filename {
				t.Errorf("files document read as _id %v, length %d, chunkSize %d, filename %q", f.ID, f.Length, f.ChunkSize, f.Filename)
			}
			if d := time.Since(f.UploadDate); d < 0 || d > 10*time.Minute {
				t.Errorf("uploadDate %v is not the time of the upload", f.UploadDate)
			}
			if s.Metadata == nil && f.Metadata != nil || s.Metadata != nil && !bytes.Equal(f.Metadata, mustMarshal(t, s.Metadata)) {
				t.Errorf("metadata read as %s, python wrote %v", f.Metadata, s.Metadata)
			}
			if f.MediaType() != c.contentType {
				t.Errorf("media type %q, python wrote metadata.contentType %q", f.MediaType(), c.contentType)
			}
			// PyMongo 3 still writes the deprecated md5 unless told not to;
			// when it is there it must be read as it is.
			if sum := md5.Sum(data); f.MD5 != "" && f.MD5 != hex.EncodeToString(sum[:]) {
				t.Errorf("md5 read as %s, want %x", f.MD5, sum)
			}

			// By name, and a range from the middle through ReadAt.
			d, err = env.ours.OpenName(env.ctx, s.Filename, -1)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if d.File.ID != id {
				t.Errorf("by name: _id %v, want %v", d.File.ID, id)
			}
			lo, hi := c.size/3, c.size-c.size/3
			p := make([]byte, hi-lo)
			if n, err := d.ReadAt(p, int64(lo)); n != len(p) || (err != nil && err != io.EOF) || !bytes.Equal(p, data[lo:hi]) {
				t.Errorf("ReadAt(%d..%d) = %d, %v", lo, hi, n, err)
			}
		})
	}
}
