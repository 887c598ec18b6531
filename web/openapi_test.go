package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"gopkg.in/yaml.v3"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/web"
)

func init() {
	// The ACS pages answer HTML; the validator reads them as plain text.
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
}

// apiContract is the OpenAPI document a running sandbox serves, with a
// router to find each request's operation.
type apiContract struct {
	t      *testing.T
	e      *env
	doc    *openapi3.T
	router routers.Router
}

// loadDocument parses and validates an OpenAPI document.
func loadDocument(t *testing.T, data []byte) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		t.Fatalf("load OpenAPI document: %v", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		t.Fatalf("OpenAPI document is invalid: %v", err)
	}
	return doc
}

// newContract loads the document e serves at /openapi.json; its servers
// name e's URL, so the router matches e's requests.
func newContract(t *testing.T, e *env) *apiContract {
	t.Helper()
	r := e.call(http.MethodGet, "/openapi.json", "", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /openapi.json = %d: %s", r.Status, r.Raw)
	}
	doc := loadDocument(t, []byte(r.Raw))
	if got := doc.OpenAPI; got != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", got)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("route the OpenAPI document: %v", err)
	}
	return &apiContract{t: t, e: e, doc: doc, router: router}
}

// exchange is one request to send to the sandbox.
type exchange struct {
	method, path string
	header       http.Header
	body         []byte
}

// bearerAuth accepts what the bearer scheme asks for: an Authorization
// header "Bearer <token>".
func bearerAuth(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	h := in.RequestValidationInput.Request.Header.Get("Authorization")
	if scheme, tok, ok := strings.Cut(h, " "); !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return errors.New("no bearer token")
	}
	return nil
}

// request builds the HTTP request of x against the sandbox.
func (c *apiContract) request(x exchange) *http.Request {
	c.t.Helper()
	req, err := http.NewRequest(x.method, c.e.URL+x.path, bytes.NewReader(x.body))
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range x.header {
		req.Header[k] = v
	}
	return req
}

// send sends x, then validates the response against the document, and
// the request too: it must be valid when requestValid is set, and be
// refused by the document otherwise.
func (c *apiContract) send(x exchange, requestValid bool) result {
	c.t.Helper()
	r := c.e.do(c.request(x))
	c.validate(x, r, requestValid)
	return r
}

// validate checks the request of x and the response r against the
// document.
func (c *apiContract) validate(x exchange, r result, requestValid bool) {
	c.t.Helper()
	req := c.request(x)
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		c.t.Fatalf("%s %s: no operation in the document: %v", x.method, x.path, err)
	}
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{
		Request:    req,
		PathParams: params,
		Route:      route,
		Options: &openapi3filter.Options{
			AuthenticationFunc:  bearerAuth,
			MultiError:          true,
			SkipSettingDefaults: true,
		},
	}
	err = openapi3filter.ValidateRequest(ctx, in)
	switch {
	case requestValid && err != nil:
		c.t.Errorf("%s %s: request does not conform to the document: %v\n%s", x.method, x.path, err, x.body)
	case !requestValid && err == nil:
		c.t.Errorf("%s %s: the document accepts a request the sandbox refuses:\n%s", x.method, x.path, x.body)
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 r.Status,
		Header:                 r.Header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	out.SetBodyBytes([]byte(r.Raw))
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		c.t.Errorf("%s %s: response %d does not conform to the document: %v\n%s", x.method, x.path, r.Status, err, r.Raw)
	}
}

// validateSchema checks a JSON body against one schema of the document,
// for answers of paths the document does not list (unknown routes).
func (c *apiContract) validateSchema(name string, r result) {
	c.t.Helper()
	ref := c.doc.Components.Schemas[name]
	if ref == nil {
		c.t.Fatalf("no schema %s", name)
	}
	var v any
	if err := json.Unmarshal([]byte(r.Raw), &v); err != nil {
		c.t.Fatalf("body is not JSON: %v\n%s", err, r.Raw)
	}
	if err := ref.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
		c.t.Errorf("body does not conform to %s: %v\n%s", name, err, r.Raw)
	}
}

// api builds an exchange of the JSON API with a bearer token.
func api(method, path string, body any) exchange {
	x := exchange{method: method, path: path, header: http.Header{"Authorization": {"Bearer tok"}}}
	if body != nil {
		x.header.Set("Content-Type", "application/json")
		switch b := body.(type) {
		case string:
			x.body = []byte(b)
		default:
			x.body, _ = json.Marshal(b)
		}
	}
	return x
}

