package s3

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSigV2SignsEverySubResourceTheRouterReads: a query parameter the
// router chooses an operation by (q.Has("...") anywhere in the package,
// and the unsupported list) must be among the sub-resources a Version 2
// signature covers, or a signed request for one operation could be sent
// as another. Parameters that are credentials or list options, not
// operations, are named here. subResources must stay sorted: Version 2
// lists them in that order.
func TestSigV2SignsEverySubResourceTheRouterReads(t *testing.T) {
	notOperations := []string{
		"AWSAccessKeyId", "Signature", // a Version 2 query credential
		"X-Amz-Credential",   // a Version 4 query credential
		"continuation-token", // a ListObjectsV2 page
	}
	if !slices.IsSorted(subResources) {
		t.Errorf("subResources is not sorted: %q", subResources)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	has := regexp.MustCompile(`\.Has\("([^"]+)"\)`)
	read := slices.Clone(unsupported)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range has.FindAllStringSubmatch(string(src), -1) {
			read = append(read, m[1])
		}
	}
	slices.Sort(read)
	read = slices.Compact(read)
	if !slices.Contains(read, "publicAccessBlock") {
		t.Fatalf("found none of the router's sub-resources in %v: %q", files, read)
	}
	for _, name := range read {
		if !slices.Contains(subResources, name) && !slices.Contains(notOperations, name) {
			t.Errorf("the router reads ?%s, which a Version 2 signature does not cover (add it to subResources)", name)
		}
	}
}
