package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode"

	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/auth"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// safeNext returns next when it is the path of a console page, else the
// transactions page: the login never redirects elsewhere. A path is
// taken only as it is written: under {base}/console, clean (no dot
// segment, no empty segment) and made of letters, digits and "-._~/"
// alone. So neither a browser's reading of a Location (tabs and
// newlines dropped, a backslash taken for a slash, %2e for a dot) nor
// http.Redirect's cleaning can lead it out of the console.
func (c *Console) safeNext(next string) string {
	def := c.base + "/console/transactions"
	root := c.base + "/console"
	rest, ok := strings.CutPrefix(next, root)
	if !ok || (rest != "" && rest[0] != '/') || strings.Contains(rest, "//") {
		return def
	}
	for _, r := range rest {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-._~/", r))) {
			return def
		}
	}
	clean := path.Clean(next)
	if strings.HasSuffix(next, "/") {
		clean += "/"
	}
	if clean != next {
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

// tokenProblem says what makes a typed token (trimmed of blanks) no
// bearer token, or "" when nothing does: it is empty, too long, or holds
// a blank or a control character (a NUL, a tab...), which an
// Authorization header could not carry either.
func tokenProblem(tok string) string {
	odd := func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }
	switch {
	case tok == "":
		return "Type a token."
	case strings.IndexFunc(tok, func(r rune) bool { return !odd(r) }) < 0:
		return "Type a token: this one is only blanks or control characters (such as NUL)."
	case len(tok) > maxConsoleToken || strings.IndexFunc(tok, odd) >= 0:
		return fmt.Sprintf("A bearer token has at most %d characters, and no spaces or control characters (such as NUL or a tab).", maxConsoleToken)
	}
	return ""
}

// handleLogin serves POST {base}/console/login: opens a session for the
// typed bearer token.
func (c *Console) handleLogin(w http.ResponseWriter, r *http.Request) {
	if c.crossSite(w, r) {
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
	if msg := tokenProblem(tok); msg != "" {
		c.loginPage(w, r, http.StatusBadRequest, msg, next)
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
	if !c.clients.admit(auth.Source(r.RemoteAddr), g.Namespace, time.Now().Add(sessionTTL(g))) {
		c.loginPage(w, r, http.StatusTooManyRequests, fmt.Sprintf("This address holds console sessions for %d other tokens, the most one client may: "+
			"log out of one of them (or wait until its session ends) before logging in with another.", c.clients.limit), next)
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
	if c.crossSite(w, r) {
		return
	}
	if ns, ok, _ := c.Session(r); ok {
		c.clients.release(auth.Source(r.RemoteAddr), ns)
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
