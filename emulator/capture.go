package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
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

// Captures keeps what the captures need beyond their stored collection:
// which collection a merchant-chosen ddcId names, and the JWT ids already
// used. It is state that outlives a request: in memory by default, shared
// by every replica in a shared store. Implementations are safe for
// concurrent use and bounded per tenant: a tenant holds at most
// MaxCapturesPerTenant ddcIds and as many JWT ids; beyond, its own entry
// that expires first is forgotten, never another tenant's.
type Captures interface {
	// BindDDC records that k names the collection of transaction id, for
	// ttl; false, and nothing changed, when k names one already.
	BindDDC(ctx context.Context, k DDCKey, id string, ttl time.Duration) (bool, error)
	// DDC returns the transaction id k names; ErrNotFound when none.
	DDC(ctx context.Context, k DDCKey) (string, error)
	// UseJTI records the JWT id jti of tenant as used, for ttl; false
	// when the tenant used it already (a replay).
	UseJTI(ctx context.Context, tenant, jti string, ttl time.Duration) (bool, error)
}

// MaxCapturesPerTenant is a tenant's share of the captures' state: the
// ddcIds it may hold bound at once, and apart the JWT ids it may have
// used within their lifetimes.
const MaxCapturesPerTenant = 10_000

// DDCKey names a merchant's ddcId where it is unique: within the tenant
// that chose it and the generation the tenant was in (a forgetting, DELETE
// /admin/transactions, leaves the earlier ddcIds behind), or, for a
// capture whose JWT proved no tenant, among every such capture.
type DDCKey struct {
	// Tenant is the namespace that chose the ddcId: the one whose share
	// it counts in.
	Tenant string
	// Generation is the tenant's NamespaceState.Generation.
	Generation uint64
	// Claim puts the ddcId among the captures no tenant proved (an
	// unverified JWT, the open default), where the first to bind it wins
	// and any lookup may claim it; DDC then ignores Tenant and
	// Generation.
	Claim bool
	// DDCID is the merchant's ddcId.
	DDCID string
}

// Scope is where k's ddcId is unique, as the state wings key it: the
// tenant and its generation, or the claimable captures' one scope.
func (k DDCKey) Scope() string {
	if k.Claim {
		return "claim"
	}
	return k.Tenant + "/" + strconv.FormatUint(k.Generation, 10)
}

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

