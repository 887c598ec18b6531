package wire

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
)

func TestDecodeDDC(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    message.DDCRequest
		ignored []string
	}{
		{"minimal", `{"card": {"cardNumber": "4000000000009409"}, "threeDSMethodNotificationURL": "https://shop.example/m"}`,
			message.DDCRequest{Card: message.Card{CardNumber: "4000000000009409"}, NotificationURL: "https://shop.example/m"}, nil},
		{"with reference and card details", `{"card": {"cardNumber": "4000000000009409", "expiryDate": "2912", "cardholderName": "Ada L"}, "threeDSMethodNotificationURL": "http://localhost:3000/m?x=1", "externalReferenceId": "ORD-1"}`,
			message.DDCRequest{Card: message.Card{CardNumber: "4000000000009409", ExpiryDate: "2912", CardholderName: "Ada L"},
				NotificationURL: "http://localhost:3000/m?x=1", ExternalReferenceID: "ORD-1"}, nil},
		{"unknown field ignored", `{"card": {"cardNumber": "4000000000009409"}, "threeDSMethodNotificationURL": "https://shop.example/m", "browserInfo": {}}`,
			message.DDCRequest{Card: message.Card{CardNumber: "4000000000009409"}, NotificationURL: "https://shop.example/m"}, []string{"browserInfo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ignored, err := DecodeDDC([]byte(tt.body))
			if err != nil {
				t.Fatalf("DecodeDDC: %v", err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if !reflect.DeepEqual(ignored, tt.ignored) {
				t.Errorf("ignored = %v, want %v", ignored, tt.ignored)
			}
		})
	}
}

func TestDecodeDDCProblems(t *testing.T) {
	const url = `"threeDSMethodNotificationURL": "https://shop.example/m"`
	const card = `"card": {"cardNumber": "4000000000009409"}`
	tests := []struct {
		name, body string
		code       string
		field      string
	}{
		{"no card", `{` + url + `}`, "201", "card"},
		{"no card number", `{"card": {}, ` + url + `}`, "201", "card.cardNumber"},
		{"card number with letters", `{"card": {"cardNumber": "4000x00000009409"}, ` + url + `}`, "203", "card.cardNumber"},
		{"no notification URL", `{` + card + `}`, "201", "threeDSMethodNotificationURL"},
		{"relative notification URL", `{` + card + `, "threeDSMethodNotificationURL": "/m"}`, "203", "threeDSMethodNotificationURL"},
		{"javascript notification URL", `{` + card + `, "threeDSMethodNotificationURL": "javascript:alert(1)"}`, "203", "threeDSMethodNotificationURL"},
		{"notification URL too long", `{` + card + `, "threeDSMethodNotificationURL": "https://s.example/` + long("a", MaxMethodNotificationURL) + `"}`, "203", "threeDSMethodNotificationURL"},
		{"notification URL a number", `{` + card + `, "threeDSMethodNotificationURL": 1}`, "203", "threeDSMethodNotificationURL"},
		{"reference too long", `{` + card + `, ` + url + `, "externalReferenceId": "` + long("r", 51) + `"}`, "203", "externalReferenceId"},
		{"duplicate URL", `{` + card + `, ` + url + `, ` + url + `}`, "204", "threeDSMethodNotificationURL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := DecodeDDC([]byte(tt.body))
			e := asError(t, err)
			if len(e.Problems) != 1 || !hasProblem(e, tt.code, tt.field) {
				t.Fatalf("problems = %+v, want one %s on %s", e.Problems, tt.code, tt.field)
			}
		})
	}
	for _, body := range []string{``, `[]`, `{"card": `, `card=4000000000009409`} {
		if _, _, err := DecodeDDC([]byte(body)); asError(t, err).EMVCode != "101" {
			t.Errorf("body %q: %v, want 101", body, err)
		}
	}
}

