package testkit

import (
	"sync"
	"time"
)

// T0 is the time a Clock starts at unless told otherwise.
var T0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// Clock is a settable clock, safe for concurrent use: give its Now to what
// takes a clock, and move it with Advance.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock reading at.
func NewClock(at time.Time) *Clock { return &Clock{now: at} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
