// Package examples holds sample request bodies of the interface the
// sandbox emulates, as a merchant would send them: the realistic base that
// tests edit and that documentation shows. It imports nothing of the
// project, so any package, and the tests of any package, may read it.
package examples

import _ "embed"

//go:embed lookup.json
var lookup []byte

// Lookup returns a valid browser-channel lookup request (section 2.2 of
// the interface document): a frictionless Visa test card, every optional
// object filled in. Each call returns a fresh copy the caller may change.
func Lookup() []byte { return append([]byte(nil), lookup...) }
