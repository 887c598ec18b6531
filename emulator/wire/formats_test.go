package wire

import (
	"errors"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/text/language"
)

func TestLanguageTag(t *testing.T) {
	tests := []struct {
		tag string
		ok  bool
	}{
		{"en", true}, {"en-GB", true}, {"EN-gb", true}, {"fil-PH", true}, {"es-419", true},
		{"zh-Hant", true}, {"sr-Latn", true}, {"de-1996", true}, {"x-klingo", true}, {"und", true},
		{"zz", true}, {"qq", true}, {"xx-YY", true}, {"zzz-ZZ", true}, {"en-QQ", true}, {"es-999", true},
		{"123", false}, {"en_GB", false}, {"english", false}, {"en-", false}, {"-en", false},
		{"a", false}, {"e1", false}, {"en--GB", false}, {"en-GB-", false}, {"en GB", false}, {"en-GB1", false},
	}
	for _, tt := range tests {
		code, reason := languageTag(tt.tag)
		if (code == "") != tt.ok {
			t.Errorf("languageTag(%q) = %q, %q; want ok %v", tt.tag, code, reason, tt.ok)
		}
	}
	if _, reason := languageTag("en_GB"); !strings.Contains(reason, "not _") {
		t.Errorf("languageTag(en_GB) reason %q gives no hint", reason)
	}
}

// TestSimpleLanguageTag checks the allocation-free judgement of common
// tags against wellFormedTag (golang.org/x/text/language): every
// language of two letters and of three, every region with en, random
// pairs, and shapes it leaves to wellFormedTag.
func TestSimpleLanguageTag(t *testing.T) {
	letters := func(n, i int) string {
		b := make([]byte, n)
		for k := n - 1; k >= 0; k-- {
			b[k] = byte('a' + i%26)
			i /= 26
		}
		return string(b)
	}
	var tags []string
	for i := range 26 * 26 {
		tags = append(tags, letters(2, i), "en-"+strings.ToUpper(letters(2, i)))
	}
	for i := range 26 * 26 * 26 {
		tags = append(tags, letters(3, i))
	}
	for i := range 1000 {
		tags = append(tags, "es-"+string(rune('0'+i/100))+string(rune('0'+i/10%10))+string(rune('0'+i%10)))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		tag := letters(2+rng.IntN(2), rng.IntN(26*26*26)) + "-" + letters(2, rng.IntN(26*26))
		if rng.IntN(2) == 0 {
			tag = strings.ToUpper(tag)
		}
		tags = append(tags, tag)
	}
	for _, tag := range tags {
		if !simpleLanguageTag(tag) {
			t.Fatalf("simpleLanguageTag(%q) left a simple tag to wellFormedTag", tag)
		}
		if !wellFormedTag(tag) {
			t.Errorf("simpleLanguageTag(%q) took a tag golang.org/x/text/language finds malformed", tag)
		}
	}
	for _, tag := range []string{"a", "abcd", "en-G", "en-GBR", "en-12", "en-1234", "zh-Hant", "en-GB-x-a", "1e"} {
		if simpleLanguageTag(tag) {
			t.Errorf("simpleLanguageTag(%q) took a shape it leaves to wellFormedTag", tag)
		}
	}
}

// FuzzLanguageTag: on any text, languageTag takes what
// golang.org/x/text/language finds well-formed, known or not (but for
// '_', which Parse takes for '-').
func FuzzLanguageTag(f *testing.F) {
	for _, s := range []string{"en", "en-GB", "es-419", "zh-Hant", "123", "qq", "zz-ZZ", "en_GB", "x-a", "EN-gb", "i-klingon"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		code, _ := languageTag(s)
		_, err := language.Parse(s)
		wellFormed := err == nil || errors.As(err, new(language.ValueError))
		if want := wellFormed && !strings.Contains(s, "_"); (code == "") != want {
			t.Fatalf("languageTag(%q) ok %v, language.Parse error %v", s, code == "", err)
		}
	})
}

// TestPlainDecimal: a JSON number in any form becomes plain decimal text
// that the scenarios' amount selectors read.
func TestPlainDecimal(t *testing.T) {
	tests := []struct {
		num, want string
		ok        bool
	}{
		{"129.99", "129.99", true},
		{"0", "0", true},
		{"1.5e2", "150", true},
		{"1.50E+2", "150", true},
		{"125e-2", "1.25", true},
		{"1E-2", "0.01", true},
		{"0.001e3", "1", true},
		{"100e-2", "1", true},
		{"12.345e1", "123.45", true},
		{"0e999999999999999999999", "0", true},
		{"0.0e-5", "0", true},
		{"1e47", "1" + strings.Repeat("0", 47), true},
		{"1e48", "", false},
		{"1e-46", "0." + strings.Repeat("0", 45) + "1", true},
		{"1e-47", "", false},
		{"1e999999999999999999999", "", false},
		{"1e-999999999999999999999", "", false},
		{"-1", "", false},
		{"-0.5e1", "", false},
	}
	for _, tt := range tests {
		got, reason := plainDecimal(tt.num, 48)
		if got != tt.want || (reason == "") != tt.ok {
			t.Errorf("plainDecimal(%q) = %q, %q; want %q, ok %v", tt.num, got, reason, tt.want, tt.ok)
		}
		if tt.ok {
			if code, reason := decimal(got); code != "" {
				t.Errorf("plainDecimal(%q) = %q, which decimal refuses: %s", tt.num, got, reason)
			}
		}
	}
}

