package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
)

func tooLarge(limit int64) *emulator.Error {
	return emulator.NewError(emulator.CodeBodyTooLarge, "101",
		fmt.Sprintf("the request body is larger than %d bytes", limit), "body")
}

// readJSON checks the Content-Type and reads the whole body.
func readJSON(r *http.Request, limit int64) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" && !isJSONMediaType(ct) {
		return nil, emulator.NewError(emulator.CodeContentType, "101",
			fmt.Sprintf("Content-Type must be application/json, got %q", r.Header.Get("Content-Type")), "Content-Type")
	}
	body, err := readBody(r)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, tooLarge(limit)
		}
		return nil, emulator.NewError(emulator.CodeMalformedJSON, "101", "the request body could not be read: "+err.Error(), "body")
	}
	return body, nil
}

// isJSONMediaType tells whether a Content-Type names application/json,
// in any case and with any parameters (charset=utf-8).
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// ScenarioHeader forces a scenario by id on a lookup, whatever the card.
const ScenarioHeader = "X-Scenario"

// ScenarioIDHeader names, on every lookup answer a scenario gave (its
// result, its error or its fault), the scenario's id: "fallback" when no
// scenario matched the card, "chaos" for a fault chaos injected.
const ScenarioIDHeader = "X-Scenario-Id"

// readBody reads the whole body into a buffer sized from Content-Length,
// so an ordinary request is read without growing copies.
func readBody(r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n > 0 {
		buf := make([]byte, n+1) // one spare byte sees a body longer than announced
		k, err := io.ReadFull(r.Body, buf)
		switch {
		case err == io.ErrUnexpectedEOF || err == io.EOF:
			return buf[:k], nil
		case err != nil:
			return nil, err
		}
		rest, err := io.ReadAll(r.Body) // longer than announced: read on
		return append(buf, rest...), err
	}
	return io.ReadAll(r.Body)
}

// responseSize is the capacity of an encoded lookup or enquiry answer
// beyond its long strings: a frictionless one takes about 600 bytes.
const responseSize = 768

// lookupResponseSize is the capacity that holds a lookup answer with its
// challengeHtml encoded in one allocation: the page is a few kilobytes of
// HTML, a tenth more once its quotes and line breaks are escaped.
func lookupResponseSize(resp *emulator.LookupResponse, challengeHTML string) int {
	n := len(challengeHTML) + len(resp.HostedChallengeURL)
	return responseSize + n + n/10
}

