package emulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/jose"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

// This file is the ACS's side of the app channel's CReq/CRes exchange
// (POST {base}/acs/sdk): the 3DS SDK posts each CReq as a compact JWE
// encrypted with the key the lookup agreed; the ACS checks it, decides it
// through the same decide path as the challenge page and the headless API
// (challenge.go), and answers a CRes encrypted the same way, or an Erro
// in plain JSON that changes nothing of the transaction. The counters of
// the exchange are kept in the transaction and change in the same
// Store.Update as the decision.

// The content types of the exchange's answers.
const (
	ContentTypeJOSE = "application/jose; charset=UTF-8"
	ContentTypeJSON = "application/json; charset=UTF-8"
)

// AppExchange is the ACS's answer to one message of the SDK: Body of type
// ContentType as it goes on the wire (an empty Body: 200 with no body),
// or, when Screen is set, an interim CRes that the transport fills with
// the screen's texts and hands to SealCRes.
type AppExchange struct {
	Body        []byte
	ContentType string
	Screen      *AppScreen
	round       *appRound
}

// AppScreen is what an interim CRes shows: the challenge's page as the
// browser would see it, and how the SDK renders it.
type AppScreen struct {
	View ChallengeView
	// UIType is the acsUiType: 01 text, 02 single select, 03 multi
	// select, 04 out of band, 05 HTML.
	UIType string
	// WrongAnswer tells that the screen follows a wrong answer
	// (challengeInfoTextIndicator Y).
	WrongAnswer bool
	// OOBAppURL is the banking app's page of the transaction (04).
	OOBAppURL string
	// Locale is the device's locale (C005), the language's second
	// choice after View.Language.
	Locale string
}

// appRound is what one CReq's round knows, for its answer and its event.
type appRound struct {
	t     state.Transaction
	ch    *scenarios.Challenge
	key   []byte
	enc   string
	plain []byte
	creq  appCReq
}

// AppCReq answers the body of a POST {base}/acs/sdk whose content type is
// application/jose: a CReq as a compact JWE.
func (e *Engine) AppCReq(ctx context.Context, body []byte) AppExchange {
	r, x, err := e.appCReq(ctx, body)
	if err != nil {
		return e.appRefusal(ctx, r, err)
	}
	if f := r.ch.AppFault; f == scenarios.AppFaultSlowReply {
		if err := e.delay(ctx, scenarios.AppSlowReply); err != nil {
			return e.appRefusal(ctx, r, err)
		}
	}
	return x
}

// appCReq checks a CReq in EMV's order and decides it. The round is nil
// until the transaction is known.
func (e *Engine) appCReq(ctx context.Context, body []byte) (*appRound, AppExchange, error) {
	jwe, err := jose.ParseJWE(body)
	if err != nil {
		code := emv.EMVMessageInvalid
		if errors.Is(err, jose.ErrUnsupported) {
			code = emv.EMVInvalidFormat
		}
		return nil, AppExchange{}, emv.NewError(emv.CodeInvalidField, code, "the CReq is not a compact JWE of the exchange: "+err.Error(), "")
	}
	h := jwe.Header
	switch {
	case h.Alg != "dir":
		return nil, AppExchange{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, fmt.Sprintf("the CReq's JWE alg is %q: the exchange takes dir", h.Alg), "alg")
	case h.Enc != jose.A128CBCHS256 && h.Enc != jose.A128GCM:
		return nil, AppExchange{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, fmt.Sprintf("the CReq's JWE enc is %q: the exchange takes A128CBC-HS256 or A128GCM", h.Enc), "enc")
	}
	t, err := e.transactionByKid(ctx, h.Kid)
	if err != nil {
		return nil, AppExchange{}, err
	}
	sc, err := e.scenarioByID(ctx, t.Namespace, t.ScenarioID)
	if err != nil {
		return nil, AppExchange{}, err
	}
	r := &appRound{t: t, ch: challengeRules(sc), enc: h.Enc}
	if t.App.Enc != "" && h.Enc != t.App.Enc {
		return r, AppExchange{}, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
			fmt.Sprintf("the CReq's JWE enc is %s, but this exchange began in %s", h.Enc, t.App.Enc), "enc")
	}
	if r.key, err = e.seal.Open(t.App.SealedKey, t.ACSTransID); err != nil {
		return r, AppExchange{}, emv.NewError(emv.CodeInternal, emv.EMVDecryptionFailure, "the exchange key of transaction "+t.ThreeDSServerTransID+" does not open", "")
	}
	if r.plain, err = jwe.DecryptDirect(r.key, jose.SDKToACS); err != nil {
		return r, AppExchange{}, emv.NewError(emv.CodeInvalidField, emv.EMVDecryptionFailure, "the CReq does not decrypt with this transaction's exchange key: "+err.Error(), "")
	}
	if r.creq, err = parseAppCReq(r.plain); err != nil {
		return r, AppExchange{}, err
	}
	if err := r.checkCReq(t); err != nil {
		return r, AppExchange{}, err
	}
	// Timeouts that fell due are stored and reported before the CReq is
	// judged: a late CReq answers 402.
	if r.t, err = e.settleWith(ctx, t, r.ch); err != nil {
		return r, AppExchange{}, err
	}
	if r.t.Phase == state.PhaseFinal {
		return r, AppExchange{}, appEnded(&r.t)
	}
	var x AppExchange
	if r.creq.hasEntry() {
		x, err = e.appDecide(ctx, r)
	} else {
		x, err = e.appOpen(ctx, r)
	}
	return r, x, err
}

