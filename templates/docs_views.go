package templates

import "html/template"

// PageDocs is a page of the documentation at {base}/docs/: view DocsPage.
const PageDocs = "docs"

// DocsPage is the view of a page of the documentation: the console's
// frame around HTML rendered from one of the Markdown pages that ship with
// the binary.
type DocsPage struct {
	// Nonce is the CSP nonce of the page's style element; the page has no
	// script.
	Nonce string
	// Base is the path prefix of links, e.g. "/3ds"; empty at the root.
	Base string
	// Title is the document title: the page's first heading.
	Title string
	// Body is the page's content as HTML. It is inserted as it is, so it
	// must come from a renderer that escapes text and omits raw HTML, as
	// package web/docsite's does for the embedded pages.
	Body template.HTML
	// Pages are the pages of the documentation, for the navigation.
	Pages []DocsLink
}

// DocsLink is one entry of the documentation's navigation.
type DocsLink struct {
	// Title is the link text; Href its target.
	Title, Href string
	// Current marks the page being shown.
	Current bool
}
