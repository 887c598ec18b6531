package wire

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// This file holds the table-driven machinery that checks one JSON object
// against the rules of its fields and fills a typed struct.

// EMV error codes of field problems.
const (
	emvMissing   = emv.EMVMissingElement
	emvFormat    = emv.EMVInvalidFormat
	emvDuplicate = emv.EMVDuplicateElement
	emvISO       = emv.EMVInvalidISOCode
	emvVersion   = emv.EMVVersionNotSupported
)

// fieldKind is how a field's JSON value is read. The kinds that keep a
// JSON string as their text come first (see takesText).
type fieldKind uint8

const (
	// fieldString takes a JSON string.
	fieldString fieldKind = iota
	// fieldNumeric takes a JSON string or, as a leniency, a JSON number
	// whose text is then kept as the string.
	fieldNumeric
	// fieldDecimal takes a JSON number in any form, kept as a plain
	// decimal ("1.5e2" becomes "150", see plainDecimal), or a JSON string,
	// which check reads.
	fieldDecimal
	// fieldInt takes a JSON integer or, as a leniency, a string of digits.
	fieldInt
	// fieldBool takes a JSON boolean.
	fieldBool
	// fieldObject takes a JSON object, decoded by rule.object.
	fieldObject
	// fieldRefused takes nothing: a value of any kind, but null or "",
	// is a 203 problem whose reason is rule.refused (a field the
	// interface names but a channel cannot use).
	fieldRefused
	// fieldRaw takes a JSON object, array or string, kept as its JSON
	// text (a string with its quotes) for check to judge and setString
	// to store: the few fields of the interface that are arrays or
	// objects read whole (deviceRenderOptions.sdkUiType, sdkEphemPubKey).
	fieldRaw
)

// takesText tells whether a field of kind k keeps a JSON string as its
// text, checked by decodeText.
func (k fieldKind) takesText() bool { return k <= fieldDecimal }

// rule describes one field of an object decoded into the Go value P
// points to: P is a pointer type (*message.Card, not message.Card).
// Every pointer type has the same shape for the compiler, so the decoding
// functions parameterised by P are compiled once for all the objects of a
// request, not once for each of the thirteen object types: code that,
// under load, competes with net/http and the kernel for the CPU's caches.
type rule[P any] struct {
	// names are the accepted keys; the first is the canonical name and the
	// others are aliases mapped to the same field.
	names []string
	kind  fieldKind
	// required says whether the field must be present; nil means optional.
	required func(*checker) bool
	// min and max bound the length in characters of string fields, and the
	// value of int fields. A zero max means no bound.
	min, max int
	// maxLen bounds the length of an int field's text (e.g. "002").
	maxLen int
	// check returns the EMV code and reason of a malformed string value,
	// or "" when the value is fine.
	check func(string) (code, reason string)
	// hints are other spellings of the field that are not accepted but
	// named in the reason when the field is missing (EMV's names, for
	// instance); names differing from names or hints only in case or
	// separators need no entry.
	hints []string
	// sameAlias accepts two names of the field when their values are
	// equal (and reports 203 on the canonical name when they differ)
	// instead of reporting the second one as a duplicate (204). One rule
	// of an object at most may have it.
	sameAlias bool
	// watch, when set, sees the value of the first member of each of the
	// field's names, empty or not: request-wide values that other rules
	// depend on are taken from there.
	watch func(c *checker, v value)
	// refused is the reason of a fieldRefused rule.
	refused string

	setString func(P, string)
	setInt    func(P, int)
	setBool   func(P, bool)
	// object decodes the object of a fieldObject rule, whose '{' r just
	// read, with decodeObject.
	object func(c *checker, r *reader, path string, dst P) error
}

// always is the required func of a field that is always required.
func always(*checker) bool { return true }

// checker collects what is wrong with one request and which fields were
// ignored, plus the request-wide values that conditional rules depend on.
type checker struct {
	problems []emv.Problem
	ignored  []string

	authInd         string // threeDsRequestorAuthInd as sent, if a string
	messageCategory string // messageCategory as sent, if a string
	instalData      int    // purchase.instalData when valid, else 0
	jsDisabled      bool   // browserInfo.javascriptEnabled is false
	messageVersion  string // messageVersion as sent, if a string
	// sent holds, for DecodeEnquiry, whether its two keys came with a value.
	sentID, sentRef bool

	deferred []deferredCheck
	misspelt []misspelt // absent fields the body spells another way

	// parts holds the objects of a lookup request (nil for the others),
	// so that they come with the decoding's one allocation.
	parts *lookupParts
}

