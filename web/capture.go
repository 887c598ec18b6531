package web

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/securecookie"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth/jws"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// The device data capture as the real service's checkout posts it: a
// hidden form, auto-submitted into a hidden iframe, to {base}/V2/ddcCollect
// with bin, callbackUrl, ddcId and jwt. Its pages run in that iframe:
//
//	POST /V2/ddcCollect                      checks the form and the JWT; runs the 3DS Method
//	                                         in a nested iframe, or notifies callbackUrl at once
//	POST /V2/ddcCollect/method-notification  the 3DS server's threeDSMethodNotificationURL:
//	                                         tells the capture page the method notified
//	POST /V2/ddcCollect/complete             the capture page's end (notified, or ten seconds):
//	                                         notifies callbackUrl
//
// The merchant is notified twice, as Cardinal's device data collection
// does it: a message to the parent window (profile.completed, with the
// ddcId as SessionId and the outcome) and a form post of the outcome to
// callbackUrl in the iframe, in success and in failure.

// ddcRoutes mounts the capture's pages on the router of the ACS pages
// (framed by any merchant, errors as pages).
func (s *Server) ddcRoutes(acs routeGroup) {
	acs.HandleFunc(emulator.PathDDCCollect, s.handleDDCCollect).Methods(http.MethodPost)
	acs.HandleFunc(emulator.PathDDCMethodNotification, s.handleDDCMethodNotification).Methods(http.MethodPost)
	acs.HandleFunc(emulator.PathDDCComplete, s.handleDDCComplete).Methods(http.MethodPost)
}

// UnattributedMerchant stands for the merchant of a capture whose JWT
// names none readably: its events are in ClientNamespace of this id.
const UnattributedMerchant = "-"

// ddcStateName names the signed state of a capture page.
const ddcStateName = "ddc-state"

// ddcStateMaxAge bounds how long a capture page may post its end: ten
// seconds and the page's own slowness, generously.
const ddcStateMaxAge = 10 * time.Minute

// ddcState is what the capture page posts back when it ends, signed and
// encrypted so that nobody ends another merchant's capture or redirects
// its notification.
type ddcState struct {
	ID       string `json:"id"` // threeDSServerTransID
	DDCID    string `json:"ddc"`
	Callback string `json:"cb"`
	Issued   int64  `json:"iat"`
}

// handleDDCCollect serves POST {base}/V2/ddcCollect.
func (s *Server) handleDDCCollect(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.writeError(w, r, formError(err, s.cfg.MaxBodyBytes))
		return
	}
	form, problem := wire.DecodeCaptureForm(r.PostForm)
	req := form.Request
	cred, err := s.ddc.Verify(form.JWT)
	req.Credential = s.captureCredential(cred)
	switch {
	case problem != nil:
		req.Problem = problem
	case err != nil:
		req.Problem = emv.NewError(emv.CodeCaptureJWT, emv.EMVAccessDenied, err.Error(), "jwt")
	case cred.Console && !auth.ValidNamespace(cred.OrgUnitID):
		req.Problem = emv.NewError(emv.CodeCaptureJWT, emv.EMVAccessDenied, "jwt: the console's OrgUnitId names no namespace", "jwt")
	}
	out := s.cfg.Engine.Capture(r.Context(), req)
	if out.Err != nil || out.MethodURL == "" {
		s.ddcCallback(w, r, req.CallbackURL, out)
		return
	}
	state, err := securecookie.EncodeMulti(ddcStateName, ddcState{ID: out.ThreeDSServerTransID, DDCID: out.DDCID,
		Callback: req.CallbackURL, Issued: time.Now().Unix()}, s.state[0])
	if err != nil {
		s.writeError(w, r, fmt.Errorf("sign the capture state: %w", err))
		return
	}
	nonce := respond.Nonce()
	s.ddcPage(w, r, http.StatusOK, templates.PageDDCMethod, nonce, templates.DDCMethod{
		Nonce: nonce, DDCID: out.DDCID, ThreeDSServerTransID: out.ThreeDSServerTransID,
		MethodURL: out.MethodURL, MethodData: out.MethodData, CompleteURL: s.cfg.Engine.URLs().DDCComplete(), State: state,
		TimeoutMS: message.MethodTimeout.Milliseconds(), TimeoutSeconds: int64(message.MethodTimeout.Seconds()),
	})
}

// captureCredential turns what the JWT showed into what the engine needs:
// the namespace the capture belongs to (the console's session for its own
// JWTs, the merchant's for a verified one) or is recorded in until a
// lookup claims it (an unverified one: the open default).
func (s *Server) captureCredential(c auth.DDCCredential) message.CaptureCredential {
	merchant := c.Issuer
	if merchant == "" {
		merchant = UnattributedMerchant
	}
	cc := message.CaptureCredential{Merchant: merchant, Namespace: auth.ClientNamespace(merchant), JTI: c.JTI, Expires: c.Expires,
		Claimable: !c.Verified, Notes: c.Notes}
	if c.Console && c.Verified && auth.ValidNamespace(c.OrgUnitID) {
		cc.Namespace = c.OrgUnitID
	}
	return cc
}

// consoleJWTLife is how long the demo checkout's JWT is good for: the
// page posts it at once.
const consoleJWTLife = 10 * time.Minute

