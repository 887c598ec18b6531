package docsite

import (
	"bytes"
	"html/template"
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// newMarkdown is the renderer of the pages: CommonMark with GitHub's
// tables, strikethrough, task lists and bare links. Raw HTML in a page is
// left out (goldmark's default), and table cells are aligned with the
// align attribute rather than a style attribute, which the pages'
// Content-Security-Policy would refuse.
func newMarkdown() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(
		extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
		extension.Strikethrough,
		extension.TaskList,
		extension.Linkify,
	))
}

// Anchor is the id GitHub gives a heading of text: lower case, each space
// a hyphen, and every character but letters, digits, marks, '-' and '_'
// dropped. "Where the spec is silent: our choices" is
// "where-the-spec-is-silent-our-choices".
func Anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '-' || r == '_':
			b.WriteRune(unicode.ToLower(r))
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// Outline is what a Markdown page holds that other pages and links need.
type Outline struct {
	// Title is the text of the first level-one heading; empty when none.
	Title string
	// IDs are the ids of the headings, in order, as GitHub makes them: a
	// repeated one gets -1, -2… appended.
	IDs []string
	// Links are the destinations of the links, in order; Images those of
	// the images.
	Links, Images []string
}

// OutlineOf reads the outline of a Markdown page.
func OutlineOf(src []byte) Outline {
	doc := newMarkdown().Parser().Parse(text.NewReader(src))
	var o Outline
	ids := headingIDs{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			t := plainText(n, src)
			if n.Level == 1 && o.Title == "" {
				o.Title = t
			}
			o.IDs = append(o.IDs, ids.next(t))
		case *ast.Link:
			o.Links = append(o.Links, string(n.Destination))
		case *ast.Image:
			o.Images = append(o.Images, string(n.Destination))
		}
		return ast.WalkContinue, nil
	})
	return o
}

// headingIDs hands out GitHub's heading ids, counting repeats.
type headingIDs map[string]int

// next returns the id of a heading of text.
func (h headingIDs) next(text string) string {
	id := Anchor(text)
	n, seen := h[id]
	h[id] = n + 1
	if seen {
		return id + "-" + strconv.Itoa(n)
	}
	return id
}

// plainText is the text of n's inline content, without its markup.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// render turns a page into HTML: headings get GitHub's ids, so anchors
// written for GitHub work, and relative links are rewritten by link.
// Code blocks and tables, which scroll sideways when wider than the page,
// take the keyboard's focus (tabindex 0), so that they can be scrolled
// without a mouse (WCAG 2.1.1; axe-core's scrollable-region-focusable).
func render(md goldmark.Markdown, src []byte, link func(dest string) string) (template.HTML, error) {
	doc := md.Parser().Parse(text.NewReader(src))
	ids := headingIDs{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			n.SetAttributeString("id", []byte(ids.next(plainText(n, src))))
		case *ast.Link:
			n.Destination = []byte(link(string(n.Destination)))
		case *ast.Image:
			n.Destination = []byte(link(string(n.Destination)))
		case *extast.Table:
			n.SetAttributeString("tabindex", []byte("0"))
		}
		return ast.WalkContinue, nil
	})
	var buf bytes.Buffer
	if err := md.Renderer().Render(&buf, src, doc); err != nil {
		return "", err
	}
	// The renderer escapes the text of the pages and leaves their raw
	// HTML out, so what it writes is markup of its own making: every
	// "<pre>" is a code block's (it writes no attribute on one).
	return template.HTML(strings.ReplaceAll(buf.String(), "<pre>", `<pre tabindex="0">`)), nil
}

// relative splits a link destination that points into the repository
// (no scheme, no host, not absolute) into its path and fragment; ok is
// false for any other destination.
func relative(dest string) (p, fragment string, ok bool) {
	if dest == "" || strings.HasPrefix(dest, "/") || strings.HasPrefix(dest, "#") {
		return "", "", false
	}
	if i := strings.IndexAny(dest, ":/?#"); i >= 0 && dest[i] == ':' {
		return "", "", false // a scheme: https:, mailto:…
	}
	p, fragment, _ = strings.Cut(dest, "#")
	return path.Clean(p), fragment, true
}
