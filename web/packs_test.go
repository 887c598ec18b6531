package web_test

import (
	"net/http"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// cardinalCase is what one of Cardinal Commerce's numbered EMV 3DS test
// cases promises, as its sandbox publishes it.
type cardinalCase struct {
	name     string
	status   string // final transStatus; "" for an error on lookup
	httpCode int    // for errors on lookup
	visaECI  string
	mcECI    string
	cavv     bool
	stepUp   bool // status C first, then the final status
	cards    [4]string
}

// cardinalCases is the Cardinal table: per case the Visa 2.1.0, Visa
// 2.2.0, Mastercard 2.1.0 and Mastercard 2.2.0 cards.
var cardinalCases = []cardinalCase{
	{"successful frictionless", "Y", 0, "05", "02", true, false, [4]string{"4000000000001000", "4000000000002701", "5200000000001005", "5200000000002235"}},
	{"failed frictionless", "N", 0, "07", "00", false, false, [4]string{"4000000000001018", "4000000000002925", "5200000000001013", "5200000000002276"}},
	{"attempts stand-in", "A", 0, "06", "01", true, false, [4]string{"4000000000001026", "4000000000002719", "5200000000001021", "5200000000002482"}},
	{"unavailable", "U", 0, "07", "00", false, false, [4]string{"4000000000001034", "4000000000002313", "5200000000001039", "5200000000002268"}},
	{"rejected", "R", 0, "07", "00", false, false, [4]string{"4000000000001042", "4000000000002537", "5200000000001047", "5200000000002185"}},
	{"authentication not available on lookup", "U", 0, "07", "00", false, false, [4]string{"4000000000001059", "4000000000002990", "5200000000001054", "5200000000002409"}},
	{"error on lookup", "", http.StatusInternalServerError, "", "", false, false, [4]string{"4000000000001067", "4000000000002446", "5200000000001062", "5200000000002037"}},
	{"timeout on lookup", "", http.StatusGatewayTimeout, "", "", false, false, [4]string{"4000000000001075", "4000000000002354", "5200000000001070", "5200000000002326"}},
	{"successful step-up", "Y", 0, "05", "02", true, true, [4]string{"4000000000001091", "4000000000002503", "5200000000001096", "5200000000002151"}},
	{"failed step-up", "N", 0, "07", "00", false, true, [4]string{"4000000000001109", "4000000000002370", "5200000000001104", "5200000000002490"}},
	{"step-up unavailable", "U", 0, "07", "00", false, true, [4]string{"4000000000001117", "4000000000002420", "5200000000001112", "5200000000002664"}},
	{"error on authentication", "U", 0, "07", "00", false, true, [4]string{"4000000000001125", "4000000000002644", "5200000000001120", "5200000000002656"}},
	{"bypassed", "U", 0, "07", "00", false, false, [4]string{"4000000000001083", "4000000000002560", "5200000000001088", "5200000000002508"}},
}

// TestCardinalPack sends every card of the Cardinal-compatible pack
// through HTTP and checks its status, ECI, CAVV presence and version. The
// four timeout cards wait 10s each, in parallel.
func TestCardinalPack(t *testing.T) {
	e := newEnv(t)
	versions := [4]string{"2.1.0", "2.2.0", "2.1.0", "2.2.0"}
	for _, c := range cardinalCases {
		for i, card := range c.cards {
			t.Run(c.name+"/"+card, func(t *testing.T) {
				if c.httpCode == http.StatusGatewayTimeout {
					if testing.Short() {
						t.Skip("10s timeout card in -short mode")
					}
					t.Parallel()
				}
				r := e.lookup("tok", testkit.LookupBody(t, card, nil))
				if c.httpCode != 0 {
					wantEMV := map[int]string{500: "404", 504: "402"}[c.httpCode]
					checkErrorBody(t, r, c.httpCode, wantEMV)
					return
				}
				if r.Status != http.StatusOK {
					t.Fatalf("lookup: %d %s", r.Status, r.Raw)
				}
				if got := r.Str("version"); got != versions[i] {
					t.Errorf("version = %s, want %s", got, versions[i])
				}
				id := r.Str("threeDsServerTransId")
				if c.stepUp {
					if r.Str("status") != "C" || r.Str("eci") != "" {
						t.Fatalf("step-up lookup: %s", r.Raw)
					}
					if d := e.call(http.MethodPost, "/challenge/"+id, "tok", map[string]any{"action": "otp", "otp": "1234"}); d.Status != http.StatusOK {
						t.Fatalf("challenge: %d %s", d.Status, d.Raw)
					}
				}
				q := e.enquiry("tok", map[string]any{"threeDsServerTransId": id})
				eci := c.visaECI
				if i >= 2 {
					eci = c.mcECI
				}
				if q.Str("transactionStatus") != c.status || q.Str("eci") != eci || (len(q.Str("authenticationValue")) == 28) != c.cavv {
					t.Errorf("enquiry: status %q eci %q cavv %q; want %s, %s, cavv %v", q.Str("transactionStatus"), q.Str("eci"), q.Str("authenticationValue"), c.status, eci, c.cavv)
				}
				if !c.stepUp && (r.Str("status") != c.status || r.Str("eci") != eci) {
					t.Errorf("lookup: status %q eci %q; want %s, %s", r.Str("status"), r.Str("eci"), c.status, eci)
				}
			})
		}
	}
}

// TestEveryReasonReachable: each transStatusReason 01-26 comes out of some
// default card.
func TestEveryReasonReachable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	seen := map[string]bool{}
	for _, sc := range e.Cat.All() {
		if sc.Pack != "reasons" || sc.Match.CardNumber == "" || sc.Frictionless == nil {
			continue
		}
		r := e.lookup("tok", testkit.LookupBody(t, sc.Match.CardNumber, nil))
		if r.Status != http.StatusOK || r.Str("statusReason") != sc.Frictionless.Reason {
			t.Errorf("%s: %s", sc.ID, r.Raw)
		}
		seen[r.Str("statusReason")] = true
	}
	for i := 1; i <= 26; i++ {
		code := string(rune('0'+i/10)) + string(rune('0'+i%10))
		if !seen[code] {
			t.Errorf("no default card yields reason %s", code)
		}
	}
}

