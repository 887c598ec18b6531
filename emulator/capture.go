package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// This file holds the device data capture as the real service's browser
// form makes it: the merchant's checkout posts bin, callbackUrl, a ddcId
// of its own choosing and a JWT into a hidden iframe at
// {base}/V2/ddcCollect. The 3DS server (the sandbox) collects, runs the
// ACS's 3DS Method in that iframe when the card's ACS has one, waits for
// its notification at most MethodTimeout, and notifies callbackUrl. The
// lookup later names the ddcId and continues the capture's transaction.
//
// The capture is stored as a collection (PhaseMethod) like the JSON
// collection's, under DDCPrefix and its threeDSServerTransID; Captures
// maps the merchant's ddcId to that id and remembers the JWT ids used.

// Capture runs a device data capture: it refuses a replayed JWT or a
// ddcId in use, finds the card's 3DS Method by the BIN (the whole card
// number picks a test card's scenario), stores the collection under the
// merchant's ddcId, and returns what the capture page runs. It never
// fails without an outcome: every failure, the transport's Problem
// included, is recorded as an event and returned in Err.
func (e *Engine) Capture(ctx context.Context, req message.CaptureRequest) message.CaptureOutcome {
	cred := req.Credential
	fail := func(err error) message.CaptureOutcome {
		ee := e.captureError(ctx, err)
		e.emitCapture(ctx, req, newUUID(), fmt.Sprintf("device data capture refused: %s (%s, EMV %s); the error is reported to callbackUrl", ee.Message, ee.Code, ee.EMVCode))
		return message.CaptureOutcome{DDCID: req.DDCID, Err: ee}
	}
	switch {
	case req.Problem != nil:
		return fail(req.Problem)
	case e.cfg.Captures == nil:
		return fail(emv.NewError(emv.CodeTransactionState, emv.EMVTransientFailure, "this sandbox keeps no device data captures", "ddcId"))
	}
	ttl := e.captureAge() // a JWT without an expiry is remembered as long as a capture
	if !cred.Expires.IsZero() {
		ttl = max(cred.Expires.Sub(e.now()), time.Second)
	}
	fresh, err := e.cfg.Captures.UseJTI(ctx, cred.Namespace, cred.JTI, ttl)
	if err != nil {
		return fail(err)
	}
	if !fresh {
		return fail(emv.NewError(emv.CodeCaptureReplay, emv.EMVAccessDenied,
			fmt.Sprintf("the JWT's jti %q was used before: make a new JWT for each capture", cred.JTI), "jwt"))
	}
	sc, err := e.match(ctx, cred.Namespace, scenarios.Request{CardNumber: req.BIN, CardScheme: e.cfg.Schemes.Scheme(req.BIN)})
	if err != nil {
		return fail(err)
	}
	// The capture is made in its namespace's generation and by its clock,
	// as a lookup is: one made after a forgetting is that namespace's to
	// find.
	st, err := e.state(ctx, cred.Namespace)
	if err != nil {
		return fail(err)
	}
	id := newUUID()
	now := e.now().Add(st.Offset)
	t := state.Transaction{
		Namespace:            cred.Namespace,
		ThreeDSServerTransID: message.DDCPrefix + id,
		CreatedAt:            now,
		ScenarioID:           sc.ID,
		Phase:                state.PhaseMethod,
		Generation:           st.Generation,
		Method: state.MethodState{
			DDCID:           strings.Clone(req.DDCID),
			NotificationURL: e.urls.DDCMethodNotification(),
			Available:       true,
			RequestedAt:     now,
			Merchant:        strings.Clone(cred.Merchant),
			Claimable:       cred.Claimable,
			PartialCard:     len(req.BIN) < message.FullCardDigits,
		},
	}
	t.SetCard(req.BIN, e.cfg.Schemes.Scheme(req.BIN))
	if m := sc.Method; m != nil {
		t.Method.Available, t.Method.Duration = m.Available, m.Duration
	}
	if !t.Method.Available {
		t.Method.CompInd = "U"
	}
	key := state.DDCKey{Tenant: cred.Namespace, Generation: st.Generation, DDCID: req.DDCID}
	bound, err := e.cfg.Captures.BindDDC(ctx, key, id, e.captureAge())
	if err != nil {
		return fail(err)
	}
	if !bound {
		return fail(emv.NewError(emv.CodeCaptureInUse, emv.EMVInvalidTransaction,
			fmt.Sprintf("ddcId %q names a device data capture of this merchant already: choose a new one for each capture", req.DDCID), "ddcId"))
	}
	claim := ""
	if cred.Claimable {
		// Offered to any lookup too, when no other capture offered the
		// ddcId first; its merchant's own lookups find it either way.
		key.Claim = true
		if offered, err := e.cfg.Captures.BindDDC(ctx, key, id, e.captureAge()); err != nil {
			return fail(err)
		} else if !offered {
			claim = "; another unverified capture offered this ddcId to every token first: only the lookups of OAuth client " + cred.Merchant + " find this one"
		}
	}
	if err := e.store.Put(ctx, t); err != nil {
		return fail(fmt.Errorf("device data capture: store: %w", err))
	}
	out := message.CaptureOutcome{DDCID: req.DDCID, ThreeDSServerTransID: id, CompInd: t.Method.CompInd}
	detail := "device data capture; the ACS has no 3DS Method: threeDSCompInd U, callbackUrl notified"
	if t.Method.Available {
		out.MethodURL = e.urls.ACSMethod()
		out.MethodData = message.EncodeMethodData(message.MethodData{ThreeDSServerTransID: id, NotificationURL: t.Method.NotificationURL})
		detail = fmt.Sprintf("device data capture; 3DS Method at %s, takes %s, waited for at most %s", out.MethodURL, t.Method.Duration, message.MethodTimeout)
	}
	e.emitCapture(ctx, req, id, detail+claim)
	return out
}

