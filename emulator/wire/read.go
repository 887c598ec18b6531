package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
)

// This file reads a body's JSON token by token with jsontext, the syntax
// layer of encoding/json/v2, and adds what the rules need beyond the
// tokens: where each key and value lies in the body, how many keys an
// object and the body hold, how deep the values nest, which keys of the
// objects no rule knows come twice, and the dotted path of a value.

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

// kindOf is the kind of a value that begins with a token of kind k.
func kindOf(k jsontext.Kind) (kind, bool) {
	switch k {
	case 'n':
		return kindNull, true
	case 't', 'f':
		return kindBool, true
	case '0':
		return kindNumber, true
	case '"':
		return kindString, true
	case '{':
		return kindObject, true
	case '[':
		return kindArray, true
	}
	return 0, false
}

// value is what the rules see of a member's value: its kind and, for a
// string or a number, its text. The elements of an array and the members
// of an object no rule reads are checked but not kept: no field of the
// interface is an array.
type value struct {
	kind    kind
	boolean bool
	flags   textFlags // of a string; a number is plain
	text    string    // decoded string, or the number as written
}

// textFlags say what the reader found in a string.
type textFlags uint8

const (
	// textPlain: printable ASCII without escapes, so that its length
	// needs no rune count and it holds no control character.
	textPlain textFlags = 1 << iota
	// textLone: an escaped UTF-16 surrogate without its other half,
	// decoded as U+FFFD, as encoding/json does.
	textLone
)

// syntaxError is a body that is not one well-formed JSON object.
type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("%s at byte offset %d", e.msg, e.offset)
}

// duplicate is a key that repeats an earlier key of its object.
type duplicate struct {
	path   string
	offset int
}

// token is the place in the body of the token just read.
type token struct {
	kind       jsontext.Kind
	start, end int // its first byte, and the byte after it
}

// tokenizer is a jsontext.Decoder with the buffer it reads the body from.
// A decoder keeps its stacks from one body to the next, so tokenizers are
// reused (see tokenizers): a new one per request would allocate them anew.
type tokenizer struct {
	src bytes.Buffer
	dec jsontext.Decoder
}

// tokenizers keeps the tokenizers between requests.
var tokenizers = sync.Pool{New: func() any { return new(tokenizer) }}

// readOptions let the decoder pass what the rules judge themselves: a key
// sent twice (EMV 204, not a malformed body), and an escaped UTF-16
// surrogate without its other half (a 203 in a text field). The latter
// lets invalid UTF-8 through as well, which the reader refuses itself (see
// reader.firstError).
var readOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// reader reads one body.
type reader struct {
	t   *tokenizer
	dec *jsontext.Decoder
	// body is the body viewed as a string without a copy: keys and strings
	// without escapes are substrings of it, so a request costs no
	// allocation per string. Values kept beyond the request are copied by
	// whoever keeps them.
	body string
	// plain tells that the body holds no escape, DEL or byte beyond
	// ASCII, as most do: then every string is plain text as it stands.
	plain  bool
	limits limits
	keys   int // object keys read so far
	// keyDepth is the nesting depth of the object of the last key read,
	// 1 for the body's.
	keyDepth int
	dups     []duplicate // keys seen twice in one object
}

// open starts reading body within lim.
func (r *reader) open(body []byte, lim limits) {
	r.t = tokenizers.Get().(*tokenizer)
	r.t.src = *bytes.NewBuffer(body) // read in place: the decoder takes its bytes, not a copy
	r.dec = &r.t.dec
	r.dec.Reset(&r.t.src, readOptions...)
	r.body, r.limits = unsafe.String(unsafe.SliceData(body), len(body)), lim
	r.plain = bytes.IndexByte(body, '\\') < 0 && belowDEL(body)
}

// belowDEL tells whether every byte of b is below DEL (0x7F): ASCII, and
// no DEL. It reads eight bytes at a time: a byte from DEL on has its high
// bit set, or gets it when one is added (and only such a byte carries
// into the next).
func belowDEL(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	var seen uint64
	for ; len(b) >= 8; b = b[8:] {
		w := binary.LittleEndian.Uint64(b)
		seen |= w | (w + ones)
	}
	for _, c := range b {
		seen |= uint64(c) | uint64(c+1)
	}
	return seen&highs == 0
}

