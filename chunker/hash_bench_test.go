package chunker

import (
	"fmt"
	"hash"
	"sync"
	"testing"

	"github.com/minio/sha256-simd"
)

// BenchmarkConcurrentSHA256 compares the hashes concurrent uploads could
// use: sha256-simd's single-stream hash (SHA-NI where the CPU has it) and
// its AVX-512 multi-buffer server, which hashes 16 streams at once.
//
//	go test ./chunker -run XXX -bench ConcurrentSHA256 -cpu 2
func BenchmarkConcurrentSHA256(b *testing.B) {
	block := make([]byte, DefaultChunkSize)
	for _, streams := range []int{1, 8, 16} {
		run := func(b *testing.B, newHash func() hash.Hash) {
			b.SetBytes(int64(streams * len(block)))
			for i := 0; i < b.N; i++ {
				var wg sync.WaitGroup
				for s := 0; s < streams; s++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						h := newHash()
						h.Write(block)
						h.Sum(nil)
					}()
				}
				wg.Wait()
			}
		}
		b.Run(fmt.Sprintf("streams=%d/single", streams), func(b *testing.B) { run(b, sha256.New) })
		b.Run(fmt.Sprintf("streams=%d/avx512-server", streams), func(b *testing.B) {
			srv := sha256.NewAvx512Server()
			run(b, func() hash.Hash { return sha256.NewAvx512(srv) })
		})
	}
}
