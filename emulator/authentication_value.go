package emulator

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"hash"
	"sync"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
)

// The authentication value (CAVV for Visa, AAV for Mastercard) of an
// authenticated transaction, and the keyed hash it is made with.

// AuthenticationValue is the CAVV/AAV of t: present for Y and A only,
// derived from the transaction id, so it is stable for a transaction.
func (e *Engine) AuthenticationValue(t state.Transaction) string {
	if !t.HasAuthenticationValue() {
		return ""
	}
	return e.cavv.value(t.ThreeDSServerTransID)
}

// cavvOf derives the 28-character CAVV/AAV of a transaction: 20 bytes of
// the keyed HMAC of st (reset first, SHA-256) over the transaction id, in
// padded standard Base64. Stable for a transaction, different between
// transactions; the real byte layouts are the schemes' secret.
func cavvOf(st *cavvState, threeDSServerTransID string) string {
	st.m.Reset()
	st.in = append(st.in[:0], threeDSServerTransID...)
	_, _ = st.m.Write(st.in)
	if cap(st.in) > 256 { // an id that long is not kept
		st.in = nil
	}
	var out [28]byte
	base64.StdEncoding.Encode(out[:], st.m.Sum(st.sum[:0])[:20])
	return string(out[:])
}

// cavvState is a keyed HMAC with its buffers, reused call after call.
type cavvState struct {
	m   hash.Hash
	in  []byte
	sum [sha256.Size]byte
}

// cavvHashes pools the keyed HMACs of an engine: the enquiry derives the
// value again on every answer.
type cavvHashes struct{ pool sync.Pool }

func newCAVVHashes(key []byte) *cavvHashes {
	return &cavvHashes{pool: sync.Pool{New: func() any { return &cavvState{m: hmac.New(sha256.New, key)} }}}
}

func (c *cavvHashes) value(threeDSServerTransID string) string {
	st := c.pool.Get().(*cavvState)
	defer c.pool.Put(st)
	return cavvOf(st, threeDSServerTransID)
}

// cavvKey derives the authentication-value key from the seed.
func cavvKey(seed uint64) []byte {
	var b [16]byte
	copy(b[:8], "cavv-key")
	binary.BigEndian.PutUint64(b[8:], seed)
	k := sha256.Sum256(b[:])
	return k[:]
}
