package scenarios

// This file decodes the three results a scenario can carry: frictionless,
// challenge (with its outcomes and one-time passwords) and error.

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// parseVersion decodes the optional version key; the default is 2.2.0.
func (d *decoder) parseVersion(m mapping) string {
	if v, ok := d.oneOf(m, "version", versions); ok {
		return v
	}
	return Version220
}

// parseAuthenticationType decodes the optional authenticationType key;
// 04 (decoupled) exists only from 2.2.0 on.
func (d *decoder) parseAuthenticationType(m mapping, version string) (string, bool) {
	at, ok := d.oneOf(m, "authenticationType", authenticationTypes)
	if !ok {
		return "", false
	}
	if at == "04" && version == Version210 {
		d.problemf(m.values["authenticationType"], "authenticationType 04 (decoupled) needs version 2.2.0")
		return "", false
	}
	return at, true
}

// parseReason decodes the optional reason key for the given version.
func (d *decoder) parseReason(m mapping, version string) string {
	r, ok := d.str(m, "reason")
	if !ok {
		return ""
	}
	if p := reasonProblem(r, version); p != "" {
		d.problemf(m.values["reason"], "reason %q %s", r, p)
		return ""
	}
	return r
}

// parseFrictionless decodes a frictionless result.
func (d *decoder) parseFrictionless(n *yaml.Node) *Frictionless {
	m, ok := d.mapping(n, "frictionless", frictionlessKeys)
	if !ok {
		return nil
	}
	f := &Frictionless{Version: d.parseVersion(m)}
	f.AuthenticationType, _ = d.parseAuthenticationType(m, f.Version)
	if m.has("eci") {
		f.ECI, _ = d.pattern(m, "eci", twoDigits, "two digits")
	}
	if d.required(m, "status", "frictionless") {
		f.Status, _ = d.oneOf(m, "status", frictionlessStatuses)
	}
	if f.Status == "I" && f.Version == Version210 {
		d.problemf(m.values["status"], "status I (informational) needs version 2.2.0")
	}
	if m.has("reason") {
		f.Reason = d.parseReason(m, f.Version)
	}
	switch f.Status {
	case "N", "U", "R":
		if !m.has("reason") {
			d.problemf(m.node, "frictionless status %s needs a reason (transStatusReason 01-26 or 80-99)", f.Status)
		}
	case "Y", "A":
		if m.has("reason") {
			d.problemf(m.keys["reason"], "frictionless status %s takes no reason", f.Status)
		}
	}
	if v, ok := m.values["on210"]; ok {
		f.On210 = d.parseOn210(v)
	}
	return f
}

// parseOn210 decodes the 2.1.0 outcome of a frictionless result: a status
// 2.1.0 knows, a reason of 2.1.0 (01-21, 80-99) for N, U and R, an ECI.
func (d *decoder) parseOn210(n *yaml.Node) *Outcome {
	return d.parseResult(n, "on210", on210Keys, on210Statuses, Version210)
}

// parseResult decodes a final result given without a challenge (on210,
// threeRI), named what, of keys: status of statuses, a reason of version
// for N, U and R (none for Y and A), an ECI.
func (d *decoder) parseResult(n *yaml.Node, what string, keys, statuses []string, version string) *Outcome {
	m, ok := d.mapping(n, what, keys)
	if !ok {
		return nil
	}
	var o Outcome
	if d.required(m, "status", what) {
		o.Status, _ = d.oneOf(m, "status", statuses)
	}
	if o.Status == "I" && version == Version210 {
		d.problemf(m.values["status"], "%s: status I (informational) needs version 2.2.0", what)
	}
	if m.has("reason") {
		o.Reason = d.parseReason(m, version)
	}
	if m.has("eci") {
		o.ECI, _ = d.pattern(m, "eci", twoDigits, "two digits")
	}
	reasons := "01-26 or 80-99"
	if version == Version210 {
		reasons = "01-21 or 80-99"
	}
	switch o.Status {
	case "N", "U", "R":
		if !m.has("reason") {
			d.problemf(m.node, "%s: status %s needs a reason (transStatusReason %s)", what, o.Status, reasons)
		}
	case "Y", "A":
		if m.has("reason") {
			d.problemf(m.keys["reason"], "%s: status %s takes no reason", what, o.Status)
		}
	}
	return &o
}

// parseOutcome decodes a final challenge outcome; what names it in messages.
func (d *decoder) parseOutcome(n *yaml.Node, what, version string) Outcome {
	var o Outcome
	m, ok := d.mapping(n, what, outcomeKeys)
	if !ok {
		return o
	}
	if d.required(m, "status", what) {
		o.Status, _ = d.oneOf(m, "status", outcomeStatuses)
	}
	if m.has("reason") {
		o.Reason = d.parseReason(m, version)
	}
	if m.has("challengeCancel") {
		o.ChallengeCancel, _ = d.oneOf(m, "challengeCancel", challengeCancels)
	}
	if m.has("eci") {
		o.ECI, _ = d.pattern(m, "eci", twoDigits, "two digits")
	}
	switch o.Status {
	case "N", "U":
		if !m.has("reason") {
			d.problemf(m.node, "%s: status %s needs a reason (transStatusReason 01-26 or 80-99)", what, o.Status)
		}
	case "Y":
		for _, k := range []string{"reason", "challengeCancel"} {
			if m.has(k) {
				d.problemf(m.keys[k], "%s: status Y takes no %s", what, k)
			}
		}
	}
	return o
}

