package wire

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds a small JSON parser. It reads one value into a tree that
// keeps the value's kind, the text of numbers and the order of object
// members, and it records every key that appears twice in one object:
// things encoding/json either hides or reports one at a time. The decoder
// of stream.go drives it key by key for the objects its rules know, and
// hands it the values no rule knows.

// maxDepth bounds the nesting of objects and arrays. The interface itself
// nests two levels deep; the margin is for extensions the service ignores.
const maxDepth = 64

// kind is the JSON type of a value.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindObject
	kindArray
)

// String names the kind the way error reasons speak of it.
func (k kind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "boolean"
	case kindNumber:
		return "number"
	case kindString:
		return "string"
	case kindObject:
		return "object"
	default:
		return "array"
	}
}

// value is one node of the tree. Array elements are checked but not kept:
// no field of the interface is an array.
type value struct {
	kind    kind
	boolean bool
	// flags tell what stringFlags found in a string: textPlain marks one
	// of printable ASCII sent without escapes (its length is its rune
	// count and it holds no control character), textLone one that held an
	// escaped UTF-16 surrogate without its other half (decoded as U+FFFD,
	// as encoding/json does). A number is plain.
	flags   textFlags
	text    string   // decoded string, or the number as written
	members []member // object members in order, duplicates included
}

// member is one key of an object and its value.
type member struct {
	key    string
	offset int // of the key's opening quote
	val    value
}

// syntaxError is a body that is not one well-formed JSON object.
type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("%s at byte offset %d", e.msg, e.offset)
}

// parser reads one JSON document from data.
type parser struct {
	// data is the body viewed as a string without a copy: keys and
	// unescaped strings are substrings of it, so the tree costs no
	// allocation per string. Values kept beyond the parse are cloned by the
	// caller.
	data    string
	pos     int
	scratch []member    // members of the objects being parsed, innermost last
	pathBuf [8]string   // first backing array of path
	path    []string    // keys (and "[i]" indices) leading to the current value
	dups    []duplicate // keys seen twice in one object
	keys    int         // object keys read so far
	limits  limits
}

// duplicate is a key that repeats an earlier key of its object.
type duplicate struct {
	path   string
	offset int
}

// kindOf tells which kind of value starts with c.
func kindOf(c byte) (kind, bool) {
	switch {
	case c == '{':
		return kindObject, true
	case c == '[':
		return kindArray, true
	case c == '"':
		return kindString, true
	case c == 't' || c == 'f':
		return kindBool, true
	case c == 'n':
		return kindNull, true
	case c == '-' || c >= '0' && c <= '9':
		return kindNumber, true
	}
	return 0, false
}

// skipSpace skips the white space at p.pos. It is small enough to be
// inlined: most calls find none.
func (p *parser) skipSpace() {
	// uint: p.pos is never negative, and the compiler need not check.
	if uint(p.pos) < uint(len(p.data)) && p.data[p.pos] > ' ' {
		return
	}
	p.skipSpaceFrom()
}

// spaces has bit c set for each white space byte c of JSON.
const spaces = 1<<' ' | 1<<'\n' | 1<<'\t' | 1<<'\r'

// skipSpaceFrom is skipSpace once the byte at p.pos may be white space.
func (p *parser) skipSpaceFrom() {
	// Locals rather than p.pos and p.data in the loop: the compiler keeps
	// them in registers.
	data, i := p.data, uint(p.pos)
	for i < uint(len(data)) && (data[i] == ' ' || data[i] <= ' ' && spaces>>data[i]&1 != 0) {
		i++
	}
	p.pos = int(i)
}

// skipColon skips the ':' after an object key and the white space before
// it, and tells whether there was one.
func (p *parser) skipColon() bool {
	p.skipSpace()
	if p.pos >= len(p.data) || p.data[p.pos] != ':' {
		return false
	}
	p.pos++
	return true
}

// peek returns the byte at p.pos, or 0 at the end of the body.
func (p *parser) peek() byte {
	if uint(p.pos) < uint(len(p.data)) {
		return p.data[p.pos]
	}
	return 0
}

func (p *parser) errorf(format string, args ...any) error {
	return &syntaxError{p.pos, fmt.Sprintf(format, args...)}
}

// unexpected reports the byte at the current position (or the end of the
// body) where want was expected.
func (p *parser) unexpected(want string) error {
	if p.pos >= len(p.data) {
		return p.errorf("unexpected end of body, want %s", want)
	}
	r, _ := utf8.DecodeRuneInString(p.data[p.pos:])
	return p.errorf("invalid character %s, want %s", strconv.QuoteRune(r), want)
}

