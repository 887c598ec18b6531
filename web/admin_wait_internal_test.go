package web

import (
	"fmt"
	"testing"
)

// TestWaitSlotsShare: with the defaults, 16 tokens each holding their 64
// waits fill the 1,024; a 17th token still gets its waits, each taking a
// slot of the token holding the most (whose wait is told), until all
// hold about as many; one token alone never holds more than its share.
func TestWaitSlotsShare(t *testing.T) {
	t.Parallel()
	w := newWaitSlots(0, 0)
	held := map[string][]*waitSlot{}
	for i := range 16 {
		ns := fmt.Sprint("tenant-", i)
		for range DefaultMaxWaitsPerToken {
			s, err := w.take(ns)
			if err != nil {
				t.Fatalf("%s: %v", ns, err)
			}
			held[ns] = append(held[ns], s)
		}
		if _, err := w.take(ns); err == nil {
			t.Fatalf("%s took more than its %d", ns, DefaultMaxWaitsPerToken)
		}
	}
	if w.open() != DefaultMaxWaits {
		t.Fatalf("%d open, want all %d", w.open(), DefaultMaxWaits)
	}
	var late []*waitSlot
	for i := range 60 {
		s, err := w.take("tenant-17")
		if err != nil {
			t.Fatalf("the 17th token's wait %d: %v", i, err)
		}
		late = append(late, s)
	}
	yielded := 0
	for _, slots := range held {
		for _, s := range slots {
			select {
			case <-s.yield:
				yielded++
			default:
			}
		}
	}
	if yielded != 60 || w.open() != DefaultMaxWaits {
		t.Errorf("%d waits told to yield, %d open; want 60 and %d", yielded, w.open(), DefaultMaxWaits)
	}
	for _, s := range late {
		w.release(s)
	}
	for _, slots := range held {
		for _, s := range slots {
			w.release(s) // a yielded slot is released once only
		}
	}
	if w.open() != 0 || len(w.by) != 0 {
		t.Errorf("after every release %d open, %d tokens", w.open(), len(w.by))
	}
	// A share configured above the total is cut to it: a newcomer still
	// takes a slot from the one token holding all.
	w = newWaitSlots(4, 100)
	for range 4 {
		if _, err := w.take("greedy"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.take("greedy"); err == nil {
		t.Error("one token took more than all the slots")
	}
	if _, err := w.take("newcomer"); err != nil {
		t.Errorf("a newcomer while one token holds every slot: %v", err)
	}
}
