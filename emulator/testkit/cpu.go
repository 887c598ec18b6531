package testkit

import (
	"testing"
	"time"
)

// ReportCPU runs fn, the measured loop of benchmark b, and reports the
// CPU time the whole process used meanwhile (user plus system, every
// thread: the garbage collector's too) per operation, as "cpu-ns/op".
// On a shared machine it moves less than ns/op, which counts the time
// other programs hold the cores; where the process's CPU time is not
// known it reports nothing.
func ReportCPU(b *testing.B, fn func()) {
	before, ok := processCPU()
	fn()
	after, _ := processCPU()
	if ok && b.N > 0 {
		b.ReportMetric(float64((after-before)/time.Nanosecond)/float64(b.N), "cpu-ns/op")
	}
}
