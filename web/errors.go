package web

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/adminapi"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// httpStatus is the one table from errorCode to HTTP status. A scenario
// error may carry its own status instead.
var httpStatus = map[emv.ErrorCode]int{
	emv.CodeUnauthorized:       http.StatusUnauthorized,
	emv.CodeTokenRejected:      http.StatusUnauthorized,
	emv.CodeAccessToken:        http.StatusUnauthorized,
	emv.CodeCrossSite:          http.StatusForbidden,
	emv.CodeCaptureJWT:         http.StatusForbidden,
	emv.CodeCaptureReplay:      http.StatusForbidden,
	emv.CodeCaptureInUse:       http.StatusConflict,
	emv.CodeCallbackURL:        http.StatusBadRequest,
	emv.CodeCallbackLimit:      http.StatusTooManyRequests,
	emv.CodeMalformedJSON:      http.StatusBadRequest,
	emv.CodeContentType:        http.StatusUnsupportedMediaType,
	emv.CodeBodyTooLarge:       http.StatusRequestEntityTooLarge,
	emv.CodeUnsupportedVersion: http.StatusBadRequest,
	emv.CodeMissingField:       http.StatusBadRequest,
	emv.CodeInvalidField:       http.StatusBadRequest,
	emv.CodeDuplicateField:     http.StatusBadRequest,
	emv.CodeCriticalExtension:  http.StatusBadRequest,
	emv.CodeInvalidISOCode:     http.StatusBadRequest,
	emv.CodeDeviceChannel:      http.StatusBadRequest,
	emv.CodeUnknownTransaction: http.StatusNotFound,
	emv.CodeTransactionState:   http.StatusConflict,
	emv.CodeDecryption:         http.StatusBadRequest,
	emv.CodeSDKEncData:         http.StatusBadRequest,
	emv.CodeNotFound:           http.StatusNotFound,
	emv.CodeMethodNotAllowed:   http.StatusMethodNotAllowed,
	emv.CodeInternal:           http.StatusInternalServerError,
	emv.CodeBusy:               http.StatusServiceUnavailable,
	emv.CodeStoreUnavailable:   http.StatusServiceUnavailable,
	emv.CodeStoreFull:          http.StatusServiceUnavailable,
	emv.CodeScenarioTimeout:    http.StatusGatewayTimeout,
	emv.CodeScenarioTransient:  http.StatusServiceUnavailable,
	emv.CodeScenarioPermanent:  http.StatusInternalServerError,
	emv.CodeScenarioConnection: http.StatusBadGateway,
	emv.CodeScenarioVersion:    http.StatusUnprocessableEntity,
	emv.CodeUnknownScenario:    http.StatusBadRequest,
	emv.CodeScenarioInvalid:    http.StatusBadRequest,
	emv.CodeScenarioExists:     http.StatusConflict,
	emv.CodeScenarioLimit:      http.StatusTooManyRequests,
	emv.CodeScenarioTooLarge:   http.StatusRequestEntityTooLarge,
	emv.CodeScenarioNotFound:   http.StatusNotFound,
	emv.CodeTooManyWaits:       http.StatusTooManyRequests,
	emv.CodeClockLimit:         http.StatusUnprocessableEntity,
	emv.CodeNamespaceLimit:     http.StatusTooManyRequests,
	emv.CodeNoJournal:          http.StatusNotImplemented,
}

// malformedBody is what a "malformed" fault answers: JSON cut off mid-way.
const malformedBody = `{"status":"Y","threeDsServerTransId":"8a880dc0-d2d2-40`

// enactFault carries out an injected transport fault: a dropped connection
// or a malformed body. It reports whether err was one.
func (s *Server) enactFault(w http.ResponseWriter, r *http.Request, err error) bool {
	var f *emulator.Fault
	if !errors.As(err, &f) {
		return false
	}
	s.metrics.fault(string(f.Kind))
	if f.Scenario != "" {
		w.Header()[ScenarioIDHeader] = []string{f.Scenario}
	}
	s.log.InfoContext(r.Context(), "injected fault", slog.String("request_id", requestID(r)),
		slog.String("kind", string(f.Kind)), slog.String("step", string(f.Step)), slog.String("scenario", f.Scenario))
	if f.Kind == scenarios.FaultDrop {
		// Aborting the handler makes net/http close the connection
		// without an answer.
		panic(http.ErrAbortHandler)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(malformedBody))
	return true
}

