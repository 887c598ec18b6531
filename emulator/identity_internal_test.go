package emulator

import (
	"strings"
	"testing"
)

// TestACSTransIDPermutation: the acsTransID is a keyed permutation of the
// threeDSServerTransID that keeps a version 4 UUID one, and its inverse
// gives the threeDSServerTransID back.
func TestACSTransIDPermutation(t *testing.T) {
	// Fixed pairs: the key is compiled in, so an acsTransID stays the
	// same from one release to the next (stored transactions keep theirs).
	known := []struct{ server, acs string }{
		{"00000000-0000-4000-8000-000000000000", "b24d8387-1c54-4d19-8f2d-a11fe00d0b6e"},
		{"ffffffff-ffff-4fff-bfff-ffffffffffff", "9987228e-43ed-4447-b6a8-28240568f457"},
		{"8a880dc0-d2d2-4067-bcb1-b08d1690b26e", "ada0e03d-310e-404a-ab05-3c8365e911d0"},
	}
	for _, k := range known {
		if got, ok := acsTransIDOf(k.server); !ok || got != k.acs {
			t.Errorf("acsTransIDOf(%s) = %s, %v; want %s", k.server, got, ok, k.acs)
		}
		if got, ok := serverTransIDOf(k.acs); !ok || got != k.server {
			t.Errorf("serverTransIDOf(%s) = %s, %v; want %s", k.acs, got, ok, k.server)
		}
		if got, ok := serverTransIDOf(strings.ToUpper(k.acs)); !ok || got != k.server {
			t.Errorf("serverTransIDOf(upper case %s) = %s, %v; want %s", k.acs, got, ok, k.server)
		}
	}

	const n = 20000
	seen := make(map[string]bool, n)
	for range n {
		server, acs, ds := transactionIDs()
		for _, id := range []string{server, acs, ds} {
			if _, ok := parseV4(id); !ok || id != strings.ToLower(id) {
				t.Fatalf("%s is not a version 4 UUID of the RFC variant in lower case", id)
			}
		}
		if got, _ := acsTransIDOf(server); got != acs {
			t.Fatalf("transactionIDs gave acsTransID %s for %s, acsTransIDOf %s", acs, server, got)
		}
		if back, _ := serverTransIDOf(acs); back != server {
			t.Fatalf("serverTransIDOf(acsTransIDOf(%s)) = %s", server, back)
		}
		if acs == server || seen[acs] {
			t.Fatalf("acsTransID %s repeats an id", acs)
		}
		seen[acs] = true
	}
	// Inputs one bit apart give outputs that share no more than chance
	// would: the two ids look independent.
	a, _ := acsTransIDOf("8a880dc0-d2d2-4067-bcb1-b08d1690b26e")
	b, _ := acsTransIDOf("8a880dc0-d2d2-4067-bcb1-b08d1690b26f")
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	if same > 16 { // 4 hyphens, the version digit and about 2 of 31 by chance
		t.Errorf("acsTransIDs of neighbouring ids share %d of 36 characters: %s %s", same, a, b)
	}

	for _, bad := range []string{"", "order-1", "8a880dc0-d2d2-1067-bcb1-b08d1690b26e", "8a880dc0-d2d2-4067-7cb1-b08d1690b26e",
		"8a880dc0d2d24067bcb1b08d1690b26e0000", "8a880dc0-d2d2-4067-bcb1-b08d1690b26g", "ddc-8a880dc0-d2d2-4067-bcb1-b08d1690b26e"} {
		if _, ok := serverTransIDOf(bad); ok {
			t.Errorf("serverTransIDOf(%q) accepted an id that is not a version 4 UUID", bad)
		}
	}
}

func BenchmarkTransactionIDs(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		transactionIDs()
	}
}
