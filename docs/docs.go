// Package docs holds the sandbox's documentation so that it ships with the
// binary: the repository's README as the front page, the Markdown pages of
// this directory (README.md is their index), the pictures they show, and
// the example deployment files they link.
// Package web/docsite serves them as HTML at {base}/docs/.
//
// The files are the ones a reader of the repository sees; tests of this
// package check that every relative link of README.md and of these pages
// leads to a file and a heading that exist, that the README stays a short
// front page, and that every picture a page shows is embedded.
package docs

import (
	"embed"
	"io/fs"

	threedssandbox "github.com/threeds-sandbox/threeds-sandbox"
)

// files are the pages, the pictures they show and the files they link.
//
//go:embed *.md compose.yaml nginx.conf
//go:embed img/challenge-390x400.png img/landing.png img/console-cards.png
//go:embed img/demo-challenge.png img/demo-result.png
//go:embed img/challenge-oob-390x400.png img/challenge-select-390x400.png img/challenge-multiselect-390x400.png
//go:embed img/console-transactions.png img/console-transaction.png
var files embed.FS

// FS returns the embedded documentation: the pages (*.md) at its root and
// the pictures under img/.
func FS() fs.FS { return files }

// Front returns the documentation's front page: the repository's
// README.md, whose links are relative to the repository's root.
func Front() []byte { return threedssandbox.README() }
