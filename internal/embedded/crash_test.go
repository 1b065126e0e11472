package embedded

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
	_ "modernc.org/sqlite" // the database/sql driver the fork uses, to look at a killed store's file
)

// upgradePauseEnv is the fork's test knob (third_party/ferretdb/PATCHES.md,
// "crash-safe upgrade"): "<point>:<n>" blocks the index upgrade at that point
// of the n-th index it rebuilds, until the process is killed.
const upgradePauseEnv = "GRIDFSD_TEST_UPGRADE_PAUSE"

// newKeyMarker is in every index definition the upgrade writes (the fork's
// metadata.KeyIndexMarker) and in none upstream wrote.
const newKeyMarker = `->>'$."$s".p."`

// upgradeChildEnv makes the test binary a child that opens the data directory
// it names and reports how far it got.
const upgradeChildEnv = "GRIDFSD_TEST_UPGRADE_CHILD_DIR"

// childPageSizeEnv is the page size (Config.PageSize) the child opens its
// data directory with; unset, the default.
const childPageSizeEnv = "GRIDFSD_TEST_UPGRADE_CHILD_PAGE_SIZE"

func TestMain(m *testing.M) {
	if dir := os.Getenv(upgradeChildEnv); dir != "" {
		os.Exit(upgradeChild(dir))
	}
	os.Exit(m.Run())
}

// upgradeChild opens the store on dir; unless the upgrade knob blocks it on
// the way, it says so and stops.
func upgradeChild(dir string) int {
	size, _ := strconv.ParseInt(os.Getenv(childPageSizeEnv), 10, 64)
	s, err := Start(Config{DataDir: dir, PageSize: size})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gridfsd-upgrade-child:", err)
		return 1
	}
	s.Close()
	fmt.Fprintln(os.Stderr, "gridfsd-upgrade-done")
	return 0
}

// indexSQL returns the CREATE statement of every index in the SQLite file of
// dir, by index name. Opening the file after a kill recovers it as the next
// start would: the write-ahead log's uncommitted frames are dropped.
func indexSQL(t *testing.T, dir string) map[string]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "test.sqlite")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	indexes := map[string]string{}
	for rows.Next() {
		var name, stmt string
		if err := rows.Scan(&name, &stmt); err != nil {
			t.Fatal(err)
		}
		indexes[name] = stmt
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return indexes
}

// killDuringUpgrade runs a child on dir that blocks at the knob's point and
// kills it with SIGKILL there. It reports false when the child finished its
// upgrade without reaching the point.
func killDuringUpgrade(t *testing.T, dir, point string) bool {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), upgradeChildEnv+"="+dir, upgradePauseEnv+"="+point)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			switch {
			case !ok:
				if err := cmd.Wait(); err != nil {
					t.Fatalf("child at %s: %v", point, err)
				}
				t.Fatalf("child at %s: stopped without a word", point)
			case line == "gridfsd-upgrade-paused "+point:
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				for range lines {
				}
				cmd.Wait()
				return true
			case line == "gridfsd-upgrade-done":
				for range lines {
				}
				if err := cmd.Wait(); err != nil {
					t.Fatalf("child at %s: %v", point, err)
				}
				return false
			case strings.HasPrefix(line, "gridfsd-upgrade-child:"):
				t.Fatalf("child at %s: %s", point, line)
			}
		case <-timeout:
			cmd.Process.Kill()
			t.Fatalf("child at %s: no pause and no end after 60 s", point)
		}
	}
}

// TestUpgradeSurvivesKill kills the store with SIGKILL at every step of the
// index upgrade of a data directory written by the release before the fork:
// inside each index's transaction after its DROP, after its CREATE, and after
// its commit. At every kill point the file holds every index, with its old
// definition or its new one, never none; started again, the store reads every
// file back byte for byte and answers GridFS's queries through the new indexes.
// A second kill on the same directory, during the resumed upgrade, must not
// hurt either.
func TestUpgradeSurvivesKill(t *testing.T) {
	files := readManifest(t, "v1-release")
	before := indexSQL(t, copyFixture(t, "v1-release"))
	if len(before) == 0 {
		t.Fatal("fixture has no indexes")
	}

	checkIndexes := func(t *testing.T, dir, at string) (upgraded int) {
		t.Helper()
		after := indexSQL(t, dir)
		for name, old := range before {
			stmt, ok := after[name]
			switch {
			case !ok:
				t.Errorf("killed at %s: index %s is gone", at, name)
			case strings.Contains(stmt, newKeyMarker):
				upgraded++
			case stmt != old:
				t.Errorf("killed at %s: index %s is neither old nor new: %s", at, name, stmt)
			}
		}
		return upgraded
	}

	reopen := func(t *testing.T, dir string) {
		t.Helper()
		s, err := Start(Config{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// disconnected before the store closes, which otherwise waits for its clients
		c, err := mongo.Connect(options.Client().ApplyURI(s.URI()).SetServerSelectionTimeout(10 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Disconnect(context.Background())
		db := c.Database("test")
		checkFixtureFiles(t, db, files)
		for _, bucket := range []string{"fs", "media"} {
			for _, ff := range files {
				if ff.bucket == bucket {
					gridFSQueries(t, db, bucket, fileID(t, db, bucket, ff.name), ff.name)
					break
				}
			}
		}
		if got := checkIndexes(t, dir, "clean start"); got == 0 {
			t.Errorf("after a clean start no index is upgraded")
		}
	}

	kills := 0
	for n := 1; ; n++ {
		reached := false
		for _, step := range []string{"dropped", "created", "committed"} {
			point := fmt.Sprintf("%s:%d", step, n)
			dir := copyFixture(t, "v1-release")
			if !killDuringUpgrade(t, dir, point) {
				continue
			}
			reached = true
			kills++
			upgraded := checkIndexes(t, dir, point)
			// the kill inside a transaction leaves the n-1 committed indexes upgraded, after the commit n
			want := n - 1
			if step == "committed" {
				want = n
			}
			if upgraded != want {
				t.Errorf("killed at %s: %d indexes upgraded, want %d", point, upgraded, want)
			}
			if n == 2 {
				// kill the resumed upgrade too: its first index is the first one not yet upgraded
				if killDuringUpgrade(t, dir, "created:1") {
					checkIndexes(t, dir, point+" then created:1")
				}
			}
			reopen(t, dir)
		}
		if !reached {
			break
		}
	}
	if kills < 6 {
		t.Fatalf("only %d kill points reached; the fixture's upgrade rebuilds fewer indexes than expected", kills)
	}
	t.Logf("%d kill points", kills)
}

// fileID returns the _id of the newest file of the name in the bucket.
func fileID(t *testing.T, db *mongo.Database, bucket, name string) any {
	t.Helper()
	var doc struct {
		ID any `bson:"_id"`
	}
	opts := options.FindOne().SetSort(bson.D{{Key: "uploadDate", Value: -1}})
	if err := db.Collection(bucket+".files").FindOne(context.Background(), bson.D{{Key: "filename", Value: name}}, opts).Decode(&doc); err != nil {
		t.Fatalf("%s/%s: %v", bucket, name, err)
	}
	return doc.ID
}
