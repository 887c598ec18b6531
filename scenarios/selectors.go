package scenarios

// This file decodes the match mapping of a scenario: the card selectors
// (cardNumber, cardPrefix, binRange, cardPattern), of which a scenario sets
// at most one, and the request selectors that may be combined with them.

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios/iso"
)

// cardSelectors are the keys of match that look at the card number; a
// scenario sets at most one of them.
var cardSelectors = []string{"cardNumber", "cardPrefix", "binRange", "cardPattern"}

var (
	cardPatternPattern = regexp.MustCompile(`^[0-9xX?]{13,19}$`)
	amountPattern      = regexp.MustCompile(`^[0-9]{1,15}(\.[0-9]{1,6})?$`)
	authIndPattern     = regexp.MustCompile(`^0[1-6]$`)
	// compInds are the values of threeDSCompInd.
	compInds        = []string{"Y", "N", "U"}
	currencyAlpha   = regexp.MustCompile(`^[A-Za-z]{3}$`)
	currencyNumeric = regexp.MustCompile(`^[0-9]{3}$`)
)

// Allowed values of the request selectors.
var (
	messageVersions   = []string{Version210, Version220}
	messageCategories = []string{"01", "02"}
)

// Limits of the priority of a scenario.
const (
	MinPriority = -1000
	MaxPriority = 1000
)

// parseMatch decodes the selectors of a scenario.
func (d *decoder) parseMatch(n *yaml.Node) Match {
	var out Match
	m, ok := d.mapping(n, "match", matchKeys)
	if !ok {
		return out
	}
	if len(m.values) == 0 {
		d.problemf(m.node, "match needs a selector: one of %s", strings.Join(matchKeys, ", "))
		return out
	}
	var card []string
	for _, k := range cardSelectors {
		if m.has(k) {
			card = append(card, k)
		}
	}
	if len(card) > 1 {
		slices.SortStableFunc(card, func(a, b string) int {
			ka, kb := m.keys[a], m.keys[b]
			return cmp.Or(cmp.Compare(ka.Line, kb.Line), cmp.Compare(ka.Column, kb.Column))
		})
		d.problemf(m.keys[card[1]], "match sets both %s and %s: keep one card selector", card[0], card[1])
		return out
	}
	if v, ok := m.values["cardNumber"]; ok && d.digits(v, "cardNumber") {
		if pan, ok := d.pattern(m, "cardNumber", cardNumberPattern, "13-19 digits"); ok {
			if !luhnValid(pan) && !exemptFromLuhn(pan) {
				d.problemf(v, "cardNumber %s fails the Luhn check (only UnionPay numbers starting 62 or 81 may)", pan)
			} else {
				out.CardNumber = pan
			}
		}
	}
	if v, ok := m.values["cardPrefix"]; ok && d.digits(v, "cardPrefix") {
		out.CardPrefix, _ = d.pattern(m, "cardPrefix", cardPrefixPattern, "1-19 digits")
	}
	if v, ok := m.values["binRange"]; ok {
		out.BINRange = d.parseBINRange(v)
	}
	if v, ok := m.values["cardPattern"]; ok && d.digits(v, "cardPattern") {
		if p, ok := d.pattern(m, "cardPattern", cardPatternPattern, "13-19 digits and x or ? wildcards"); ok {
			out.CardPattern = strings.ReplaceAll(strings.ToLower(p), "?", "x")
		}
	}
	if v, ok := m.values["amount"]; ok {
		out.Amount = d.parseAmount(v)
	}
	if m.has("currency") {
		out.Currency = d.parseCurrency(m)
	}
	if m.has("cardholderName") {
		if name, ok := d.str(m, "cardholderName"); ok {
			if l := len(strings.TrimSpace(name)); l < 2 || l > 45 {
				d.problemf(m.values["cardholderName"], "cardholderName %q must be 2-45 characters", name)
			} else {
				out.CardholderName = strings.TrimSpace(name)
			}
		}
	}
	if m.has("challengeInd") {
		out.ChallengeInd, _ = d.integer(m, "challengeInd", 1, 4)
	}
	if m.has("messageVersion") {
		out.MessageVersion, _ = d.oneOf(m, "messageVersion", messageVersions)
	}
	if m.has("messageCategory") {
		out.MessageCategory, _ = d.oneOf(m, "messageCategory", messageCategories)
	}
	if m.has("authInd") {
		out.AuthInd, _ = d.pattern(m, "authInd", authIndPattern, "two digits 01-06")
	}
	if m.has("scheme") {
		out.Scheme, _ = d.oneOf(m, "scheme", SchemeNames())
	}
	if m.has("threeDSCompInd") {
		out.ThreeDSCompInd, _ = d.oneOf(m, "threeDSCompInd", compInds)
	}
	return out
}