func TestOpenAPIDocument(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc := loadDocument(t, src)
	if got := doc.OpenAPI; got != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", got)
	}

	e := newEnv(t, func(o *envOptions) { o.basePath = "/3ds" })
	y := e.call(http.MethodGet, "/openapi.yaml", "", nil)
	j := e.call(http.MethodGet, "/openapi.json", "", nil)
	for _, r := range []result{y, j} {
		if r.Status != http.StatusOK {
			t.Fatalf("status %d: %s", r.Status, r.Raw)
		}
	}
	if got, want := y.Header.Get("Content-Type"), "application/yaml"; got != want {
		t.Errorf("YAML Content-Type = %q, want %q", got, want)
	}
	var fromYAML, fromJSON, fromSource map[string]any
	if err := yaml.Unmarshal([]byte(y.Raw), &fromYAML); err != nil {
		t.Fatalf("served YAML: %v", err)
	}
	if err := json.Unmarshal([]byte(j.Raw), &fromJSON); err != nil {
		t.Fatalf("served JSON: %v", err)
	}
	if !reflect.DeepEqual(normalise(t, fromYAML), fromJSON) {
		t.Error("/openapi.yaml and /openapi.json differ")
	}
	if got, want := strings.Index(j.Raw, `"openapi"`) < strings.Index(j.Raw, `"paths"`), true; got != want {
		t.Error("JSON does not keep the document's key order")
	}

	// The served copy differs from the source only by its servers.
	if err := yaml.Unmarshal(src, &fromSource); err != nil {
		t.Fatal(err)
	}
	servers := func(m map[string]any, path string) any {
		if path == "" {
			return m["servers"]
		}
		return m["paths"].(map[string]any)[path].(map[string]any)["servers"]
	}
	origin := e.Server.URL
	for _, tt := range []struct{ path, want string }{{"", e.URL}, {"/healthz", origin}, {"/readyz", origin}, {"/metrics", origin}} {
		list, _ := servers(fromJSON, tt.path).([]any)
		if len(list) != 1 || list[0].(map[string]any)["url"] != tt.want {
			t.Errorf("servers of %q = %v, want %s", tt.path, list, tt.want)
		}
		delete(fromJSON, "servers")
		if tt.path != "" {
			delete(fromJSON["paths"].(map[string]any)[tt.path].(map[string]any), "servers")
			delete(fromSource["paths"].(map[string]any)[tt.path].(map[string]any), "servers")
		}
	}
	delete(fromSource, "servers")
	// ... and by the enums the sandbox fills in from its Go definition.
	for _, path := range web.DerivedEnumPaths() {
		var prop any = fromJSON
		for _, k := range path {
			prop = prop.(map[string]any)[k]
		}
		delete(prop.(map[string]any), "enum")
	}
	if !reflect.DeepEqual(normalise(t, fromSource), fromJSON) {
		t.Error("the served document differs from web/openapi.yaml beyond its servers")
	}
}

