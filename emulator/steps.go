package emulator

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// Step names a step of the flow that a scenario can delay or fault.
type Step string

// The steps of the flow.
const (
	StepLookup    Step = "lookup"
	StepChallenge Step = "challenge"
	StepEnquiry   Step = "enquiry"
)

// Fault is an injected failure that the transport must enact itself: drop
// the connection, or answer a body that is not JSON. Injected error
// answers come back as *Error instead.
type Fault struct {
	Kind     scenarios.FaultKind
	Step     Step
	Scenario string
}

func (f *Fault) Error() string {
	return fmt.Sprintf("injected %s fault at %s (scenario %s)", f.Kind, f.Step, f.Scenario)
}

// chance draws the random numbers of delays and fault probabilities from a
// seeded source, so a single-threaded run is reproducible.
type chance struct {
	mu sync.Mutex
	r  *rand.Rand
}

func newChance(seed uint64) *chance {
	return &chance{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// between returns a duration uniformly in [min, max].
func (c *chance) between(min, max time.Duration) time.Duration {
	if max <= min {
		return min
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return min + time.Duration(c.r.Int64N(int64(max-min)+1))
}

// fires reports whether an event of probability p happens (p <= 0 or
// p >= 1: always).
func (c *chance) fires(p float64) bool {
	if p <= 0 || p >= 1 {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.r.Float64() < p
}

// applyStep waits out the step's delay and then enacts its fault, if any.
// It returns nil when the step may go on.
func (e *Engine) applyStep(ctx context.Context, sc *scenarios.Scenario, step Step) error {
	var s scenarios.Step
	switch step {
	case StepLookup:
		s = sc.Steps.Lookup
		if s.Delay.IsZero() && sc.Delay > 0 {
			s.Delay = scenarios.Delay{Min: sc.Delay, Max: sc.Delay}
		}
	case StepChallenge:
		s = sc.Steps.Challenge
	case StepEnquiry:
		s = sc.Steps.Enquiry
	}
	if !s.Delay.IsZero() {
		if err := e.delay(ctx, e.chance.between(s.Delay.Min, s.Delay.Max)); err != nil {
			return fmt.Errorf("%s delay of scenario %s: %w", step, sc.ID, err)
		}
	}
	f := s.Fault
	if f == nil || !e.chance.fires(f.Probability) {
		return nil
	}
	switch f.Kind {
	case scenarios.FaultEMVError, scenarios.FaultHTTPError:
		if f.Error != nil {
			return scenarioError(f.Error)
		}
		return NewError(CodeInternal, "404", "injected failure", "")
	default:
		return &Fault{Kind: f.Kind, Step: step, Scenario: sc.ID}
	}
}

// delay sleeps for d in one of the bounded delay slots; with every slot
// taken it fails at once instead of piling up requests.
func (e *Engine) delay(ctx context.Context, d time.Duration) error {
	select {
	case e.delaySlots <- struct{}{}:
		defer func() { <-e.delaySlots }()
	default:
		return NewError(CodeBusy, "403",
			fmt.Sprintf("too many requests held in scenario delays (limit %d); try again", cap(e.delaySlots)), "")
	}
	return sleep(ctx, d)
}
