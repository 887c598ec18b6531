//go:build unix

package testkit

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process used so far, user plus system.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
