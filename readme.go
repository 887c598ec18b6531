// Package threedssandbox is the root of the 3-D Secure sandbox's module.
// It holds the repository's README, the front page of the documentation,
// so that the binary serves it at /docs/ with the pages of docs/ (see
// package docs).
package threedssandbox

import (
	_ "embed"
	"slices"
)

//go:embed README.md
var readme []byte

// README returns the repository's README.md.
func README() []byte { return slices.Clone(readme) }
