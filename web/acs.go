package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gorilla/mux"
	"github.com/gorilla/securecookie"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/adminapi"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
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
	// Session is the threeDSSessionData posted with the CReq, when one
	// was: the ACS returns it in the final CRes and keeps no other copy.
	Session *string `json:"sess,omitempty"`
	// Step is the page's ChallengeView.Step: a page answered once (a
	// wrong code) is refused when posted again. Absent in a state made
	// before it was carried: not checked.
	Step *int `json:"step,omitempty"`
}

const stateName = "challenge-state"

// resultToken binds a final CRes to the decision that issued it, when the
// emulator delivers the CRes to its own notification page: only with it
// does the page show a result. Signed and encrypted like the state.
type resultToken struct {
	ID     string `json:"id"`  // threeDSServerTransID
	ACS    string `json:"acs"` // acsTransID
	Issued int64  `json:"iat"`
}

// Names of the result token: the securecookie name and the form field.
const (
	resultName  = "cres-result"
	resultField = "result"
	// resultMaxAge is how long a result token is good for: the page is
	// shown right after the decision.
	resultMaxAge = time.Hour
)

// page renders an HTML page and writes it with writeHTML.
func (s *Server) page(w http.ResponseWriter, r *http.Request, status int, name, nonce string, view any) {
	var buf bytes.Buffer
	if err := s.cfg.Pages.Render(&buf, name, view); err != nil {
		// The error page itself may be what failed: answer plain text.
		s.log.ErrorContext(r.Context(), "render page", "request_id", requestID(r), "page", name, "err", err)
		http.Error(w, "internal error of the emulator (request "+requestID(r)+")", http.StatusInternalServerError)
		return
	}
	s.writeHTML(w, r, status, nonce, buf.Bytes())
}

// writeHTML writes a rendered page with its security headers: scripts and
// styles run only with the page's nonce; the ACS pages may be framed by
// any merchant, other pages (the banking app among them) by nobody.
func (s *Server) writeHTML(w http.ResponseWriter, r *http.Request, status int, nonce string, html []byte) {
	ancestors := "'none'"
	if info := infoOf(r.Context()); info.route == routeACS && !info.ownWindow {
		ancestors = "*"
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", fmt.Sprintf(
		"default-src 'none'; style-src 'nonce-%s'; script-src 'nonce-%s'; img-src data:; connect-src 'self'; base-uri 'none'; frame-ancestors %s", nonce, nonce, ancestors))
	w.WriteHeader(status)
	_, _ = w.Write(html)
}

// language is the language of the cardholder pages for r: the lookup's
// browserInfo.language (empty when unknown) first, then the browser's
// Accept-Language (r nil: none).
func (s *Server) language(r *http.Request, browserLanguage string) templates.Lang {
	accept := ""
	if r != nil {
		accept = r.Header.Get("Accept-Language")
	}
	return s.cfg.Pages.Language(browserLanguage, accept)
}

// autoSubmit renders a page whose form posts fields to action by itself,
// titled for its purpose (a templates.Submit constant) in lang. nonce
// empty renders the challengeHtml of a lookup, which the merchant's page
// embeds under its own policy.
func (s *Server) autoSubmit(action string, fields []message.FormField, nonce string, lang templates.Lang, purpose string) (string, error) {
	v := templates.AutoSubmit{Nonce: nonce, Action: action, Lang: lang, Purpose: purpose}
	for _, f := range fields {
		v.Fields = append(v.Fields, templates.Field{Name: f.Name, Value: f.Value})
	}
	var b strings.Builder
	if err := s.cfg.Pages.Render(&b, templates.PageAutoSubmit, v); err != nil {
		return "", fmt.Errorf("render autosubmit page: %w", err)
	}
	return b.String(), nil
}

// challengeHTML renders the challengeHtml of a lookup answered C: the page
// that posts the initial CReq and the Requestor's session to the ACS.
func (s *Server) challengeHTML(c *message.ChallengeIndication) (string, error) {
	if c == nil {
		return "", nil
	}
	return s.autoSubmit(c.ACSURL, c.Fields(), "", s.language(nil, c.Language), templates.SubmitCReq)
}

// handleCReq serves POST {base}/acs/challenge: the browser posts the
// Base64Url CReq (field creq) and the Requestor's threeDSSessionData.
func (s *Server) handleCReq(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.writeError(w, r, formError(err, s.cfg.MaxBodyBytes))
		return
	}
	creq, err := message.ParseCReq(r.PostForm.Get("creq"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// The session posted with the CReq, none when none was: the final
	// CRes returns exactly that, as an ACS keeps no other copy.
	session := r.PostForm.Get("threeDSSessionData")
	if n := utf8.RuneCountInString(session); n > message.MaxSessionData {
		s.writeError(w, r, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
			fmt.Sprintf("threeDSSessionData is %d characters long, at most %d", n, message.MaxSessionData), "threeDSSessionData"))
		return
	}
	view, err := s.cfg.Engine.OpenChallenge(r.Context(), creq)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.challengePage(w, r, view, &session)
}

