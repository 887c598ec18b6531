package emulator

import (
	"fmt"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// SchemeTable finds the card scheme of a PAN by its longest matching BIN
// prefix. It is immutable once built and safe for concurrent use.
type SchemeTable struct {
	prefixes map[string]string // prefix -> scheme
	longest  int
}

// NewSchemeTable builds the public BIN ranges of the reference (Visa 4,
// Mastercard 51-55 and 2221-2720, Amex 34/37, Discover 6011/644-649/65 and
// the Diners ranges 300-305/36/38/39, JCB 3528-3589, UnionPay 62/81), the
// Maestro ranges as Mastercard (5018, 5020, 5038, 5893, 6304, 6759,
// 6761-6763: Maestro is Mastercard's brand, authenticated through
// Mastercard Identity Check, and cardScheme has no MAESTRO), and adds
// extra, for domestic schemes such as ITMX and TPN that have no public range:
// a map from BIN prefix to scheme name. Extra prefixes win over the public
// ones when longer, as every prefix does.
func NewSchemeTable(extra map[string]string) (*SchemeTable, error) {
	t := &SchemeTable{prefixes: map[string]string{}}
	add := func(p, s string) {
		t.prefixes[p] = s
		if len(p) > t.longest {
			t.longest = len(p)
		}
	}
	add("4", scenarios.SchemeVisa)
	for p := 51; p <= 55; p++ {
		add(fmt.Sprint(p), scenarios.SchemeMastercard)
	}
	for p := 2221; p <= 2720; p++ {
		add(fmt.Sprint(p), scenarios.SchemeMastercard)
	}
	for _, p := range []string{"5018", "5020", "5038", "5893", "6304", "6759", "6761", "6762", "6763"} {
		add(p, scenarios.SchemeMastercard) // Maestro
	}
	add("34", scenarios.SchemeAmex)
	add("37", scenarios.SchemeAmex)
	add("6011", scenarios.SchemeDiscover)
	for p := 644; p <= 649; p++ {
		add(fmt.Sprint(p), scenarios.SchemeDiscover)
	}
	add("65", scenarios.SchemeDiscover)
	for p := 300; p <= 305; p++ {
		add(fmt.Sprint(p), scenarios.SchemeDiscover)
	}
	for _, p := range []string{"36", "38", "39"} {
		add(p, scenarios.SchemeDiscover)
	}
	for p := 3528; p <= 3589; p++ {
		add(fmt.Sprint(p), scenarios.SchemeJCB)
	}
	add("62", scenarios.SchemeUPI)
	add("81", scenarios.SchemeUPI)
	for p, s := range extra {
		if p == "" || strings.Trim(p, "0123456789") != "" || len(p) > 11 {
			return nil, fmt.Errorf("card scheme BIN %q: want 1 to 11 digits", p)
		}
		s = strings.ToUpper(s)
		if _, ok := scenarios.LookupScheme(s); !ok {
			return nil, fmt.Errorf("card scheme BIN %s: unknown scheme %q (want one of %s)", p, s, strings.Join(scenarios.SchemeNames(), ", "))
		}
		add(p, s)
	}
	return t, nil
}

// Scheme returns the scheme of pan, or UNKNOWN.
func (t *SchemeTable) Scheme(pan string) string {
	n := min(len(pan), t.longest)
	for ; n > 0; n-- {
		if s, ok := t.prefixes[pan[:n]]; ok {
			return s
		}
	}
	return scenarios.SchemeUnknown
}

// ParseBINList parses "463208=ITMX,557755=ITMX" into a prefix map.
func ParseBINList(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		p, scheme, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("card scheme BIN entry %q: want PREFIX=SCHEME", item)
		}
		m[strings.TrimSpace(p)] = strings.ToUpper(strings.TrimSpace(scheme))
	}
	return m, nil
}

// ECIFor returns the ECI the scheme table of the reference gives for a
// final status: Mastercard 02/01 for Y/A, every other scheme 05/06; N, U
// and R, not authenticated, 00 on Mastercard and 07 elsewhere (spec 2.13
// and 2.15 require an ECI on every final result); I (informational) gets
// Mastercard's 06 (SCA exemption) or 07 elsewhere; C none.
func ECIFor(scheme, status string) string {
	mc := scheme == scenarios.SchemeMastercard
	switch status {
	case "Y":
		if mc {
			return "02"
		}
		return "05"
	case "A":
		if mc {
			return "01"
		}
		return "06"
	case "I":
		if mc {
			return "06"
		}
		return "07"
	case "N", "U", "R":
		// Spec 2.13 and 2.15 make eci required on every final result:
		// not authenticated.
		if mc {
			return "00"
		}
		return "07"
	}
	return "" // C: no result yet
}
