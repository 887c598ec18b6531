//go:build !linux

package wire

import "time"

// epoch is when the test binary started: threadCPU counts from it.
var epoch = time.Now()

// threadCPU is, where the thread's CPU time is not at hand, the time
// since the test binary started: a busy machine spoils it more easily.
func threadCPU() time.Duration { return time.Since(epoch) }
