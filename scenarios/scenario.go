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
	// Pack names the group the scenario came from: "defaults", "cardinal",
	// or the base name of a user file.
	Pack string
	// Priority decides between several matching scenarios: the highest
	// wins; equal priorities fall back to specificity (see Catalogue.Match).
	Priority int
	// Match selects the requests the scenario applies to.
	Match Match
	// When adds conditions on the lookup's channel (the key when), ANDed
	// with Match and counted in its specificity; nil: any channel.
	When When

	Frictionless *Frictionless
	Challenge    *Challenge
	Error        *ErrorResult
	// ThreeRI is what a challenge scenario answers on the 3RI channel,
	// where there is no cardholder to challenge (the key threeRI); nil:
	// DefaultThreeRI. Only a challenge scenario has one (ThreeRIResult).
	ThreeRI *Outcome

	// Delay holds the lookup response back for this long (shorthand for
	// a fixed Steps.Lookup.Delay).
	Delay time.Duration
	// Steps inject latency and faults into each step of the flow.
	Steps Steps
	// WhiteList is reported when the Requestor asked for merchant
	// whitelisting (requestFeatures 2).
	WhiteList *WhiteList
	// Method is the card's ACS 3DS Method: whether it has one and how
	// long it takes. Nil: the ACS has a method that completes at once.
	Method *Method

	// Source is where the scenario was defined.
	Source Position

	// doc is the scenario as a document of its own, for runtime scenarios
	// (see ParseRuntime); nil for the files'.
	doc []byte
}

// Document returns a runtime scenario as a scenario document of its own,
// which ParseRuntime reads back into the same scenario: what a shared
// store keeps. It is nil for the scenarios of files.
func (s *Scenario) Document() []byte { return s.doc }

// SelectorKey is a canonical text of the scenario's match and priority:
// two scenarios with the same key select exactly the same requests with
// the same weight, so a namespace may not hold both.
func (s *Scenario) SelectorKey() string { return matchKey(s.Match, s.When, s.Priority) }

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
// every selector it sets matches; an empty Match matches nothing (only a
// fallback has one).
type Match struct {
	// CardNumber matches one exact PAN.
	CardNumber string
	// CardPrefix matches every PAN that starts with it (a BIN or longer).
	CardPrefix string
	// BINRange matches PANs whose leading digits, as many as From has,
	// lie between From and To inclusive.
	BINRange *BINRange
	// CardPattern matches PANs digit by digit: a digit matches itself,
	// 'x' or '?' any digit; lengths must be equal.
	CardPattern string
	// Amount matches purchase.amount exactly or within a range.
	Amount *AmountMatch
	// Currency matches purchase.currencyCode (alphabetic or numeric).
	Currency string
	// CardholderName matches card.cardholderName, case-insensitively.
	CardholderName string
	// ChallengeInd matches threeDsRequestorChallengeInd (1-4); 0: any.
	ChallengeInd int
	// MessageVersion matches the request's messageVersion.
	MessageVersion string
	// MessageCategory matches messageCategory ("01", "02").
	MessageCategory string
	// AuthInd matches threeDsRequestorAuthInd ("01".."06").
	AuthInd string
	// Scheme matches the card scheme the sandbox finds for the card's BIN
	// (VISA, MASTERCARD, ..., UNKNOWN for none).
	Scheme string
	// ThreeDSCompInd matches the lookup's threeDSCompInd (Y, N or U) as
	// the server settles it from the device data collection.
	ThreeDSCompInd string
}

// BINRange is an inclusive range of card prefixes of equal length.
type BINRange struct{ From, To string }

// AmountMatch matches a decimal amount: Exact, or Min..Max inclusive (an
// empty bound is open). Values are decimal text such as "10.00".
type AmountMatch struct{ Exact, Min, Max string }

// Steps are the per-step injections of a scenario.
type Steps struct {
	Lookup, Challenge, Enquiry Step
}

// Step is what happens to one step (a lookup, a challenge page or
// decision, an enquiry) before it is answered.
type Step struct {
	// Delay holds the answer back.
	Delay Delay
	// Fault, when set, replaces the answer.
	Fault *Fault
}

// Delay is a fixed (Min == Max) or uniformly random delay.
type Delay struct{ Min, Max time.Duration }

// IsZero reports whether the delay is none.
func (d Delay) IsZero() bool { return d.Max == 0 }

// FaultKind names a kind of injected fault.
type FaultKind string

// The fault kinds.
const (
	// FaultEMVError answers the error body with an EMV error (402, 403,
	// 405, ...) and the HTTP status of Fault.Error.
	FaultEMVError FaultKind = "emvError"
	// FaultHTTPError answers an HTTP 5xx with the error body.
	FaultHTTPError FaultKind = "httpError"
	// FaultDrop closes the connection without an answer.
	FaultDrop FaultKind = "drop"
	// FaultMalformed answers 200 with a body that is not valid JSON.
	FaultMalformed FaultKind = "malformed"
)

