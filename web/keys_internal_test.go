package web

import (
	"bytes"
	"testing"

	"github.com/gorilla/securecookie"
)

func TestStateKeyRotation(t *testing.T) {
	t.Parallel()
	old := KeyPair{Hash: bytes.Repeat([]byte("o"), 32), Block: bytes.Repeat([]byte("O"), 16)}
	cur := KeyPair{Hash: bytes.Repeat([]byte("c"), 64), Block: bytes.Repeat([]byte("C"), 32)}
	oldOnly, err := stateCodecs([]KeyPair{old})
	if err != nil {
		t.Fatal(err)
	}
	token, err := securecookie.EncodeMulti(stateName, challengeState{ID: "id", ACS: "acs"}, oldOnly...)
	if err != nil {
		t.Fatal(err)
	}
	rotated, err := stateCodecs([]KeyPair{cur, old})
	if err != nil {
		t.Fatal(err)
	}
	var st challengeState
	if err := securecookie.DecodeMulti(stateName, token, &st, rotated...); err != nil || st.ID != "id" {
		t.Errorf("state made with the previous key refused during rotation: %v", err)
	}
	retired, _ := stateCodecs([]KeyPair{cur})
	if err := securecookie.DecodeMulti(stateName, token, &st, retired...); err == nil {
		t.Error("state made with a retired key accepted")
	}
}

func TestStateKeyLengths(t *testing.T) {
	t.Parallel()
	tests := []KeyPair{
		{Hash: make([]byte, 16), Block: make([]byte, 16)},
		{Hash: make([]byte, 32), Block: make([]byte, 8)},
		{Hash: nil, Block: make([]byte, 32)},
	}
	for _, p := range tests {
		if _, err := stateCodecs([]KeyPair{p}); err == nil {
			t.Errorf("key lengths %d/%d accepted", len(p.Hash), len(p.Block))
		}
	}
	if _, err := stateCodecs([]KeyPair{{Hash: make([]byte, 32), Block: make([]byte, 24)}}); err != nil {
		t.Errorf("valid key lengths refused: %v", err)
	}
}
