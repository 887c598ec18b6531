package callback

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SignatureHeader carries a callback's signature:
//
//	X-3DS-Signature: t=1732190400,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd
//
// t is the time of the attempt in seconds since 1970; v1 is the lowercase
// hex of HMAC-SHA256, keyed with the namespace's signing secret (its bytes
// as written), of t, a dot, and the request body exactly as received. A
// receiver recomputes v1, compares in constant time with each v1 the
// header carries (after a rotation of the secret, one per secret still
// signing), and refuses a t too far from its own clock (a replay).
const SignatureHeader = "X-3DS-Signature"

// Sign is the SignatureHeader value of body sent at t.
func Sign(secret []byte, t time.Time, body []byte) string {
	return SignWith([][]byte{secret}, t, body)
}

// SignWith is the SignatureHeader value of body sent at t, with a v1
// signature for each secret, in order.
func SignWith(secrets [][]byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.Grow(len(ts) + 2 + len(secrets)*68)
	b.WriteString("t=")
	b.WriteString(ts)
	for _, s := range secrets {
		b.WriteString(",v1=")
		b.WriteString(hex.EncodeToString(mac(s, ts, body)))
	}
	return b.String()
}

// mac is HMAC-SHA256 of "t.body".
func mac(secret []byte, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Errors of Verify.
var (
	ErrBadSignature = errors.New("the callback's signature does not verify")
	ErrStale        = errors.New("the callback's signature is too old or too new")
)

// Verify checks a SignatureHeader value against body, as a merchant's
// receiver does: the HMAC with secret, and t within tolerance of now.
func Verify(secret []byte, header string, body []byte, now time.Time, tolerance time.Duration) error {
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return fmt.Errorf("%w: want t=<seconds>,v1=<hex>", ErrBadSignature)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrStale
	}
	want := mac(secret, ts, body)
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			return nil
		}
	}
	return ErrBadSignature
}