// TestDecodeLookupThreeDSCompInd checks the lookup's optional
// threeDSCompInd: Y, N or U.
func TestDecodeLookupThreeDSCompInd(t *testing.T) {
	base := string(baseBody(t))
	for _, v := range []string{"Y", "N", "U"} {
		req, _, err := DecodeLookup([]byte(strings.Replace(base, "{", `{"threeDSCompInd": "`+v+`",`, 1)))
		if err != nil || req.ThreeDSCompInd != v {
			t.Errorf("threeDSCompInd %s: %q, %v", v, req.ThreeDSCompInd, err)
		}
	}
	if req, _, err := DecodeLookup([]byte(base)); err != nil || req.ThreeDSCompInd != "" {
		t.Errorf("absent: %q, %v", req.ThreeDSCompInd, err)
	}
	// An empty value is absent, as for every optional string.
	if req, _, err := DecodeLookup([]byte(strings.Replace(base, "{", `{"threeDSCompInd": "",`, 1))); err != nil || req.ThreeDSCompInd != "" {
		t.Errorf("empty: %q, %v", req.ThreeDSCompInd, err)
	}
	for _, bad := range []string{`"y"`, `"YES"`, `1`} {
		_, _, err := DecodeLookup([]byte(strings.Replace(base, "{", `{"threeDSCompInd": `+bad+`,`, 1)))
		if e := asError(t, err); !hasProblem(e, "203", "threeDSCompInd") {
			t.Errorf("threeDSCompInd %s: problems %+v, want 203", bad, e.Problems)
		}
	}
}

func TestAppendDDCResponseMatchesEncodingJSON(t *testing.T) {
	for _, s := range tricky {
		var r message.DDCResponse
		fill(&r, func(i int) string { return s + string(rune('a'+i)) })
		r.ScenarioID = "" // not a member
		if got, want := AppendDDCResponse(nil, &r, ""), stdEncode(t, r); !bytes.Equal(got, want) {
			t.Errorf("AppendDDCResponse(%q):\n got %s\nwant %s", s, got, want)
		}
	}
	r := message.DDCResponse{DDCID: "ddc-1", ThreeDSServerTransID: "1", MethodURL: "u", MethodData: "d"}
	if got := string(AppendDDCResponse(nil, &r, "<p>\"x\"</p>")); !strings.Contains(got, `"threeDSMethodData":"d","threeDSMethodHtml":"<p>\"x\"</p>"}`) {
		t.Errorf("threeDSMethodHtml: %s", got)
	}
}

func TestAppendEnquiryWithMethodMatchesEncodingJSON(t *testing.T) {
	for _, s := range tricky {
		var e message.EnquiryResponse
		fill(&e, func(i int) string { return s + string(rune('a'+i)) })
		for _, avail := range []bool{true, false} {
			m := message.MethodTimeline{Available: avail}
			fill(&m, func(i int) string {
				if i == 2 {
					return "" // a step not reached
				}
				return s + string(rune('A'+i))
			})
			e.ThreeDSMethod = &m
			if got, want := AppendEnquiryResponse(nil, &e), stdEncode(t, e); !bytes.Equal(got, want) {
				t.Errorf("AppendEnquiryResponse with a method (%q):\n got %s\nwant %s", s, got, want)
			}
		}
	}
}

func FuzzDecodeDDC(f *testing.F) {
	for _, s := range []string{
		`{"card": {"cardNumber": "4000000000009409"}, "threeDSMethodNotificationURL": "https://shop.example/m"}`,
		`{"card": {"cardNumber": "4000000000009409", "cardholderName": "A B"}, "threeDSMethodNotificationURL": "http://h/m", "externalReferenceId": "r"}`,
		`{"card": {}, "threeDSMethodNotificationURL": "/m", "x": [1, {"y": 2}]}`,
		`{"card": null}`, `{}`, `null`, ``, `{"card": {"cardNumber": 4}, "card": 1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r1, ig1, err := DecodeDDC(body)
		if err != nil {
			checkError(t, body, err)
			return
		}
		if r1.Card.CardNumber == "" || r1.NotificationURL == "" {
			t.Fatalf("body %q: accepted without a card number or notification URL: %+v", body, r1)
		}
		r2, ig2, err := DecodeDDC(body)
		if err != nil || r1 != r2 || !reflect.DeepEqual(ig1, ig2) {
			t.Fatalf("body %q: second decode differs: %+v, %v", body, r2, err)
		}
	})
}