// transactionByKid is the app-channel transaction whose acsTransID is kid.
func (e *Engine) transactionByKid(ctx context.Context, kid string) (state.Transaction, error) {
	unknown := emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction, fmt.Sprintf("the JWE's kid %q is the acsTransID of no app-channel challenge of this ACS", kid), "kid")
	id, ok := serverTransIDOf(strings.ToLower(kid))
	if !ok {
		return state.Transaction{}, unknown
	}
	t, err := e.store.Get(ctx, id)
	switch {
	case errors.Is(err, state.ErrNotFound):
		return state.Transaction{}, unknown
	case err != nil:
		return state.Transaction{}, fmt.Errorf("transaction %s: %w", id, err)
	case t.Channel != state.ChannelApp || t.ACSTransID != strings.ToLower(kid):
		return state.Transaction{}, unknown
	case t.App.SealedKey == "":
		return state.Transaction{}, emv.NewError(emv.CodeTransactionState, emv.EMVInvalidTransaction,
			"transaction "+t.ThreeDSServerTransID+" was answered at its lookup without a challenge: it takes no CReq", "kid")
	}
	return t, nil
}

// checkCReq checks the CReq of the round against its transaction t.
func (r *appRound) checkCReq(t state.Transaction) error {
	c := r.creq
	switch {
	case c.MessageType != "CReq":
		return emv.NewError(emv.CodeInvalidField, emv.EMVMessageInvalid, fmt.Sprintf("messageType is %q: the ACS takes a CReq here", c.MessageType), "messageType")
	case c.MessageVersion != t.Version:
		return emv.NewError(emv.CodeInvalidField, emv.EMVVersionNotSupported, fmt.Sprintf("messageVersion %s is not the transaction's, %s", c.MessageVersion, t.Version), "messageVersion")
	case c.ThreeDSServerTransID != t.ThreeDSServerTransID:
		return emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction, "threeDSServerTransID is not the transaction's of this acsTransID", "threeDSServerTransID")
	case c.ACSTransID != t.ACSTransID:
		return emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction, "acsTransID is not the JWE's kid", "acsTransID")
	case c.SDKTransID != t.App.SDKTransID:
		return emv.NewError(emv.CodeUnknownTransaction, emv.EMVUnknownTransaction, "sdkTransID is not the lookup's sdkTransId", "sdkTransID")
	case c.Whitelisting != "" && t.Version < scenarios.Version220:
		return emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, "whitelistingDataEntry is not in "+t.Version, "whitelistingDataEntry")
	case c.AppURL != "" && t.Version < scenarios.Version220:
		return emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat, "threeDSRequestorAppURL is not in "+t.Version, "threeDSRequestorAppURL")
	}
	return r.checkCounter(&t)
}

// checkCounter checks that the CReq carries the next counter of t and
// takes it, inside the update that decides the CReq: a replay or a jump
// is refused (302) and changes nothing.
func (r *appRound) checkCounter(t *state.Transaction) error {
	if r.creq.Counter != t.App.Counter {
		what := "a jump"
		if r.creq.Counter < t.App.Counter {
			what = "a replay"
		}
		return emv.NewError(emv.CodeTransactionState, emv.EMVDecryptionFailure,
			fmt.Sprintf("sdkCounterStoA %03d is not the next one, %03d: %s", r.creq.Counter, t.App.Counter, what), "sdkCounterStoA")
	}
	t.App.Counter++
	if t.App.Enc == "" {
		t.App.Enc = r.enc
	}
	return nil
}

