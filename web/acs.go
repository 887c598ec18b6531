package web

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"github.com/gorilla/securecookie"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
)

// windowPixels are the challenge window sizes of the protocol (0: full screen).
var windowPixels = map[int][2]int{1: {250, 400}, 2: {390, 400}, 3: {500, 600}, 4: {600, 400}, 5: {0, 0}}

// challengeState is what the challenge page hands back with the
// cardholder's decision, signed and encrypted with securecookie so that it
// cannot be forged or altered.
type challengeState struct {
	ID     string `json:"id"`  // threeDSServerTransID
	ACS    string `json:"acs"` // acsTransID
	Issued int64  `json:"iat"`
}

const stateName = "challenge-state"

func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawStdEncoding.EncodeToString(b[:])
}

// page renders an HTML page with its security headers. ACS pages may be
// framed by any merchant; their scripts and styles run only with the
// page's nonce.
func (s *Server) page(w http.ResponseWriter, r *http.Request, status int, name, nonce string, view any) {
	var buf bytes.Buffer
	if err := s.cfg.Pages.Render(&buf, name, view); err != nil {
		s.writeError(w, r, fmt.Errorf("render page %s: %w", name, err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", fmt.Sprintf(
		"default-src 'none'; style-src 'nonce-%s'; script-src 'nonce-%s'; img-src data:; base-uri 'none'; frame-ancestors *", nonce, nonce))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// errorPage answers a browser step that failed with a readable page in EMV
// terms.
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, err error) {
	if s.enactFault(w, r, err) {
		return
	}
	e, ok := emulator.AsError(err)
	if !ok {
		s.log.ErrorContext(r.Context(), "internal error", "request_id", requestID(r), "err", err)
		e = emulator.NewError(emulator.CodeInternal, "404", "internal error of the emulator (request "+requestID(r)+")", "")
	}
	nonce := newNonce()
	status := StatusOf(e)
	s.page(w, r, status, templates.PageError, nonce, templates.ErrorPage{
		Nonce:          nonce,
		Title:          "Challenge error " + e.EMVCode,
		EMVErrorCode:   e.EMVCode,
		EMVDescription: e.Description,
		Message:        e.Message,
		Detail:         e.Detail,
		HTTPStatus:     status,
	})
}

// handleCReq serves POST {base}/acs/challenge: the browser posts the
// Base64Url CReq (field creq) and the Requestor's threeDSSessionData.
func (s *Server) handleCReq(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, r, formError(err, s.cfg.MaxBodyBytes))
		return
	}
	creq, err := emulator.ParseCReq(r.PostForm.Get("creq"))
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	view, err := s.cfg.Engine.OpenChallenge(r.Context(), creq)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.challengePage(w, r, view, "")
}

// handleHosted serves {base}/acs/hosted/{id}, the hostedChallengeUrl.
func (s *Server) handleHosted(w http.ResponseWriter, r *http.Request) {
	view, err := s.cfg.Engine.OpenHostedChallenge(r.Context(), mux.Vars(r)["id"])
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	s.challengePage(w, r, view, "")
}

// challengePage renders the issuer's page with a freshly signed state.
func (s *Server) challengePage(w http.ResponseWriter, r *http.Request, v emulator.ChallengeView, message string) {
	t := v.Transaction
	state, err := securecookie.EncodeMulti(stateName, challengeState{ID: t.ThreeDSServerTransID, ACS: t.ACSTransID, Issued: time.Now().Unix()}, s.state[0])
	if err != nil {
		s.errorPage(w, r, fmt.Errorf("sign challenge state: %w", err))
		return
	}
	px := windowPixels[t.Challenge.WindowSize]
	nonce := newNonce()
	s.page(w, r, http.StatusOK, templates.PageChallenge, nonce, templates.ChallengePage{
		Nonce:        nonce,
		FormAction:   s.cfg.PublicURL + "/acs/decision",
		State:        state,
		MerchantName: t.Challenge.MerchantName,
		Amount:       t.Challenge.Amount,
		Currency:     t.Challenge.Currency,
		MaskedPAN:    t.MaskedPAN(),
		Date:         purchaseDate(t),
		Scheme:       t.CardScheme,
		WindowSize:   t.Challenge.WindowSize,
		Width:        px[0],
		Height:       px[1],
		OTPHint:      v.OTPHint,
		Version:      t.Version,
		Message:      message,
		ExpiresIn:    humanDuration(time.Until(v.ExpiresAt)),
	})
}

