package message

import (
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// Bounds of a capture's form fields (the real service's DDC page).
const (
	// MaxDDCID bounds a merchant's ddcId (the page: varchar 36, a UUID).
	MaxDDCID = 36
	// MaxCallbackURL bounds callbackUrl.
	MaxCallbackURL = 2048
	// MaxCaptureJWT bounds the jwt field.
	MaxCaptureJWT = 2048
	// MinBIN and MaxBIN bound bin: the first six digits up to the whole
	// card number.
	MinBIN, MaxBIN = 6, 19
	// FullCardDigits is the length from which bin is taken for the whole
	// card number rather than a BIN.
	FullCardDigits = 12
)

// ValidDDCID tells whether s can be a merchant's ddcId: 1 to 36 letters,
// digits, '-', '_' and '.' (a UUID, and the usual session ids).
func ValidDDCID(s string) bool {
	if s == "" || len(s) > MaxDDCID {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// CaptureRequest is a capture as the browser posted it, decoded and
// checked by the transport, with what the transport learnt of its JWT.
type CaptureRequest struct {
	DDCID       string
	BIN         string
	CallbackURL string
	// JWTLength is the length of the jwt field, for the event.
	JWTLength int
	// Credential is what the JWT proved, or claimed.
	Credential CaptureCredential
	// Problem is what the transport found wrong with the form or the
	// JWT: the engine records it and answers it as the outcome.
	Problem *emv.Error
}

// CaptureCredential is what a capture's JWT tells the engine.
type CaptureCredential struct {
	// Merchant is the API identifier (iss); empty when unreadable.
	Merchant string
	// Namespace holds the capture: the namespace it belongs to when its
	// JWT was verified, else (Claimable) the one it is recorded in until
	// a lookup claims it.
	Namespace string
	// Claimable: the JWT was not verified (the open default).
	Claimable bool
	// JTI is the JWT's id, used once; Expires is when the JWT stops being
	// accepted, until which the jti is remembered.
	JTI     string
	Expires time.Time
	// Notes are what the transport noticed and accepted, for the event.
	Notes []string
}

// CaptureOutcome is where a capture stands, for its page: running the
// 3DS Method (MethodURL set), finished (CompInd set), or failed (Err).
type CaptureOutcome struct {
	DDCID                string
	ThreeDSServerTransID string
	// MethodURL and MethodData: the page posts MethodData, as
	// threeDSMethodData, to MethodURL in a hidden iframe and waits for the
	// notification at most MethodTimeout.
	MethodURL, MethodData string
	// CompInd is threeDSCompInd once settled: Y, N or U.
	CompInd string
	// Err is the failure, reported to the merchant's callbackUrl.
	Err *emv.Error
}
