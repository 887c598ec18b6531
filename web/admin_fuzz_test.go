package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// FuzzAutomation sends arbitrary query strings to the automation API's
// reads (the listing's filters and cursor, a transaction's wait) and
// arbitrary bodies to the clock, and checks that every answer is 200
// or the error body of spec 2.16, never a 500.
func FuzzAutomation(f *testing.F) {
	e := newEnv(f, withJournal)
	id := e.lookupRef("fuzz", e.card("visa-frictionless-y"), "fuzz-ref")
	for _, s := range []string{"", "limit=5", "limit=0", "status=Y&status=N", "since=2026-11-24T09:00:00Z", "cursor=c1.MTIzOjhhODgwZGMw",
		"cursor=c1.%ff", "%zz", "externalReferenceId=fuzz-ref&scenarioId=visa-frictionless-y", "wait=final&timeout=1ns",
		"wait=final&timeout=9999999h", `{"advance":"1m"}`, `{"advance":"-1h"}`, `{"advance":null}`, `{"advance":"1e9h"}`} {
		for route := range 3 {
			f.Add(uint8(route), s)
		}
	}
	handler := e.Server.Config.Handler
	f.Fuzz(func(t *testing.T, route uint8, input string) {
		var req *http.Request
		switch route % 3 {
		case 0:
			req = httptest.NewRequest(http.MethodGet, "/admin/transactions", nil)
			req.URL.RawQuery = input
		case 1:
			req = httptest.NewRequest(http.MethodGet, "/admin/transactions/"+id, nil)
			req.URL.RawQuery = input
			// A valid wait would hold the fuzzer up to a minute: the
			// client leaves after a moment, as an impatient one does.
			ctx, cancel := context.WithTimeout(req.Context(), 50*time.Millisecond)
			defer cancel()
			req = req.WithContext(ctx)
		default:
			req = httptest.NewRequest(http.MethodPost, "/admin/clock", strings.NewReader(input))
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Authorization", "Bearer fuzz")
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s?%s answered %d for %q:\n%s", req.Method, req.URL.Path, req.URL.RawQuery, rec.Code, input, rec.Body)
		}
		if rec.Code < 400 {
			return
		}
		var eb struct {
			ErrorCode string
			EMVError  map[string]string
		}
		if err := json.NewDecoder(bytes.NewReader(rec.Body.Bytes())).Decode(&eb); err != nil || len(eb.ErrorCode) != 4 || eb.EMVError["emvErrorDetail"] == "" {
			t.Fatalf("%d: not the error body: %s", rec.Code, rec.Body)
		}
	})
}
