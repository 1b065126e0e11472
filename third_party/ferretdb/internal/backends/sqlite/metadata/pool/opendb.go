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
	"context"
	"database/sql"
	"log/slog"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/fsql"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/logging"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/state"
)

// openDB opens existing database or creates a new one.
//
// All valid FerretDB database names are valid SQLite database names / file names,
// so no validation is needed.
// One exception is very long full path names for the filesystem,
// but we don't check it.
func openDB(name, uri, file string, memory, autoVacuum bool, l *slog.Logger, sp *state.Provider) (*fsql.DB, error) {
	// gridfsd patch (PATCHES.md item 30): connections keep their write statements prepared
	connector, err := newStmtConnector(uri)
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	db := sql.OpenDB(connector)

	db.SetConnMaxIdleTime(0)
	db.SetConnMaxLifetime(0)
	db.SetMaxIdleConns(100)
	db.SetMaxOpenConns(100)

	// Each connection to in-memory database uses its own database.
	// See https://www.sqlite.org/inmemorydb.html.
	// We don't want that.
	if memory {
		db.SetMaxIdleConns(1)
		db.SetMaxOpenConns(1)
	}

	if err = db.Ping(); err != nil {
		_ = db.Close()
		return nil, lazyerrors.Error(err)
	}

	// gridfsd patch (PATCHES.md, "space given back"): a new database gets auto_vacuum=INCREMENTAL,
	// which SQLite changes only in a VACUUM once the page size has been written (a moment's work
	// while the database is empty).
	if !memory && autoVacuum {
		if err = setAutoVacuum(db); err != nil {
			_ = db.Close()
			return nil, lazyerrors.Error(err)
		}
	}

	// do it only once because version can't change
	if sp.Get().BackendVersion == "" {
		err := sp.Update(func(s *state.State) {
			s.BackendName = "SQLite"

			row := db.QueryRowContext(context.Background(), "SELECT sqlite_version()")
			if err := row.Scan(&s.BackendVersion); err != nil {
				l.Error("sqlite.metadata.pool.openDB: failed to query SQLite version", logging.Error(err))
			}
		})
		if err != nil {
			l.Error("sqlite.metadata.pool.openDB: failed to update state", logging.Error(err))
		}
	}

	fdb := fsql.WrapDB(db, name, l)

	// gridfsd patch (PATCHES.md item 51): writers do not wait for checkpoints
	if !memory {
		if err = fdb.StartCheckpoints(checkpointRestartBytes, file); err != nil {
			_ = fdb.Close()
			return nil, lazyerrors.Error(err)
		}
	}

	return fdb, nil
}

// checkpointRestartBytes is how long the write-ahead log grows before the background checkpoint
// lets it start over (PATCHES.md item 51): SQLite's default, 1,000 pages, at 32 KiB pages.
const checkpointRestartBytes = 32 << 20

// setAutoVacuum gives a new, empty database auto_vacuum=INCREMENTAL (gridfsd, PATCHES.md "space
// given back"); the pragma and the VACUUM that applies it must run on one connection.
func setAutoVacuum(db *sql.DB) error {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()

	var mode, tables int
	if err = conn.QueryRowContext(ctx, "PRAGMA auto_vacuum").Scan(&mode); err != nil {
		return err
	}
	if err = conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil {
		return err
	}
	if mode == 2 || tables > 0 {
		return nil
	}
	if _, err = conn.ExecContext(ctx, "PRAGMA auto_vacuum=INCREMENTAL"); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "VACUUM")
	return err
}
