package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver of the embedded store, to account for its pages
)

// The targets of issue 29, printed beside the figures.
const (
	footprintGroup   = "embedded footprint"
	targetFootprint  = "target ≤ 1.05x"
	targetShrink     = "target ≤ 1.10x within 60 s, no restart"
	footprintTimeout = 60 * time.Second
)

// footprint measures what the embedded store takes on disk: gridfsd serve on a data directory of
// its own, files uploaded through the HTTP API, then serve stopped (which checkpoints SQLite's
// write-ahead log) and the directory's bytes compared with the bytes stored; then serve started
// again, every second file deleted, and the directory watched for up to 60 s as it shrinks
// towards what remains. Once for --footprint-large in files of --store-file (1 GiB of 256 MiB
// files) and once for --footprint-small files of 4-64 KiB (10,000).
func (b *bench) footprint(ctx context.Context, data *pattern, _ *gateway) error {
	if !b.s.embedded {
		fmt.Fprintln(os.Stderr, "  the footprint group measures the embedded store only: skipped with --uri")
		return nil
	}
	var large []int64
	for held := int64(0); held < b.s.footprintLarge; held += b.s.storeFile {
		large = append(large, min(b.s.storeFile, b.s.footprintLarge-held))
	}
	r := rand.New(rand.NewPCG(29, 1))
	small := make([]int64, b.s.footprintSmall)
	for i := range small {
		small[i] = 4<<10 + r.Int64N(60<<10+1)
	}
	if err := b.footprintOf(ctx, data, fmt.Sprintf("%s in %s files", human(b.s.footprintLarge), human(b.s.storeFile)), large, 1); err != nil {
		return err
	}
	return b.footprintOf(ctx, data, fmt.Sprintf("%d files of 4-64 KiB", len(small)), small, 4)
}

