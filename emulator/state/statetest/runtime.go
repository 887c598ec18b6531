package statetest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// RuntimeFactory returns two views of one new, empty set of runtime
// scenarios, as two replicas see a shared store (an in-memory
// implementation returns the same value twice).
type RuntimeFactory func(t *testing.T, lim scenarios.RuntimeLimits) (a, b state.RuntimeScenarios)

// RunRuntime runs the contract of state.RuntimeScenarios.
func RunRuntime(t *testing.T, newRuntime RuntimeFactory) {
	tests := []struct {
		name string
		fn   func(*testing.T, RuntimeFactory)
	}{
		{"AddListMatch", testRuntimeAdd},
		{"AllOrNothing", testRuntimeConflicts},
		{"Limits", testRuntimeLimits},
		{"TotalBytes", testRuntimeTotalBytes},
		{"AtTheTotalTheLargestGivesWay", testRuntimeLargestGivesWay},
		{"ATenantsShare", testRuntimeShare},
		{"DeleteReset", testRuntimeDelete},
		{"SeenByEveryReplica", testRuntimeShared},
		{"ConcurrentAdds", testRuntimeConcurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, newRuntime) })
	}
}

// doc is a runtime document with one frictionless scenario per id, each
// for its own card number.
func doc(ids ...string) []byte {
	var b strings.Builder
	b.WriteString("scenarios:\n")
	for _, id := range ids {
		fmt.Fprintf(&b, "  - id: %s\n    description: scenario %s\n    match: {cardPrefix: %q}\n    frictionless: {status: N, reason: \"05\"}\n", id, id, prefixOf(id))
	}
	return []byte(b.String())
}

// prefixOf is a card prefix of its own for an id.
func prefixOf(id string) string {
	n := 0
	for _, c := range id {
		n = n*31 + int(c)
	}
	return fmt.Sprintf("4%08d", uint32(n)%100000000)
}

func ids(list []scenarios.Scenario) string {
	var out []string
	for _, s := range list {
		out = append(out, s.ID)
	}
	return strings.Join(out, ",")
}

func testRuntimeAdd(t *testing.T, newRuntime RuntimeFactory) {
	rt, _ := newRuntime(t, scenarios.RuntimeLimits{})
	added, err := rt.Add(ctx, "ns", doc("b-first", "a-second"))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(added); got != "b-first,a-second" {
		t.Errorf("added %s", got)
	}
	if _, err := rt.Add(ctx, "ns", doc("c-third")); err != nil {
		t.Fatal(err)
	}
	list, err := rt.List(ctx, "ns")
	if err != nil || ids(list) != "b-first,a-second,c-third" {
		t.Errorf("List = %s, %v; want the order of addition", ids(list), err)
	}
	cat, err := rt.Catalogue(ctx, "ns")
	if err != nil || cat == nil {
		t.Fatalf("Catalogue: %v, %v", cat, err)
	}
	if s, ok := cat.ByID("a-second"); !ok || s.Frictionless == nil || s.Frictionless.Reason != "05" || s.Description != "scenario a-second" {
		t.Errorf("ByID(a-second) = %+v", s)
	}
	if s := cat.Match(scenarios.Request{CardNumber: prefixOf("c-third") + "0000000"}); s == nil || s.ID != "c-third" {
		t.Errorf("Match by prefix = %v", s)
	}
	if s := cat.Match(scenarios.Request{CardNumber: "5200000000009008"}); s != nil {
		t.Errorf("Match of another card = %s, want none (no fallback)", s.ID)
	}
	if other, err := rt.Catalogue(ctx, "other-ns"); err != nil || other != nil {
		t.Errorf("another namespace sees %v, %v", other, err)
	}
	var le *scenarios.LoadError
	if _, err := rt.Add(ctx, "ns", []byte("scenarios: [{id: x}]")); !errors.As(err, &le) {
		t.Errorf("invalid document: %v, want a *LoadError", err)
	}
}

