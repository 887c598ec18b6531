package wire_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/wire"
)

func captureForm(mutate func(url.Values)) url.Values {
	v := url.Values{
		"bin":         {"4000000000009409"},
		"callbackUrl": {"https://shop.example/3ds/ddc-callback"},
		"ddcId":       {"6b0cbd4f-3e4a-4c1c-9f5e-2f3c1f5a7d10"},
		"jwt":         {"eyJhbGciOiJIUzI1NiJ9.e30.c2ln"},
	}
	if mutate != nil {
		mutate(v)
	}
	return v
}

func TestDecodeCaptureForm(t *testing.T) {
	f, err := wire.DecodeCaptureForm(captureForm(nil))
	if err != nil {
		t.Fatal(err)
	}
	r := f.Request
	if r.BIN != "4000000000009409" || r.CallbackURL != "https://shop.example/3ds/ddc-callback" || r.DDCID != "6b0cbd4f-3e4a-4c1c-9f5e-2f3c1f5a7d10" ||
		f.JWT != "eyJhbGciOiJIUzI1NiJ9.e30.c2ln" || r.JWTLength != len(f.JWT) {
		t.Errorf("decoded %+v", f)
	}
	// The table's names, and both names with the same value.
	f, err = wire.DecodeCaptureForm(captureForm(func(v url.Values) {
		v["cardBIN"], v["JWT"] = v["bin"], v["jwt"]
		delete(v, "bin")
	}))
	if err != nil || f.Request.BIN != "4000000000009409" || f.JWT == "" {
		t.Errorf("cardBIN and JWT: %+v, %v", f, err)
	}

	tests := []struct {
		name   string
		mutate func(url.Values)
		code   emv.ErrorCode
		fields string
	}{
		{"nothing", func(v url.Values) { clear(v) }, emv.CodeMissingField, "bin,callbackUrl,ddcId,jwt"},
		{"empty ddcId", func(v url.Values) { v.Set("ddcId", "") }, emv.CodeMissingField, "ddcId"},
		{"bin too short", func(v url.Values) { v.Set("bin", "40000") }, emv.CodeInvalidField, "bin"},
		{"bin not digits", func(v url.Values) { v.Set("bin", "4000-0000") }, emv.CodeInvalidField, "bin"},
		{"bin too long", func(v url.Values) { v.Set("bin", strings.Repeat("4", 20)) }, emv.CodeInvalidField, "bin"},
		{"callbackUrl relative", func(v url.Values) { v.Set("callbackUrl", "/ddc-callback") }, emv.CodeInvalidField, "callbackUrl"},
		{"callbackUrl javascript", func(v url.Values) { v.Set("callbackUrl", "javascript:alert(1)") }, emv.CodeInvalidField, "callbackUrl"},
		{"callbackUrl too long", func(v url.Values) { v.Set("callbackUrl", "https://x.example/"+strings.Repeat("a", 2048)) }, emv.CodeInvalidField, "callbackUrl"},
		{"ddcId too long", func(v url.Values) { v.Set("ddcId", strings.Repeat("a", 37)) }, emv.CodeInvalidField, "ddcId"},
		{"ddcId with spaces", func(v url.Values) { v.Set("ddcId", "a b") }, emv.CodeInvalidField, "ddcId"},
		{"jwt too long", func(v url.Values) { v.Set("jwt", strings.Repeat("a", 2049)) }, emv.CodeInvalidField, "jwt"},
		{"bin twice", func(v url.Values) { v.Add("bin", "400000") }, emv.CodeDuplicateField, "bin"},
		{"bin and cardBIN differ", func(v url.Values) { v.Set("cardBIN", "510000") }, emv.CodeDuplicateField, "bin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := wire.DecodeCaptureForm(captureForm(tt.mutate))
			if err == nil {
				t.Fatalf("accepted %+v", f)
			}
			if err.Code != tt.code || err.Detail != tt.fields {
				t.Errorf("error %s detail %q, want %s %q (%s)", err.Code, err.Detail, tt.code, tt.fields, err.Message)
			}
		})
	}
	// The valid fields survive a problem of another: the callback can
	// still be notified.
	f, err = wire.DecodeCaptureForm(captureForm(func(v url.Values) { v.Del("jwt") }))
	if err == nil || f.Request.CallbackURL == "" || f.Request.DDCID == "" {
		t.Errorf("without a jwt: %+v, %v", f, err)
	}
}

// FuzzDecodeCaptureForm: no form body crashes the decoder, and whatever
// it accepts keeps its bounds.
func FuzzDecodeCaptureForm(f *testing.F) {
	f.Add(captureForm(nil).Encode())
	f.Add("bin=4&bin=5&cardBIN=6&jwt=&JWT=x")
	f.Add("callbackUrl=http%3A%2F%2F%5B%3A%3A1%5D%3A80%2F&ddcId=..&bin=000000")
	f.Add("%zz=1")
	f.Fuzz(func(t *testing.T, body string) {
		form, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		c, problem := wire.DecodeCaptureForm(form)
		if problem != nil {
			if problem.Detail == "" || len(problem.Problems) == 0 {
				t.Fatalf("problem without fields: %+v", problem)
			}
			return
		}
		r := c.Request
		if !message.ValidDDCID(r.DDCID) || len(r.BIN) < message.MinBIN || len(r.BIN) > message.MaxBIN ||
			len(r.CallbackURL) > message.MaxCallbackURL || c.JWT == "" || len(c.JWT) > message.MaxCaptureJWT {
			t.Fatalf("accepted %+v", c)
		}
	})
}
