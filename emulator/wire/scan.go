package wire

import (
	"math/bits"
	"unicode/utf8"
)

// This file holds the parser's reading of strings: eight bytes at a time
// up to the first byte that needs a look (a quote, a backslash, a control
// or non-ASCII byte), then byte by byte through escapes and UTF-8.

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
