package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// safeNext returns next when it is a console path, else the transactions
// page: the login never redirects elsewhere.
func (c *Console) safeNext(next string) string {
	def := c.base + "/console/transactions"
	if next == "" || strings.Contains(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return def
	}
	if next != c.base+"/console" && !strings.HasPrefix(next, c.base+"/console/") {
		return def
	}
	return next
}

// handleLoginForm serves GET {base}/console/login.
func (c *Console) handleLoginForm(w http.ResponseWriter, r *http.Request) {
	c.loginPage(w, r, http.StatusOK, "", r.URL.Query().Get("next"))
}

func (c *Console) loginPage(w http.ResponseWriter, r *http.Request, status int, msg, next string) {
	nonce := respond.Nonce()
	c.render(w, r, status, templates.PageConsoleLogin, nonce, cspOptions{}, templates.ConsoleLogin{
		ConsoleLayout:  c.layout(r, nonce, "Log in with a token", "login"),
		Error:          msg,
		TokensRequired: c.cfg.Authority.Required(),
		Next:           c.safeNext(next),
	})
}

// handleLogin serves POST {base}/console/login: opens a session for the
// typed bearer token.
func (c *Console) handleLogin(w http.ResponseWriter, r *http.Request) {
	if CrossSite(r) {
		http.Error(w, "cross-site login refused", http.StatusForbidden)
		return
	}
	if err := r.ParseForm(); err != nil {
		status, msg := http.StatusBadRequest, "The form could not be read."
		if respond.TooBig(err) {
			status, msg = http.StatusRequestEntityTooLarge, fmt.Sprintf("The form is larger than %d bytes.", c.cfg.MaxBodyBytes)
		}
		c.loginPage(w, r, status, msg, "")
		return
	}
	tok := strings.TrimSpace(r.PostForm.Get("token"))
	next := r.PostForm.Get("next")
	switch {
	case tok == "":
		c.loginPage(w, r, http.StatusBadRequest, "Type a token.", next)
		return
	case len(tok) > maxConsoleToken || strings.ContainsAny(tok, " \t\r\n"):
		c.loginPage(w, r, http.StatusBadRequest, "A bearer token has no spaces and at most 512 characters.", next)
		return
	}
	g, err := c.cfg.Authority.Grant(tok)
	if err != nil {
		msg := "This token is not accepted by the sandbox."
		var ae *auth.AccessError
		if errors.As(err, &ae) {
			msg = "This access token is not accepted: " + ae.Error() + "."
		}
		c.loginPage(w, r, http.StatusForbidden, msg, next)
		return
	}
	if err := c.openSession(w, r, g); err != nil {
		c.cfg.Errors(w, r, err)
		return
	}
	http.Redirect(w, r, c.safeNext(next), http.StatusSeeOther)
}

// handleLogout serves POST {base}/console/logout.
func (c *Console) handleLogout(w http.ResponseWriter, r *http.Request) {
	if CrossSite(r) {
		http.Error(w, "cross-site logout refused", http.StatusForbidden)
		return
	}
	if err := c.endSession(w, r); err != nil {
		c.cfg.Errors(w, r, err)
		return
	}
	http.Redirect(w, r, c.base+"/console/login", http.StatusSeeOther)
}

// requireSession returns the namespace of the request's session, or
// redirects to the login page (or answers the session store's failure)
// and returns false.
func (c *Console) requireSession(w http.ResponseWriter, r *http.Request) (string, bool) {
	ns, ok, err := c.Session(r)
	switch {
	case err != nil:
		c.cfg.Errors(w, r, err)
	case !ok:
		http.Redirect(w, r, c.base+"/console/login?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
	}
	return ns, ok
}
