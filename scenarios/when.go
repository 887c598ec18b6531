package scenarios

// This file holds the when block of a scenario: conditions on facts of
// the lookup's channel (which channel, the 3RI indicator, the prior
// authentication's status), ANDed with match. A condition is one row of
// conditions: its key, what it tests, the values of its fact and where a
// Request holds that fact. The parser, the JSON Schema, the catalogue and
// the docs take every condition from there.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// The device channels a lookup comes by, as when's channel names them.
const (
	ChannelBrowser = "browser" // deviceChannel 2, POST {base}/authentication/brw
	Channel3RI     = "3ri"     // deviceChannel 3, POST {base}/authentication/3ri
	ChannelApp     = "app"     // deviceChannel 1
)

// channels are the device channels, in when's order.
var channels = []string{ChannelBrowser, ChannelApp, Channel3RI}

// PriorNone is the prior status of a 3RI lookup whose
// threeDsReqPriorRef names no transaction the sandbox finds for its
// token: unknown, expired, forgotten or another token's.
const PriorNone = "none"

// The platforms of an app lookup's device (C001 of its device
// information), as when's platform names them: Android, iOS, or
// PlatformOther for any other.
const (
	PlatformAndroid = "Android"
	PlatformIOS     = "iOS"
	PlatformOther   = "other"
)

// platforms are the values of when's platform.
var platforms = []string{PlatformAndroid, PlatformIOS, PlatformOther}

// priorStatuses are the values of when's priorStatus.
var priorStatuses = []string{"Y", "A", "N", "U", "R", "I", "C", PriorNone}

// ThreeRIInd is one value of threeRIInd, the 3RI indicator: what a 3DS
// Requestor-initiated authentication is for.
type ThreeRIInd struct {
	Code string // two digits
	Name string
	// Since is the first protocol version that has it.
	Since string
}

// threeRIInds are the 3RI indicators of EMV 3DS: 2.1.0 knows 01-05,
// 2.2.0 adds 06-11.
var threeRIInds = []ThreeRIInd{
	{"01", "recurring transaction", Version210},
	{"02", "instalment transaction", Version210},
	{"03", "add card", Version210},
	{"04", "maintain card information", Version210},
	{"05", "account verification", Version210},
	{"06", "split/delayed shipment", Version220},
	{"07", "top-up", Version220},
	{"08", "mail order", Version220},
	{"09", "telephone order", Version220},
	{"10", "whitelist status check", Version220},
	{"11", "other payment", Version220},
}

// ThreeRIInds lists the 3RI indicators a lookup of protocol version
// version may send: those of 2.2.0 for any version but 2.1.0.
func ThreeRIInds(version string) []ThreeRIInd {
	if version == Version210 {
		return threeRIInds[:5]
	}
	return threeRIInds
}

// threeRIIndCodes are the codes of every 3RI indicator.
func threeRIIndCodes() []string {
	codes := make([]string, len(threeRIInds))
	for i, ind := range threeRIInds {
		codes[i] = ind.Code
	}
	return codes
}

// Condition is one condition a scenario's when block may set: a fact of
// the lookup's channel and the values it may take.
type Condition struct {
	// Key is the condition's key in when.
	Key string
	// Doc says what the condition tests, for the schema and the docs.
	Doc string
	// Values are the values its fact may take; when takes one of them or
	// a list.
	Values []string
	// field is where a Request holds the fact; "" when it has none, which
	// no condition accepts unless unset gives the fact a value then.
	field func(r *Request) *string
	unset string
}

// fact is the request's value of the condition's fact.
func (c *Condition) fact(r *Request) string { return cmp.Or(*c.field(r), c.unset) }

// The keys of when's conditions.
const (
	WhenChannel     = "channel"
	WhenThreeRIInd  = "threeRIInd"
	WhenPriorStatus = "priorStatus"
	WhenPlatform    = "platform"
)

// conditions are the conditions of when, in the order the schema and the
// catalogue list them.
var conditions = []Condition{
	{Key: WhenChannel, Values: channels,
		Doc:   "The device channel of the lookup: browser (POST /authentication/brw), app, or 3ri (POST /authentication/3ri).",
		field: func(r *Request) *string { return &r.Channel }, unset: ChannelBrowser},
	{Key: WhenThreeRIInd, Values: threeRIIndCodes(),
		Doc:   "threeRIInd of a 3RI lookup: 01 recurring, 02 instalment, 03 add card, 04 maintain card information, 05 account verification, and from 2.2.0 06 split/delayed shipment, 07 top-up, 08 mail order, 09 telephone order, 10 whitelist status check, 11 other payment.",
		field: func(r *Request) *string { return &r.ThreeRIInd }},
	{Key: WhenPriorStatus, Values: priorStatuses,
		Doc:   "The status of the transaction a 3RI lookup's threeDsReqPriorRef names (none: the sandbox finds none for the token). Setting it answers a prior that is unknown or not authenticated (Y or A) instead of refusing the lookup.",
		field: func(r *Request) *string { return &r.PriorStatus }},
	{Key: WhenPlatform, Values: platforms,
		Doc:   "The platform of an app lookup's device (C001 of the device information the SDK encrypted in sdkEncData): Android, iOS, or other. A lookup of another channel has none.",
		field: func(r *Request) *string { return &r.Platform }},
}

