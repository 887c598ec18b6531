package templates

import (
	"strings"
	"testing"
)

// consoleLayout is the layout of the console views of the tests.
func consoleLayout(active string) ConsoleLayout {
	return ConsoleLayout{Nonce: "n0nce", Base: "/3ds", Title: "Console page", Active: active, LoggedIn: true, Namespace: "0a1b2c3d4e5f6071"}
}

func init() {
	// The console's pages join the representative views every page test
	// runs over.
	views[PageConsoleCards] = ConsoleCards{ConsoleLayout: consoleLayout("cards"), Total: 1, Shown: 1, Groups: []CardGroup{{
		Scheme: "VISA", Flow: "frictionless",
		Cards: []CardRow{{ID: "visa-y", Number: "4000000000001000", Status: "Y", ECI: "05", Version: "2.2.0", Description: "Authenticated", Search: "visa y"}},
	}}}
	views[PageConsoleTransactions] = ConsoleTransactions{ConsoleLayout: consoleLayout("transactions"), Limit: 200, Version: 3,
		Rows: []TransactionRow{{ID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e", Href: "/3ds/console/transactions/8a880dc0-d2d2-4067-bcb1-b08d1690b26e", Status: "Y", MaskedPAN: "400000******1000"}}}
	views[PageConsoleTransaction] = ConsoleTransaction{ConsoleLayout: consoleLayout("transactions"), ListHref: "/3ds/console/transactions",
		Row:    TransactionRow{ID: "8a880dc0-d2d2-4067-bcb1-b08d1690b26e", Status: "Y"},
		Events: []TransactionEvent{{Kind: "lookup", Label: "Lookup", Status: "Y", Request: "{\n  \"a\": 1\n}", Response: "{}"}}}
	views[PageConsoleLogin] = ConsoleLogin{ConsoleLayout: consoleLayout("login"), Error: "token not accepted"}
	views[PageConsoleDemo] = ConsoleDemo{ConsoleLayout: consoleLayout("demo"), Selected: "4000000000001000",
		Cards:  []DemoCardGroup{{Scheme: "VISA", Cards: []DemoCard{{Number: "4000000000001000", Label: "Y"}}}},
		Config: DemoConfig{LookupURL: "/3ds/console/demo/lookup", NextSteps: map[string]string{"Y": "Authorise"}}}
	views[PageConsoleNotify] = ConsoleNotify{Nonce: "n0nce", Base: "/3ds", TransStatus: "Y", CRes: "eyJ", Session: "s"}
	views[PageLanding] = Landing{Nonce: "n0nce", Base: "/3ds", PublicURL: "http://localhost:8080/3ds",
		Links: []LandingLink{{Name: "Console", Href: "/3ds/console/", About: "The test cards"}},
		Docs:  []LandingLink{{Name: "Documentation", Href: "/3ds/docs/"}, {Name: "Configuration", Href: "/3ds/docs/configuration"}},
		Packs: []LandingPack{{Pack: "defaults", Title: "Our own test cards", Cards: 1, Groups: []CardGroup{{Pack: "defaults", Scheme: "VISA", Flow: "frictionless",
			Cards: []CardRow{{ID: "visa-y", Number: "4000000000001000", Status: "Y", Description: "Authenticated"}}}}}}}
	views[PageConsoleMessage] = ConsoleMessage{ConsoleLayout: consoleLayout("transactions"), Message: "Not found", Link: "/3ds/console/", LinkText: "Back"}
}

func TestConsoleNavigationMarksTheActivePage(t *testing.T) {
	tests := []struct {
		page   string
		active string
	}{
		{PageConsoleCards, "/3ds/console/"},
		{PageConsoleTransactions, "/3ds/console/transactions"},
		{PageConsoleDemo, "/3ds/console/demo"},
	}
	for _, tt := range tests {
		doc, _ := render(t, tt.page, views[tt.page])
		cur := doc.Find(`nav a[aria-current="page"]`)
		if got := cur.Length(); got != 1 {
			t.Errorf("%s: %d current navigation entries, want 1", tt.page, got)
			continue
		}
		if got := cur.AttrOr("href", ""); got != tt.active {
			t.Errorf("%s: current entry links %q, want %q", tt.page, got, tt.active)
		}
	}
}

func TestConsoleDemoConfigIsJSONInTheScript(t *testing.T) {
	v := views[PageConsoleDemo].(ConsoleDemo)
	v.Config.AcceptHeader = `</script><script>alert(1)</script>`
	doc, raw := render(t, PageConsoleDemo, v)
	cfg := doc.Find("script#demo-config").Text()
	if !strings.Contains(cfg, `"lookupUrl":"/3ds/console/demo/lookup"`) {
		t.Errorf("demo config lacks the lookup URL: %s", cfg)
	}
	if strings.Contains(raw, "<script>alert(1)") {
		t.Errorf("a browser's Accept header closed the config's script element")
	}
}

func TestConsoleNotifyCarriesTheCRes(t *testing.T) {
	v := ConsoleNotify{Nonce: "n0nce", TransStatus: "Y", CRes: `"><img src=x>`, Session: "s&1", ThreeDSServerTransID: "id"}
	doc, _ := render(t, PageConsoleNotify, v)
	d := doc.Find("#cres")
	for name, want := range map[string]string{"data-cres": v.CRes, "data-session": v.Session, "data-status": "Y", "data-id": "id"} {
		if got := d.AttrOr(name, ""); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if got := doc.Find("img").Length(); got != 0 {
		t.Errorf("the CRes injected %d img elements", got)
	}
}