func testRuntimeConflicts(t *testing.T, newRuntime RuntimeFactory) {
	rt, _ := newRuntime(t, scenarios.RuntimeLimits{})
	if _, err := rt.Add(ctx, "ns", doc("taken")); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Add(ctx, "ns", doc("new-one", "taken")); !errors.Is(err, scenarios.ErrExists) {
		t.Errorf("taken id: %v, want ErrExists", err)
	}
	same := []byte(fmt.Sprintf("scenarios:\n  - id: twin\n    match: {cardPrefix: %q}\n    challenge: {}\n", prefixOf("taken")))
	if _, err := rt.Add(ctx, "ns", same); !errors.Is(err, scenarios.ErrExists) {
		t.Errorf("taken selector: %v, want ErrExists", err)
	}
	if list, _ := rt.List(ctx, "ns"); ids(list) != "taken" {
		t.Errorf("a refused document added something: %s", ids(list))
	}
	// The same id in another namespace is fine.
	if _, err := rt.Add(ctx, "ns-2", doc("taken")); err != nil {
		t.Errorf("the id in another namespace: %v", err)
	}
}

func testRuntimeLimits(t *testing.T, newRuntime RuntimeFactory) {
	rt, _ := newRuntime(t, scenarios.RuntimeLimits{MaxScenarios: 3, MaxNamespaces: 2, MaxBytes: 2000})
	if _, err := rt.Add(ctx, "ns", doc("a", "b", "c")); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Add(ctx, "ns", doc("d")); !errors.Is(err, scenarios.ErrLimit) {
		t.Errorf("fourth scenario: %v, want ErrLimit", err)
	}
	if _, err := rt.Add(ctx, "ns-2", doc("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Add(ctx, "ns-3", doc("a")); !errors.Is(err, scenarios.ErrLimit) {
		t.Errorf("third namespace: %v, want ErrLimit", err)
	}
	var big []byte
	big = append(big, "scenarios:\n"...)
	for i := range 2 { // two descriptions of 1000 bytes: over 2000 in all
		big = fmt.Appendf(big, "  - id: big-%d\n    description: %q\n    match: {cardPrefix: \"49%d\"}\n    challenge: {}\n", i, strings.Repeat("x", 1000), i)
	}
	if _, err := rt.Add(ctx, "ns-2", big); !errors.Is(err, scenarios.ErrTooLarge) {
		t.Errorf("over the byte bound: %v, want ErrTooLarge", err)
	}
	// Deleting frees room again.
	if _, err := rt.Reset(ctx, "ns"); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Add(ctx, "ns-3", doc("a")); err != nil {
		t.Errorf("after a reset freed a namespace: %v", err)
	}
}

// testRuntimeShare: a hostile namespace adding until it is refused fills
// its own share only (its scenarios, its bytes): the bound in all holds
// several shares, and another namespace adds as before, on either
// replica.
func testRuntimeShare(t *testing.T, newRuntime RuntimeFactory) {
	a, b := newRuntime(t, scenarios.RuntimeLimits{MaxScenarios: 5, MaxBytes: 4000, MaxTotalBytes: 16000})
	refused := 0
	for i := range 20 {
		if _, err := a.Add(ctx, "hostile", doc(fmt.Sprintf("h%d", i))); err != nil {
			if !errors.Is(err, scenarios.ErrLimit) && !errors.Is(err, scenarios.ErrTooLarge) {
				t.Fatalf("hostile addition %d: %v", i, err)
			}
			refused++
		}
	}
	if refused != 15 {
		t.Errorf("%d of the hostile namespace's 20 additions refused, want the 15 beyond its share", refused)
	}
	if _, err := b.Add(ctx, "quiet", doc("q1", "q2", "q3", "q4", "q5")); err != nil {
		t.Errorf("a quiet namespace's full share beside a hostile one at its bound: %v", err)
	}
}

// testRuntimeTotalBytes: the bytes of every namespace together are bounded,
// and deleting or resetting anywhere frees room for every namespace.
func testRuntimeTotalBytes(t *testing.T, newRuntime RuntimeFactory) {
	one := len(doc("a")) // a namespace's document of one scenario is about this long
	a, b := newRuntime(t, scenarios.RuntimeLimits{MaxTotalBytes: 3*one + one/2})
	for _, ns := range []string{"ns-1", "ns-2", "ns-3"} {
		if _, err := a.Add(ctx, ns, doc("a")); err != nil {
			t.Fatalf("%s: %v", ns, err)
		}
	}
	_, err := b.Add(ctx, "ns-4", doc("a"))
	if !errors.Is(err, scenarios.ErrTooLarge) {
		t.Fatalf("a fourth namespace over the total: %v, want ErrTooLarge", err)
	}
	if !strings.Contains(err.Error(), "every token") {
		t.Errorf("the error does not say the limit is the sandbox's: %v", err)
	}
	if list, _ := b.List(ctx, "ns-4"); len(list) != 0 {
		t.Errorf("a refused document added something: %s", ids(list))
	}
	if ok, err := b.Delete(ctx, "ns-1", "a"); err != nil || !ok {
		t.Fatalf("delete: %v, %v", ok, err)
	}
	if _, err := a.Add(ctx, "ns-4", doc("a")); err != nil {
		t.Errorf("after a delete freed room: %v", err)
	}
	if _, err := a.Reset(ctx, "ns-2"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Add(ctx, "ns-5", doc("a")); err != nil {
		t.Errorf("after a reset freed room: %v", err)
	}
	if _, err := b.Add(ctx, "ns-6", doc("a")); !errors.Is(err, scenarios.ErrTooLarge) {
		t.Errorf("over the total again: %v, want ErrTooLarge", err)
	}
}

// testRuntimeLargestGivesWay: at the total of every namespace's bytes, a
// newcomer within its share is added, and only the namespace holding the
// most loses, its oldest first, and only while it holds more than the
// newcomer would; every replica stops matching what it lost.
func testRuntimeLargestGivesWay(t *testing.T, newRuntime RuntimeFactory) {
	one := len(doc("s1")) // every id below is two bytes: their documents are as long
	a, b := newRuntime(t, scenarios.RuntimeLimits{MaxTotalBytes: 8*one + one/2})
	for _, id := range []string{"b1", "b2", "b3", "b4", "b5"} {
		if _, err := a.Add(ctx, "big", doc(id)); err != nil {
			t.Fatalf("big %s: %v", id, err)
		}
	}
	for _, add := range []struct{ ns, id string }{{"small-1", "s1"}, {"small-2", "s2"}, {"small-3", "s3"}} {
		if _, err := a.Add(ctx, add.ns, doc(add.id)); err != nil {
			t.Fatalf("%s: %v", add.ns, err)
		}
	}
	if cat, err := b.Catalogue(ctx, "big"); err != nil || cat == nil { // the other replica keeps big's scenarios
		t.Fatalf("big's catalogue: %v, %v", cat, err)
	}
	if _, err := a.Add(ctx, "newcomer", doc("n1", "n2")); err != nil {
		t.Fatalf("a newcomer's two scenarios at the total: %v", err)
	}
	want := map[string]string{"big": "b3,b4,b5", "small-1": "s1", "small-2": "s2", "small-3": "s3", "newcomer": "n1,n2"}
	check := func(when string) {
		t.Helper()
		for ns, w := range want {
			if list, err := a.List(ctx, ns); err != nil || ids(list) != w {
				t.Errorf("%s: %s holds %s (%v), want %s", when, ns, ids(list), err, w)
			}
		}
	}
	check("after the newcomer")
	deadline := time.Now().Add(2 * time.Second)
	for {
		cat, err := b.Catalogue(ctx, "big")
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := cat.ByID("b1"); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a replica still matches the scenario big gave way 2 s later")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Big holds 3, the newcomer 2: a third would leave the newcomer
	// holding as much as big, so big does not give way for it.
	if _, err := a.Add(ctx, "newcomer", doc("n3")); !errors.Is(err, scenarios.ErrTooLarge) {
		t.Errorf("the newcomer's third, with no one holding more than it would: %v, want ErrTooLarge", err)
	}
	if _, err := b.Add(ctx, "big", doc("b6")); !errors.Is(err, scenarios.ErrTooLarge) {
		t.Errorf("a namespace holding the most adds at the total: %v, want ErrTooLarge", err)
	}
	check("after two refusals")
	if _, err := a.Add(ctx, "late", doc("l1", "l2", "l3", "l4")); !errors.Is(err, scenarios.ErrTooLarge) {
		t.Errorf("a newcomer that would hold more than anyone: %v, want ErrTooLarge", err)
	}
	check("after a refused newcomer")
}

func testRuntimeDelete(t *testing.T, newRuntime RuntimeFactory) {
	rt, _ := newRuntime(t, scenarios.RuntimeLimits{})
	if _, err := rt.Add(ctx, "ns", doc("one", "two", "three")); err != nil {
		t.Fatal(err)
	}
	if ok, err := rt.Delete(ctx, "ns", "two"); !ok || err != nil {
		t.Errorf("Delete(two) = %v, %v", ok, err)
	}
	if ok, err := rt.Delete(ctx, "ns", "two"); ok || err != nil {
		t.Errorf("Delete(two) again = %v, %v; want false", ok, err)
	}
	if list, _ := rt.List(ctx, "ns"); ids(list) != "one,three" {
		t.Errorf("after Delete: %s", ids(list))
	}
	// The deleted scenario's selector is free again.
	if _, err := rt.Add(ctx, "ns", doc("two")); err != nil {
		t.Errorf("re-adding a deleted scenario: %v", err)
	}
	n, err := rt.Reset(ctx, "ns")
	if n != 3 || err != nil {
		t.Errorf("Reset = %d, %v; want 3", n, err)
	}
	if cat, err := rt.Catalogue(ctx, "ns"); cat != nil || err != nil {
		t.Errorf("after Reset the namespace has %v, %v", cat, err)
	}
	if n, _ := rt.Reset(ctx, "ns"); n != 0 {
		t.Errorf("second Reset = %d", n)
	}
}

// testRuntimeShared: a change made through one replica is seen by the
// other within a second.
func testRuntimeShared(t *testing.T, newRuntime RuntimeFactory) {
	a, b := newRuntime(t, scenarios.RuntimeLimits{})
	if cat, err := b.Catalogue(ctx, "ns"); cat != nil || err != nil { // b caches "none"
		t.Fatalf("empty namespace: %v, %v", cat, err)
	}
	if _, err := a.Add(ctx, "ns", doc("shared")); err != nil {
		t.Fatal(err)
	}
	seen := func(want bool) {
		t.Helper()
		deadline := time.Now().Add(time.Second)
		for {
			cat, err := b.Catalogue(ctx, "ns")
			if err != nil {
				t.Fatal(err)
			}
			has := false
			if cat != nil {
				_, has = cat.ByID("shared")
			}
			if has == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the other replica still sees shared = %v after 1s", has)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	seen(true)
	if _, err := a.Delete(ctx, "ns", "shared"); err != nil {
		t.Fatal(err)
	}
	seen(false)
}

// testRuntimeConcurrent: adds from both replicas at once lose nothing, and
// of many adds of the same id exactly one wins.
func testRuntimeConcurrent(t *testing.T, newRuntime RuntimeFactory) {
	a, b := newRuntime(t, scenarios.RuntimeLimits{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 20 {
		rt := a
		if i%2 == 1 {
			rt = b
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := rt.Add(ctx, "ns", doc(fmt.Sprintf("own-%02d", i))); err != nil {
				t.Errorf("add own-%02d: %v", i, err)
			}
		}()
		go func() {
			defer wg.Done()
			_, err := rt.Add(ctx, "ns", doc("contested"))
			switch {
			case err == nil:
				mu.Lock()
				wins++
				mu.Unlock()
			case !errors.Is(err, scenarios.ErrExists):
				t.Errorf("contested add: %v", err)
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d adds of the same id won, want 1", wins)
	}
	list, err := a.List(ctx, "ns")
	if err != nil || len(list) != 21 {
		t.Errorf("List has %d scenarios (%v), want 21", len(list), err)
	}
}