// normalise turns a decoded YAML value into what encoding/json decodes
// from the same document.
func normalise(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOpenAPIConformance sends real requests, the lookup and enquiry of
// every default test card among them, and checks requests and responses
// against the served OpenAPI document.
func TestOpenAPIConformance(t *testing.T) {
	e := newEnv(t)
	c := newContract(t, e)

	t.Run("default cards", func(t *testing.T) {
		for _, sc := range e.Cat.All() {
			if sc.Match.CardNumber == "" || sc.Delay > 0 || !reflect.ValueOf(sc.Steps).IsZero() {
				continue // delays and injected faults have their own tests
			}
			t.Run(sc.ID, func(t *testing.T) {
				t.Parallel()
				c := *c
				c.t = t
				ref := "ref-" + sc.ID
				r := c.send(api(http.MethodPost, "/authentication/brw", testkit.LookupBody(t, sc.Match.CardNumber, func(m map[string]any) {
					m["externalReferenceId"] = ref
				})), true)
				switch {
				case sc.Error != nil && r.Status == http.StatusOK:
					t.Fatalf("lookup answered 200, want the scenario's error")
				case sc.Error == nil && r.Status != http.StatusOK:
					t.Fatalf("lookup answered %d: %s", r.Status, r.Raw)
				}
				want := http.StatusOK
				if sc.Error != nil {
					want = http.StatusNotFound // an error stores no transaction
				}
				q := c.send(api(http.MethodPost, "/enquiry/", map[string]any{"externalReferenceId": ref}), true)
				if q.Status != want {
					t.Errorf("enquiry answered %d, want %d: %s", q.Status, want, q.Raw)
				}
			})
		}
	})

	t.Run("3RI", func(t *testing.T) {
		c := *c
		c.t = t
		for _, sc := range e.Cat.All() {
			if sc.Match.CardNumber == "" || sc.Delay > 0 || !reflect.ValueOf(sc.Steps).IsZero() || len(sc.When) > 0 {
				continue
			}
			r := c.send(api(http.MethodPost, "/authentication/3ri", testkit.ThreeRIBody(t, sc.Match.CardNumber, func(m map[string]any) {
				m["externalReferenceId"] = "3ri-" + sc.ID
			})), true)
			if (sc.Error == nil) != (r.Status == http.StatusOK) {
				t.Errorf("%s: 3RI lookup answered %d: %s", sc.ID, r.Status, r.Raw)
			}
		}
		prior := func(ref string) map[string]any {
			return testkit.ThreeRIBody(t, e.card("visa-frictionless-y"), func(m map[string]any) {
				m["threeDSRequestorPriorAuthenticationInfo"] = map[string]any{"threeDSReqPriorRef": ref, "threeDSReqPriorAuthMethod": "02"}
			})
		}
		y := c.send(api(http.MethodPost, "/authentication/3ri", prior("8a880dc0-d2d2-4067-bcb1-b08d1690b26e")), true)
		if y.Status != http.StatusNotFound || y.Str("errorCode") != "TX01" {
			t.Errorf("unknown prior: %d %s", y.Status, y.Raw)
		}
		n := c.send(api(http.MethodPost, "/authentication/brw", testkit.LookupBody(t, e.card("visa-frictionless-n"), nil)), true)
		if r := c.send(api(http.MethodPost, "/authentication/3ri", prior(n.Str("acsTransId"))), true); r.Status != http.StatusConflict || r.Str("errorCode") != "TX05" {
			t.Errorf("prior not authenticated: %d %s", r.Status, r.Raw)
		}
		bad := testkit.ThreeRIBody(t, e.card("visa-frictionless-y"), func(m map[string]any) {
			m["messageVersion"] = "2.1.0"
			m["threeRIInd"] = "07"
			m["purchase"] = map[string]any{"amount": "1.00", "currencyCode": "EUR", "date": "2026-12-06 07:00:00"}
		})
		if r := c.send(api(http.MethodPost, "/authentication/3ri", bad), false); r.Status != http.StatusBadRequest || len(r.Body["problems"].([]any)) != 2 {
			t.Errorf("two problems: %d %s", r.Status, r.Raw)
		}
	})

	t.Run("lookup leniencies and X-Scenario", func(t *testing.T) {
		c := *c
		c.t = t
		card := e.card("visa-frictionless-y")
		lenient := testkit.LookupBody(t, card, func(m map[string]any) {
			m["deviceChannel"] = "02"
			m["challengeWindowSize"] = "5"
			m["acquirerBIN"] = m["acquirerBin"]
			delete(m, "acquirerBin")
			m["threeDsRequestorDecMaxTime"] = m["threeDSRequestorDecMaxTime"]
			delete(m, "threeDSRequestorDecMaxTime")
			m["notificationUrl"] = nil
			m["requestor"] = nil
			b := m["browserInfo"].(map[string]any)
			b["colorDepth"], b["screenHeight"], b["timeZone"] = 24, 1080, "+60"
			m["purchase"].(map[string]any)["amount"] = "129.99"
			ai := m["accountInfo"].(map[string]any)
			ai["accountAgeIndicator"] = ai["chAccAgeInd"]
			delete(ai, "chAccAgeInd")
			ai["nbPurchaseAccount"] = 12
		})
		if r := c.send(api(http.MethodPost, "/authentication/brw", lenient), true); r.Status != http.StatusOK {
			t.Errorf("lenient lookup: %d %s", r.Status, r.Raw)
		}
		noJS := testkit.LookupBody(t, card, func(m map[string]any) {
			b := m["browserInfo"].(map[string]any)
			b["javascriptEnabled"] = false
			for _, k := range []string{"javaEnabled", "colorDepth", "screenHeight", "screenWidth", "timeZone"} {
				delete(b, k)
			}
		})
		if r := c.send(api(http.MethodPost, "/authentication/brw", noJS), true); r.Status != http.StatusOK {
			t.Errorf("lookup without JavaScript: %d %s", r.Status, r.Raw)
		}
		instalment := testkit.LookupBody(t, card, func(m map[string]any) {
			m["threeDsRequestorAuthInd"] = "03"
			m["instalmentData"] = "12"
			m["recurring"] = map[string]any{"expiry": "20301231", "frequency": 30}
			m["purchase"].(map[string]any)["instalData"] = 12
		})
		if r := c.send(api(http.MethodPost, "/authentication/brw", instalment), true); r.Status != http.StatusOK {
			t.Errorf("instalment lookup: %d %s", r.Status, r.Raw)
		}
		forced := api(http.MethodPost, "/authentication/brw", testkit.LookupBody(t, card, nil))
		forced.header.Set("X-Scenario", "visa-frictionless-a")
		if r := c.send(forced, true); r.Str("status") != "A" {
			t.Errorf("X-Scenario lookup: %d %s", r.Status, r.Raw)
		}
		forced.header.Set("X-Scenario", "no-such-scenario")
		if r := c.send(forced, true); r.Status != http.StatusBadRequest || r.Str("errorCode") != "SC01" {
			t.Errorf("unknown X-Scenario: %d %s", r.Status, r.Raw)
		}
	})

	t.Run("validation error with many problems", func(t *testing.T) {
		c := *c
		c.t = t
		body := testkit.LookupBody(t, e.card("visa-frictionless-y"), func(m map[string]any) {
			delete(m["card"].(map[string]any), "cardNumber")
			delete(m, "ddcId")
			m["deviceChannel"] = "x"
			m["email"] = "not an address"
			m["purchase"].(map[string]any)["currencyCode"] = "XXY"
			m["billingAddress"].(map[string]any)["countryCode"] = "gbr"
			m["threeDsRequestorAuthInd"] = "09"
		})
		r := c.send(api(http.MethodPost, "/authentication/brw", body), false)
		if r.Status != http.StatusBadRequest {
			t.Fatalf("status %d: %s", r.Status, r.Raw)
		}
		if got, _ := r.Body["problems"].([]any); len(got) < 6 {
			t.Errorf("problems = %d, want at least 6: %s", len(got), r.Raw)
		}
	})

	t.Run("conditional rules", func(t *testing.T) {
		c := *c
		c.t = t
		card := e.card("visa-frictionless-y")
		tests := []struct {
			name   string
			mutate func(m map[string]any)
			code   string
		}{
			{"payment without purchase", func(m map[string]any) { delete(m, "purchase") }, "FD01"},
			{"recurring without recurring", func(m map[string]any) { m["threeDsRequestorAuthInd"] = "02" }, "FD01"},
			{"JavaScript without colorDepth", func(m map[string]any) { delete(m["browserInfo"].(map[string]any), "colorDepth") }, "FD01"},
			{"no acquirer BIN", func(m map[string]any) { delete(m, "acquirerBin") }, "FD01"},
			{"instalData of a payment", func(m map[string]any) { m["purchase"].(map[string]any)["instalData"] = 3 }, "FD03"},
			{"app channel", func(m map[string]any) { m["deviceChannel"] = 1 }, "CH01"},
			{"pending version", func(m map[string]any) { m["messageVersion"] = "2.3.0" }, "VR02"},
			{"window size 6", func(m map[string]any) { m["challengeWindowSize"] = 6 }, "FD03"},
			{"short cardholder name", func(m map[string]any) { m["card"].(map[string]any)["cardholderName"] = "J" }, "FD03"},
		}
		for _, tt := range tests {
			r := c.send(api(http.MethodPost, "/authentication/brw", testkit.LookupBody(t, card, tt.mutate)), false)
			if r.Status != http.StatusBadRequest || r.Str("errorCode") != tt.code {
				t.Errorf("%s: %d %s, want 400 %s", tt.name, r.Status, r.Str("errorCode"), tt.code)
			}
		}
	})

	t.Run("transport errors", func(t *testing.T) {
		c := *c
		c.t = t
		tests := []struct {
			name, method, path, contentType, body string
			requestValid                          bool
			routed                                bool
		}{
			{"wrong content type", "POST", "/authentication/brw", "text/plain", `{}`, false, true},
			{"no content type", "POST", "/enquiry/", "", `{}`, false, true},
			{"malformed JSON", "POST", "/authentication/brw", "application/json", `{"card":`, false, true},
			{"not an object", "POST", "/enquiry/", "application/json", `[1,2]`, false, true},
			{"content type with charset", "POST", "/enquiry/", "application/json; charset=utf-8", `{"externalReferenceId":"nope"}`, true, true},
			{"enquiry without slash", "POST", "/enquiry", "application/json", `{"threeDsServerTransId":"8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}`, true, true},
			{"enquiry by nothing", "POST", "/enquiry/", "application/json", `{"externalReferenceId":""}`, false, true},
			{"too large", "POST", "/authentication/brw", "application/json", `{"x":"` + strings.Repeat("a", 70<<10) + `"}`, false, true},
			{"unknown route", "GET", "/nope", "", ``, false, false},
			{"wrong method", "GET", "/authentication/brw", "", ``, false, false},
		}
		for _, tt := range tests {
			x := exchange{method: tt.method, path: tt.path, body: []byte(tt.body), header: http.Header{"Authorization": {"Bearer tok"}}}
			if tt.contentType != "" {
				x.header.Set("Content-Type", tt.contentType)
			}
			r := c.e.do(c.request(x))
			if r.Status < 400 {
				t.Errorf("%s: status %d, want an error", tt.name, r.Status)
			}
			if !tt.routed {
				c.validateSchema("ErrorBody", r)
				continue
			}
			c.validate(x, r, tt.requestValid)
		}
		noToken := api(http.MethodPost, "/enquiry/", map[string]any{"externalReferenceId": "x"})
		noToken.header.Del("Authorization")
		if r := c.send(noToken, false); r.Status != http.StatusUnauthorized {
			t.Errorf("no token: %d %s", r.Status, r.Raw)
		}
	})

	t.Run("headless challenge", func(t *testing.T) {
		c := *c
		c.t = t
		card := e.card("visa-challenge")
		start := func() string {
			r := c.send(api(http.MethodPost, "/authentication/brw", testkit.LookupBody(t, card, nil)), true)
			if r.Str("status") != "C" {
				t.Fatalf("lookup: %d %s", r.Status, r.Raw)
			}
			return r.Str("threeDsServerTransId")
		}
		id := start()
		c.send(api(http.MethodPost, "/enquiry/", map[string]any{"threeDsServerTransId": id}), true)
		c.send(api(http.MethodPost, "/challenge/"+id, map[string]any{"action": "otp", "otp": "9999"}), true)
		if r := c.send(api(http.MethodPost, "/challenge/"+id, map[string]any{"action": "pass"}), true); r.Body["final"] != true {
			t.Errorf("pass: %d %s", r.Status, r.Raw)
		}
		c.send(api(http.MethodPost, "/enquiry", map[string]any{"threeDsServerTransId": id}), true)
		if r := c.send(api(http.MethodPost, "/challenge/"+id, map[string]any{"action": "pass"}), true); r.Status != http.StatusConflict {
			t.Errorf("second pass: %d %s", r.Status, r.Raw)
		}
		if r := c.send(api(http.MethodPost, "/challenge/8a880dc0-d2d2-4067-bcb1-b08d1690b26e", map[string]any{"action": "fail"}), true); r.Status != http.StatusNotFound {
			t.Errorf("unknown transaction: %d %s", r.Status, r.Raw)
		}
		if r := c.send(api(http.MethodPost, "/challenge/"+start(), map[string]any{"action": "pass", "extra": 1}), false); r.Status != http.StatusBadRequest {
			t.Errorf("unknown field: %d %s", r.Status, r.Raw)
		}
	})

	t.Run("browser pages", func(t *testing.T) {
		c := *c
		c.t = t
		r := c.send(api(http.MethodPost, "/authentication/brw", testkit.LookupBody(t, e.card("visa-challenge"), nil)), true)
		id := r.Str("threeDsServerTransId")
		form := func(path string, v url.Values) exchange {
			return exchange{method: http.MethodPost, path: path, body: []byte(v.Encode()),
				header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}}
		}
		fields := formFields(r.Str("challengeHtml"))
		if p := c.send(form("/acs/challenge", url.Values{"creq": {fields["creq"]}, "threeDSSessionData": {"abc"}}), true); p.Status != http.StatusOK {
			t.Errorf("/acs/challenge: %d", p.Status)
		}
		if p := c.send(exchange{method: http.MethodGet, path: "/acs/hosted/" + id}, true); p.Status != http.StatusOK {
			t.Errorf("/acs/hosted: %d", p.Status)
		}
		if p := c.send(exchange{method: http.MethodGet, path: "/acs/hosted/8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}, true); p.Status != http.StatusNotFound {
			t.Errorf("/acs/hosted of an unknown transaction: %d", p.Status)
		}
		if p := c.send(form("/acs/decision", url.Values{"state": {"forged"}, "action": {"pass"}}), true); p.Status != http.StatusBadRequest {
			t.Errorf("/acs/decision with a forged state: %d", p.Status)
		}
	})

	t.Run("device data collection and 3DS Method", func(t *testing.T) {
		c := *c
		c.t = t
		form := func(path string, v url.Values) exchange {
			return exchange{method: http.MethodPost, path: path, body: []byte(v.Encode()),
				header: http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}}
		}
		d := c.send(api(http.MethodPost, "/authentication/ddc", ddcBody("4000000000009409")), true)
		if d.Status != http.StatusOK {
			t.Fatalf("ddc: %d %s", d.Status, d.Raw)
		}
		if n := c.send(api(http.MethodPost, "/authentication/ddc", ddcBody("4000000000009425")), true); n.Str("threeDSCompInd") != "U" {
			t.Errorf("ddc without a method: %s", n.Raw)
		}
		if r := c.send(api(http.MethodPost, "/authentication/ddc", map[string]any{"card": map[string]any{"cardNumber": "4000000000009409"}}), false); r.Status != http.StatusBadRequest {
			t.Errorf("ddc without a notification URL: %d", r.Status)
		}
		m := c.send(form("/acs/method", url.Values{"threeDSMethodData": {d.Str("threeDSMethodData")}}), true)
		if m.Status != http.StatusOK {
			t.Fatalf("/acs/method: %d", m.Status)
		}
		if p := c.send(form("/acs/method/done", url.Values{"threeDSMethodData": {formFields(m.Raw)["threeDSMethodData"]}}), true); p.Status != http.StatusOK {
			t.Errorf("/acs/method/done: %d", p.Status)
		}
		if p := c.send(form("/acs/method", url.Values{"threeDSMethodData": {"%%"}}), true); p.Status != http.StatusBadRequest {
			t.Errorf("/acs/method with bad data: %d", p.Status)
		}
		l := c.send(api(http.MethodPost, "/authentication/brw", testkit.LookupBody(t, "4000000000009409", func(b map[string]any) {
			b["ddcId"], b["threeDSCompInd"] = d.Str("ddcId"), "Y"
		})), true)
		if l.Str("threeDsServerTransId") != d.Str("threeDsServerTransId") {
			t.Errorf("lookup: %s", l.Raw)
		}
		if q := c.send(api(http.MethodPost, "/enquiry/", map[string]any{"threeDsServerTransId": l.Str("threeDsServerTransId")}), true); q.Str("threeDSCompInd") != "Y" {
			t.Errorf("enquiry: %s", q.Raw)
		}
	})

	t.Run("catalogue and operations", func(t *testing.T) {
		c := *c
		c.t = t
		get := func(path string) exchange { return exchange{method: http.MethodGet, path: path} }
		for _, path := range []string{"/scenarios", "/scenarios/schema.json", "/openapi.json", "/openapi.yaml"} {
			if r := c.send(get(path), true); r.Status != http.StatusOK {
				t.Errorf("%s: %d", path, r.Status)
			}
		}
		for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
			c.send(get(path), true) // /readyz: 503 until the server is marked ready
		}
	})

	t.Run("admin", func(t *testing.T) {
		c := *c
		c.t = t
		if r := e.call(http.MethodGet, "/admin/scenarios", "tok", nil); r.Status == http.StatusNotFound && r.Str("errorCode") == "RT04" {
			t.Skip("the admin API is not routed")
		}
		c.send(api(http.MethodGet, "/admin/scenarios", nil), true)
		doc := map[string]any{"scenarios": []any{map[string]any{
			"id": "openapi-declined", "description": "declined by the admin API",
			"match":        map[string]any{"cardNumber": "4111111111111111"},
			"frictionless": map[string]any{"status": "N", "reason": "05"},
		}}}
		if r := c.send(api(http.MethodPost, "/admin/scenarios", doc), true); r.Status != http.StatusCreated {
			t.Errorf("add: %d %s", r.Status, r.Raw)
		}
		if r := c.send(api(http.MethodPost, "/admin/scenarios", doc), true); r.Status != http.StatusConflict {
			t.Errorf("add twice: %d %s", r.Status, r.Raw)
		}
		bad := map[string]any{"scenarios": []any{map[string]any{"id": "Bad Id"}}}
		if r := c.send(api(http.MethodPost, "/admin/scenarios", bad), false); r.Status != http.StatusBadRequest {
			t.Errorf("add an invalid document: %d %s", r.Status, r.Raw)
		}
		yamlDoc := api(http.MethodPost, "/admin/scenarios", "scenarios:\n  - id: openapi-yaml\n    match: {cardNumber: \"4111111111111129\"}\n    challenge: {auto: pass}\n")
		yamlDoc.header.Set("Content-Type", "application/yaml")
		if r := c.send(yamlDoc, true); r.Status != http.StatusCreated {
			t.Errorf("add a YAML document: %d %s", r.Status, r.Raw)
		}
		if r := c.send(api(http.MethodPost, "/authentication/brw", testkit.LookupBody(t, "4111111111111111", nil)), true); r.Str("status") != "N" {
			t.Errorf("lookup of a runtime scenario's card: %d %s", r.Status, r.Raw)
		}
		threeRI := map[string]any{"scenarios": []any{
			map[string]any{"id": "openapi-3ri", "match": map[string]any{"cardNumber": "4111111111111137"},
				"challenge": map[string]any{}, "threeRI": map[string]any{"status": "R", "reason": "12"}},
			map[string]any{"id": "openapi-3ri-check", "match": map[string]any{"cardNumber": "4111111111111137"},
				"when": map[string]any{"channel": "3ri", "threeRIInd": []any{"04", "05"}}, "frictionless": map[string]any{"status": "N", "reason": "01"}},
		}}
		if r := c.send(api(http.MethodPost, "/admin/scenarios", threeRI), true); r.Status != http.StatusCreated {
			t.Errorf("add scenarios with when and threeRI: %d %s", r.Status, r.Raw)
		}
		for ind, want := range map[string]string{"01": "R", "05": "N"} {
			r := c.send(api(http.MethodPost, "/authentication/3ri", testkit.ThreeRIBody(t, "4111111111111137", func(m map[string]any) { m["threeRIInd"] = ind })), true)
			if r.Str("status") != want {
				t.Errorf("3RI lookup %s of a runtime scenario's card: %d %s, want %s", ind, r.Status, r.Raw, want)
			}
		}
		c.send(api(http.MethodGet, "/admin/scenarios", nil), true)
		if r := c.send(api(http.MethodDelete, "/admin/scenarios/openapi-declined", nil), true); r.Status != http.StatusNoContent {
			t.Errorf("delete: %d %s", r.Status, r.Raw)
		}
		if r := c.send(api(http.MethodDelete, "/admin/scenarios/openapi-declined", nil), true); r.Status != http.StatusNotFound {
			t.Errorf("delete twice: %d %s", r.Status, r.Raw)
		}
		c.send(api(http.MethodDelete, "/admin/scenarios", nil), true)
	})
}

