package emulator

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
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
	Scenario string // the scenario's id, or "chaos"
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

// pick returns a uniformly chosen index below n.
func (c *chance) pick(n int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.r.IntN(n)
}

// Chaos injects faults into the API steps (lookup, enquiry, headless
// challenge) at random, for resilience testing of a whole integration.
// Its faults take the same path as a scenario's step faults. The browser
// pages are never touched.
type Chaos struct {
	probability float64
	faults      []scenarios.Fault
	chance      *chance
}

// chaosFaults are the faults chaos can inject, by the name --chaos-faults
// uses.
func chaosFaults() map[string]scenarios.Fault {
	emvFault := func(code, emvCode, component, msg string, status int) scenarios.Fault {
		return scenarios.Fault{Kind: scenarios.FaultEMVError, Error: &scenarios.ErrorResult{
			HTTPStatus: status, ErrorCode: code, EMVErrorCode: emvCode, Component: component, Message: "chaos: " + msg,
			Detail: "chaos",
		}}
	}
	return map[string]scenarios.Fault{
		"drop":      {Kind: scenarios.FaultDrop},
		"malformed": {Kind: scenarios.FaultMalformed},
		"http500":   emvFault(string(emv.CodeScenarioPermanent), emv.EMVPermanentFailure, emv.ComponentServer, "injected internal server error", 500),
		"emv402":    emvFault(string(emv.CodeScenarioTimeout), emv.EMVTimedOut, emv.ComponentServer, "injected transaction timeout", 0),
		"emv403":    emvFault(string(emv.CodeScenarioTransient), emv.EMVTransientFailure, emv.ComponentACS, "injected transient system failure", 0),
		"emv405":    emvFault(string(emv.CodeScenarioConnection), emv.EMVConnectionFailure, emv.ComponentDirectory, "injected system connection failure", 0),
	}
}

// ChaosKinds returns the fault kinds chaos can inject, sorted.
func ChaosKinds() []string {
	var out []string
	for k := range chaosFaults() {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// NewChaos checks the settings: a probability from 0 (off) to 1 and fault
// kinds from ChaosKinds (none: every kind). Draws are seeded.
func NewChaos(probability float64, kinds []string, seed uint64) (*Chaos, error) {
	if probability < 0 || probability > 1 {
		return nil, fmt.Errorf("[chaos] probability %v: want 0 to 1", probability)
	}
	all := chaosFaults()
	if len(kinds) == 0 {
		kinds = ChaosKinds()
	}
	c := &Chaos{probability: probability, chance: newChance(^seed)}
	for _, k := range kinds {
		f, ok := all[k]
		if !ok {
			return nil, fmt.Errorf("[chaos] fault kind %q: want one of %s", k, strings.Join(ChaosKinds(), ", "))
		}
		c.faults = append(c.faults, f)
	}
	return c, nil
}

// draw returns the fault to inject now, or nil.
func (c *Chaos) draw() *scenarios.Fault {
	if c == nil || c.probability == 0 || !c.chance.fires(c.probability) {
		return nil
	}
	f := c.faults[c.chance.pick(len(c.faults))]
	return &f
}

// apiCall tells applyStep whether a step was reached through the API
// (where chaos may strike) or by a browser.
type apiCall bool

const (
	viaAPI     apiCall = true
	viaBrowser apiCall = false
)

// applyStep waits out the step's delay and then enacts its fault, or a
// chaos fault on an API step, if any. sc may be nil (an enquiry of an
// unknown transaction). It returns nil when the step may go on.
func (e *Engine) applyStep(ctx context.Context, sc *scenarios.Scenario, step Step, via apiCall) error {
	var s scenarios.Step
	id := ""
	if sc != nil {
		id = sc.ID
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
	}
	if !s.Delay.IsZero() {
		if err := e.delay(ctx, e.chance.between(s.Delay.Min, s.Delay.Max)); err != nil {
			return fmt.Errorf("%s delay of scenario %s: %w", step, id, err)
		}
	}
	f := s.Fault
	if f != nil && !e.chance.fires(f.Probability) {
		f = nil
	}
	if f == nil && via == viaAPI {
		if f = e.cfg.Chaos.draw(); f != nil {
			id = "chaos"
		}
	}
	if f == nil {
		return nil
	}
	switch f.Kind {
	case scenarios.FaultEMVError, scenarios.FaultHTTPError:
		se := emv.NewError(emv.CodeInternal, emv.EMVPermanentFailure, "injected failure", string(step))
		if f.Error != nil {
			se = scenarioError(f.Error)
		}
		se.Scenario = id
		return se
	default:
		return &Fault{Kind: f.Kind, Step: step, Scenario: id}
	}
}

// delay sleeps for d in one of the bounded delay slots; with every slot
// taken it fails at once instead of piling up requests.
func (e *Engine) delay(ctx context.Context, d time.Duration) error {
	select {
	case e.delaySlots <- struct{}{}:
		defer func() { <-e.delaySlots }()
	default:
		return emv.NewError(emv.CodeBusy, emv.EMVTransientFailure,
			fmt.Sprintf("too many requests held in scenario delays (limit %d); try again", cap(e.delaySlots)), "delay")
	}
	return sleep(ctx, d)
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
