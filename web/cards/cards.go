// Package cards lists the test cards: each scenario of the catalogue with
// the outcome it promises (flow, status, reason, ECI by scheme, error), as
// GET {base}/scenarios, the console and the docs' test-card tables show
// them.
package cards

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// Entry is one scenario as GET {base}/scenarios lists it.
type Entry struct {
	ID         string `json:"id"`
	CardNumber string `json:"cardNumber,omitempty"`
	CardPrefix string `json:"cardPrefix,omitempty"`
	CardScheme string `json:"cardScheme"`
	// Pack is the pack the scenario comes from: defaults, cardinal,
	// reasons, runtime, or a scenario file's name.
	Pack         string `json:"pack,omitempty"`
	Flow         string `json:"flow"`
	Status       string `json:"status"`
	StatusReason string `json:"statusReason,omitempty"`
	ECI          string `json:"eci,omitempty"`
	Version      string `json:"version,omitempty"`
	Description  string `json:"description"`
	ErrorCode    string `json:"errorCode,omitempty"`
	EMVErrorCode string `json:"emvErrorCode,omitempty"`
	HTTPStatus   int    `json:"httpStatus,omitempty"`
	DelayMS      int64  `json:"delayMs,omitempty"`
	Auto         string `json:"auto,omitempty"`
	// UI, AuthenticationType and what passes are a challenge's: its
	// style, and the codes (OTPs, ui otp) or choices (Answers, ui select
	// and multiselect; empty when the sandbox draws them, and the page
	// states them) that pass, so a test robot reads the magic values.
	UI                 string   `json:"ui,omitempty"`
	AuthenticationType string   `json:"authenticationType,omitempty"`
	OTPs               []string `json:"otps,omitempty"`
	Answers            []string `json:"answers,omitempty"`
	// ACSUIType is the acsUiType a challenge shows on the app channel:
	// its style's (01 text, 02 single select, 03 multi select, 04 OOB),
	// or 05 HTML when its appInterface is html.
	ACSUIType string `json:"acsUiType,omitempty"`
	// TrustPrompt tells that the page offers "trust this merchant".
	TrustPrompt bool `json:"trustPrompt,omitempty"`
	// ThreeRI is what the card answers on the 3RI channel (POST
	// /authentication/3ri), where no cardholder can be challenged: a
	// frictionless card's result, a challenge card's threeRI result (U,
	// 21 by default). Absent for an error card, which answers its error
	// on every channel, and for a scenario that cannot answer a 3RI
	// lookup (its when leaves 3RI out, or its match tests the purchase).
	ThreeRI *Result `json:"threeRI,omitempty"`
	// AppFault is how the ACS answers an app's 3DS SDK wrong (the
	// scenario key appFault); empty for a right ACS.
	AppFault string `json:"appFault,omitempty"`
	Fallback bool   `json:"fallback,omitempty"`
	// When lists the entry's match conditions as data, keyed by the
	// request field they test (the card selectors by their scenario
	// names: cardNumber, cardPrefix, binRange, cardPattern) and the
	// conditions of its when block by theirs (channel, threeRIInd,
	// priorStatus: a value, or a list of them), e.g.
	// {"cardNumber":"4000000000009003","threeDsRequestorChallengeInd":"2"}.
	When   map[string]any `json:"when,omitempty"`
	Source string         `json:"source"`
}

// Result is a final result a card answers without a challenge.
type Result struct {
	Status       string `json:"status"`
	StatusReason string `json:"statusReason,omitempty"`
	ECI          string `json:"eci,omitempty"`
}

// threeRIResult is what sc answers on the 3RI channel for a card of
// scheme (see Entry.ThreeRI).
func threeRIResult(sc scenarios.Scenario, scheme string) *Result {
	if !sc.AnswersChannel(scenarios.Channel3RI) {
		return nil
	}
	var r Result
	switch {
	case sc.Frictionless != nil:
		r = Result{sc.Frictionless.Status, sc.Frictionless.Reason, sc.Frictionless.ECI}
	case sc.Challenge != nil:
		o := sc.ThreeRIResult()
		r = Result{o.Status, o.Reason, o.ECI}
	default:
		return nil
	}
	if r.ECI == "" {
		r.ECI = emulator.ECIFor(scheme, r.Status)
	}
	return &r
}

