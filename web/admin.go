package web

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/web/cards"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// The admin API lets a test add the exact scenarios it needs at run time,
// in its own token namespace, and remove them afterwards:
//
//	GET    {base}/admin/scenarios        the namespace's runtime scenarios
//	POST   {base}/admin/scenarios        add a scenario document (JSON or YAML)
//	DELETE {base}/admin/scenarios/{id}   remove one
//	DELETE {base}/admin/scenarios        remove all of the namespace's
func (s *Server) adminRoutes(api routeGroup) {
	api.HandleFunc("/admin/scenarios", s.handleAdminList).Methods(http.MethodGet, http.MethodHead)
	api.HandleFunc("/admin/scenarios", s.handleAdminAdd).Methods(http.MethodPost)
	api.HandleFunc("/admin/scenarios", s.handleAdminReset).Methods(http.MethodDelete)
	api.HandleFunc("/admin/scenarios/{id}", s.handleAdminDelete).Methods(http.MethodDelete)
}

func (s *Server) runtimeEntries(list []scenarios.Scenario) []cards.Entry {
	return cards.Entries(list, nil, s.cfg.Engine.Schemes())
}

func (s *Server) handleAdminList(w http.ResponseWriter, r *http.Request) {
	list, err := s.cfg.Engine.Runtime().List(r.Context(), namespaceOf(r.Context()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, map[string]any{"scenarios": s.runtimeEntries(list)})
}

// scenarioDocTypes are the content types of a scenario document.
var scenarioDocTypes = []string{"application/json", "application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"}

func (s *Server) handleAdminAdd(w http.ResponseWriter, r *http.Request) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if !slices.Contains(scenarioDocTypes, mt) {
		s.writeError(w, r, emv.NewError(emv.CodeContentType, emv.EMVMessageInvalid,
			fmt.Sprintf("Content-Type must be one of %s, got %q", strings.Join(scenarioDocTypes, ", "), r.Header.Get("Content-Type")), "Content-Type"))
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.writeError(w, r, tooLarge(s.cfg.MaxBodyBytes))
			return
		}
		s.writeError(w, r, emv.NewError(emv.CodeMalformedJSON, emv.EMVMessageInvalid, "the request body could not be read", "body"))
		return
	}
	added, err := s.cfg.Engine.Runtime().Add(r.Context(), namespaceOf(r.Context()), body)
	if err != nil {
		s.writeError(w, r, adminError(err))
		return
	}
	respond.JSON(w, http.StatusCreated, map[string]any{"scenarios": s.runtimeEntries(added)})
}

// adminError turns a Runtime failure into the error body.
func adminError(err error) error {
	var le *scenarios.LoadError
	switch {
	case errors.As(err, &le):
		e := emv.NewError(emv.CodeScenarioInvalid, emv.EMVInvalidFormat, "invalid scenario document: "+firstLine(le.Error()), "")
		fields := make([]string, 0, len(le.Problems))
		for _, p := range le.Problems {
			field := "line " + strconv.Itoa(p.Line)
			fields = append(fields, field)
			e.Problems = append(e.Problems, emv.Problem{Field: field, EMVCode: emv.EMVInvalidFormat, Reason: p.Reason})
		}
		e.Detail = strings.Join(fields, ",")
		return e
	case errors.Is(err, scenarios.ErrExists):
		return emv.NewError(emv.CodeScenarioExists, emv.EMVDuplicateElement, err.Error(), "id")
	case errors.Is(err, scenarios.ErrLimit):
		return emv.NewError(emv.CodeScenarioLimit, emv.EMVLimitExceeded, err.Error(), "scenarios")
	case errors.Is(err, scenarios.ErrTooLarge):
		return emv.NewError(emv.CodeScenarioTooLarge, emv.EMVLimitExceeded, err.Error(), "body")
	}
	return err
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func (s *Server) handleAdminDelete(w http.ResponseWriter, r *http.Request) {
	id := mux.Vars(r)["id"]
	deleted, err := s.cfg.Engine.Runtime().Delete(r.Context(), namespaceOf(r.Context()), id)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if !deleted {
		s.writeError(w, r, emv.NewError(emv.CodeScenarioNotFound, emv.EMVInvalidFormat,
			fmt.Sprintf("no runtime scenario %q for this token", id), "id"))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleAdminReset(w http.ResponseWriter, r *http.Request) {
	n, err := s.cfg.Engine.Runtime().Reset(r.Context(), namespaceOf(r.Context()))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, map[string]int{"deleted": n})
}
