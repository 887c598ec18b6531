package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
)

// The device data capture's JWT. The real service's page (Appendix A)
// says only: a JWS signed with HMAC SHA-256 on the merchant's server,
// unique per order; its claims are cut off. The sandbox reads the claims
// of Cardinal Commerce's Cruise, which the page copies: jti, iat, iss
// (the API identifier), OrgUnitId and Payload required there,
// ReferenceId, ObjectifyPayload and exp optional, and no JWT older than
// two hours. The sandbox requires jti, iat and iss, without which it can
// neither refuse a replay, nor an old token, nor find the key; a missing
// OrgUnitId or Payload is accepted and noted.

// ConsoleMerchant is the API identifier of the web console's demo
// checkout: its JWTs are signed by the console's server with a key
// derived from the sandbox's master key, and their OrgUnitId names the
// namespace of the console session.
const ConsoleMerchant = "threeds-sandbox-console"

// Bounds of the capture's JWT.
const (
	// DDCMaxAge is how long after its iat a JWT is accepted, whatever its
	// exp says (Cruise: two hours).
	DDCMaxAge = 2 * time.Hour
	// DDCClockSkew is how far in the future an iat may lie.
	DDCClockSkew = time.Minute
	// MaxJTI bounds the jti claim.
	MaxJTI = 128
	// MaxOrgUnitID bounds OrgUnitId and ReferenceId.
	MaxOrgUnitID = 128
)

// DDCClaims are the claims of a capture's JWT as Cruise names them.
type DDCClaims struct {
	JTI              string          `json:"jti"`
	IssuedAt         *float64        `json:"iat"`
	Expiry           *float64        `json:"exp"`
	Issuer           string          `json:"iss"`
	OrgUnitID        string          `json:"OrgUnitId"`
	ReferenceID      string          `json:"ReferenceId"`
	Payload          json.RawMessage `json:"Payload"`
	ObjectifyPayload *bool           `json:"ObjectifyPayload"`
}

// DDCCredential is what a capture's JWT proves, or claims.
type DDCCredential struct {
	// Issuer is the iss claim; readable even from a JWT that failed its
	// checks (then only claimed), empty when the JWT is not readable.
	Issuer    string
	OrgUnitID string
	// ReferenceID is Cruise's ReferenceId, when sent.
	ReferenceID string
	JTI         string
	// Expires is when the JWT stops being accepted: the earlier of its exp
	// and two hours after its iat. Its jti must be remembered until then.
	Expires time.Time
	// Verified tells whether the signature was checked with a configured
	// secret (the merchant's, or the console's); false in the open default.
	Verified bool
	// Console tells a JWT of the console's demo checkout: its OrgUnitID is
	// the namespace of the console's session.
	Console bool
	// Notes are what the sandbox noticed and accepted.
	Notes []string
}

// DDCError is a capture's JWT that is not accepted.
type DDCError struct{ Reason string }

func (e *DDCError) Error() string { return "jwt: " + e.Reason }

