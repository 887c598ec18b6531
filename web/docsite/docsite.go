// Package docsite serves the sandbox's documentation as HTML pages at
// {base}/docs/: the front page (the repository's README) at
// {base}/docs/, the index of the pages (docs/README.md) at
// {base}/docs/contents, each page name.md at {base}/docs/name, and the
// pictures and files the pages link under their own names (e.g.
// {base}/docs/img/landing.png).
//
// Pages are rendered from Markdown once, on their first request, and
// wrapped in the console's layout with a fresh Content-Security-Policy
// nonce per request. Links between pages, and to the README and its
// sections, are rewritten to the served URLs, so that a reader stays in
// the served docs; links that leave the docs go to the sandbox's own copy
// where it serves one (the scenario schema, the OpenAPI document), and to
// the repository otherwise (a source file, an example).
package docsite

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/yuin/goldmark"

	"github.com/threeds-sandbox/threeds-sandbox/templates"
)

// Repository is where links to files of the repository outside docs/
// lead, when the sandbox serves no copy of its own.
const Repository = "https://github.com/threeds-sandbox/threeds-sandbox/blob/main/"

// indexFile is the index of the pages: served at {base}/docs/contents
// beside a front page, else at {base}/docs/.
const indexFile = "README.md"

// frontFile is where the front page, the repository's README, lies seen
// from the docs' directory: its links are relative to the repository's
// root.
const frontFile = "../README.md"

// contentsName is the index's name as served beside a front page.
const contentsName = "contents"

// Page is one page of the documentation as a reader finds it.
type Page struct {
	// Name is the page's file name without .md; "index" for the page at
	// {base}/docs/, "contents" for the index beside a front page.
	Name string `json:"name"`
	// Title is the page's first heading.
	Title string `json:"title"`
	// Path is where the sandbox serves the page, base path included,
	// e.g. "/3ds/docs/configuration".
	Path string `json:"path"`
}

// Handler serves the documentation. It is safe for concurrent use.
type Handler struct {
	files   fs.FS
	set     *templates.Set
	base    string // the base path, e.g. "/3ds"; empty at the root
	headers func(http.Header)
	md      goldmark.Markdown

	list   []Page           // the pages, the front page and the index first, then in the index's order
	pages  map[string]*page // by name as served: "" for the page at {base}/docs/
	index  string           // the index's name as served: "" or contentsName
	assets map[string]string
}

// page is one Markdown file and its HTML, rendered once.
type page struct {
	Page
	file string
	src  []byte // the front page's Markdown, which files does not hold

	once sync.Once
	body template.HTML
	err  error
}

// contentType is the type of a file served as it is, by its extension;
// "" for a file that is not served.
func contentType(ext string) string {
	switch ext {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	case ".json":
		return "application/json"
	case ".yaml", ".conf", ".txt":
		return "text/plain; charset=utf-8"
	}
	return ""
}

