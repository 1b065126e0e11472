package embedded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FormatVersion is the layout of the data directory this build writes: the
// SQLite files, their pragmas and FerretDB's metadata as the fork keeps them.
// A change that an older build would misread (a new page layout it cannot
// open, metadata it does not know, a vacuum mode it would undo) raises it,
// with a note in third_party/ferretdb/PATCHES.md; an older build then
// refuses the directory instead of misreading it.
//
//	1: every release up to 613c51d (the stamp did not exist then; a
//	   directory without one that holds data is format 1)
//	2: binary data of top-level fields kept as bytes beside the document's
//	   text (FerretDB fork item 23); a format-1 build would misread it
const FormatVersion = 2

// FormatFile is the data directory's stamp: one line, "gridfsd-format N".
const FormatFile = "gridfsd-format"

const formatPrefix = "gridfsd-format "

// ErrNewerFormat means the data directory was written by a newer gridfsd,
// whose format this build does not know.
var ErrNewerFormat = errors.New("data directory written by a newer gridfsd")

// readFormat returns the format of the data directory dir and whether it
// is stamped: its stamp, 1 for a directory with data and no stamp (written
// before stamps existed), or FormatVersion for a new one. A stamp newer than
// FormatVersion is ErrNewerFormat with what to do.
func readFormat(dir string) (n int, stamped bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, FormatFile))
	if errors.Is(err, os.ErrNotExist) {
		old, err := filepath.Glob(filepath.Join(dir, "*.sqlite"))
		if err != nil {
			return 0, false, err
		}
		if len(old) > 0 {
			return 1, false, nil
		}
		return FormatVersion, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read %s: %w", FormatFile, err)
	}
	line := strings.TrimSpace(string(b))
	n, err = strconv.Atoi(strings.TrimPrefix(line, formatPrefix))
	if !strings.HasPrefix(line, formatPrefix) || err != nil || n < 1 {
		return 0, true, fmt.Errorf("%s in %s is %q, not %q: not a gridfsd data directory, or a damaged stamp", FormatFile, dir, line, formatPrefix+"N")
	}
	if n > FormatVersion {
		return n, true, fmt.Errorf("%w: %s has format %d, this gridfsd (format %d) cannot read it; run the gridfsd that wrote it, or a newer one", ErrNewerFormat, dir, n, FormatVersion)
	}
	return n, true, nil
}

// writeFormat stamps dir with FormatVersion, atomically: a crash leaves the
// old stamp or the new one.
func writeFormat(dir string) error {
	tmp, err := os.CreateTemp(dir, FormatFile+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", FormatFile, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := fmt.Fprintf(tmp, "%s%d\n", formatPrefix, FormatVersion); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", FormatFile, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", FormatFile, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", FormatFile, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, FormatFile)); err != nil {
		return fmt.Errorf("write %s: %w", FormatFile, err)
	}
	return nil
}
