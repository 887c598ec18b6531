package wire

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The decoders take shortcuts for the bodies most clients send (a body
// without escapes or characters beyond ASCII, a text field's first string
// member) and fall back to the general path for the others.
// TestDecodeLayouts checks that the layout of a body never changes its
// decoding: the same JSON value written compact, pretty-printed, with
// random white space and with escaped strings gives the same request,
// ignored fields and error, for many generated variants of the example
// requests.

// jsonNode is a JSON value that keeps the order of object members and
// the text of numbers, to be written in several layouts.
type jsonNode struct {
	kind    byte // 's' string, 'n' number, 'b' boolean, 'z' null, 'o' object, 'a' array
	text    string
	boolean bool
	keys    []string
	vals    []*jsonNode // object members, or array elements
}

// parseNode reads one JSON value from dec, members in order.
func parseNode(dec *json.Decoder) *jsonNode {
	tok, err := dec.Token()
	if err != nil {
		panic(err)
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &jsonNode{kind: 'a'}
		if t == '{' {
			n.kind = 'o'
		}
		for dec.More() {
			if n.kind == 'o' {
				k, _ := dec.Token()
				n.keys = append(n.keys, k.(string))
			}
			n.vals = append(n.vals, parseNode(dec))
		}
		dec.Token() // the closing delimiter
		return n
	case string:
		return &jsonNode{kind: 's', text: t}
	case json.Number:
		return &jsonNode{kind: 'n', text: string(t)}
	case bool:
		return &jsonNode{kind: 'b', boolean: t}
	}
	return &jsonNode{kind: 'z'}
}

func parseNodes(tb testing.TB, body string) *jsonNode {
	tb.Helper()
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	return parseNode(dec)
}

func (n *jsonNode) clone() *jsonNode {
	c := *n
	c.keys = append([]string(nil), n.keys...)
	c.vals = nil
	for _, v := range n.vals {
		c.vals = append(c.vals, v.clone())
	}
	return &c
}

// objects appends the objects of the tree at n to out.
func (n *jsonNode) objects(out []*jsonNode) []*jsonNode {
	if n.kind == 'o' {
		out = append(out, n)
	}
	for _, v := range n.vals {
		out = v.objects(out)
	}
	return out
}

// Values and keys the variants are made of: valid and invalid forms of
// the fields, aliases, hints and misspellings of their names.
var (
	layoutStrings = []string{"", "01", "02", "03", "05", "07", "Y", "x", "2.1.0", "2.2.0", "2.0.0", "9.9.9", "EUR", "eur",
		"978", "XTS", "999", "XYZ", "GBR", "826", "20240229", "20230229", "2812", "2813", "20240611140012",
		"2024-06-11 14:03:27", "4000000000009003", "4000", "jane@example.com", "jane@", "https://shop.example.com/x",
		"https://[::1]:8080/x", "https://a.b/%zz", "ftp://x", "203.0.113.42", "::1", "1.2.3", "en-GB", "en_GB", "qq",
		"-60", "721", "+60", "24", "10.99", "10.999", "1e2", "LND", "L-D", "8A880DC0-D2D2-4067-BCB1-B08D1690B26E",
		"8a880dc0-d2d2-4067-bcb1-b08d1690b26z", "ddc-8A880DC0", "a\x00b", "\x7f", "é", "日本語", "\u0085", "\U0001F600",
		"<J>", "tab\t", strings.Repeat("x", 60), "\"q\"", "back\\slash"}
	layoutNumbers = []string{"0", "1", "2", "3", "5", "99", "-1", "1.5", "1e2", "125E-2", "0e9", "1E-400", "1e400",
		"18446744073709551616", "-0", "129.99", "10080", "10081", "-60", "720", "999"}
	layoutKeys = []string{"acquirerBIN", "acquirerBin", "threeDsRequestorDecMaxTime", "accountAgeIndicator", "chAccAgeInd",
		"acctNumber", "cardNumber", "CARD_NUMBER", "external_reference_id", "threeDSServerTransID", "DDC_ID", "purchaseAmount",
		"currency", "cc", "installmentData", "instalmentData", "recurring", "colourDepth", "merchantId", "x", "", "a b",
		"threeDsServerTransId", "externalReferenceId", "notificationUrl", "threeDSMethodNotificationURL", "ddcId", "card"}
)

func layoutLeaf(rng *rand.Rand) *jsonNode {
	switch rng.IntN(10) {
	case 0, 1, 2, 3, 4:
		return &jsonNode{kind: 's', text: layoutStrings[rng.IntN(len(layoutStrings))]}
	case 5, 6:
		return &jsonNode{kind: 'n', text: layoutNumbers[rng.IntN(len(layoutNumbers))]}
	case 7:
		return &jsonNode{kind: 'b', boolean: rng.IntN(2) == 0}
	case 8:
		return &jsonNode{kind: 'z'}
	default:
		return &jsonNode{kind: 'o', keys: []string{"k", "k"}, vals: []*jsonNode{{kind: 'a', vals: []*jsonNode{{kind: 'z'}}}, {kind: 'o'}}}
	}
}

// vary changes one member of one object of the tree at root: its value,
// its key, its place, or its presence, or adds one.
func vary(rng *rand.Rand, root *jsonNode) {
	objs := root.objects(nil)
	o := objs[rng.IntN(len(objs))]
	if len(o.keys) == 0 {
		o.keys, o.vals = append(o.keys, layoutKeys[rng.IntN(len(layoutKeys))]), append(o.vals, layoutLeaf(rng))
		return
	}
	i := rng.IntN(len(o.keys))
	switch rng.IntN(7) {
	case 0:
		if v := o.vals[i]; v.kind == 's' && v.text != "" {
			b := []byte(v.text)
			b[rng.IntN(len(b))] = "09aZ-. "[rng.IntN(7)]
			v.text = string(b)
		} else {
			o.vals[i] = layoutLeaf(rng)
		}
	case 1:
		o.vals[i] = layoutLeaf(rng)
	case 2:
		o.keys, o.vals = append(o.keys[:i], o.keys[i+1:]...), append(o.vals[:i], o.vals[i+1:]...)
	case 3: // the same key again, here or elsewhere
		v := o.vals[i].clone()
		if rng.IntN(2) == 0 {
			v = layoutLeaf(rng)
		}
		o.keys, o.vals = append(o.keys, o.keys[i]), append(o.vals, v)
	case 4:
		o.keys[i] = layoutKeys[rng.IntN(len(layoutKeys))]
	case 5:
		j := rng.IntN(len(o.keys))
		o.keys[i], o.keys[j], o.vals[i], o.vals[j] = o.keys[j], o.keys[i], o.vals[j], o.vals[i]
	default:
		o.keys, o.vals = append(o.keys, layoutKeys[rng.IntN(len(layoutKeys))]), append(o.vals, o.vals[i].clone())
	}
}

// layout writes JSON values in one of the layouts: 0 compact, 1
// pretty-printed, 2 random white space, 3 compact with escaped strings.
type layout struct {
	style int
	rng   *rand.Rand
	b     []byte
}

func (l *layout) space(depth int) {
	switch l.style {
	case 1:
		l.b = append(l.b, '\n')
		l.b = append(l.b, strings.Repeat("  ", depth)...)
	case 2:
		for range l.rng.IntN(4) {
			l.b = append(l.b, " \t\n\r"[l.rng.IntN(4)])
		}
	}
}

func (l *layout) str(s string) {
	if l.style != 3 {
		q, _ := json.Marshal(s)
		l.b = append(l.b, q...)
		return
	}
	l.b = append(l.b, '"')
	for _, r := range s {
		switch {
		case r > 0xFFFF:
			l.b = fmt.Appendf(l.b, `\u%04x\u%04X`, 0xD800+(r-0x10000)>>10, 0xDC00+(r-0x10000)&0x3FF)
		case r < 0x20 || r == '"' || r == '\\' || l.rng.IntN(4) == 0:
			l.b = fmt.Appendf(l.b, `\u%04x`, r)
		default:
			l.b = append(l.b, string(r)...)
		}
	}
	l.b = append(l.b, '"')
}

func (l *layout) write(n *jsonNode, depth int) {
	switch n.kind {
	case 's':
		l.str(n.text)
	case 'n':
		l.b = append(l.b, n.text...)
	case 'b':
		l.b = strconv.AppendBool(l.b, n.boolean)
	case 'z':
		l.b = append(l.b, "null"...)
	default:
		open, end := byte('['), byte(']')
		if n.kind == 'o' {
			open, end = '{', '}'
		}
		l.b = append(l.b, open)
		for i, v := range n.vals {
			if i > 0 {
				l.b = append(l.b, ',')
			}
			l.space(depth + 1)
			if n.kind == 'o' {
				l.str(n.keys[i])
				if l.style == 2 {
					l.space(0)
				}
				l.b = append(l.b, ':')
				switch l.style {
				case 1:
					l.b = append(l.b, ' ')
				case 2:
					l.space(0)
				}
			}
			l.write(v, depth+1)
		}
		if len(n.vals) > 0 {
			l.space(depth)
		}
		l.b = append(l.b, end)
	}
}

// decoded is what the four JSON decoders make of a body.
type decoded struct {
	lookup, threeRI, enquiry, ddc []any
}

func decodeAll(body []byte) decoded {
	var d decoded
	r, ig, err := DecodeLookup(body)
	d.lookup = []any{r, ig, err}
	r, ig, err = DecodeThreeRI(body)
	d.threeRI = []any{r, ig, err}
	q, ig, err := DecodeEnquiry(body)
	d.enquiry = []any{q, ig, err}
	c, ig, err := DecodeDDC(body)
	d.ddc = []any{c, ig, err}
	return d
}

func TestDecodeLayouts(t *testing.T) {
	bases := []*jsonNode{parseNodes(t, string(baseBody(t))), parseNodes(t, string(threeRIBody(t, set("threeDsRequestorPriorAuthenticationInfo",
		map[string]any{"threeDsReqPriorRef": "8a880dc0-d2d2-4067-bcb1-b08d1690b26e", "threeDsReqPriorAuthTimestamp": "202406111403"})))),
		parseNodes(t, enquiryBody),
		parseNodes(t, `{"card":{"cardNumber":"4000000000001000"},"threeDSMethodNotificationURL":"https://a.example/x","ddcId":"abc"}`)}
	rng := rand.New(rand.NewPCG(11, 12))
	runs := 3000
	if testing.Short() {
		runs = 300
	}
	for range runs {
		tree := bases[rng.IntN(len(bases))].clone()
		for range 1 + rng.IntN(4) {
			vary(rng, tree)
		}
		var bodies [4][]byte
		for style := range bodies {
			l := layout{style: style, rng: rng}
			l.write(tree, 0)
			bodies[style] = l.b
		}
		want := decodeAll(bodies[0])
		for _, body := range bodies[1:] {
			if got := decodeAll(body); !reflect.DeepEqual(got, want) {
				t.Fatalf("the layout changes the decoding:\n%s\ngives %+v\n%s\ngives %+v", bodies[0], want, body, got)
			}
		}
	}
}
