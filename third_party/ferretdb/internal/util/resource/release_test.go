// gridfsd patch (PATCHES.md item 27, "leak tracking in debug builds only").

package resource

import (
	"runtime/pprof"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/debugbuild"
)

type tracked struct {
	token *Token
}

// In a release build, Track and Untrack cost nothing: no profile entry
// (a stack walk each), no finalizer, no allocation.
func TestReleaseBuildTracksNothing(t *testing.T) {
	if debugbuild.Enabled {
		t.Skip("a debug build tracks every object, as upstream")
	}
	obj := &tracked{token: NewToken()}
	allocs := testing.AllocsPerRun(1000, func() {
		Track(obj, obj.token)
		Untrack(obj, obj.token)
	})
	if allocs != 0 {
		t.Errorf("Track and Untrack allocate %.1f times", allocs)
	}
	Track(obj, obj.token)
	if p := pprof.Lookup(profileName(obj)); p != nil {
		t.Errorf("Track made profile %s with %d entries", p.Name(), p.Count())
	}
	Untrack(obj, obj.token)
}