// Default challenge outcomes (spec reference: pass Y; fail N/01; cancel
// N/01 with challengeCancel 01), and the default one-time password.
var (
	defaultPass   = Outcome{Status: "Y"}
	defaultFail   = Outcome{Status: "N", Reason: "01"}
	defaultCancel = Outcome{Status: "N", Reason: "01", ChallengeCancel: "01"}
)

// DefaultOTP is the one-time password that passes a challenge whose
// scenario lists no otps.
const DefaultOTP = "1234"

// parseChallenge decodes a challenge result and fills in its defaults.
func (d *decoder) parseChallenge(n *yaml.Node) *Challenge {
	m, ok := d.mapping(n, "challenge", challengeKeys)
	if !ok {
		return nil
	}
	st := d.parseUI(m)
	c := &Challenge{Version: d.parseVersion(m), AuthenticationType: st.AuthenticationType, Pass: defaultPass, Fail: defaultFail, Cancel: defaultCancel}
	if at, ok := d.parseAuthenticationType(m, c.Version); ok {
		c.AuthenticationType = at
	}
	for _, o := range []struct {
		key string
		dst *Outcome
	}{{ActionPass, &c.Pass}, {ActionFail, &c.Fail}, {ActionCancel, &c.Cancel}} {
		if v, ok := m.values[o.key]; ok {
			*o.dst = d.parseOutcome(v, o.key, c.Version)
		}
	}
	d.parseStyleKeys(st, m, c)
	if m.has("auto") {
		c.Auto, _ = d.oneOf(m, "auto", autoChoices)
	}
	if m.has("autoAfter") {
		if !m.has("auto") && st.UI != UIOOB {
			d.problemf(m.keys["autoAfter"], "autoAfter needs auto (pass, fail or cancel), or ui oob, whose bank app answers then")
		}
		c.AutoAfter, _ = d.duration(m, "autoAfter", MaxAutoAfter)
	}
	if m.has("trustPrompt") {
		c.TrustPrompt, _ = d.boolean(m, "trustPrompt")
		if c.TrustPrompt && c.Version != Version220 {
			d.problemf(m.keys["trustPrompt"], "trustPrompt needs version 2.2.0: whiteListStatus is not in %s", c.Version)
			c.TrustPrompt = false
		}
	}
	if m.has("appInterface") {
		c.AppInterface, _ = d.oneOf(m, "appInterface", appInterfaces)
	}
	if m.has("appFault") {
		c.AppFault, _ = d.oneOf(m, "appFault", appFaults)
	}
	c.FirstCReqTimeout = d.challengeTimeout(m, "firstCReqTimeout")
	c.ChallengeTimeout = d.challengeTimeout(m, "challengeTimeout")
	return c
}

// The values of a challenge's appInterface.
const (
	AppNative = "native"
	AppHTML   = "html"
)

// appInterfaces are the values of appInterface.
var appInterfaces = []string{AppNative, AppHTML}

// challengeTimeout decodes one of a challenge's own windows, from
// MinChallengeTimeout to MaxChallengeTimeout; zero when unset.
func (d *decoder) challengeTimeout(m mapping, key string) time.Duration {
	v, ok := d.duration(m, key, MaxChallengeTimeout)
	if !ok {
		return 0
	}
	if v < MinChallengeTimeout {
		d.problemf(m.values[key], "%s %s is out of range %s-%s", key, m.values[key].Value, MinChallengeTimeout, MaxChallengeTimeout)
		return 0
	}
	return v
}

// parseOTPs decodes the map of one-time passwords to outcomes.
func (d *decoder) parseOTPs(n *yaml.Node, version string) map[string]Outcome {
	out := map[string]Outcome{}
	if n.Kind != yaml.MappingNode {
		d.problemf(n, "otps must be a mapping of one-time passwords to outcomes, got %s", describe(n))
		return out
	}
	if len(n.Content) == 0 {
		d.problemf(n, "otps is empty: list at least one one-time password or leave otps out")
		return out
	}
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		switch {
		case k.Kind != yaml.ScalarNode:
			d.problemf(k, "otps keys must be one-time passwords, got %s", describe(k))
			continue
		case k.ShortTag() != "!!str":
			d.problemf(k, "one-time password %s must be quoted: %q", k.Value, k.Value)
			continue
		case !otpPattern.MatchString(k.Value):
			d.problemf(k, "one-time password %q must be 1-32 letters or digits", k.Value)
			continue
		}
		if line, dup := first[k.Value]; dup {
			d.problemf(k, "duplicate one-time password %q; first set at line %d", k.Value, line)
			continue
		}
		first[k.Value] = k.Line
		out[k.Value] = d.parseOutcome(v, fmt.Sprintf("otps %q", k.Value), version)
	}
	return out
}

// parseError decodes an error result and fills in its defaults.
func (d *decoder) parseError(n *yaml.Node) *ErrorResult {
	m, ok := d.mapping(n, "error", errorKeys)
	if !ok {
		return nil
	}
	e := &ErrorResult{Status: "U", Component: "S"}
	for _, k := range []string{"httpStatus", "errorCode", "emvErrorCode"} {
		d.required(m, k, "error")
	}
	e.HTTPStatus, _ = d.integer(m, "httpStatus", 400, 599)
	e.ErrorCode, _ = d.pattern(m, "errorCode", errorCodePattern, "4 characters of A-Z and 0-9")
	e.EMVErrorCode, _ = d.pattern(m, "emvErrorCode", threeDigits, "3 digits")
	d.errorTexts(m, e)
	return e
}