// Caps on what one request can produce: a legitimate request has about a
// hundred fields, and a hostile one should not yield an unbounded report.
const (
	maxProblems = 200
	maxIgnored  = 100
)

// add records a problem; beyond maxProblems the rest are dropped.
func (c *checker) add(path, code, reason string) {
	if len(c.problems) < maxProblems {
		c.problems = append(c.problems, emv.Problem{Field: path, EMVCode: code, Reason: reason})
	}
}

// ignore records the path of an unknown field; beyond maxIgnored the rest
// are dropped.
func (c *checker) ignore(path string) {
	if len(c.ignored) < maxIgnored {
		c.ignored = append(c.ignored, path)
	}
}

// join builds the dotted path of name inside the object at prefix. The
// result never shares memory with the request body.
func join(prefix, name string) string {
	if prefix == "" {
		return strings.Clone(pathKey(name))
	}
	return prefix + "." + pathKey(name)
}

// ruleSet is the rules of one object with an index from every accepted key
// to its rule, built once.
type ruleSet[P any] struct {
	rules []rule[P]
	index map[string]ruleName
	// required has bit i set when rules[i] has a required func.
	required uint64
	// text has bit i set when a string value of rules[i] needs no more
	// than decodeText: a text field without watch func or sameAlias.
	text uint64
	// folded maps the folded form (foldKey) of every name and hint to its
	// rule, to recognise a field spelt another way.
	folded map[string]int
}

// ruleName is the rule an accepted key names, and which of the rule's
// names it is.
type ruleName struct {
	rule, nth uint8
}

// noFieldName is the name no field of any request has: the card-number
// member "pan" of other interfaces. A body in which the decoder ignored no
// member therefore holds none, and the lookup event's redaction does not
// look for one (redact.Limits.NoPAN).
const noFieldName = "pan"

// newRuleSet builds the rule set of an object from lists of rules, in
// order: requests that share fields (the browser, app and 3RI lookups)
// share the lists that hold them. It panics when two rules of the set
// take the same spelling, or the set is too large for the decoder.
func newRuleSet[P any](lists ...[]rule[P]) *ruleSet[P] {
	rules := slices.Concat(lists...)
	if len(rules) > maxRules {
		panic("wire: more rules in one object than maxRules")
	}
	s := &ruleSet[P]{rules: rules, index: make(map[string]ruleName), folded: make(map[string]int, 2*len(rules))}
	var buf [maxFoldedKey]byte
	aliases := 0
	for i, r := range rules {
		if len(r.names) > 8 {
			panic("wire: more than 8 names for one rule")
		}
		if r.required != nil {
			s.required |= 1 << i
		}
		if r.kind.takesText() && r.watch == nil && !r.sameAlias {
			s.text |= 1 << i
		}
		if r.sameAlias {
			aliases++
		}
		for n, name := range r.names {
			if name == noFieldName {
				panic("wire: a field named " + noFieldName + ": a body whose every member is known must hold none (redact.Limits.NoPAN)")
			}
			s.index[name] = ruleName{rule: uint8(i), nth: uint8(n)}
		}
		for _, name := range append(r.names[:len(r.names):len(r.names)], r.hints...) {
			folded, ok := foldKey(buf[:0], name)
			if other, taken := s.folded[string(folded)]; !ok || taken && other != i {
				panic("wire: spelling " + name + " of two rules, or too long")
			}
			s.folded[string(folded)] = i
		}
	}
	if aliases > 1 {
		panic("wire: more than one sameAlias rule in one object")
	}
	return s
}

// lookup returns the index of the rule that accepts key, and which of its
// names key is.
func (s *ruleSet[P]) lookup(key string) (rule, nth int, ok bool) {
	n, ok := s.index[key]
	return int(n.rule), int(n.nth), ok
}

// isEmpty tells whether v counts as absent: null or the empty string.
func isEmpty(v *value) bool {
	return v.kind == kindNull || v.kind == kindString && v.text == ""
}

