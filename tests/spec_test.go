package tests

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// specErrors names, for every case whose operation expects an error, the
// sentinel gridfsd must return. The unified tests only say isClientError;
// the legacy GridFS tests they replaced name the errors (FileNotFound,
// RevisionNotFound, ChunkIsMissing, ChunkIsWrongSize), and the by-name
// operations added later fail the way their by-id forms do.
var specErrors = map[string]error{
	"delete/delete when files entry does not exist":                               buckets.ErrFileNotFound,
	"delete/delete when files entry does not exist and there are orphaned chunks": buckets.ErrFileNotFound,
	"deleteByName/delete when file name does not exist":                           buckets.ErrFileNotFound,
	"download/download when files entry does not exist":                           buckets.ErrFileNotFound,
	"download/download when an intermediate chunk is missing":                     buckets.ErrChunkMissing,
	"download/download when final chunk is missing":                               buckets.ErrChunkMissing,
	"download/download when an intermediate chunk is the wrong size":              buckets.ErrChunkSize,
	"download/download when final chunk is the wrong size":                        buckets.ErrChunkSize,
	"downloadByName/downloadByName when files entry does not exist":               buckets.ErrFileNotFound,
	"downloadByName/downloadByName when revision does not exist":                  buckets.ErrRevisionNotFound,
	"rename/rename when file id does not exist":                                   buckets.ErrFileNotFound,
	"renameByName/rename when file name does not exist":                           buckets.ErrFileNotFound,
}

// specCases is the number of cases in testdata/gridfs-spec; a file that
// fails to load or a case that goes missing must not pass unnoticed.
const specCases = 39

// TestGridFSSpec runs the official GridFS tests (testdata/gridfs-spec) of
// the unified test format against package buckets.
func TestGridFSSpec(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "gridfs-spec", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	cases := 0
	used := map[string]bool{}
	for _, path := range paths {
		file := strings.TrimSuffix(filepath.Base(path), ".json")
		f, _, err := loadSpecFile(path)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		t.Run(file, func(t *testing.T) {
			for i, raw := range f.Tests {
				if err := checkKeys(raw, "description", "operations", "outcome"); err != nil {
					t.Errorf("tests[%d]: %v", i, err)
					continue
				}
				var c specCase
				if err := bson.Unmarshal(raw, &c); err != nil {
					t.Errorf("tests[%d]: %v", i, err)
					continue
				}
				cases++
				key := file + "/" + c.Description
				used[key] = true
				t.Run(c.Description, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
					defer cancel()
					if err := newRunner(t, ctx, specErrors[key]).run(f, c); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
	if cases != specCases {
		t.Errorf("ran %d cases, want %d", cases, specCases)
	}
	for key := range specErrors {
		if !used[key] {
			t.Errorf("specErrors names %q, which is not a case", key)
		}
	}
}
