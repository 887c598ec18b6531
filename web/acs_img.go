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

// markColours are the colours of each mark: its ground and its emblem.
var markColours = map[string][2]color.RGBA{
	"visa":       {{0x1a, 0x1f, 0x71, 0xff}, {0xf7, 0xb6, 0x00, 0xff}},
	"mastercard": {{0x22, 0x22, 0x22, 0xff}, {0xeb, 0x00, 0x1b, 0xff}},
	"amex":       {{0x2e, 0x77, 0xbc, 0xff}, {0xff, 0xff, 0xff, 0xff}},
	"discover":   {{0xff, 0xff, 0xff, 0xff}, {0xf7, 0x6f, 0x20, 0xff}},
	"jcb":        {{0x0e, 0x4c, 0x96, 0xff}, {0x00, 0x9a, 0x44, 0xff}},
	"upi":        {{0xd1, 0x0a, 0x2f, 0xff}, {0x00, 0x5b, 0xac, 0xff}},
	"generic":    {{0x44, 0x4a, 0x55, 0xff}, {0xcc, 0xd0, 0xd6, 0xff}},
	"issuer":     {{0x0b, 0x6e, 0x4f, 0xff}, {0xff, 0xff, 0xff, 0xff}},
}

// markImages keeps the encoded images by name ("visa-high").
type markImages struct{ m sync.Map }

// png is the image name, drawn on first use; false for a name that is
// no mark at no density.
func (c *markImages) png(name string) ([]byte, bool) {
	if b, ok := c.m.Load(name); ok {
		return b.([]byte), true
	}
	mark, density, ok := strings.Cut(name, "-")
	colours, okMark := markColours[mark]
	width, okSize := imageWidths[density]
	if !ok || !okMark || !okSize {
		return nil, false
	}
	b := drawMark(width, colours)
	c.m.Store(name, b)
	return b, true
}

// drawMark draws a card-shaped mark: the ground with rounded corners, a
// band across it and two overlapping discs of the emblem's colour.
func drawMark(w int, c [2]color.RGBA) []byte {
	h := w * 2 / 3
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := w / 12 // corner radius
	band := color.RGBA{0xff, 0xff, 0xff, 0x40}
	for y := range h {
		for x := range w {
			if !insideRounded(x, y, w, h, r) {
				continue
			}
			px := c[0]
			if y > h/5 && y < h/5+h/10 {
				px = blend(px, band)
			}
			cx1, cx2, cy, rad := w*5/8, w*3/4, h*2/3, h/5
			if in(x, y, cx1, cy, rad) || in(x, y, cx2, cy, rad) {
				px = c[1]
				if in(x, y, cx1, cy, rad) && in(x, y, cx2, cy, rad) {
					px = blend(c[1], color.RGBA{0xff, 0x99, 0x00, 0x80})
				}
			}
			img.SetRGBA(x, y, px)
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // into memory: never fails
	return buf.Bytes()
}

func insideRounded(x, y, w, h, r int) bool {
	cx, cy := min(max(x, r), w-1-r), min(max(y, r), h-1-r)
	return in(x, y, cx, cy, r)
}

func in(x, y, cx, cy, r int) bool { return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r }

// blend lays top over bottom by top's alpha.
func blend(bottom, top color.RGBA) color.RGBA {
	a := uint32(top.A)
	mix := func(b, t uint8) uint8 { return uint8((uint32(b)*(255-a) + uint32(t)*a) / 255) }
	return color.RGBA{mix(bottom.R, top.R), mix(bottom.G, top.G), mix(bottom.B, top.B), 0xff}
}

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
