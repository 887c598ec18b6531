package web

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// httpStatus is the one table from errorCode to HTTP status. A scenario
// error may carry its own status instead.
var httpStatus = map[emulator.ErrorCode]int{
	emulator.CodeUnauthorized:       http.StatusUnauthorized,
	emulator.CodeTokenRejected:      http.StatusUnauthorized,
	emulator.CodeAccessToken:        http.StatusUnauthorized,
	emulator.CodeCaptureJWT:         http.StatusForbidden,
	emulator.CodeCaptureReplay:      http.StatusForbidden,
	emulator.CodeCaptureInUse:       http.StatusConflict,
	emulator.CodeCallbackURL:        http.StatusBadRequest,
	emulator.CodeCallbackLimit:      http.StatusTooManyRequests,
	emulator.CodeMalformedJSON:      http.StatusBadRequest,
	emulator.CodeContentType:        http.StatusUnsupportedMediaType,
	emulator.CodeBodyTooLarge:       http.StatusRequestEntityTooLarge,
	emulator.CodeUnsupportedVersion: http.StatusBadRequest,
	emulator.CodeMissingField:       http.StatusBadRequest,
	emulator.CodeInvalidField:       http.StatusBadRequest,
	emulator.CodeDuplicateField:     http.StatusBadRequest,
	emulator.CodeCriticalExtension:  http.StatusBadRequest,
	emulator.CodeInvalidISOCode:     http.StatusBadRequest,
	emulator.CodeDeviceChannel:      http.StatusBadRequest,
	emulator.CodeUnknownTransaction: http.StatusNotFound,
	emulator.CodeTransactionState:   http.StatusConflict,
	emulator.CodeDecryption:         http.StatusBadRequest,
	emulator.CodeNotFound:           http.StatusNotFound,
	emulator.CodeMethodNotAllowed:   http.StatusMethodNotAllowed,
	emulator.CodeInternal:           http.StatusInternalServerError,
	emulator.CodeBusy:               http.StatusServiceUnavailable,
	emulator.CodeStoreUnavailable:   http.StatusServiceUnavailable,
	emulator.CodeStoreFull:          http.StatusServiceUnavailable,
	emulator.CodeScenarioTimeout:    http.StatusGatewayTimeout,
	emulator.CodeScenarioTransient:  http.StatusServiceUnavailable,
	emulator.CodeScenarioPermanent:  http.StatusInternalServerError,
	emulator.CodeScenarioConnection: http.StatusBadGateway,
	emulator.CodeScenarioVersion:    http.StatusUnprocessableEntity,
	emulator.CodeUnknownScenario:    http.StatusBadRequest,
	emulator.CodeScenarioInvalid:    http.StatusBadRequest,
	emulator.CodeScenarioExists:     http.StatusConflict,
	emulator.CodeScenarioLimit:      http.StatusTooManyRequests,
	emulator.CodeScenarioTooLarge:   http.StatusRequestEntityTooLarge,
	emulator.CodeScenarioNotFound:   http.StatusNotFound,
	emulator.CodeTooManyWaits:       http.StatusTooManyRequests,
	emulator.CodeClockLimit:         http.StatusUnprocessableEntity,
	emulator.CodeNamespaceLimit:     http.StatusTooManyRequests,
	emulator.CodeNoJournal:          http.StatusNotImplemented,
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
func StatusOf(e *emulator.Error) int {
	if e.HTTPStatus != 0 {
		return e.HTTPStatus
	}
	if s, ok := httpStatus[e.Code]; ok {
		return s
	}
	return http.StatusUnprocessableEntity
}

// ErrorBody is the error response of spec 2.16, plus the list of every
// problem found.
type ErrorBody struct {
	Status    string             `json:"status"`
	Error     string             `json:"error"`
	ErrorCode string             `json:"errorCode"`
	EMVError  EMVError           `json:"emvError"`
	Problems  []emulator.Problem `json:"problems,omitempty"`
}

// EMVError is the nested emvError object of the error body.
type EMVError struct {
	Code        string `json:"emvErrorCode"`
	Component   string `json:"emvErrorComponent"`
	Description string `json:"emvErrorDescription"`
	Detail      string `json:"emvErrorDetail"`
}

func errorBody(e *emulator.Error) ErrorBody {
	return ErrorBody{
		Status:    e.Status,
		Error:     e.Message,
		ErrorCode: string(e.Code),
		EMVError: EMVError{
			Code:        e.EMVCode,
			Component:   e.Component,
			Description: e.Description,
			Detail:      e.Detail,
		},
		Problems: e.Problems,
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
		e = emulator.NewError(emulator.CodeInternal, emulator.EMVPermanentFailure, "internal error of the emulator (request "+requestID(r)+")", "")
	case e.Code == emulator.CodeStoreUnavailable:
		s.log.WarnContext(r.Context(), "state store unavailable", slog.String("request_id", requestID(r)), slog.Any("err", err))
	case e.Code == emulator.CodeStoreFull:
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
