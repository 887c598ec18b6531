package emulator

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// This file maps the entries of an app's CReq to the choices the
// challenge page and the headless API decide by (Choice), so that the
// three paths share one decision (Engine.decide).

// cancelOutcome is the outcome of a cancel: the scenario's for the
// cardholder's (code "" or 01), else N with the SDK's own challengeCancel
// (06 transaction error, 07 unknown, 08 the SDK timed out), reason 14
// (timed out) for 08 and the scenario's cancel reason for the others.
func cancelOutcome(ch *scenarios.Challenge, code string) scenarios.Outcome {
	if code == "" || code == "01" {
		return ch.Cancel
	}
	reason := ch.Cancel.Reason
	if code == "08" {
		reason = "14"
	}
	if reason == "" {
		reason = "01"
	}
	return scenarios.Outcome{Status: "N", Reason: reason, ChallengeCancel: code}
}

// appDecide decides the entry of the round's CReq through the decide
// path, taking the CReq's counter in the same update.
func (e *Engine) appDecide(ctx context.Context, r *appRound) (AppExchange, error) {
	c, field, err := appChoice(r)
	if err != nil {
		return AppExchange{}, err
	}
	c.app = true
	id := r.t.ThreeDSServerTransID
	d, err := e.decide(ctx, id, c, viaBrowser, func(t *state.Transaction) error {
		if t.Channel != state.ChannelApp {
			return state.ErrNotFound
		}
		if t.Phase == state.PhaseFinal {
			return appEnded(t)
		}
		return r.checkCounter(t)
	})
	if err != nil {
		if se, ok := emv.As(err); ok && se.Detail != "sdkCounterStoA" {
			se.Detail = field // the member of the CReq that carried it
		}
		return AppExchange{}, err
	}
	if d.Final {
		t := r.t
		t.Status = d.TransStatus
		return e.appFinal(ctx, r, t), nil
	}
	return e.appScreen(r, d.View), nil
}

// appChoice is the choice of the round's CReq, and the member that
// carried it.
func appChoice(r *appRound) (Choice, string, error) {
	c := r.creq
	ui := r.ch.UI
	if ui == "" {
		ui = scenarios.UIOTP
	}
	ch := Choice{Trust: c.Whitelisting == "Y"}
	switch {
	case c.Cancel != "":
		ch.Action, ch.CancelCode = scenarios.ActionCancel, c.Cancel
		return ch, "challengeCancel", nil
	case c.Resend:
		ch.Action = scenarios.ActionResend
		return ch, "resendChallenge", nil
	case c.OOBContinue:
		ch.Action = scenarios.ActionContinue
		return ch, "oobContinue", nil
	case c.NoEntry:
		if ui == scenarios.UIOOB {
			ch.Action = scenarios.ActionContinue
		} else {
			ch.Action, ch.NoEntry = entryAction(ui), true
		}
		return ch, "challengeNoEntry", nil
	case c.HTMLDataEntry != "":
		form, _ := url.ParseQuery(c.HTMLDataEntry) // parseAppCReq checked it
		switch form.Get("action") {
		case "cancel":
			return Choice{Action: scenarios.ActionCancel}, "challengeHTMLDataEntry", nil
		case "resend":
			return Choice{Action: scenarios.ActionResend}, "challengeHTMLDataEntry", nil
		case "continue":
			return Choice{Action: scenarios.ActionContinue, Trust: ch.Trust || form.Get("trust") == "Y"}, "challengeHTMLDataEntry", nil
		}
		entry := form.Get("entry")
		if picks := form["choice"]; len(picks) > 0 {
			entry = strings.Join(picks, ",")
		}
		if entry == "" {
			return Choice{}, "challengeHTMLDataEntry", emv.NewError(emv.CodeMissingField, emv.EMVMissingElement,
				"challengeHTMLDataEntry has no entry, choice or action field", "challengeHTMLDataEntry")
		}
		ch2, err := dataEntry(r, ui, entry, "challengeHTMLDataEntry")
		ch2.Trust = ch.Trust || form.Get("trust") == "Y"
		return ch2, "challengeHTMLDataEntry", err
	}
	ch2, err := dataEntry(r, ui, c.DataEntry, "challengeDataEntry")
	ch2.Trust = ch.Trust
	return ch2, "challengeDataEntry", err
}

// entryAction is the action by which style ui reads an entry.
func entryAction(ui string) string {
	switch ui {
	case scenarios.UIPassword:
		return scenarios.ActionPassword
	case scenarios.UISelect, scenarios.UIMultiSelect:
		return scenarios.ActionSelect
	}
	return scenarios.ActionOTP
}

// dataEntry is the choice of a challengeDataEntry (or an HTML form's
// entry) on a challenge of style ui: the code, the password, or the keys
// of the choices picked (comma-separated), which name the choices of
// challengeSelectInfo from 1.
func dataEntry(r *appRound, ui, entry, field string) (Choice, error) {
	switch ui {
	case scenarios.UIOTP:
		return Choice{Action: scenarios.ActionOTP, OTP: entry}, nil
	case scenarios.UIPassword:
		return Choice{Action: scenarios.ActionPassword, Entry: entry}, nil
	case scenarios.UISelect, scenarios.UIMultiSelect:
		q := styleOf(ui).(selectStyle).question(r.t.ThreeDSServerTransID, r.ch)
		var picks []string
		for _, k := range strings.Split(entry, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(k))
			if err != nil || n < 1 || n > len(q.choices) {
				return Choice{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
					field+" "+strconv.Quote(entry)+" names no choice of challengeSelectInfo: send their keys, 1 to "+strconv.Itoa(len(q.choices))+", comma-separated", field)
			}
			picks = append(picks, q.choices[n-1])
		}
		return Choice{Action: scenarios.ActionSelect, Choices: picks}, nil
	}
	return Choice{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
		"this out-of-band challenge takes oobContinue, not "+field, field)
}