// consoleDDCToken makes the JWT of the console demo's capture ddcID for
// namespace ns: the console's own merchant, signed with its derived key,
// OrgUnitId naming the namespace.
func (s *Server) consoleDDCToken(ns, ddcID string) (string, error) {
	now := time.Now()
	if s.cfg.Now != nil {
		now = s.cfg.Now()
	}
	var jti [12]byte
	_, _ = rand.Read(jti[:])
	return jws.Sign(auth.ConsoleDDCKey(s.cfg.HashKey), "", map[string]any{
		"jti": hex.EncodeToString(jti[:]), "iat": now.Unix(), "exp": now.Add(consoleJWTLife).Unix(),
		"iss": auth.ConsoleMerchant, "OrgUnitId": ns, "ReferenceId": ddcID,
		"Payload": map[string]any{"OrderDetails": map[string]any{"OrderNumber": ddcID}},
	})
}

// handleDDCMethodNotification serves POST
// {base}/V2/ddcCollect/method-notification: the ACS's method page posts
// threeDSMethodData here, in the nested iframe, which tells the capture
// page.
func (s *Server) handleDDCMethodNotification(w http.ResponseWriter, r *http.Request) {
	nonce := respond.Nonce()
	view := templates.DDCMethodNotify{Nonce: nonce}
	status := http.StatusOK
	if err := r.ParseForm(); err != nil {
		view.Error, status = "The form could not be read.", StatusOf(emulatorError(formError(err, s.cfg.MaxBodyBytes)))
	} else if md, err := message.DecodeMethodData(r.PostForm.Get("threeDSMethodData"), false); err != nil {
		e := emulatorError(err)
		view.Error, status = "threeDSMethodData is not a 3DS Method notification: "+e.Message, StatusOf(e)
	} else {
		view.ThreeDSServerTransID = md.ThreeDSServerTransID
	}
	s.ddcPage(w, r, status, templates.PageDDCMethodNotify, nonce, view)
}

// handleDDCComplete serves POST {base}/V2/ddcCollect/complete: the
// capture page's end, with its signed state.
func (s *Server) handleDDCComplete(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		s.writeError(w, r, formError(err, s.cfg.MaxBodyBytes))
		return
	}
	var st ddcState
	if err := securecookie.DecodeMulti(ddcStateName, r.PostForm.Get("state"), &st, s.state...); err != nil ||
		st.ID == "" || time.Since(time.Unix(st.Issued, 0)) > ddcStateMaxAge {
		s.writeError(w, r, emv.NewError(emv.CodeDecryption, emv.EMVDecryptionFailure,
			"the capture state is missing, forged, altered or older than 10 minutes; nothing was changed", "state"))
		return
	}
	out := s.cfg.Engine.FinishCapture(r.Context(), st.ID)
	if out.DDCID == "" {
		out.DDCID = st.DDCID
	}
	s.ddcCallback(w, r, st.Callback, out)
}

// ddcCallback renders the capture's end, in success and in failure: the
// message to the merchant's window and the form post of the outcome to
// callbackUrl (when valid).
func (s *Server) ddcCallback(w http.ResponseWriter, r *http.Request, callback string, out message.CaptureOutcome) {
	nonce := respond.Nonce()
	v := templates.DDCCallback{Nonce: nonce, Status: "completed", CallbackURL: callback, TargetOrigin: "*"}
	if o := originOf(callback); o != "" {
		v.TargetOrigin = o
	}
	fields := []templates.Field{{Name: "ddcId", Value: out.DDCID}}
	if e := out.Err; e != nil {
		v.Status, v.Failed, v.Error = "failed", true, e.Message
		fields = append(fields, templates.Field{Name: "status", Value: v.Status}, templates.Field{Name: "errorCode", Value: string(e.Code)},
			templates.Field{Name: "emvErrorCode", Value: e.EMVCode}, templates.Field{Name: "error", Value: e.Message})
	} else {
		fields = append(fields, templates.Field{Name: "status", Value: v.Status}, templates.Field{Name: "threeDSCompInd", Value: out.CompInd},
			templates.Field{Name: "threeDsServerTransId", Value: out.ThreeDSServerTransID})
	}
	v.Message, v.Fields = profileMessage(out), fields
	// A failure is an outcome like a success: the page delivers it, with
	// 200, as a browser loading it in a hidden iframe expects (an error
	// status would only be an error in the merchant's console).
	s.ddcPage(w, r, http.StatusOK, templates.PageDDCCallback, nonce, v)
}

// originOf is the scheme://host[:port] of an absolute http(s) URL; "" for
// anything else.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// emulatorError is err as the engine's error (an internal one when it is
// none).
func emulatorError(err error) *emv.Error {
	if e, ok := emulator.AsError(err); ok {
		return e
	}
	return emv.NewError(emv.CodeInternal, emv.EMVPermanentFailure, "internal error", "")
}

// ddcPage writes a page of the capture: framed by any merchant, its
// scripts and styles by nonce, and it may frame the sandbox's own ACS.
func (s *Server) ddcPage(w http.ResponseWriter, r *http.Request, status int, name, nonce string, view any) {
	var buf strings.Builder
	if err := s.cfg.Pages.Render(&buf, name, view); err != nil {
		s.writeError(w, r, err)
		return
	}
	frames := "'self'"
	if o := originOf(s.cfg.PublicURL); o != "" {
		frames += " " + o
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", fmt.Sprintf(
		"default-src 'none'; style-src 'nonce-%s'; script-src 'nonce-%s'; frame-src %s; img-src data:; base-uri 'none'; frame-ancestors *", nonce, nonce, frames))
	w.WriteHeader(status)
	_, _ = w.Write([]byte(buf.String()))
}
