package auth_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

// TestTokenKeys: a token's namespace and hash are keyed: stable under one
// key, other under another, and not the token's plain SHA-256 that
// anyone can compute from a guess.
func TestTokenKeys(t *testing.T) {
	a, b := mustKeys(t, masterA), mustKeys(t, masterB)
	plain := sha256.Sum256([]byte("team-a"))
	for _, tt := range []struct {
		name   string
		of     func(*auth.TokenKeys, string) string
		digits int
	}{
		{"Namespace", (*auth.TokenKeys).Namespace, 16},
		{"Hash", (*auth.TokenKeys).Hash, 32},
	} {
		got := tt.of(a, "team-a")
		if len(got) != tt.digits || strings.Trim(got, "0123456789abcdef") != "" || got != tt.of(a, "team-a") {
			t.Errorf("%s = %q: want %d stable hex digits", tt.name, got, tt.digits)
		}
		if got == tt.of(a, "team-b") || got == tt.of(b, "team-a") {
			t.Errorf("%s: one value for two tokens or two keys", tt.name)
		}
		if strings.HasPrefix(hex.EncodeToString(plain[:]), got) {
			t.Errorf("%s is the token's unkeyed SHA-256", tt.name)
		}
	}
	if a.Namespace("team-a") == a.Hash("team-a")[:16] {
		t.Error("the namespace and the session's hash share a key")
	}
	if _, err := auth.NewTokenKeys(nil, nil); err == nil {
		t.Error("NewTokenKeys without a key: no error")
	}
}

// TestGrantAndResume: a console session keeps a grant, never the token,
// and the grant stands while its token is accepted: a configured token
// while it is configured, through a key rotation, in the namespace of the
// current key; any token in the open default; an access token until it
// expires.
func TestGrantAndResume(t *testing.T) {
	clock := testkit.NewClock(testkit.T0)
	access := mustTokens(t, "http://sandbox", masterA, clock)
	before := mustAuthority(t, auth.NewTokens([]string{"team-a", "team-b"}), access, mustKeys(t, masterA), clock)
	g, err := before.Grant("team-b")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(g.TokenHash+g.Namespace, "team-b") || !g.Expires.IsZero() {
		t.Errorf("grant = %+v", g)
	}
	if ns, ok := before.Resume(g); !ok || ns != g.Namespace {
		t.Errorf("Resume = %q, %v; want %q", ns, ok, g.Namespace)
	}
	if _, err := before.Grant("team-c"); err == nil {
		t.Error("a grant for a token not configured")
	}

	rotatedKeys := mustKeys(t, masterB, masterA)
	rotated := mustAuthority(t, auth.NewTokens([]string{"team-a", "team-b"}), access, rotatedKeys, clock)
	if ns, ok := rotated.Resume(g); !ok || ns != rotatedKeys.Namespace("team-b") {
		t.Errorf("after a rotation, Resume = %q, %v; want the token's namespace under the new key %q", ns, ok, rotatedKeys.Namespace("team-b"))
	}
	retired := mustAuthority(t, auth.NewTokens([]string{"team-a", "team-b"}), access, mustKeys(t, masterB), clock)
	if _, ok := retired.Resume(g); ok {
		t.Error("a grant of a retired key still stands")
	}
	revoked := mustAuthority(t, auth.NewTokens([]string{"team-a"}), access, mustKeys(t, masterA), clock)
	if _, ok := revoked.Resume(g); ok {
		t.Error("a grant of a token no longer configured still stands")
	}
	for _, forged := range []auth.Grant{{}, {TokenHash: g.TokenHash[:16], Namespace: g.Namespace}, {TokenHash: strings.Repeat("0", 32), Namespace: g.Namespace}} {
		if _, ok := before.Resume(forged); ok {
			t.Errorf("Resume(%+v) stands", forged)
		}
	}

	open := mustAuthority(t, auth.NewTokens(nil), access, mustKeys(t, masterA), clock)
	og, _ := open.Grant("anything")
	if ns, ok := open.Resume(og); !ok || ns != mustKeys(t, masterA).Namespace("anything") {
		t.Errorf("open default: Resume = %q, %v", ns, ok)
	}

	tok, _ := access.Issue("shop-1", "", false)
	ag, err := before.Grant(tok)
	if err != nil || ag.Namespace != auth.ClientNamespace("shop-1") || !ag.Expires.Equal(testkit.T0.Add(time.Minute).Truncate(time.Second)) {
		t.Fatalf("access token grant = %+v, %v", ag, err)
	}
	if ns, ok := before.Resume(ag); !ok || ns != ag.Namespace {
		t.Errorf("access token: Resume = %q, %v", ns, ok)
	}
	clock.Advance(time.Minute)
	if _, ok := before.Resume(ag); ok {
		t.Error("the grant of an expired access token still stands")
	}
}