// Fault is an injected failure.
type Fault struct {
	Kind FaultKind
	// Probability in (0, 1]: how often the fault fires; 1 when unset.
	Probability float64
	// Error is the answer of emvError and httpError faults.
	Error *ErrorResult
}

// MaxMethodDuration bounds how long a scenario's 3DS Method may take.
const MaxMethodDuration = 60 * time.Second

// Method is the ACS's 3DS Method as a scenario describes it.
type Method struct {
	// Available tells whether the ACS has a 3DS Method URL.
	Available bool
	// Duration is how long the method page collects before it notifies
	// the 3DS Requestor, at most MaxMethodDuration.
	Duration time.Duration
}

// WhiteList is the trust-list status an ACS reports.
type WhiteList struct {
	Status string // Y, N, E, P, R, U
	Source string // 01 3DS server, 02 DS, 03 ACS
}

// Frictionless is a final result given at lookup time.
type Frictionless struct {
	Status             string // Y, A, N, U, R or I
	Reason             string // transStatusReason, two digits; required for N, U, R
	ECI                string // overrides the scheme table when set
	Version            string // 2.1.0 or 2.2.0; default 2.2.0
	AuthenticationType string // 01..04, optional
	// On210 is what a transaction answers instead when the Requestor's
	// messageVersion makes it 2.1.0 (the key on210): its status (no I,
	// which 2.1.0 lacks), reason (01-21) and ECI. Nil: the engine's
	// default downgrade.
	On210 *Outcome
}

// Challenge is a lookup answered with status C, and what the cardholder's
// choices on the challenge page yield.
type Challenge struct {
	Version string // 2.1.0 or 2.2.0; default 2.2.0
	// UI is the challenge's style (see Styles); default otp.
	UI                 string
	AuthenticationType string // 01..04; default the style's (otp: 02, dynamic)
	Pass               Outcome
	Fail               Outcome
	Cancel             Outcome
	// OTPs maps one-time passwords typed on the page to outcomes (ui
	// otp).
	OTPs map[string]Outcome
	// Resends is how many new codes the cardholder may ask for (ui otp;
	// key resends, default DefaultResends).
	Resends int
	// TrustPrompt offers "trust this merchant" on the page, any style
	// (key trustPrompt, 2.2.0 only): the enquiry then carries
	// whiteListStatus Y or N, source 03.
	TrustPrompt bool
	// AppInterface is how the challenge shows on the app channel (key
	// appInterface): AppNative (the default), the style's native UI type,
	// or AppHTML, an HTML page (acsUiType 05) whatever the style.
	AppInterface string
	// Answers are the choices that pass a select (one) or multiselect
	// challenge (key answers); none: the engine generates them from the
	// transaction, and the page states them.
	Answers []string
	// App is what the bank app of an oob challenge answers by itself
	// AutoAfter after the lookup, when AutoAfter is set and Auto is not:
	// approve or decline (key app, default approve).
	App string
	// Own is what the keys of a style that keeps its own rules apart say
	// (its Style.parse sets it, its engine part reads it, e.g.
	// PasswordRules of ui password); nil for the others.
	Own any
	// Auto, when set (pass, fail or cancel), resolves the challenge by
	// itself AutoAfter after the lookup, with no browser involved.
	Auto      string
	AutoAfter time.Duration
	// FirstCReqTimeout and ChallengeTimeout, when set, replace the
	// server's windows (--first-creq-timeout, --challenge-timeout) for
	// this scenario's challenges: how long the challenge waits for its
	// first CReq (then N, reason 14, challengeCancel 05), and how long an
	// opened challenge waits for a decision (then N, 14, 04). Zero: the
	// server's.
	FirstCReqTimeout, ChallengeTimeout time.Duration
	// AppFault, when set (one of AppFaults), makes the ACS answer an
	// app-channel challenge wrong in that way (key appFault); the browser
	// path ignores it.
	AppFault string
}

// Outcome is the final result of a challenge.
type Outcome struct {
	Status          string // Y, N or U; the final CRes carries N for U, the enquiry U
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
	// ThreeDSCompInd is the lookup's threeDSCompInd as settled by the
	// server (Y, N or U), "" when unknown.
	ThreeDSCompInd string
	// CardScheme is the scheme of the card, as the engine's BIN table
	// finds it.
	CardScheme string

	// Channel is the lookup's device channel (ChannelBrowser, Channel3RI,
	// ChannelApp); "" counts as the browser.
	Channel string
	// ThreeRIInd is a 3RI lookup's threeRIInd; "" on the other channels.
	ThreeRIInd string
	// PriorStatus is the status of the transaction a 3RI lookup's
	// threeDsReqPriorRef names (Y, A, N, U, R, I or C), PriorNone when
	// the sandbox finds none for the token, "" when the lookup names none.
	PriorStatus string
	// Platform is the platform of an app lookup's device (PlatformAndroid,
	// PlatformIOS or PlatformOther); "" on the other channels.
	Platform string
}