// StatusOf returns the HTTP status of an engine error.
func StatusOf(e *emv.Error) int {
	if e.HTTPStatus != 0 {
		return e.HTTPStatus
	}
	if s, ok := httpStatus[e.Code]; ok {
		return s
	}
	return http.StatusUnprocessableEntity
}

// errorBody is the error response of spec 2.16, plus the list of every
// problem found.
func errorBody(e *emv.Error) adminapi.ErrorBody {
	var problems []adminapi.Problem
	if len(e.Problems) > 0 {
		problems = make([]adminapi.Problem, len(e.Problems))
		for i, p := range e.Problems {
			problems[i] = adminapi.Problem(p)
		}
	}
	return adminapi.ErrorBody{
		Status:    e.Status,
		Error:     e.Message,
		ErrorCode: string(e.Code),
		EMVError: adminapi.EMVError{
			Code:        e.EMVCode,
			Component:   e.Component,
			Description: e.Description,
			Detail:      e.Detail,
		},
		Problems: problems,
	}
}

// writeError is the one error writer. It answers err with the spec's
// error body (JSON) on the API and the other JSON routes, and with a
// readable page in EMV terms on the browser routes (the ACS pages and the
// console); a request that matched no route gets the page when its Accept
// header prefers HTML to JSON. Engine errors keep their fields; anything
// else is logged and answered as an internal error without its text. An
// injected transport fault is enacted instead.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if s.enactFault(w, r, err) {
		return
	}
	e, ok := emulator.AsError(err)
	switch {
	case !ok:
		s.log.ErrorContext(r.Context(), "internal error", slog.String("request_id", requestID(r)), slog.Any("err", err))
		e = emv.NewError(emv.CodeInternal, emv.EMVPermanentFailure, "internal error of the emulator (request "+requestID(r)+")", "")
	case e.Code == emv.CodeStoreUnavailable:
		s.log.WarnContext(r.Context(), "state store unavailable", slog.String("request_id", requestID(r)), slog.Any("err", err))
	case e.Code == emv.CodeStoreFull:
		s.metrics.full()
		s.log.WarnContext(r.Context(), "state store full: Redis refuses writes at its maxmemory; free memory or raise maxmemory",
			slog.String("request_id", requestID(r)), slog.Any("err", err))
	}
	if e.Scenario != "" {
		w.Header()[ScenarioIDHeader] = []string{e.Scenario}
	}
	if e.Detail == "" {
		// Spec 2.16: a message error carries all four emvError fields;
		// without a field to name, the detail is the request's path.
		c := *e
		c.Detail = r.URL.Path
		e = &c
	}
	status := StatusOf(e)
	if !wantsPage(r) {
		respond.JSON(w, status, errorBody(e))
		return
	}
	kind := templates.ErrorSandbox
	if infoOf(r.Context()).route == routeACS {
		kind = templates.ErrorChallenge
	}
	nonce := respond.Nonce()
	s.page(w, r, status, templates.PageError, nonce, templates.ErrorPage{
		// An error page has no transaction to read browserInfo from: it
		// follows the browser's Accept-Language.
		Lang:           s.language(r, ""),
		Kind:           kind,
		Nonce:          nonce,
		EMVErrorCode:   e.EMVCode,
		EMVDescription: e.Description,
		Message:        e.Message,
		Detail:         e.Detail,
		HTTPStatus:     status,
	})
}

// wantsPage tells whether an error on r is answered with an HTML page.
func wantsPage(r *http.Request) bool {
	switch infoOf(r.Context()).route {
	case routeACS, routeConsole:
		return true
	case routeUnmatched:
		return respond.PrefersHTML(r.Header.Get("Accept"))
	}
	return false
}
