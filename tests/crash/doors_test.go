package crash

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/internal/proctest"
	"github.com/gridfsd/gridfsd/internal/storetest"
)

// acked is an upload the server acknowledged (201/200/204 with its last
// byte), and what it sent.
type acked struct {
	door, name string
	body       []byte
}

// doorUploads runs uploads through every door against srv until stop, and
// reports those acknowledged and those sent but not acknowledged.
func doorUploads(t *testing.T, srv *server, s3addr string, stop <-chan struct{}, round int) (ok []acked, tried []acked) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 30 * time.Second}
	record := func(a acked, done bool) {
		mu.Lock()
		defer mu.Unlock()
		tried = append(tried, a)
		if done {
			ok = append(ok, a)
		}
	}
	send := func(req *http.Request) (*http.Response, []byte, error) {
		res, err := client.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res, b, err
	}
	doors := map[string]func(name string, body []byte) bool{
		"http": func(name string, body []byte) bool {
			req, _ := http.NewRequest("PUT", "http://"+srv.addr+"/b/fs/"+name+"?chunkSize=65536", bytes.NewReader(body))
			res, _, err := send(req)
			return err == nil && res.StatusCode == 201
		},
		"webdav": func(name string, body []byte) bool {
			req, _ := http.NewRequest("PUT", "http://"+srv.addr+"/dav/fs/"+name, bytes.NewReader(body))
			res, _, err := send(req)
			return err == nil && (res.StatusCode == 201 || res.StatusCode == 204)
		},
		"tus": func(name string, body []byte) bool {
			req, _ := http.NewRequest("POST", "http://"+srv.addr+"/uploads/fs/", bytes.NewReader(body))
			req.Header.Set("Tus-Resumable", "1.0.0")
			req.Header.Set("Upload-Length", fmt.Sprint(len(body)))
			req.Header.Set("Upload-Metadata", "filename "+base64.StdEncoding.EncodeToString([]byte(name)))
			req.Header.Set("Content-Type", "application/offset+octet-stream")
			res, _, err := send(req)
			return err == nil && res.StatusCode == 201 && res.Header.Get("Upload-Offset") == fmt.Sprint(len(body))
		},
		"s3-multipart": func(name string, body []byte) bool {
			base := "http://" + s3addr + "/fs/" + name
			req, _ := http.NewRequest("POST", base+"?uploads", nil)
			res, b, err := send(req)
			if err != nil || res.StatusCode != 200 {
				return false
			}
			var init struct{ UploadId string }
			if xml.Unmarshal(b, &init) != nil {
				return false
			}
			var etags []string
			for i, part := range [][]byte{body[:5<<20], body[5<<20:]} {
				req, _ := http.NewRequest("PUT", fmt.Sprintf("%s?partNumber=%d&uploadId=%s", base, i+1, init.UploadId), bytes.NewReader(part))
				res, _, err := send(req)
				if err != nil || res.StatusCode != 200 {
					return false
				}
				etags = append(etags, res.Header.Get("ETag"))
			}
			var sb strings.Builder
			sb.WriteString("<CompleteMultipartUpload>")
			for i, e := range etags {
				fmt.Fprintf(&sb, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", i+1, e)
			}
			sb.WriteString("</CompleteMultipartUpload>")
			req, _ = http.NewRequest("POST", base+"?uploadId="+init.UploadId, strings.NewReader(sb.String()))
			res, b, err = send(req)
			return err == nil && res.StatusCode == 200 && bytes.Contains(b, []byte("CompleteMultipartUploadResult"))
		},
	}
	for door, up := range doors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				size := 100<<10 + rand.IntN(600<<10)
				if door == "s3-multipart" {
					size = 5<<20 + rand.IntN(1<<20)
				}
				name := fmt.Sprintf("r%d-%s-%d", round, door, i)
				body := content(size, byte(i+round))
				record(acked{door, name, body}, up(name, body))
			}
		}()
	}
	<-stop
	wg.Wait()
	return ok, tried
}

// TestKillDuringUploadsThroughEveryDoor: serve is killed (SIGKILL) at
// random moments while uploads stream through the HTTP API, S3 multipart,
// tus and WebDAV; after each restart every acknowledged file reads back
// byte for byte, every other upload is absent or whole, and once the
// sweepers have run (multipart, resumable, orphans) fsck finds nothing.
func TestKillDuringUploadsThroughEveryDoor(t *testing.T) {
	bin := proctest.BuildGridfsd(t, "")
	mdb := storetest.MustOpenDB(t)
	st := state{b: mustBucket(t, mdb.Name())}
	ctx := context.Background()
	var all, done []acked
	for round := range 4 {
		s3addr := freeAddr(t)
		srv := startServe(t, bin, mdb.Name(), "--s3-listen", s3addr)
		stop := make(chan struct{})
		var ok, tried []acked
		finished := make(chan struct{})
		go func() {
			ok, tried = doorUploads(t, srv, s3addr, stop, round)
			close(finished)
		}()
		time.Sleep(time.Duration(300+rand.IntN(1500)) * time.Millisecond)
		srv.kill(t) // mid-upload, some door or other
		close(stop)
		<-finished
		done, all = append(done, ok...), append(all, tried...)
	}
	doors := map[string]int{}
	for _, a := range done {
		doors[a.door]++
		st.mustRead(t, a.name, a.body)
	}
	ackedNames := map[string]bool{}
	for _, a := range done {
		ackedNames[a.name] = true
	}
	whole := 0
	for _, a := range all {
		if ackedNames[a.name] {
			continue
		}
		if n := st.filesNamed(t, a.name); n != 0 {
			st.mustRead(t, a.name, a.body) // committed before the kill, reply lost: whole
			whole++
		}
	}
	// What the dead uploads left: abandoned multipart and resumable
	// uploads, then the orphaned chunks, as the sweepers remove them.
	if _, err := st.b.SweepMultipart(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := st.b.SweepResumable(ctx); err != nil {
		t.Logf("resumable sweep: %v", err)
	}
	o, err := st.b.FindOrphans(ctx, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.b.RemoveOrphans(ctx, append(o.Old, o.Pending...)); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d uploads tried in 4 kills, %d acknowledged (%v), %d more committed whole just before a kill; every acknowledged one intact",
		len(all), len(done), doors, whole)
	for _, d := range []string{"http", "webdav", "tus", "s3-multipart"} {
		if doors[d] == 0 {
			t.Logf("no %s upload was acknowledged before the kills (a short round)", d)
		}
	}
	rep, err := st.b.Fsck(ctx, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Damaged) != 0 {
		t.Fatalf("fsck: %d damaged files", len(rep.Damaged))
	}
	pending := 0
	for _, x := range append(rep.Old, rep.Pending...) {
		pending += int(x.Chunks)
	}
	if pending != 0 {
		t.Errorf("%d orphaned chunks left after the sweeps (a resumable upload's chunks stay until it expires: %v)", pending, rep.Orphans)
	}
}