// parseBINRange decodes {from, to}: two digit strings of equal length,
// from not above to.
func (d *decoder) parseBINRange(n *yaml.Node) *BINRange {
	m, ok := d.mapping(n, "binRange", binRangeKeys)
	if !ok {
		return nil
	}
	var r BINRange
	good := true
	for _, k := range binRangeKeys {
		if !d.required(m, k, "binRange") || !d.digits(m.values[k], k) {
			good = false
			continue
		}
		v, ok := d.pattern(m, k, cardPrefixPattern, "1-19 digits")
		good = good && ok
		if k == "from" {
			r.From = v
		} else {
			r.To = v
		}
	}
	switch {
	case !good:
		return nil
	case len(r.From) != len(r.To):
		d.problemf(m.node, "binRange from %s and to %s must have as many digits", r.From, r.To)
		return nil
	case r.From > r.To:
		d.problemf(m.node, "binRange from %s is above to %s", r.From, r.To)
		return nil
	}
	return &r
}

// parseAmount decodes an exact amount ("10.00") or a range {min, max}
// with at least one bound.
func (d *decoder) parseAmount(n *yaml.Node) *AmountMatch {
	if n.Kind == yaml.ScalarNode {
		v, ok := d.decimal(n, "amount")
		if !ok {
			return nil
		}
		return &AmountMatch{Exact: v}
	}
	m, ok := d.mapping(n, "amount (a decimal such as \"10.00\" or {min, max})", amountKeys)
	if !ok {
		return nil
	}
	if len(m.values) == 0 {
		d.problemf(m.node, "amount needs min, max or both")
		return nil
	}
	var a AmountMatch
	good := true
	if v, ok := m.values["min"]; ok {
		a.Min, ok = d.decimal(v, "min")
		good = good && ok
	}
	if v, ok := m.values["max"]; ok {
		a.Max, ok = d.decimal(v, "max")
		good = good && ok
	}
	if !good {
		return nil
	}
	if a.Min != "" && a.Max != "" && compareAmounts(parseAmount(a.Min), parseAmount(a.Max)) > 0 {
		d.problemf(m.node, "amount min %s is above max %s", a.Min, a.Max)
		return nil
	}
	return &a
}

// decimal decodes a non-negative decimal amount, written quoted or not.
func (d *decoder) decimal(n *yaml.Node, key string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" || n.ShortTag() == "!!bool" {
		d.problemf(n, "%s must be a decimal amount such as \"10.00\", got %s", key, describe(n))
		return "", false
	}
	if !amountPattern.MatchString(n.Value) {
		d.problemf(n, "%s %q must be a decimal amount such as \"10.00\" (up to 15 digits, 6 decimals)", key, n.Value)
		return "", false
	}
	return n.Value, true
}

// parseCurrency decodes an ISO 4217 code, alphabetic or numeric, and
// returns it in the form written (alphabetic in upper case).
func (d *decoder) parseCurrency(m mapping) string {
	n := m.values["currency"]
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		d.problemf(n, "currency must be quoted so it keeps its leading zeros: currency: %q", n.Value)
		return ""
	}
	c, ok := d.str(m, "currency")
	if !ok {
		return ""
	}
	switch {
	case currencyAlpha.MatchString(c):
		c = strings.ToUpper(c)
		if iso.Currency(c) {
			return c
		}
	case currencyNumeric.MatchString(c):
		if iso.Currency(c) {
			return c
		}
	}
	d.problemf(n, "currency %q is not a current ISO 4217 code such as EUR or 978", c)
	return ""
}

// matchKey is a canonical text of a match, when block and priority: two
// scenarios with the same key select exactly the same requests with the
// same weight.
func matchKey(m Match, w When, priority int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "p=%d|n=%s|p=%s|pat=%s", priority, m.CardNumber, m.CardPrefix, m.CardPattern)
	if r := m.BINRange; r != nil {
		fmt.Fprintf(&b, "|r=%s-%s", r.From, r.To)
	}
	if a := m.Amount; a != nil {
		fmt.Fprintf(&b, "|a=%s,%s,%s", canonicalAmount(a.Exact), canonicalAmount(a.Min), canonicalAmount(a.Max))
	}
	fmt.Fprintf(&b, "|c=%s|h=%s|ci=%d|v=%s|mc=%s|ai=%s|s=%s|ci3=%s", numericCurrency(m.Currency),
		strings.ToUpper(m.CardholderName), m.ChallengeInd, m.MessageVersion, m.MessageCategory, m.AuthInd, m.Scheme, m.ThreeDSCompInd)
	b.WriteString(w.key())
	return b.String()
}
