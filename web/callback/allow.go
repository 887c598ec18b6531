package callback

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// DefaultAllowlist names the loopback hosts, any port: a sandbox on a
// shared network calls nothing else unless told to.
const DefaultAllowlist = "localhost,127.0.0.1,::1"

// Allowlist names the hosts the sandbox may send callbacks to, and on
// each the ports: exact host names or IP addresses, case-insensitive,
// each with every port (1 to 65535) or the ports its entries name.
type Allowlist struct {
	// hosts maps each host to its port ranges; nil: every port.
	hosts map[string][]portRange
	spec  string
}

// portRange is the ports from lo to hi.
type portRange struct{ lo, hi int }

func (r portRange) String() string {
	if r.lo == r.hi {
		return strconv.Itoa(r.lo)
	}
	return fmt.Sprintf("%d-%d", r.lo, r.hi)
}

// ParseAllowlist reads comma-separated entries, each a host with every
// port ("localhost", "::1") or a host and its ports ("127.0.0.1:8080",
// "shop.test:9000-9100", "[::1]:8443"); several entries of a host add up.
// Empty is DefaultAllowlist.
func ParseAllowlist(spec string) (Allowlist, error) {
	if strings.TrimSpace(spec) == "" {
		spec = DefaultAllowlist
	}
	a := Allowlist{hosts: map[string][]portRange{}}
	var order []string
	for _, item := range strings.Split(spec, ",") {
		item = strings.ToLower(strings.TrimSpace(item))
		if item == "" {
			continue
		}
		host, ports, err := splitEntry(item)
		if err != nil {
			return Allowlist{}, err
		}
		if net.ParseIP(host) == nil && !hostName(host) {
			return Allowlist{}, fmt.Errorf("%q is not a host name or an IP address", host)
		}
		had, seen := a.hosts[host]
		if !seen {
			order = append(order, host)
		}
		switch {
		case seen && had == nil: // every port already
		case ports == nil:
			a.hosts[host] = nil
		default:
			a.hosts[host] = append(had, ports...)
		}
	}
	names := make([]string, 0, len(order))
	for _, h := range order {
		if a.hosts[h] == nil {
			names = append(names, h)
			continue
		}
		for _, r := range a.hosts[h] {
			names = append(names, net.JoinHostPort(h, r.String()))
		}
	}
	a.spec = strings.Join(names, ",")
	return a, nil
}

// splitEntry splits an entry into its host and ports (nil: every port).
func splitEntry(item string) (string, []portRange, error) {
	host, ports := item, ""
	switch {
	case strings.HasPrefix(item, "["):
		end := strings.Index(item, "]")
		if end < 0 {
			return "", nil, fmt.Errorf("%q lacks its closing bracket", item)
		}
		host, ports = item[1:end], item[end+1:]
		if ports != "" && !strings.HasPrefix(ports, ":") {
			return "", nil, fmt.Errorf("%q: want [address]:ports", item)
		}
		ports = strings.TrimPrefix(ports, ":")
		if ports == "" && strings.HasSuffix(item, ":") {
			return "", nil, fmt.Errorf("%q names no port after the colon", item)
		}
	case strings.Count(item, ":") == 1:
		host, ports, _ = strings.Cut(item, ":")
		if ports == "" {
			return "", nil, fmt.Errorf("%q names no port after the colon", item)
		}
	}
	if ports == "" {
		return host, nil, nil
	}
	lo, hi, isRange := strings.Cut(ports, "-")
	if !isRange {
		hi = lo
	}
	l, errLo := portNumber(lo)
	h, errHi := portNumber(hi)
	if errLo != nil || errHi != nil || l > h {
		return "", nil, fmt.Errorf("%q: want a port or a range of ports from 1 to 65535", item)
	}
	return host, []portRange{{l, h}}, nil
}

// portNumber reads a port: decimal digits, from 1 to 65535.
func portNumber(s string) (int, error) {
	if s == "" || len(s) > 5 || strings.Trim(s, "0123456789") != "" {
		return 0, errors.New("not a port")
	}
	n, _ := strconv.Atoi(s)
	if n < 1 || n > 65535 {
		return 0, errors.New("not a port")
	}
	return n, nil
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

// String lists the allowed hosts and ports, as ParseAllowlist reads them.
func (a Allowlist) String() string { return a.spec }

// allowed returns the error of host (without brackets) and port, nil
// when the allowlist names both.
func (a Allowlist) allowed(host string, port int) error {
	if a.hosts == nil {
		a, _ = ParseAllowlist(DefaultAllowlist)
	}
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	ports, ok := a.hosts[host]
	if !ok {
		return fmt.Errorf("%w (--callback-allow-hosts): the host %s", ErrNotAllowed, host)
	}
	if ports != nil && !slices.ContainsFunc(ports, func(r portRange) bool { return r.lo <= port && port <= r.hi }) {
		return fmt.Errorf("%w (--callback-allow-hosts): the port %d of %s", ErrNotAllowed, port, host)
	}
	return nil
}

// allowsAddr tells whether a dialled address (host:port) is allowed.
func (a Allowlist) allowsAddr(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	p, err := portNumber(port)
	return err == nil && a.allowed(host, p) == nil
}

// ErrNotAllowed is a callback URL whose host, or port, the allowlist
// does not name.
var ErrNotAllowed = errors.New("host or port not in the callback allowlist")

// Check says what is wrong with raw as a callback URL: it must be an
// absolute http or https URL of at most 2048 characters, without user
// information, whose port (when it names one) is from 1 to 65535, and
// whose host and port (80 or 443 when it names none) the allowlist
// names.
func (a Allowlist) Check(raw string) error {
	if len(raw) > 2048 {
		return fmt.Errorf("the URL is %d characters long, at most 2048", len(raw))
	}
	u, err := url.Parse(raw)
	if err != nil && strings.Contains(err.Error(), "invalid port") {
		return errors.New("the port must be a number from 1 to 65535")
	}
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		return errors.New("not an absolute http or https URL")
	}
	if u.User != nil {
		return errors.New("the URL may not carry a user or password")
	}
	port := 80
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		if port, err = portNumber(p); err != nil {
			return fmt.Errorf("the port %s is not a number from 1 to 65535", p)
		}
	}
	return a.allowed(u.Hostname(), port)
}
