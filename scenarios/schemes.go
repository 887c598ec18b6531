package scenarios

import "strings"

// Card schemes as the interface names them (spec 2.13 cardScheme).
const (
	SchemeVisa       = "VISA"
	SchemeMastercard = "MASTERCARD"
	SchemeAmex       = "AMEX"
	SchemeDiscover   = "DISCOVER"
	SchemeJCB        = "JCB"
	SchemeUPI        = "UPI"
	SchemeITMX       = "ITMX"
	SchemeTPN        = "TPN"
	SchemeUnknown    = "UNKNOWN"
)

// Scheme is one card scheme of the interface and how the pages present
// it. The list of [Schemes] is the one place the schemes are written out:
// the engine's BIN table, the scenario schema, the OpenAPI document, the
// challenge page and the console all take theirs from it (tests tie the
// JSON documents to it).
type Scheme struct {
	// Name is the cardScheme value, e.g. "VISA".
	Name string
	// Program is the name of the scheme's 3-D Secure programme the
	// challenge page shows, e.g. "Visa Secure".
	Program string
	// Mark is the short mark drawn in the challenge page's header; empty
	// for Mastercard, whose mark is its two circles.
	Mark string
	// Style is the key of the page's colours: CSS class scheme-<Style>.
	Style string
}

// genericScheme presents a scheme with no programme of its own on the
// pages: the domestic ITMX and TPN, and UNKNOWN.
var genericScheme = Scheme{Program: "3-D Secure", Mark: "3DS", Style: "generic"}

// schemes is every scheme of the interface, in the order the console
// shows them and the documents list them.
var schemes = [...]Scheme{
	{Name: SchemeVisa, Program: "Visa Secure", Mark: "VISA", Style: "visa"},
	{Name: SchemeMastercard, Program: "Mastercard Identity Check", Style: "mastercard"},
	{Name: SchemeAmex, Program: "American Express SafeKey", Mark: "AMEX", Style: "amex"},
	{Name: SchemeDiscover, Program: "Discover ProtectBuy", Mark: "DISCOVER", Style: "discover"},
	{Name: SchemeJCB, Program: "JCB J/Secure", Mark: "JCB", Style: "jcb"},
	{Name: SchemeUPI, Program: "UnionPay 3-D Secure", Mark: "UnionPay", Style: "upi"},
	{Name: SchemeITMX, Program: genericScheme.Program, Mark: genericScheme.Mark, Style: genericScheme.Style},
	{Name: SchemeTPN, Program: genericScheme.Program, Mark: genericScheme.Mark, Style: genericScheme.Style},
	{Name: SchemeUnknown, Program: genericScheme.Program, Mark: genericScheme.Mark, Style: genericScheme.Style},
}

// Schemes returns every card scheme of the interface, in display order.
func Schemes() []Scheme { return append([]Scheme(nil), schemes[:]...) }

// SchemeNames returns the cardScheme values of [Schemes], in display order.
func SchemeNames() []string {
	out := make([]string, len(schemes))
	for i, s := range schemes {
		out[i] = s.Name
	}
	return out
}

// SchemeRank is the place of a scheme in display order, from 0; a name
// the interface does not define ranks after all of them.
func SchemeRank(name string) int {
	for i, s := range schemes {
		if s.Name == name {
			return i
		}
	}
	return len(schemes)
}

// LookupScheme returns the scheme named name, case-insensitively, and
// whether the interface defines it. For any other name it returns the
// generic presentation, named name.
func LookupScheme(name string) (Scheme, bool) {
	name = strings.ToUpper(strings.TrimSpace(name))
	for _, s := range schemes {
		if s.Name == name {
			return s, true
		}
	}
	g := genericScheme
	g.Name = name
	return g, false
}
