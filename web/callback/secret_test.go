package callback_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/callback"
)

// TestSecrets: each namespace's secret is its own, changes with each
// rotation and with the state key; the previous generation signs beside
// the current one for the grace period only, and previous state keys
// sign the current generation; a receiver with any of them verifies.
func TestSecrets(t *testing.T) {
	key, old := []byte("current state hash key"), []byte("previous state hash key")
	// Generation 0 is the secret namespaces had before rotations.
	m := hmac.New(sha256.New, key)
	m.Write([]byte("threeds-sandbox\x00result callback\x00ns-1"))
	if got := callback.Secret(key, "ns-1", 0); got != hex.EncodeToString(m.Sum(nil)) {
		t.Errorf("generation 0 = %s, want the secret of before", got)
	}
	seen := map[string]bool{}
	for _, s := range []string{callback.Secret(key, "ns-1", 0), callback.Secret(key, "ns-1", 1), callback.Secret(key, "ns-1", 2),
		callback.Secret(key, "ns-2", 0), callback.Secret(old, "ns-1", 0)} {
		if seen[s] || len(s) != 64 {
			t.Errorf("secret %q repeated or not 32 bytes of hex", s)
		}
		seen[s] = true
	}

	rotated := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	k := state.SigningKey{Generation: 2, Rotated: rotated}
	s := callback.Secrets{Key: key, Previous: [][]byte{old}, Grace: time.Hour}
	if s.Current("ns-1", k) != callback.Secret(key, "ns-1", 2) {
		t.Error("Current is not the current generation under the current key")
	}
	body := []byte(`{"transactionStatus":"Y"}`)
	for _, tt := range []struct {
		name  string
		k     state.SigningKey
		now   time.Time
		until time.Time
		want  []string
	}{
		{"never rotated", state.SigningKey{}, rotated, time.Time{}, []string{callback.Secret(key, "ns-1", 0), callback.Secret(old, "ns-1", 0)}},
		{"in the grace period", k, rotated.Add(59 * time.Minute), rotated.Add(time.Hour),
			[]string{callback.Secret(key, "ns-1", 2), callback.Secret(old, "ns-1", 2), callback.Secret(key, "ns-1", 1)}},
		{"after it", k, rotated.Add(time.Hour), time.Time{}, []string{callback.Secret(key, "ns-1", 2), callback.Secret(old, "ns-1", 2)}},
	} {
		got := s.Signing("ns-1", tt.k, tt.now)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d secrets sign, want %d", tt.name, len(got), len(tt.want))
			continue
		}
		for i := range got {
			if string(got[i]) != tt.want[i] {
				t.Errorf("%s: secret %d is not the one expected", tt.name, i)
			}
		}
		if u := s.PreviousUntil(tt.k, tt.now); !u.Equal(tt.until) {
			t.Errorf("%s: PreviousUntil = %v, want %v", tt.name, u, tt.until)
		}
		header := callback.SignWith(got, tt.now, body)
		if n := strings.Count(header, ",v1="); n != len(tt.want) {
			t.Errorf("%s: %d signatures in %s", tt.name, n, header)
		}
		for _, w := range tt.want {
			if err := callback.Verify([]byte(w), header, body, tt.now, time.Minute); err != nil {
				t.Errorf("%s: a receiver with one of the secrets: %v", tt.name, err)
			}
		}
		if err := callback.Verify([]byte(callback.Secret(key, "ns-1", 0)), header, body, tt.now, time.Minute); err == nil && tt.k.Generation == 2 {
			t.Errorf("%s: a secret two rotations old still verifies", tt.name)
		}
	}
	if got := (callback.Secrets{Key: key, Grace: -1}).Signing("ns-1", k, rotated); len(got) != 1 {
		t.Errorf("no grace: %d secrets sign, want 1", len(got))
	}
	if got := (callback.Secrets{Key: key}).PreviousUntil(k, rotated); !got.Equal(rotated.Add(callback.DefaultSecretGrace)) {
		t.Errorf("default grace: until %v", got)
	}
}

// TestNoAnswerLooksTheSame: an attempt at a closed port, at one that
// hangs up at once and at one that never answers fails with the same
// words after the whole timeout: the journal tells a token nothing of
// which ports are open.
func TestNoAnswerLooksTheSame(t *testing.T) {
	closed := testkit.FreePort(t)
	hangUp := testkit.ServeTCP(t, func(c net.Conn) { c.Close() })
	silent := testkit.ServeTCP(t, func(c net.Conn) {})
	garbage := testkit.ServeTCP(t, func(c net.Conn) { _, _ = c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n")); c.Close() })
	e := &engine{done: make(chan struct{}, 8)}
	const timeout = 300 * time.Millisecond
	s, err := callback.New(callback.Config{Engine: e, Secrets: callback.Secrets{Key: []byte("k")}, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	var errs []string
	for _, port := range []int{closed, hangUp, silent, garbage} {
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		s.Deliver(context.Background(), job("http://"+addr+"/cb"))
		<-e.done
		a := e.attempts[len(e.attempts)-1]
		if a.Status != 0 || a.Permanent || a.Took < timeout {
			t.Errorf("%s: %+v, want a failure after the whole timeout", addr, a)
		}
		errs = append(errs, a.Err)
	}
	for _, got := range errs[1:] {
		if got != errs[0] || got != "no HTTP answer within 300ms" {
			t.Errorf("the failures differ: %q", errs)
			break
		}
	}
}
