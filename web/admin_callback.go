package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/web/callback"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// The result callback's registration, under the bearer token of the
// namespace it serves:
//
//	GET    {base}/admin/callback          the URL (registered, or the default), and the signing secret
//	PUT    {base}/admin/callback          register {"url": "..."}: an absolute http(s) URL of an allowed host and port
//	DELETE {base}/admin/callback          remove the registration (the default URL, if any, applies again)
//	POST   {base}/admin/callback/secret   rotate the signing secret; the previous one keeps signing for the grace period
//
// A namespace's results are signed with a secret of its own, derived from
// the sandbox's state key for this purpose alone (callback.Secrets):
// never a merchant's client secret, which no answer carries.

// PathAdminCallback is the route of the registration, and
// PathAdminCallbackSecret that of the signing secret's rotation.
const (
	PathAdminCallback       = "/admin/callback"
	PathAdminCallbackSecret = "/admin/callback/secret"
)

// callbackRoutes mounts the registration on the API's router.
func (s *Server) callbackRoutes(api routeGroup) {
	api.HandleFunc(PathAdminCallback, s.handleCallbackGet).Methods(http.MethodGet, http.MethodHead)
	api.HandleFunc(PathAdminCallback, s.handleCallbackPut).Methods(http.MethodPut)
	api.HandleFunc(PathAdminCallback, s.handleCallbackDelete).Methods(http.MethodDelete)
	api.HandleFunc(PathAdminCallbackSecret, s.handleCallbackRotate).Methods(http.MethodPost)
}

// setUpCallbacks builds the sender of the result callbacks, when the
// engine keeps them.
func (s *Server) setUpCallbacks() error {
	if s.cfg.Engine.Callbacks() == nil {
		return nil
	}
	c := s.cfg.Callbacks
	sender, err := callback.New(callback.Config{Engine: s.cfg.Engine, Allow: c.Allow, Secrets: s.callbackSecrets(),
		Timeout: c.Timeout, Concurrency: c.Concurrency, Poll: c.Poll, Logger: s.log})
	if err != nil {
		return err
	}
	s.sender = sender
	return nil
}

// startCallbacks runs the sender until Close.
func (s *Server) startCallbacks() {
	if s.sender == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.sender.Run(ctx)
	}()
	s.stopSender = func() { cancel(); <-done }
}

// RunCallbacks delivers the result callbacks until ctx ends, for servers
// served without Open (tests on httptest); Open runs it by itself.
func (s *Server) RunCallbacks(ctx context.Context) {
	if s.sender != nil {
		s.sender.Run(ctx)
	}
}

// callbackSecrets derive the namespaces' signing secrets from the state
// hash keys, the current and the previous ones.
func (s *Server) callbackSecrets() callback.Secrets {
	sec := callback.Secrets{Key: s.cfg.HashKey, Grace: s.cfg.Callbacks.SecretGrace}
	for _, p := range s.cfg.PreviousKeys {
		sec.Previous = append(sec.Previous, p.Hash)
	}
	return sec
}

// CallbackRegistration is the answer of the registration's routes.
type CallbackRegistration struct {
	// URL receives this token's results; empty for none.
	URL string `json:"url"`
	// Source says where URL comes from: registered, default or none.
	Source string `json:"source"`
	// SigningSecret keys the HMAC of SignatureHeader: the namespace's
	// own, for this purpose alone. SigningSecretVersion counts its
	// rotations.
	SigningSecret        string `json:"signingSecret"`
	SigningSecretVersion uint64 `json:"signingSecretVersion"`
	// PreviousSecretUntil is when the secret before the last rotation
	// stops signing (RFC 3339): until then each callback carries a v1
	// signature with either. Absent when only the current one signs.
	PreviousSecretUntil string `json:"previousSecretUntil,omitempty"`
	SignatureHeader     string `json:"signatureHeader"`
	// AllowedHosts are the hosts, and their ports, a URL may name.
	AllowedHosts string `json:"allowedHosts"`
}

// callbackState answers the registration of the request's namespace.
func (s *Server) callbackState(w http.ResponseWriter, r *http.Request, status int) {
	cb := s.cfg.Engine.Callbacks()
	if cb == nil {
		s.writeError(w, r, emv.NewError(emv.CodeNotFound, emv.EMVAccessDenied, "this sandbox sends no result callbacks", r.URL.Path))
		return
	}
	ns := namespaceOf(r.Context())
	u, err := cb.Registered(r.Context(), ns)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	key, err := cb.SigningKey(r.Context(), ns)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	secrets := s.callbackSecrets()
	reg := CallbackRegistration{URL: u, Source: "registered", SignatureHeader: callback.SignatureHeader,
		SigningSecret: secrets.Current(ns, key), SigningSecretVersion: key.Generation, AllowedHosts: s.sender.Allowlist()}
	if until := secrets.PreviousUntil(key, time.Now()); !until.IsZero() {
		reg.PreviousSecretUntil = apiTime(until)
	}
	switch {
	case u != "":
	case s.cfg.Engine.DefaultCallbackURL() != "":
		reg.URL, reg.Source = s.cfg.Engine.DefaultCallbackURL(), "default"
	default:
		reg.Source = "none"
	}
	respond.JSON(w, status, reg)
}

func (s *Server) handleCallbackGet(w http.ResponseWriter, r *http.Request) {
	s.callbackState(w, r, http.StatusOK)
}

func (s *Server) handleCallbackPut(w http.ResponseWriter, r *http.Request) {
	cb := s.cfg.Engine.Callbacks()
	if cb == nil {
		s.callbackState(w, r, http.StatusOK)
		return
	}
	body, err := readJSON(r, s.cfg.MaxBodyBytes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var req struct {
		URL string `json:"url"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || dec.More() {
		s.writeError(w, r, emv.NewError(emv.CodeMalformedJSON, emv.EMVMessageInvalid, `the body must be {"url":"https://..."}`, "body"))
		return
	}
	if req.URL == "" {
		s.writeError(w, r, emv.NewError(emv.CodeMissingField, emv.EMVMissingElement, "url is required", "url"))
		return
	}
	if err := s.sender.Check(req.URL); err != nil {
		s.writeError(w, r, emv.NewError(emv.CodeCallbackURL, emv.EMVInvalidFormat, "callback URL refused: "+err.Error(), "url"))
		return
	}
	if err := cb.Register(r.Context(), namespaceOf(r.Context()), req.URL); err != nil {
		if errors.Is(err, state.ErrCallbackLimit) {
			err = emv.NewError(emv.CodeCallbackLimit, emv.EMVLimitExceeded, err.Error(), "url")
		}
		s.writeError(w, r, err)
		return
	}
	s.callbackState(w, r, http.StatusOK)
}

func (s *Server) handleCallbackRotate(w http.ResponseWriter, r *http.Request) {
	cb := s.cfg.Engine.Callbacks()
	if cb != nil {
		if _, err := cb.RotateSigningKey(r.Context(), namespaceOf(r.Context()), time.Now()); err != nil {
			if errors.Is(err, state.ErrCallbackLimit) {
				err = emv.NewError(emv.CodeCallbackLimit, emv.EMVLimitExceeded, err.Error(), "signingSecret")
			}
			s.writeError(w, r, err)
			return
		}
	}
	s.callbackState(w, r, http.StatusOK)
}

func (s *Server) handleCallbackDelete(w http.ResponseWriter, r *http.Request) {
	cb := s.cfg.Engine.Callbacks()
	if cb != nil {
		if _, err := cb.Unregister(r.Context(), namespaceOf(r.Context())); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}
