package emulator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
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

// Collect answers a device data collection request of namespace ns: it
// finds the card's scenario, stores the collection under the merchant's
// ddcId (DDCPrefix and a new transaction id when it chose none) and
// returns the method URL and threeDSMethodData when the card's ACS has a
// 3DS Method (else the advice to send threeDSCompInd U).
func (e *Engine) Collect(ctx context.Context, ns string, req message.DDCRequest, call APICall) (message.DDCResponse, error) {
	pan := req.Card.CardNumber
	scheme := e.cfg.Schemes.Scheme(pan)
	var sc *scenarios.Scenario
	var err error
	if call.ScenarioID != "" {
		if sc, err = e.scenarioByID(ctx, ns, call.ScenarioID); err != nil {
			return message.DDCResponse{}, err
		}
		if sc == nil {
			return message.DDCResponse{}, emv.NewError(emv.CodeUnknownScenario, emv.EMVInvalidFormat,
				fmt.Sprintf("no scenario with id %q (see GET /scenarios)", call.ScenarioID), "X-Scenario")
		}
	} else if sc, err = e.match(ctx, ns, scenarios.Request{
		CardNumber: pan, CardholderName: req.Card.CardholderName, CardScheme: scheme,
	}); err != nil {
		return message.DDCResponse{}, err
	}
	id := newUUID()
	st, err := e.state(ctx, ns)
	if err != nil {
		return message.DDCResponse{}, err
	}
	now := e.now().Add(st.Offset)
	ddcID := message.DDCPrefix + id
	if req.DDCID != "" {
		if err := e.bindDDC(ctx, state.DDCKey{Tenant: ns, Generation: st.Generation, DDCID: req.DDCID}, id); err != nil {
			return message.DDCResponse{}, err
		}
		ddcID = req.DDCID
	}
	t := state.Transaction{
		Namespace:            ns,
		ThreeDSServerTransID: message.DDCPrefix + id,
		ExternalReferenceID:  strings.Clone(req.ExternalReferenceID),
		CreatedAt:            now,
		ScenarioID:           sc.ID,
		Phase:                state.PhaseMethod,
		Generation:           st.Generation,
		Method: state.MethodState{
			DDCID:           strings.Clone(ddcID),
			NotificationURL: strings.Clone(req.NotificationURL),
			Available:       true,
			RequestedAt:     now,
		},
	}
	t.SetCard(pan, scheme)
	if m := sc.Method; m != nil {
		t.Method.Available, t.Method.Duration = m.Available, m.Duration
	}
	if err := e.store.Put(ctx, t); err != nil {
		return message.DDCResponse{}, fmt.Errorf("device data collection: store: %w", err)
	}
	resp := message.DDCResponse{
		DDCID:                t.Method.DDCID,
		ThreeDSServerTransID: id,
		ExternalReferenceID:  t.ExternalReferenceID,
		ScenarioID:           sc.ID,
	}
	detail := "device data collection; the ACS has no 3DS Method: threeDSCompInd U"
	if t.Method.Available {
		resp.MethodURL = e.urls.ACSMethod()
		resp.MethodData = message.EncodeMethodData(message.MethodData{ThreeDSServerTransID: id, NotificationURL: t.Method.NotificationURL})
		detail = fmt.Sprintf("device data collection; 3DS Method at %s, takes %s", resp.MethodURL, t.Method.Duration)
	} else {
		resp.CompIndHint = "U"
	}
	summary := collectionSummary(t)
	summary.CardholderName = req.Card.CardholderName
	e.emit(ctx, state.Event{Namespace: ns, Kind: state.EventDDC, Detail: withNote(detail, call.Note), Transaction: summary, Request: e.redactBody(call.Body)})
	return resp, nil
}

