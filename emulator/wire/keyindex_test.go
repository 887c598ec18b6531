package wire

import (
	"math/rand/v2"
	"testing"
)

// indexes are the key indexes of every rule set, by object.
func indexes() map[string]*keyIndex {
	return map[string]*keyIndex{
		"lookup": &lookupRules.index, "browserInfo": &browserRules.index, "card": &cardRules.index,
		"requestor": &requestorRules.index, "address": &addressRules.index, "purchase": &purchaseRules.index,
		"recurring": &recurringRules.index, "phone": &phoneRules.index, "accountInfo": &accountInfoRules.index,
		"additionalAccountInfo": &additionalInfoRules.index, "merchantRiskInfo": &merchantRiskRules.index,
		"enquiry": &enquiryRules.index, "ddc": &ddcRules.index,
	}
}

// checkFind compares x.find with a map of the names on key.
func checkFind(t *testing.T, object string, x *keyIndex, names map[string]ruleName, key string) {
	t.Helper()
	rule, nth, ok := x.find(key)
	want, wantOK := names[key]
	if ok != wantOK || ok && (rule != int(want.rule) || nth != int(want.nth)) {
		t.Fatalf("%s: find(%q) = %d, %d, %v; want %d, %d, %v", object, key, rule, nth, ok, want.rule, want.nth, wantOK)
	}
}

// TestKeyIndex checks that every index finds each of its names, and
// nothing else among keys that differ from them by a byte, a case, a
// length or their middle.
func TestKeyIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for object, x := range indexes() {
		names := map[string]ruleName{}
		for _, n := range x.names {
			names[n.name] = n
		}
		if len(names) != len(x.names) {
			t.Fatalf("%s: a name is accepted twice", object)
		}
		for _, n := range x.names {
			checkFind(t, object, x, names, n.name)
			b := []byte(n.name)
			for i := range b {
				for _, c := range []byte{b[i] ^ 0x20, b[i] + 1, 'x', 0, 0xff} {
					m := append([]byte(nil), b...)
					m[i] = c
					checkFind(t, object, x, names, string(m))
				}
			}
			for i := range len(b) + 1 {
				checkFind(t, object, x, names, n.name[:i])
				checkFind(t, object, x, names, n.name[:i]+"x"+n.name[i:])
			}
		}
		checkFind(t, object, x, names, "")
		for range 20000 {
			b := make([]byte, rng.IntN(40))
			for i := range b {
				b[i] = byte('a' + rng.IntN(26))
			}
			checkFind(t, object, x, names, string(b))
		}
	}
}

// FuzzKeyIndex checks the index of the lookup's top level against a map.
func FuzzKeyIndex(f *testing.F) {
	for _, n := range lookupRules.index.names {
		f.Add(n.name)
	}
	names := map[string]ruleName{}
	for _, n := range lookupRules.index.names {
		names[n.name] = n
	}
	f.Fuzz(func(t *testing.T, key string) {
		checkFind(t, "lookup", &lookupRules.index, names, key)
	})
}
