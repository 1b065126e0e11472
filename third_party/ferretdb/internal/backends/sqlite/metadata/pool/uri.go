// Copyright 2021 FerretDB Inc.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package pool

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// parseURI checks given SQLite URI and returns a parsed form.
//
// URI should contain 'file' scheme and point to an existing directory.
// Path should end with '/'. Authority should be empty or absent.
//
// Returned URL contains path in both Path and Opaque to make String() method work correctly.
// Callers should use Path.
func parseURI(u string) (*url.URL, error) {
	uri, err := url.Parse(u)
	if err != nil {
		return nil, err
	}

	if uri.Scheme != "file" {
		return nil, fmt.Errorf(`expected "file:" schema, got %q`, uri.Scheme)
	}

	if uri.User != nil {
		return nil, fmt.Errorf(`expected empty user info, got %q`, uri.User)
	}

	if uri.Host != "" {
		return nil, fmt.Errorf(`expected empty host, got %q`, uri.Host)
	}

	if uri.Path == "" {
		uri.Path = uri.Opaque
	}
	uri.Opaque = uri.Path
	uri.RawPath = ""
	uri.OmitHost = true

	values := uri.Query()

	// it is deprecated and interacts weirdly with database/sql.Pool
	if values.Get("cache") == "shared" {
		return nil, fmt.Errorf(`shared cache is not supported`)
	}

	setDefaultValues(values)
	uri.RawQuery = values.Encode()

	if !strings.HasSuffix(uri.Path, "/") {
		return nil, fmt.Errorf(`expected path ending with "/", got %q`, uri.Path)
	}

	fi, err := os.Stat(uri.Path)
	if err != nil {
		return nil, fmt.Errorf(`%q should be an existing directory, got %s`, uri.Path, err)
	}

	if !fi.IsDir() {
		return nil, fmt.Errorf(`%q should be an existing directory`, uri.Path)
	}

	return uri, nil
}

// pageSize returns the page size the URI's pragmas give new databases.
func pageSize(values url.Values) int64 {
	for _, v := range values["_pragma"] {
		if n, ok := strings.CutPrefix(v, "page_size("); ok {
			if size, err := strconv.ParseInt(strings.TrimSuffix(n, ")"), 10, 64); err == nil {
				return size
			}
		}
	}
	return defaultPageSize
}

// defaultPageSize is the page size of new databases (gridfsd, PATCHES.md "32 KiB pages").
const defaultPageSize = 32768

// setDefaultValue sets default query parameters.
func setDefaultValues(values url.Values) {
	var busyTimeout, journalMode, pageSize, autoCheckpoint bool

	for _, v := range values["_pragma"] {
		if strings.HasPrefix(v, "busy_timeout") {
			busyTimeout = true
		}

		if strings.HasPrefix(v, "wal_autocheckpoint") {
			autoCheckpoint = true
		}

		if strings.HasPrefix(v, "journal_mode") {
			journalMode = true
		}

		if strings.HasPrefix(v, "page_size") {
			pageSize = true
		}
	}

	// keep it in sync with docs

	// the order is important: busy handler must be set before WAL is enabled

	if !busyTimeout {
		values.Add("_pragma", "busy_timeout(10000)")
	}

	// gridfsd: a new database gets 32 KiB pages. GridFS chunks are stored as 340 KiB rows, which
	// with 4 KiB pages spread over 85 overflow pages, each one a WAL frame of its own (two writes)
	// and a checkpoint write: 32 KiB pages write them in 11 (about 2% more space). A page size
	// only takes effect before the switch to WAL writes the database's first page; the SQLite
	// driver runs the _pragma list in lexicographic order (journal_mode before page_size) and
	// its _journal_mode key after the list, so WAL is asked for with the key.
	// An existing database gets it when it is converted (convert.go).
	if !pageSize {
		values.Add("_pragma", fmt.Sprintf("page_size(%d)", defaultPageSize))
	}

	if !journalMode && !values.Has("_journal_mode") {
		values.Set("_journal_mode", "wal")
	}

	// gridfsd patch (PATCHES.md item 51): the log is checkpointed in the background
	// (fsql.DB.StartCheckpoints); a writer checkpoints only when that falls behind by four times
	// what it lets the log grow to.
	if !autoCheckpoint {
		values.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", 4*checkpointRestartBytes/defaultPageSize))
	}

	// gridfsd patch (PATCHES.md, "space given back"): upstream added auto_vacuum(none) here; new
	// databases get auto_vacuum=INCREMENTAL from openDB instead, after their page size (the driver
	// runs an auto_vacuum pragma first, and setting it writes the database's first page with
	// SQLite's default page size), and databases written before are converted when the pool opens
	// them (convert.go).
}
