package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestCardholderPagesFollowBrowserLanguage: the lookup's
// browserInfo.language chooses the language of every page the cardholder
// sees through the challenge (the challengeHtml, the challenge page, the
// page after a wrong code, the page that returns the CRes), and
// Accept-Language chooses it where there is no transaction (an error page).
func TestCardholderPagesFollowBrowserLanguage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		language, want string
		texts          []string // on the challenge page, after a wrong code
	}{
		{"th-TH", "th", []string{"ยืนยันการซื้อของคุณ", "รหัสไม่ถูกต้อง เหลืออีก 2 ครั้ง"}},
		{"de-DE", "de", []string{"Bestätigen Sie Ihren Einkauf", "Falscher Code. Noch 2 Versuche."}},
		{"en-GB", "en", []string{"Confirm your purchase", "Incorrect code. 2 attempts left."}},
		{"fr-FR", "en", []string{"Confirm your purchase", "Incorrect code. 2 attempts left."}},
	}
	for _, tt := range tests {
		t.Run(tt.language, func(t *testing.T) {
			e := newEnv(t)
			c := e.startChallenge(func(m map[string]any) {
				m["browserInfo"].(map[string]any)["language"] = tt.language
			})
			lang := `<html lang="` + tt.want + `">`
			if page := c.lookup.Str("challengeHtml"); !strings.Contains(page, lang) {
				t.Errorf("challengeHtml has no %s:\n%.300s", lang, page)
			}
			page := e.form("/acs/challenge", url.Values{"creq": {c.creq}})
			if page.Status != http.StatusOK || !strings.Contains(page.Raw, lang) {
				t.Fatalf("challenge page: %d, no %s", page.Status, lang)
			}
			wrong := e.press(page, "otp", "9999")
			for _, want := range append([]string{lang}, tt.texts...) {
				if !strings.Contains(wrong.Raw, want) {
					t.Errorf("page after a wrong code lacks %q", want)
				}
			}
			done := e.press(wrong, "pass", "")
			if done.Status != http.StatusOK || !strings.Contains(done.Raw, lang) {
				t.Errorf("page returning the CRes: %d, no %s", done.Status, lang)
			}
		})
	}
}

// TestErrorPageFollowsAcceptLanguage: an error page of the ACS has no
// transaction to read browserInfo from; the browser's Accept-Language
// chooses its language.
func TestErrorPageFollowsAcceptLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for accept, want := range map[string]string{"th-TH,th;q=0.9": "th", "de": "de", "": "en", "fr, *;q=0.1": "en"} {
		req, err := http.NewRequest(http.MethodPost, e.URL+"/acs/challenge", strings.NewReader("creq=nonsense"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if accept != "" {
			req.Header.Set("Accept-Language", accept)
		}
		r := e.do(req)
		if r.Status < 400 || !strings.Contains(r.Raw, `<html lang="`+want+`">`) {
			t.Errorf("Accept-Language %q: status %d, want an error page in %s:\n%.300s", accept, r.Status, want, r.Raw)
		}
	}
}
