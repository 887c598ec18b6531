package emulator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// Enquiry returns the current result of a transaction of namespace ns, found
// by threeDsServerTransId when given, else by externalReferenceId (the
// newest transaction with that reference).
func (e *Engine) Enquiry(ctx context.Context, ns string, req message.EnquiryRequest, call APICall) (message.EnquiryResponse, error) {
	var (
		t   state.Transaction
		err error
	)
	field, value := "threeDsServerTransId", req.ThreeDSServerTransID
	if req.ThreeDSServerTransID != "" {
		t, err = e.store.Get(ctx, req.ThreeDSServerTransID)
		if err == nil && t.Namespace != ns {
			err = state.ErrNotFound
		}
	} else {
		field, value = "externalReferenceId", req.ExternalReferenceID
		t, err = e.store.GetByExternalRef(ctx, ns, req.ExternalReferenceID)
	}
	if err == nil && t.Phase == state.PhaseMethod {
		return message.EnquiryResponse{}, e.collectionOnly(ctx, ns, t, field, value)
	}
	var sc *scenarios.Scenario
	if err == nil {
		if sc, err = e.scenarioByID(ctx, ns, t.ScenarioID); err != nil {
			return message.EnquiryResponse{}, err
		}
	}
	if err := e.applyStep(ctx, sc, StepEnquiry, viaAPI); err != nil {
		return message.EnquiryResponse{}, err
	}
	if err != nil {
		return message.EnquiryResponse{}, e.lookupFailure(err, field, value)
	}
	t, err = e.settleWith(ctx, t, challengeRules(sc))
	if err != nil {
		return message.EnquiryResponse{}, e.lookupFailure(err, field, value)
	}
	resp := e.enquiryResponse(t)
	if resp.ThreeDSMethod = e.methodTimeline(ctx, t); resp.ThreeDSMethod != nil {
		resp.DDCID, resp.ThreeDSCompInd = t.Method.DDCID, t.Method.CompInd
	}
	e.emit(ctx, state.Event{Namespace: ns, Kind: state.EventEnquiry, Transaction: summaryOf(t), Detail: call.Note,
		Request: e.redactBody(call.Body), Enquiry: &resp})
	return resp, nil
}

// collectionOnly is the answer to an enquiry whose key names a device
// data collection, not an authentication: one without a lookup yet, or
// one whose lookup carries another externalReferenceId (the reference
// then names the collection alone) or stored no transaction.
func (e *Engine) collectionOnly(ctx context.Context, ns string, c state.Transaction, field, value string) error {
	msg := fmt.Sprintf("%s %q names the device data collection %s, without a lookup yet", field, value, c.ThreeDSServerTransID)
	if c.Method.CompInd != "" { // a lookup used it
		id := strings.TrimPrefix(c.ThreeDSServerTransID, message.DDCPrefix)
		switch t, err := e.store.Get(ctx, id); {
		case err == nil && t.Namespace == ns && t.ExternalReferenceID != c.ExternalReferenceID:
			msg = fmt.Sprintf("%s %q names the device data collection %s, whose lookup carries externalReferenceId %q: "+
				"enquire by threeDsServerTransId %s or by that reference", field, value, c.ThreeDSServerTransID, t.ExternalReferenceID, id)
		case err == nil && t.Namespace == ns:
			msg = fmt.Sprintf("%s %q names the device data collection %s; its lookup is threeDsServerTransId %s: enquire by that id",
				field, value, c.ThreeDSServerTransID, id)
		case errors.Is(err, state.ErrNotFound):
			msg = fmt.Sprintf("%s %q names the device data collection %s, whose lookup stored no transaction (it was answered with an error)",
				field, value, c.ThreeDSServerTransID)
		case err != nil:
			return e.lookupFailure(err, field, value)
		}
	}
	return emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction, msg, field)
}

// lookupFailure turns a store failure into the error the caller sees.
func (e *Engine) lookupFailure(err error, field, value string) error {
	if errors.Is(err, state.ErrNotFound) {
		return emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction,
			fmt.Sprintf("no transaction with %s %q for this token%s", field, value, e.expiryHint()), field)
	}
	if _, ok := AsError(err); ok {
		return err
	}
	return fmt.Errorf("find transaction by %s: %w", field, err)
}

// expiryHint tells, after an unknown transaction, that transactions
// expire: the store forgets them after StoreMaxAge.
func (e *Engine) expiryHint() string {
	if e.cfg.StoreMaxAge <= 0 {
		return ""
	}
	return fmt.Sprintf("; transactions expire %s after their lookup (--store-max-age), go earlier when the store is full, and belong to the token that made them", e.cfg.StoreMaxAge)
}

func (e *Engine) enquiryResponse(t state.Transaction) message.EnquiryResponse {
	r := message.EnquiryResponse{
		ThreeDSServerTransID:       t.ThreeDSServerTransID,
		DSTransID:                  t.DSTransID,
		ACSTransactionID:           t.ACSTransID,
		AuthenticationValue:        e.AuthenticationValue(t),
		TransactionStatus:          t.Status,
		ECI:                        t.ECI,
		Version:                    t.Version,
		CardScheme:                 t.CardScheme,
		CardBIN:                    t.CardBIN,
		DSTransactionID:            t.DSTransID,
		ThreeDSServerTransactionID: t.ThreeDSServerTransID,
		ChallengeCancel:            t.ChallengeCancel,
		StatusReason:               t.StatusReason,
		WhiteListStatus:            t.WhiteListStatus,
		WhiteListStatusSource:      t.WhiteListStatusSrc,
		AuthenticationType:         t.AuthenticationType,
		ExternalReferenceID:        t.ExternalReferenceID,
		ACSReferenceNumber:         t.ACSReferenceNumber,
		ACSOperatorID:              t.ACSOperatorID,
		SDKTransID:                 t.App.SDKTransID,
	}
	if t.StatusReason != "" {
		r.ReasonCode, r.ReasonDesc = t.StatusReason, emv.ReasonText[t.StatusReason]
		if t.App.SDKError != "" {
			r.ReasonDesc += ": " + sdkErroDesc(t.App.SDKError)
		}
	}
	if challengeBegun(t) {
		r.InteractionCounter = fmt.Sprintf("%02d", min(t.Challenge.Interactions, 99))
	}
	return r
}

// challengeBegun tells whether t had a challenge that opened or ended:
// its RReq carries interactionCounter, "00" when the cardholder
// attempted no authentication cycle (a cancel, a timeout, an automatic
// decision). A frictionless transaction and a challenge whose first
// CReq has not come yet have none.
func challengeBegun(t state.Transaction) bool {
	return !t.Challenge.OpenedAt.IsZero() || t.Challenge.Decision != ""
}
