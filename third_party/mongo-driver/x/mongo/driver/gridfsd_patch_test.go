package driver

import (
	"testing"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/x/mongo/driver/mnet"
)

// PATCHES.md item 3: a large buffer that carried a small message goes back
// to the pool.
func TestRecyclableHoweverOccupied(t *testing.T) {
	big := make([]byte, 100, 1<<20)
	if !recyclable(big) {
		t.Error("a 1 MiB buffer holding 100 bytes is not pooled again")
	}
	if recyclable(make([]byte, 0, 16<<20)) {
		t.Error("a 16 MiB buffer is pooled")
	}
}

type noCompression struct{ mnet.Compressor }

func (noCompression) NoCompression() bool { return true }

type compression struct{ mnet.Compressor }

// PATCHES.md item 2: a connection that negotiated no compressor is not asked
// to copy each message.
func TestCompresses(t *testing.T) {
	if compresses(noCompression{}) {
		t.Error("a connection without a compressor compresses")
	}
	if !compresses(compression{}) {
		t.Error("a compressor that does not tell compresses nothing")
	}
}
