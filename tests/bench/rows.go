package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
	officialbson "go.mongodb.org/mongo-driver/v2/bson"
	officialevent "go.mongodb.org/mongo-driver/v2/event"
	officialmongo "go.mongodb.org/mongo-driver/v2/mongo"
	officialoptions "go.mongodb.org/mongo-driver/v2/mongo/options"
)

const bucketName = "bench"

func (b *bench) all(ctx context.Context) error {
	data := newPattern()
	gw, err := b.startGateway()
	if err != nil {
		return err
	}
	defer gw.stop()
	steps := []struct {
		name string
		fn   func(context.Context, *pattern, *gateway) error
	}{
		{"ceiling", b.storeCeiling},
		{"upload", b.upload},
		{"download", b.download},
		{"cli", b.commandLine},
		{"seek", b.seek},
		{"readers", b.concurrentReaders},
		{"concurrency", b.concurrency},
		{"s3", b.s3Rows},
		{"dav", b.davRows},
		{"tus", b.tusRows},
		{"store", b.storeAtScale},
		{"footprint", b.footprint},
		{"viewers", b.viewers},
		{"expiry", b.expirySweep},
		{"soak", b.soak},
	}
	for _, st := range steps {
		if !b.s.wants(st.name) || st.name == "soak" && !b.s.only["soak"] {
			continue
		}
		fmt.Fprintf(os.Stderr, "%s...\n", st.name)
		if err := st.fn(ctx, data, gw); err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
	}
	gw.stop()
	if !b.s.wants("memory") {
		return nil
	}
	fmt.Fprintf(os.Stderr, "memory...\n")
	return b.memory(ctx, data)
}

// fresh empties the bench bucket so that every run sees the same store:
// on the embedded store a query scans the whole collection. It then waits
// until the embedded store has finished with what the drop freed (see
// settle), so that a timed run does not pay for the run before it.
func (b *bench) fresh(ctx context.Context) (*buckets.Bucket, error) {
	d := buckets.NewDB(b.db)
	d.SetChunkCache(0) // the direct rows measure the store's path, as the gateways do (startServeEnv)
	if err := d.Drop(ctx, bucketName, true); err != nil && !isNotFound(err) {
		return nil, err
	}
	bk, err := d.Create(ctx, bucketName, buckets.Settings{})
	if err != nil {
		return nil, err
	}
	b.settle(ctx)
	return bk, nil
}

func isNotFound(err error) bool { return err != nil && errors.Is(err, buckets.ErrBucketNotFound) }

// storeCeiling measures the store with no GridFS logic: InsertMany of
// chunk-sized BinData documents, one batch at a time, and one find of them.
// The collection has the unique {files_id, n} index that every GridFS
// chunks collection must have, so the ceiling pays what GridFS must pay.
func (b *bench) storeCeiling(ctx context.Context, data *pattern, _ *gateway) error {
	size := b.s.size
	coll := b.db.Collection("ceiling")
	var reads []float64
	writeCPU, readCPU := b.meter(0), b.meter(0)
	writes, err := b.repeat(func(int) (float64, error) {
		coll.Drop(ctx)
		_, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{
			Keys:    bson.D{{Key: "files_id", Value: 1}, {Key: "n", Value: 1}},
			Options: options.Index().SetUnique(true),
		})
		if err != nil {
			return 0, err
		}
		buf := make([]byte, chunker.DefaultChunkSize)
		const perBatch = 4 // about 1 MiB, the chunker's default batch
		writeCPU.begin()
		start := time.Now()
		var n int32
		for off := int64(0); off < size; {
			docs := make([]any, 0, perBatch)
			for len(docs) < perBatch && off < size {
				c := buf[:min(int64(len(buf)), size-off)]
				data.fill(c, off)
				docs = append(docs, bson.D{{Key: "files_id", Value: 1}, {Key: "n", Value: n}, {Key: "data", Value: append([]byte(nil), c...)}})
				off += int64(len(c))
				n++
			}
			if _, err := coll.InsertMany(ctx, docs); err != nil {
				return 0, err
			}
		}
		w := mbps(size, time.Since(start))
		writeCPU.end(size)
		readCPU.begin()
		start = time.Now()
		cur, err := coll.Find(ctx, bson.D{})
		if err != nil {
			return 0, err
		}
		var got int64
		for cur.Next(ctx) {
			_, d := cur.Current.Lookup("data").Binary()
			got += int64(len(d))
		}
		if err := cur.Err(); err != nil {
			return 0, err
		}
		if got != size {
			return 0, fmt.Errorf("raw find read %d bytes, want %d", got, size)
		}
		reads = append(reads, mbps(size, time.Since(start)))
		readCPU.end(size)
		return w, nil
	})
	if err != nil {
		return err
	}
	coll.Drop(ctx)
	note := human(size) + ", 255 KiB documents, 4 per InsertMany, unique {files_id, n} index"
	b.add("store ceiling", "raw InsertMany", "MB/s", writes, note)
	b.addCPU("store ceiling", "raw InsertMany", writeCPU, cpuNoteSelf)
	b.add("store ceiling", "raw find", "MB/s", reads, note)
	b.addCPU("store ceiling", "raw find", readCPU, cpuNoteSelf)
	return nil
}

