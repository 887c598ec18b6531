package auth_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
)

// TestSealNamespaceKey: the namespace key sealed under a pair opens with
// that pair alone; a copy changed, cut or sealed under another pair does
// not open; two seals of one key differ (a random nonce) and neither
// shows the key.
func TestSealNamespaceKey(t *testing.T) {
	old := auth.KeyPair{Hash: masterA, Block: []byte("block key of 16!")}
	rotated := auth.KeyPair{Hash: masterB, Block: []byte("another block 16")}
	key := auth.NewNamespaceKey(old.Hash)
	sealed, err := auth.SealNamespaceKey(old, key)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := auth.SealNamespaceKey(old, key)
	if sealed == again || strings.Contains(sealed, hex.EncodeToString(key)[:16]) {
		t.Errorf("seals %q and %q: want two different copies that do not show the key", sealed, again)
	}
	got, err := auth.OpenNamespaceKey(old, sealed)
	if err != nil || !bytes.Equal(got, key) {
		t.Fatalf("OpenNamespaceKey = %x, %v; want the key", got, err)
	}
	flipped := []byte(sealed)
	flipped[len(flipped)-3] ^= 1
	for name, bad := range map[string]string{
		"another pair's": "", "changed": string(flipped), "cut": sealed[:len(sealed)-4], "empty": "", "not a seal": "v1.!!",
		"another form": "v2" + sealed[2:], "too long": sealed + strings.Repeat("A", 300),
	} {
		pair := old
		if name == "another pair's" {
			pair, bad = rotated, sealed
		}
		if _, err := auth.OpenNamespaceKey(pair, bad); !errors.Is(err, auth.ErrSealBroken) {
			t.Errorf("open a %s copy: %v, want ErrSealBroken", name, err)
		}
	}
	if _, err := auth.SealNamespaceKey(old, key[:16]); err == nil {
		t.Error("a short key sealed")
	}
	if id := auth.NamespaceKeyID(key); len(id) != 16 || id == auth.NamespaceKeyID(auth.NewNamespaceKey(masterB)) ||
		strings.Contains(hex.EncodeToString(key), id) {
		t.Errorf("NamespaceKeyID = %q: want 16 hex digits, one per key, not the key's", id)
	}
}

// TestNamespaceKeyNamesNamespaces: a token's namespace follows the
// namespace key, not the current hash key: the keys of a rotated replica
// given the kept namespace key name every token as before.
func TestNamespaceKeyNamesNamespaces(t *testing.T) {
	before, err := auth.NewTokenKeys([][]byte{masterA}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := auth.NewTokenKeys([][]byte{masterB, masterA}, auth.NewNamespaceKey(masterA))
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := auth.NewTokenKeys([][]byte{masterB, masterA}, nil)
	if before.Namespace("team-a") != kept.Namespace("team-a") {
		t.Errorf("the namespace changed with the hash key although the namespace key was kept")
	}
	if before.Namespace("team-a") == fresh.Namespace("team-a") {
		t.Errorf("a new namespace key names the token as the old one")
	}
	if _, err := auth.NewTokenKeys([][]byte{masterA}, []byte("short")); err == nil {
		t.Error("a namespace key of 5 bytes accepted")
	}
	if bytes.Equal(auth.ReferenceKey(auth.NewNamespaceKey(masterA)), auth.NewNamespaceKey(masterA)) {
		t.Error("the reference index is keyed with the namespace key itself")
	}
}
