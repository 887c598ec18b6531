package sandboxtest_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/cmd/sandboxtest"
)

// Cards of the embedded defaults pack (docs/test-cards.md).
const (
	frictionlessY = "4000000000009003"
	challenge     = "4000000000009102" // OTP 1234 passes
)

// A test starts a sandbox, points its checkout at sb.URL, and asserts on
// what the sandbox answered; here the lookup and the enquiry directly.
func Example() {
	sb, err := sandboxtest.New(sandboxtest.Packs("defaults"))
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Close()
	ctx := context.Background()
	c := sb.NewClient()

	res, err := c.Lookup(ctx, sandboxtest.LookupBody(frictionlessY))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("lookup:", res.Status, res.ECI, res.ScenarioID)
	q, err := c.Enquiry(ctx, res.ThreeDSServerTransID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("enquiry:", q.TransactionStatus, q.AuthenticationValue != "")
	// Output:
	// lookup: Y 05 visa-frictionless-y
	// enquiry: Y true
}

// Read back what the checkout sent: every event of a transaction keeps
// the request as the sandbox received it, card numbers masked.
func ExampleClient_Transaction() {
	sb, err := sandboxtest.New()
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Close()
	ctx := context.Background()
	c := sb.NewClient()

	body := sandboxtest.LookupBody(frictionlessY)
	body["browserInfo"].(map[string]any)["userAgent"] = "MyCheckout/2.1"
	res, err := c.Lookup(ctx, body)
	if err != nil {
		log.Fatal(err)
	}
	tx, err := c.Transaction(ctx, res.ThreeDSServerTransID)
	if err != nil {
		log.Fatal(err)
	}
	ua, err := tx.Sent("lookup", "browserInfo.userAgent")
	if err != nil {
		log.Fatal(err)
	}
	card, err := tx.Sent("lookup", "card.cardNumber")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tx.Events[0].Type, tx.Status, tx.Final)
	fmt.Println(ua, card)
	// Output:
	// lookup Y true
	// MyCheckout/2.1 400000******9003
}

// Wait for the end of a challenge instead of polling the enquiry: here
// the test completes it headlessly, as a browser test would on the page.
func ExampleClient_Wait() {
	sb, err := sandboxtest.New()
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Close()
	ctx := context.Background()
	c := sb.NewClient()

	res, err := c.Lookup(ctx, sandboxtest.LookupBody(challenge))
	if err != nil {
		log.Fatal(err)
	}
	go func() { // as a cardholder does on the page, meanwhile
		if _, err := c.EnterOTP(ctx, res.ThreeDSServerTransID, "1234"); err != nil {
			log.Print(err)
		}
	}()
	tx, err := c.Wait(ctx, res.ThreeDSServerTransID, 30*time.Second)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Status, "->", tx.Status, tx.Final)
	for _, ev := range tx.Events {
		fmt.Println(ev.Type)
	}
	// Output:
	// C -> Y true
	// lookup
	// decision
	// cres
}

// Move the token's clock to reach a timeout at once: a challenge nobody
// opened ends as N, reason 14, challengeCancel 05 after 10 minutes.
// Another token's challenge is untouched.
func ExampleClient_AdvanceClock() {
	sb, err := sandboxtest.New()
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Close()
	ctx := context.Background()
	mine, theirs := sb.NewClient(), sb.NewClient()

	res, err := mine.Lookup(ctx, sandboxtest.LookupBody(challenge))
	if err != nil {
		log.Fatal(err)
	}
	other, err := theirs.Lookup(ctx, sandboxtest.LookupBody(challenge))
	if err != nil {
		log.Fatal(err)
	}
	clock, err := mine.AdvanceClock(ctx, 11*time.Minute)
	if err != nil {
		log.Fatal(err)
	}
	q, err := mine.Enquiry(ctx, res.ThreeDSServerTransID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("offset", clock.Offset)
	fmt.Println("mine:", q.TransactionStatus, q.StatusReason, q.ChallengeCancel)
	q, err = theirs.Enquiry(ctx, other.ThreeDSServerTransID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("theirs:", q.TransactionStatus)
	// Output:
	// offset 11m0s
	// mine: N 14 05
	// theirs: C
}

// List the token's transactions with filters, then start clean.
func ExampleClient_Transactions() {
	sb, err := sandboxtest.New()
	if err != nil {
		log.Fatal(err)
	}
	defer sb.Close()
	ctx := context.Background()
	c := sb.NewClient()

	for _, ref := range []string{"order-1", "order-2", "order-1"} {
		body := sandboxtest.LookupBody(frictionlessY)
		body["externalReferenceId"] = ref
		if _, err := c.Lookup(ctx, body); err != nil {
			log.Fatal(err)
		}
	}
	page, err := c.Transactions(ctx, sandboxtest.Query{ExternalReferenceID: "order-1"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(page.Transactions), page.Transactions[0].Status, page.Transactions[0].CardLast4, page.Next == "")
	if err := c.Forget(ctx); err != nil {
		log.Fatal(err)
	}
	page, err = c.Transactions(ctx, sandboxtest.Query{})
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.EnquiryByReference(ctx, "order-1")
	fmt.Println(len(page.Transactions), err.(*sandboxtest.Error).Status)
	// Output:
	// 2 Y 9003 true
	// 0 404
}