// interleaved runs rows --runs times each, one of every row per round, the
// order rotated from round to round, and returns each row's figures by
// round: a row's neighbours in time are the other rows of its round, so
// that a ratio taken round for round compares runs that met the same load
// (another process's build, the store's background checkpoint or vacuum),
// where rows run one after the other compare different minutes.
func (b *bench) interleaved(rows ...func(round int) (float64, error)) ([][]float64, error) {
	out := make([][]float64, len(rows))
	for round := 0; round < b.s.runs; round++ {
		for i := range rows {
			k := (i + round) % len(rows)
			v, err := rows[k](round)
			if err != nil {
				return nil, err
			}
			out[k] = append(out[k], v)
		}
	}
	return out, nil
}

// upload measures one large file's upload through chunker.Writer, the
// driver's UploadFromStream and an HTTP PUT, interleaved (see interleaved):
// each a fresh bucket, --throughput-size bytes.
func (b *bench) upload(ctx context.Context, data *pattern, gw *gateway) error {
	size := b.s.throughputSize
	note := human(size)
	writerCPU, driverCPU, gwCPU := b.meter(0), b.meter(0), b.meter(gw.cmd.Process.Pid)
	writer := func(int) (float64, error) {
		bk, err := b.fresh(ctx)
		if err != nil {
			return 0, err
		}
		writerCPU.begin()
		defer writerCPU.end(size)
		start := time.Now()
		w, err := chunker.NewWriter(ctx, bk.ChunksCollection(), bson.NewObjectID(), chunker.WriterOptions{})
		if err != nil {
			return 0, err
		}
		if _, err := w.ReadFrom(data.reader(size)); err != nil {
			return 0, err
		}
		if err := w.Close(); err != nil {
			return 0, err
		}
		return mbps(size, time.Since(start)), nil
	}
	driver := func(int) (float64, error) {
		if _, err := b.fresh(ctx); err != nil {
			return 0, err
		}
		gb := b.official.GridFSBucket(officialoptions.GridFSBucket().SetName(bucketName))
		driverCPU.begin()
		defer driverCPU.end(size)
		start := time.Now()
		if _, err := gb.UploadFromStream(ctx, "f", data.reader(size)); err != nil {
			return 0, err
		}
		return mbps(size, time.Since(start)), nil
	}
	put := func(int) (float64, error) {
		if _, err := b.fresh(ctx); err != nil {
			return 0, err
		}
		gwCPU.begin()
		defer gwCPU.end(size)
		start := time.Now()
		if err := gw.put(ctx, "/b/"+bucketName+"/f", data.reader(size), size); err != nil {
			return 0, err
		}
		return mbps(size, time.Since(start)), nil
	}
	runs, err := b.interleaved(writer, driver, put)
	if err != nil {
		return err
	}
	b.add("upload", "chunker.Writer (direct)", "MB/s", runs[0], note)
	b.addCPU("upload", "chunker.Writer (direct)", writerCPU, cpuNoteSelf)
	b.add("upload", "driver UploadFromStream", "MB/s", runs[1], note)
	b.addCPU("upload", "driver UploadFromStream", driverCPU, cpuNoteSelf)
	b.add("upload", "gateway HTTP PUT", "MB/s", runs[2], note)
	b.addCPU("upload", "gateway HTTP PUT", gwCPU, cpuNoteGateway)
	b.add("upload", "HTTP PUT / driver", "×", ratios(runs[2], runs[1]), "round for round, the rows interleaved")
	b.add("upload", "chunker.Writer / driver", "×", ratios(runs[0], runs[1]), "round for round, the rows interleaved")
	b.sha256CPU(data, size)
	return nil
}