// handleHosted serves {base}/acs/hosted/{id}, the hostedChallengeUrl.
func (s *Server) handleHosted(w http.ResponseWriter, r *http.Request) {
	view, err := s.cfg.Engine.OpenHostedChallenge(r.Context(), mux.Vars(r)["id"])
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.challengePage(w, r, view, nil) // no CReq: the lookup's session is returned
}

// challengePage renders the issuer's page of v with a freshly signed state
// that carries the session posted with the CReq (nil: none was).
func (s *Server) challengePage(w http.ResponseWriter, r *http.Request, v emulator.ChallengeView, session *string) {
	step := v.Step
	state, err := securecookie.EncodeMulti(stateName, challengeState{ID: v.ThreeDSServerTransID, ACS: v.ACSTransID, Issued: time.Now().Unix(), Session: session, Step: &step}, s.state[0])
	if err != nil {
		s.writeError(w, r, fmt.Errorf("sign challenge state: %w", err))
		return
	}
	px := windowPixels[v.WindowSize]
	nonce := respond.Nonce()
	var appURL string
	var qr template.HTML
	if v.UI == scenarios.UIOOB {
		appURL = s.cfg.Engine.URLs().App(v.ThreeDSServerTransID)
		if qr, err = qrSVG(appURL); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	s.page(w, r, http.StatusOK, templates.PageChallenge, nonce, templates.ChallengePage{
		Lang:         s.language(r, v.Language),
		AppURL:       appURL,
		AppQR:        qr,
		Nonce:        nonce,
		FormAction:   s.cfg.Engine.URLs().Decision(),
		State:        state,
		MerchantName: v.MerchantName,
		Amount:       v.Amount,
		Currency:     v.Currency,
		MaskedPAN:    v.MaskedPAN,
		Date:         v.PurchaseDate.Format("2006-01-02 15:04 UTC"),
		Brand:        brandOf(v.Scheme),
		WindowSize:   v.WindowSize,
		Width:        px[0],
		Height:       px[1],
		UI:           v.UI,
		Style:        v.Style,
		TrustPrompt:  v.TrustPrompt,
		Version:      v.Version,
		// The page says the engine's notice in the cardholder's language.
		Notice:         v.Notice,
		WrongCode:      v.Notice == emulator.NoticeWrongCode,
		AttemptsLeft:   v.AttemptsLeft,
		ExpiresMinutes: expiresMinutes(v.ExpiresIn),
	})
}

// expiresMinutes is how many minutes the page says the challenge stays
// open: 0 for less than a minute.
func expiresMinutes(d time.Duration) int {
	if d < time.Minute {
		return 0
	}
	return int(d.Round(time.Minute).Minutes())
}

// formError reports an unreadable form.
func formError(err error, limit int64) error {
	if respond.TooBig(err) {
		return tooLarge(limit)
	}
	return emv.NewError(emv.CodeMalformedJSON, emv.EMVMessageInvalid, "the form could not be read: "+err.Error(), "body")
}

// trustOf reads the page's "trust this merchant" field: Y (the box
// ticked) trusts, N or none does not. Any other value, or the field
// twice, is refused before anything is used up, rather than taken as a
// no that the cardholder never gave.
func trustOf(form url.Values) (bool, error) {
	v, sent := form["trust"]
	switch {
	case !sent:
		return false, nil
	case len(v) == 1 && (v[0] == "Y" || v[0] == "N"):
		return v[0] == "Y", nil
	}
	return false, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
		fmt.Sprintf("trust %q: want Y (trust this merchant) or N, once; nothing was used up", strings.Join(v, ",")), "trust")
}

