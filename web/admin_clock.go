package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/journal"
	"github.com/threeds-sandbox/threeds-sandbox/web/adminapi"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// clockView is a token's clock as the admin API shows it.
func clockView(c emulator.Clock) adminapi.Clock {
	return adminapi.Clock{Offset: c.Offset.String(), OffsetSeconds: c.Offset.Seconds(), Now: apiTime(c.Now), MaxOffset: c.Max.String()}
}

// clockRoutes serves the token's clock:
//
//	GET    {base}/admin/clock   the token's clock
//	POST   {base}/admin/clock   move it forward ({"advance":"11m"})
//	DELETE {base}/admin/clock   set it back to real time
func (s *Server) clockRoutes(api routeGroup) {
	api.HandleFunc("/admin/clock", s.handleClock).Methods(http.MethodGet, http.MethodHead)
	api.HandleFunc("/admin/clock", s.handleAdvanceClock).Methods(http.MethodPost)
	api.HandleFunc("/admin/clock", s.handleResetClock).Methods(http.MethodDelete)
}

// AdvanceRequest is the body of POST {base}/admin/clock.
type AdvanceRequest struct {
	// Advance is how far to move the token's clock forward, a Go
	// duration such as "11m" or "36h".
	Advance *string `json:"advance"`
}

// handleClock serves GET {base}/admin/clock.
func (s *Server) handleClock(w http.ResponseWriter, r *http.Request) {
	if _, err := params(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	c, err := s.cfg.Engine.Clock(r.Context(), namespaceOf(r.Context()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, clockView(c))
}

// handleAdvanceClock serves POST {base}/admin/clock: every time-based
// outcome of the token's transactions follows its clock, so its
// timeouts and automatic decisions within the advance happen at once.
func (s *Server) handleAdvanceClock(w http.ResponseWriter, r *http.Request) {
	d, err := readAdvance(r, s.cfg.MaxBodyBytes)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx, ns := r.Context(), namespaceOf(r.Context())
	c, err := s.cfg.Engine.AdvanceClock(ctx, ns, d)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// What fell due by the new clock happens now, as it would have by
	// itself: its events are recorded and its result callbacks sent at
	// once, rather than at the real time they were first due.
	if s.cfg.Journal != nil {
		if page, err := s.cfg.Journal.Query(ctx, ns, journal.Query{Limit: 1}); err == nil {
			s.settleOpen(ctx, ns, page.Open)
		}
	}
	respond.JSON(w, http.StatusOK, clockView(c))
}

// readAdvance reads the body of POST {base}/admin/clock.
func readAdvance(r *http.Request, limit int64) (time.Duration, error) {
	body, err := readJSON(r, limit)
	if err != nil {
		return 0, err
	}
	var req AdvanceRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return 0, emv.NewError(emv.CodeMalformedJSON, emv.EMVMessageInvalid,
			`the body must be one JSON object such as {"advance":"11m"}: `+err.Error(), "body")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return 0, emv.NewError(emv.CodeMalformedJSON, emv.EMVMessageInvalid, "the body holds more than one JSON value", "body")
	}
	if req.Advance == nil {
		return 0, emv.NewError(emv.CodeMissingField, emv.EMVMissingElement, `advance is required, e.g. {"advance":"11m"}`, "advance")
	}
	d, err := time.ParseDuration(*req.Advance)
	if err != nil {
		return 0, emv.NewError(emv.CodeInvalidField, emv.EMVInvalidFormat,
			fmt.Sprintf("advance %q is not a duration such as 11m, 90s or 36h", *req.Advance), "advance")
	}
	return d, nil
}

// handleResetClock serves DELETE {base}/admin/clock: the token's clock
// is real time again.
func (s *Server) handleResetClock(w http.ResponseWriter, r *http.Request) {
	if _, err := params(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	c, err := s.cfg.Engine.ResetClock(r.Context(), namespaceOf(r.Context()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, clockView(c))
}
