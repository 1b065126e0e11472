package pool

// gridfsd patch (PATCHES.md, "space given back"): databases written before it have
// auto_vacuum=NONE, which SQLite can only change by rewriting the whole file. convertAutoVacuum
// does that once, before the pool opens the database: a compact copy with auto_vacuum=INCREMENTAL
// is written beside it (VACUUM INTO) and renamed over it. A kill at any point leaves the old file
// whole (the copy is a separate file, removed at the next start) or the new one whole (rename is
// atomic, and the old file's write-ahead log is checkpointed and gone before it).

import (
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// convertingSuffix names the copy a conversion writes beside a database file. The pool's glob
// (*.sqlite) never matches it.
const convertingSuffix = ".converting"

// convertMargin is free space kept beyond the copy's size: the copy's own metadata and the
// write-ahead logs of the stores' first writes after it.
const convertMargin = 64 << 20

// ErrNoSpace means the disk has too little free space to convert a database.
var ErrNoSpace = errors.New("not enough free disk space")

// convertAutoVacuum gives the database file at path auto_vacuum=INCREMENTAL and pages of
// pageSize bytes, unless it has both (SQLite changes the page size of a database in WAL mode only
// in a copy, so an older database with 4 KiB pages gets the page size new ones have). A database it cannot convert for lack of disk space is logged and left as it is (it works as
// before, freed pages stay in the file); it is tried again at the next start.
func convertAutoVacuum(path string, pageSize int64, l *slog.Logger) error {
	tmp := path + convertingSuffix
	leftovers, err := filepath.Glob(tmp + "*")
	if err != nil {
		return err
	}
	for _, f := range leftovers {
		l.Info("Removing the copy of an interrupted conversion", slog.String("file", f))
		if err := os.Remove(f); err != nil {
			return err
		}
	}

	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)

	var mode, oldPageSize, pages, free int64
	for q, v := range map[string]*int64{
		"PRAGMA auto_vacuum": &mode, "PRAGMA page_size": &oldPageSize,
		"PRAGMA page_count": &pages, "PRAGMA freelist_count": &free,
	} {
		if err := db.QueryRow(q).Scan(v); err != nil {
			return fmt.Errorf("%s: %s: %w", path, q, err)
		}
	}
	if mode == 2 && oldPageSize == pageSize {
		return nil
	}
	need := (pages - free) * oldPageSize
	avail, err := diskFree(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("%s: %w", filepath.Dir(path), err)
	}
	// what the conversion is for (a database of incremental vacuum only changes its page size)
	state, why := "keeps freed space in its file (auto_vacuum=NONE)", fmt.Sprintf("to give freed space back (auto_vacuum=INCREMENTAL, %d-byte pages)", pageSize)
	if mode == 2 {
		state = fmt.Sprintf("has %d-byte pages, not the %d of the store's settings, and keeps them", oldPageSize, pageSize)
		why = fmt.Sprintf("from %d-byte to %d-byte pages", oldPageSize, pageSize)
	}
	if avail < need+convertMargin {
		l.Warn(fmt.Sprintf(
			"%s %s: converting it needs %s free on its disk, %s available; free some space and restart (docs/DEPLOYMENT.md)",
			path, state, bytesText(need+convertMargin), bytesText(avail)),
			slog.String("file", path), logErr(ErrNoSpace))
		return nil
	}

	start := time.Now()
	l.Info(fmt.Sprintf("Converting %s %s: copying %s, the old file is kept until the copy is complete", path, why, bytesText(need)),
		slog.String("file", path))

	done := make(chan struct{})
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		convertProgress(tmp, need, start, done, l)
	}()

	// a small page cache: the copy is written out as it goes, and a large store is converted
	// without holding much of it in memory
	_, err = db.Exec(fmt.Sprintf("PRAGMA page_size=%d", pageSize))
	if err == nil {
		_, err = db.Exec("PRAGMA cache_size=-2048")
	}
	if err == nil {
		_, err = db.Exec("PRAGMA auto_vacuum=INCREMENTAL")
	}
	if err == nil {
		_, err = db.Exec("VACUUM INTO ?", tmp)
	}
	close(done)
	<-progressDone
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: convert: %w", path, err)
	}
	convertPause("copied")

	if err := syncFile(tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: convert: %w", path, err)
	}

	// The old file's log must be empty and gone before the copy takes its name, or SQLite would
	// replay it onto the copy.
	if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: convert: checkpoint: %w", path, err)
	}
	if err := db.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: convert: %w", path, err)
	}
	for _, side := range []string{"-wal", "-shm", "-journal"} {
		fi, err := os.Stat(path + side)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil || fi.Size() > 0 && side != "-shm" {
			os.Remove(tmp)
			return fmt.Errorf("%s: convert: %s%s is left after closing the database (%v); not converted", path, path, side, err)
		}
		if err := os.Remove(path + side); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("%s: convert: %w", path, err)
		}
	}
	convertPause("closed")

	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: convert: %w", path, err)
	}
	convertPause("renamed")
	if err := syncFile(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%s: convert: %w", path, err)
	}

	l.Info(fmt.Sprintf("Converted %s in %s", path, time.Since(start).Round(time.Millisecond)),
		slog.String("file", path))

	return nil
}

// diskFree returns the bytes available to this process on the filesystem of dir; tests replace it.
var diskFree = func(dir string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// convertProgress logs how much of the copy is written, every 5 seconds, until done is closed.
func convertProgress(tmp string, total int64, start time.Time, done <-chan struct{}, l *slog.Logger) {
	every := 5 * time.Second
	if convertPauseAt("copying") {
		every = time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		fi, err := os.Stat(tmp)
		if err != nil {
			continue
		}
		if convertPauseAt("copying") && fi.Size() > 0 {
			convertPause("copying")
		}
		l.Info(fmt.Sprintf("Converting %s: %s of %s copied (%d%%) in %s", filepath.Base(tmp), bytesText(fi.Size()),
			bytesText(total), fi.Size()*100/max(total, 1), time.Since(start).Round(time.Second)))
	}
}

// syncFile flushes a file or a directory to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%d KiB", (n+1023)/1024)
	}
}

func logErr(err error) slog.Attr { return slog.String("error", err.Error()) }

// convertPauseEnv is a test knob (PATCHES.md, "space given back"): GRIDFSD_TEST_CONVERT_PAUSE=<point>
// stops the conversion at that point, prints "gridfsd-convert-paused <point>" to standard error and
// waits to be killed. At "copying" (the copy has begun and is not done) the whole process stops
// (SIGSTOP) so the copy cannot go on; at "copied", "closed" and "renamed" the conversion blocks.
const convertPauseEnv = "GRIDFSD_TEST_CONVERT_PAUSE"

func convertPauseAt(point string) bool {
	return os.Getenv(convertPauseEnv) == point
}

func convertPause(point string) {
	if !convertPauseAt(point) {
		return
	}
	fmt.Fprintln(os.Stderr, "gridfsd-convert-paused "+point)
	if point == "copying" {
		_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
	}
	for {
		time.Sleep(time.Hour)
	}
}