// parsedWebURL is webURL's verdict by url.Parse alone: the reference
// simpleWebURL is checked against.
func parsedWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Opaque == ""
}

// TestSimpleWebURL checks that every URL simpleWebURL accepts, url.Parse
// accepts too, on URLs of the plain shape with every byte in every part,
// and that webURL agrees with url.Parse on all of them.
func TestSimpleWebURL(t *testing.T) {
	urls := []string{
		"https://shop.example.com", "https://shop.example.com/checkout/3ds/notify", "http://a", "http://a/",
		"https://a.b/c d", "https://-.-", "https://a..b//x", "HTTPS://a.b", "Http://a.b", "https://a.b:443/x",
		"https://[::1]/x", "https://user@a.b/", "https://a.b/%20", "https://a.b/%zz", "https://a.b?q", "https://a.b#f",
		"https://a b/", "https://", "http:///x", "https:/a.b", "ftp://a.b", "https://a.b\\x", "https://é.b/",
		"https://a.b/é", "https://a.b/\x7f", "https://a_b.c/", "https://a.b:99999/",
	}
	for c := range 256 {
		for _, pattern := range []string{"https://a%cb/c", "https://ab/c%cd", "http://a.b%c", "https://%c"} {
			urls = append(urls, strings.ReplaceAll(pattern, "%c", string([]byte{byte(c)})))
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	alphabet := "aZ09.-/_~:@[]%?#  \\\x00\x7f\xc3\xa9!$&'()*+,;="
	for range 20000 {
		b := []byte([]string{"https://", "http://", "HTTP://", "https:/"}[rng.IntN(4)])
		for range rng.IntN(24) {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
		}
		urls = append(urls, string(b))
	}
	for _, u := range urls {
		if simpleWebURL(u) && !parsedWebURL(u) {
			t.Fatalf("simpleWebURL(%q) = true, url.Parse refuses it", u)
		}
		if code, _ := webURL(u); (code == "") != parsedWebURL(u) {
			t.Fatalf("webURL(%q) = %q, url.Parse says %v", u, code, parsedWebURL(u))
		}
	}
	for _, u := range []string{"https://shop.example.com", "https://shop.example.com/checkout/3ds/notify", "http://10.0.0.1/x"} {
		if !simpleWebURL(u) {
			t.Errorf("simpleWebURL(%q) = false, want it judged without url.Parse", u)
		}
	}
}

// FuzzWebURL: on any text, webURL agrees with url.Parse.
func FuzzWebURL(f *testing.F) {
	for _, s := range []string{"https://shop.example.com/x", "http://a", "https://[::1]:80/", "https://a.b/%zz", "HTTPS://A", "https://a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if code, _ := webURL(s); (code == "") != parsedWebURL(s) {
			t.Fatalf("webURL(%q) = %q, url.Parse says %v", s, code, parsedWebURL(s))
		}
	})
}

// TestUUID checks uuid against a character by character reading of the
// form, with every byte at every place of a valid UUID, and lowerASCII
// against strings.ToLower on what uuid accepts.
func TestUUID(t *testing.T) {
	slow := func(s string) bool {
		if len(s) != 36 {
			return false
		}
		for i := range 36 {
			c := s[i]
			switch i {
			case 8, 13, 18, 23:
				if c != '-' {
					return false
				}
			default:
				if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
					return false
				}
			}
		}
		return true
	}
	const valid = "8A880DC0-d2d2-4067-BCB1-b08d1690b26e"
	ids := []string{valid, strings.ToLower(valid), strings.ToUpper(valid), valid[:35], valid + "0", ""}
	for i := range 36 {
		for c := range 256 {
			b := []byte(valid)
			b[i] = byte(c)
			ids = append(ids, string(b))
		}
	}
	for _, id := range ids {
		code, _ := uuid(id)
		if ok := code == ""; ok != slow(id) {
			t.Fatalf("uuid(%q) accepts: %v, want %v", id, ok, !ok)
		}
		if code == "" && lowerASCII(id) != strings.ToLower(id) {
			t.Fatalf("lowerASCII(%q) = %q, want %q", id, lowerASCII(id), strings.ToLower(id))
		}
	}
}
