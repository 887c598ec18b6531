// Package scenarios is the emulator's rulebook: it loads scenario files
// written in YAML (the embedded defaults plus user files), refuses invalid
// ones with file, line and reason, and answers which scenario applies to a
// lookup request. It imports nothing from the rest of the project.
package scenarios

import "time"

// Flow is what a lookup that matches a scenario does.
type Flow string

// The three flows a scenario can yield.
const (
	FlowFrictionless Flow = "frictionless"
	FlowChallenge    Flow = "challenge"
	FlowError        Flow = "error"
)

// Scenario is one rule of the catalogue: which requests it matches and what
// they get. Exactly one of Frictionless, Challenge and Error is set.
type Scenario struct {
	// ID names the scenario; unique across the active catalogue.
	ID string
	// Description is shown in the catalogue listing.
	Description string
	// Match selects the requests the scenario applies to.
	Match Match

	Frictionless *Frictionless
	Challenge    *Challenge
	Error        *ErrorResult

	// Delay holds the lookup response back for this long.
	Delay time.Duration

	// Source is where the scenario was defined.
	Source Position
}

// Flow tells which of the three results the scenario carries.
func (s *Scenario) Flow() Flow {
	switch {
	case s.Challenge != nil:
		return FlowChallenge
	case s.Error != nil:
		return FlowError
	default:
		return FlowFrictionless
	}
}

// Match is the selector of a scenario. A scenario matches a request when
// every selector it sets matches.
type Match struct {
	// CardNumber matches one exact PAN.
	CardNumber string
	// CardPrefix matches every PAN that starts with it (a BIN or longer).
	CardPrefix string
}

// Frictionless is a final result given at lookup time.
type Frictionless struct {
	Status             string // Y, A, N, U, R or I
	Reason             string // transStatusReason, two digits; required for N, U, R
	ECI                string // overrides the scheme table when set
	Version            string // 2.1.0 or 2.2.0; default 2.2.0
	AuthenticationType string // 01..04, optional
}

// Challenge is a lookup answered with status C, and what the cardholder's
// choices on the challenge page yield.
type Challenge struct {
	Version            string // 2.1.0 or 2.2.0; default 2.2.0
	AuthenticationType string // 01..04; default 02 (dynamic)
	Pass               Outcome
	Fail               Outcome
	Cancel             Outcome
	// OTPs maps one-time passwords typed on the page to outcomes.
	OTPs map[string]Outcome
	// Auto, when set (pass, fail or cancel), resolves the challenge by
	// itself AutoAfter after the lookup, with no browser involved.
	Auto      string
	AutoAfter time.Duration
}

// Outcome is the final result of a challenge.
type Outcome struct {
	Status          string // Y or N (a final CRes carries only these)
	Reason          string // transStatusReason
	ChallengeCancel string // challengeCancel code, for cancel outcomes
	ECI             string // overrides the scheme table when set
}

// ErrorResult is a lookup answered with the error body of spec 2.16.
type ErrorResult struct {
	HTTPStatus   int    // HTTP status of the response
	ErrorCode    string // 4-character errorCode
	Status       string // status of the error body, default U
	Message      string // the body's "error" text
	EMVErrorCode string // 3 digits
	Component    string // C, S, D or A
	Description  string // emvErrorDescription; default: the EMV name of the code
	Detail       string // emvErrorDetail
}

// Position locates a definition in a scenario file.
type Position struct {
	File string
	Line int
}

// Request is what a scenario selector can look at in a lookup request.
type Request struct {
	CardNumber      string
	CardholderName  string
	Amount          string // decimal text, "" when no purchase
	Currency        string
	ChallengeInd    int
	MessageVersion  string
	MessageCategory string
	AuthInd         string
}