// close hands the tokenizer back, holding nothing of the body.
func (r *reader) close() {
	r.t.src = bytes.Buffer{}
	r.dec.Reset(&r.t.src, readOptions...)
	tokenizers.Put(r.t)
	r.t, r.dec = nil, nil
}

// openBody reads the '{' the body starts with, or tells what it holds
// instead.
func (r *reader) openBody() error {
	k := r.dec.PeekKind()
	if k == '{' {
		_, err := r.next()
		return err
	}
	if vk, ok := kindOf(k); ok {
		return &syntaxError{spaces(r.body), "body is a JSON " + vk.String() + ", want a JSON object"}
	}
	_, err := r.dec.ReadToken()
	if err == io.EOF {
		return &syntaxError{len(r.body), "empty body, want a JSON object"}
	}
	return r.syntax(err)
}

// closeBody checks that nothing but white space follows the body's
// object.
func (r *reader) closeBody() error {
	end := int(r.dec.InputOffset())
	if n := spaces(r.body[end:]); end+n != len(r.body) {
		return &syntaxError{end + n, "unexpected data after the JSON object"}
	}
	return nil
}

// spaces counts the white space at the start of s.
func spaces(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t\r\n"))
}

// next reads the next token: a value, or the end of the object or array
// being read.
func (r *reader) next() (token, error) {
	from := int(r.dec.InputOffset())
	tok, err := r.dec.ReadToken()
	if err != nil {
		return token{}, r.syntax(err)
	}
	t := token{kind: tok.Kind(), end: int(r.dec.InputOffset())}
	switch t.kind {
	case '"':
		// Only white space, ':' and ',' come before a token.
		t.start = from
		for r.body[t.start] != '"' {
			t.start++
		}
	case '0':
		t.start = from
		for c := r.body[t.start]; c != '-' && (c < '0' || c > '9'); c = r.body[t.start] {
			t.start++
		}
	case '{', '[':
		t.start = t.end - 1
		if r.dec.StackDepth() > maxDepth {
			return token{}, &syntaxError{t.start, fmt.Sprintf("JSON nested deeper than %d levels", maxDepth)}
		}
	}
	return t, nil
}

// key reads the key of the nth member of the object being read, and
// counts it against the limits; ok is false at the end of the object.
func (r *reader) key(nth int) (key string, offset int, ok bool, err error) {
	t, err := r.next()
	if err != nil || t.kind != '"' {
		return "", 0, false, err // the decoder takes nothing but a key or '}' here
	}
	r.keyDepth = r.dec.StackDepth()
	if err := r.count(nth, t.start); err != nil {
		return "", 0, false, err
	}
	key, _ = r.text(t)
	return key, t.start, true, nil
}

// text returns the decoded content of the string token t, and what it
// holds.
func (r *reader) text(t token) (string, textFlags) {
	s := r.body[t.start+1 : t.end-1]
	if r.plain {
		return s, textPlain
	}
	if strings.IndexByte(s, '\\') >= 0 {
		b, err := jsontext.AppendUnquote(nil, r.body[t.start:t.end])
		if err != nil {
			return string(b), textLone // the body's own UTF-8 is checked apart
		}
		return string(b), 0
	}
	for i := range len(s) {
		if s[i] >= 0x7F { // DEL, or a byte of a character beyond ASCII
			return s, 0
		}
	}
	return s, textPlain
}

// value returns the value that starts with t, read to its end; an object
// or an array is checked but not kept.
func (r *reader) value(t token) (value, error) {
	switch t.kind {
	case '"':
		s, fl := r.text(t)
		return value{kind: kindString, text: s, flags: fl}, nil
	case '0':
		return value{kind: kindNumber, text: r.body[t.start:t.end], flags: textPlain}, nil
	case 't':
		return value{kind: kindBool, boolean: true}, nil
	case 'f':
		return value{kind: kindBool}, nil
	case '{':
		return value{kind: kindObject}, r.skipObject()
	case '[':
		return value{kind: kindArray}, r.skipArray()
	}
	return value{kind: kindNull}, nil
}

// raw is the JSON text of v, the value that starts with t and that
// value just read: a string with its quotes, an object or an array
// whole, a number as written, true, false or null.
func (r *reader) raw(t token, v value) string {
	switch t.kind {
	case '"', '0':
		return r.body[t.start:t.end]
	case '{', '[':
		return r.body[t.start:int(r.dec.InputOffset())]
	case 't', 'f':
		if v.boolean {
			return "true"
		}
		return "false"
	}
	return "null"
}