// New builds the handler of the documentation in files (package docs's
// FS): its Markdown pages at the root, their pictures and files anywhere
// below. front, when not nil, is the front page served at {base}/docs/
// (package docs's Front: the repository's README), and the index of the
// pages is then served at {base}/docs/contents. pages renders the page
// frame; base is the sandbox's base path ("" or e.g. "/3ds"); headers,
// when not nil, sets the security headers the sandbox's pages share (the
// handler adds its own Content-Security-Policy).
func New(files fs.FS, front []byte, pages *templates.Set, base string, headers func(http.Header)) (*Handler, error) {
	if files == nil || pages == nil {
		return nil, fmt.Errorf("docsite: need the files and the templates")
	}
	h := &Handler{
		files: files, set: pages, base: strings.TrimRight(base, "/"), headers: headers, md: newMarkdown(),
		pages: map[string]*page{}, assets: map[string]string{},
	}
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		ext := path.Ext(name)
		switch {
		case ext == ".md" && !strings.Contains(name, "/"):
			src, err := fs.ReadFile(files, name)
			if err != nil {
				return err
			}
			p := &page{file: name, Page: Page{Name: strings.TrimSuffix(name, ".md"), Title: title(src)}}
			key := p.Name
			switch {
			case name == indexFile && front != nil:
				p.Name, key = contentsName, contentsName
			case name == indexFile:
				p.Name, key = "index", ""
			}
			p.Path = h.base + "/docs/" + key
			if p.Title == "" {
				p.Title = p.Name
			}
			h.pages[key] = p
		case contentType(ext) != "":
			h.assets[name] = contentType(ext)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("docsite: read the docs: %w", err)
	}
	if front != nil {
		h.index = contentsName
		h.pages[""] = &page{file: frontFile, src: front, Page: Page{Name: "index", Title: title(front), Path: h.base + "/docs/"}}
	}
	if h.pages[h.index] == nil {
		return nil, fmt.Errorf("docsite: the docs have no %s", indexFile)
	}
	h.list = h.order()
	return h, nil
}

// titleLine is the first level-one heading of a page.
var titleLine = regexp.MustCompile(`(?m)^# +(.+?)\s*$`)

// title is a page's first level-one heading, as written.
func title(src []byte) string {
	if m := titleLine.FindSubmatch(src); m != nil {
		return string(m[1])
	}
	return ""
}

// indexLink finds the pages the index links, in its order.
var indexLink = regexp.MustCompile(`\]\(([A-Za-z0-9_.-]+)\.md(?:#[^)]*)?\)`)

// order lists the pages: the front page and the index, the pages in the
// order the index links them, then any other page by name.
func (h *Handler) order() []Page {
	out := []Page{h.pages[""].Page}
	seen := map[string]bool{"": true, h.index: true}
	if h.index != "" {
		out = append(out, h.pages[h.index].Page)
	}
	src, _ := fs.ReadFile(h.files, indexFile)
	for _, m := range indexLink.FindAllSubmatch(src, -1) {
		if name := string(m[1]); !seen[name] && h.pages[name] != nil {
			seen[name] = true
			out = append(out, h.pages[name].Page)
		}
	}
	var rest []Page
	for name, p := range h.pages {
		if !seen[name] {
			rest = append(rest, p.Page)
		}
	}
	slices.SortFunc(rest, func(a, b Page) int { return strings.Compare(a.Name, b.Name) })
	return append(out, rest...)
}

// Pages lists the pages: the one at {base}/docs/ first (the front page,
// then the index, when there is a front page), then in the order the
// index links them. The caller may not change the slice.
func (h *Handler) Pages() []Page { return h.list }

// ServeHTTP serves GET and HEAD of {base}/docs/ and everything below it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.headers != nil {
		h.headers(w.Header())
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, h.base+"/docs/")
	switch {
	case !ok:
		h.notFound(w, r)
	case h.pages[name] != nil:
		h.servePage(w, r, h.pages[name])
	case h.assets[name] != "":
		h.serveAsset(w, r, name)
	case strings.HasSuffix(name, ".md") && h.pages[strings.TrimSuffix(name, ".md")] != nil:
		http.Redirect(w, r, h.pages[strings.TrimSuffix(name, ".md")].Path, http.StatusMovedPermanently)
	case name == indexFile, name == strings.TrimSuffix(indexFile, ".md"):
		// README, as a reader types it: the page at {base}/docs/.
		http.Redirect(w, r, h.pages[""].Path, http.StatusMovedPermanently)
	default:
		h.notFound(w, r)
	}
}

