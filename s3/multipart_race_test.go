package s3_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/s3"
)

// TestCompleteRacesAbort: a Complete and an Abort of one upload at once:
// exactly one of them wins. The Complete's mark and the Abort's removal
// were find-and-modify commands filtered on the mark, which the embedded
// store evaluates apart from the write (buckets/doc.go), so an Abort
// removed the parts of an upload a Complete held: the Complete failed with
// 503 ChunksLost, or both succeeded, or the Complete published an object
// whose chunks the Abort removed. Both now decide under the upload's
// lease.
func TestCompleteRacesAbort(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/race", "")
	outcomes := map[string]int{}
	defer func() { t.Logf("complete/abort: %v", outcomes) }()
	for round := 0; round < 150; round++ {
		key := fmt.Sprintf("/race/obj%d", round)
		id := between(e.must(200, "POST", key+"?uploads", "").body, "<UploadId>", "</UploadId>")
		content := strings.Repeat(fmt.Sprint(round%10), 300<<10)
		etag := e.must(200, "PUT", fmt.Sprintf("%s?partNumber=1&uploadId=%s", key, id), content).header.Get("ETag")
		var wg sync.WaitGroup
		var complete, abort reply
		wg.Add(2)
		go func() {
			defer wg.Done()
			complete = e.do("POST", key+"?uploadId="+id, "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"+etag+"</ETag></Part></CompleteMultipartUpload>")
		}()
		go func() {
			defer wg.Done()
			abort = e.do("DELETE", key+"?uploadId="+id, "")
		}()
		wg.Wait()
		get := getTolerant(t, e.url+key)
		outcomes[fmt.Sprint(complete.status, "/", abort.status)]++
		switch {
		case complete.status == 200 && abort.status == 204:
			t.Fatalf("round %d: both the Complete and the Abort succeeded; GET: %d, %d bytes", round, get.status, len(get.body))
		case complete.status == 200 && (get.status != 200 || get.body != content):
			t.Fatalf("round %d: Complete 200 (Abort %d), but GET is %d with %d of %d bytes %s", round, abort.status, get.status, len(get.body), len(content), get.body[max(0, len(get.body)-80):])
		case abort.status == 204 && get.status != 404:
			t.Fatalf("round %d: Abort 204 (Complete %d), but GET is %d", round, complete.status, get.status)
		case complete.status != 200 && complete.status != 404 && complete.status != 409:
			t.Fatalf("round %d: the Abort (%d) removed the upload while the Complete held it: Complete %d %s", round, abort.status, complete.status, between(complete.body, "<Message>", "</Message>"))
		}
	}
}

// TestSamePartSentTwiceAtOnce: an SDK that times out on an UploadPart
// sends it again while the first attempt still runs, with the
// x-amz-checksum-* header SDKs send by default. Each attempt recorded the
// part (the later one removing the earlier one's chunks) and then wrote
// its checksum into the record in a second update, which on the embedded
// store (updates are read-modify-write) could bring back the record the
// other attempt had replaced: the part named removed chunks and every
// Complete was 503 ChunksLost. The checksum is now written with the
// record.
func TestSamePartSentTwiceAtOnce(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/twice", "")
	sum := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return base64.StdEncoding.EncodeToString(h[:])
	}
	for round := 0; round < 150; round++ {
		key := fmt.Sprintf("/twice/obj%d", round)
		id := between(e.must(200, "POST", key+"?uploads", "", "x-amz-checksum-algorithm", "SHA256").body, "<UploadId>", "</UploadId>")
		content := strings.Repeat(fmt.Sprint(round%10), 300<<10)
		var wg sync.WaitGroup
		etags := make([]string, 2)
		for i := range etags {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := e.do("PUT", fmt.Sprintf("%s?partNumber=1&uploadId=%s", key, id), content, "x-amz-checksum-sha256", sum(content))
				if r.status == 200 {
					etags[i] = r.header.Get("ETag")
				}
			}()
		}
		wg.Wait()
		etag := etags[0] + etags[1]
		if etags[0] != "" {
			etag = etags[0]
		}
		r := e.do("POST", key+"?uploadId="+id, "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"+etag+"</ETag></Part></CompleteMultipartUpload>")
		if r.status != 200 {
			t.Fatalf("round %d: an UploadPart sent twice at once (answered %q), then Complete: %d %s", round, etags, r.status, between(r.body, "<Message>", "</Message>"))
		}
		if got := e.must(200, "GET", key, "").body; got != content {
			t.Fatalf("round %d: the object holds %d bytes, want %d", round, len(got), len(content))
		}
		attrs := e.must(200, "GET", key+"?attributes", "", "x-amz-object-attributes", "ObjectParts")
		if got := between(between(attrs.body, "<Part>", "</Part>"), "<ChecksumSHA256>", "</ChecksumSHA256>"); got != sum(content) {
			t.Fatalf("round %d: part 1's checksum is %s, its content's %s", round, got, sum(content))
		}
	}
}