// Conditions lists the conditions of when.
func Conditions() []Condition { return slices.Clone(conditions) }

// conditionKeys are the keys of when.
func conditionKeys() []string {
	keys := make([]string, len(conditions))
	for i, c := range conditions {
		keys[i] = c.Key
	}
	return keys
}

// condition is the condition of key; nil for none.
func condition(key string) *Condition {
	for i := range conditions {
		if conditions[i].Key == key {
			return &conditions[i]
		}
	}
	return nil
}

// When is a scenario's when block: for each condition it sets, by key,
// the values of the fact it accepts, in the order of the condition's
// Values. A scenario without one has a nil When, which accepts every
// request.
type When map[string][]string

// Sets tells whether w sets the condition key.
func (w When) Sets(key string) bool {
	_, ok := w[key]
	return ok
}

// Allows tells whether w lets the fact key take value: it does not set
// the condition, or accepts value.
func (w When) Allows(key, value string) bool {
	values, ok := w[key]
	return !ok || slices.Contains(values, value)
}

// AnswersChannel tells whether s can answer a lookup of channel: its when
// allows the channel, sets no fact the channel lacks (the 3RI indicator
// and the prior authentication are the 3RI channel's, the device's
// platform the app channel's), and its match
// tests no field the channel has not (a 3RI lookup carries no purchase
// and follows no device data collection).
func (s *Scenario) AnswersChannel(channel string) bool {
	if !s.When.Allows(WhenChannel, channel) {
		return false
	}
	if channel != ChannelApp && s.When.Sets(WhenPlatform) {
		return false
	}
	if channel == Channel3RI {
		return s.Match.Amount == nil && s.Match.Currency == "" && s.Match.ThreeDSCompInd == ""
	}
	return !s.When.Sets(WhenThreeRIInd) && !s.When.Sets(WhenPriorStatus)
}

// matches reports whether every condition of w accepts r.
func (w When) matches(r *Request) bool {
	for key, values := range w {
		c := condition(key)
		if c == nil || !slices.Contains(values, c.fact(r)) {
			return false
		}
	}
	return true
}

// key is a canonical text of w, for matchKey.
func (w When) key() string {
	var b strings.Builder
	for _, c := range conditions {
		if values, ok := w[c.Key]; ok {
			fmt.Fprintf(&b, "|%s=%s", c.Key, strings.Join(values, ","))
		}
	}
	return b.String()
}

// parseWhen decodes a when block: each condition one value of its fact,
// or a list of them.
func (d *decoder) parseWhen(n *yaml.Node) When {
	m, ok := d.mapping(n, "when", conditionKeys())
	if !ok {
		return nil
	}
	if len(m.values) == 0 {
		d.problemf(m.node, "when needs a condition: one of %s", strings.Join(conditionKeys(), ", "))
		return nil
	}
	w := When{}
	for _, c := range conditions {
		v, ok := m.values[c.Key]
		if !ok {
			continue
		}
		if values := d.oneOrList(v, c.Key, c.Values); values != nil {
			w[c.Key] = values
		}
	}
	return w
}

// oneOrList decodes one string of allowed, or a list of them, into the
// values in the order of allowed; nil after a problem.
func (d *decoder) oneOrList(n *yaml.Node, key string, allowed []string) []string {
	n = resolve(n)
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		if len(items) == 0 {
			d.problemf(n, "when %s is an empty list: give one of %s, or a list of them", key, strings.Join(allowed, ", "))
			return nil
		}
	}
	var got []string
	good := true
	for _, item := range items {
		item = resolve(item)
		switch {
		case item.Kind != yaml.ScalarNode || item.ShortTag() == "!!null":
			d.problemf(item, "when %s must be one of %s or a list of them, got %s", key, strings.Join(allowed, ", "), describe(item))
			good = false
		case item.ShortTag() != "!!str":
			d.problemf(item, "when %s must be a string: quote it (%q)", key, item.Value)
			good = false
		case !slices.Contains(allowed, item.Value):
			d.problemf(item, "when %s %q is not one of %s", key, item.Value, strings.Join(allowed, ", "))
			good = false
		default:
			got = append(got, item.Value)
		}
	}
	if !good {
		return nil
	}
	var values []string
	for _, a := range allowed {
		if slices.Contains(got, a) {
			values = append(values, a)
		}
	}
	return values
}

// threeRIKeys are the keys of a scenario's threeRI outcome.
var threeRIKeys = []string{"status", "reason", "eci"}

// DefaultThreeRI is what a challenge scenario without a threeRI key
// answers on the 3RI channel, where there is no cardholder to challenge:
// U, transStatusReason 21 (3RI transaction not supported).
var DefaultThreeRI = Outcome{Status: "U", Reason: "21"}

// ThreeRIResult is what s answers on the 3RI channel when it challenges:
// its threeRI key, else DefaultThreeRI.
func (s *Scenario) ThreeRIResult() Outcome {
	if s.ThreeRI != nil {
		return *s.ThreeRI
	}
	return DefaultThreeRI
}
