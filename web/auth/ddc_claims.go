package auth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// claimKind is the JSON type a claim must have.
type claimKind uint8

const (
	kindString claimKind = iota + 1
	kindNumericDate
	kindBool
)

// ddcClaimKinds are the types of the capture JWT's claims that the
// sandbox reads (Payload may be anything).
var ddcClaimKinds = []struct {
	name string
	kind claimKind
}{
	{"jti", kindString}, {"iat", kindNumericDate}, {"exp", kindNumericDate}, {"iss", kindString},
	{"OrgUnitId", kindString}, {"ReferenceId", kindString}, {"ObjectifyPayload", kindBool},
}

// decodeDDCClaims reads the claims of a capture's JWT from its payload (a
// JSON object, as jws.Parse checked). A claim of the wrong type is named,
// with the type it has and the one it needs.
func decodeDDCClaims(payload []byte) (DDCClaims, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(payload, &raw); err != nil {
		return DDCClaims{}, &DDCError{Reason: "the claims are not a JSON object"}
	}
	// encoding/json matches a claim's name whatever its case, as read
	// below: so is it checked. A null is an absent claim.
	for name, v := range raw {
		for _, c := range ddcClaimKinds {
			if !strings.EqualFold(name, c.name) || string(bytes.TrimSpace(v)) == "null" {
				continue
			}
			if reason := claimProblem(v, c.kind); reason != "" {
				return DDCClaims{}, &DDCError{Reason: fmt.Sprintf("claim %s is %s: %s", clip(name), jsonKind(v), reason)}
			}
		}
	}
	var claims DDCClaims
	if err := json.Unmarshal(payload, &claims); err != nil { // every claim read has its type now
		return DDCClaims{}, &DDCError{Reason: "the claims cannot be read"}
	}
	return claims, nil
}

// claimProblem says why v is not of kind, or "".
func claimProblem(v json.RawMessage, kind claimKind) string {
	v = bytes.TrimSpace(v)
	switch kind {
	case kindString:
		if len(v) > 0 && v[0] == '"' {
			return ""
		}
		return "it must be a string"
	case kindBool:
		if string(v) == "true" || string(v) == "false" {
			return ""
		}
		return "it must be true or false"
	}
	const date = "it must be a number, the seconds since 1970 (a NumericDate, such as 1767225600)"
	if len(v) == 0 || v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		return date
	}
	if _, err := strconv.ParseFloat(string(v), 64); err != nil {
		return "a number out of range: " + date
	}
	return ""
}

// jsonKind names the JSON type of v, with a short string shown.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "empty"
	}
	switch c := v[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			return fmt.Sprintf("the string %q", clip(s))
		}
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == 't' || c == 'f':
		return "a boolean"
	}
	return "the number " + clip(string(v))
}
