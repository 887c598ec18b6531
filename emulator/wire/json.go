package wire

import (
	"fmt"
	"math/bits"
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

// string reads a quoted string starting at the opening quote and returns
// its decoded content. Invalid UTF-8 is refused; a lone surrogate escape
// becomes U+FFFD, as encoding/json does.
func (p *parser) string() (string, error) {
	s, _, err := p.stringFlags()
	return s, err
}

// textFlags say what stringFlags found in a string.
type textFlags uint8

const (
	// textPlain: printable ASCII without escapes, so that its length
	// needs no rune count and it holds no control character.
	textPlain textFlags = 1 << iota
	// textLone: an escaped UTF-16 surrogate without its other half.
	textLone
	// textNonASCII, while a string is scanned: it holds a non-ASCII byte
	// (so it is not plain, and its UTF-8 is to be checked).
	textNonASCII
)

// stringFlags is string that also tells whether the content is plain
// and whether it held a lone surrogate.
func (p *parser) stringFlags() (string, textFlags, error) {
	data := p.data
	start := p.pos + 1 // after the opening quote
	// The common case, a plain string closed before the last eight bytes
	// of the body, read eight bytes at a time without a call.
	for i := start; i+8 <= len(data); i += 8 {
		if m := stopBytes(word(data, i)); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			if data[i] == '"' {
				p.pos = i + 1
				return data[start:i], textPlain, nil
			}
			return p.stringFrom(start, i)
		}
	}
	return p.stringFrom(start, start)
}

// stringFrom finishes stringFlags for the string whose content starts at
// start, from i on, where the bytes from start to i are plain.
func (p *parser) stringFrom(start, i int) (string, textFlags, error) {
	data := p.data
	p.pos = start
	fl := textPlain
	for ; ; i++ {
		i = scanPlain(data, i)
		if i >= len(data) {
			p.pos = len(data)
			return "", 0, p.errorf("unexpected end of body in string")
		}
		switch c := data[i]; {
		case c == '"':
			s := data[start:i]
			if fl&textNonASCII != 0 && !utf8.ValidString(s) {
				return "", 0, &syntaxError{start, "string is not valid UTF-8"}
			}
			p.pos = i + 1
			return s, fl & textPlain, nil
		case c == '\\':
			p.pos = i
			s, lone, err := p.escapedString(start)
			if lone {
				return s, textLone, err
			}
			return s, 0, err
		case c >= utf8.RuneSelf:
			fl = textNonASCII // not plain, and to be checked as UTF-8
		case c == 0x7F:
			fl &^= textPlain // DEL, a control character the fields refuse
		default:
			p.pos = i
			return "", 0, p.errorf("control character %#02x in string", c)
		}
	}
}

// scanPlain returns the index of the first byte of s from i on that stops
// a string scan (see stringStop), or len(s). It reads eight bytes at a
// time while eight are left.
func scanPlain(s string, i int) int {
	for ; i+8 <= len(s); i += 8 {
		if m := stopBytes(word(s, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(s) && !stringStop[s[i]] {
		i++
	}
	return i
}

// word reads the eight bytes of s from i on as a little-endian word: one
// load, where the compiler combines the byte loads. i+8 must not exceed
// len(s).
func word(s string, i int) uint64 {
	w := s[i : i+8]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// stopBytes returns a word with the high bit set in each byte of x that
// stops a string scan (see stringStop): a quote, a backslash, a control
// character (DEL included) or a non-ASCII byte, found all at once with a
// variant of the classic has-zero-byte bit trick. It may also mark bytes
// after the first stop, never one before it: the lowest marked byte is
// the first stop, and x has none when the result is zero.
func stopBytes(x uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	// Each term marks some stops among the ASCII bytes, and maybe
	// non-ASCII bytes, which x marks anyway:
	//   - x-0x20 wraps below 0 in the bytes below 0x20, the controls;
	//   - q-1 and b-1 wrap in the bytes where q or b is zero, the quotes
	//     and backslashes;
	//   - x+1 reaches 0x80 in DEL.
	// A borrow or carry into the next byte comes only from a byte that
	// wraps, itself a stop, or from 0xFF: the bytes before the first stop
	// are judged right.
	q := x ^ ('"' * ones)
	b := x ^ ('\\' * ones)
	return (x | (x - 0x20*ones) | (q - ones) | (b - ones) | (x + ones)) & highs
}

// plainWord tells whether none of the 8 bytes of w stops a string scan.
func plainWord(w string) bool { return stopBytes(word(w, 0)) == 0 }

// stringStop marks the bytes a string scan must look at: the closing
// quote, a backslash, control characters, and DEL and non-ASCII bytes
// (which only mean the string is not plain, and the latter that it needs
// a UTF-8 check).
var stringStop = func() (t [256]bool) {
	for c := range t {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x7F
	}
	return t
}()

// escapedString finishes a string that holds escapes; p.pos is on the first
// backslash and start at the first byte of the content. lone tells whether
// an escape was a UTF-16 surrogate without its other half.
func (p *parser) escapedString(start int) (s string, lone bool, err error) {
	buf := make([]byte, 0, p.pos-start+16)
	buf = append(buf, p.data[start:p.pos]...)
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			if !utf8.Valid(buf) {
				return "", false, &syntaxError{start, "string is not valid UTF-8"}
			}
			p.pos++
			return string(buf), lone, nil
		case c < 0x20:
			return "", false, p.errorf("control character %#02x in string", c)
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		p.pos++ // backslash
		if p.pos >= len(p.data) {
			break
		}
		switch e := p.data[p.pos]; e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, half, err := p.unicodeEscape()
			if err != nil {
				return "", false, err
			}
			lone = lone || half
			buf = utf8.AppendRune(buf, r)
			continue
		default:
			return "", false, p.errorf("invalid escape sequence \\%c in string", e)
		}
		p.pos++
	}
	return "", false, p.errorf("unexpected end of body in string")
}

// unicodeEscape reads \uXXXX (p.pos on the 'u'), joining a surrogate pair.
// A surrogate without its other half gives U+FFFD and lone.
func (p *parser) unicodeEscape() (r rune, lone bool, err error) {
	r, err = p.hex4()
	if err != nil {
		return 0, false, err
	}
	if !utf16IsSurrogate(r) {
		return r, false, nil
	}
	// A high surrogate may be followed by \uXXXX holding the low half.
	if r < 0xDC00 && p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
		save := p.pos
		p.pos++
		lo, err := p.hex4()
		if err != nil {
			return 0, false, err
		}
		if lo >= 0xDC00 && lo < 0xE000 {
			return (r-0xD800)<<10 | (lo - 0xDC00) + 0x10000, false, nil
		}
		p.pos = save
	}
	return utf8.RuneError, true, nil
}

func utf16IsSurrogate(r rune) bool { return r >= 0xD800 && r < 0xE000 }

// hex4 reads the four hex digits after the 'u' at p.pos and leaves p.pos
// after them.
func (p *parser) hex4() (rune, error) {
	p.pos++ // u
	if len(p.data)-p.pos < 4 {
		return 0, p.errorf("truncated \\u escape in string")
	}
	var r rune
	for i := p.pos; i < p.pos+4; i++ {
		c := p.data[i]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, p.errorf("invalid \\u escape in string")
		}
		r = r<<4 | rune(d)
	}
	p.pos += 4
	return r, nil
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
