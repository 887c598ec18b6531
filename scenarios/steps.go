package scenarios

// This file decodes the latency and fault injections of a scenario: the
// top-level delay (the lookup's) and the steps mapping.

import (
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

// Fault kinds in the order the error messages list them.
var faultKinds = []string{string(FaultEMVError), string(FaultHTTPError), string(FaultDrop), string(FaultMalformed)}

// whiteList codes.
var (
	whiteListStatuses = []string{"Y", "N", "E", "P", "R", "U"}
	whiteListSources  = []string{"01", "02", "03"}
)

// emvFaultDefaults are the errorCode and HTTP status an emvError fault
// gets when it names one of these EMV error codes and sets neither.
var emvFaultDefaults = map[string]struct {
	code   string
	status int
}{
	"402": {"SC02", 504},
	"403": {"SC03", 503},
	"404": {"SC04", 500},
	"405": {"SC05", 502},
}

// Defaults of an httpError fault.
const (
	httpFaultStatus  = 500
	httpFaultCode    = "SY01"
	httpFaultEMVCode = "404"
)

// parseInjections decodes the delay and steps keys of a scenario into s.
// The top-level delay is the lookup step's delay; setting both is refused.
func (d *decoder) parseInjections(m mapping, s *Scenario) {
	if m.has("steps") {
		s.Steps = d.parseSteps(m.values["steps"])
	}
	v, ok := m.values["delay"]
	if !ok {
		return
	}
	if !s.Steps.Lookup.Delay.IsZero() {
		d.problemf(m.keys["delay"], "delay and steps.lookup.delay are both set: keep one")
		return
	}
	delay, ok := d.parseDelay(v, "delay")
	if !ok {
		return
	}
	s.Steps.Lookup.Delay = delay
	if delay.Min == delay.Max {
		s.Delay = delay.Max
	}
}

// parseDelay decodes a fixed delay ("2s") or a random one ({min, max}),
// each within 0s-MaxDelay.
func (d *decoder) parseDelay(n *yaml.Node, key string) (Delay, bool) {
	if n.Kind != yaml.MappingNode {
		v, ok := d.durationNode(n, key, MaxDelay)
		return Delay{Min: v, Max: v}, ok
	}
	m, ok := d.mapping(n, key, delayKeys)
	if !ok {
		return Delay{}, false
	}
	var out Delay
	good := d.required(m, "min", key)
	good = d.required(m, "max", key) && good
	if !good {
		return Delay{}, false
	}
	out.Min, ok = d.duration(m, "min", MaxDelay)
	good = good && ok
	out.Max, ok = d.duration(m, "max", MaxDelay)
	if !good || !ok {
		return Delay{}, false
	}
	if out.Min > out.Max {
		d.problemf(m.node, "%s min %s is above max %s", key, out.Min, out.Max)
		return Delay{}, false
	}
	return out, true
}

// durationNode decodes a scalar node as a duration in [0, hi].
func (d *decoder) durationNode(n *yaml.Node, key string, hi time.Duration) (time.Duration, bool) {
	m := mapping{values: map[string]*yaml.Node{key: n}}
	return d.duration(m, key, hi)
}

// parseSteps decodes the steps mapping.
func (d *decoder) parseSteps(n *yaml.Node) Steps {
	var out Steps
	m, ok := d.mapping(n, "steps", stepsKeys)
	if !ok {
		return out
	}
	if len(m.values) == 0 {
		d.problemf(m.node, "steps is empty: set lookup, challenge or enquiry, or leave steps out")
	}
	for _, st := range []struct {
		key string
		dst *Step
	}{{"lookup", &out.Lookup}, {"challenge", &out.Challenge}, {"enquiry", &out.Enquiry}} {
		if v, ok := m.values[st.key]; ok {
			*st.dst = d.parseStep(v, "steps."+st.key)
		}
	}
	return out
}

// parseStep decodes the delay and fault of one step; what names the step.
func (d *decoder) parseStep(n *yaml.Node, what string) Step {
	var out Step
	m, ok := d.mapping(n, what, stepKeys)
	if !ok {
		return out
	}
	if len(m.values) == 0 {
		d.problemf(m.node, "%s is empty: set delay, fault or both", what)
	}
	if v, ok := m.values["delay"]; ok {
		out.Delay, _ = d.parseDelay(v, "delay")
	}
	if v, ok := m.values["fault"]; ok {
		out.Fault = d.parseFault(v, what+".fault")
	}
	return out
}

// parseFault decodes an injected fault and fills in its defaults.
func (d *decoder) parseFault(n *yaml.Node, what string) *Fault {
	m, ok := d.mapping(n, what, faultKeys)
	if !ok {
		return nil
	}
	if !d.required(m, "kind", what) {
		return nil
	}
	kind, ok := d.oneOf(m, "kind", faultKinds)
	if !ok {
		return nil
	}
	f := &Fault{Kind: FaultKind(kind), Probability: 1}
	if v, ok := m.values["probability"]; ok {
		p, err := strconv.ParseFloat(v.Value, 64)
		if v.Kind != yaml.ScalarNode || (v.ShortTag() != "!!float" && v.ShortTag() != "!!int") || err != nil || !(p > 0 && p <= 1) {
			d.problemf(v, "probability must be a number above 0 and at most 1, got %s", describe(v))
		} else {
			f.Probability = p
		}
	}
	switch f.Kind {
	case FaultDrop, FaultMalformed:
		for _, k := range faultKeys[2:] {
			if m.has(k) {
				d.problemf(m.keys[k], "a %s fault sends no error body: remove %s", f.Kind, k)
			}
		}
	case FaultEMVError:
		f.Error = d.parseFaultError(m, what, false)
	case FaultHTTPError:
		f.Error = d.parseFaultError(m, what, true)
	}
	return f
}

// parseFaultError decodes the error body of an emvError or httpError fault
// (the keys of an error result) and fills in the defaults of its kind.
func (d *decoder) parseFaultError(m mapping, what string, http bool) *ErrorResult {
	e := &ErrorResult{Status: "U", Component: "S"}
	if http {
		e.HTTPStatus, e.ErrorCode, e.EMVErrorCode = httpFaultStatus, httpFaultCode, httpFaultEMVCode
		if m.has("httpStatus") {
			e.HTTPStatus, _ = d.integer(m, "httpStatus", 500, 599)
		}
	} else if d.required(m, "emvErrorCode", what) {
		if m.has("httpStatus") {
			e.HTTPStatus, _ = d.integer(m, "httpStatus", 400, 599)
		}
	}
	if m.has("emvErrorCode") {
		e.EMVErrorCode, _ = d.pattern(m, "emvErrorCode", threeDigits, "3 digits")
	}
	if m.has("errorCode") {
		e.ErrorCode, _ = d.pattern(m, "errorCode", errorCodePattern, "4 characters of A-Z and 0-9")
	}
	if !http && e.EMVErrorCode != "" {
		def, known := emvFaultDefaults[e.EMVErrorCode]
		if e.ErrorCode == "" && !m.has("errorCode") {
			e.ErrorCode = def.code
		}
		if e.HTTPStatus == 0 && !m.has("httpStatus") {
			e.HTTPStatus = def.status
		}
		if !known {
			for _, k := range []string{"errorCode", "httpStatus"} {
				if !m.has(k) {
					d.problemf(m.node, "%s: emvErrorCode %s has no default %s: set it (defaults exist for 402, 403, 404 and 405)", what, e.EMVErrorCode, k)
				}
			}
		}
	}
	d.errorTexts(m, e)
	return e
}

// errorTexts decodes the status, component and texts shared by error
// results and faults, and fills in the description and message defaults.
func (d *decoder) errorTexts(m mapping, e *ErrorResult) {
	if s, ok := d.oneOf(m, "status", errorStatuses); ok {
		e.Status = s
	}
	if c, ok := d.oneOf(m, "component", components); ok {
		e.Component = c
	}
	e.Description, _ = d.str(m, "description")
	e.Detail, _ = d.str(m, "detail")
	e.Message, _ = d.str(m, "message")
	if e.Description == "" && e.EMVErrorCode != "" && !m.has("description") {
		name, known := emvDescriptions[e.EMVErrorCode]
		if !known {
			d.problemf(m.values["emvErrorCode"], "emvErrorCode %s has no EMV name: set description", e.EMVErrorCode)
		}
		e.Description = name
	}
	if e.Message == "" && !m.has("message") {
		e.Message = truncate(e.Description, 255)
	}
	for _, f := range []struct {
		key string
		val string
		max int
	}{{"message", e.Message, 255}, {"description", e.Description, 2048}, {"detail", e.Detail, 2048}} {
		if len(f.val) > f.max && m.has(f.key) {
			d.problemf(m.values[f.key], "%s is %d bytes long; the error body allows %d", f.key, len(f.val), f.max)
		}
	}
}

// parseWhiteList decodes the whitelist status the ACS reports.
func (d *decoder) parseWhiteList(n *yaml.Node) *WhiteList {
	m, ok := d.mapping(n, "whiteList", whiteListKeys)
	if !ok {
		return nil
	}
	var w WhiteList
	good := d.required(m, "status", "whiteList")
	good = d.required(m, "source", "whiteList") && good
	if !good {
		return nil
	}
	var ok1, ok2 bool
	w.Status, ok1 = d.oneOf(m, "status", whiteListStatuses)
	w.Source, ok2 = d.oneOf(m, "source", whiteListSources)
	if !ok1 || !ok2 {
		return nil
	}
	return &w
}

// parseMethod decodes the card's ACS 3DS Method: available (required)
// and how long it takes.
func (d *decoder) parseMethod(n *yaml.Node) *Method {
	m, ok := d.mapping(n, "threeDSMethod", methodKeys)
	if !ok || !d.required(m, "available", "threeDSMethod") {
		return nil
	}
	var meth Method
	if meth.Available, ok = d.boolean(m, "available"); !ok {
		return nil
	}
	if m.has("duration") {
		if !meth.Available {
			d.problemf(m.values["duration"], "threeDSMethod.duration needs available: true")
			return nil
		}
		if meth.Duration, ok = d.duration(m, "duration", MaxMethodDuration); !ok {
			return nil
		}
	}
	return &meth
}
