package emulator

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// SDKErroReason is the transStatusReason of a challenge that the app's
// 3DS SDK ended with an Erro (07, invalid transaction); its
// challengeCancel is 06 (transaction error).
const SDKErroReason = "07"

// AppSDKErro answers the body of a POST {base}/acs/sdk whose content type
// is application/json: an Erro the SDK posts when the ACS's CRes was
// wrong. It ends the open challenge it names (status U, reason 07,
// challengeCancel 06; the enquiry names the SDK's error) and answers 200
// with no body; an Erro for a challenge that has ended is recorded and
// changes nothing. One that is not an Erro, or names no transaction of
// this ACS, answers the ACS's own Erro.
func (e *Engine) AppSDKErro(ctx context.Context, body []byte) AppExchange {
	var m message.Erro
	if err := json.Unmarshal(body, &m); err != nil || m.MessageType != "Erro" {
		return e.refuse(ctx, nil, emv.NewError(emv.CodeInvalidField, emv.EMVMessageInvalid,
			"a JSON body is taken only as the SDK's Erro (messageType Erro); a CReq goes as application/jose", "messageType"), "Erro")
	}
	if len(m.ErrorCode) != 3 || !allDigits(m.ErrorCode) {
		return e.refuse(ctx, nil, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, "the Erro's errorCode is not three digits", "errorCode"), "Erro")
	}
	kid := m.ACSTransID
	if kid == "" {
		kid, _ = acsTransIDOf(m.ThreeDSServerTransID)
	}
	t, err := e.transactionByKid(ctx, kid)
	if err != nil {
		return e.refuse(ctx, nil, err, "Erro")
	}
	if m.SDKTransID != "" && m.SDKTransID != t.App.SDKTransID {
		return e.refuse(ctx, nil, emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction, "sdkTransID is not the transaction's", "sdkTransID"), "Erro")
	}
	sc, err := e.scenarioByID(ctx, t.Namespace, t.ScenarioID)
	if err != nil {
		return e.refuse(ctx, nil, err, "Erro")
	}
	ch := challengeRules(sc)
	now, err := e.clock(ctx, t.Namespace)
	if err != nil {
		return e.refuse(ctx, nil, err, "Erro")
	}
	ended := false
	t, err = e.store.Update(ctx, t.ThreeDSServerTransID, func(t *state.Transaction) error {
		ended = false // fn may run again after a conflicting write
		settleLocked(t, now, ch, e.cfg)
		if t.Phase == state.PhaseFinal {
			return nil
		}
		t.Challenge.Decision = "sdk-erro"
		t.Challenge.DecidedAt = now
		if t.Challenge.OpenedAt.IsZero() {
			t.Challenge.OpenedAt = now
		}
		t.App.SDKError = m.ErrorCode
		finish(t, "U", SDKErroReason, "", "06")
		settleTrust(t, ch, false)
		ended = true
		return nil
	})
	if err != nil {
		return e.refuse(ctx, nil, e.stateFailure(err, t.ThreeDSServerTransID), "Erro")
	}
	detail := fmt.Sprintf("the 3DS SDK posted Erro %s (%s: %s)", m.ErrorCode, clip(m.ErrorDescription, 120), clip(m.ErrorDetail, 120))
	if ended {
		detail += " -> U, reason 07, challengeCancel 06"
	} else {
		detail += " after the challenge ended; nothing changed"
	}
	e.emit(ctx, state.Event{Namespace: t.Namespace, Kind: state.EventCReq, Detail: detail, Transaction: summaryOf(t), Request: e.redactBody(body)})
	if ended {
		e.scheduleCallback(ctx, t, ch)
	}
	return AppExchange{}
}

// AppErroReply is the ACS's Erro with code for a message whose
// transaction is unknown, as the transport refuses what it cannot read.
func AppErroReply(code, description, detail string) AppExchange {
	se := emv.NewError(emv.CodeInvalidField, code, description, detail)
	return AppExchange{Body: erroBody(nil, se, ""), ContentType: ContentTypeJSON}
}

// sdkErroDesc is the enquiry's reasonDesc of a challenge the SDK's Erro
// code ended.
func sdkErroDesc(code string) string {
	s := "the 3DS SDK ended the challenge with Erro " + code
	if name := scenarios.EMVErrorName(code); name != "" {
		s += " (" + name + ")"
	}
	return s
}

// clip shortens s to at most n bytes for a journal's detail, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cut(s, n) + "…"
}
