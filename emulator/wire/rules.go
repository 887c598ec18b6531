package wire

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
)

// This file holds the table-driven machinery that checks one JSON object
// against the rules of its fields and fills a typed struct.

// EMV error codes of field problems.
const (
	emvMissing   = "201"
	emvFormat    = "203"
	emvDuplicate = "204"
	emvISO       = "304"
	emvVersion   = "102"
)

// fieldKind is how a field's JSON value is read.
type fieldKind uint8

const (
	// fieldString takes a JSON string.
	fieldString fieldKind = iota
	// fieldNumeric takes a JSON string or, as a leniency, a JSON number
	// whose text is then kept as the string.
	fieldNumeric
	// fieldInt takes a JSON integer or, as a leniency, a string of digits.
	fieldInt
	// fieldBool takes a JSON boolean.
	fieldBool
	// fieldObject takes a JSON object, decoded by rule.object.
	fieldObject
)

// rule describes one field of an object.
type rule[T any] struct {
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
	// sameAlias accepts two names of the field when their values are
	// equal (and reports 203 on the canonical name when they differ)
	// instead of reporting the second one as a duplicate (204).
	sameAlias bool

	setString func(*T, string)
	setInt    func(*T, int)
	setBool   func(*T, bool)
	object    func(c *checker, v *value, path string, dst *T)
}

// always is the required func of a field that is always required.
func always(*checker) bool { return true }

// checker collects what is wrong with one request and which fields were
// ignored, plus the request-wide values that conditional rules depend on.
type checker struct {
	problems []emulator.Problem
	ignored  []string

	authInd         string // threeDsRequestorAuthInd as sent, if a string
	messageCategory string // messageCategory as sent, if a string
	jsDisabled      bool   // browserInfo.javascriptEnabled is false
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
		c.problems = append(c.problems, emulator.Problem{Field: path, EMVCode: code, Reason: reason})
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
type ruleSet[T any] struct {
	rules []rule[T]
	// byLen[n] lists the accepted keys of n bytes: an object has a few
	// dozen keys of varied lengths, so a lookup compares one or two
	// strings, cheaper than hashing the key for a map.
	byLen [][]ruleName
}

// ruleName is one accepted key and the index of its rule.
type ruleName struct {
	name string
	rule int
}

func newRuleSet[T any](rules []rule[T]) *ruleSet[T] {
	s := &ruleSet[T]{rules: rules}
	for i, r := range rules {
		for _, n := range r.names {
			for len(s.byLen) <= len(n) {
				s.byLen = append(s.byLen, nil)
			}
			s.byLen[len(n)] = append(s.byLen[len(n)], ruleName{n, i})
		}
	}
	return s
}

// lookup returns the index of the rule that accepts key.
func (s *ruleSet[T]) lookup(key string) (int, bool) {
	if len(key) >= len(s.byLen) {
		return 0, false
	}
	for _, n := range s.byLen[len(key)] {
		if n.name == key {
			return n.rule, true
		}
	}
	return 0, false
}

// decodeObject checks every member of obj against the set's rules, stores
// the valid values in dst, records members no rule names as ignored, and
// reports required fields that are missing. prefix is the object's path.
func decodeObject[T any](c *checker, obj *value, prefix string, set *ruleSet[T], dst *T) {
	rules := set.rules
	// seen[i] is the index+1 of the member that supplied rule i.
	var seenBuf [40]int
	var seen []int
	if len(rules) <= len(seenBuf) {
		seen = seenBuf[:len(rules)]
	} else {
		seen = make([]int, len(rules))
	}
	for mi := range obj.members {
		m := &obj.members[mi]
		ri, ok := set.lookup(m.key)
		if !ok {
			if len(c.ignored) < maxIgnored {
				c.ignore(join(prefix, m.key))
			}
			continue
		}
		r := &rules[ri]
		if prev := seen[ri]; prev != 0 {
			first := &obj.members[prev-1]
			switch {
			case first.key == m.key:
				// the same key twice: the parser reported it (204)
			case r.sameAlias:
				if first.val.kind != m.val.kind || first.val.text != m.val.text || first.val.boolean != m.val.boolean {
					c.add(join(prefix, r.names[0]), emvFormat, "sent as both "+first.key+" and "+m.key+" with different values")
				}
			default:
				c.add(join(prefix, m.key), emvDuplicate, "same field as "+join(prefix, first.key)+", sent under both names")
			}
			continue
		}
		if isEmpty(&m.val) {
			continue // null or "": absent; required fields are reported below
		}
		seen[ri] = mi + 1
		decodeField(c, r, &m.val, prefix, m.key, dst)
	}
	for ri := range rules {
		r := &rules[ri]
		if seen[ri] == 0 && r.required != nil && r.required(c) {
			c.add(join(prefix, r.names[0]), emvMissing, "is required")
		}
	}
}

// isEmpty tells whether v counts as absent: null or the empty string.
func isEmpty(v *value) bool {
	return v.kind == kindNull || v.kind == kindString && v.text == ""
}

// decodeField checks one present value, the member key of the object at
// prefix, against its rule and stores it.
func decodeField[T any](c *checker, r *rule[T], v *value, prefix, key string, dst *T) {
	switch r.kind {
	case fieldObject:
		if v.kind != kindObject {
			c.add(join(prefix, key), emvFormat, "must be an object, got "+v.kind.String())
			return
		}
		path := r.names[0] // a top-level object under its canonical name: no copy to make
		if prefix != "" || key != path {
			path = join(prefix, key)
		}
		r.object(c, v, path, dst)
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
	case fieldString, fieldNumeric:
		s, reason := stringValue(v, r.kind == fieldNumeric)
		if reason != "" {
			c.add(join(prefix, key), emvFormat, reason)
			return
		}
		n := len(s)
		if !v.ascii {
			n = utf8.RuneCountInString(s)
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
		// The value is a substring of the body, copied by whoever keeps
		// it beyond the request (the engine, for what it stores).
		r.setString(dst, s)
	}
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