// download measures one large file's download through the driver's
// DownloadToStream, chunker.Reader and an HTTP GET, interleaved (see
// interleaved), --throughput-size bytes.
func (b *bench) download(ctx context.Context, data *pattern, gw *gateway) error {
	size := b.s.throughputSize
	bk, err := b.fresh(ctx)
	if err != nil {
		return err
	}
	f, err := bk.Upload(ctx, "f", data.reader(size), buckets.UploadOptions{})
	if err != nil {
		return err
	}
	note := human(size)
	gb := b.official.GridFSBucket(officialoptions.GridFSBucket().SetName(bucketName))
	driverCPU, readerCPU, gwCPU := b.meter(0), b.meter(0), b.meter(gw.cmd.Process.Pid)
	driver := func(int) (float64, error) {
		driverCPU.begin()
		defer driverCPU.end(size)
		start := time.Now()
		n, err := gb.DownloadToStream(ctx, officialID(f.ID), io.Discard)
		if err != nil || n != size {
			return 0, fmt.Errorf("driver download: %d bytes, %v", n, err)
		}
		return mbps(size, time.Since(start)), nil
	}
	reader := func(int) (float64, error) {
		readerCPU.begin()
		defer readerCPU.end(size)
		start := time.Now()
		d, err := bk.OpenID(ctx, f.ID)
		if err != nil {
			return 0, err
		}
		n, err := io.Copy(io.Discard, d)
		d.Close()
		if err != nil || n != size {
			return 0, fmt.Errorf("chunker download: %d bytes, %v", n, err)
		}
		return mbps(size, time.Since(start)), nil
	}
	get := func(int) (float64, error) {
		gwCPU.begin()
		defer gwCPU.end(size)
		start := time.Now()
		n, err := gw.get(ctx, "/b/"+bucketName+"/f", "", io.Discard)
		if err != nil || n != size {
			return 0, fmt.Errorf("gateway download: %d bytes, %v", n, err)
		}
		return mbps(size, time.Since(start)), nil
	}
	runs, err := b.interleaved(driver, reader, get)
	if err != nil {
		return err
	}
	b.add("download", "driver DownloadToStream", "MB/s", runs[0], note)
	b.addCPU("download", "driver DownloadToStream", driverCPU, cpuNoteSelf)
	b.add("download", "chunker.Reader (direct)", "MB/s", runs[1], note)
	b.addCPU("download", "chunker.Reader (direct)", readerCPU, cpuNoteSelf)
	b.add("download", "gateway HTTP GET", "MB/s", runs[2], note)
	b.addCPU("download", "gateway HTTP GET", gwCPU, cpuNoteGateway)
	b.add("download", "HTTP GET / driver", "×", ratios(runs[2], runs[0]), "round for round, the rows interleaved")
	b.add("download", "chunker.Reader / driver", "×", ratios(runs[1], runs[0]), "round for round, the rows interleaved")
	return nil
}

