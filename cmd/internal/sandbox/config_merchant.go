package sandbox

import (
	"flag"
	"fmt"
	"time"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/state"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/callback"
)

// The flags of what a merchant's integration meets beyond the interface
// document: its credentials (the device data capture's JWT, the OAuth
// token endpoint) and the result callbacks.

// merchantFlags declares the merchant flags on fs.
func merchantFlags(fs *flag.FlagSet, c *Config) {
	fs.StringVar(&c.Merchants, "merchants", "", "comma-separated `id:secret` merchants: the API identifier (the DDC JWT's iss, the OAuth client id) and its secret (the JWT's HS256 key and the client secret); empty: any well-formed JWT and, without --tokens, any OAuth client")
	fs.DurationVar(&c.TokenLifetime, "token-lifetime", auth.DefaultTokenLifetime, "lifetime of the access tokens of the OAuth token endpoint (/connect/token)")
	fs.StringVar(&c.CallbackURL, "callback-url", "", "`URL` that receives the result callbacks of every token that registered none (empty: none)")
	fs.StringVar(&c.CallbackAllowHosts, "callback-allow-hosts", callback.DefaultAllowlist, "comma-separated `hosts` (names or IP addresses) result callbacks may be sent to; a URL of another host is refused")
	fs.DurationVar(&c.CallbackTimeout, "callback-timeout", callback.DefaultTimeout, "bound on each result callback attempt, from connection to answer")
	fs.IntVar(&c.CallbackAttempts, "callback-attempts", emulator.DefaultCallbackAttempts, "most attempts of one result callback")
	fs.DurationVar(&c.CallbackBackoff, "callback-backoff", emulator.DefaultCallbackBackoff, "wait before a result callback's second attempt, doubled before each further one (at most 5m)")
	fs.IntVar(&c.CallbackConcurrency, "callback-concurrency", callback.DefaultConcurrency, "most result callback attempts in flight at once, per replica")
	fs.IntVar(&c.CallbackInFlight, "callback-concurrency-per-token", emulator.DefaultCallbackInFlightPerToken, "most result callback attempts of one token in flight at once, on every replica together; the tokens take turns")
	fs.IntVar(&c.CallbackOutbox, "callback-outbox", state.DefaultCallbackOutbox, "most result callbacks waiting, of every token together; on a Redis Cluster each of up to 16 slot groups (this / --callback-outbox-per-token of them) keeps its part, the token with the most in its group giving way")
	fs.IntVar(&c.CallbackOutboxPerToken, "callback-outbox-per-token", state.DefaultCallbackOutboxPerToken, "most result callbacks of one token waiting; its further results are not queued")
	fs.DurationVar(&c.CallbackSecretGrace, "callback-secret-grace", callback.DefaultSecretGrace, "how long after a rotation of a token's callback signing secret its callbacks are signed with the previous secret too")
}

// merchantAreas are the areas of the merchant flags.
var merchantAreas = map[string]string{
	"merchants":            "auth",
	"token-lifetime":       "auth",
	"callback-url":         "callbacks",
	"callback-allow-hosts": "callbacks",
	"callback-timeout":     "callbacks",
	"callback-attempts":    "callbacks",
	"callback-backoff":     "callbacks",
	"callback-concurrency": "callbacks",

	"callback-concurrency-per-token": "callbacks",
	"callback-outbox":                "callbacks",
	"callback-outbox-per-token":      "callbacks",
	"callback-secret-grace":          "callbacks",
}

// checkMerchant returns the problems of the merchant flags.
func (c *Config) checkMerchant(set *settings) []error {
	var errs []error
	add := func(bad bool, name, value, want string) {
		if bad {
			errs = append(errs, problem(name, value, want))
		}
	}
	merchants, err := auth.ParseMerchants(c.Merchants)
	if err != nil {
		add(true, "merchants", "(hidden)", err.Error())
	}
	set.merchants = merchants
	add(c.TokenLifetime < time.Second || c.TokenLifetime > 24*time.Hour, "token-lifetime", c.TokenLifetime.String(), "want 1s to 24h")
	allow, err := callback.ParseAllowlist(c.CallbackAllowHosts)
	set.allow = allow
	add(err != nil, "callback-allow-hosts", fmt.Sprintf("%q", c.CallbackAllowHosts), fmt.Sprint("want host names or IP addresses, comma-separated: ", err))
	if c.CallbackURL != "" && err == nil {
		if err := allow.Check(c.CallbackURL); err != nil {
			add(true, "callback-url", fmt.Sprintf("%q", c.CallbackURL), err.Error())
		}
	}
	add(c.CallbackTimeout <= 0 || c.CallbackTimeout > time.Minute, "callback-timeout", c.CallbackTimeout.String(), "want a positive duration of at most 1m")
	add(c.CallbackAttempts < 1 || c.CallbackAttempts > 20, "callback-attempts", fmt.Sprint(c.CallbackAttempts), "want 1 to 20")
	add(c.CallbackBackoff <= 0 || c.CallbackBackoff > emulator.MaxCallbackBackoff, "callback-backoff", c.CallbackBackoff.String(), "want a positive duration of at most 5m")
	add(c.CallbackConcurrency < 1 || c.CallbackConcurrency > 256, "callback-concurrency", fmt.Sprint(c.CallbackConcurrency), "want 1 to 256")
	add(c.CallbackInFlight < 1 || c.CallbackInFlight > 256, "callback-concurrency-per-token", fmt.Sprint(c.CallbackInFlight), "want 1 to 256")
	add(c.CallbackOutbox < 1 || c.CallbackOutbox > 10_000_000, "callback-outbox", fmt.Sprint(c.CallbackOutbox), "want 1 to 10000000")
	add(c.CallbackOutboxPerToken < 1 || c.CallbackOutbox >= 1 && c.CallbackOutboxPerToken > c.CallbackOutbox, "callback-outbox-per-token", fmt.Sprint(c.CallbackOutboxPerToken),
		fmt.Sprintf("want 1 to --callback-outbox (%d)", c.CallbackOutbox))
	add(c.CallbackSecretGrace < 0 || c.CallbackSecretGrace > 30*24*time.Hour, "callback-secret-grace", c.CallbackSecretGrace.String(), "want 0 to 720h")
	return errs
}
