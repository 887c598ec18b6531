package main

import (
	"context"
	"fmt"
	"io"

	"github.com/chromedp/chromedp"
)

// token is the bearer token of the pictured session.
const token = "acme-checkout"

// shooter takes the screenshots in order: each step builds on the one
// before (the session, the journal's transactions).
type shooter struct {
	b   *browser
	emu *emulatorProcess
	out string
	log io.Writer
}

// shot is one picture: where to go, what to do, what to wait for.
type shot struct {
	name          string
	width, height int64
	prepare       func() error
}

// all seeds the journal, opens a session and takes every picture.
func (s *shooter) all(ctx context.Context) error {
	if err := s.seed(); err != nil {
		return err
	}
	friction, err := s.emu.card("visa-frictionless-y")
	if err != nil {
		return err
	}
	challenge, err := s.emu.card("visa-challenge")
	if err != nil {
		return err
	}
	base := s.emu.URL
	shots := []shot{
		{"landing.png", 1280, 900, func() error {
			return s.b.do("open the front door", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("details.pack[open] table")))
		}},
		{"console-login.png", 1280, 560, func() error {
			return s.b.do("open the login page", chromedp.Navigate(base+"/console/login"))
		}},
		{"console-cards.png", 1280, 900, func() error {
			if err := s.b.do("log in",
				chromedp.SendKeys(chromedp.CSS("#token"), token),
				chromedp.Click(chromedp.CSS("form button[type=submit]")),
				chromedp.WaitVisible(chromedp.CSS("#tx-body")),
			); err != nil {
				return err
			}
			return s.b.do("open the cards page", chromedp.Navigate(base+"/console/"), chromedp.WaitVisible(chromedp.CSS("button.copy")))
		}},
		{"demo-frictionless.png", 1280, 900, func() error {
			return s.pay(base, friction, "3", "129.99", "EUR")
		}},
		{"demo-challenge.png", 1280, 900, func() error {
			if err := s.b.do("open the demo", chromedp.Navigate(base+"/console/demo?card="+challenge)); err != nil {
				return err
			}
			if err := s.b.do("pick the window size", chromedp.SetValue(chromedp.CSS("#window-size"), "2"),
				chromedp.SetValue(chromedp.CSS("#amount"), "49.99")); err != nil {
				return err
			}
			if err := s.b.do("pay", chromedp.Click(chromedp.CSS("#pay"))); err != nil {
				return err
			}
			return s.b.waitTrue(`(function(){var f=document.getElementById("challenge");return !!(f&&f.contentDocument&&f.contentDocument.querySelector("[data-action=pass]"));})()`)
		}},
		{"demo-result.png", 1280, 900, func() error {
			if err := s.b.clickInFrame("[data-action=pass]"); err != nil {
				return err
			}
			return s.b.waitTrue(`document.body.getAttribute("data-result") === "Y"`)
		}},
		{"console-transactions.png", 1280, 640, func() error {
			return s.b.do("open the journal", chromedp.Navigate(base+"/console/transactions"), chromedp.WaitVisible(chromedp.CSS("#tx-body tr[data-id]")))
		}},
		{"console-transaction.png", 1280, 1100, func() error {
			return s.b.do("open the challenge transaction",
				chromedp.Click(chromedp.CSS(`#tx-body tr[data-status="Y"] a.tx`)),
				chromedp.WaitVisible(chromedp.CSS(`li.event[data-kind="cres"]`)))
		}},
	}
	for _, sh := range shots {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.b.do("reset the viewport", chromedp.EmulateViewport(sh.width, sh.height)); err != nil {
			return err
		}
		if err := sh.prepare(); err != nil {
			return fmt.Errorf("%s: %w", sh.name, err)
		}
		if err := s.b.shoot(s.out, sh.name, sh.width, sh.height); err != nil {
			return err
		}
		fmt.Fprintf(s.log, "wrote %s/%s\n", s.out, sh.name)
	}
	return nil
}

// pay runs a frictionless purchase in the demo checkout.
func (s *shooter) pay(base, card, windowSize, amount, currency string) error {
	if err := s.b.do("open the demo", chromedp.Navigate(base+"/console/demo?card="+card),
		chromedp.SetValue(chromedp.CSS("#window-size"), windowSize),
		chromedp.SetValue(chromedp.CSS("#amount"), amount),
		chromedp.SetValue(chromedp.CSS("#currency"), currency),
		chromedp.Click(chromedp.CSS("#pay"))); err != nil {
		return err
	}
	return s.b.waitTrue(`document.body.getAttribute("data-result") !== null`)
}

// seed sends a few lookups with the session's token so that the journal
// has a history to show.
func (s *shooter) seed() error {
	seeds := []struct{ id, merchant, amount, currency string }{
		{"mastercard-frictionless-y", "Northwind Books", "18.50", "GBP"},
		{"amex-frictionless-n", "Contoso Travel", "742.00", "USD"},
		{"visa-frictionless-a", "Fabrikam Coffee", "4.20", "EUR"},
	}
	for _, sd := range seeds {
		card, err := s.emu.card(sd.id)
		if err != nil {
			fmt.Fprintf(s.log, "seed: %v (skipped)\n", err)
			continue
		}
		id, err := s.emu.lookup(token, card, sd.merchant, sd.amount, sd.currency)
		if err != nil {
			return fmt.Errorf("seed %s: %w", sd.id, err)
		}
		if err := s.emu.enquiry(token, id); err != nil {
			return fmt.Errorf("seed %s: %w", sd.id, err)
		}
	}
	return nil
}