// TestFingerprint: a key pair's fingerprint is stable, changes with
// either key, and shows neither.
func TestFingerprint(t *testing.T) {
	p := auth.KeyPair{Hash: masterA, Block: []byte("block key of 16!")}
	fp := p.Fingerprint()
	if len(fp) != 16 || fp != (auth.KeyPair{Hash: masterA, Block: []byte("block key of 16!")}).Fingerprint() {
		t.Errorf("Fingerprint = %q: want 16 stable hex digits", fp)
	}
	for _, other := range []auth.KeyPair{{Hash: masterB, Block: p.Block}, {Hash: masterA, Block: []byte("another block 16")}} {
		if other.Fingerprint() == fp {
			t.Errorf("%q: the fingerprint of another pair", fp)
		}
	}
	for _, k := range [][]byte{p.Hash, p.Block} {
		if h := hex.EncodeToString(k); strings.Contains(h, fp) || strings.Contains(fp, h[:8]) {
			t.Error("the fingerprint shows a key")
		}
	}
}

// BenchmarkIdentify is what telling who a bearer token is costs per API
// request: a configured static token (its namespace computed once, at
// start-up), any token in the open default (its keyed hash on every
// request), an access token (its signature checked), and, for
// comparison, the unkeyed SHA-256 namespace the open default computed
// before.
func BenchmarkIdentify(b *testing.B) {
	clock := testkit.NewClock(testkit.T0)
	access, err := auth.NewAccessTokens("http://sandbox", [][]byte{masterA}, time.Hour, clock.Now)
	if err != nil {
		b.Fatal(err)
	}
	keys, _ := auth.NewTokenKeys([][]byte{masterA}, nil)
	closed, _ := auth.NewAuthority(auth.NewTokens([]string{"team-a-0123456789abcdef", "team-b"}), access, keys, clock.Now)
	open, _ := auth.NewAuthority(auth.NewTokens(nil), access, keys, clock.Now)
	jwt, _ := access.Issue("shop-1", "", false)
	for _, bm := range []struct {
		name  string
		a     *auth.Authority
		token string
	}{
		{"static", closed, "team-a-0123456789abcdef"},
		{"open", open, "team-a-0123456789abcdef"},
		{"access", open, jwt},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bm.a.Identify(bm.token); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("unkeyed-before", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h := sha256.Sum256([]byte("team-a-0123456789abcdef"))
			_ = hex.EncodeToString(h[:8])
		}
	})
}

// BenchmarkResume is what checking a console session's grant costs per
// console page: a configured token's hash against every configured
// token's under each key (here 2 tokens, a key and a previous one), and
// the open default's.
func BenchmarkResume(b *testing.B) {
	clock := testkit.NewClock(testkit.T0)
	keys, _ := auth.NewTokenKeys([][]byte{masterA, masterB}, nil)
	closed, _ := auth.NewAuthority(auth.NewTokens([]string{"team-a-0123456789abcdef", "team-b"}), nil, keys, clock.Now)
	open, _ := auth.NewAuthority(auth.NewTokens(nil), nil, keys, clock.Now)
	for _, bm := range []struct {
		name string
		a    *auth.Authority
	}{{"static", closed}, {"open", open}} {
		g, err := bm.a.Grant("team-b")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := bm.a.Resume(g); !ok {
					b.Fatal("refused")
				}
			}
		})
	}
}

// TestNamespaceRemembered: the namespaces a TokenKeys remembers are the
// ones it derives, for a token seen again, past the bound of what it
// remembers, and from many goroutines at once; two keys sets agree.
func TestNamespaceRemembered(t *testing.T) {
	keys, _ := auth.NewTokenKeys([][]byte{masterA}, nil)
	fresh := func(tok string) string {
		k, _ := auth.NewTokenKeys([][]byte{masterA}, nil) // remembers nothing yet
		return k.Namespace(tok)
	}
	want := map[string]string{}
	for i := range 64 {
		tok := fmt.Sprintf("team-%d", i)
		want[tok] = fresh(tok)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 5000 { // more tokens than it remembers
				tok := fmt.Sprintf("team-%d", (i*7+g)%64)
				if i%3 == 0 {
					tok = fmt.Sprintf("once-%d-%d", g, i)
					if got := keys.Namespace(tok); got != fresh(tok) {
						t.Errorf("Namespace(%q) = %s, want %s", tok, got, fresh(tok))
						return
					}
					continue
				}
				if got := keys.Namespace(tok); got != want[tok] {
					t.Errorf("Namespace(%q) = %s, want %s", tok, got, want[tok])
					return
				}
			}
		})
	}
	wg.Wait()
}
