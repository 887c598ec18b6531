//go:build full

package e2e

import (
	"html/template"
	"net/http"
	"strconv"
	"sync"
)

// checkouts are the checkout pages of a test's shop: one page per
// checkout the test adds, rendered by one template from what the page
// needs (T) and served at GET /checkout/{id}.
type checkouts[T any] struct {
	page *template.Template

	mu    sync.Mutex
	pages map[string]T
}

func newCheckouts[T any](page *template.Template) *checkouts[T] {
	return &checkouts[T]{page: page, pages: map[string]T{}}
}

// add registers a page under id ("" numbers it) and returns its path.
func (c *checkouts[T]) add(id string, v T) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id == "" {
		id = strconv.Itoa(len(c.pages) + 1)
	}
	c.pages[id] = v
	return "/checkout/" + id
}

// serve answers GET /checkout/{id}.
func (c *checkouts[T]) serve(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	v, ok := c.pages[r.PathValue("id")]
	c.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = c.page.Execute(w, v)
}