// TestOpenAPIDetectsDrift makes sure the contract test would notice a
// response field the document does not list.
func TestOpenAPIDetectsDrift(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := newContract(t, e)
	for _, name := range []string{"LookupResponse", "EnquiryResponse", "ErrorBody", "CatalogueEntry", "CompleteResponse"} {
		s := c.doc.Components.Schemas[name].Value
		if s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has {
			t.Errorf("%s: additionalProperties is not false", name)
		}
	}
	r := e.lookup("tok", testkit.LookupBody(t, e.card("visa-frictionless-y"), nil))
	for _, mutate := range []func(m map[string]any){
		func(m map[string]any) { m["threeDsServerTransID"] = m["threeDsServerTransId"] },   // a new field
		func(m map[string]any) { m["dsTransID"] = m["dsTransId"]; delete(m, "dsTransId") }, // a renamed one
	} {
		m := map[string]any{}
		for k, v := range r.Body {
			m[k] = v
		}
		mutate(m)
		var v any = m
		if err := c.doc.Components.Schemas["LookupResponse"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err == nil {
			t.Errorf("a drifted response passes the document: %s", mustJSON(t, m))
		}
	}
}

// TestOpenAPIAutomation sends every operation of the automation API,
// their refusals among them, and checks requests and answers against the
// served document.
func TestOpenAPIAutomation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.journal, o.maxWaits = true, [2]int{4, 1} })
	c := newContract(t, e)
	challenge := c.send(api(http.MethodPost, "/authentication/brw", testkit.LookupBody(t, e.card("visa-challenge"), func(m map[string]any) {
		m["externalReferenceId"] = "auto-1"
	})), true).Str("threeDsServerTransId")
	c.send(api(http.MethodPost, "/authentication/brw", testkit.LookupBody(t, e.card("visa-frictionless-n"), nil)), true)
	d := c.send(api(http.MethodPost, "/authentication/ddc", ddcBody("4000000000009409")), true)

	list := c.send(api(http.MethodGet, "/admin/transactions?limit=1", nil), true)
	if list.Status != http.StatusOK || list.Str("next") == "" {
		t.Fatalf("list: %d %s", list.Status, list.Raw)
	}
	c.send(api(http.MethodGet, "/admin/transactions?cursor="+url.QueryEscape(list.Str("next")), nil), true)
	c.send(api(http.MethodGet, "/admin/transactions?status=C&scenarioId=visa-challenge&externalReferenceId=auto-1&since=2026-01-01T00:00:00Z", nil), true)
	c.send(api(http.MethodGet, "/admin/transactions/"+challenge, nil), true)
	c.send(api(http.MethodGet, "/admin/transactions/"+d.Str("threeDsServerTransId"), nil), true)
	c.send(api(http.MethodPost, "/challenge/"+challenge, map[string]any{"action": "cancel"}), true)
	if r := c.send(api(http.MethodGet, "/admin/transactions/"+challenge+"?wait=final&timeout=5s", nil), true); r.Body["final"] != true {
		t.Errorf("wait: %s", r.Raw)
	}
	c.send(api(http.MethodGet, "/admin/clock", nil), true)
	c.send(api(http.MethodPost, "/admin/clock", map[string]any{"advance": "90s"}), true)
	c.send(api(http.MethodDelete, "/admin/clock", nil), true)

	// Refusals.
	for _, x := range []struct {
		x     exchange
		valid bool
	}{
		{api(http.MethodGet, "/admin/transactions?limit=0", nil), false},
		{api(http.MethodGet, "/admin/transactions?cursor=nope", nil), true},
		{api(http.MethodGet, "/admin/transactions?since=2026-11-24", nil), false},
		{api(http.MethodGet, "/admin/transactions/8a880dc0-d2d2-4067-bcb1-b08d1690b26e", nil), true},
		{api(http.MethodGet, "/admin/transactions/"+challenge+"?wait=final&timeout=2m", nil), true},
		{api(http.MethodPost, "/admin/clock", map[string]any{"advance": "800h"}), true},
		{api(http.MethodPost, "/admin/clock", map[string]any{"advance": "soon"}), false},
		{api(http.MethodPost, "/admin/clock", map[string]any{}), false},
	} {
		if r := c.send(x.x, x.valid); r.Status < 400 {
			t.Errorf("%s %s: %d, want a refusal", x.x.method, x.x.path, r.Status)
		}
	}
	wrongType := api(http.MethodPost, "/admin/clock", map[string]any{"advance": "1m"})
	wrongType.header.Set("Content-Type", "text/plain")
	c.send(wrongType, false)
	noToken := api(http.MethodGet, "/admin/transactions", nil)
	noToken.header.Del("Authorization")
	c.send(noToken, false)

	// One wait per token: the second answers 429. The first is open (the
	// metrics count it) until the challenge's decision ends it.
	pending := c.send(api(http.MethodPost, "/authentication/brw", testkit.LookupBody(t, e.card("visa-challenge"), nil)), true).Str("threeDsServerTransId")
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.call(http.MethodGet, "/admin/transactions/"+pending+"?wait=final&timeout=60s", "tok", nil)
	}()
	testkit.Eventually(t, "the first wait is open", func() bool { return waitsOpen(t, e) == 1 })
	if r := c.send(api(http.MethodGet, "/admin/transactions/"+pending+"?wait=final&timeout=1s", nil), true); r.Status != http.StatusTooManyRequests {
		t.Errorf("a second wait of one token: %d %s", r.Status, r.Raw)
	}
	e.call(http.MethodPost, "/challenge/"+pending, "tok", map[string]any{"action": "pass"})
	<-done
	if r := c.send(api(http.MethodDelete, "/admin/transactions", nil), true); r.Status != http.StatusNoContent {
		t.Errorf("forget: %d", r.Status)
	}
	if r := c.send(api(http.MethodDelete, "/admin/state", nil), true); r.Status != http.StatusNoContent {
		t.Errorf("reset: %d", r.Status)
	}
	if r := c.send(api(http.MethodDelete, "/admin/state?everything=yes", nil), true); r.Status != http.StatusBadRequest {
		t.Errorf("reset with a parameter: %d", r.Status)
	}
}

// TestOpenAPISchemesAreTheList: the document's CardScheme enum is the
// scenarios' list of schemes, in its order.
func TestOpenAPISchemesAreTheList(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := loadDocument(t, src).Components.Schemas["CardScheme"]
	if s == nil || s.Value == nil {
		t.Fatal("openapi.yaml has no components.schemas.CardScheme")
	}
	var got []string
	for _, v := range s.Value.Enum {
		got = append(got, fmt.Sprint(v))
	}
	if want := scenarios.SchemeNames(); !slices.Equal(got, want) {
		t.Errorf("CardScheme enum = %v, want the schemes of scenarios/schemes.go %v", got, want)
	}
}
