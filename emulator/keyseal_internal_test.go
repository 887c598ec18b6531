package emulator

import (
	"bytes"
	"errors"
	"testing"
)

// TestKeySeal: a sealed exchange key opens for its transaction under the
// same app key only; damaged or moved, it is refused.
func TestKeySeal(t *testing.T) {
	a, err := newKeySeal(nil, 7)
	if err != nil {
		t.Fatal(err)
	}
	same, _ := newKeySeal(nil, 7)
	other, _ := newKeySeal(bytes.Repeat([]byte{1}, 32), 7)
	key := bytes.Repeat([]byte{0xab}, 32)
	sealed, err := a.Seal(key, "tx-1")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := same.Open(sealed, "tx-1"); err != nil || !bytes.Equal(got, key) {
		t.Fatalf("Open = %x, %v; want the key", got, err)
	}
	damaged := []byte(sealed)
	damaged[len(damaged)-1] ^= 1
	for name, try := range map[string]func() ([]byte, error){
		"another transaction": func() ([]byte, error) { return a.Open(sealed, "tx-2") },
		"another app key":     func() ([]byte, error) { return other.Open(sealed, "tx-1") },
		"damaged":             func() ([]byte, error) { return a.Open(string(damaged), "tx-1") },
		"short":               func() ([]byte, error) { return a.Open(sealed[:10], "tx-1") },
	} {
		if _, err := try(); !errors.Is(err, errSealedKey) {
			t.Errorf("%s: Open err = %v, want errSealedKey", name, err)
		}
	}
	if _, err := newKeySeal(make([]byte, 16), 0); err == nil {
		t.Error("a 16-byte app key was taken")
	}
}
