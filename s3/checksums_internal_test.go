package s3

import (
	"hash/crc32"
	"hash/crc64"
	"math/rand/v2"
	"testing"
)

// crcCombine gives the CRC of a concatenation from its halves' CRCs, for
// every CRC that FULL_OBJECT checksums use, at lengths around the byte and
// power-of-two edges.
func TestCRCCombine(t *testing.T) {
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	rnd := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 255, 256, 1000, 65537} {
		a, b := make([]byte, rnd.IntN(300)), make([]byte, n)
		for i := range a {
			a[i] = byte(rnd.Uint32())
		}
		for i := range b {
			b[i] = byte(rnd.Uint32())
		}
		whole := append(append([]byte{}, a...), b...)
		if got, want := crcCombine(crc32IEEEPoly, 32, uint64(crc32.ChecksumIEEE(a)), uint64(crc32.ChecksumIEEE(b)), int64(n)), uint64(crc32.ChecksumIEEE(whole)); got != want {
			t.Errorf("crc32 %d+%d: %x, want %x", len(a), n, got, want)
		}
		if got, want := crcCombine(crc32CPoly, 32, uint64(crc32.Checksum(a, castagnoli)), uint64(crc32.Checksum(b, castagnoli)), int64(n)), uint64(crc32.Checksum(whole, castagnoli)); got != want {
			t.Errorf("crc32c %d+%d: %x, want %x", len(a), n, got, want)
		}
		if got, want := crcCombine(crc64NVMEPoly, 64, crc64.Checksum(a, crc64NVME), crc64.Checksum(b, crc64NVME), int64(n)), crc64.Checksum(whole, crc64NVME); got != want {
			t.Errorf("crc64nvme %d+%d: %x, want %x", len(a), n, got, want)
		}
	}
}