// handleLookup serves POST {base}/authentication/brw.
func (s *Server) handleLookup(w http.ResponseWriter, r *http.Request) {
	body, err := readJSON(r, s.cfg.MaxBodyBytes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	req, ignored, err := wire.DecodeLookup(body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if len(ignored) > 0 {
		s.log.DebugContext(r.Context(), "lookup: unknown fields ignored", slog.String("request_id", requestID(r)), slog.Any("fields", ignored))
	}
	call := emulator.APICall{ScenarioID: strings.TrimSpace(r.Header.Get(ScenarioHeader)), Body: body}
	resp, err := s.cfg.Engine.Lookup(r.Context(), namespaceOf(r.Context()), req, call)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	html, err := s.challengeHTML(resp.Challenge)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	scenario := resp.ScenarioID
	if resp.Fallback {
		scenario = scenarios.FallbackID
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "lookup answered by the fallback: the card matches no catalogued scenario",
			slog.String("request_id", requestID(r)), slog.String("card_bin", resp.CardBIN), slog.String("fallback", resp.ScenarioID),
			slog.String("hint", "GET /scenarios lists the test cards and what they answer; add a runtime scenario (POST /admin/scenarios) to choose an outcome for this card"))
	}
	w.Header()[ScenarioIDHeader] = []string{scenario}
	s.metrics.transaction("lookup", resp.Status)
	out := wire.AppendLookupResponse(make([]byte, 0, lookupResponseSize(&resp, html)), &resp, html)
	writeRaw(w, http.StatusOK, out)
}

// handleDDC serves POST {base}/authentication/ddc, the device data
// collection before the lookup.
func (s *Server) handleDDC(w http.ResponseWriter, r *http.Request) {
	body, err := readJSON(r, s.cfg.MaxBodyBytes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	req, ignored, err := wire.DecodeDDC(body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if len(ignored) > 0 {
		s.log.DebugContext(r.Context(), "ddc: unknown fields ignored", slog.String("request_id", requestID(r)), slog.Any("fields", ignored))
	}
	call := emulator.APICall{ScenarioID: strings.TrimSpace(r.Header.Get(ScenarioHeader)), Body: body}
	resp, err := s.cfg.Engine.Collect(r.Context(), namespaceOf(r.Context()), req, call)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	html, err := s.methodHTML(&resp)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header()[ScenarioIDHeader] = []string{resp.ScenarioID}
	out := wire.AppendDDCResponse(make([]byte, 0, responseSize+len(html)+len(html)/10+len(resp.MethodData)), &resp, html)
	writeRaw(w, http.StatusOK, out)
}

// handleEnquiry serves POST {base}/enquiry/.
func (s *Server) handleEnquiry(w http.ResponseWriter, r *http.Request) {
	body, err := readJSON(r, s.cfg.MaxBodyBytes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	req, _, err := wire.DecodeEnquiry(body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	resp, err := s.cfg.Engine.Enquiry(r.Context(), namespaceOf(r.Context()), req, emulator.APICall{Body: body})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeRaw(w, http.StatusOK, wire.AppendEnquiryResponse(make([]byte, 0, responseSize), &resp))
}

// CatalogueEntry is one scenario of GET {base}/scenarios.
type CatalogueEntry struct {
	ID         string `json:"id"`
	CardNumber string `json:"cardNumber,omitempty"`
	CardPrefix string `json:"cardPrefix,omitempty"`
	CardScheme string `json:"cardScheme"`
	// Pack is the pack the scenario comes from: defaults, cardinal,
	// reasons, runtime, or a scenario file's name.
	Pack         string `json:"pack,omitempty"`
	Flow         string `json:"flow"`
	Status       string `json:"status"`
	StatusReason string `json:"statusReason,omitempty"`
	ECI          string `json:"eci,omitempty"`
	Version      string `json:"version,omitempty"`
	Description  string `json:"description"`
	ErrorCode    string `json:"errorCode,omitempty"`
	EMVErrorCode string `json:"emvErrorCode,omitempty"`
	HTTPStatus   int    `json:"httpStatus,omitempty"`
	DelayMS      int64  `json:"delayMs,omitempty"`
	Auto         string `json:"auto,omitempty"`
	Fallback     bool   `json:"fallback,omitempty"`
	// When lists the entry's match conditions as data, keyed by the
	// request field they test (the card selectors by their scenario
	// names: cardNumber, cardPrefix, binRange, cardPattern), e.g.
	// {"cardNumber":"4000000000009003","threeDsRequestorChallengeInd":"2"}.
	When   map[string]any `json:"when,omitempty"`
	Source string         `json:"source"`
}

// conditions is a match as the catalogue shows it: what a request must
// carry for the scenario to answer it.
func conditions(m scenarios.Match) map[string]any {
	w := map[string]any{}
	set := func(k, v string) {
		if v != "" {
			w[k] = v
		}
	}
	set("cardNumber", m.CardNumber)
	set("cardPrefix", m.CardPrefix)
	set("cardPattern", m.CardPattern)
	if r := m.BINRange; r != nil {
		w["binRange"] = map[string]string{"from": r.From, "to": r.To}
	}
	if a := m.Amount; a != nil {
		if a.Exact != "" {
			w["purchase.amount"] = a.Exact
		} else {
			rng := map[string]string{}
			if a.Min != "" {
				rng["min"] = a.Min
			}
			if a.Max != "" {
				rng["max"] = a.Max
			}
			w["purchase.amount"] = rng
		}
	}
	set("purchase.currencyCode", m.Currency)
	set("card.cardholderName", m.CardholderName)
	if m.ChallengeInd != 0 {
		w["threeDsRequestorChallengeInd"] = strconv.Itoa(m.ChallengeInd)
	}
	set("messageVersion", m.MessageVersion)
	set("messageCategory", m.MessageCategory)
	set("threeDsRequestorAuthInd", m.AuthInd)
	set("cardScheme", m.Scheme)
	set("threeDSCompInd", m.ThreeDSCompInd)
	if len(w) == 0 {
		return nil
	}
	return w
}

// Catalogue lists the scenarios of cat as the API and the README show them.
func Catalogue(cat *scenarios.Catalogue, schemes *emulator.SchemeTable) []CatalogueEntry {
	return catalogueEntries(cat.All(), cat.Fallback(), schemes)
}

// catalogueEntries lists scenarios; fb, when not nil, is marked fallback.
func catalogueEntries(all []scenarios.Scenario, fb *scenarios.Scenario, schemes *emulator.SchemeTable) []CatalogueEntry {
	out := make([]CatalogueEntry, 0, len(all))
	for _, sc := range all {
		e := CatalogueEntry{
			ID:          sc.ID,
			CardNumber:  sc.Match.CardNumber,
			CardPrefix:  sc.Match.CardPrefix,
			Pack:        sc.Pack,
			Flow:        string(sc.Flow()),
			Description: sc.Description,
			DelayMS:     sc.Delay.Milliseconds(),
			Fallback:    fb != nil && fb.ID == sc.ID,
			When:        conditions(sc.Match),
			Source:      fmt.Sprintf("%s:%d", sc.Source.File, sc.Source.Line),
		}
		pan := sc.Match.CardNumber
		if pan == "" {
			pan = sc.Match.CardPrefix
		}
		e.CardScheme = schemes.Scheme(pan)
		if pan == "" {
			e.CardScheme = ""
		}
		switch {
		case sc.Frictionless != nil:
			f := sc.Frictionless
			e.Status, e.StatusReason, e.Version = f.Status, f.Reason, f.Version
			e.ECI = f.ECI
			if e.ECI == "" {
				e.ECI = emulator.ECIFor(e.CardScheme, f.Status)
			}
		case sc.Challenge != nil:
			e.Status, e.Version, e.Auto = "C", sc.Challenge.Version, sc.Challenge.Auto
		case sc.Error != nil:
			e.Status = sc.Error.Status
			if e.Status == "" {
				e.Status = "U"
			}
			e.ErrorCode, e.EMVErrorCode, e.HTTPStatus = sc.Error.ErrorCode, sc.Error.EMVErrorCode, sc.Error.HTTPStatus
		}
		out = append(out, e)
	}
	return out
}

// handleScenarios serves GET {base}/scenarios.
func (s *Server) handleScenarios(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"scenarios": Catalogue(s.cfg.Engine.Catalogue(), s.cfg.Engine.Schemes()),
	})
}

// handleSchema serves GET {base}/scenarios/schema.json, the JSON Schema of
// scenario files.
func (s *Server) handleSchema(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/schema+json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(scenarios.Schema())
}

// readyTimeout bounds the store check of a readiness probe.
const readyTimeout = time.Second

// handleReady serves GET /readyz: 200 once the emulator serves its
// scenarios and its state store answers; 503 before, while it shuts down,
// and while the store is unreachable (and 200 again when it comes back).
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	if !s.ready.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready", "reason": "starting or draining"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := s.cfg.Engine.Ping(ctx); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready", "reason": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "scenarios": s.cfg.Engine.Catalogue().Len()})
}

// handleHealth serves GET /healthz.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
