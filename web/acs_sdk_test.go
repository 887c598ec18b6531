package web_test

import (
	"bytes"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestACSImages: the marks an app's CRes points at are PNG images of the
// density's width, public and cacheable; an unknown one is not found.
func TestACSImages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for name, width := range map[string]int{"visa-medium.png": 150, "mastercard-high.png": 300, "issuer-extraHigh.png": 450} {
		resp, err := http.Get(e.URL + "/acs/img/" + name)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" || !strings.Contains(resp.Header.Get("Cache-Control"), "public") {
			t.Errorf("%s: %d %v", name, resp.StatusCode, resp.Header)
			continue
		}
		img, err := png.Decode(bytes.NewReader(body))
		if err != nil || img.Bounds().Dx() != width {
			t.Errorf("%s: %v, bounds %v; want width %d", name, err, img, width)
		}
	}
	resp, err := http.Get(e.URL + "/acs/img/nosuch-medium.png")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown mark: %d, want 404", resp.StatusCode)
	}
}

// TestACSSDKRefusals: what the acsURL cannot read is answered with the
// ACS's Erro in plain JSON, status 200, as SDKs read it.
func TestACSSDKRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name, contentType, body, code string
	}{
		{"not a JWE", "application/jose; charset=UTF-8", "hello", "101"},
		{"unknown kid", "application/jose", "eyJhbGciOiJkaXIiLCJlbmMiOiJBMTI4R0NNIiwia2lkIjoiOGQwYzVmODQtN2QzZS00YjJjLTlhMWItMmMzZDRlNWY2YTdiIn0..AAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA", "301"},
		{"a form", "application/x-www-form-urlencoded", "creq=x", "101"},
		{"too big", "application/jose", strings.Repeat("a", 70<<10), "101"},
		{"an Erro of no transaction", "application/json", `{"messageType":"Erro","errorCode":"201","acsTransID":"8d0c5f84-7d3e-4b2c-9a1b-2c3d4e5f6a7b"}`, "301"},
		{"JSON that is no Erro", "application/json", `{"messageType":"CReq"}`, "101"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Post(e.URL+"/acs/sdk", tt.contentType, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var erro map[string]string
			if err := json.NewDecoder(resp.Body).Decode(&erro); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
				erro["messageType"] != "Erro" || erro["errorCode"] != tt.code || erro["errorComponent"] != "A" {
				t.Errorf("%d %s %v, want Erro %s", resp.StatusCode, resp.Header.Get("Content-Type"), erro, tt.code)
			}
		})
	}
}
