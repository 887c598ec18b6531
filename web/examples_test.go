package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/examples"
)

// TestExamplesServed fetches the index of sample bodies and every sample,
// as a user without a checkout would, checks them against the OpenAPI
// document, and sends each to its operation: the outcome is the one its
// index entry promises.
func TestExamplesServed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(o *envOptions) { o.basePath = "/3ds" })
	c := newContract(t, e)
	get := func(path string) exchange { return exchange{method: http.MethodGet, path: path} }

	idx := c.send(get("/examples/"), true)
	if idx.Status != http.StatusOK {
		t.Fatalf("GET /examples/ = %d: %s", idx.Status, idx.Raw)
	}
	var index struct {
		Examples []struct {
			Name, Flow, Method, Path, URL, Operation string
		}
	}
	if err := json.Unmarshal([]byte(idx.Raw), &index); err != nil {
		t.Fatal(err)
	}
	if len(index.Examples) != len(examples.All()) {
		t.Fatalf("the index lists %d samples, the package has %d", len(index.Examples), len(examples.All()))
	}
	flows := map[string]bool{}
	for _, entry := range index.Examples {
		flows[entry.Flow] = true
		if want := e.URL + "/examples/" + entry.Name; entry.URL != want {
			t.Errorf("%s: url %q, want %q", entry.Name, entry.URL, want)
		}
		if want := e.URL + entry.Path; entry.Operation != want {
			t.Errorf("%s: operation %q, want %q", entry.Name, entry.Operation, want)
		}
		r := c.send(get("/examples/"+entry.Name), true)
		if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("GET %s = %d %s", entry.URL, r.Status, r.Header.Get("Content-Type"))
		}
		if want, _ := examples.Find(entry.Name); r.Raw != string(want.Body()) {
			t.Errorf("%s is not the sample of package examples:\n%s", entry.Name, r.Raw)
		}
		if head, err := e.Server.Client().Head(entry.URL); err != nil || head.StatusCode != http.StatusOK {
			t.Errorf("HEAD %s: %v %v", entry.URL, head, err)
		} else {
			head.Body.Close()
		}
		x := api(entry.Method, entry.Path, r.Raw)
		answer := c.send(x, true)
		if answer.Status != http.StatusOK {
			t.Fatalf("%s sent to %s %s: %d %s", entry.Name, entry.Method, entry.Path, answer.Status, answer.Raw)
		}
		switch entry.Flow {
		case "frictionless":
			if answer.Str("status") != "Y" {
				t.Errorf("%s: status %q, want Y", entry.Name, answer.Str("status"))
			}
		case "challenge":
			if answer.Str("status") != "C" || !strings.HasPrefix(answer.Str("hostedChallengeUrl"), e.URL+"/") {
				t.Errorf("%s: status %q, hostedChallengeUrl %q, want a challenge", entry.Name, answer.Str("status"), answer.Str("hostedChallengeUrl"))
			}
		case "3ri":
			if answer.Str("status") != "Y" || answer.Str("hostedChallengeUrl") != "" || entry.Path != "/authentication/3ri" {
				t.Errorf("%s: want a 3RI answer Y without a challenge: %s", entry.Name, answer.Raw)
			}
		case "collection":
			if answer.Str("ddcId") == "" || answer.Str("threeDSMethodUrl") == "" {
				t.Errorf("%s: want a ddcId and a 3DS Method: %s", entry.Name, answer.Raw)
			}
		case "enquiry":
			if answer.Str("transactionStatus") != "Y" || answer.Str("externalReferenceId") != examples.FrictionlessReference {
				t.Errorf("%s: want the frictionless sample's transaction: %s", entry.Name, answer.Raw)
			}
		default:
			t.Errorf("%s: unknown flow %q", entry.Name, entry.Flow)
		}
	}
	for _, f := range []string{"frictionless", "challenge", "3ri", "collection"} {
		if !flows[f] {
			t.Errorf("no sample of the %s flow", f)
		}
	}

	r := e.call(http.MethodGet, "/examples/nothing.json", "", nil)
	if r.Status != http.StatusNotFound || r.Str("errorCode") != "RT04" {
		t.Errorf("an unknown sample: %d %s, want 404 RT04", r.Status, r.Raw)
	}
	if r := e.call(http.MethodPost, "/examples/lookup.json", "tok", "{}"); r.Status != http.StatusMethodNotAllowed {
		t.Errorf("POST to a sample: %d, want 405", r.Status)
	}
}
