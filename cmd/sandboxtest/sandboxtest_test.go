package sandboxtest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/sandboxtest"
	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/testkit"
)

// TestOptions: the options reach the sandbox as its flags would.
func TestOptions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.yaml")
	doc := "scenarios:\n  - id: my-declined\n    match: {cardNumber: \"4111111111111111\"}\n    frictionless: {status: N, reason: \"05\"}\n"
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	sb := sandboxtest.Start(t, sandboxtest.Packs("defaults"), sandboxtest.Scenarios(file), sandboxtest.Tokens("team-a"),
		sandboxtest.Flags("--challenge-timeout", "2m"), sandboxtest.Log(&logged))
	if !strings.HasPrefix(sb.URL, "http://localhost:") {
		t.Errorf("URL %s", sb.URL)
	}
	c := sb.Client("team-a")
	res, err := c.Lookup(ctx, sandboxtest.LookupBody("4111111111111111"))
	if err != nil || res.Status != "N" || res.ScenarioID != "my-declined" || len(res.Raw) == 0 {
		t.Fatalf("lookup of the file's card: %+v, %v", res, err)
	}
	_, err = sb.Client("team-b").Lookup(ctx, sandboxtest.LookupBody("4111111111111111"))
	var e *sandboxtest.Error
	if !errors.As(err, &e) || e.Status != 401 || e.Body.ErrorCode != "AU02" || !strings.Contains(e.Error(), "AU02") {
		t.Errorf("a token not in Tokens: %v", err)
	}
	// The challenge window of Flags: opened by the hosted page, then 2m.
	ch, err := c.Lookup(ctx, sandboxtest.LookupBody("4000000000009102"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.AdvanceClock(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if q, err := c.Enquiry(ctx, ch.ThreeDSServerTransID); err != nil || q.TransactionStatus != "C" {
		t.Errorf("before its first CReq times out (10m): %+v, %v", q, err)
	}
	if !strings.Contains(logged.String(), "3-D Secure sandbox serving") {
		t.Errorf("the log did not reach Log's writer:\n%s", logged.String())
	}
}

// TestClient: each helper of the client, and its errors.
func TestClient(t *testing.T) {
	ctx := context.Background()
	sb := sandboxtest.Start(t)
	c := sb.NewClient()
	if c.Token == sb.NewClient().Token {
		t.Error("NewClient made the same token twice")
	}
	res, err := c.Lookup(ctx, sandboxtest.LookupBody("4000000000009102"))
	if err != nil || res.Status != "C" || res.HostedChallengeURL == "" || res.ChallengeHTML == "" {
		t.Fatalf("lookup: %+v, %v", res, err)
	}
	if tx, err := c.Wait(ctx, res.ThreeDSServerTransID, 100*time.Millisecond); err != nil || tx.Final || tx.Status != "C" {
		t.Errorf("a wait that times out: %+v, %v", tx, err)
	}
	if r, err := c.EnterOTP(ctx, res.ThreeDSServerTransID, "0001"); err != nil || r.Final {
		t.Errorf("a wrong code: %+v, %v", r, err)
	}
	if r, err := c.CompleteChallenge(ctx, res.ThreeDSServerTransID, sandboxtest.Cancel); err != nil || !r.Final || r.TransStatus != "N" {
		t.Errorf("cancel: %+v, %v", r, err)
	}
	if q, err := c.EnquiryByReference(ctx, res.ExternalReferenceID); err != nil || q.ChallengeCancel != "01" {
		t.Errorf("enquiry by reference: %+v, %v", q, err)
	}
	page, err := c.Transactions(ctx, sandboxtest.Query{Status: "N", Since: time.Now().Add(-time.Hour), Limit: 1, ScenarioID: "visa-challenge"})
	if err != nil || len(page.Transactions) != 1 || page.Transactions[0].ChallengeCancel != "01" {
		t.Errorf("transactions: %+v, %v", page, err)
	}
	clock, err := c.Clock(ctx)
	if err != nil || clock.Offset != "0s" {
		t.Errorf("clock: %+v, %v", clock, err)
	}
	if _, err := c.AdvanceClock(ctx, 31*24*time.Hour); err == nil || err.(*sandboxtest.Error).Body.ErrorCode != "AD16" {
		t.Errorf("advance beyond 30 days: %v", err)
	}
	if clock, err := c.ResetClock(ctx); err != nil || clock.OffsetSeconds != 0 {
		t.Errorf("reset: %+v, %v", clock, err)
	}
	if _, err := c.Transaction(ctx, "not-an-id"); err == nil || err.(*sandboxtest.Error).Body.EMVError.Detail != "threeDsServerTransId" {
		t.Errorf("a malformed id: %v", err)
	}
	if _, err := c.Lookup(ctx, []byte(`{"card":`)); err == nil || err.(*sandboxtest.Error).Status != 400 {
		t.Errorf("a malformed lookup: %v", err)
	}
	if _, err := c.Lookup(ctx, func() {}); err == nil {
		t.Error("a body that does not encode")
	}
}

// TestClientReset: Reset starts the token clean in one call: no
// transaction, the clock at real time.
func TestClientReset(t *testing.T) {
	ctx := context.Background()
	sb := sandboxtest.Start(t)
	c, other := sb.NewClient(), sb.NewClient()
	for _, cl := range []*sandboxtest.Client{c, other} {
		if _, err := cl.Lookup(ctx, sandboxtest.LookupBody("4000000000009102")); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.AdvanceClock(ctx, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Reset(ctx); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	for cl, kept := range map[*sandboxtest.Client]bool{c: false, other: true} {
		page, err := cl.Transactions(ctx, sandboxtest.Query{})
		if err != nil || (len(page.Transactions) == 1) != kept {
			t.Errorf("kept %v: transactions %+v, %v", kept, page, err)
		}
		if clock, err := cl.Clock(ctx); err != nil || (clock.OffsetSeconds == 3600) != kept {
			t.Errorf("kept %v: clock %+v, %v", kept, clock, err)
		}
	}
}

// TestNewRefuses: a wrong flag fails New with the sandbox's own words;
// a sandbox closes once.
func TestNewRefuses(t *testing.T) {
	if _, err := sandboxtest.New(sandboxtest.Flags("--challenge-timeout", "-1s")); err == nil || !strings.Contains(err.Error(), "challenge-timeout") {
		t.Errorf("a wrong flag: %v", err)
	}
	if _, err := sandboxtest.New(sandboxtest.Flags("stray")); err == nil {
		t.Error("an argument that is no flag")
	}
	if _, err := sandboxtest.New(sandboxtest.Packs("nope")); err == nil {
		t.Error("an unknown pack")
	}
	sb, err := sandboxtest.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sb.Close(); err == nil {
		t.Error("closed twice without an error")
	}
}

// TestPackageDocExample is the example of the package's comment, which
// go doc shows, as it is written there (checkDocExample compares them).
func TestPackageDocExample(t *testing.T) {
	checkDocExample(t)
	ctx := context.Background()
	sb := sandboxtest.Start(t, sandboxtest.Packs("defaults")) // stopped when the test ends
	c := sb.NewClient()                                       // a token of its own: a namespace no other test sees

	res, err := c.Lookup(ctx, sandboxtest.LookupBody("4000000000009102")) // or: your checkout, pointed at sb.URL
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.EnterOTP(ctx, res.ThreeDSServerTransID, "1234"); err != nil { // or: the page, in a browser
		t.Fatal(err)
	}
	tx, err := c.Wait(ctx, res.ThreeDSServerTransID, 30*time.Second) // once final
	if err != nil {
		t.Fatal(err)
	}
	ua, err := tx.Sent("lookup", "browserInfo.userAgent") // what the checkout sent
	if err != nil || tx.Status != "Y" {
		t.Fatalf("status %s, user agent %q, %v", tx.Status, ua, err)
	}
}

// checkDocExample fails t when the example of the package's comment is
// not, but for spaces, the body of TestPackageDocExample.
func checkDocExample(t *testing.T) {
	t.Helper()
	words := func(file, from, to string) string {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s := string(raw)
		i := strings.Index(s, from)
		j := strings.Index(s[i+1:], to)
		if i < 0 || j < 0 {
			t.Fatalf("%s: no %q ... %q", file, from, to)
		}
		s = strings.ReplaceAll(s[i:i+1+j], "//", "")
		return strings.Join(strings.Fields(strings.ReplaceAll(s, "checkDocExample(t)", "")), " ")
	}
	const start, end = "ctx := context.Background()", "\n}"
	doc := words("sandboxtest.go", start, "\n//\t}")
	test := words("sandboxtest_test.go", "\tcheckDocExample(t)\n\t"+start, end)
	if doc != test {
		t.Errorf("the package comment's example differs from TestPackageDocExample:\n%s\n%s", doc, test)
	}
}

// TestStyleHelpers: Resend, Approve, Decline and Select complete each
// challenge style as the page would, and the action names are the
// engine's.
func TestStyleHelpers(t *testing.T) {
	ctx := context.Background()
	sb := sandboxtest.Start(t)
	c := sb.NewClient()
	lookup := func(card string) string {
		t.Helper()
		res, err := c.Lookup(ctx, sandboxtest.LookupBody(card))
		if err != nil || res.Status != "C" {
			t.Fatalf("lookup %s: %+v, %v", card, res, err)
		}
		return res.ThreeDSServerTransID
	}
	otp := lookup("4000000000009102")
	if r, err := c.Resend(ctx, otp); err != nil || r.Final || !strings.Contains(r.Message, "new code") {
		t.Errorf("resend: %+v, %v", r, err)
	}
	if r, err := c.Approve(ctx, lookup("4000000000009300")); err != nil || !r.Final || r.TransStatus != "Y" {
		t.Errorf("approve: %+v, %v", r, err)
	}
	if r, err := c.Decline(ctx, lookup("5200000000009305")); err != nil || !r.Final || r.TransStatus != "N" {
		t.Errorf("decline: %+v, %v", r, err)
	}
	if r, err := c.CompleteChallenge(ctx, lookup("4000000000009300"), sandboxtest.Continue); err != nil || r.Final {
		t.Errorf("continue before the app: %+v, %v", r, err)
	}
	multi := lookup("4000000000009334")
	if r, err := c.Select(ctx, multi, "Sandbox Coffee"); err != nil || r.Final {
		t.Errorf("half the answer: %+v, %v", r, err)
	}
	if r, err := c.Select(ctx, multi, "Sandbox Coffee", "Demo Books"); err != nil || !r.Final || r.TransStatus != "Y" {
		t.Errorf("select: %+v, %v", r, err)
	}
	if _, err := c.Select(ctx, lookup("4000000000009326")); err == nil {
		t.Error("select without choices was accepted")
	}
	for _, a := range []sandboxtest.Action{sandboxtest.Pass, sandboxtest.Fail, sandboxtest.Cancel, sandboxtest.Resend,
		sandboxtest.Approve, sandboxtest.Decline, sandboxtest.Continue} {
		if !emulator.IsChoiceAction(string(a)) {
			t.Errorf("sandboxtest.Action %q is not one of the engine's", a)
		}
	}
}

// TestLogFlags: the log reaches Log's writer as --log-level and
// --log-format say, a line per request by default.
func TestLogFlags(t *testing.T) {
	for _, tt := range []struct {
		flags     []string
		want, not string
	}{
		{nil, "level=INFO msg=request", ""},
		{[]string{"--log-level", "warn"}, "", "msg=request"},
		{[]string{"--log-format", "json"}, `"msg":"request"`, "level=INFO"},
	} {
		var logged testkit.Buffer
		sb, err := sandboxtest.New(sandboxtest.Flags(tt.flags...), sandboxtest.Log(&logged))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sb.NewClient().Lookup(context.Background(), sandboxtest.LookupBody("4000000000009003")); err != nil {
			t.Fatal(err)
		}
		if err := sb.Close(); err != nil {
			t.Fatal(err)
		}
		got := logged.String()
		if !strings.Contains(got, tt.want) || tt.not != "" && strings.Contains(got, tt.not) {
			t.Errorf("flags %q: the log lacks %q or holds %q:\n%s", tt.flags, tt.want, tt.not, got)
		}
	}
}

// TestClientThreeRI: a recurring 3RI lookup after a browser
// authentication, named by its acsTransId, is final at once; a challenge
// card answers U 21 on 3RI; an unknown prior is an Error.
func TestClientThreeRI(t *testing.T) {
	ctx := context.Background()
	sb := sandboxtest.Start(t)
	c := sb.NewClient()
	first, err := c.Lookup(ctx, sandboxtest.LookupBody("4000000000009003"))
	if err != nil || first.Status != "Y" || first.ACSTransID == "" {
		t.Fatalf("browser lookup: %+v, %v", first, err)
	}
	body := sandboxtest.ThreeRIBody("4000000000009003", first.ACSTransID)
	body["externalReferenceId"] = "renewal-1"
	res, err := c.ThreeRI(ctx, body)
	if err != nil || res.Status != "Y" || res.AuthenticationValue == "" || res.HostedChallengeURL != "" || res.ScenarioID != "visa-frictionless-y" {
		t.Fatalf("3RI lookup: %+v, %v", res, err)
	}
	tx, err := c.Wait(ctx, res.ThreeDSServerTransID, time.Minute)
	if err != nil || !tx.Final || tx.Channel != "3ri" || tx.ThreeRIInd != "01" {
		t.Errorf("wait: %+v, %v", tx, err)
	}
	if res, err := c.ThreeRI(ctx, sandboxtest.ThreeRIBody("4000000000009102", "")); err != nil || res.Status != "U" || res.StatusReason != "21" {
		t.Errorf("a challenge card on 3RI: %+v, %v", res, err)
	}
	_, err = c.ThreeRI(ctx, sandboxtest.ThreeRIBody("4000000000009003", "8a880dc0-d2d2-4067-bcb1-b08d1690b26e"))
	if e, ok := err.(*sandboxtest.Error); !ok || e.Status != 404 || e.Body.EMVError.Code != "301" {
		t.Errorf("an unknown prior: %v", err)
	}
}
