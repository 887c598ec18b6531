package redisstore

import "testing"

// BenchmarkRefName is what naming a reference in the index costs a
// lookup that carries one (and an enquiry by reference): an HMAC-SHA256
// from the pool and its hex, one allocation (the key).
func BenchmarkRefName(b *testing.B) {
	h := newRefHash([]byte("the benchmark's reference index key"))
	b.ReportAllocs()
	for b.Loop() {
		_ = h.key("3ds:r:", "3f2a9c1b7e4d8a60", "ORD-20240611-000123")
	}
}