// DDCVerifier checks the JWTs of the device data captures.
type DDCVerifier struct {
	// Merchants are the configured merchants; none: any well-formed HS256
	// JWT is accepted without a signature check.
	Merchants Merchants
	// ConsoleKeys verify the console's own JWTs (ConsoleDDCKey of each
	// state hash key, the current first); none refuses them.
	ConsoleKeys [][]byte
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Verify checks raw, the jwt form field. It returns the credential, and
// a *DDCError when the JWT is not accepted (the credential then holds
// what could be read of it, for the journal).
func (v DDCVerifier) Verify(raw string) (DDCCredential, error) {
	tok, err := jws.Parse(raw)
	if err != nil {
		return DDCCredential{}, &DDCError{Reason: err.Error()}
	}
	c, err := decodeDDCClaims(tok.Payload)
	if err != nil {
		return DDCCredential{}, err
	}
	cred := DDCCredential{JTI: c.JTI, OrgUnitID: c.OrgUnitID, ReferenceID: c.ReferenceID}
	if c.Issuer == "" {
		return cred, &DDCError{Reason: "no iss claim: it names the merchant (its API identifier)"}
	}
	if !ValidClientID(c.Issuer) {
		return cred, &DDCError{Reason: fmt.Sprintf("iss %q is not an API identifier: 1 to %d letters, digits, '.', '_' or '-'", clip(c.Issuer), MaxMerchantID)}
	}
	cred.Issuer = c.Issuer
	if err := v.signature(tok, &cred); err != nil {
		return cred, err
	}
	if err := v.claims(c, &cred); err != nil {
		return cred, err
	}
	return cred, nil
}

// signature finds the key of the credential's issuer and checks the
// token with it; without configured merchants only the algorithm is.
func (v DDCVerifier) signature(tok *jws.Token, cred *DDCCredential) error {
	var keys [][]byte
	switch {
	case cred.Issuer == ConsoleMerchant:
		if keys = v.ConsoleKeys; len(keys) == 0 {
			return &DDCError{Reason: "iss names the console, whose JWTs this sandbox does not take"}
		}
		cred.Console = true
	case v.Merchants.Configured():
		key, ok := v.Merchants.Secret(cred.Issuer)
		if !ok {
			return &DDCError{Reason: fmt.Sprintf("iss %q names no merchant of this sandbox (--merchants)", cred.Issuer)}
		}
		keys = [][]byte{key}
	}
	if len(keys) == 0 {
		if tok.Header.Alg != jws.HS256 {
			return &DDCError{Reason: fmt.Sprintf("alg %q: the JWT must be signed with %s", clip(tok.Header.Alg), jws.HS256)}
		}
		cred.Notes = append(cred.Notes, "JWT signature not verified: no merchant secrets are configured (open sandbox)")
		return nil
	}
	// The console's JWTs made with a previous key (a rotation) still
	// verify: the first key that does is enough.
	err := tok.Verify(keys[0])
	for _, k := range keys[1:] {
		if err == nil || !errors.Is(err, jws.ErrSignature) {
			break
		}
		err = tok.Verify(k)
	}
	if err != nil {
		if errors.Is(err, jws.ErrSignature) {
			return &DDCError{Reason: fmt.Sprintf("the signature does not verify with the secret of merchant %q", cred.Issuer)}
		}
		return &DDCError{Reason: err.Error()}
	}
	cred.Verified = true
	return nil
}

// claims checks jti, iat and exp, and notes the absent optional claims.
func (v DDCVerifier) claims(c DDCClaims, cred *DDCCredential) error {
	switch {
	case c.JTI == "":
		return &DDCError{Reason: "no jti claim: each JWT needs an id of its own"}
	case len(c.JTI) > MaxJTI:
		return &DDCError{Reason: fmt.Sprintf("jti has %d characters, at most %d", len(c.JTI), MaxJTI)}
	case c.IssuedAt == nil:
		return &DDCError{Reason: "no iat claim: the time the JWT was made, in seconds since 1970"}
	case len(c.OrgUnitID) > MaxOrgUnitID || len(c.ReferenceID) > MaxOrgUnitID:
		return &DDCError{Reason: fmt.Sprintf("OrgUnitId or ReferenceId longer than %d characters", MaxOrgUnitID)}
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	t := now()
	iat, ok := numericDate(*c.IssuedAt)
	if !ok {
		return &DDCError{Reason: "iat is not a time in seconds since 1970"}
	}
	if iat.After(t.Add(DDCClockSkew)) {
		return &DDCError{Reason: fmt.Sprintf("iat %s lies in the future", iat.UTC().Format(time.RFC3339))}
	}
	expires := iat.Add(DDCMaxAge)
	if c.Expiry != nil {
		exp, ok := numericDate(*c.Expiry)
		if !ok {
			return &DDCError{Reason: "exp is not a time in seconds since 1970"}
		}
		if exp.Before(expires) {
			expires = exp
		} else if exp.After(expires) {
			cred.Notes = append(cred.Notes, "exp lies more than 2 hours after iat: 2 hours apply")
		}
	}
	if !t.Before(expires) {
		return &DDCError{Reason: fmt.Sprintf("the JWT expired at %s (exp, or 2 hours after iat)", expires.UTC().Format(time.RFC3339))}
	}
	cred.Expires = expires
	if c.OrgUnitID == "" && !cred.Console {
		cred.Notes = append(cred.Notes, "no OrgUnitId claim (Cruise requires it)")
	}
	if len(c.Payload) == 0 && !cred.Console {
		cred.Notes = append(cred.Notes, "no Payload claim (Cruise requires it)")
	}
	return nil
}

// numericDate reads a JWT NumericDate: seconds since 1970, within the
// years 1970 to 9999.
func numericDate(f float64) (time.Time, bool) {
	if math.IsNaN(f) || f < 0 || f > 253402300799 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}

// clip shortens a claim shown in a message.
func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	n := 64
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// ConsoleDDCKey is the key the console signs its demo's JWTs with,
// derived from the sandbox's master key.
func ConsoleDDCKey(master []byte) []byte { return derive(master, "console ddc jwt") }