// Capture runs a device data capture: it refuses a replayed JWT or a
// ddcId in use, finds the card's 3DS Method by the BIN (the whole card
// number picks a test card's scenario), stores the collection under the
// merchant's ddcId, and returns what the capture page runs. It never
// fails without an outcome: every failure, the transport's Problem
// included, is recorded as an event and returned in Err.
func (e *Engine) Capture(ctx context.Context, req CaptureRequest) CaptureOutcome {
	cred := req.Credential
	fail := func(err error) CaptureOutcome {
		ee := e.captureError(ctx, err)
		e.emitCapture(ctx, req, newUUID(), fmt.Sprintf("device data capture refused: %s (%s, EMV %s); the error is reported to callbackUrl", ee.Message, ee.Code, ee.EMVCode))
		return CaptureOutcome{DDCID: req.DDCID, Err: ee}
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
	t := Transaction{
		Namespace:            cred.Namespace,
		ThreeDSServerTransID: DDCPrefix + id,
		CreatedAt:            now,
		ScenarioID:           sc.ID,
		Phase:                PhaseMethod,
		Generation:           st.Generation,
		Method: MethodState{
			DDCID:           strings.Clone(req.DDCID),
			NotificationURL: e.urls.DDCMethodNotification(),
			Available:       true,
			RequestedAt:     now,
			Merchant:        strings.Clone(cred.Merchant),
			Claimable:       cred.Claimable,
			PartialCard:     len(req.BIN) < FullCardDigits,
		},
	}
	t.setCard(req.BIN, e.cfg.Schemes.Scheme(req.BIN))
	if m := sc.Method; m != nil {
		t.Method.Available, t.Method.Duration = m.Available, m.Duration
	}
	if !t.Method.Available {
		t.Method.CompInd = "U"
	}
	key := DDCKey{Tenant: cred.Namespace, Generation: st.Generation, DDCID: req.DDCID}
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
	out := CaptureOutcome{DDCID: req.DDCID, ThreeDSServerTransID: id, CompInd: t.Method.CompInd}
	detail := "device data capture; the ACS has no 3DS Method: threeDSCompInd U, callbackUrl notified"
	if t.Method.Available {
		out.MethodURL = e.urls.ACSMethod()
		out.MethodData = EncodeMethodData(MethodData{ThreeDSServerTransID: id, NotificationURL: t.Method.NotificationURL})
		detail = fmt.Sprintf("device data capture; 3DS Method at %s, takes %s, waited for at most %s", out.MethodURL, t.Method.Duration, MethodTimeout)
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
	if e.cfg.Captures != nil && ddcID != "" && len(ddcID) <= MaxDDCID {
		keys := make([]DDCKey, 0, 3)
		for _, tenant := range []string{ns, merchant} {
			if tenant == "" {
				continue
			}
			st, err := e.state(ctx, tenant)
			if err != nil {
				return "", err
			}
			keys = append(keys, DDCKey{Tenant: tenant, Generation: st.Generation, DDCID: ddcID})
		}
		keys = append(keys, DDCKey{Claim: true, DDCID: ddcID})
		for _, k := range keys {
			id, err := e.cfg.Captures.DDC(ctx, k)
			switch {
			case err == nil:
				return DDCPrefix + id, nil
			case !errors.Is(err, ErrNotFound):
				return "", err
			}
		}
	}
	if strings.HasPrefix(ddcID, DDCPrefix) {
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
func (e *Engine) emitCapture(ctx context.Context, req CaptureRequest, id, detail string) {
	if e.cfg.Events == nil {
		return
	}
	var t Transaction
	t.ThreeDSServerTransID = id
	if req.BIN != "" {
		t.setCard(req.BIN, e.cfg.Schemes.Scheme(req.BIN))
	}
	summary := summaryOf(t)
	if len(req.BIN) < FullCardDigits {
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
	e.emit(ctx, Event{Namespace: cred.Namespace, Kind: EventDDC, Detail: detail, Transaction: summary, Request: e.redactBody(body)})
}

// FinishCapture ends the capture of transaction id, when its page has
// seen the 3DS Method notify, or waited MethodTimeout for it:
// threeDSCompInd is settled (the first time; Y when the method notified
// within MethodTimeout of its start, else N) and kept for the lookup.
func (e *Engine) FinishCapture(ctx context.Context, id string) CaptureOutcome {
	var first bool
	t, err := e.store.Update(ctx, DDCPrefix+id, func(t *Transaction) error {
		if t.Phase != PhaseMethod || t.Method.Merchant == "" { // not a browser's capture
			return ErrNotFound
		}
		first = t.Method.CompInd == ""
		if first {
			t.Method.CompInd = settledCompInd(t.Method)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			err = emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction,
				fmt.Sprintf("no device data capture for threeDSServerTransID %q%s", id, e.expiryHint()), "threeDSServerTransID")
		}
		return CaptureOutcome{ThreeDSServerTransID: id, Err: e.captureError(ctx, err)}
	}
	if first {
		detail := "device data capture finished: threeDSCompInd " + t.Method.CompInd
		switch {
		case !t.Method.CompletedAt.IsZero() && t.Method.CompInd == "Y":
			detail += fmt.Sprintf(" (the 3DS Method notified after %s)", t.Method.CompletedAt.Sub(t.Method.StartedAt).Round(time.Millisecond))
		case t.Method.CompInd == "N":
			detail += fmt.Sprintf(" (no notification of the 3DS Method within %s)", MethodTimeout)
		}
		e.emit(ctx, Event{Namespace: t.Namespace, Kind: EventDDC, Transaction: collectionSummary(t), Detail: detail + "; callbackUrl notified"})
	}
	return CaptureOutcome{DDCID: t.Method.DDCID, ThreeDSServerTransID: id, CompInd: t.Method.CompInd}
}
