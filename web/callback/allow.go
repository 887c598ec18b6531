package callback

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// DefaultAllowlist names the loopback hosts: a sandbox on a shared
// network calls nothing else unless told to.
const DefaultAllowlist = "localhost,127.0.0.1,::1"

// Allowlist names the hosts the sandbox may send callbacks to: exact host
// names or IP addresses, case-insensitive, any port.
type Allowlist struct {
	hosts map[string]bool
	spec  string
}

// ParseAllowlist reads comma-separated hosts ("localhost,127.0.0.1,::1",
// an IPv6 address without brackets); empty is DefaultAllowlist.
func ParseAllowlist(spec string) (Allowlist, error) {
	if strings.TrimSpace(spec) == "" {
		spec = DefaultAllowlist
	}
	a := Allowlist{hosts: map[string]bool{}}
	var names []string
	for _, h := range strings.Split(spec, ",") {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
		if net.ParseIP(h) == nil && !hostName(h) {
			return Allowlist{}, fmt.Errorf("%q is not a host name or an IP address", h)
		}
		a.hosts[h] = true
		names = append(names, h)
	}
	a.spec = strings.Join(names, ",")
	return a, nil
}

// hostName tells whether h is a DNS host name: labels of letters, digits
// and inner '-' separated by dots.
func hostName(h string) bool {
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' ||
			strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return false
		}
	}
	return true
}

// String lists the allowed hosts.
func (a Allowlist) String() string { return a.spec }

// allows tells whether host (without a port) is named.
func (a Allowlist) allows(host string) bool {
	if a.hosts == nil {
		a, _ = ParseAllowlist(DefaultAllowlist)
	}
	return a.hosts[strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))]
}

// ErrNotAllowed is a callback URL whose host the allowlist does not name.
var ErrNotAllowed = errors.New("host not in the callback allowlist")

// Check says what is wrong with raw as a callback URL: it must be an
// absolute http or https URL of at most 2048 characters, without user
// information, whose host the allowlist names.
func (a Allowlist) Check(raw string) error {
	if len(raw) > 2048 {
		return fmt.Errorf("the URL is %d characters long, at most 2048", len(raw))
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		return errors.New("not an absolute http or https URL")
	}
	if u.User != nil {
		return errors.New("the URL may not carry a user or password")
	}
	if !a.allows(u.Hostname()) {
		return fmt.Errorf("%w (--callback-allow-hosts): %s", ErrNotAllowed, u.Hostname())
	}
	return nil
}
