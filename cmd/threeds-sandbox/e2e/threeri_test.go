//go:build full

package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
	"github.com/threeds-sandbox/threeds-sandbox/web/callback"
)

// TestThreeRIRecurringAfterBrowser, against the built binary: a
// subscription's first charge authenticates in the browser (a challenge
// passed), the next is a 3RI lookup naming it by its acsTransId. The 3RI
// answer is final at once (Y, with a CAVV, no challenge), the enquiry
// says the same without interactionCounter, the result callback arrives
// signed, ?wait=final returns it with its channel, and a prior of another
// token is refused with the error body.
func TestThreeRIRecurringAfterBrowser(t *testing.T) {
	t.Parallel()
	p := startDefault(t)
	const token = "e2e-3ri"
	receiver, got := answeringReceiver(t)
	register(t, p.URL, token, receiver)

	first := testkit.Call(t, http.MethodPost, p.URL+"/authentication/brw", token, testkit.LookupBody(t, "4000000000009102", nil))
	if first.Status != http.StatusOK || first.Str("status") != "C" {
		t.Fatalf("browser lookup: %d %s", first.Status, first.Raw)
	}
	if r := testkit.Call(t, http.MethodPost, p.URL+"/challenge/"+first.Str("threeDsServerTransId"), token,
		map[string]any{"action": "otp", "otp": "1234"}); r.Status != http.StatusOK || r.Str("transStatus") != "Y" {
		t.Fatalf("challenge: %d %s", r.Status, r.Raw)
	}

	body := testkit.ThreeRIBody(t, "4000000000009003", func(m map[string]any) {
		m["externalReferenceId"] = "e2e-renewal-1"
		m["threeDsRequestorPriorAuthenticationInfo"] = map[string]any{"threeDsReqPriorRef": first.Str("acsTransId"),
			"threeDsReqPriorAuthMethod": "02", "threeDsReqPriorAuthTimestamp": time.Now().UTC().Format("200601021504")}
	})
	r := testkit.Call(t, http.MethodPost, p.URL+"/authentication/3ri", token, body)
	if r.Status != http.StatusOK || r.Str("status") != "Y" || len(r.Str("authenticationValue")) != 28 || r.Str("eci") != "05" ||
		r.Str("hostedChallengeUrl") != "" || r.Header.Get("X-Scenario-Id") != "visa-frictionless-y" {
		t.Fatalf("3RI lookup: %d %s", r.Status, r.Raw)
	}
	id := r.Str("threeDsServerTransId")

	q := testkit.Call(t, http.MethodPost, p.URL+"/enquiry/", token, map[string]any{"externalReferenceId": "e2e-renewal-1"})
	if q.Status != http.StatusOK || q.Str("transactionStatus") != "Y" || q.Str("authenticationValue") != r.Str("authenticationValue") ||
		q.Str("acsTransactionId") != r.Str("acsTransId") || q.Str("threeDsServerTransId") != id {
		t.Errorf("enquiry: %d %s", q.Status, q.Raw)
	}
	if _, ok := q.Body["interactionCounter"]; ok {
		t.Errorf("a 3RI enquiry with an interactionCounter: %s", q.Raw)
	}

	a, ok := awaitDelivery(t, got, id, testkit.Patience)
	if !ok {
		t.Fatalf("no callback of the 3RI transaction within %s", testkit.Patience)
	}
	var cb map[string]any
	if err := json.Unmarshal(a.body, &cb); err != nil || cb["transactionStatus"] != "Y" || cb["threeDsServerTransId"] != id {
		t.Errorf("callback body %s: %v", a.body, err)
	}
	if a.header.Get(callback.SignatureHeader) == "" {
		t.Error("the callback is not signed")
	}

	w := testkit.Call(t, http.MethodGet, p.URL+"/admin/transactions/"+id+"?wait=final&timeout=30s", token, nil)
	if w.Status != http.StatusOK || w.Body["final"] != true || w.Str("channel") != "3ri" || w.Str("threeRIInd") != "01" {
		t.Errorf("wait=final: %d %s", w.Status, w.Raw)
	}

	other := testkit.Call(t, http.MethodPost, p.URL+"/authentication/3ri", "e2e-3ri-other", body)
	if other.Status != http.StatusNotFound || other.Str("errorCode") != "TX01" ||
		other.EMV("emvErrorDetail") != "threeDsRequestorPriorAuthenticationInfo.threeDsReqPriorRef" {
		t.Errorf("another token's prior: %d %s", other.Status, other.Raw)
	}
}
