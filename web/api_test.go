package web_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/web/cards"
)

var canonicalUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestDefaultScenarios sends every default test card through a lookup and
// then an enquiry, and checks that both tell what the scenario promises.
func TestDefaultScenarios(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	schemes, _ := emulator.NewSchemeTable(nil)
	for _, sc := range e.Cat.All() {
		if sc.Match.CardNumber == "" || sc.Delay > 0 || !sc.AnswersChannel(scenarios.ChannelBrowser) {
			continue // delayed cards have their own test, 3RI ones TestDefaultScenariosThreeRI
		}
		t.Run(sc.ID, func(t *testing.T) {
			pan := sc.Match.CardNumber
			ref := "ref-" + sc.ID
			r := e.lookup("tok", matchingBody(t, sc, ref))
			if sc.Error != nil {
				checkErrorBody(t, r, sc.Error.HTTPStatus, sc.Error.EMVErrorCode)
				if got := r.Str("errorCode"); got != sc.Error.ErrorCode {
					t.Errorf("errorCode = %q, want %q", got, sc.Error.ErrorCode)
				}
				q := e.enquiry("tok", map[string]any{"externalReferenceId": ref})
				checkErrorBody(t, q, http.StatusNotFound, "301")
				return
			}
			if r.Status != http.StatusOK {
				t.Fatalf("lookup status = %d: %s", r.Status, r.Raw)
			}
			scheme := schemes.Scheme(pan)
			for _, k := range []string{"threeDsServerTransId", "acsTransId", "dsTransId"} {
				if !canonicalUUID.MatchString(r.Str(k)) {
					t.Errorf("%s = %q, want a canonical UUID", k, r.Str(k))
				}
			}
			want := map[string]string{
				"cardScheme":          scheme,
				"cardBin":             pan[:6],
				"externalReferenceId": ref,
			}
			var status, reason, eci string
			switch {
			case sc.Frictionless != nil:
				status, reason = sc.Frictionless.Status, sc.Frictionless.Reason
				if r.Str("version") == "2.1.0" && status == "I" {
					status = "Y" // 2.1.0 has no informational status
				}
				eci = sc.Frictionless.ECI
				if eci == "" {
					eci = emulator.ECIFor(scheme, status)
				}
			case sc.Challenge != nil:
				status = "C"
			}
			want["status"], want["statusReason"], want["eci"] = status, reason, eci
			for k, v := range want {
				if got := r.Str(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			cavv := r.Str("authenticationValue")
			if wantCAVV := status == "Y" || status == "A"; wantCAVV != (len(cavv) == 28) || (!wantCAVV && cavv != "") {
				t.Errorf("authenticationValue = %q for status %s", cavv, status)
			}
			if r.Str("acsReferenceNumber") == "" || r.Str("acsOperatorId") == "" {
				t.Errorf("acsReferenceNumber/acsOperatorId missing: %s", r.Raw)
			}
			if status == "C" {
				if !strings.HasPrefix(r.Str("hostedChallengeUrl"), e.URL+"/acs/hosted/") {
					t.Errorf("hostedChallengeUrl = %q", r.Str("hostedChallengeUrl"))
				}
				if !strings.Contains(r.Str("challengeHtml"), `action="`+e.URL+`/acs/challenge"`) {
					t.Errorf("challengeHtml does not post to the ACS: %s", r.Str("challengeHtml"))
				}
			} else if r.Str("challengeHtml") != "" || r.Str("hostedChallengeUrl") != "" {
				t.Errorf("frictionless response carries challenge fields: %s", r.Raw)
			}

			q := e.enquiry("tok", map[string]any{"threeDsServerTransId": r.Str("threeDsServerTransId")})
			if q.Status != http.StatusOK {
				t.Fatalf("enquiry status = %d: %s", q.Status, q.Raw)
			}
			for k, v := range map[string]string{
				"transactionStatus":          status,
				"eci":                        eci,
				"statusReason":               reason,
				"authenticationValue":        cavv,
				"threeDsServerTransId":       r.Str("threeDsServerTransId"),
				"threeDSServerTransactionId": r.Str("threeDsServerTransId"),
				"dsTransId":                  r.Str("dsTransId"),
				"dsTransactionId":            r.Str("dsTransId"),
				"acsTransactionId":           r.Str("acsTransId"),
				"cardScheme":                 scheme,
				"cardBin":                    pan[:6],
				"version":                    r.Str("version"),
				"externalReferenceId":        ref,
				"acsReferenceNumber":         r.Str("acsReferenceNumber"),
				"acsOperatorId":              r.Str("acsOperatorId"),
			} {
				if got := q.Str(k); got != v {
					t.Errorf("enquiry %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestLookupIsDeterministicPerCard(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.lookup("tok", testkit.LookupBody(t, e.card("visa-frictionless-y"), nil))
	b := e.lookup("tok", testkit.LookupBody(t, e.card("visa-frictionless-y"), nil))
	if a.Str("threeDsServerTransId") == b.Str("threeDsServerTransId") {
		t.Error("two lookups share a transaction id")
	}
	if a.Str("authenticationValue") == b.Str("authenticationValue") {
		t.Error("two transactions share an authenticationValue")
	}
	for _, k := range []string{"status", "eci", "acsReferenceNumber", "acsOperatorId", "cardScheme", "version"} {
		if a.Str(k) != b.Str(k) {
			t.Errorf("%s differs between two lookups of one card: %q vs %q", k, a.Str(k), b.Str(k))
		}
	}
}

func TestEnquiryPriorityAndReuse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := e.lookup("tok", testkit.LookupBody(t, e.card("visa-frictionless-y"), func(m map[string]any) { m["externalReferenceId"] = "order-1" }))
	second := e.lookup("tok", testkit.LookupBody(t, e.card("visa-frictionless-n"), func(m map[string]any) { m["externalReferenceId"] = "order-2" }))
	reuse := e.lookup("tok", testkit.LookupBody(t, e.card("visa-frictionless-u"), func(m map[string]any) { m["externalReferenceId"] = "order-1" }))

	tests := []struct {
		name string
		body map[string]any
		want string // threeDsServerTransId
	}{
		{"id only", map[string]any{"threeDsServerTransId": first.Str("threeDsServerTransId")}, first.Str("threeDsServerTransId")},
		{"reference only: newest wins", map[string]any{"externalReferenceId": "order-1"}, reuse.Str("threeDsServerTransId")},
		{"both: id wins", map[string]any{"threeDsServerTransId": first.Str("threeDsServerTransId"), "externalReferenceId": "order-2"}, first.Str("threeDsServerTransId")},
		{"both: id wins over its own ref", map[string]any{"threeDsServerTransId": second.Str("threeDsServerTransId"), "externalReferenceId": "order-1"}, second.Str("threeDsServerTransId")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := e.enquiry("tok", tt.body)
			if q.Status != http.StatusOK {
				t.Fatalf("status %d: %s", q.Status, q.Raw)
			}
			if got := q.Str("threeDsServerTransId"); got != tt.want {
				t.Errorf("threeDsServerTransId = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestEnquiryUnknown(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, body := range []map[string]any{
		{"threeDsServerTransId": "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"},
		{"externalReferenceId": "never-seen"},
	} {
		checkErrorBody(t, e.enquiry("tok", body), http.StatusNotFound, "301")
	}
}

func TestTokenIsolation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.lookup("team-a", testkit.LookupBody(t, e.card("visa-frictionless-y"), func(m map[string]any) { m["externalReferenceId"] = "shared-ref" }))
	id := r.Str("threeDsServerTransId")
	checkErrorBody(t, e.enquiry("team-b", map[string]any{"threeDsServerTransId": id}), http.StatusNotFound, "301")
	checkErrorBody(t, e.enquiry("team-b", map[string]any{"externalReferenceId": "shared-ref"}), http.StatusNotFound, "301")
	// team-b's own transaction with the same reference does not disturb team-a.
	e.lookup("team-b", testkit.LookupBody(t, e.card("visa-frictionless-n"), func(m map[string]any) { m["externalReferenceId"] = "shared-ref" }))
	if q := e.enquiry("team-a", map[string]any{"externalReferenceId": "shared-ref"}); q.Str("threeDsServerTransId") != id {
		t.Errorf("team-a sees %s, want its own %s", q.Str("threeDsServerTransId"), id)
	}
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.tokens = []string{"good-token", "other"} })
	body := testkit.LookupBody(t, e.card("visa-frictionless-y"), nil)
	tests := []struct {
		name   string
		header string
		status int
		code   string
	}{
		{"missing", "", http.StatusUnauthorized, "AU01"},
		{"not bearer", "Basic dXNlcjpwYXNz", http.StatusUnauthorized, "AU01"},
		{"empty bearer", "Bearer ", http.StatusUnauthorized, "AU01"},
		{"two words", "Bearer a b", http.StatusUnauthorized, "AU01"},
		{"wrong token", "Bearer bad-token", http.StatusUnauthorized, "AU02"},
		{"good token", "Bearer good-token", http.StatusOK, ""},
		{"scheme is case-insensitive", "bearer other", http.StatusOK, ""},
	}
	for _, tt := range tests {
		for _, path := range []string{"/authentication/brw", "/authentication/3ri", "/enquiry/"} {
			t.Run(tt.name+path, func(t *testing.T) {
				req := body
				switch path {
				case "/enquiry/":
					req = map[string]any{"externalReferenceId": "x"}
				case "/authentication/3ri":
					req = testkit.ThreeRIBody(t, e.card("visa-frictionless-y"), nil)
				}
				r := e.call(http.MethodPost, path, "", req)
				if tt.header != "" {
					hr, _ := http.NewRequest(http.MethodPost, e.URL+path, strings.NewReader(mustJSON(t, req)))
					hr.Header.Set("Content-Type", "application/json")
					hr.Header.Set("Authorization", tt.header)
					r = e.do(hr)
				}
				if tt.code == "" {
					if r.Status == http.StatusUnauthorized {
						t.Errorf("accepted token refused: %s", r.Raw)
					}
					return
				}
				checkErrorBody(t, r, tt.status, "303")
				if got := r.Str("errorCode"); got != tt.code {
					t.Errorf("errorCode = %s, want %s", got, tt.code)
				}
			})
		}
	}
}

func TestTransportErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        string
		status      int
		emv         string
		code        string
	}{
		{"wrong content type", "POST", "/authentication/brw", "text/plain", `{}`, 415, "101", "MS02"},
		{"no content type", "POST", "/enquiry/", "", `{}`, 415, "101", "MS02"},
		{"malformed JSON", "POST", "/authentication/brw", "application/json", `{"card":`, 400, "101", "MS01"},
		{"not an object", "POST", "/enquiry/", "application/json", `[1,2]`, 400, "101", "MS01"},
		{"content type with charset", "POST", "/enquiry/", "application/json; charset=utf-8", `{"externalReferenceId":"nope"}`, 404, "301", "TX01"},
		{"unknown route", "GET", "/nope", "", ``, 404, "303", "RT04"},
		{"wrong method", "GET", "/authentication/brw", "", ``, 405, "303", "RT05"},
		{"too large", "POST", "/authentication/brw", "application/json", `{"x":"` + strings.Repeat("a", 70<<10) + `"}`, 413, "101", "MS03"},
		{"3RI: wrong content type", "POST", "/authentication/3ri", "text/plain", `{}`, 415, "101", "MS02"},
		{"3RI: malformed JSON", "POST", "/authentication/3ri/", "application/json", `{"card":`, 400, "101", "MS01"},
		{"3RI: wrong method", "GET", "/authentication/3ri", "", ``, 405, "303", "RT05"},
		{"3RI: too large", "POST", "/authentication/3ri", "application/json", `{"x":"` + strings.Repeat("a", 70<<10) + `"}`, 413, "101", "MS03"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, e.URL+tt.path, strings.NewReader(tt.body))
			if tt.contentType != "" {
				req.Header.Set("Content-Type", tt.contentType)
			}
			req.Header.Set("Authorization", "Bearer tok")
			r := e.do(req)
			checkErrorBody(t, r, tt.status, tt.emv)
			if got := r.Str("errorCode"); got != tt.code {
				t.Errorf("errorCode = %s, want %s", got, tt.code)
			}
			if r.Header.Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id")
			}
			for k, v := range map[string]string{
				"X-Content-Type-Options":  "nosniff",
				"Referrer-Policy":         "same-origin",
				"Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
			} {
				if got := r.Header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestCatalogueEndpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.call(http.MethodGet, "/scenarios", "", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("status %d", r.Status)
	}
	list, _ := r.Body["scenarios"].([]any)
	if len(list) != e.Cat.Len() {
		t.Fatalf("listed %d scenarios, catalogue has %d", len(list), e.Cat.Len())
	}
	flows := map[string]int{}
	for _, it := range list {
		m := it.(map[string]any)
		for _, k := range []string{"id", "flow", "description"} {
			if m[k] == "" || m[k] == nil {
				t.Errorf("entry lacks %s: %v", k, m)
			}
		}
		flows[m["flow"].(string)]++
	}
	for _, f := range []scenarios.Flow{scenarios.FlowFrictionless, scenarios.FlowChallenge, scenarios.FlowError} {
		if flows[string(f)] == 0 {
			t.Errorf("no %s scenario listed", f)
		}
	}
}

func TestBasePath(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.basePath = "/3ds" })
	r := e.lookup("tok", testkit.LookupBody(t, e.card("visa-frictionless-y"), nil))
	if r.Status != http.StatusOK {
		t.Fatalf("lookup under base path: %d %s", r.Status, r.Raw)
	}
	hr, _ := http.NewRequest(http.MethodGet, e.Server.URL+"/healthz", nil)
	if got := e.do(hr); got.Status != http.StatusOK {
		t.Errorf("/healthz = %d", got.Status)
	}
}

// TestEveryErrorNamesItsElement: spec 2.16 requires all four emvError
// fields in a message error, emvErrorDetail included: scenario errors,
// 405 and 413 named nothing.
func TestEveryErrorNamesItsElement(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name, method, path string
		body               any
		status             int
		detail             string
	}{
		{"scenario: version not supported (SC12)", http.MethodPost, "/authentication/brw", testkit.LookupBody(t, e.card("visa-error-version"), nil), 422, "messageVersion"},
		{"scenario: ACS unavailable (SC03)", http.MethodPost, "/authentication/brw", testkit.LookupBody(t, e.card("visa-error-acs-unavailable"), nil), 503, "/authentication/brw"},
		{"scenario: DS unreachable (SC05)", http.MethodPost, "/authentication/brw", testkit.LookupBody(t, e.card("visa-error-ds-unreachable"), nil), 502, "/authentication/brw"},
		{"method not allowed", http.MethodGet, "/enquiry/", nil, 405, "method"},
		{"body too large", http.MethodPost, "/authentication/brw", strings.Repeat(" ", 70<<10), 413, "body"},
		{"no route", http.MethodPost, "/nowhere", "{}", 404, "/nowhere"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.call(tt.method, tt.path, "tok", tt.body)
			checkErrorBody(t, r, tt.status, r.EMV("emvErrorCode"))
			if got := r.EMV("emvErrorDetail"); got != tt.detail {
				t.Errorf("emvErrorDetail = %q, want %q", got, tt.detail)
			}
		})
	}
}

// TestWhichScenarioAnswered: every lookup answer a scenario gave names it
// in X-Scenario-Id (fallback when none matched the card), the console's
// transaction page shows it, and the catalogue lists each entry's match
// conditions as data.
func TestWhichScenarioAnswered(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.journal = true })
	tests := []struct {
		name   string
		card   string
		change func(map[string]any)
		header map[string]string
		want   string
	}{
		{"a catalogued card", e.card("visa-frictionless-y"), nil, nil, "visa-frictionless-y"},
		{"with its request selector", e.card("visa-frictionless-y"), func(m map[string]any) { m["threeDsRequestorChallengeInd"] = 2 }, nil, "visa-frictionless-i-on-request"},
		{"a card no scenario matches", "4111111111111111", nil, nil, "fallback"},
		{"an error scenario", e.card("visa-error-acs-unavailable"), nil, nil, "visa-error-acs-unavailable"},
		{"forced by X-Scenario", "4111111111111111", nil, map[string]string{"X-Scenario": "visa-frictionless-n"}, "visa-frictionless-n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(testkit.LookupBody(t, tt.card, tt.change))
			req, _ := http.NewRequest(http.MethodPost, e.URL+"/authentication/brw", bytes.NewReader(raw))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer which")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			if r := e.do(req); r.Header.Get("X-Scenario-Id") != tt.want {
				t.Errorf("X-Scenario-Id = %q, want %q (HTTP %d)", r.Header.Get("X-Scenario-Id"), tt.want, r.Status)
			}
		})
	}
	// A validation error is the request's own: no scenario answered.
	if r := e.lookup("which", map[string]any{}); r.Header.Get("X-Scenario-Id") != "" {
		t.Errorf("a refused lookup names scenario %q", r.Header.Get("X-Scenario-Id"))
	}
	var cat struct {
		Scenarios []cards.Entry `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(e.call(http.MethodGet, "/scenarios", "", nil).Raw), &cat); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range cat.Scenarios {
		if s.ID == "visa-frictionless-i-on-request" {
			found = true
			if s.When["cardNumber"] != e.card("visa-frictionless-y") || s.When["threeDsRequestorChallengeInd"] != "2" || len(s.When) != 2 {
				t.Errorf("when = %v", s.When)
			}
		}
		if s.Fallback && s.When != nil {
			t.Errorf("the fallback has conditions %v", s.When)
		}
	}
	if !found {
		t.Error("the catalogue lacks visa-frictionless-i-on-request")
	}
}

// TestCatalogueWhenNamesEveryCondition: the `when` of every scenario of
// GET /scenarios names each condition of its match, so that a reader sees
// every field the outcome depends on; the table below must name every
// field of scenarios.Match.
func TestCatalogueWhenNamesEveryCondition(t *testing.T) {
	t.Parallel()
	keys := map[string]string{ // field of scenarios.Match -> key of when
		"CardNumber":      "cardNumber",
		"CardPrefix":      "cardPrefix",
		"BINRange":        "binRange",
		"CardPattern":     "cardPattern",
		"Amount":          "purchase.amount",
		"Currency":        "purchase.currencyCode",
		"CardholderName":  "card.cardholderName",
		"ChallengeInd":    "threeDsRequestorChallengeInd",
		"MessageVersion":  "messageVersion",
		"MessageCategory": "messageCategory",
		"AuthInd":         "threeDsRequestorAuthInd",
		"Scheme":          "cardScheme",
		"ThreeDSCompInd":  "threeDSCompInd",
	}
	match := reflect.TypeFor[scenarios.Match]()
	for i := range match.NumField() {
		if _, ok := keys[match.Field(i).Name]; !ok {
			t.Errorf("scenarios.Match.%s has no key in this test's table", match.Field(i).Name)
		}
	}
	e := newEnv(t)
	entries := cards.List(e.Cat, e.Engine.Schemes())
	all := e.Cat.All()
	if len(entries) != len(all) {
		t.Fatalf("%d catalogue entries for %d scenarios", len(entries), len(all))
	}
	seen := map[string]bool{}
	for i, sc := range all {
		m := reflect.ValueOf(sc.Match)
		for j := range m.NumField() {
			if m.Field(j).IsZero() {
				continue
			}
			key := keys[match.Field(j).Name]
			seen[key] = true
			if _, ok := entries[i].When[key]; !ok {
				t.Errorf("%s: when = %v lacks %s, a condition of its match", sc.ID, entries[i].When, key)
			}
		}
	}
	// The default packs hold at least these conditions besides the card.
	for _, key := range []string{"threeDsRequestorChallengeInd", "threeDSCompInd", "cardScheme"} {
		if !seen[key] {
			t.Errorf("no default scenario has the condition %s; the test checks nothing of it", key)
		}
	}
}
