package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/web/cards"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

func tooLarge(limit int64) *emv.Error {
	return emv.NewError(emv.CodeBodyTooLarge, emv.EMVMessageInvalid,
		fmt.Sprintf("the request body is larger than %d bytes", limit), "body")
}

// readJSON checks the Content-Type and reads the whole body.
func readJSON(r *http.Request, limit int64) ([]byte, error) { return readJSONInto(r, limit, nil) }

// readJSONInto is readJSON reading into dst's memory when it holds the
// body (a buffer of the server's bodyPool).
func readJSONInto(r *http.Request, limit int64, dst []byte) ([]byte, error) {
	if ct := header(r.Header, "Content-Type"); ct != "application/json" && !isJSONMediaType(ct) {
		return nil, emv.NewError(emv.CodeContentType, emv.EMVMessageInvalid,
			fmt.Sprintf("Content-Type must be application/json, got %q", r.Header.Get("Content-Type")), "Content-Type")
	}
	body, err := readBody(r, dst)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, tooLarge(limit)
		}
		return nil, emv.NewError(emv.CodeMalformedJSON, emv.EMVMessageInvalid, "the request body could not be read: "+err.Error(), "body")
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

// readBody reads the whole body into dst's memory, or a buffer sized
// from Content-Length when dst is too small, so an ordinary request is
// read without growing copies.
func readBody(r *http.Request, dst []byte) ([]byte, error) {
	if n := r.ContentLength; n > 0 {
		if int64(cap(dst)) < n+1 {
			dst = make([]byte, n+1)
		}
		buf := dst[:n+1] // one spare byte sees a body longer than announced
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
	if dst == nil {
		return io.ReadAll(r.Body)
	}
	b := bytes.NewBuffer(dst[:0])
	_, err := b.ReadFrom(r.Body)
	return b.Bytes(), err
}

// responseSize is the capacity of an encoded lookup or enquiry answer
// beyond its long strings: a frictionless one takes about 600 bytes.
const responseSize = 768

// decodeThenServe serves one JSON request of the interface: it reads the
// body into a buffer of the pool, decodes it with decode, logs the
// members decode ignored, and hands the request with its APICall to
// serve, which asks the engine and writes the answer. The one error
// writer answers an error of any step. A route is a decoder and a serve:
// a lookup of another channel is its decoder and (*Server).lookup.
func decodeThenServe[Req any](s *Server, w http.ResponseWriter, r *http.Request, name string,
	decode func(body []byte) (Req, []string, error),
	serve func(s *Server, w http.ResponseWriter, r *http.Request, req Req, call emulator.APICall) error) {
	buf := s.bodies.get()
	defer s.bodies.put(buf)
	body, err := readJSONInto(r, s.cfg.MaxBodyBytes, *buf)
	*buf = body
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	req, ignored, err := decode(body)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if len(ignored) > 0 {
		s.log.DebugContext(r.Context(), name+": unknown fields ignored", slog.String("request_id", requestID(r)), slog.Any("fields", ignored))
	}
	info := infoOf(r.Context())
	call := emulator.APICall{ScenarioID: strings.TrimSpace(header(r.Header, ScenarioHeader)), Body: body, KnownMembers: len(ignored) == 0,
		Note: info.note, CaptureTenant: info.captures}
	if err := serve(s, w, r, req, call); err != nil {
		s.writeError(w, r, err)
	}
}

// handleLookup serves POST {base}/authentication/brw.
func (s *Server) handleLookup(w http.ResponseWriter, r *http.Request) {
	decodeThenServe(s, w, r, "lookup", wire.DecodeLookup, (*Server).lookup)
}

// handleThreeRI serves POST {base}/authentication/3ri, the 3RI lookup
// (deviceChannel 3): its own decoder, the one lookup.
func (s *Server) handleThreeRI(w http.ResponseWriter, r *http.Request) {
	decodeThenServe(s, w, r, "lookup-3ri", wire.DecodeThreeRI, (*Server).lookup)
}

// handleAppLookup serves POST {base}/authentication/app, the lookup of
// the app channel (deviceChannel 1).
func (s *Server) handleAppLookup(w http.ResponseWriter, r *http.Request) {
	decodeThenServe(s, w, r, "app lookup", wire.DecodeApp, (*Server).lookup)
}

// handleDDC serves POST {base}/authentication/ddc, the device data
// collection before the lookup.
func (s *Server) handleDDC(w http.ResponseWriter, r *http.Request) {
	decodeThenServe(s, w, r, "ddc", wire.DecodeDDC, (*Server).collect)
}

// handleEnquiry serves POST {base}/enquiry/.
func (s *Server) handleEnquiry(w http.ResponseWriter, r *http.Request) {
	decodeThenServe(s, w, r, "enquiry", wire.DecodeEnquiry, (*Server).enquiry)
}

// lookup answers a lookup of any channel: the engine's answer as the
// journal keeps it (encoded once), or with its challengeHtml.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request, req message.LookupRequest, call emulator.APICall) error {
	resp, encoded, err := s.cfg.Engine.LookupEncoded(r.Context(), namespaceOf(r.Context()), req, call)
	if err != nil {
		return err
	}
	html, err := s.challengeHTML(resp.Challenge)
	if err != nil {
		return err
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
	if html == "" && encoded != nil { // the bytes the journal keeps: encoded once
		respond.Raw(w, http.StatusOK, encoded)
		return nil
	}
	s.answer(w, func(b []byte) []byte { return wire.AppendLookupResponse(b, &resp, html) })
	return nil
}

// answer writes with status 200 the JSON answer encode appends to a
// pooled buffer: the writer copies what it is given, so the buffer
// serves the next request's answer.
func (s *Server) answer(w http.ResponseWriter, encode func([]byte) []byte) {
	buf := s.bodies.get()
	defer s.bodies.put(buf)
	*buf = encode((*buf)[:0])
	respond.Raw(w, http.StatusOK, *buf)
}

// collect answers a device data collection, with its threeDSMethodHtml.
func (s *Server) collect(w http.ResponseWriter, r *http.Request, req message.DDCRequest, call emulator.APICall) error {
	resp, err := s.cfg.Engine.Collect(r.Context(), namespaceOf(r.Context()), req, call)
	if err != nil {
		return err
	}
	html, err := s.methodHTML(&resp)
	if err != nil {
		return err
	}
	w.Header()[ScenarioIDHeader] = []string{resp.ScenarioID}
	out := wire.AppendDDCResponse(make([]byte, 0, responseSize+len(html)+len(html)/10+len(resp.MethodData)), &resp, html)
	respond.Raw(w, http.StatusOK, out)
	return nil
}

// enquiry answers an enquiry.
func (s *Server) enquiry(w http.ResponseWriter, r *http.Request, req message.EnquiryRequest, call emulator.APICall) error {
	resp, err := s.cfg.Engine.Enquiry(r.Context(), namespaceOf(r.Context()), req, call)
	if err != nil {
		return err
	}
	s.answer(w, func(b []byte) []byte { return wire.AppendEnquiryResponse(b, &resp) })
	return nil
}

// handleScenarios serves GET {base}/scenarios.
func (s *Server) handleScenarios(w http.ResponseWriter, r *http.Request) {
	respond.JSON(w, http.StatusOK, map[string]any{
		"scenarios": cards.List(s.cfg.Engine.Catalogue(), s.cfg.Engine.Schemes()),
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
// scenarios and its state store takes writes; 503 before, while it shuts
// down, and while the store is unreachable, full or set to evict
// acknowledged state (and 200 again when that ends).
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	if !s.ready.Load() {
		respond.JSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready", "reason": "starting or draining"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
	defer cancel()
	if err := s.cfg.Engine.Ping(ctx); err != nil {
		respond.JSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready", "reason": err.Error()})
		return
	}
	respond.JSON(w, http.StatusOK, map[string]any{"status": "ready", "scenarios": s.cfg.Engine.Catalogue().Len()})
}

// handleHealth serves GET /healthz.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	respond.JSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