func (p *parser) value(depth int) (value, error) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return value{}, p.unexpected("a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return value{kind: kindArray}, p.array(depth + 1)
	case c == '"':
		s, fl, err := p.stringFlags()
		return value{kind: kindString, text: s, flags: fl}, err
	case c == 't':
		return value{kind: kindBool, boolean: true}, p.literal("true")
	case c == 'f':
		return value{kind: kindBool}, p.literal("false")
	case c == 'n':
		return value{kind: kindNull}, p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		s, err := p.number()
		return value{kind: kindNumber, text: s, flags: textPlain}, err
	}
	return value{}, p.unexpected("a value")
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || p.data[p.pos:p.pos+len(word)] != word {
		return p.errorf("invalid literal, want %s", word)
	}
	p.pos += len(word)
	return nil
}

func (p *parser) object(depth int) (value, error) {
	if depth > maxDepth {
		return value{}, p.errorf("JSON nested deeper than %d levels", maxDepth)
	}
	p.pos++ // {
	v := value{kind: kindObject}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	start := len(p.scratch)
	defer func() { p.scratch = p.scratch[:start] }()
	for n := 1; ; n++ {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return value{}, p.unexpected("a quoted object key")
		}
		offset := p.pos
		if err := p.countKey(n); err != nil {
			return value{}, err
		}
		key, err := p.string()
		if err != nil {
			return value{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return value{}, p.unexpected("':' after object key")
		}
		p.pos++
		p.path = append(p.path, key)
		val, err := p.value(depth)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return value{}, err
		}
		p.scratch = append(p.scratch, member{key: key, offset: offset, val: val})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return value{}, p.unexpected("',' or '}'")
		}
		if p.data[p.pos] == '}' {
			p.pos++
			break
		}
		if p.data[p.pos] != ',' {
			return value{}, p.unexpected("',' or '}'")
		}
		p.pos++
	}
	v.members = slices.Clone(p.scratch[start:])
	p.findDuplicates(v.members)
	return v, nil
}

// findDuplicates records each key that repeats an earlier key of the same
// object, once per repetition.
func (p *parser) findDuplicates(ms []member) {
	if len(ms) < 2 {
		return
	}
	if len(ms) <= 32 {
		// Quadratic but allocation-free for ordinary objects; keys are
		// compared only when a cheap fingerprint matches.
		var prints [32]uint32
		for i := range ms {
			prints[i] = fingerprint(ms[i].key)
			for j := 0; j < i; j++ {
				if prints[i] == prints[j] && ms[i].key == ms[j].key {
					p.dups = append(p.dups, duplicate{p.pathTo(ms[i].key), ms[i].offset})
					break
				}
			}
		}
		return
	}
	seen := make(map[string]struct{}, len(ms))
	for _, m := range ms {
		if _, ok := seen[m.key]; ok {
			p.dups = append(p.dups, duplicate{p.pathTo(m.key), m.offset})
			continue
		}
		seen[m.key] = struct{}{}
	}
}

// fingerprint sums up a key in a word: keys that differ in length, first
// or last byte (nearly all keys of one object) get different prints.
func fingerprint(key string) uint32 {
	if key == "" {
		return 0
	}
	return uint32(len(key))<<16 | uint32(key[0])<<8 | uint32(key[len(key)-1])
}

// pathTo is the dotted path of key inside the object being parsed.
func (p *parser) pathTo(key string) string {
	var b strings.Builder
	p.writePath(&b)
	if b.Len() > 0 {
		b.WriteByte('.')
	}
	b.WriteString(pathKey(key))
	return b.String()
}

// writePath writes the dotted path of the value being parsed.
func (p *parser) writePath(b *strings.Builder) {
	for _, k := range p.path {
		if b.Len() > 0 && !strings.HasPrefix(k, "[") {
			b.WriteByte('.')
		}
		b.WriteString(pathKey(k))
	}
}

// pathKey is how key appears in a dotted path: the empty key shows as "".
func pathKey(key string) string {
	if key == "" {
		return `""`
	}
	return key
}

func (p *parser) array(depth int) error {
	if depth > maxDepth {
		return p.errorf("JSON nested deeper than %d levels", maxDepth)
	}
	p.pos++ // [
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return nil
	}
	for i := 0; ; i++ {
		p.path = append(p.path, "["+strconv.Itoa(i)+"]")
		_, err := p.value(depth)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return p.unexpected("',' or ']'")
		}
		if p.data[p.pos] == ']' {
			p.pos++
			return nil
		}
		if p.data[p.pos] != ',' {
			return p.unexpected("',' or ']'")
		}
		p.pos++
	}
}

// number reads a number as RFC 8259 writes it and returns its text.
func (p *parser) number() (string, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case p.digits() == 0:
		return "", p.unexpected("a digit")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if p.digits() == 0 {
			return "", p.unexpected("a digit after the decimal point")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			return "", p.unexpected("a digit in the exponent")
		}
	}
	return p.data[start:p.pos], nil
}

// digits skips a run of decimal digits and returns its length.
func (p *parser) digits() int {
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}