// handleDecision serves POST {base}/acs/decision: the cardholder's choice on
// the challenge page, with the signed state.
func (s *Server) handleDecision(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.writeError(w, r, formError(err, s.cfg.MaxBodyBytes))
		return
	}
	var st challengeState
	if err := securecookie.DecodeMulti(stateName, r.PostForm.Get("state"), &st, s.state...); err != nil || st.ID == "" {
		s.writeError(w, r, emv.NewError(emv.CodeDecryption, emv.EMVDecryptionFailure,
			"the challenge state is missing, forged or altered; the transaction was not changed", "state"))
		return
	}
	trust, err := trustOf(r.PostForm)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	choice := emulator.Choice{Action: r.PostForm.Get("action"), OTP: r.PostForm.Get("otp"), Entry: r.PostForm.Get("entry"), Choices: r.PostForm["choice"], Trust: trust, SessionData: st.Session, Step: st.Step}
	d, err := s.cfg.Engine.Decide(r.Context(), st.ID, st.ACS, choice)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !d.Final {
		s.challengePage(w, r, d.View, st.Session)
		return
	}
	s.metrics.transaction("challenge", d.TransStatus)
	fields := d.Delivery.Fields()
	if d.NotificationURL == "" { // to the emulator's own notification page
		tok, err := securecookie.EncodeMulti(resultName, resultToken{ID: d.Delivery.CRes.ThreeDSServerTransID, ACS: d.Delivery.CRes.ACSTransID, Issued: time.Now().Unix()}, s.state[0])
		if err != nil {
			s.writeError(w, r, fmt.Errorf("sign the result token: %w", err))
			return
		}
		fields = append(fields, message.FormField{Name: resultField, Value: tok})
	}
	nonce := respond.Nonce()
	html, err := s.autoSubmit(d.Delivery.NotificationURL, fields, nonce, s.language(r, d.Language), templates.SubmitCRes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeHTML(w, r, http.StatusOK, nonce, []byte(html))
}

// handleNotification serves POST {base}/acs/notification: the emulator as
// its own Requestor, when the lookup had no notificationUrl. It shows the
// result and what a merchant would do next, for a CRes that comes with the
// signed token the decision page posted with it (a CRes alone, which
// anybody can write, shows nothing).
func (s *Server) handleNotification(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.writeError(w, r, formError(err, s.cfg.MaxBodyBytes))
		return
	}
	cres, err := message.ParseCRes(r.PostForm.Get("cres"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var tok resultToken
	if err := securecookie.DecodeMulti(resultName, r.PostForm.Get(resultField), &tok, s.state...); err != nil ||
		tok.ID != cres.ThreeDSServerTransID || tok.ACS != cres.ACSTransID || time.Since(time.Unix(tok.Issued, 0)) > resultMaxAge {
		s.writeError(w, r, emv.NewError(emv.CodeDecryption, emv.EMVDecryptionFailure,
			"this page shows the result of a challenge only with the CRes and the signed token its decision page posted, within an hour; nothing is shown for a CRes alone", resultField))
		return
	}
	res, err := s.cfg.Engine.Notification(r.Context(), cres)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	pretty, _ := json.MarshalIndent(res.CRes, "", "  ")
	nonce := respond.Nonce()
	s.page(w, r, http.StatusOK, templates.PageResult, nonce, templates.Result{
		Lang:                 s.language(r, res.Language),
		Nonce:                nonce,
		Status:               res.Status,
		StatusText:           emv.StatusText[res.Status],
		ECI:                  res.ECI,
		StatusReason:         res.StatusReason,
		ReasonText:           emv.ReasonText[res.StatusReason],
		ChallengeCancel:      res.ChallengeCancel,
		CancelText:           emv.ChallengeCancelText[res.ChallengeCancel],
		ThreeDSServerTransID: res.ThreeDSServerTransID,
		ExternalReferenceID:  res.ExternalReferenceID,
		NextStep:             emv.NextStep(res.Status, res.ECI),
		CRes:                 string(pretty),
	})
}

// CompleteRequest is the body of the headless challenge API.
type CompleteRequest struct {
	// Action is pass, fail, cancel, or an action of the challenge's
	// style (otp, resend); see scenarios' Action constants.
	Action string `json:"action"`
	OTP    string `json:"otp,omitempty"`
	// Entry is the text typed for a style's own text action other than
	// otp (EMV challengeDataEntry), such as a password.
	Entry string `json:"entry,omitempty"`
	// Choices are the choices picked, for action select.
	Choices []string `json:"choices,omitempty"`
	// Trust answers "trust this merchant" when the scenario's
	// trustPrompt offers it.
	Trust bool `json:"trust,omitempty"`
}

// handleCompleteChallenge serves POST {base}/challenge/{id}: completes a
// pending challenge without a browser.
func (s *Server) handleCompleteChallenge(w http.ResponseWriter, r *http.Request) {
	id := mux.Vars(r)["id"]
	body, err := readJSON(r, s.cfg.MaxBodyBytes)
	if err != nil {
		s.refuseStep(w, r, id, err)
		return
	}
	var req CompleteRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		s.refuseStep(w, r, id, emv.NewError(emv.CodeMalformedJSON, emv.EMVMessageInvalid, "the body must be {\"action\":\""+strings.Join(emulator.ChoiceActions(), "|")+"\",\"otp\":\"...\"}: "+err.Error(), "body"))
		return
	}
	d, err := s.cfg.Engine.CompleteChallenge(r.Context(), namespaceOf(r.Context()), id, emulator.Choice{Action: req.Action, OTP: req.OTP, Entry: req.Entry, Choices: req.Choices, Trust: req.Trust})
	if err != nil {
		s.refuseStep(w, r, id, err)
		return
	}
	resp := adminapi.ChallengeResult{
		Final:           d.Final,
		Message:         d.View.Message,
		TransStatus:     d.TransStatus,
		NotificationURL: d.NotificationURL,
	}
	if d.Final {
		s.metrics.transaction("challenge", d.TransStatus)
		cres := adminapi.CRes(d.Delivery.CRes)
		resp.CRes, resp.CResJSON = d.Delivery.Encoded, &cres
		resp.ThreeDSSessionData = d.Delivery.SessionData
	}
	respond.JSON(w, http.StatusOK, resp)
}

