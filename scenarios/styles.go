package scenarios

import (
	"regexp"
	"slices"

	"gopkg.in/yaml.v3"
)

// The cardholder's actions on a challenge, stated once: the scenario
// files name the first three (outcomes and auto), the engine decides
// them, the transports carry them. A style answers the common three and
// its own (see Style.Actions).
const (
	ActionPass   = "pass"
	ActionFail   = "fail"
	ActionCancel = "cancel"
	// ActionOTP answers an otp challenge with a typed code.
	ActionOTP = "otp"
	// ActionResend asks an otp challenge for a new code (EMV
	// resendChallenge).
	ActionResend = "resend"
	// ActionContinue is the oob page's Continue (EMV oobContinue): it
	// ends the challenge once the bank app has answered.
	ActionContinue = "continue"
	// ActionApprove and ActionDecline answer an oob challenge as the bank
	// app does.
	ActionApprove = "approve"
	ActionDecline = "decline"
	// ActionSelect answers a select or multiselect challenge with the
	// choices picked.
	ActionSelect = "select"
	// ActionPassword answers a password challenge with the password
	// typed (EMV challengeDataEntry, in Choice.Entry).
	ActionPassword = "password"
)

// CommonActions are the actions every style answers: the tester's
// shortcuts of the page and of the headless API.
func CommonActions() []string { return []string{ActionPass, ActionFail, ActionCancel} }

// Challenge styles: the scenario key ui.
const (
	// UIOTP is the code entry, the default.
	UIOTP = "otp"
	// UIOOB is out of band: the cardholder approves in the banking app,
	// then continues.
	UIOOB = "oob"
	// UISelect and UIMultiSelect are a knowledge question: one choice, or
	// several.
	UISelect      = "select"
	UIMultiSelect = "multiselect"
	// UIPassword is a static password the cardholder set up with the
	// bank (EMV authenticationType 01, static).
	UIPassword = "password"
)

// MaxAnswers bounds the answers of a select or multiselect scenario.
const MaxAnswers = 4

// The bank app's answers of an oob scenario (key app).
const (
	AppApprove = ActionApprove
	AppDecline = ActionDecline
)

// DefaultResends is how many new codes an otp challenge sends when its
// scenario does not say (key resends).
const DefaultResends = 3

// MaxResends bounds a scenario's resends.
const MaxResends = 20

// Style is one challenge style as a scenario file sees it: its ui value,
// its default authenticationType, the keys of its own, how to read them
// and their JSON Schema. The engine's part of a style (its rules and
// actions) lives in the emulator, its page in templates;
// docs/architecture.md says where.
type Style struct {
	// UI is the scenario's ui value.
	UI string
	// Doc says what the cardholder does, for the schema's ui
	// description ("a one-time code").
	Doc string
	// AuthenticationType is the challenge's default authenticationType.
	AuthenticationType string
	// ACSUIType is the acsUiType the style shows natively on the app
	// channel: 01 text, 02 single select, 03 multi select, 04 OOB
	// (ACSUIHTML, 05, when the scenario's appInterface is html).
	ACSUIType string
	// Keys are the challenge keys only this style reads, in the order
	// of Schema.
	Keys []string
	// Schema is the JSON Schema of each of Keys, as a JSON object of key
	// to schema: Schema() adds them to the challenge's properties.
	Schema string
	// parse reads the style's keys of m into c.
	parse func(d *decoder, m mapping, c *Challenge)
}

// Styles lists every challenge style, the default first.
func Styles() []Style {
	return []Style{
		{UI: UIOTP, ACSUIType: "01", Doc: "a one-time code", AuthenticationType: "02", Keys: []string{"otps", "resends"}, Schema: otpSchema, parse: parseOTPStyle},
		{UI: UIOOB, ACSUIType: "04", Doc: "approve in the banking app, then continue", AuthenticationType: "03", Keys: []string{"app"}, Schema: oobSchema, parse: parseOOBStyle},
		{UI: UISelect, ACSUIType: "02", Doc: "a knowledge question with one right choice", AuthenticationType: "01", Keys: []string{"answers"}, Schema: answersSchema, parse: parseAnswers(1)},
		{UI: UIMultiSelect, ACSUIType: "03", Doc: "a knowledge question with several right choices", AuthenticationType: "01", Keys: []string{"answers"}, Schema: answersSchema, parse: parseAnswers(MaxAnswers)},
		{UI: UIPassword, ACSUIType: "01", Doc: "a static password set up with the bank", AuthenticationType: "01", Keys: []string{"password"}, Schema: passwordSchema, parse: parsePasswordStyle},
	}
}

// The JSON Schema of the styles' own keys (Style.Schema).
const (
	otpSchema = `{
  "otps": {"description": "ui otp: one-time passwords typed on the challenge page and their outcomes; default: 1234 gives the pass outcome.", "type": "object", "minProperties": 1, "propertyNames": {"pattern": "^[0-9A-Za-z]{1,32}$"}, "additionalProperties": {"$ref": "#/$defs/outcome"}},
  "resends": {"description": "ui otp: how many new codes the cardholder may ask for (EMV resendChallenge); 0-20; default 3.", "type": "integer", "minimum": 0, "maximum": 20, "default": 3}}`
	oobSchema = `{
  "app": {"description": "ui oob: what the bank app answers by itself autoAfter the lookup (only when autoAfter is set); default approve.", "enum": ["approve", "decline"], "default": "approve"}}`
	passwordSchema = `{
  "password": {"description": "ui password: the static password that passes (1-32 letters, digits or .-_!?#@ , case sensitive); default sandbox.", "type": "string", "pattern": "^[A-Za-z0-9.\\-_!?#@]{1,32}$", "default": "sandbox"}}`
	answersSchema = `{
  "answers": {"description": "ui select (one) and multiselect (1-4): the choices that pass; default: generated from the transaction and stated on the page.", "type": "array", "minItems": 1, "maxItems": 4, "uniqueItems": true, "items": {"type": "string", "pattern": "^[\\p{L}\\p{N}][\\p{L}\\p{N} .,'&-]{0,39}$"}}}`
)

