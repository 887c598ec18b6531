package web

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"sync"

	"github.com/gorilla/mux"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
)

// The images an app's CRes points at (issuerImage, psImage): the card
// scheme's mark, or the sandbox bank's, drawn once at each density an
// SDK picks from and kept. They are public and never change.

// imageWidths are the widths of the three densities, in pixels; an image
// is two thirds as high.
var imageWidths = map[string]int{"medium": 150, "high": 300, "extraHigh": 450}

// A mark is drawn as a card with rounded corners: its ground, then its
// emblem in the scheme's colours, e.g. Mastercard's two discs.
type mark struct {
	ground color.RGBA
	// emblem paints the pixel (x, y) of a w by h card, or tells that
	// the ground shows there.
	emblem func(x, y, w, h int) (color.RGBA, bool)
}

var (
	white    = color.RGBA{0xff, 0xff, 0xff, 0xff}
	visaBlue = color.RGBA{0x1a, 0x1f, 0x71, 0xff}
	gold     = color.RGBA{0xf7, 0xb6, 0x00, 0xff}
	red      = color.RGBA{0xeb, 0x00, 0x1b, 0xff}
	amber    = color.RGBA{0xf7, 0x9e, 0x1b, 0xff}
	orange   = color.RGBA{0xff, 0x5f, 0x00, 0xff}
	blue     = color.RGBA{0x00, 0x5b, 0xac, 0xff}
	green    = color.RGBA{0x00, 0x9a, 0x44, 0xff}
	grey     = color.RGBA{0x44, 0x4a, 0x55, 0xff}
)

// bands paints the card in horizontal bands: the top fifth and the
// bottom fifth in top and bottom.
func bands(top, bottom color.RGBA) func(x, y, w, h int) (color.RGBA, bool) {
	return func(_, y, _, h int) (color.RGBA, bool) {
		switch {
		case y < h/5:
			return top, true
		case y >= h*4/5:
			return bottom, true
		}
		return color.RGBA{}, false
	}
}

// stripes paints three upright stripes in the middle of the card.
func stripes(cs ...color.RGBA) func(x, y, w, h int) (color.RGBA, bool) {
	return func(x, y, w, h int) (color.RGBA, bool) {
		if y < h/5 || y >= h*4/5 || x < w/5 || x >= w*4/5 {
			return color.RGBA{}, false
		}
		return cs[(x-w/5)*len(cs)/(w*3/5)], true
	}
}

// discs paints two overlapping discs, left and right, their overlap in
// both.
func discs(left, right, both color.RGBA) func(x, y, w, h int) (color.RGBA, bool) {
	return func(x, y, w, h int) (color.RGBA, bool) {
		cy, r := h/2, h/4
		l, rt := in(x, y, w/2-r/2, cy, r), in(x, y, w/2+r/2, cy, r)
		switch {
		case l && rt:
			return both, true
		case l:
			return left, true
		case rt:
			return right, true
		}
		return color.RGBA{}, false
	}
}

// disc paints one disc in the middle of the card.
func disc(c color.RGBA) func(x, y, w, h int) (color.RGBA, bool) {
	return func(x, y, w, h int) (color.RGBA, bool) { return c, in(x, y, w/2, h/2, h/4) }
}

// marks are the marks by name: the card schemes' (their Style in
// package scenarios) and the sandbox bank's, issuer.
var marks = map[string]mark{
	"visa":       {white, bands(visaBlue, gold)},
	"mastercard": {color.RGBA{0x22, 0x22, 0x22, 0xff}, discs(red, amber, orange)},
	"amex": {color.RGBA{0x2e, 0x77, 0xbc, 0xff}, func(x, y, w, h int) (color.RGBA, bool) {
		return white, x > w/4 && x < w*3/4 && y > h/3 && y < h*2/3 && (x < w/4+h/20 || x > w*3/4-h/20 || y < h/3+h/20 || y > h*2/3-h/20)
	}},
	"discover": {white, disc(orange)},
	"jcb":      {white, stripes(blue, red, green)},
	"upi":      {white, stripes(red, blue, green)},
	"generic":  {grey, disc(color.RGBA{0xcc, 0xd0, 0xd6, 0xff})},
	"issuer":   {color.RGBA{0x0b, 0x6e, 0x4f, 0xff}, disc(white)},
}

// markImages keeps the encoded images by name ("visa-high").
type markImages struct{ m sync.Map }

// png is the image name, drawn on first use; false for a name that is
// no mark at no density.
func (c *markImages) png(name string) ([]byte, bool) {
	if b, ok := c.m.Load(name); ok {
		return b.([]byte), true
	}
	id, density, ok := strings.Cut(name, "-")
	m, okMark := marks[id]
	width, okSize := imageWidths[density]
	if !ok || !okMark || !okSize {
		return nil, false
	}
	b := drawMark(width, m)
	c.m.Store(name, b)
	return b, true
}

// drawMark draws m on a card w pixels wide, two thirds as high, with
// rounded corners and a thin grey edge.
func drawMark(w int, m mark) []byte {
	h := w * 2 / 3
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := w / 12 // corner radius
	edge := max(w/150, 1)
	for y := range h {
		for x := range w {
			if !insideRounded(x, y, w, h, r) {
				continue
			}
			px := m.ground
			if c, ok := m.emblem(x, y, w, h); ok {
				px = c
			}
			if !insideRounded(x-edge, y-edge, w-2*edge, h-2*edge, max(r-edge, 1)) {
				px = color.RGBA{0xb0, 0xb4, 0xba, 0xff}
			}
			img.SetRGBA(x, y, px)
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // into memory: never fails
	return buf.Bytes()
}

func insideRounded(x, y, w, h, r int) bool {
	if x < 0 || y < 0 || x >= w || y >= h {
		return false
	}
	cx, cy := min(max(x, r), w-1-r), min(max(y, r), h-1-r)
	return in(x, y, cx, cy, r)
}

func in(x, y, cx, cy, r int) bool { return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r }

// handleACSImage serves GET {base}/acs/img/{mark}-{density}.png.
func (s *Server) handleACSImage(w http.ResponseWriter, r *http.Request) {
	b, ok := s.marks.png(strings.TrimSuffix(mux.Vars(r)["name"], ".png"))
	if !ok {
		s.writeError(w, r, emv.NewError(emv.CodeNotFound, emv.EMVAccessDenied,
			"no image "+mux.Vars(r)["name"]+": want {mark}-{medium|high|extraHigh}.png, the mark a card scheme's (visa, mastercard, amex, discover, jcb, upi, generic) or issuer", ""))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/png")
	h.Set("Cache-Control", "public, max-age=86400, immutable")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(b)
}
