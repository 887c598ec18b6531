//go:build full

package e2e

import (
	"html"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestCardNumbersUnderAnyName: card numbers sent under names other than
// cardNumber (card_number, CardNumber, PAN, accountNumber, an enquiry's
// unknown field, inside a note, in groups of four) are kept masked, in
// memory and in Redis: the console of another replica shows each with its
// first six and last four digits only.
func TestCardNumbersUnderAnyName(t *testing.T) {
	t.Parallel()
	clear := map[string]string{ // card number -> how the console shows it
		"4000000000009003":    "400000******9003",
		"4111111111111111":    "411111******1111",
		"5200000000009008":    "520000******9008",
		"371449635398431":     "371449*****8431",
		"6011000000000000001": "601100*********0001",
		"4222222222222":       "422222***2222",
		"5555 5555 5555 4444": "5555 55** **** 4444",
	}
	body := testkit.LookupBody(t, "4000000000009003", func(m map[string]any) {
		card := m["card"].(map[string]any)
		card["card_number"] = "4111111111111111"
		card["CardNumber"] = "5200000000009008"
		m["PAN"] = "5555 5555 5555 4444"
		m["accountNumber"] = "6011000000000000001"
		m["merchantNote"] = "stored card 371449635398431 on file"
	})
	check := func(t *testing.T, lookupOn, consoleOn *program) {
		t.Helper()
		id := lookupOn.lookup(t, body).Str("threeDsServerTransId")
		enq := testkit.Call(t, http.MethodPost, lookupOn.URL+"/enquiry/", testToken,
			map[string]any{"threeDsServerTransId": id, "cardAlias": "4222222222222"})
		if enq.Status != http.StatusOK {
			t.Fatalf("enquiry with an unknown field: %d %s", enq.Status, enq.Raw)
		}
		// Over Redis the journal shows the enquiry on the other replica a
		// moment later: the page is read again until it does.
		browser := consoleClient(t, consoleOn)
		var page string
		status := 0
		if !testkit.Within(testkit.Patience, func() bool {
			resp, err := browser.Get(consoleOn.URL + "/console/transactions/" + id)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			status, page = resp.StatusCode, html.UnescapeString(string(raw))
			return status == http.StatusOK && strings.Contains(page, "cardAlias")
		}) {
			t.Fatalf("console page of %s: HTTP %d without the enquiry's body\n%.500s", id, status, page)
		}
		for pan, masked := range clear {
			if strings.Contains(page, pan) {
				t.Errorf("the console shows card number %s in clear", pan)
			}
			if !strings.Contains(page, masked) {
				t.Errorf("the console does not show %s masked as %s", pan, masked)
			}
		}
	}
	t.Run("memory", func(t *testing.T) {
		p := startDefault(t)
		check(t, p, p)
	})
	t.Run("redis", func(t *testing.T) {
		srv := testkit.StartRedis(t, testkit.RedisOptions{})
		a, b := startReplica(t, srv), startReplica(t, srv)
		check(t, a, b)
	})
}
