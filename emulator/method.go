package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// This file holds the steps before the lookup: the device data collection
// (POST {base}/authentication/ddc) and the ACS's 3DS Method, which the
// cardholder's browser runs in a hidden iframe and which notifies the 3DS
// Requestor when it is done.
//
// A collection is stored as a transaction of its own in PhaseMethod, under
// its ddcId ("ddc-" followed by the threeDSServerTransID the later lookup
// will carry). The lookup that names the ddcId stores the authentication
// under that threeDSServerTransID, with a copy of the method's state; the
// method may still complete after the lookup, so the enquiry reads its
// timeline from the collection.

// MethodTimeout is how long a 3DS Requestor waits for the 3DS Method's
// notification before it sends the lookup with threeDSCompInd N (EMV 3DS:
// 10 seconds).
const MethodTimeout = 10 * time.Second

// DDCPrefix starts every ddcId the emulator hands out.
const DDCPrefix = "ddc-"

// MaxMethodData bounds the threeDSMethodData form field, in characters.
const MaxMethodData = 4096

// MethodData is the content of threeDSMethodData: Base64Url of this JSON
// object. The method page receives both members; the notification to the
// 3DS Requestor carries only the transaction id.
type MethodData struct {
	ThreeDSServerTransID string `json:"threeDSServerTransID"`
	NotificationURL      string `json:"threeDSMethodNotificationURL,omitempty"`
}

// EncodeMethodData encodes m as threeDSMethodData: Base64Url without
// padding of its JSON.
func EncodeMethodData(m MethodData) string {
	s, err := EncodeMessage(m)
	if err != nil { // two strings always marshal
		panic(fmt.Sprintf("emulator: encode threeDSMethodData: %v", err))
	}
	return s
}

// DecodeMethodData decodes the threeDSMethodData form field. needURL
// says whether threeDSMethodNotificationURL must be present (the method
// page) or may be absent (the notification). Its failures are *Error: 201
// for a missing value, 203 for bad Base64, JSON, id or URL.
func DecodeMethodData(s string, needURL bool) (MethodData, error) {
	if s == "" {
		return MethodData{}, NewError(CodeMissingField, EMVMissingElement, "the form field threeDSMethodData is missing", "threeDSMethodData")
	}
	if len(s) > MaxMethodData {
		return MethodData{}, NewError(CodeInvalidField, EMVInvalidFormat,
			fmt.Sprintf("threeDSMethodData is %d characters long, at most %d", len(s), MaxMethodData), "threeDSMethodData")
	}
	raw, err := DecodeBase64(s)
	if err != nil {
		return MethodData{}, NewError(CodeInvalidField, EMVInvalidFormat, "threeDSMethodData is not Base64Url: "+err.Error(), "threeDSMethodData")
	}
	if dups := duplicateKeys(raw); len(dups) > 0 {
		return MethodData{}, NewError(CodeDuplicateField, EMVDuplicateElement, "threeDSMethodData holds "+strings.Join(dups, ", ")+" more than once", strings.Join(dups, ","))
	}
	var m MethodData
	if err := json.Unmarshal(raw, &m); err != nil {
		return MethodData{}, NewError(CodeInvalidField, EMVInvalidFormat, "threeDSMethodData is not a JSON object of strings: "+err.Error(), "threeDSMethodData")
	}
	if m.ThreeDSServerTransID == "" {
		return MethodData{}, NewError(CodeMissingField, EMVMissingElement, "threeDSMethodData has no threeDSServerTransID", "threeDSServerTransID")
	}
	if !isUUID(m.ThreeDSServerTransID) {
		return MethodData{}, NewError(CodeInvalidField, EMVInvalidFormat, "threeDSServerTransID in threeDSMethodData is not a UUID", "threeDSServerTransID")
	}
	m.ThreeDSServerTransID = strings.ToLower(m.ThreeDSServerTransID)
	switch {
	case m.NotificationURL == "" && needURL:
		return MethodData{}, NewError(CodeMissingField, EMVMissingElement,
			"threeDSMethodData has no threeDSMethodNotificationURL: the method cannot notify the 3DS Requestor", "threeDSMethodNotificationURL")
	case m.NotificationURL != "" && !isWebURL(m.NotificationURL):
		return MethodData{}, NewError(CodeInvalidField, EMVInvalidFormat,
			"threeDSMethodNotificationURL in threeDSMethodData is not an absolute http or https URL", "threeDSMethodNotificationURL")
	}
	return m, nil
}

