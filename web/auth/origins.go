package auth

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
)

// Origins tells the posts a browser sends from the sandbox's own pages
// from those another site's page makes it send (cross-site request
// forgery: a page elsewhere posting the console's login form with its
// own token, to log the visitor into its namespace). It is
// net/http.CrossOriginProtection: a browser's Sec-Fetch-Site must say
// same-origin (or none: typed by the user); a browser that sends no
// Sec-Fetch-Site (one that does not send it over plain http to a host
// other than localhost, or an old one) must send an Origin naming the
// host the request reached, or the sandbox's public URL (behind a proxy
// that changes Host). A request with neither header comes from no
// browser (curl, a test's client) and is let through: no page of another
// site can send it. Safe for concurrent use.
type Origins struct {
	cop *http.CrossOriginProtection
}

// ErrCrossSite is a state-changing request a browser sent from another
// site's page.
var ErrCrossSite = errors.New("a form or script of another site posted this request")

// NewOrigins returns the check of the sandbox whose public URL is
// publicURL (empty: none, the host reached alone counts).
func NewOrigins(publicURL string) (*Origins, error) {
	cop := http.NewCrossOriginProtection()
	if u, err := url.Parse(publicURL); err == nil && u.Scheme != "" && u.Host != "" {
		if err := cop.AddTrustedOrigin(u.Scheme + "://" + u.Host); err != nil {
			return nil, fmt.Errorf("auth: the public URL's origin: %w", err)
		}
	}
	return &Origins{cop: cop}, nil
}

// Check returns nil for a request of one of the sandbox's own pages, or
// of no browser, and for the safe methods (GET, HEAD, OPTIONS); else an
// error wrapping ErrCrossSite that names where the request came from.
func (o *Origins) Check(r *http.Request) error {
	if o.cop.Check(r) == nil {
		return nil
	}
	from := "another site"
	if origin := r.Header.Get("Origin"); origin != "" {
		from = clip(origin)
	}
	return fmt.Errorf("%w (from %s; Sec-Fetch-Site %q)", ErrCrossSite, from, clip(r.Header.Get("Sec-Fetch-Site")))
}
