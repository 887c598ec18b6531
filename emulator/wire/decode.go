package wire

import (
	"math/bits"
	"slices"
	"sort"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// This file decodes a request as the reader reads it: the members of an
// object the rules know are checked and stored as they are read, and the
// values no rule knows (unknown fields, a duplicate's value) are read
// through, for the keys they repeat. The result is the one a two-pass
// decoder would give, problem for problem and in the same order; the
// points where a rule depends on a field read later are deferred (see
// checker.later).

// decoding is the state of one request's decoding into a T: the reader,
// the checker and the request, allocated at once (the rules' funcs get
// pointers to all three, so they live on the heap).
type decoding[T any] struct {
	r   reader
	c   checker
	req T
}

// decodeBody decodes body, which must hold one JSON object within lim,
// against set into d.req. It returns a syntax or limit error (EMV 101) as
// is; field problems go to d.c, duplicated keys first, in the order of
// the body.
func decodeBody[T any](d *decoding[T], body []byte, lim limits, set *ruleSet[*T]) error {
	r, c := &d.r, &d.c
	r.open(body, lim)
	err := r.openBody()
	if err == nil {
		err = decodeObject(r, c, "", set, &d.req)
	}
	if err == nil {
		err = r.closeBody()
	}
	err = r.firstError(err)
	r.close()
	if err != nil {
		return err
	}
	c.runDeferred()
	if len(r.dups) > 0 {
		// Objects report their duplicates as they are read, inner ones
		// from within the outer: put them in the order of the body.
		sort.Slice(r.dups, func(i, j int) bool { return r.dups[i].offset < r.dups[j].offset })
		dups := make([]emv.Problem, 0, len(r.dups)+len(c.problems))
		for _, d := range r.dups {
			dups = append(dups, emv.Problem{Field: d.path, EMVCode: emvDuplicate, Reason: "key sent more than once in the same object"})
		}
		c.problems = append(dups, c.problems...)
		if len(c.problems) > maxProblems {
			c.problems = c.problems[:maxProblems]
		}
	}
	return nil
}

// maxRules bounds the rules of one object the decoder keeps its state for
// on the stack and in the bits of a uint64 (at most 64); newRuleSet
// refuses a larger set when the package loads.
const maxRules = 40

// memberState is what decodeObject remembers of the rules of one object:
// which rules a member supplied and under which of their names, the value
// that supplied the sameAlias rule (for the comparison of aliases), and
// which names were seen at all (for duplicated keys). It is small, as it
// is cleared for every object.
type memberState struct {
	supplied  uint64          // bit i: a member supplied rules[i]
	nameSeen  [maxRules]uint8 // bit n of [i]: rules[i].names[n] was a key of this object
	firstName [maxRules]uint8 // which name of rules[i] supplied it
	aliasVal  leaf            // the value that supplied the sameAlias rule
	unknown   keySet          // keys no rule names
}

// leaf is what a comparison of two values looks at: kind and text.
type leaf struct {
	kind    kind
	boolean bool
	text    string
}

// decodeObject decodes the object whose '{' r just read, whose dotted
// path is prefix, against set into dst. Each member is checked and stored
// as it is read: no tree of the request is built or walked twice.
func decodeObject[P any](r *reader, c *checker, prefix string, set *ruleSet[P], dst P) error {
	var st memberState // for at most maxRules rules: newRuleSet checks
	for n := 1; ; n++ {
		key, offset, ok, err := r.key(n)
		if !ok {
			if err != nil {
				return err
			}
			break
		}
		t, err := r.next()
		if err != nil {
			return err
		}
		ri, ni, known := set.lookup(key)
		switch {
		case !known:
			err = unknownMember(r, c, &st, prefix, key, offset, t)
		case t.kind == '"' && set.text&^st.supplied&(1<<ri) != 0 && st.nameSeen[ri] == 0:
			// The first member of a text field that is a string, the
			// most common member: what decodeMember would do, in short.
			s, fl := r.text(t)
			st.nameSeen[ri] = 1 << ni
			if s != "" {
				st.supplied |= 1 << ri
				st.firstName[ri] = uint8(ni)
				decodeText(c, &set.rules[ri], s, fl, prefix, key, dst)
			}
		default:
			err = decodeMember(r, c, prefix, set, dst, &st, key, offset, ri, ni, t)
		}
		if err != nil {
			return err
		}
	}
	if len(st.unknown.keys) > 0 {
		findMisspelt(c, prefix, set, &st)
	}
	requireMissing(c, prefix, set, &st)
	return nil
}

// decodeMember reads the rest of the value of the member key (at offset),
// which starts with t, and applies its rule, rules[ri] (key is its name
// ni): the body of decodeObject's loop, where it takes no shorter way.
func decodeMember[P any](r *reader, c *checker, prefix string, set *ruleSet[P], dst P, st *memberState, key string, offset, ri, ni int, t token) error {
	rl := &set.rules[ri]
	firstOfKey := st.nameSeen[ri]&(1<<ni) == 0
	if !firstOfKey {
		r.dups = append(r.dups, duplicate{r.memberPath(key), offset})
	}
	st.nameSeen[ri] |= 1 << ni
	supplied := st.supplied&(1<<ri) != 0

	if t.kind == '{' && rl.kind == fieldObject && !supplied {
		// The first object of an object field: decoded as it is read.
		if firstOfKey && rl.watch != nil {
			rl.watch(c, value{kind: kindObject})
		}
		st.supplied |= 1 << ri
		st.firstName[ri] = uint8(ni)
		if rl.sameAlias {
			st.aliasVal = leaf{kind: kindObject}
		}
		path := rl.names[0] // a top-level object under its canonical name: no copy to make
		if prefix != "" || key != path {
			path = join(prefix, key)
		}
		return rl.object(c, r, path, dst)
	}
	v, err := r.value(t)
	if err != nil {
		return err
	}
	if firstOfKey && rl.watch != nil {
		rl.watch(c, v)
	}
	if supplied {
		switch first := rl.names[st.firstName[ri]]; {
		case int(st.firstName[ri]) == ni:
			// the same key twice: reported as a duplicate (204)
		case rl.sameAlias:
			f := &st.aliasVal
			if f.kind != v.kind || f.text != v.text || f.boolean != v.boolean {
				c.add(join(prefix, rl.names[0]), emvFormat, "sent as both "+first+" and "+key+" with different values")
			}
		default:
			c.add(join(prefix, key), emvDuplicate, "same field as "+join(prefix, first)+", sent under both names")
		}
		return nil
	}
	if isEmpty(&v) {
		return nil // null or "": absent; required fields are reported at the end
	}
	st.supplied |= 1 << ri
	st.firstName[ri] = uint8(ni)
	if rl.sameAlias {
		st.aliasVal = leaf{v.kind, v.boolean, v.text}
	}
	if rl.kind == fieldRaw {
		v.text = r.raw(t, v)
	}
	decodeField(c, rl, &v, prefix, key, dst)
	return nil
}

// unknownMember reads the rest of the value of the member key (at
// offset), which starts with t and which no rule of its object names: it
// is ignored, but for its duplicates.
func unknownMember(r *reader, c *checker, st *memberState, prefix, key string, offset int, t token) error {
	if st.unknown.add(key) {
		r.dups = append(r.dups, duplicate{r.memberPath(key), offset})
	}
	if len(c.ignored) < maxIgnored {
		c.ignore(join(prefix, key))
	}
	_, err := r.value(t)
	return err
}

// requireMissing reports, once the whole request is read, the required
// fields of the object at prefix that no member supplied. Whether a field
// is required may depend on a field read later (threeDsRequestorAuthInd
// after recurring), so the check is deferred, in its place in the order of
// problems.
func requireMissing[P any](c *checker, prefix string, set *ruleSet[P], st *memberState) {
	missing := set.required &^ st.supplied
	if missing == 0 {
		return
	}
	rules := set.rules
	if prefix == "" {
		// The top-level object ends last: everything is read, and its
		// problems go at the end anyway.
		for m := missing; m != 0; m &= m - 1 {
			if r := &rules[bits.TrailingZeros64(m)]; r.required(c) {
				c.add(r.names[0], emvMissing, "is required"+c.hintFor(prefix, r.names[0]))
			}
		}
		return
	}
	c.later(func(c *checker) {
		for m := missing; m != 0; m &= m - 1 {
			if r := &rules[bits.TrailingZeros64(m)]; r.required(c) {
				c.add(join(prefix, r.names[0]), emvMissing, "is required"+c.hintFor(prefix, r.names[0]))
			}
		}
	})
}

// misspelt is an unknown key of an object that names one of its absent
// fields another way: in another case or with separators (threeDSServerTransID,
// external_reference_id), or by a name EMV or other interfaces use
// (rule.hints: acctNumber for cardNumber).
type misspelt struct {
	prefix string // the object's dotted path
	name   string // the field's canonical name
	key    string // the key the body has instead
}

// findMisspelt records, for each field of the object at prefix that no
// member supplied, an unknown key of the same object that spells it
// another way. It costs a map lookup per unknown key.
func findMisspelt[P any](c *checker, prefix string, set *ruleSet[P], st *memberState) {
	var buf [maxFoldedKey]byte
	for _, key := range st.unknown.keys {
		folded, ok := foldKey(buf[:0], key)
		if !ok {
			continue
		}
		ri, known := set.folded[string(folded)]
		if !known || st.supplied&(1<<ri) != 0 {
			continue
		}
		if _, seen := c.misspeltKey(prefix, set.rules[ri].names[0]); seen {
			continue
		}
		c.misspelt = append(c.misspelt, misspelt{prefix, set.rules[ri].names[0], key})
	}
}

// maxFoldedKey bounds the keys findMisspelt compares: no field name comes
// near it.
const maxFoldedKey = 64

// foldKey appends to dst the form in which spellings of a field name are
// compared: ASCII letters in lower case, without '_', '-', '.' or spaces.
// It reports false for a key longer than maxFoldedKey.
func foldKey(dst []byte, key string) ([]byte, bool) {
	if len(key) > maxFoldedKey {
		return dst, false
	}
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case c == '_' || c == '-' || c == '.' || c == ' ':
		case c >= 'A' && c <= 'Z':
			dst = append(dst, c+'a'-'A')
		default:
			dst = append(dst, c)
		}
	}
	return dst, true
}

