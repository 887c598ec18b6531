package memstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/memstore"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

const runtimeDoc = `{"scenarios": [
  {"id": "force-challenge", "match": {"cardPrefix": "4"}, "challenge": {}},
  {"id": "exact", "match": {"cardNumber": "4000000000009003"}, "frictionless": {"status": "N", "reason": "05"}}
]}`

// match returns the runtime scenario of ns that wins for r; nil when none.
func match(t *testing.T, rt *memstore.Runtime, ns string, r scenarios.Request) *scenarios.Scenario {
	t.Helper()
	c, err := rt.Catalogue(context.Background(), ns)
	if err != nil {
		t.Fatal(err)
	}
	if c == nil {
		return nil
	}
	return c.Match(r)
}

func TestRuntimeAddMatchDelete(t *testing.T) {
	ctx := context.Background()
	rt := memstore.NewRuntime(scenarios.RuntimeLimits{})
	added, err := rt.Add(ctx, "team-a", []byte(runtimeDoc))
	if err != nil {
		t.Fatal(err)
	}
	if len(added) != 2 || added[0].Pack != scenarios.RuntimePack || added[0].Source.File != scenarios.RuntimeFile {
		t.Errorf("got added %+v, want 2 scenarios of pack %s from %s", added, scenarios.RuntimePack, scenarios.RuntimeFile)
	}
	tests := []struct {
		name string
		ns   string
		card string
		want string // "" for none
	}{
		{"exact card", "team-a", "4000000000009003", "exact"},
		{"prefix", "team-a", "4111111111111111", "force-challenge"},
		{"no runtime scenario matches", "team-a", "5200000000009008", ""},
		{"other namespace sees nothing", "team-b", "4000000000009003", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := match(t, rt, tt.ns, scenarios.Request{CardNumber: tt.card})
			if got := ""; s != nil {
				got = s.ID
				if got != tt.want {
					t.Errorf("got %s, want %q", got, tt.want)
				}
			} else if tt.want != "" {
				t.Errorf("got none, want %s", tt.want)
			}
		})
	}
	if list, _ := rt.List(ctx, "team-a"); len(list) != 2 {
		t.Errorf("got %d listed, want 2", len(list))
	}
	for i, want := range []bool{true, false} {
		if got, _ := rt.Delete(ctx, "team-a", "exact"); got != want {
			t.Errorf("Delete #%d = %v, want %v", i+1, got, want)
		}
	}
	if got, _ := rt.Delete(ctx, "team-b", "exact"); got {
		t.Error("Delete in another namespace = true")
	}
	if s := match(t, rt, "team-a", scenarios.Request{CardNumber: "4000000000009003"}); s == nil || s.ID != "force-challenge" {
		t.Errorf("after delete: got %v, want force-challenge", s)
	}
	for i, want := range []int{1, 0} {
		if got, _ := rt.Reset(ctx, "team-a"); got != want {
			t.Errorf("Reset #%d = %d, want %d", i+1, got, want)
		}
	}
}

func TestRuntimeAddRefuses(t *testing.T) {
	one := func(id, prefix string) string {
		return fmt.Sprintf(`{"scenarios": [{"id": %q, "match": {"cardPrefix": %q}, "frictionless": {"status": "Y"}}]}`, id, prefix)
	}
	tests := []struct {
		name    string
		limits  scenarios.RuntimeLimits
		setup   []string
		body    string
		wantErr error  // a sentinel, or nil for a *scenarios.LoadError
		reason  string // part of the error text
	}{
		{name: "not a document", body: "{", reason: "request body:"},
		{name: "fallback", body: `{"fallback": "a", "scenarios": [{"id": "a", "frictionless": {"status": "Y"}}]}`, reason: "runtime scenarios cannot set fallback"},
		{name: "no match", body: `{"scenarios": [{"id": "a", "frictionless": {"status": "Y"}}]}`, reason: `scenario "a" has no match`},
		{name: "unknown key", body: `{"scenarios": [{"id": "a", "match": {"cardPrefix": "4"}, "frictionles": {"status": "Y"}}]}`, reason: `unknown key "frictionles"`},
		{name: "duplicate in the body", body: `{"scenarios": [{"id": "a", "match": {"cardPrefix": "4"}, "frictionless": {"status": "Y"}}, {"id": "a", "match": {"cardPrefix": "5"}, "frictionless": {"status": "Y"}}]}`, reason: "duplicate id a"},
		{name: "id taken", setup: []string{one("a", "4")}, body: one("a", "5"), wantErr: scenarios.ErrExists, reason: "id a is taken"},
		{name: "same match", setup: []string{one("a", "4")}, body: one("b", "4"), wantErr: scenarios.ErrExists, reason: "same selectors and priority as a"},
		{name: "too many scenarios", limits: scenarios.RuntimeLimits{MaxScenarios: 1}, setup: []string{one("a", "4")}, body: one("b", "5"), wantErr: scenarios.ErrLimit, reason: "limit of 1"},
		{name: "too many namespaces", limits: scenarios.RuntimeLimits{MaxNamespaces: 1}, setup: []string{one("a", "4")}, body: one("b", "5"), wantErr: scenarios.ErrLimit, reason: "1 namespaces"},
		{name: "too many bytes", limits: scenarios.RuntimeLimits{MaxBytes: 10}, body: one("b", "5"), wantErr: scenarios.ErrTooLarge, reason: "limit of 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			rt := memstore.NewRuntime(tt.limits)
			for _, s := range tt.setup {
				if _, err := rt.Add(ctx, "first", []byte(s)); err != nil {
					t.Fatal(err)
				}
			}
			ns := "first"
			if tt.name == "too many namespaces" {
				ns = "second"
			}
			added, err := rt.Add(ctx, ns, []byte(tt.body))
			if added != nil || err == nil {
				t.Fatalf("got %v, %v, want an error", added, err)
			}
			var le *scenarios.LoadError
			switch {
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("got %v, want %v", err, tt.wantErr)
			case tt.wantErr == nil && !errors.As(err, &le):
				t.Errorf("got %T %v, want a *scenarios.LoadError", err, err)
			case !strings.Contains(err.Error(), tt.reason):
				t.Errorf("got %q, want it to contain %q", err, tt.reason)
			}
			if list, _ := rt.List(ctx, ns); ns == "second" && len(list) != 0 {
				t.Errorf("got %d scenarios after a refused add, want 0", len(list))
			}
		})
	}
}

