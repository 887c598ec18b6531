package web_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// FuzzHandler sends arbitrary bodies to every route that reads outside
// input and checks that none reaches a 500 and that the API always answers
// the error body of spec 2.16 for a failure.
func FuzzHandler(f *testing.F) {
	e := newEnv(f)
	seed := mustJSON(f, testkit.LookupBody(f, e.card("visa-challenge"), nil))
	for _, s := range []string{seed, `{}`, `[]`, `{"card":{"cardNumber":"4"}}`, `{"a":1,"a":2}`, "\xff", `{"threeDsServerTransId":"x"}`,
		`{"action":"pass"}`, "creq=e30&threeDSSessionData=x", "state=x&action=pass", "cres=e30",
		`{"card":{"cardNumber":"4000000000009409"},"threeDSMethodNotificationURL":"https://m.example/n"}`,
		"threeDSMethodData=eyJ0aHJlZURTU2VydmVyVHJhbnNJRCI6IngifQ",
		"bin=4000000000009409&callbackUrl=https%3A%2F%2Fshop.example%2Fcb&ddcId=d-1&jwt=eyJhbGciOiJIUzI1NiJ9.eyJqdGkiOiIxIiwiaWF0IjoxLCJpc3MiOiJzIn0.c2ln",
		"cardBIN=400000&JWT=x&ddcId=&callbackUrl=javascript:x", "state=x",
		"grant_type=client_credentials&client_id=c&client_secret=s", "grant_type=password",
		`{"action":"select","choices":["Chiang Mai"]}`, `{"action":"select","choices":[1,null]}`, `{"action":"approve","trust":true}`,
		`{"action":"resend"}`, "action=approve", "action=decline&action=approve", "state=x&action=select&choice=a&choice=b&trust=Y"} {
		for route := range 17 {
			f.Add(uint8(route), s)
		}
	}
	oob := e.startChallengeCard(e.card("visa-challenge-oob")).cr.ThreeDSServerTransID
	routes := []struct {
		path, contentType string
		api               bool
	}{
		{"/authentication/brw", "application/json", true},
		{"/enquiry/", "application/json", true},
		{"/challenge/8a880dc0-d2d2-4067-bcb1-b08d1690b26e", "application/json", true},
		{"/acs/challenge", "application/x-www-form-urlencoded", false},
		{"/acs/decision", "application/x-www-form-urlencoded", false},
		{"/acs/notification", "application/x-www-form-urlencoded", false},
		{"/authentication/ddc", "application/json", true},
		{"/acs/method", "application/x-www-form-urlencoded", false},
		{"/acs/method/done", "application/x-www-form-urlencoded", false},
		{"/V2/ddcCollect", "application/x-www-form-urlencoded", false},
		{"/V2/ddcCollect/method-notification", "application/x-www-form-urlencoded", false},
		{"/V2/ddcCollect/complete", "application/x-www-form-urlencoded", false},
		{"/connect/token", "application/x-www-form-urlencoded", false},
		// Live challenges of the other styles, and the banking app.
		{"/challenge/" + e.startChallengeCard(e.card("visa-challenge-select")).cr.ThreeDSServerTransID, "application/json", true},
		{"/challenge/" + oob, "application/json", true},
		{"/acs/app/" + oob, "application/x-www-form-urlencoded", false},
		{"/acs/app/8a880dc0-d2d2-4067-bcb1-b08d1690b26e", "application/x-www-form-urlencoded", false},
	}
	handler := e.Server.Config.Handler
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		rt := routes[int(route)%len(routes)]
		req := httptest.NewRequest(http.MethodPost, rt.path, strings.NewReader(body))
		req.Header.Set("Content-Type", rt.contentType)
		req.Header.Set("Authorization", "Bearer fuzz")
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable && rec.Code != http.StatusBadGateway && rec.Code != http.StatusGatewayTimeout {
			t.Fatalf("%s answered %d for %q:\n%s", rt.path, rec.Code, body, rec.Body)
		}
		if !rt.api || rec.Code < 400 {
			return
		}
		var eb struct {
			Status, Error, ErrorCode string
			EMVError                 map[string]string
		}
		if err := json.NewDecoder(bytes.NewReader(rec.Body.Bytes())).Decode(&eb); err != nil || len(eb.ErrorCode) != 4 || eb.EMVError["emvErrorCode"] == "" {
			t.Fatalf("%s %d: not the error body: %s", rt.path, rec.Code, rec.Body)
		}
	})
}
