// Package templates holds the HTML pages of the emulated issuer ACS: the
// auto-submitting form that carries a CReq or a final CRes, the one-time
// password challenge page, the result page, the error page and the "you may
// close this window" page.
//
// The pages are embedded in the binary and parsed once by Parse. Each page
// takes a plain view struct declared in views.go; the package holds no logic
// beyond loading and a few formatting helpers for the templates.
//
// Every page is self-contained: its CSS sits in one inline <style> element,
// it loads no external assets, and it works without JavaScript. The only
// scripts are tiny inline ones. Style and script elements carry the view's
// Nonce so that a Content-Security-Policy such as
//
//	default-src 'none'; style-src 'nonce-N'; script-src 'nonce-N'; base-uri 'none'
//
// lets them run; when Nonce is empty the attribute is left out, which is how
// the autosubmit page is rendered for the lookup's challengeHtml. No page uses
// style attributes or inline event handlers, so none needs 'unsafe-inline'.
package templates