// collectionKey finds the stored collection a lookup's ddcId names: the
// one a merchant's ddcId was bound to (Captures) by the lookup's own
// namespace ns in its generation, else by the tenant of the unverified
// captures its credential names (merchant), else among the captures no
// tenant proved; else, for a ddcId the sandbox made (DDCPrefix and the
// transaction id), the collection stored under it; "" for none.
func (e *Engine) collectionKey(ctx context.Context, ns, merchant, ddcID string) (string, error) {
	if e.cfg.Captures != nil && ddcID != "" && len(ddcID) <= message.MaxDDCID {
		keys := make([]state.DDCKey, 0, 3)
		for _, tenant := range []string{ns, merchant} {
			if tenant == "" {
				continue
			}
			st, err := e.state(ctx, tenant)
			if err != nil {
				return "", err
			}
			keys = append(keys, state.DDCKey{Tenant: tenant, Generation: st.Generation, DDCID: ddcID})
		}
		keys = append(keys, state.DDCKey{Claim: true, DDCID: ddcID})
		for _, k := range keys {
			id, err := e.cfg.Captures.DDC(ctx, k)
			switch {
			case err == nil:
				return message.DDCPrefix + id, nil
			case !errors.Is(err, state.ErrNotFound):
				return "", err
			}
		}
	}
	if strings.HasPrefix(ddcID, message.DDCPrefix) {
		return ddcID, nil
	}
	return "", nil
}

// captureAge is how long a capture's ddcId is kept: as long as its
// collection.
func (e *Engine) captureAge() time.Duration {
	if e.cfg.StoreMaxAge > 0 {
		return e.cfg.StoreMaxAge
	}
	return 24 * time.Hour
}

// captureError is err as the capture's outcome reports it.
func (e *Engine) captureError(ctx context.Context, err error) *emv.Error {
	if ee, ok := AsError(err); ok {
		return ee
	}
	return emv.NewError(emv.CodeInternal, emv.EMVPermanentFailure, "internal error of the sandbox: "+emv.Truncate(err.Error(), 120), "")
}

// captureBody is the capture's form as its event keeps it: the bin
// masked, the jwt by its length.
type captureBody struct {
	BIN         string `json:"bin"`
	CallbackURL string `json:"callbackUrl"`
	DDCID       string `json:"ddcId"`
	JWT         string `json:"jwt"`
	Issuer      string `json:"iss,omitempty"`
}

// emitCapture records an event of a capture under its credential's
// namespace, as the transaction id (the one its lookup would carry).
func (e *Engine) emitCapture(ctx context.Context, req message.CaptureRequest, id, detail string) {
	if e.cfg.Events == nil {
		return
	}
	var t state.Transaction
	t.ThreeDSServerTransID = id
	if req.BIN != "" {
		t.SetCard(req.BIN, e.cfg.Schemes.Scheme(req.BIN))
	}
	summary := summaryOf(t)
	if len(req.BIN) < message.FullCardDigits {
		summary.MaskedPAN = t.CardBIN
	}
	cred := req.Credential
	if cred.Merchant != "" {
		detail += "; merchant " + cred.Merchant
	}
	if cred.Claimable {
		detail += "; the first lookup naming the ddcId with a card of this BIN claims it"
	}
	for _, n := range cred.Notes {
		detail += "; " + n
	}
	body, _ := json.Marshal(captureBody{BIN: summary.MaskedPAN, CallbackURL: req.CallbackURL, DDCID: req.DDCID,
		JWT: fmt.Sprintf("(%d characters)", req.JWTLength), Issuer: cred.Merchant})
	e.emit(ctx, state.Event{Namespace: cred.Namespace, Kind: state.EventDDC, Detail: detail, Transaction: summary, Request: e.redactBody(body)})
}

// FinishCapture ends the capture of transaction id, when its page has
// seen the 3DS Method notify, or waited MethodTimeout for it:
// threeDSCompInd is settled (the first time; Y when the method notified
// within MethodTimeout of its start, else N) and kept for the lookup.
func (e *Engine) FinishCapture(ctx context.Context, id string) message.CaptureOutcome {
	var first bool
	t, err := e.store.Update(ctx, message.DDCPrefix+id, func(t *state.Transaction) error {
		if t.Phase != state.PhaseMethod || t.Method.Merchant == "" { // not a browser's capture
			return state.ErrNotFound
		}
		first = t.Method.CompInd == ""
		if first {
			t.Method.CompInd = settledCompInd(t.Method)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, state.ErrNotFound) {
			err = emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction,
				fmt.Sprintf("no device data capture for threeDSServerTransID %q%s", id, e.expiryHint()), "threeDSServerTransID")
		}
		return message.CaptureOutcome{ThreeDSServerTransID: id, Err: e.captureError(ctx, err)}
	}
	if first {
		detail := "device data capture finished: threeDSCompInd " + t.Method.CompInd
		switch {
		case !t.Method.CompletedAt.IsZero() && t.Method.CompInd == "Y":
			detail += fmt.Sprintf(" (the 3DS Method notified after %s)", t.Method.CompletedAt.Sub(t.Method.StartedAt).Round(time.Millisecond))
		case t.Method.CompInd == "N":
			detail += fmt.Sprintf(" (no notification of the 3DS Method within %s)", message.MethodTimeout)
		}
		e.emit(ctx, state.Event{Namespace: t.Namespace, Kind: state.EventDDC, Transaction: collectionSummary(t), Detail: detail + "; callbackUrl notified"})
	}
	return message.CaptureOutcome{DDCID: t.Method.DDCID, ThreeDSServerTransID: id, CompInd: t.Method.CompInd}
}