// misspeltKey returns the key that spells the field name of the object
// at prefix another way, if the body has one.
func (c *checker) misspeltKey(prefix, name string) (string, bool) {
	for _, m := range c.misspelt {
		if m.prefix == prefix && m.name == name {
			return m.key, true
		}
	}
	return "", false
}

// hintFor returns, for the field name of the object at prefix, the end of
// a reason that points at the key the body has instead, or "".
func (c *checker) hintFor(prefix, name string) string {
	if key, ok := c.misspeltKey(prefix, name); ok {
		return "; did you mean " + name + "? (the body has " + join(prefix, key) + ")"
	}
	return ""
}

// deferredCheck is a check that needs the whole request, and where its
// problems go in the list: at, the number of problems when it was due.
type deferredCheck struct {
	at    int
	check func(*checker)
}

// later defers check to the end of the request; its problems are put where
// they would be had it run now.
func (c *checker) later(check func(*checker)) {
	c.deferred = append(c.deferred, deferredCheck{len(c.problems), check})
}

// runDeferred runs the deferred checks and puts their problems in place.
// The last one goes in first, so checks due at the same place keep their
// order.
func (c *checker) runDeferred() {
	for i := len(c.deferred) - 1; i >= 0; i-- {
		d := c.deferred[i]
		kept := c.problems
		c.problems = nil
		d.check(c)
		if len(c.problems) > 0 {
			kept = slices.Insert(kept, min(d.at, len(kept)), c.problems...)
		}
		c.problems = kept
	}
	c.deferred = nil
	if len(c.problems) > maxProblems {
		c.problems = c.problems[:maxProblems]
	}
}