// appEnded is the error of a CReq for the finished challenge t: 402 when
// the ACS timed it out, else 305.
func appEnded(t *state.Transaction) *emv.Error {
	if strings.HasPrefix(t.Challenge.Decision, "timeout-") {
		return emv.NewError(emv.CodeTransactionState, emv.EMVTimedOut,
			fmt.Sprintf("the challenge of transaction %s timed out at the ACS (%s): status %s", t.ThreeDSServerTransID, t.Challenge.Decision, t.Status), "sdkCounterStoA")
	}
	err := completedError(t)
	err.Detail = "sdkCounterStoA"
	return err
}

// appOpen answers a CReq without an entry: the first opens the challenge
// and shows its first screen; a later one shows the screen again.
func (e *Engine) appOpen(ctx context.Context, r *appRound) (AppExchange, error) {
	now, err := e.clock(ctx, r.t.Namespace)
	if err != nil {
		return AppExchange{}, err
	}
	var first bool
	t, err := e.store.Update(ctx, r.t.ThreeDSServerTransID, func(t *state.Transaction) error {
		first = false // fn may run again after a conflicting write
		if err := r.checkCounter(t); err != nil {
			return err
		}
		settleLocked(t, now, r.ch, e.cfg)
		if t.Phase == state.PhaseFinal {
			return appEnded(t)
		}
		first = openLocked(t, now)
		return nil
	})
	if err != nil {
		return AppExchange{}, e.stateFailure(err, r.t.ThreeDSServerTransID)
	}
	r.t = t
	if kind, detail := styleOf(r.ch.UI).opened(r.ch); first && kind != "" {
		e.transactionEvent(ctx, t, kind, detail)
	}
	return e.appScreen(r, e.view(t, r.ch, "", now)), nil
}

// appScreen is the interim answer of the round r showing v.
func (e *Engine) appScreen(r *appRound, v ChallengeView) AppExchange {
	s := &AppScreen{View: v, UIType: r.t.App.UIType, WrongAnswer: v.Notice == NoticeWrongCode, Locale: r.t.App.Device.Locale}
	if v.UI == scenarios.UIOOB {
		s.OOBAppURL = e.urls.App(r.t.ThreeDSServerTransID)
	}
	if r.ch.AppFault == scenarios.AppFaultErro && r.creq.Counter == 0 {
		return AppExchange{round: r, Body: erroBody(r, emv.NewError(emv.CodeBusy, emv.EMVTransientFailure, "the scenario's appFault erro answers this Erro instead of the CRes", ""), "CReq"), ContentType: ContentTypeJSON}
	}
	if r.ch.AppFault == scenarios.AppFaultNotJWE && r.creq.Counter == 0 {
		return AppExchange{round: r, Body: []byte("the scenario's appFault notJWE answers this body, which is not a JWE"), ContentType: ContentTypeJOSE}
	}
	return AppExchange{Screen: s, round: r}
}

// SealCRes completes the interim CRes c of x, whose texts the transport
// filled from x.Screen, with the exchange's ids and counter, encrypts it
// and records the round in the journal: the answer on the wire.
func (e *Engine) SealCRes(ctx context.Context, x AppExchange, c message.AppCRes) AppExchange {
	r := x.round
	if r == nil || x.Screen == nil { // not an interim answer: nothing to seal
		return x
	}
	t := r.t
	c.ThreeDSServerTransID, c.ACSTransID, c.SDKTransID = t.ThreeDSServerTransID, t.ACSTransID, t.App.SDKTransID
	c.MessageType, c.MessageVersion, c.ChallengeCompletionInd = "CRes", t.Version, "N"
	c.ACSUIType = t.App.UIType
	counter := r.creq.Counter
	if r.creq.Counter == 0 {
		switch r.ch.AppFault {
		case scenarios.AppFaultWrongCounter:
			counter++
		case scenarios.AppFaultMissingField:
			c.ChallengeInfoHeader = ""
		case scenarios.AppFaultEmptyWhyInfo:
			empty := ""
			c.WhyInfoText = &empty
		}
	}
	c.ACSCounterAtoS = fmt.Sprintf("%03d", counter)
	return e.sealed(ctx, r, c, counter, state.EventCReq, fmt.Sprintf("CReq %03d answered by an interim CRes, acsUiType %s", r.creq.Counter, t.App.UIType))
}