// purchaseDate shows the purchase date of the lookup, or the transaction's
// creation time for a non-payment authentication.
func purchaseDate(t emulator.Transaction) string {
	if d, err := time.Parse("2006-01-02 15:04:05", t.Challenge.PurchaseDate); err == nil {
		return d.Format("2006-01-02 15:04 UTC")
	}
	return t.CreatedAt.UTC().Format("2006-01-02 15:04 UTC")
}

func humanDuration(d time.Duration) string {
	switch m := int(d.Round(time.Minute).Minutes()); {
	case d < time.Minute:
		return "less than a minute"
	case m == 1:
		return "1 minute"
	default:
		return fmt.Sprintf("%d minutes", m)
	}
}

// formError reports an unreadable form.
func formError(err error, limit int64) error {
	if strings.Contains(err.Error(), "too large") {
		return tooLarge(limit)
	}
	return emulator.NewError(emulator.CodeMalformedJSON, "101", "the form could not be read: "+err.Error(), "")
}

// handleDecision serves POST {base}/acs/decision: the cardholder's choice on
// the challenge page, with the signed state.
func (s *Server) handleDecision(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, r, formError(err, s.cfg.MaxBodyBytes))
		return
	}
	var st challengeState
	if err := securecookie.DecodeMulti(stateName, r.PostForm.Get("state"), &st, s.state...); err != nil || st.ID == "" {
		s.errorPage(w, r, emulator.NewError(emulator.CodeDecryption, "302",
			"the challenge state is missing, forged or altered; the transaction was not changed", "state"))
		return
	}
	choice := emulator.Choice{Action: r.PostForm.Get("action"), OTP: r.PostForm.Get("otp")}
	d, err := s.cfg.Engine.Decide(r.Context(), st.ID, st.ACS, choice)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	if !d.Final {
		s.challengePage(w, r, emulator.ChallengeView{
			Transaction: d.Transaction,
			ExpiresAt:   d.Transaction.Challenge.OpenedAt.Add(s.cfg.Engine.ChallengeTimeout()),
			OTPHint:     s.cfg.Engine.OTPHint(d.Transaction),
		}, d.Message)
		return
	}
	s.postCRes(w, r, d)
}

// postCRes sends the browser on with the final CRes: a page that posts cres
// and threeDSSessionData to the notificationUrl, or to the emulator's own
// notification page when the lookup had none.
func (s *Server) postCRes(w http.ResponseWriter, r *http.Request, d emulator.Decision) {
	t := d.Transaction
	s.metrics.transaction("challenge", t.Status)
	if s.cfg.Observer != nil {
		s.cfg.Observer.Observe(emulator.Event{Time: time.Now(), Namespace: t.Namespace, ThreeDSServerTransID: t.ThreeDSServerTransID,
			Kind: emulator.EventCRes, Status: t.Status, Detail: "final CRes posted by the browser to " + t.Challenge.NotificationURL, Response: encodeJSON(d.CRes)})
	}
	action := t.Challenge.NotificationURL
	if action == "" {
		action = s.cfg.PublicURL + "/acs/notification"
	}
	fields := []templates.Field{{Name: "cres", Value: d.Encoded}}
	if t.Challenge.Session != "" {
		fields = append(fields, templates.Field{Name: "threeDSSessionData", Value: t.Challenge.Session})
	}
	nonce := newNonce()
	s.page(w, r, http.StatusOK, templates.PageAutoSubmit, nonce, templates.AutoSubmit{
		Nonce:   nonce,
		Action:  action,
		Fields:  fields,
		Title:   "Returning to the merchant",
		Message: "Authentication finished. Returning you to the merchant…",
	})
}