// refuseStep answers a refused headless step of transaction id. The
// error body's status is the status of the authentication (spec 2.16),
// and a refused step changes nothing: on a challenge still open it is
// C, as the enquiry says. Anything else keeps U, the step could not be
// performed: a finished challenge (the 305 names its result; an error
// body carries N, U, A, C or R, never Y), a transaction the token cannot
// read (unknown, another token's, the store out of reach); a scenario's
// injected error keeps its own.
func (s *Server) refuseStep(w http.ResponseWriter, r *http.Request, id string, err error) {
	if e, ok := emulator.AsError(err); ok && e.Scenario == "" {
		if t, serr := s.cfg.Engine.Settle(r.Context(), namespaceOf(r.Context()), strings.ToLower(id)); serr == nil && t.Status == "C" {
			c := *e
			c.Status = t.Status
			err = &c
		}
	}
	s.writeError(w, r, err)
}

// methodHTML renders the threeDSMethodHtml of a device data collection:
// the page, for a hidden iframe, that posts threeDSMethodData to the
// ACS's 3DS Method URL. Empty when the card's ACS has no method.
func (s *Server) methodHTML(resp *message.DDCResponse) (string, error) {
	if resp.MethodURL == "" {
		return "", nil
	}
	return s.autoSubmit(resp.MethodURL, []message.FormField{{Name: "threeDSMethodData", Value: resp.MethodData}}, "",
		templates.Fallback, templates.SubmitMethod)
}

// handleMethod serves POST {base}/acs/method, the ACS's 3DS Method URL:
// the hidden iframe posts threeDSMethodData; the page "collects" for the
// scenario's duration, then posts to /acs/method/done.
func (s *Server) handleMethod(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.writeError(w, r, formError(err, s.cfg.MaxBodyBytes))
		return
	}
	page, err := s.cfg.Engine.StartMethod(r.Context(), r.PostForm.Get("threeDSMethodData"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.methodStep(w, r, page.DoneURL, page.NotificationData, page.Duration, templates.SubmitMethod)
}

// handleMethodDone serves POST {base}/acs/method/done: the method page has
// collected; the completion is recorded and the page posts
// threeDSMethodData (only the transaction id) to the 3DS Requestor's
// threeDSMethodNotificationURL.
func (s *Server) handleMethodDone(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.writeError(w, r, formError(err, s.cfg.MaxBodyBytes))
		return
	}
	n, err := s.cfg.Engine.CompleteMethod(r.Context(), r.PostForm.Get("threeDSMethodData"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.methodStep(w, r, n.NotificationURL, n.Data, 0, templates.SubmitMethodDone)
}

// methodStep renders a page of the 3DS Method that posts threeDSMethodData
// to action after delay. The 3DS Method carries no browserInfo: the page
// follows the browser's Accept-Language.
func (s *Server) methodStep(w http.ResponseWriter, r *http.Request, action, data string, delay time.Duration, purpose string) {
	nonce := respond.Nonce()
	s.page(w, r, http.StatusOK, templates.PageAutoSubmit, nonce, templates.AutoSubmit{
		Nonce: nonce, Action: action, Lang: s.language(r, ""), Purpose: purpose, DelayMS: delay.Milliseconds(),
		Fields: []templates.Field{{Name: "threeDSMethodData", Value: data}},
	})
}

// brandOf presents a card scheme on the challenge page, as the scenarios'
// list of schemes describes it (a scheme it does not define gets the
// generic presentation).
func brandOf(scheme string) templates.Brand {
	s, _ := scenarios.LookupScheme(scheme)
	return templates.Brand{Program: s.Program, Mark: s.Mark, Style: s.Style}
}