// footprintOf stores files of the sizes (clients at a time), measures the data directory, deletes
// every second file and watches the directory shrink.
func (b *bench) footprintOf(ctx context.Context, data *pattern, name string, sizes []int64, clients int) error {
	dir, err := os.MkdirTemp("", "gridfsd-bench-footprint-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	listen, err := freeAddr()
	if err != nil {
		return err
	}
	args := []string{"--data-dir", dir, "--embedded-listen", listen}

	gw, err := b.startServe(args...)
	if err != nil {
		return err
	}
	defer func() { gw.stop() }()
	fmt.Fprintf(os.Stderr, "  footprint: storing %s...\n", name)
	var stored int64
	for _, s := range sizes {
		stored += s
	}
	path := func(i int) string { return fmt.Sprintf("/b/footprint/f-%05d.bin", i) }
	_, errs, elapsed, _ := b.atLevel(gw, clients, len(sizes), func(i int) (int64, error) {
		return sizes[i], gw.put(ctx, path(i), data.reader(sizes[i]), sizes[i])
	})
	if errs > 0 {
		return fmt.Errorf("footprint: %d of %d uploads failed", errs, len(sizes))
	}
	fmt.Fprintf(os.Stderr, "  footprint: stored %s in %s (%.1f MB/s)\n", name, elapsed.Round(time.Millisecond), mbps(stored, elapsed))
	gw.stop()
	onDisk, err := dirBytes(dir)
	if err != nil {
		return err
	}
	b.add(footprintGroup, name+": bytes on disk / bytes stored", "x", []float64{float64(onDisk) / float64(stored)},
		fmt.Sprintf("%d bytes in the data directory for %d stored, serve stopped (log checkpointed), the reserve file left out; %s", onDisk, stored, targetFootprint))

	if err := b.pageAccounting(dir, name, stored); err != nil {
		return err
	}

	gw, err = b.startServe(args...)
	if err != nil {
		return err
	}
	var remain int64
	var del []int
	for i, s := range sizes {
		if i%2 == 0 {
			del = append(del, i)
		} else {
			remain += s
		}
	}
	fmt.Fprintf(os.Stderr, "  footprint: deleting %d files...\n", len(del))
	start := time.Now()
	_, errs, _, _ = b.atLevel(gw, clients, len(del), func(i int) (int64, error) {
		return 0, gw.do(ctx, http.MethodDelete, path(del[i]))
	})
	if errs > 0 {
		return fmt.Errorf("footprint: %d of %d deletes failed", errs, len(del))
	}
	deleted := time.Now()
	timeout := footprintTimeout
	if b.s.smoke {
		timeout = 2 * time.Second
	}
	// The vacuum apart from the format: the time until the directory holds at most 1.10x what
	// remains at the store's own ratio of bytes on disk to bytes stored.
	own := float64(onDisk) / float64(stored) * float64(remain)
	var now int64
	var ownTook time.Duration = -1
	for {
		if now, err = dirBytes(dir); err != nil {
			return err
		}
		if ownTook < 0 && float64(now) <= 1.10*own {
			ownTook = time.Since(deleted)
		}
		if float64(now) <= 1.10*float64(remain) || time.Since(deleted) > timeout {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	took := time.Since(deleted)
	when := fmt.Sprintf("after %.1f s", took.Seconds())
	if float64(now) > 1.10*float64(remain) {
		when = fmt.Sprintf("still over 1.10x %.0f s after", timeout.Seconds())
	}
	b.add(footprintGroup, name+": after deleting half, on disk / what remains", "x", []float64{float64(now) / float64(remain)},
		fmt.Sprintf("%d bytes for %d remaining, %s the deletes returned (they took %.1f s), serve running; %s",
			now, remain, when, deleted.Sub(start).Seconds(), targetShrink))
	b.add(footprintGroup, name+": time from the last delete to ≤ 1.10x", "s", []float64{took.Seconds()}, when)
	ownWhen := fmt.Sprintf("%.0f bytes: what remains at the store's own %.2fx", own, float64(onDisk)/float64(stored))
	if ownTook < 0 {
		ownTook = took
		ownWhen = "not reached; " + ownWhen
	}
	b.add(footprintGroup, name+": time from the last delete to ≤ 1.10x of what remains at the store's ratio", "s", []float64{ownTook.Seconds()}, ownWhen)
	return nil
}

// dirBytes is the apparent size of the files of a directory tree (du -sb), without the embedded
// store's emergency reserve file (gridfsd-ballast, a quarter of --min-free-space and at most 64 MiB:
// space kept free for deletes, not storage).
func dirBytes(dir string) (int64, error) {
	var n int64
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !fi.IsDir() && fi.Name() != "gridfsd-ballast" {
			n += fi.Size()
		}
		return nil
	})
	return n, err
}

// pageAccounting adds where the store's bytes on disk go, from SQLite's dbstat table over the
// databases of a stopped store's directory: the unused space of table leaf pages (the rows' local
// parts: a row keeps up to a page of itself there, the rest in whole overflow pages), of overflow
// pages, the pages of indexes, and the rest (payload, page headers, the freelist).
func (b *bench) pageAccounting(dir, name string, stored int64) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.sqlite"))
	if err != nil {
		return err
	}
	var leafUnused, overflowUnused, indexes, total int64
	for _, f := range files {
		db, err := sql.Open("sqlite", "file:"+f+"?mode=ro")
		if err != nil {
			return err
		}
		rows, err := db.Query(`SELECT d.pagetype, m.type, sum(d.pgsize), sum(d.unused)
			FROM dbstat d LEFT JOIN sqlite_schema m ON m.name = d.name GROUP BY 1, 2`)
		if err != nil {
			db.Close()
			return fmt.Errorf("dbstat of %s: %w", f, err)
		}
		for rows.Next() {
			var pageType, kind sql.NullString
			var size, unused int64
			if err := rows.Scan(&pageType, &kind, &size, &unused); err != nil {
				rows.Close()
				db.Close()
				return err
			}
			total += size
			switch {
			case kind.String == "index" || strings.HasPrefix(kind.String, "sqlite_autoindex"):
				indexes += size
			case pageType.String == "leaf":
				leafUnused += unused
			case pageType.String == "overflow":
				overflowUnused += unused
			}
		}
		err = rows.Err()
		rows.Close()
		db.Close()
		if err != nil {
			return err
		}
	}
	b.add(footprintGroup, name+": unused space in table leaf pages / bytes stored", "x", []float64{float64(leafUnused) / float64(stored)},
		fmt.Sprintf("dbstat of the stopped store: %d bytes in pages, of which %d unused in table leaf pages, %d unused in overflow pages, %d in index pages", total, leafUnused, overflowUnused, indexes))
	return nil
}