// bindDDC binds a merchant's ddcId to the collection of transaction id,
// or says why it cannot.
func (e *Engine) bindDDC(ctx context.Context, k state.DDCKey, id string) error {
	if e.cfg.Captures == nil {
		return emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, "this sandbox keeps no merchant-chosen ddcId: leave ddcId out", "ddcId")
	}
	bound, err := e.cfg.Captures.BindDDC(ctx, k, id, e.captureAge())
	if err != nil {
		return fmt.Errorf("device data collection: bind ddcId: %w", err)
	}
	if !bound {
		return emv.NewError(emv.CodeCaptureInUse, emv.EMVInvalidTransaction,
			fmt.Sprintf("ddcId %q names a device data collection of this token already: choose a new one for each collection", k.DDCID), "ddcId")
	}
	return nil
}

// collectionSummary is the summary of a stored collection: its events
// belong to the transaction id the lookup will carry, not to its ddcId.
func collectionSummary(t state.Transaction) state.Summary {
	s := summaryOf(t)
	s.ThreeDSServerTransID = strings.TrimPrefix(t.ThreeDSServerTransID, message.DDCPrefix)
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
	md, err := message.DecodeMethodData(data, true)
	if err != nil {
		return MethodPage{}, err
	}
	var first bool
	t, err := e.store.Update(ctx, message.DDCPrefix+md.ThreeDSServerTransID, func(t *state.Transaction) error {
		if !t.Method.Available {
			return emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
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
		e.emit(ctx, state.Event{Namespace: t.Namespace, Kind: state.EventMethod, Transaction: collectionSummary(t),
			Detail: fmt.Sprintf("3DS Method page opened; collects for %s", t.Method.Duration)})
	}
	return MethodPage{
		ThreeDSServerTransID: md.ThreeDSServerTransID,
		Duration:             t.Method.Duration,
		DoneURL:              e.urls.ACSMethodDone(),
		NotificationData:     message.EncodeMethodData(message.MethodData{ThreeDSServerTransID: md.ThreeDSServerTransID}),
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
	md, err := message.DecodeMethodData(data, false)
	if err != nil {
		return MethodNotification{}, err
	}
	var first bool
	t, err := e.store.Update(ctx, message.DDCPrefix+md.ThreeDSServerTransID, func(t *state.Transaction) error {
		if t.Method.StartedAt.IsZero() {
			return emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
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
		if took > message.MethodTimeout {
			detail += fmt.Sprintf(" (beyond %s: a lookup sent before now gets threeDSCompInd N)", message.MethodTimeout)
		}
		e.emit(ctx, state.Event{Namespace: t.Namespace, Kind: state.EventMethodDone, Transaction: collectionSummary(t), Detail: detail})
	}
	return MethodNotification{
		NotificationURL: t.Method.NotificationURL,
		Data:            message.EncodeMethodData(message.MethodData{ThreeDSServerTransID: md.ThreeDSServerTransID}),
	}, nil
}

// methodFailure turns a store failure of the method pages into the error
// the browser sees.
func (e *Engine) methodFailure(err error, id string) error {
	if errors.Is(err, state.ErrNotFound) {
		return emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction,
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
func settledCompInd(m state.MethodState) string {
	switch {
	case !m.Available:
		return "U"
	case !m.StartedAt.IsZero() && !m.CompletedAt.IsZero() && m.CompletedAt.Sub(m.StartedAt) <= message.MethodTimeout:
		return "Y"
	default:
		return "N"
	}
}

// methodTimeline is the enquiry's view of a transaction's method, read
// from its collection when it is still stored (the method may complete
// after the lookup).
func (e *Engine) methodTimeline(ctx context.Context, t state.Transaction) *message.MethodTimeline {
	m := t.Method
	if m == (state.MethodState{}) {
		return nil
	}
	if c, err := e.store.Get(ctx, message.DDCPrefix+t.ThreeDSServerTransID); err == nil && c.Namespace == t.Namespace {
		m.StartedAt, m.CompletedAt = c.Method.StartedAt, c.Method.CompletedAt
	}
	return &message.MethodTimeline{
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