// decodeField checks one present value, the member key of the object at
// prefix, against its rule and stores it.
func decodeField[P any](c *checker, r *rule[P], v *value, prefix, key string, dst P) {
	switch r.kind {
	case fieldRefused:
		c.add(join(prefix, key), emvFormat, r.refused)
	case fieldRaw:
		if code, reason := r.check(v.text); code != "" {
			c.add(join(prefix, key), code, reason)
			return
		}
		r.setString(dst, v.text)
	case fieldObject:
		// An object value is decoded by decodeObject as it is read; what
		// reaches here is another kind.
		c.add(join(prefix, key), emvFormat, "must be an object, got "+v.kind.String())
	case fieldBool:
		if v.kind != kindBool {
			c.add(join(prefix, key), emvFormat, "must be true or false, got "+v.kind.String())
			return
		}
		r.setBool(dst, v.boolean)
	case fieldInt:
		n, reason := intValue(v, r.min, r.max, r.maxLen)
		if reason != "" {
			c.add(join(prefix, key), emvFormat, reason)
			return
		}
		r.setInt(dst, n)
	case fieldString, fieldNumeric, fieldDecimal:
		s, reason := stringValue(v, r.kind != fieldString)
		if reason == "" && r.kind == fieldDecimal && v.kind == kindNumber {
			s, reason = plainDecimal(s, r.max)
		}
		if reason != "" {
			c.add(join(prefix, key), emvFormat, reason)
			return
		}
		decodeText(c, r, s, v.flags, prefix, key, dst)
	}
}

// decodeText checks the text s of a string field, the member key of the
// object at prefix, against its rule and stores it; fl tells what the
// reader found in s.
func decodeText[P any](c *checker, r *rule[P], s string, fl textFlags, prefix, key string, dst P) {
	n := len(s)
	if fl&textPlain == 0 || fl&textLone != 0 {
		var reason string
		if n, reason = textLength(s, fl&textLone != 0); reason != "" {
			c.add(join(prefix, key), emvFormat, reason)
			return
		}
	}
	if n < r.min || r.max > 0 && n > r.max {
		c.add(join(prefix, key), emvFormat, lengthReason(r.min, r.max, n))
		return
	}
	if r.check != nil {
		if code, reason := r.check(s); code != "" {
			c.add(join(prefix, key), code, reason)
			return
		}
	}
	// The value is a substring of the body, copied by whoever keeps it
	// beyond the request (the engine, for what it stores).
	r.setString(dst, s)
}

// textLength counts the characters of a string value that is not plain
// and returns the reason when it is not text a field may hold: a control
// character (Unicode Cc: U+0000 to U+001F, U+007F to U+009F, escaped or
// DEL sent as is), or a UTF-16 surrogate escape without its other half
// (lone), which the reader decoded as U+FFFD.
func textLength(s string, lone bool) (int, string) {
	if lone {
		return 0, "must be Unicode text: holds an escaped UTF-16 surrogate (\\uD800 to \\uDFFF) without its other half"
	}
	n := 0
	for _, r := range s {
		n++
		if r < 0x20 || r >= 0x7F && r < 0xA0 {
			return 0, fmt.Sprintf("must not hold control characters, got %U at character %d", r, n)
		}
	}
	return n, ""
}

// stringValue returns the text of a string field; a numeric field also
// takes a JSON number as written. The reason is set when v has another kind.
func stringValue(v *value, numeric bool) (string, string) {
	switch {
	case v.kind == kindString:
		return v.text, ""
	case numeric && v.kind == kindNumber:
		return v.text, ""
	case numeric:
		return "", "must be a string or a number, got " + v.kind.String()
	default:
		return "", "must be a string, got " + v.kind.String()
	}
}

func lengthReason(min, max, n int) string {
	var b strings.Builder
	b.WriteString("must be ")
	switch {
	case max == 0:
		b.WriteString("at least " + strconv.Itoa(min))
	case min == max:
		b.WriteString("exactly " + strconv.Itoa(max))
	case min <= 1:
		b.WriteString("at most " + strconv.Itoa(max))
	default:
		b.WriteString(strconv.Itoa(min) + " to " + strconv.Itoa(max))
	}
	b.WriteString(" characters long, got ")
	b.WriteString(strconv.Itoa(n))
	return b.String()
}

// intValue reads an integer field: a JSON integer or a string of digits,
// within [min, max] and, when maxLen is set, written in at most maxLen
// characters. It returns the reason when the value does not fit.
func intValue(v *value, min, max, maxLen int) (int, string) {
	var text string
	switch v.kind {
	case kindNumber:
		text = v.text
	case kindString:
		text = v.text
		if text == "" || text[0] == '-' || text[0] == '+' {
			return 0, "must be an integer, got " + quote(text)
		}
	default:
		return 0, "must be an integer, got " + v.kind.String()
	}
	digits := strings.TrimPrefix(text, "-")
	if !isDigits(digits) {
		return 0, "must be an integer, got " + quote(text)
	}
	if maxLen > 0 && len(text) > maxLen {
		return 0, "must be at most " + strconv.Itoa(maxLen) + " digits, got " + quote(text)
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < min || n > max { // err: too many digits for an int
		return 0, "must be between " + strconv.Itoa(min) + " and " + strconv.Itoa(max) + ", got " + quote(text)
	}
	return n, ""
}

// isDigits tells whether s is one or more ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
