package emulator_test

import (
	"context"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// trustCard offers "trust this merchant" (visa-challenge-trust): OTP 1234
// passes, any other code is wrong.
const trustCard = "4000000000009342"

// autoTrustCard offers the prompt on a challenge that passes by itself.
const autoTrustCard = "4000000000009953"

// TestTrustOnlyAfterAuthentication: whatever the cardholder ticked, a
// challenge offering "trust this merchant" reports whiteListStatus Y
// (source 03) only when it ended in Y with the box ticked; any other end
// of a challenge whose page was shown (or answered headless) is N, and
// one whose prompt was never shown is U. The page and the headless API
// decide alike.
func TestTrustOnlyAfterAuthentication(t *testing.T) {
	f := newFixture(t, withScenarios(t, `scenarios:
  - id: auto-pass-trust
    match: {cardNumber: "`+autoTrustCard+`"}
    challenge: {trustPrompt: true, auto: pass, autoAfter: 10s}
`))
	ctx := context.Background()
	choose := func(action, otp string, trust bool) emulator.Choice {
		return emulator.Choice{Action: action, OTP: otp, Trust: trust}
	}
	// onPage opens the page and posts the choices in order on it.
	onPage := func(choices ...emulator.Choice) func(message.LookupResponse) {
		return func(resp message.LookupResponse) {
			v := f.open(resp)
			for _, c := range choices {
				step := v.Step
				c.Step = &step
				d, err := f.Decide(ctx, resp.ThreeDSServerTransID, v.ACSTransID, c)
				if err != nil {
					t.Fatalf("decide %+v: %v", c, err)
				}
				v = d.View
			}
		}
	}
	headless := func(c emulator.Choice) func(message.LookupResponse) {
		return func(resp message.LookupResponse) {
			if _, err := f.CompleteChallenge(ctx, ns, resp.ThreeDSServerTransID, c); err != nil {
				t.Fatalf("headless %+v: %v", c, err)
			}
		}
	}
	wrong := choose(scenarios.ActionOTP, "9999", true)
	cases := []struct {
		name         string
		card         string
		do           func(message.LookupResponse)
		status, list string
	}{
		{"page: the code, trusted", trustCard, onPage(choose(scenarios.ActionOTP, "1234", true)), "Y", "Y"},
		{"page: the code, not trusted", trustCard, onPage(choose(scenarios.ActionOTP, "1234", false)), "Y", "N"},
		{"page: pass, trusted", trustCard, onPage(choose(scenarios.ActionPass, "", true)), "Y", "Y"},
		{"page: fail, trusted", trustCard, onPage(choose(scenarios.ActionFail, "", true)), "N", "N"},
		{"page: cancel, trusted", trustCard, onPage(choose(scenarios.ActionCancel, "", true)), "N", "N"},
		{"page: three wrong codes, trusted", trustCard, onPage(wrong, wrong, wrong), "N", "N"},
		{"headless: pass, trusted", trustCard, headless(choose(scenarios.ActionPass, "", true)), "Y", "Y"},
		{"headless: the code, not trusted", trustCard, headless(choose(scenarios.ActionOTP, "1234", false)), "Y", "N"},
		{"headless: fail, trusted", trustCard, headless(choose(scenarios.ActionFail, "", true)), "N", "N"},
		{"headless: cancel, trusted", trustCard, headless(choose(scenarios.ActionCancel, "", true)), "N", "N"},
		{"headless: three wrong codes, trusted", trustCard, func(resp message.LookupResponse) {
			for range 3 {
				headless(wrong)(resp)
			}
		}, "N", "N"},
		{"timeout 04: the page shown, nobody answered", trustCard, func(resp message.LookupResponse) {
			f.open(resp)
			f.clock.Advance(emulator.DefaultChallengeTimeout + 1)
		}, "N", "N"},
		{"timeout 05: the first CReq never came", trustCard, func(message.LookupResponse) {
			f.clock.Advance(emulator.DefaultFirstCReqTimeout + 1)
		}, "N", "U"},
		{"automatic pass, never shown", autoTrustCard, func(message.LookupResponse) {
			f.clock.Advance(emulator.DefaultFirstCReqTimeout)
		}, "Y", "U"},
		{"automatic pass after the page was shown", autoTrustCard, func(resp message.LookupResponse) {
			f.open(resp)
			f.clock.Advance(emulator.DefaultFirstCReqTimeout)
		}, "Y", "N"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := f.lookup(tc.card, nil)
			tc.do(resp)
			got := f.enquiry(resp.ThreeDSServerTransID)
			if got.TransactionStatus != tc.status || got.WhiteListStatus != tc.list || got.WhiteListStatusSource != "03" {
				t.Errorf("transStatus %s, whiteListStatus %q source %q; want %s, %s source 03",
					got.TransactionStatus, got.WhiteListStatus, got.WhiteListStatusSource, tc.status, tc.list)
			}
		})
	}

	t.Run("2.1.0: never asked, never listed", func(t *testing.T) {
		resp := f.lookup(trustCard, func(r *message.LookupRequest) { r.MessageVersion = "2.1.0" })
		headless(choose(scenarios.ActionPass, "", true))(resp)
		if got := f.enquiry(resp.ThreeDSServerTransID); got.WhiteListStatus != "" || got.WhiteListStatusSource != "" {
			t.Errorf("a 2.1.0 challenge reports whiteListStatus %q source %q, want none", got.WhiteListStatus, got.WhiteListStatusSource)
		}
	})
}
