package templates

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// postedMessage finds the string literal the outcome page posts to its
// parent window.
var postedMessage = regexp.MustCompile(`window\.parent\.postMessage\(("(?:[^"\\]|\\.)*"),`)

func init() {
	views[PageDDCMethod] = DDCMethod{Nonce: "n0nce", DDCID: "6b0cbd4f", ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e",
		MethodURL: "https://sandbox.example/acs/method", MethodData: "eyJ0aHJlZURTU2VydmVyVHJhbnNJRCI6IngifQ",
		CompleteURL: "https://sandbox.example/V2/ddcCollect/complete", State: "c3RhdGU", TimeoutMS: 10000, TimeoutSeconds: 10}
	views[PageDDCMethodNotify] = DDCMethodNotify{Nonce: "n0nce", ThreeDSServerTransID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"}
	views[PageDDCCallback] = DDCCallback{Nonce: "n0nce", Status: "completed", CallbackURL: "https://shop.example/ddc-callback",
		Fields:       []Field{{"ddcId", "6b0cbd4f"}, {"status", "completed"}, {"threeDSCompInd", "Y"}},
		Message:      `{"MessageType":"profile.completed","Payload":{"ActionCode":"SUCCESS","SessionId":"6b0cbd4f"},"SessionId":"6b0cbd4f","Status":true}`,
		TargetOrigin: "https://shop.example"}
}

// TestDDCPages: the capture pages run the method in a named, hidden
// iframe, post their forms where the view says, and hand the parent a
// message it can read, for its origin only, with the values escaped.
func TestDDCPages(t *testing.T) {
	doc, raw := render(t, PageDDCMethod, views[PageDDCMethod])
	if got := attr(t, doc.Find("form#threeds-method-form"), "target"); got != "threeds-method" {
		t.Errorf("method form target %q", got)
	}
	if !strings.Contains(raw, `frame.id=frame.name="threeds-method"`) || !strings.Contains(raw, "frame.hidden=true") {
		t.Error("the script makes no hidden iframe named threeds-method")
	}
	if got := attr(t, doc.Find(`form#threeds-ddc-complete input[name=state]`), "value"); got != "c3RhdGU" {
		t.Errorf("state %q", got)
	}
	if !strings.Contains(raw, "setTimeout(complete, 10000 )") && !strings.Contains(raw, "setTimeout(complete,10000)") && !strings.Contains(raw, "setTimeout(complete, 10000)") {
		t.Errorf("no ten-second timer in:\n%s", raw)
	}

	cb := views[PageDDCCallback].(DDCCallback)
	cb.Fields = append(cb.Fields, Field{"error", `"><script>alert(1)</script>`})
	cb.Message = strings.Replace(cb.Message, `"Status":true`, `"Status":false,"error":"</script><script>alert(1)</script>"`, 1)
	doc, raw = render(t, PageDDCCallback, cb)
	if got := attr(t, doc.Find("form#threeds-ddc-callback"), "action"); got != "https://shop.example/ddc-callback" {
		t.Errorf("callback form action %q", got)
	}
	if got := doc.Find(`form#threeds-ddc-callback input[name=threeDSCompInd]`).AttrOr("value", ""); got != "Y" {
		t.Errorf("threeDSCompInd %q", got)
	}
	if strings.Contains(raw, "<script>alert(1)") {
		t.Errorf("a value escaped its context:\n%s", raw)
	}
	if !strings.Contains(raw, `"https://shop.example"`) {
		t.Errorf("the message's target origin is missing:\n%s", raw)
	}
	// The message is a JavaScript string holding the JSON text, whole.
	lit := postedMessage.FindStringSubmatch(raw)
	var text string
	if lit == nil || json.Unmarshal([]byte(lit[1]), &text) != nil || text != cb.Message {
		t.Errorf("the page posts %q, want the string %q", lit, cb.Message)
	}
	noURL := cb
	noURL.CallbackURL, noURL.Failed, noURL.Status, noURL.Error, noURL.TargetOrigin = "", true, "failed", "jwt: bad signature", "*"
	doc, _ = render(t, PageDDCCallback, noURL)
	if doc.Find("form#threeds-ddc-callback").Length() != 0 || doc.Find("#ddc-error").Text() != "jwt: bad signature" {
		t.Error("without a callbackUrl the page posts a form, or hides the error")
	}
}