// TestCompleteFinishesAfterTheClientLeaves: once the object is published,
// the door writes what makes it whole (s3Parts, the upload's tags, ACL and
// checksum). It wrote them on the request's context, so a client that gave
// up at that moment (an SDK's read timeout, after which it retries the
// Complete) left the object without its tags for good, and every retry of
// the Complete was 404 NoSuchUpload, for an object that exists.
func TestCompleteFinishesAfterTheClientLeaves(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/gone", "")
	ctx := context.Background()
	bkt, err := e.db.Bucket(ctx, "gone")
	if err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 3; round++ {
		key := fmt.Sprintf("obj%d", round)
		id := between(e.must(200, "POST", "/gone/"+key+"?uploads", "", "x-amz-tagging", "team=blue").body, "<UploadId>", "</UploadId>")
		etag := e.must(200, "PUT", fmt.Sprintf("/gone/%s?partNumber=1&uploadId=%s", key, id), "only part").header.Get("ETag")
		// Parts the Complete does not list: finishMultipart removes them
		// (this only gives the client's timeout a moment to land in).
		for n := 2; n < 6; n++ {
			e.must(200, "PUT", fmt.Sprintf("/gone/%s?partNumber=%d&uploadId=%s", key, n, id), strings.Repeat("u", 8<<20))
		}
		body := fmt.Sprintf("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>%s</ETag></Part></CompleteMultipartUpload>", etag)

		cctx, cancel := context.WithCancel(ctx)
		req, err := http.NewRequestWithContext(cctx, "POST", e.url+"/gone/"+key+"?uploadId="+id, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() {
			res, err := rawClient.Do(req)
			if err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			errc <- err
		}()
		// The client gives up the moment the object is published.
		for {
			if _, err := bkt.FindByName(ctx, key, -1); err == nil {
				break
			}
		}
		cancel()
		<-errc
		// The server finishes what it does after the client left: the
		// tags come, however loaded the machine (before, never).
		var tags string
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if tags = e.must(200, "GET", "/gone/"+key+"?tagging", "").body; strings.Contains(tags, "<Key>team</Key>") {
				break
			}
		}
		r := e.do("POST", "/gone/"+key+"?uploadId="+id, body)
		if !strings.Contains(tags, "<Key>team</Key>") || r.status != 200 {
			t.Fatalf("round %d: the object exists, but its tags are %s\nand the retried Complete is %d %s", round, between(tags, "<TagSet>", "</TagSet>"), r.status, between(r.body, "<Code>", "</Code>"))
		}
	}
}

// TestCompleteRetriedWhileItFinishes: SDKs retry a CompleteMultipartUpload
// that timed out, and the door answers the retry with the first
// Complete's result (FindCompleted): 409 OperationAborted while the first
// one runs, 200 once it is done. Between the removal of the upload record
// and the door's later write of the upload id into the files document, a
// retry found neither and was told 404 NoSuchUpload. The commit now writes
// the upload id, and a retry that finds the upload gone at any step looks
// for the file it made.
func TestCompleteRetriedWhileItFinishes(t *testing.T) {
	e := newEnv(t, s3.Config{})
	e.must(200, "PUT", "/rcx", "")
	big := strings.Repeat("p", 5<<20)
	for round := 0; round < 5; round++ {
		key := fmt.Sprintf("/rcx/obj%d", round)
		id := between(e.must(200, "POST", key+"?uploads", "").body, "<UploadId>", "</UploadId>")
		var list strings.Builder
		list.WriteString("<CompleteMultipartUpload>")
		for n, content := range []string{big, big, "tail"} {
			etag := e.must(200, "PUT", fmt.Sprintf("%s?partNumber=%d&uploadId=%s", key, n+1, id), content).header.Get("ETag")
			fmt.Fprintf(&list, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", n+1, etag)
		}
		list.WriteString("</CompleteMultipartUpload>")
		body := list.String()
		// Parts the Complete does not list, as a client that gave up on
		// some leaves them: finishMultipart removes them, which widens
		// the window to what a busy store makes of it.
		for n := 4; n < 8; n++ {
			e.must(200, "PUT", fmt.Sprintf("%s?partNumber=%d&uploadId=%s", key, n, id), strings.Repeat("u", 8<<20))
		}

		done := make(chan reply)
		go func() { done <- e.do("POST", key+"?uploadId="+id, body) }()
		// The retries start once that Complete holds the upload.
		bkt, err := e.db.Bucket(context.Background(), "rcx")
		if err != nil {
			t.Fatal(err)
		}
		for {
			mu, err := bkt.Multipart(context.Background(), id)
			if err != nil || mu.Completing != "" {
				break
			}
		}
		var first reply
		counts := map[int]int{}
		var bad []string
	retry:
		for {
			select {
			case first = <-done:
				break retry
			default:
			}
			r := e.do("POST", key+"?uploadId="+id, body)
			counts[r.status]++
			if r.status != 200 && r.status != 409 {
				bad = append(bad, fmt.Sprintf("%d %s", r.status, between(r.body, "<Code>", "</Code>")))
			}
		}
		t.Logf("round %d: first %d, retries %v", round, first.status, counts)
		if first.status != 200 {
			t.Fatalf("round %d: the Complete: %d %s", round, first.status, first.body)
		}
		if len(bad) > 0 {
			t.Fatalf("round %d: a retried Complete of an upload being completed was answered %v (want 409 while it runs, 200 after)", round, bad[:min(3, len(bad))])
		}
		// Once done, a retry is answered the first one's result: the
		// 404s above came from the window, not from a missing lookup.
		if r := e.do("POST", key+"?uploadId="+id, body); r.status != 200 {
			t.Fatalf("round %d: a Complete retried after the first finished: %d %s", round, r.status, r.body)
		}
	}
}

// getTolerant is a GET whose body may break off: a reply's status and the
// bytes that came, and the error of reading them in the body when any.
func getTolerant(t *testing.T, url string) reply {
	t.Helper()
	res, err := rawClient.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return reply{res.StatusCode, res.Header, string(b) + "\n(read error: " + err.Error() + ")"}
	}
	return reply{res.StatusCode, res.Header, string(b)}
}