func TestRuntimeYAMLAndPriority(t *testing.T) {
	rt := memstore.NewRuntime(scenarios.RuntimeLimits{})
	body := "scenarios:\n  - id: low\n    match: {cardPrefix: \"4\"}\n    frictionless: {status: Y}\n" +
		"  - id: high\n    priority: 10\n    match: {challengeInd: 4}\n    challenge: {}\n"
	if _, err := rt.Add(context.Background(), "ns", []byte(body)); err != nil {
		t.Fatal(err)
	}
	if s := match(t, rt, "ns", scenarios.Request{CardNumber: "4000000000009003", ChallengeInd: 4}); s == nil || s.ID != "high" {
		t.Errorf("got %v, want high (priority beats the card selector)", s)
	}
}

func TestRuntimeConcurrent(t *testing.T) {
	ctx := context.Background()
	rt := memstore.NewRuntime(scenarios.RuntimeLimits{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			ns := fmt.Sprintf("ns%d", i%2)
			for j := range 50 {
				id := fmt.Sprintf("s%d-%d", i, j)
				body := fmt.Sprintf(`{"scenarios": [{"id": %q, "match": {"cardNumber": "4000000000009003", "amount": "%d.%03d"}, "frictionless": {"status": "Y"}}]}`, id, i, j)
				if _, err := rt.Add(ctx, ns, []byte(body)); err != nil {
					t.Error(err)
					return
				}
				match(t, rt, ns, scenarios.Request{CardNumber: "4000000000009003", Amount: fmt.Sprintf("%d.%03d", i, j)})
				_, _ = rt.List(ctx, ns)
				if j%3 == 0 {
					_, _ = rt.Delete(ctx, ns, id)
				}
			}
		})
	}
	wg.Wait()
}

// FuzzRuntimeAdd checks that Runtime.Add never panics, that it adds either
// every scenario of a document or none, and that what it adds can be
// listed, found by id and deleted.
func FuzzRuntimeAdd(f *testing.F) {
	f.Add([]byte(runtimeDoc))
	f.Add([]byte(`{"scenarios": [{"id": "a", "match": {"amount": {"min": "1"}}, "steps": {"lookup": {"fault": {"kind": "malformed"}}}, "frictionless": {"status": "Y"}}]}`))
	f.Add([]byte(`{"fallback": "a", "scenarios": [{"id": "a", "frictionless": {"status": "Y"}}]}`))
	f.Add([]byte("scenarios:\n  - id: a\n    match: {currency: \"978\"}\n    error: {httpStatus: 503, errorCode: SC03, emvErrorCode: \"403\"}\n"))
	f.Add([]byte(`{"scenarios": []}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		rt := memstore.NewRuntime(scenarios.RuntimeLimits{})
		list := func() []scenarios.Scenario { l, _ := rt.List(ctx, "ns"); return l }
		added, err := rt.Add(ctx, "ns", data)
		if err != nil {
			var le *scenarios.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("got error %T %v, want a *LoadError on an empty runtime", err, err)
			}
			for _, p := range le.Problems {
				if p.File != scenarios.RuntimeFile || p.Reason == "" {
					t.Fatalf("got problem %+v, want one of %s with a reason", p, scenarios.RuntimeFile)
				}
			}
			if len(list()) != 0 {
				t.Fatal("a refused document added scenarios")
			}
			return
		}
		if got := len(list()); got != len(added) || got == 0 {
			t.Fatalf("listed %d scenarios, added %d", got, len(added))
		}
		for _, s := range added {
			if s.Match == (scenarios.Match{}) {
				t.Fatalf("added %s without match", s.ID)
			}
			if c, _ := rt.Catalogue(ctx, "ns"); c == nil {
				t.Fatal("no catalogue after an addition")
			} else if _, ok := c.ByID(s.ID); !ok {
				t.Fatalf("ByID(%s): not found", s.ID)
			}
		}
		if _, err := rt.Add(ctx, "ns", data); !errors.Is(err, scenarios.ErrExists) {
			t.Fatalf("adding the same document twice: got %v, want ErrExists", err)
		}
		if got, _ := rt.Reset(ctx, "ns"); got != len(added) {
			t.Fatalf("Reset: got %d, want %d", got, len(added))
		}
	})
}