// seek measures the time to the first byte of a 1 KiB range at offset 0 and
// at 99% of a large file.
func (b *bench) seek(ctx context.Context, data *pattern, gw *gateway) error {
	for _, size := range b.s.seekSizes {
		if err := b.seekIn(ctx, data, gw, size); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) seekIn(ctx context.Context, data *pattern, gw *gateway, size int64) error {
	bk, err := b.fresh(ctx)
	if err != nil {
		return err
	}
	// A media file has a content type; without one the gateway would read
	// chunk 0 as well, to sniff it.
	f, err := bk.Upload(ctx, "seek", data.reader(size), buckets.UploadOptions{ContentType: "video/webm"})
	if err != nil {
		return err
	}
	note := "1 KiB read"
	group := "seek " + human(size)
	far := size / 100 * 99
	for _, at := range []struct {
		label string
		off   int64
	}{{"at 0%", 0}, {"at 99%", far}} {
		label, off := at.label, at.off
		var fetched []float64
		runs, err := b.repeat(func(int) (float64, error) {
			before, err := gw.metric(storeReadMetric)
			if err != nil {
				return 0, err
			}
			start := time.Now()
			var first time.Duration
			buf := &firstByteWriter{start: start, first: &first}
			n, err := gw.get(ctx, "/b/"+bucketName+"/seek", fmt.Sprintf("bytes=%d-%d", off, off+1023), buf)
			if err != nil || n != 1024 {
				return 0, fmt.Errorf("gateway range: %d bytes, %v", n, err)
			}
			if bad := data.verify(buf.Bytes(), off); bad >= 0 {
				return 0, fmt.Errorf("gateway range: wrong byte at %d", bad)
			}
			got, err := gw.metricAbove(storeReadMetric, before)
			if err != nil {
				return 0, err
			}
			fetched = append(fetched, (got-before)/1024)
			return ms(first), nil
		})
		if err != nil {
			return err
		}
		b.add(group, "gateway GET Range "+label, "ms TTFB", runs, note)
		b.add(group, "gateway GET Range "+label+": from store", "KiB", fetched, "chunk bytes the gateway read for it")
	}
	// A client of its own, to count the chunk bytes the driver receives.
	var received atomic.Int64
	monitor := &officialevent.CommandMonitor{Succeeded: func(_ context.Context, e *officialevent.CommandSucceededEvent) {
		if e.CommandName == "find" || e.CommandName == "getMore" {
			received.Add(int64(len(e.Reply)))
		}
	}}
	client, err := officialmongo.Connect(officialoptions.Client().ApplyURI(b.s.uri).SetMonitor(monitor))
	if err != nil {
		return err
	}
	defer client.Disconnect(ctx)
	gb := client.Database(b.s.db).GridFSBucket(officialoptions.GridFSBucket().SetName(bucketName))
	var driverFetched []float64
	runs, err := b.repeat(func(int) (float64, error) {
		received.Store(0)
		defer func() { driverFetched = append(driverFetched, float64(received.Load())/1024) }()
		start := time.Now()
		ds, err := gb.OpenDownloadStream(ctx, officialID(f.ID))
		if err != nil {
			return 0, err
		}
		defer ds.Close()
		if _, err := ds.Skip(far); err != nil {
			return 0, err
		}
		buf := make([]byte, 1)
		if _, err := io.ReadFull(ds, buf); err != nil {
			return 0, err
		}
		return ms(time.Since(start)), nil
	})
	if err != nil {
		// Say so instead of stopping the benchmark: a store may refuse
		// the driver's unbounded batches (upstream FerretDB v1 answered
		// a getMore past the 48 MB message limit for files over about
		// 60 MB; the fork caps batches at 16 MiB as MongoDB does).
		fmt.Fprintf(os.Stderr, "  driver Skip failed: %v\n", err)
		b.add(group, "driver Skip+Read at 99%", "ms TTFB", nil, "FAILED: "+err.Error())
		return nil
	}
	b.add(group, "driver Skip+Read at 99%", "ms TTFB", runs, note)
	b.add(group, "driver Skip+Read at 99%: from store", "KiB", driverFetched, "find and getMore replies it received")
	return nil
}

type firstByteWriter struct {
	buf   bytes.Buffer
	start time.Time
	first *time.Duration
}

func (w *firstByteWriter) Write(p []byte) (int, error) {
	if *w.first == 0 && len(p) > 0 {
		*w.first = time.Since(w.start)
	}
	return w.buf.Write(p)
}

func (w *firstByteWriter) Bytes() []byte { return w.buf.Bytes() }

// officialID is a file's id for the official driver, whose ObjectID is a
// type of its own (gridfsd's packages use the fork's).
func officialID(id any) any {
	if oid, ok := id.(bson.ObjectID); ok {
		return officialbson.ObjectID(oid)
	}
	return id
}
