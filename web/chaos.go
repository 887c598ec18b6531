package web

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// Chaos injects faults into any API request with a probability, for
// resilience testing of a merchant's integration. Off unless configured.
type Chaos struct {
	// Probability of a fault on each API request, 0 (off) to 1.
	Probability float64
	// Kinds are the faults to choose from, uniformly.
	Kinds []string

	mu sync.Mutex
	r  *rand.Rand
}

// ChaosKinds are the fault kinds chaos can inject.
var ChaosKinds = []string{"drop", "malformed", "http500", "emv403", "emv405", "emv402"}

// NewChaos checks the settings; kinds empty means every kind.
func NewChaos(probability float64, kinds []string, seed uint64) (*Chaos, error) {
	if probability < 0 || probability > 1 {
		return nil, fmt.Errorf("[chaos] probability %v: want 0 to 1", probability)
	}
	if len(kinds) == 0 {
		kinds = ChaosKinds
	}
	for _, k := range kinds {
		if !contains(ChaosKinds, k) {
			return nil, fmt.Errorf("[chaos] fault kind %q: want one of %s", k, strings.Join(ChaosKinds, ", "))
		}
	}
	return &Chaos{Probability: probability, Kinds: kinds, r: rand.New(rand.NewPCG(seed, ^seed))}, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// draw returns the fault to inject now, or "".
func (c *Chaos) draw() string {
	if c == nil || c.Probability == 0 {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.r.Float64() >= c.Probability {
		return ""
	}
	return c.Kinds[c.r.IntN(len(c.Kinds))]
}

// chaosError is the answer of each error kind.
func chaosError(kind string) error {
	switch kind {
	case "drop":
		return &emulator.Fault{Kind: scenarios.FaultDrop, Step: "any", Scenario: "chaos"}
	case "malformed":
		return &emulator.Fault{Kind: scenarios.FaultMalformed, Step: "any", Scenario: "chaos"}
	case "http500":
		e := emulator.NewError(emulator.CodeScenarioPermanent, "404", "chaos: injected internal server error", "")
		e.HTTPStatus = http.StatusInternalServerError
		return e
	case "emv402":
		return emulator.NewError(emulator.CodeScenarioTimeout, "402", "chaos: injected transaction timeout", "")
	case "emv405":
		e := emulator.NewError(emulator.CodeScenarioConnection, "405", "chaos: injected system connection failure", "")
		e.Component = emulator.ComponentDirectory
		return e
	default: // emv403
		e := emulator.NewError(emulator.CodeScenarioTransient, "403", "chaos: injected transient system failure", "")
		e.Component = emulator.ComponentACS
		return e
	}
}

// chaos fails API requests at random when configured.
func (s *Server) chaos(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if kind := s.cfg.Chaos.draw(); kind != "" {
			s.writeError(w, r, chaosError(kind))
			return
		}
		next.ServeHTTP(w, r)
	})
}
