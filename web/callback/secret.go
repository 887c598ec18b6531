package callback

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// DefaultSecretGrace is how long, after a rotation of a namespace's
// signing secret, its callbacks carry a signature with the previous one
// too.
const DefaultSecretGrace = 24 * time.Hour

// Secrets derives each namespace's signing secret: the lowercase hex of
// HMAC-SHA256, under a state hash key, of a label naming this one
// purpose, the namespace and the secret's generation. No secret is
// stored: the callbacks keep only each namespace's generation
// (state.SigningKey). A secret is no other credential (no client
// secret, no key of the capture's JWTs or the access tokens), so
// learning it lets one sign callbacks of that namespace, nothing else,
// until it is rotated.
type Secrets struct {
	// Key is the current state hash key; Previous are the earlier ones
	// (--state-previous-keys), whose secrets keep signing during a key
	// rotation.
	Key      []byte
	Previous [][]byte
	// Grace is how long after a rotation the previous generation keeps
	// signing; DefaultSecretGrace when zero, none when negative.
	Grace time.Duration
}

// Secret is the signing secret of generation gen of namespace ns under
// key. Generation 0 is the secret namespaces had before rotations
// existed.
func Secret(key []byte, ns string, gen uint64) string {
	label := "threeds-sandbox\x00result callback\x00" + ns
	if gen > 0 {
		label += "\x00" + strconv.FormatUint(gen, 10)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	return hex.EncodeToString(m.Sum(nil))
}

// Current is the secret of ns at generation k: the one its token is
// shown.
func (s Secrets) Current(ns string, k state.SigningKey) string {
	return Secret(s.Key, ns, k.Generation)
}

// PreviousUntil is when the previous generation stops signing, after
// the rotation k; zero when it signs no more at now.
func (s Secrets) PreviousUntil(k state.SigningKey, now time.Time) time.Time {
	grace := s.Grace
	if grace == 0 {
		grace = DefaultSecretGrace
	}
	if k.Generation == 0 || grace < 0 {
		return time.Time{}
	}
	if until := k.Rotated.Add(grace); now.Before(until) {
		return until
	}
	return time.Time{}
}

// Signing lists the secrets that sign a callback of ns at now: the
// current generation's under the current key, then under each previous
// key, then, during the grace period after a rotation, the previous
// generation's under the current key.
func (s Secrets) Signing(ns string, k state.SigningKey, now time.Time) [][]byte {
	out := make([][]byte, 0, 2+len(s.Previous))
	out = append(out, []byte(Secret(s.Key, ns, k.Generation)))
	for _, p := range s.Previous {
		out = append(out, []byte(Secret(p, ns, k.Generation)))
	}
	if !s.PreviousUntil(k, now).IsZero() {
		out = append(out, []byte(Secret(s.Key, ns, k.Generation-1)))
	}
	return out
}