// conditions is a match and when block as the catalogue shows them: what
// a request must carry for the scenario to answer it.
func conditions(m scenarios.Match, when scenarios.When) map[string]any {
	w := map[string]any{}
	set := func(k, v string) {
		if v != "" {
			w[k] = v
		}
	}
	set("cardNumber", m.CardNumber)
	set("cardPrefix", m.CardPrefix)
	set("cardPattern", m.CardPattern)
	if r := m.BINRange; r != nil {
		w["binRange"] = map[string]string{"from": r.From, "to": r.To}
	}
	if a := m.Amount; a != nil {
		if a.Exact != "" {
			w["purchase.amount"] = a.Exact
		} else {
			rng := map[string]string{}
			if a.Min != "" {
				rng["min"] = a.Min
			}
			if a.Max != "" {
				rng["max"] = a.Max
			}
			w["purchase.amount"] = rng
		}
	}
	set("purchase.currencyCode", m.Currency)
	set("card.cardholderName", m.CardholderName)
	if m.ChallengeInd != 0 {
		w["threeDsRequestorChallengeInd"] = strconv.Itoa(m.ChallengeInd)
	}
	set("messageVersion", m.MessageVersion)
	set("messageCategory", m.MessageCategory)
	set("threeDsRequestorAuthInd", m.AuthInd)
	set("cardScheme", m.Scheme)
	set("threeDSCompInd", m.ThreeDSCompInd)
	for _, c := range scenarios.Conditions() {
		switch values := when[c.Key]; len(values) {
		case 0:
		case 1:
			w[c.Key] = values[0]
		default:
			w[c.Key] = values
		}
	}
	if len(w) == 0 {
		return nil
	}
	return w
}

// List lists the scenarios of cat as the API, the console and the docs
// show them.
func List(cat *scenarios.Catalogue, schemes *emulator.SchemeTable) []Entry {
	return Entries(cat.All(), cat.Fallback(), schemes)
}

// Entries lists scenarios; fb, when not nil, is marked fallback.
func Entries(all []scenarios.Scenario, fb *scenarios.Scenario, schemes *emulator.SchemeTable) []Entry {
	out := make([]Entry, 0, len(all))
	for _, sc := range all {
		e := Entry{
			ID:          sc.ID,
			CardNumber:  sc.Match.CardNumber,
			CardPrefix:  sc.Match.CardPrefix,
			Pack:        sc.Pack,
			Flow:        string(sc.Flow()),
			Description: sc.Description,
			DelayMS:     sc.Delay.Milliseconds(),
			Fallback:    fb != nil && fb.ID == sc.ID,
			When:        conditions(sc.Match, sc.When),
			Source:      fmt.Sprintf("%s:%d", sc.Source.File, sc.Source.Line),
		}
		pan := sc.Match.CardNumber
		if pan == "" {
			pan = sc.Match.CardPrefix
		}
		e.CardScheme = schemes.Scheme(pan)
		if pan == "" {
			e.CardScheme = ""
		}
		e.ThreeRI = threeRIResult(sc, e.CardScheme)
		switch {
		case sc.Frictionless != nil:
			f := sc.Frictionless
			e.Status, e.StatusReason, e.Version = f.Status, f.Reason, f.Version
			e.ECI = f.ECI
			if e.ECI == "" {
				e.ECI = emulator.ECIFor(e.CardScheme, f.Status)
			}
		case sc.Challenge != nil:
			ch := sc.Challenge
			e.Status, e.Version, e.Auto = "C", ch.Version, ch.Auto
			e.UI, e.AuthenticationType, e.Answers, e.TrustPrompt = ch.UI, ch.AuthenticationType, ch.Answers, ch.TrustPrompt
			e.ACSUIType = ch.ACSUIType()
			e.AppFault = ch.AppFault
			for otp, o := range ch.OTPs {
				if o.Status == "Y" {
					e.OTPs = append(e.OTPs, otp)
				}
			}
			slices.Sort(e.OTPs)
		case sc.Error != nil:
			e.Status = sc.Error.Status
			if e.Status == "" {
				e.Status = "U"
			}
			e.ErrorCode, e.EMVErrorCode, e.HTTPStatus = sc.Error.ErrorCode, sc.Error.EMVErrorCode, sc.Error.HTTPStatus
		}
		out = append(out, e)
	}
	return out
}
