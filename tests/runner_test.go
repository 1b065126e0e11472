package tests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// The runner is only worth its 39 passes if it fails where it should: these
// tests check the matcher's rules and that broken expectations are caught.

func extValue(t *testing.T, s string) bson.RawValue {
	t.Helper()
	var doc bson.Raw
	if err := bson.UnmarshalExtJSON([]byte(`{"v": `+s+`}`), false, &doc); err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return doc.Lookup("v")
}

func TestMatcher(t *testing.T) {
	oid := `{"$oid": "000000000000000000000001"}`
	entities := map[string]any{"id0": extValue(t, oid)}
	tests := []struct {
		exp, act string
		root     bool
		ok       bool
	}{
		{`{"x": 1}`, `{"x": 1, "y": 1}`, true, true},
		{`{"x": 1}`, `{"x": 1, "y": 1}`, false, false},
		{`{"x": 1, "y": 1}`, `{"x": 1}`, true, false},
		{`{"x": {"y": 1}}`, `{"x": {"y": 1, "z": 1}}`, true, false},
		{`{"x": 1, "y": 2}`, `{"y": 2, "x": 1}`, false, true},
		{`[{"x": 1}]`, `[{"x": 1, "y": 2}]`, true, true},
		{`[{"x": 1}]`, `[{"x": 1}, {"x": 2}]`, true, false},
		{`{"n": 1}`, `{"n": {"$numberLong": "1"}}`, true, true},
		{`{"n": 1}`, `{"n": 1.0}`, true, true},
		{`{"n": 1}`, `{"n": "1"}`, true, false},
		{`{"d": {"$$type": "date"}}`, `{"d": {"$date": "1970-01-01T00:00:00Z"}}`, true, true},
		{`{"d": {"$$type": "date"}}`, `{"d": 0}`, true, false},
		{`{"d": {"$$type": "date"}}`, `{}`, true, false},
		{`{"n": {"$$type": ["int", "long"]}}`, `{"n": {"$numberLong": "5"}}`, true, true},
		{`{"md5": {"$$exists": false}}`, `{}`, true, true},
		{`{"md5": {"$$exists": false}}`, `{"md5": "x"}`, true, false},
		{`{"md5": {"$$exists": true}}`, `{"md5": null}`, true, true},
		{`{"md5": {"$$unsetOrMatches": "ab"}}`, `{}`, true, true},
		{`{"md5": {"$$unsetOrMatches": "ab"}}`, `{"md5": "ab"}`, true, true},
		{`{"md5": {"$$unsetOrMatches": "ab"}}`, `{"md5": "cd"}`, true, false},
		{`{"$$matchesHexBytes": "11aB"}`, `{"$binary": {"base64": "Eas=", "subType": "00"}}`, true, true},
		{`{"$$matchesHexBytes": "11ab"}`, `{"$binary": {"base64": "EQ==", "subType": "00"}}`, true, false},
		{`{"$$matchesHexBytes": ""}`, `{"$binary": {"base64": "", "subType": "00"}}`, true, true},
		{`{"$$matchesHexBytes": "1"}`, `{"$binary": {"base64": "", "subType": "00"}}`, true, false},
		{`{"_id": {"$$matchesEntity": "id0"}}`, `{"_id": ` + oid + `}`, true, true},
		{`{"_id": {"$$matchesEntity": "id0"}}`, `{"_id": {"$oid": "000000000000000000000002"}}`, true, false},
		{`{"_id": {"$$matchesEntity": "nope"}}`, `{"_id": ` + oid + `}`, true, false},
		{`{"data": {"$binary": {"base64": "EQ==", "subType": "00"}}}`, `{"data": {"$binary": {"base64": "EQ==", "subType": "02"}}}`, true, false},
		{`{"x": {"$$unknown": 1}}`, `{"x": 1}`, true, false},
	}
	for _, tt := range tests {
		m := &matcher{entities: entities}
		err := m.match("result", extValue(t, tt.exp), extValue(t, tt.act), tt.root)
		if (err == nil) != tt.ok {
			t.Errorf("match(%s, %s, root=%v) = %v, want ok=%v", tt.exp, tt.act, tt.root, err, tt.ok)
		}
	}
}

func TestSameValue(t *testing.T) {
	tests := []struct {
		exp, act string
		ok       bool
	}{
		{`{"a": 1, "b": {"c": "x"}}`, `{"b": {"c": "x"}, "a": 1}`, true},
		{`{"a": 1}`, `{"a": 1, "b": 2}`, false},
		{`{"a": 1}`, `{"a": {"$numberLong": "1"}}`, false},
		{`{"a": {}}`, `{"a": {"b": 1}}`, false},
		{`{"a": [1, 2]}`, `{"a": [2, 1]}`, false},
	}
	for _, tt := range tests {
		err := sameValue("doc", extValue(t, tt.exp), extValue(t, tt.act))
		if (err == nil) != tt.ok {
			t.Errorf("sameValue(%s, %s) = %v, want ok=%v", tt.exp, tt.act, err, tt.ok)
		}
	}
}

// TestRunnerCatchesFailures runs altered copies of spec cases: each
// alteration must make the runner report a failure.
func TestRunnerCatchesFailures(t *testing.T) {
	tests := []struct {
		name, file, description string
		old, new                string
		wantErr                 error
	}{
		{"wrong download bytes", "download", "download when there are two chunks",
			`"$$matchesHexBytes": "1122334455667788"`, `"$$matchesHexBytes": "1122334455667789"`, nil},
		{"wrong outcome", "rename", "rename by id",
			`"filename": "newfilename"`, `"filename": "otherfilename"`, nil},
		{"error expected from a good download", "download", "download when there is one chunk",
			`"expectResult": {
            "$$matchesHexBytes": "1122"
          }`, `"expectError": {"isClientError": true}`, buckets.ErrFileNotFound},
		{"other sentinel", "download", "download when final chunk is missing",
			`"name": "download"`, `"name": "download"`, buckets.ErrChunkSize},
		{"unknown argument", "upload", "upload when length is 1",
			`"filename": "filename",`, `"filename": "filename", "bogus": 1,`, nil},
		{"md5 present", "upload-disableMD5", "upload when length is 1 sans MD5",
			`"md5": {
                "$$exists": false
              }`, `"md5": {"$$exists": true}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "gridfs-spec", tt.file+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), tt.old) {
				t.Fatalf("%s.json does not contain %q", tt.file, tt.old)
			}
			path := filepath.Join(t.TempDir(), tt.file+".json")
			if err := os.WriteFile(path, []byte(strings.Replace(string(data), tt.old, tt.new, -1)), 0o600); err != nil {
				t.Fatal(err)
			}
			f, _, err := loadSpecFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, raw := range f.Tests {
				var c specCase
				if err := bson.Unmarshal(raw, &c); err != nil {
					t.Fatal(err)
				}
				if c.Description != tt.description {
					continue
				}
				found = true
				err := newRunner(t, context.Background(), tt.wantErr).run(f, c)
				if err == nil {
					t.Fatal("the runner passed an altered case")
				}
				t.Logf("caught: %v", err)
			}
			if !found {
				t.Fatalf("no case %q", tt.description)
			}
		})
	}
}