// servePage answers a page, rendering its Markdown on the first request.
func (h *Handler) servePage(w http.ResponseWriter, r *http.Request, p *page) {
	p.once.Do(func() {
		src, err := p.src, error(nil)
		if src == nil {
			src, err = fs.ReadFile(h.files, p.file)
		}
		if err != nil {
			p.err = err
			return
		}
		p.body, p.err = render(h.md, src, func(dest string) string { return h.link(p.file, dest) })
	})
	if p.err != nil {
		h.fail(w, fmt.Errorf("render %s: %w", p.file, p.err))
		return
	}
	h.write(w, r, http.StatusOK, p.Title, p.Path, p.body)
}

// notFound answers the page of an address with no page.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	body := template.HTML(`<h1 id="no-such-page">No such page</h1>
<p>There is no page of the documentation at this address. The <a href="` +
		template.HTMLEscapeString(h.pages[""].Path) + `">index</a> lists every page.</p>`)
	h.write(w, r, http.StatusNotFound, "No such page", "", body)
}

// write renders the frame of a page around body, with the headers of the
// console and a policy of its own: nothing runs, the page's one style
// element carries the nonce, and pictures come from the sandbox itself.
func (h *Handler) write(w http.ResponseWriter, r *http.Request, status int, title, current string, body template.HTML) {
	nonce := newNonce()
	nav := make([]templates.DocsLink, len(h.list))
	for i, p := range h.list {
		nav[i] = templates.DocsLink{Title: p.Title, Href: p.Path, Current: p.Path == current}
	}
	var buf bytes.Buffer
	err := h.set.Render(&buf, templates.PageDocs, templates.DocsPage{
		Nonce: nonce, Base: h.base, Title: title, Body: body, Pages: nav,
	})
	if err != nil {
		h.fail(w, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Security-Policy", policy(nonce))
	hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = buf.WriteTo(w)
	}
}

// policy is the Content-Security-Policy of a docs page whose style
// element carries nonce: no script at all, pictures from the sandbox (or
// data: URLs) only, no frames, no forms, and the page may not be framed.
func policy(nonce string) string {
	return "default-src 'none'; style-src 'nonce-" + nonce + "'; img-src 'self' data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
}

// serveAsset answers a picture or file of the docs as it is.
func (h *Handler) serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	raw, err := fs.ReadFile(h.files, name)
	if err != nil {
		h.fail(w, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", h.assets[name])
	hd.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	hd.Set("Content-Length", strconv.Itoa(len(raw)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(raw)
	}
}

// fail answers a failure of the sandbox itself: the embedded docs or the
// templates are broken, which the tests rule out.
func (h *Handler) fail(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = fmt.Fprintf(w, "The documentation could not be shown: %v\n", err)
}

// link is where a link of the page file to dest leads once served.
func (h *Handler) link(file, dest string) string {
	p, fragment, ok := relative(dest)
	if !ok {
		return dest
	}
	target := path.Join(path.Dir(file), p)
	if inside, ok := strings.CutPrefix(target, "../docs/"); ok {
		target = inside // a link of the front page into docs/
	}
	withFragment := func(u string) string {
		if fragment == "" {
			return u
		}
		return u + "#" + fragment
	}
	if rest, outside := strings.CutPrefix(target, "../"); outside {
		switch {
		case rest == indexFile && h.index != "":
			return withFragment(h.pages[""].Path) // the README is the front page
		case rest == indexFile && fragment == "":
			return h.pages[""].Path // the docs' index leads where the README does
		case rest == "scenarios/schema.json":
			return h.base + "/scenarios/schema.json"
		case rest == "web/openapi.yaml":
			return h.base + "/openapi.yaml"
		}
		return withFragment(Repository + rest) // a section of the README, a source file
	}
	if name, isPage := strings.CutSuffix(target, ".md"); isPage {
		if target == indexFile {
			name = h.index
		}
		if pg := h.pages[name]; pg != nil {
			return withFragment(pg.Path)
		}
	}
	if h.assets[target] != "" {
		return h.base + "/docs/" + target
	}
	return withFragment(Repository + "docs/" + target)
}

// newNonce returns a fresh Content-Security-Policy nonce.
func newNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
