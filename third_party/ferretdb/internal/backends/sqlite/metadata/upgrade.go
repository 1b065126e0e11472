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

// gridfsd patch (PATCHES.md, "index keys"): index definitions and their in-place upgrade.

package metadata

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/fsql"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
)

// createIndexStatement returns the CREATE INDEX statement of the index on the table.
func createIndexStatement(tableName string, index IndexInfo) string {
	q := "CREATE "

	if index.Unique {
		q += "UNIQUE "
	}

	columns := make([]string, len(index.Key))
	for i, key := range index.Key {
		columns[i] = indexColumn(key)
	}

	return q + fmt.Sprintf("INDEX %q ON %q (%s)", tableName+"_"+index.Name, tableName, strings.Join(columns, ", "))
}

// upgradeIndexes rebuilds, with the key expressions of KeyExpr, the indexes upstream FerretDB created
// with JSON text expressions in an existing database.
//
// Each index is dropped and created again in one transaction: SQLite's DDL is transactional, so a crash
// or kill during the upgrade leaves the old index (and the next start upgrades it again) or the new one,
// and the collection's rows are never touched. An index whose new definition fails (a unique index on
// values upstream kept apart and MongoDB does not, such as 1 and 1.0) keeps its old definition:
// queries stay correct, only slower.
//
// It does not hold the lock; it runs before the registry is shared.
func (r *Registry) upgradeIndexes(ctx context.Context, dbName string, db *fsql.DB) error {
	var upgraded int

	for _, c := range r.colls[dbName] {
		for _, index := range c.Settings.Indexes {
			want := createIndexStatement(c.TableName, index)
			if !strings.Contains(want, KeyIndexMarker) {
				continue
			}

			var have string
			q := `SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`

			err := db.QueryRowContext(ctx, q, c.TableName+"_"+index.Name).Scan(&have)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return lazyerrors.Error(err)
			}

			if strings.Contains(have, KeyIndexMarker) {
				continue
			}

			upgraded++
			r.notices.InfoContext(ctx, "Upgrading index to numeric keys", "db", dbName, "collection", c.Name, "index", index.Name)

			err = db.InTransaction(ctx, func(tx *fsql.Tx) error {
				if _, err := tx.ExecContext(ctx, fmt.Sprintf("DROP INDEX IF EXISTS %q", c.TableName+"_"+index.Name)); err != nil {
					return lazyerrors.Error(err)
				}

				upgradePause("dropped", upgraded)

				if _, err := tx.ExecContext(ctx, want); err != nil {
					return lazyerrors.Error(err)
				}

				upgradePause("created", upgraded)

				return nil
			})
			upgradePause("committed", upgraded)

			if err != nil {
				r.notices.WarnContext(
					ctx, "Index keeps its old definition", "db", dbName, "collection", c.Name, "index", index.Name,
					"error", err,
				)
			}
		}
	}

	return nil
}

// upgradePauseEnv names the test knob of the crash test (PATCHES.md, "crash-safe upgrade"): set to
// "<point>:<n>", it stops the upgrade of this run's n-th index at that point ("dropped": inside the
// transaction after DROP INDEX, "created": after CREATE INDEX and before the commit, "committed": after the
// commit), prints "gridfsd-upgrade-paused <point>:<n>" to standard error and blocks until the process is
// killed. Unset (always, outside that test), it costs one lookup per upgraded index.
const upgradePauseEnv = "GRIDFSD_TEST_UPGRADE_PAUSE"

// upgradePause blocks forever at the point upgradePauseEnv names.
func upgradePause(point string, n int) {
	at := fmt.Sprintf("%s:%d", point, n)
	if os.Getenv(upgradePauseEnv) != at {
		return
	}

	fmt.Fprintf(os.Stderr, "gridfsd-upgrade-paused %s\n", at)

	for {
		time.Sleep(time.Hour)
	}
}
