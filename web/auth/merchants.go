package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// A merchant, for the sandbox, is what the real service's pages give a
// merchant beside its API access: an API identifier (the iss claim of the
// device data capture's JWT, after Cardinal Cruise's "API Identifier")
// and a secret (the JWT's HS256 key, Cruise's "API Key"). The same pair
// is the merchant's OAuth client at the token endpoint (client_id,
// client_secret) and signs the result callbacks its namespace receives.
// A merchant's namespace is ClientNamespace(id): its transactions, its
// captures and its callback registration live there.

// Bounds of a merchant's configuration.
const (
	MaxMerchantID     = 64
	MinMerchantSecret = 16
	MaxMerchantSecret = 256
	MaxMerchants      = 1000
)

// Merchants are the configured merchants: API identifier -> secret. The
// zero value has none, which is the open default.
type Merchants struct {
	secrets map[string][]byte
	// byNamespace maps ClientNamespace(id) to id.
	byNamespace map[string]string
}

// ParseMerchants reads "id:secret,id:secret": an id of 1 to 64 letters,
// digits, '.', '_' and '-'; a secret of 16 to 256 characters without a
// comma (it may hold colons). Its errors never repeat a secret.
func ParseMerchants(spec string) (Merchants, error) {
	m := Merchants{}
	for _, item := range strings.Split(spec, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		id, secret, ok := strings.Cut(item, ":")
		if !ok {
			return Merchants{}, errors.New("want id:secret pairs, comma-separated")
		}
		if !ValidClientID(id) {
			return Merchants{}, fmt.Errorf("merchant id %q: want 1 to %d letters, digits, '.', '_' or '-'", id, MaxMerchantID)
		}
		if n := len(secret); n < MinMerchantSecret || n > MaxMerchantSecret {
			return Merchants{}, fmt.Errorf("merchant %q: the secret has %d characters, want %d to %d", id, n, MinMerchantSecret, MaxMerchantSecret)
		}
		if m.secrets == nil {
			m.secrets, m.byNamespace = map[string][]byte{}, map[string]string{}
		}
		if _, dup := m.secrets[id]; dup {
			return Merchants{}, fmt.Errorf("merchant %q is configured twice", id)
		}
		if len(m.secrets) >= MaxMerchants {
			return Merchants{}, fmt.Errorf("more than %d merchants", MaxMerchants)
		}
		m.secrets[id] = []byte(secret)
		m.byNamespace[ClientNamespace(id)] = id
	}
	return m, nil
}

// ValidClientID tells whether id can be a merchant's API identifier (an
// OAuth client id): 1 to 64 letters, digits, '.', '_' and '-'.
func ValidClientID(id string) bool {
	if id == "" || len(id) > MaxMerchantID {
		return false
	}
	for i := range len(id) {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Configured reports whether any merchant is configured.
func (m Merchants) Configured() bool { return len(m.secrets) > 0 }

// Secret returns the secret of merchant id.
func (m Merchants) Secret(id string) ([]byte, bool) {
	s, ok := m.secrets[id]
	return s, ok
}

// OfNamespace returns the merchant whose namespace ns is, and its secret.
func (m Merchants) OfNamespace(ns string) (id string, secret []byte, ok bool) {
	if id, ok = m.byNamespace[ns]; ok {
		secret = m.secrets[id]
	}
	return id, secret, ok
}

// Authenticate tells whether secret is the secret of merchant id,
// comparing in constant time (over hashes, so lengths do not leak); an
// id no configuration names costs the same comparison, so the time
// tells nothing of which ids are configured.
func (m Merchants) Authenticate(id, secret string) bool {
	want, ok := m.secrets[id]
	a, b := sha256.Sum256(want), sha256.Sum256([]byte(secret))
	return subtle.ConstantTimeCompare(a[:], b[:])&subtle.ConstantTimeEq(boolInt(ok), 1) == 1
}

// boolInt is 1 for true, 0 for false.
func boolInt(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// ClientNamespace is the namespace of the merchant (OAuth client) with
// API identifier id. No bearer token has it: the hash covers a prefix
// with a NUL byte, which a header value cannot carry.
func ClientNamespace(id string) string {
	h := sha256.Sum256([]byte("\x00client\x00" + id))
	return hex.EncodeToString(h[:8])
}

// derive makes a key for one purpose from a master key: HMAC-SHA256 of
// the purpose. Replicas sharing the master key derive the same keys.
func derive(master []byte, purpose string) []byte {
	m := hmac.New(sha256.New, master)
	m.Write([]byte("threeds-sandbox\x00" + purpose))
	return m.Sum(nil)
}