// TestInformationalOnRequest: the Y card answers I when the Requestor asks
// for no challenge (challengeInd 2), and 2.1.0 (which has no I) gets Y.
func TestInformationalOnRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	card := e.card("visa-frictionless-y")
	tests := []struct {
		ind     int
		version string
		want    string
	}{
		{1, "2.2.0", "Y"},
		{2, "2.2.0", "I"},
		{2, "2.1.0", "Y"},
	}
	for _, tt := range tests {
		r := e.lookup("tok", testkit.LookupBody(t, card, func(m map[string]any) {
			m["threeDsRequestorChallengeInd"] = tt.ind
			m["messageVersion"] = tt.version
		}))
		if r.Str("status") != tt.want || r.Str("version") != tt.version {
			t.Errorf("challengeInd %d on %s: status %s version %s, want %s", tt.ind, tt.version, r.Str("status"), r.Str("version"), tt.want)
		}
	}
}

// TestWhiteListOnRequest: whiteListStatus comes back only when the
// Requestor asks for merchant whitelisting (requestFeatures 2) on 2.2.0.
func TestWhiteListOnRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	card := e.card("visa-frictionless-y")
	tests := []struct {
		features           int
		version            string
		wantStatus, source string
	}{
		{0, "2.2.0", "", ""},
		{2, "2.2.0", "U", "03"},
		{2, "2.1.0", "", ""},
	}
	for _, tt := range tests {
		r := e.lookup("tok", testkit.LookupBody(t, card, func(m map[string]any) {
			m["requestFeatures"] = tt.features
			m["messageVersion"] = tt.version
		}))
		q := e.enquiry("tok", map[string]any{"threeDsServerTransId": r.Str("threeDsServerTransId")})
		for _, got := range []result{r, q} {
			if got.Str("whiteListStatus") != tt.wantStatus || got.Str("whiteListStatusSource") != tt.source {
				t.Errorf("requestFeatures %d on %s: whiteList %q/%q, want %q/%q", tt.features, tt.version,
					got.Str("whiteListStatus"), got.Str("whiteListStatusSource"), tt.wantStatus, tt.source)
			}
		}
	}
}