// isWebURL tells whether s is an absolute http or https URL with a host,
// at most 2048 characters.
func isWebURL(s string) bool {
	if len(s) > 2048 {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Opaque == ""
}

// Collect answers a device data collection request of namespace ns: it
// finds the card's scenario, stores the collection under the merchant's
// ddcId (DDCPrefix and a new transaction id when it chose none) and
// returns the method URL and threeDSMethodData when the card's ACS has a
// 3DS Method (else the advice to send threeDSCompInd U).
func (e *Engine) Collect(ctx context.Context, ns string, req DDCRequest, call APICall) (DDCResponse, error) {
	pan := req.Card.CardNumber
	scheme := e.cfg.Schemes.Scheme(pan)
	var sc *scenarios.Scenario
	var err error
	if call.ScenarioID != "" {
		if sc, err = e.scenarioByID(ctx, ns, call.ScenarioID); err != nil {
			return DDCResponse{}, err
		}
		if sc == nil {
			return DDCResponse{}, NewError(CodeUnknownScenario, EMVInvalidFormat,
				fmt.Sprintf("no scenario with id %q (see GET /scenarios)", call.ScenarioID), "X-Scenario")
		}
	} else if sc, err = e.match(ctx, ns, scenarios.Request{
		CardNumber: pan, CardholderName: req.Card.CardholderName, CardScheme: scheme,
	}); err != nil {
		return DDCResponse{}, err
	}
	id := newUUID()
	st, err := e.state(ctx, ns)
	if err != nil {
		return DDCResponse{}, err
	}
	now := e.now().Add(st.Offset)
	ddcID := DDCPrefix + id
	if req.DDCID != "" {
		if err := e.bindDDC(ctx, DDCKey{Tenant: ns, Generation: st.Generation, DDCID: req.DDCID}, id); err != nil {
			return DDCResponse{}, err
		}
		ddcID = req.DDCID
	}
	t := Transaction{
		Namespace:            ns,
		ThreeDSServerTransID: DDCPrefix + id,
		ExternalReferenceID:  strings.Clone(req.ExternalReferenceID),
		CreatedAt:            now,
		ScenarioID:           sc.ID,
		Phase:                PhaseMethod,
		Generation:           st.Generation,
		Method: MethodState{
			DDCID:           strings.Clone(ddcID),
			NotificationURL: strings.Clone(req.NotificationURL),
			Available:       true,
			RequestedAt:     now,
		},
	}
	t.setCard(pan, scheme)
	if m := sc.Method; m != nil {
		t.Method.Available, t.Method.Duration = m.Available, m.Duration
	}
	if err := e.store.Put(ctx, t); err != nil {
		return DDCResponse{}, fmt.Errorf("device data collection: store: %w", err)
	}
	resp := DDCResponse{
		DDCID:                t.Method.DDCID,
		ThreeDSServerTransID: id,
		ExternalReferenceID:  t.ExternalReferenceID,
		ScenarioID:           sc.ID,
	}
	detail := "device data collection; the ACS has no 3DS Method: threeDSCompInd U"
	if t.Method.Available {
		resp.MethodURL = e.urls.ACSMethod()
		resp.MethodData = EncodeMethodData(MethodData{ThreeDSServerTransID: id, NotificationURL: t.Method.NotificationURL})
		detail = fmt.Sprintf("device data collection; 3DS Method at %s, takes %s", resp.MethodURL, t.Method.Duration)
	} else {
		resp.CompIndHint = "U"
	}
	summary := collectionSummary(t)
	summary.CardholderName = req.Card.CardholderName
	e.emit(ctx, Event{Namespace: ns, Kind: EventDDC, Detail: withNote(detail, call.Note), Transaction: summary, Request: e.redactBody(call.Body)})
	return resp, nil
}

// bindDDC binds a merchant's ddcId to the collection of transaction id,
// or says why it cannot.
func (e *Engine) bindDDC(ctx context.Context, k DDCKey, id string) error {
	if e.cfg.Captures == nil {
		return NewError(CodeInvalidField, EMVInvalidFormat, "this sandbox keeps no merchant-chosen ddcId: leave ddcId out", "ddcId")
	}
	bound, err := e.cfg.Captures.BindDDC(ctx, k, id, e.captureAge())
	if err != nil {
		return fmt.Errorf("device data collection: bind ddcId: %w", err)
	}
	if !bound {
		return NewError(CodeCaptureInUse, EMVInvalidTransaction,
			fmt.Sprintf("ddcId %q names a device data collection of this token already: choose a new one for each collection", k.DDCID), "ddcId")
	}
	return nil
}

// collectionSummary is the summary of a stored collection: its events
// belong to the transaction id the lookup will carry, not to its ddcId.
func collectionSummary(t Transaction) Summary {
	s := summaryOf(t)
	s.ThreeDSServerTransID = strings.TrimPrefix(t.ThreeDSServerTransID, DDCPrefix)
	return s
}

// MethodPage is the ACS's 3DS Method page as data: the transport renders
// a page that waits Duration, then posts NotificationData (as
// threeDSMethodData) to DoneURL, which records the completion and passes
// it on to the 3DS Requestor.
type MethodPage struct {
	ThreeDSServerTransID string
	Duration             time.Duration
	DoneURL              string
	NotificationData     string
}

// StartMethod runs the ACS's side of the 3DS Method page: it decodes
// threeDSMethodData, records that the browser arrived (the first time)
// and the notification URL to use, and returns the page to render.
func (e *Engine) StartMethod(ctx context.Context, data string) (MethodPage, error) {
	md, err := DecodeMethodData(data, true)
	if err != nil {
		return MethodPage{}, err
	}
	var first bool
	t, err := e.store.Update(ctx, DDCPrefix+md.ThreeDSServerTransID, func(t *Transaction) error {
		if !t.Method.Available {
			return NewError(CodeTransactionState, EMVInvalidTransaction,
				"the ACS of this card has no 3DS Method: send the lookup with threeDSCompInd U", "threeDSMethodData")
		}
		first = t.Method.StartedAt.IsZero()
		if first {
			now, err := e.clock(ctx, t.Namespace)
			if err != nil {
				return err
			}
			t.Method.StartedAt = now
		}
		t.Method.NotificationURL = md.NotificationURL
		return nil
	})
	if err != nil {
		return MethodPage{}, e.methodFailure(err, md.ThreeDSServerTransID)
	}
	if first {
		e.emit(ctx, Event{Namespace: t.Namespace, Kind: EventMethod, Transaction: collectionSummary(t),
			Detail: fmt.Sprintf("3DS Method page opened; collects for %s", t.Method.Duration)})
	}
	return MethodPage{
		ThreeDSServerTransID: md.ThreeDSServerTransID,
		Duration:             t.Method.Duration,
		DoneURL:              e.urls.ACSMethodDone(),
		NotificationData:     EncodeMethodData(MethodData{ThreeDSServerTransID: md.ThreeDSServerTransID}),
	}, nil
}

// MethodNotification is the end of a 3DS Method as data: the page posts
// Data as threeDSMethodData to NotificationURL.
type MethodNotification struct {
	NotificationURL string
	Data            string
}

// CompleteMethod records that the 3DS Method of the transaction in
// threeDSMethodData completed (the first time) and returns the
// notification to post to the 3DS Requestor.
func (e *Engine) CompleteMethod(ctx context.Context, data string) (MethodNotification, error) {
	md, err := DecodeMethodData(data, false)
	if err != nil {
		return MethodNotification{}, err
	}
	var first bool
	t, err := e.store.Update(ctx, DDCPrefix+md.ThreeDSServerTransID, func(t *Transaction) error {
		if t.Method.StartedAt.IsZero() {
			return NewError(CodeTransactionState, EMVInvalidTransaction,
				"the 3DS Method of this transaction never started: post threeDSMethodData to the method URL first", "threeDSMethodData")
		}
		first = t.Method.CompletedAt.IsZero()
		if first {
			now, err := e.clock(ctx, t.Namespace)
			if err != nil {
				return err
			}
			t.Method.CompletedAt = now
		}
		return nil
	})
	if err != nil {
		return MethodNotification{}, e.methodFailure(err, md.ThreeDSServerTransID)
	}
	if first {
		took := t.Method.CompletedAt.Sub(t.Method.StartedAt).Round(time.Millisecond)
		detail := fmt.Sprintf("3DS Method completed after %s; notified the 3DS Requestor", took)
		if took > MethodTimeout {
			detail += fmt.Sprintf(" (beyond %s: a lookup sent before now gets threeDSCompInd N)", MethodTimeout)
		}
		e.emit(ctx, Event{Namespace: t.Namespace, Kind: EventMethodDone, Transaction: collectionSummary(t), Detail: detail})
	}
	return MethodNotification{
		NotificationURL: t.Method.NotificationURL,
		Data:            EncodeMethodData(MethodData{ThreeDSServerTransID: md.ThreeDSServerTransID}),
	}, nil
}

// methodFailure turns a store failure of the method pages into the error
// the browser sees.
func (e *Engine) methodFailure(err error, id string) error {
	if errors.Is(err, ErrNotFound) {
		return NewError(CodeUnknownTransaction, EMVUnknownTransaction,
			fmt.Sprintf("no device data collection for threeDSServerTransID %q (POST /authentication/ddc first; collections expire with transactions)", id),
			"threeDSServerTransID")
	}
	if _, ok := AsError(err); ok {
		return err
	}
	return fmt.Errorf("3DS Method of %s: %w", id, err)
}

// settledCompInd is threeDSCompInd as the server saw the method: U when
// the ACS has none, Y when it notified within MethodTimeout of its start,
// N otherwise (not started, not completed, or too slow).
func settledCompInd(m MethodState) string {
	switch {
	case !m.Available:
		return "U"
	case !m.StartedAt.IsZero() && !m.CompletedAt.IsZero() && m.CompletedAt.Sub(m.StartedAt) <= MethodTimeout:
		return "Y"
	default:
		return "N"
	}
}

// methodTimeline is the enquiry's view of a transaction's method, read
// from its collection when it is still stored (the method may complete
// after the lookup).
func (e *Engine) methodTimeline(ctx context.Context, t Transaction) *MethodTimeline {
	m := t.Method
	if m == (MethodState{}) {
		return nil
	}
	if c, err := e.store.Get(ctx, DDCPrefix+t.ThreeDSServerTransID); err == nil && c.Namespace == t.Namespace {
		m.StartedAt, m.CompletedAt = c.Method.StartedAt, c.Method.CompletedAt
	}
	return &MethodTimeline{
		Available:        m.Available,
		RequestedAt:      stamp(m.RequestedAt),
		StartedAt:        stamp(m.StartedAt),
		CompletedAt:      stamp(m.CompletedAt),
		RequestorCompInd: m.RequestorCompInd,
	}
}

// stamp formats a timeline time: RFC 3339 in UTC with milliseconds, ""
// for the zero time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
