package fsql

import (
	"os"

	"golang.org/x/sys/unix"
)

const canWriteBehind = true

// start starts writing out the log's dirty pages, opening the log first when SQLite made it anew
// (it removes it when its last connection closes); it reports whether it did. A failure only
// leaves the writes to the synced commit.
func (w *writeBehind) start() bool {
	if w.f != nil {
		var open, named unix.Stat_t
		if unix.Fstat(int(w.f.Fd()), &open) != nil || unix.Stat(w.path, &named) != nil || open.Ino != named.Ino || open.Dev != named.Dev {
			_ = w.f.Close()
			w.f = nil
		}
	}

	if w.f == nil {
		f, err := os.Open(w.path)
		if err != nil {
			return false
		}

		w.f = f
	}

	return unix.SyncFileRange(int(w.f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE) == nil
}
