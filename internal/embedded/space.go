package embedded

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// freelistTTL is how long the store reuses its count of the pages SQLite
// has freed: reading it opens no file but queries each database, and
// uploads ask for the free space every MiB.
const freelistTTL = time.Second

// space measures the room the store has left.
type space struct {
	dir     string
	ballast uint64 // Config.Ballast

	mu       sync.Mutex
	dbs      map[string]*sql.DB // read-only handles on the .sqlite files
	freelist uint64
	at       time.Time
}

// FreeBytes is the room the store has left for data: the free space of the
// data directory's file system (what an unprivileged process may use),
// plus the pages SQLite has freed inside its files, which it fills before
// it grows them. A delete frees pages at once; the file system gets them
// back only when the store vacuums. Pages freed in one database count for
// all (gridfsd uses one). Once the emergency reserve is released (the file
// system is all but full), freed pages no longer count: writing into them
// grows SQLite's log, and what room is left is for deletes.
func (s *Store) FreeBytes() (uint64, error) {
	fs, err := fsFree(s.space.dir)
	if err != nil {
		return 0, err
	}
	if s.space.ballast > 0 {
		if _, err := os.Stat(filepath.Join(s.space.dir, BallastFile)); err != nil {
			return fs, nil
		}
	}
	return fs + s.space.freePages(), nil
}

// freePages is the bytes of the pages on the freelists of the store's
// databases, as of at most freelistTTL ago; 0 when it cannot tell.
func (sp *space) freePages() uint64 {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if time.Since(sp.at) < freelistTTL {
		return sp.freelist
	}
	files, _ := filepath.Glob(filepath.Join(sp.dir, "*.sqlite"))
	var total uint64
	for _, f := range files {
		db, ok := sp.dbs[f]
		if !ok {
			// Read-only and without a pool of its own: it only reads
			// the header page, in the WAL's newest snapshot.
			var err error
			db, err = sql.Open("sqlite", "file:"+f+"?mode=ro&_pragma=busy_timeout(1000)")
			if err != nil {
				continue
			}
			db.SetMaxOpenConns(1)
			sp.dbs[f] = db
		}
		var pages, size uint64
		if db.QueryRow("PRAGMA freelist_count").Scan(&pages) != nil || db.QueryRow("PRAGMA page_size").Scan(&size) != nil {
			continue
		}
		total += pages * size
	}
	sp.freelist, sp.at = total, time.Now()
	return total
}

func (sp *space) close() {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for _, db := range sp.dbs {
		db.Close()
	}
	sp.dbs = nil
}

// BallastFile is the emergency reserve in the data directory: a file of
// Config.Ballast bytes that the store deletes when its file system is all
// but full, so that SQLite has room for the write-ahead log a delete needs
// (and for its shared-memory file at a restart), however the disk filled:
// gridfsd's own reserve (min-free-space) keeps uploads from doing it, but
// another program, logs or a MongoDB tool writing straight into the store
// may. It comes back once there is room again. Besides it, a quarter of its
// size stays allocated to each of SQLite's logs (keepLogRoom).
const BallastFile = "gridfsd-ballast"

// ballastInterval is how often the store looks at its file system.
const ballastInterval = 500 * time.Millisecond

// ballast keeps BallastFile.
type ballast struct {
	path string
	size int64
	log  interface {
		Warn(string, ...any)
		Info(string, ...any)
	}
}

// fsFree is the free space of dir's file system, for an unprivileged process.
func fsFree(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", dir, err)
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// check releases the ballast when the file system is all but full (less
// than half the ballast free) and makes it again when there is room for it
// twice over; first it keeps the logs' share of the reserve (keepLogRoom).
func (b *ballast) check(dir string) {
	b.keepLogRoom(dir)
	free, err := fsFree(dir)
	if err != nil {
		return
	}
	_, statErr := os.Stat(b.path)
	present := statErr == nil
	switch {
	case present && free < uint64(b.size)/2:
		if err := os.Remove(b.path); err == nil {
			b.keepLogRoom(dir) // out of the room just released, if it lacked any
			b.log.Warn("the data directory's disk is full: released the emergency reserve so that deletes keep working; delete files, or make room on the disk",
				"released_bytes", b.size, "file", b.path)
		}
	case !present && free > 2*uint64(b.size):
		if err := b.create(); err != nil {
			b.log.Warn("cannot create the emergency reserve", "file", b.path, "error", err)
			return
		}
		b.log.Info("emergency reserve in place", "bytes", b.size, "file", b.path)
	}
}

// create allocates the ballast's blocks (a sparse file would reserve
// nothing), through a temporary name so that a crash leaves no short one.
func (b *ballast) create() error {
	tmp := b.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := unix.Fallocate(int(f.Fd()), 0, 0, b.size); err != nil {
		// Not every file system allocates; zeros do everywhere.
		if _, err := f.Write(make([]byte, b.size)); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, b.path)
}

// keepLogRoom keeps a quarter of the ballast allocated to each write-ahead
// log of the store, past its end (fallocate's KEEP_SIZE: the log's length,
// and so what SQLite reads, stays as it is). Once the ballast is released,
// another program may take its room too and fill the disk to the last
// byte; SQLite writes every change, a delete too, to its log first, and a
// log that the vacuum emptied (fork item 19 truncates it) would have to
// grow to take one: the delete would fail. Room allocated to the log is no
// one else's: deletes still write there. The vacuum's truncation gives it
// back; it is taken again at the next check (ballastInterval). File
// systems that cannot allocate so keep nothing, as before.
func (b *ballast) keepLogRoom(dir string) {
	logs, _ := filepath.Glob(filepath.Join(dir, "*.sqlite-wal"))
	room := b.size / 4
	for _, path := range logs {
		var st unix.Stat_t
		if unix.Stat(path, &st) != nil || st.Blocks*512 >= room {
			continue
		}
		// Never created here: SQLite owns the log's life.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			continue
		}
		_ = unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE, 0, room)
		f.Close()
	}
}