// ACSUIHTML is the acsUiType of an HTML challenge on the app channel.
const ACSUIHTML = "05"

// ACSUIType is the acsUiType c shows on the app channel: its style's, or
// ACSUIHTML when its appInterface is html.
func (c *Challenge) ACSUIType() string {
	if c.AppInterface == AppHTML {
		return ACSUIHTML
	}
	st, _ := StyleOf(c.UI)
	return st.ACSUIType
}

// StyleOf returns the style of ui, false when there is none.
func StyleOf(ui string) (Style, bool) {
	for _, s := range Styles() {
		if s.UI == ui {
			return s, true
		}
	}
	return Style{}, false
}

// styleNames lists the ui values, for messages and the schema test.
func styleNames() []string {
	var names []string
	for _, s := range Styles() {
		names = append(names, s.UI)
	}
	return names
}

// styleKeys lists every style's own keys, for the challenge mapping.
func styleKeys() []string {
	var keys []string
	for _, s := range Styles() {
		for _, k := range s.Keys {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

// parseUI reads the ui of a challenge: its style, the default when unset
// or unknown (a problem then).
func (d *decoder) parseUI(m mapping) Style {
	st := Styles()[0]
	if m.has("ui") {
		if ui, ok := d.oneOf(m, "ui", styleNames()); ok {
			st, _ = StyleOf(ui)
		}
	}
	return st
}

// parseStyleKeys reads the keys of the style st into c; a key of another
// style is a problem.
func (d *decoder) parseStyleKeys(st Style, m mapping, c *Challenge) {
	c.UI = st.UI
	for _, other := range Styles() {
		if other.UI == st.UI {
			continue
		}
		for _, k := range other.Keys {
			if m.has(k) && !slices.Contains(st.Keys, k) {
				d.problemf(m.keys[k], "%s is a key of ui %s, not of ui %s", k, other.UI, st.UI)
			}
		}
	}
	st.parse(d, m, c)
}

// parseOTPStyle reads the keys of the code entry: otps and resends.
func parseOTPStyle(d *decoder, m mapping, c *Challenge) {
	if v, ok := m.values["otps"]; ok {
		c.OTPs = d.parseOTPs(v, c.Version)
	} else {
		c.OTPs = map[string]Outcome{DefaultOTP: c.Pass}
	}
	c.Resends = DefaultResends
	if m.has("resends") {
		if n, ok := d.integer(m, "resends", 0, MaxResends); ok {
			c.Resends = n
		}
	}
}

// parseOOBStyle reads the key of out of band: app, what the bank app
// answers by itself autoAfter the lookup (approve by default).
func parseOOBStyle(d *decoder, m mapping, c *Challenge) {
	c.App = AppApprove
	if m.has("app") {
		if v, ok := d.oneOf(m, "app", []string{AppApprove, AppDecline}); ok {
			c.App = v
		}
	}
}

// parseAnswers reads the key of a knowledge question: answers, the
// choices that pass (at most most of them; one for select). Without it
// the engine generates the answers, and the page states them.
func parseAnswers(most int) func(d *decoder, m mapping, c *Challenge) {
	return func(d *decoder, m mapping, c *Challenge) {
		n, ok := m.values["answers"]
		if !ok {
			return
		}
		if n.Kind != yaml.SequenceNode || len(n.Content) == 0 || len(n.Content) > most {
			d.problemf(n, "answers must be a list of 1 to %d choices, got %s", most, describe(n))
			return
		}
		for _, v := range n.Content {
			v = resolve(v)
			if v.Kind != yaml.ScalarNode || !answerPattern.MatchString(v.Value) {
				d.problemf(v, "an answer must be 1-40 letters, digits, spaces or .,'&- , got %s", describe(v))
				continue
			}
			if slices.Contains(c.Answers, v.Value) {
				d.problemf(v, "answer %q is listed twice", v.Value)
				continue
			}
			c.Answers = append(c.Answers, v.Value)
		}
	}
}

// answerPattern is what an answer of a knowledge question may hold.
var answerPattern = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N} .,'&-]{0,39}$`)

// DefaultPassword is the password of a password challenge whose scenario
// does not say (key password).
const DefaultPassword = "sandbox"

// PasswordRules is what a password scenario says (Challenge.Own).
type PasswordRules struct {
	// Password is the static password that passes; any other is wrong.
	Password string
}

// passwordPattern is what a static password may hold.
var passwordPattern = regexp.MustCompile(`^[A-Za-z0-9.\-_!?#@]{1,32}$`)

// parsePasswordStyle reads the key of a static password: password, the
// one that passes (DefaultPassword when unset).
func parsePasswordStyle(d *decoder, m mapping, c *Challenge) {
	rules := PasswordRules{Password: DefaultPassword}
	if v, ok := d.str(m, "password"); ok {
		if passwordPattern.MatchString(v) {
			rules.Password = v
		} else {
			d.problemf(m.values["password"], "password must be 1-32 letters, digits or .-_!?#@, got %q", v)
		}
	}
	c.Own = rules
}