// sealed encrypts the CRes c of the round r as CRes number counter and
// records the round as an event of kind.
func (e *Engine) sealed(ctx context.Context, r *appRound, c any, counter int, kind state.EventKind, detail string) AppExchange {
	plain, err := json.Marshal(c)
	if err != nil {
		return e.appRefusal(ctx, r, fmt.Errorf("encode the CRes: %w", err))
	}
	body, err := jose.EncryptDirect(plain, r.key, r.enc, r.t.ACSTransID, jose.ACSToSDK, uint8(counter))
	if err != nil {
		return e.appRefusal(ctx, r, fmt.Errorf("encrypt the CRes: %w", err))
	}
	e.emit(ctx, state.Event{Namespace: r.t.Namespace, Kind: kind, Detail: detail, Transaction: summaryOf(r.t),
		Request: e.redactBody(r.plain), Answer: plain})
	return AppExchange{Body: body, ContentType: ContentTypeJOSE}
}

// appRefusal is the Erro that answers a message the ACS does not take,
// recorded in the transaction's journal when the transaction is known.
func (e *Engine) appRefusal(ctx context.Context, r *appRound, err error) AppExchange {
	return e.refuse(ctx, r, err, "CReq")
}

// refuse is appRefusal of a message of type refused (CReq, or the SDK's
// Erro).
func (e *Engine) refuse(ctx context.Context, r *appRound, err error, refused string) AppExchange {
	se, ok := emv.As(err)
	if !ok {
		se = emv.NewError(emv.CodeInternal, emv.EMVPermanentFailure, "the ACS failed: "+err.Error(), "")
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			se = emv.NewError(emv.CodeBusy, emv.EMVTransientFailure, "the ACS could not answer in time", "")
		}
	}
	body := erroBody(r, se, refused)
	if r != nil {
		e.emit(ctx, state.Event{Namespace: r.t.Namespace, Kind: state.EventCReq, Transaction: summaryOf(r.t),
			Detail:  fmt.Sprintf("CReq refused with Erro %s: %s", se.EMVCode, se.Message),
			Request: e.redactBody(r.plain), Answer: body})
	}
	return AppExchange{Body: body, ContentType: ContentTypeJSON}
}

// erroBody is the JSON of the ACS's Erro for se refusing a message of
// type refused, with the ids of the round r when it knows them.
func erroBody(r *appRound, se *emv.Error, refused string) []byte {
	m := message.Erro{
		MessageType:      "Erro",
		MessageVersion:   DefaultVersion,
		ErrorCode:        se.EMVCode,
		ErrorComponent:   "A",
		ErrorDescription: se.Message,
		ErrorDetail:      se.Detail,
		ErrorMessageType: refused,
	}
	if m.ErrorDetail == "" {
		m.ErrorDetail = scenarios.EMVErrorName(se.EMVCode)
	}
	if r != nil {
		m.ThreeDSServerTransID, m.ACSTransID, m.SDKTransID, m.MessageVersion = r.t.ThreeDSServerTransID, r.t.ACSTransID, r.t.App.SDKTransID, r.t.Version
	}
	b, _ := json.Marshal(m) // strings only: never fails
	return b
}

// appFinal is the final CRes of the round r, whose CReq ended the
// challenge of t.
func (e *Engine) appFinal(ctx context.Context, r *appRound, t state.Transaction) AppExchange {
	r.t = t
	st := t.Status
	if st != "Y" {
		st = "N"
	}
	c := message.AppFinalCRes{
		ThreeDSServerTransID: t.ThreeDSServerTransID, ACSTransID: t.ACSTransID, SDKTransID: t.App.SDKTransID,
		ACSCounterAtoS: fmt.Sprintf("%03d", r.creq.Counter), MessageType: "CRes", MessageVersion: t.Version,
		ChallengeCompletionInd: "Y", TransStatus: st,
	}
	if r.ch.AppFault == scenarios.AppFaultExtraFinalKey {
		c.ACSUIType = t.App.UIType
	}
	return e.sealed(ctx, r, c, r.creq.Counter, state.EventCRes, fmt.Sprintf("CReq %03d answered by the final CRes, transStatus %s", r.creq.Counter, st))
}