// handleNotification serves POST {base}/acs/notification: the emulator as
// its own Requestor, when the lookup had no notificationUrl. It shows the
// result and what a merchant would do next.
func (s *Server) handleNotification(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.errorPage(w, r, formError(err, s.cfg.MaxBodyBytes))
		return
	}
	raw, err := emulator.DecodeBase64(r.PostForm.Get("cres"))
	var cres emulator.CRes
	if err == nil {
		err = json.Unmarshal(raw, &cres)
	}
	if err != nil || cres.ThreeDSServerTransID == "" {
		s.errorPage(w, r, emulator.NewError(emulator.CodeInvalidField, "203", "the form field cres is not a Base64Url CRes", "cres"))
		return
	}
	t, err := s.cfg.Engine.Transaction(r.Context(), cres.ThreeDSServerTransID)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	pretty, _ := json.MarshalIndent(cres, "", "  ")
	nonce := newNonce()
	s.page(w, r, http.StatusOK, templates.PageResult, nonce, templates.Result{
		Nonce:                nonce,
		Status:               t.Status,
		StatusText:           emulator.StatusText[t.Status],
		ECI:                  t.ECI,
		AuthenticationValue:  s.cfg.Engine.AuthenticationValue(t),
		StatusReason:         t.StatusReason,
		ReasonText:           emulator.ReasonText[t.StatusReason],
		ChallengeCancel:      t.ChallengeCancel,
		CancelText:           emulator.ChallengeCancelText[t.ChallengeCancel],
		ThreeDSServerTransID: t.ThreeDSServerTransID,
		ExternalReferenceID:  t.ExternalReferenceID,
		NextStep:             emulator.NextStep(t.Status, t.ECI),
		CRes:                 string(pretty),
	})
}

// CompleteRequest is the body of the headless challenge API.
type CompleteRequest struct {
	Action string `json:"action"`
	OTP    string `json:"otp,omitempty"`
}

// CompleteResponse is the answer of the headless challenge API: the final
// CRes as the browser would have posted it, and the transaction's result.
type CompleteResponse struct {
	Final              bool           `json:"final"`
	Message            string         `json:"message,omitempty"`
	TransStatus        string         `json:"transStatus"`
	CRes               string         `json:"cres,omitempty"`
	CResJSON           *emulator.CRes `json:"cresJson,omitempty"`
	ThreeDSSessionData string         `json:"threeDSSessionData,omitempty"`
	NotificationURL    string         `json:"notificationUrl,omitempty"`
}

// handleCompleteChallenge serves POST {base}/challenge/{id}: completes a
// pending challenge without a browser.
func (s *Server) handleCompleteChallenge(w http.ResponseWriter, r *http.Request) {
	body, err := readJSON(r, s.cfg.MaxBodyBytes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var req CompleteRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		s.writeError(w, r, emulator.NewError(emulator.CodeMalformedJSON, "101", "the body must be {\"action\":\"pass|fail|cancel|otp\",\"otp\":\"...\"}: "+err.Error(), ""))
		return
	}
	d, err := s.cfg.Engine.CompleteChallenge(r.Context(), namespaceOf(r.Context()), mux.Vars(r)["id"], emulator.Choice{Action: req.Action, OTP: req.OTP})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	resp := CompleteResponse{
		Final:           d.Final,
		Message:         d.Message,
		TransStatus:     d.Transaction.Status,
		NotificationURL: d.Transaction.Challenge.NotificationURL,
	}
	if d.Final {
		s.metrics.transaction("challenge", d.Transaction.Status)
		resp.CRes, resp.CResJSON = d.Encoded, &d.CRes
		resp.ThreeDSSessionData = d.Transaction.Challenge.Session
	}
	writeJSON(w, http.StatusOK, resp)
}

// FormPages adapts the template set to the engine's FormRenderer: the
// challengeHtml of a lookup is an autosubmit page without a nonce, since
// the merchant's page embeds it under its own policy.
type FormPages struct{ Set *templates.Set }

// AutoSubmitPage renders a self-submitting form.
func (p FormPages) AutoSubmitPage(action string, fields []emulator.FormField) (string, error) {
	v := templates.AutoSubmit{Action: action, Title: "Authenticating", Message: "Connecting to your card issuer…"}
	for _, f := range fields {
		v.Fields = append(v.Fields, templates.Field{Name: f.Name, Value: f.Value})
	}
	var b strings.Builder
	if err := p.Set.Render(&b, templates.PageAutoSubmit, v); err != nil {
		return "", fmt.Errorf("render autosubmit page: %w", err)
	}
	return b.String(), nil
}