// skipObject reads the rest of an object no rule reads, after its '{',
// and records the keys it has twice.
func (r *reader) skipObject() error {
	var seen keySet
	for n := 1; ; n++ {
		key, offset, ok, err := r.key(n)
		if !ok {
			return err
		}
		if seen.add(key) {
			r.dups = append(r.dups, duplicate{r.memberPath(key), offset})
		}
		t, err := r.next()
		if err == nil {
			_, err = r.value(t)
		}
		if err != nil {
			return err
		}
	}
}

// skipArray reads the rest of an array, after its '['.
func (r *reader) skipArray() error {
	for {
		t, err := r.next()
		if err != nil || t.kind == ']' {
			return err
		}
		if _, err := r.value(t); err != nil {
			return err
		}
	}
}

// memberPath is the dotted path of key, the key just read.
func (r *reader) memberPath(key string) string {
	if r.keyDepth == 1 {
		return pathKey(key)
	}
	return r.objectPath() + "." + pathKey(key)
}

// objectPath is the dotted path of the object whose key was just read:
// "a.b[2].c", "" for the body itself.
func (r *reader) objectPath() string {
	var b strings.Builder
	level := 0
	for name := range r.dec.StackPointer().Tokens() {
		if level++; level >= r.keyDepth {
			break
		}
		if k, _ := r.dec.StackIndex(level); k == '[' {
			b.WriteString("[" + name + "]")
			continue
		}
		if b.Len() > 0 && !strings.HasPrefix(name, "[") {
			b.WriteByte('.')
		}
		b.WriteString(pathKey(name))
	}
	return b.String()
}

// pathKey is how key appears in a dotted path: the empty key shows as "".
func pathKey(key string) string {
	if key == "" {
		return `""`
	}
	return key
}

// syntax turns an error of the decoder into the syntaxError of its place.
func (r *reader) syntax(err error) error {
	var se *jsontext.SyntacticError
	if !errors.As(err, &se) {
		return &syntaxError{int(r.dec.InputOffset()), err.Error()}
	}
	msg := se.Err.Error()
	if se.Err == io.ErrUnexpectedEOF {
		msg = "unexpected end of body"
	}
	return &syntaxError{int(se.ByteOffset), msg}
}

// firstError returns the error of the body that comes first: err, the
// one the reading stopped at (nil when it read the whole body), or
// invalid UTF-8 before it. The decoder lets invalid UTF-8 through in
// strings (see readOptions), and outside them it is a syntax error.
func (r *reader) firstError(err error) error {
	if r.plain {
		return err // ASCII
	}
	at := len(r.body)
	switch e := err.(type) {
	case *syntaxError:
		at = e.offset
	case *limitError:
		at = e.offset
	}
	if head := r.body[:at]; !utf8.ValidString(head) {
		for i, c := range head {
			if c == utf8.RuneError {
				if _, n := utf8.DecodeRuneInString(head[i:]); n == 1 {
					return &syntaxError{i, "string is not valid UTF-8"}
				}
			}
		}
	}
	return err
}

// keySet is the keys of one object that no rule names, in order, each
// once.
type keySet struct {
	keys []string
	// index holds the keys once there are more than fewKeys of them, so
	// that finding a duplicate costs the same whatever their number: the
	// decoder stays linear in the keys of the body.
	index map[string]struct{}
}

// fewKeys is how many keys of one object are searched one by one before
// they get a map: a real request has none or a handful unknown, and a
// scan of a few strings is cheaper than a map.
const fewKeys = 8

// add records key and tells whether the object had it already.
func (s *keySet) add(key string) (dup bool) {
	if s.index == nil {
		for _, k := range s.keys {
			if k == key {
				return true
			}
		}
		s.keys = append(s.keys, key)
		if len(s.keys) > fewKeys {
			s.index = make(map[string]struct{}, 4*fewKeys)
			for _, k := range s.keys {
				s.index[k] = struct{}{}
			}
		}
		return false
	}
	if _, ok := s.index[key]; ok {
		return true
	}
	s.index[key] = struct{}{}
	s.keys = append(s.keys, key)
	return false
}
