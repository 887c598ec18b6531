package web

import (
	"image"
	"image/color"
	"regexp"
	"strconv"
	"testing"

	qr "github.com/piglig/go-qr"
)

// TestQRSVGDecodes: the QR code the oob page draws reads back as the
// banking app's link, as a phone's camera would read it.
func TestQRSVGDecodes(t *testing.T) {
	t.Parallel()
	const link = "https://sandbox.example/3ds/acs/app/8a880dc0-d2d2-4067-bcb1-b08d1690b26e"
	svg, err := qrSVG(link)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`viewBox="0 0 ([0-9]+) ([0-9]+)"`).FindStringSubmatch(string(svg))
	if m == nil || m[1] != m[2] {
		t.Fatalf("no square viewBox: %s", svg)
	}
	side, _ := strconv.Atoi(m[1])
	const scale = 4
	img := image.NewGray(image.Rect(0, 0, side*scale, side*scale))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	modules := regexp.MustCompile(`M([0-9]+) ([0-9]+)h1v1h-1z`).FindAllStringSubmatch(string(svg), -1)
	if len(modules) == 0 {
		t.Fatal("no dark module drawn")
	}
	for _, mod := range modules {
		x, _ := strconv.Atoi(mod[1])
		y, _ := strconv.Atoi(mod[2])
		for dy := range scale {
			for dx := range scale {
				img.SetGray(x*scale+dx, y*scale+dy, color.Gray{})
			}
		}
	}
	got, err := qr.Decode(img)
	if err != nil || got != link {
		t.Errorf("decoded %q, %v; want %q", got, err, link)
	}
}
