package web

import (
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/scenarios"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
)

// maxSDKBody bounds a message an app's 3DS SDK posts to the ACS.
const maxSDKBody = 64 << 10

// handleSDK serves POST {base}/acs/sdk, the acsURL of the app channel: a
// CReq as a compact JWE (application/jose), or the SDK's own Erro in
// plain JSON (application/json). Every answer is HTTP 200, as SDKs read
// only those: a CRes JWE, the ACS's Erro in JSON, or no body for an Erro
// taken.
func (s *Server) handleSDK(w http.ResponseWriter, r *http.Request) {
	e := s.cfg.Engine
	var x emulator.AppExchange
	media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSDKBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		x = emulator.AppErroReply("101", fmt.Sprintf("the message is larger than %d bytes", maxSDKBody), "")
	case err != nil:
		x = emulator.AppErroReply("101", "the message could not be read", "")
	case media == "application/jose":
		x = e.AppCReq(r.Context(), body)
	case media == "application/json":
		x = e.AppSDKErro(r.Context(), body)
	default:
		x = emulator.AppErroReply("101", fmt.Sprintf("Content-Type %q: a CReq is application/jose, the SDK's Erro application/json", media), "Content-Type")
	}
	if x.Screen != nil {
		c, err := s.appCRes(x.Screen)
		if err != nil {
			s.log.ErrorContext(r.Context(), "render CRes", "request_id", requestID(r), "err", err)
			x = emulator.AppErroReply("404", "the ACS could not render the CRes", "")
		} else {
			x = e.SealCRes(r.Context(), x, c)
		}
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if x.ContentType != "" {
		h.Set("Content-Type", x.ContentType)
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(x.Body)
}

// appCRes is the interim CRes of screen s, its texts in the cardholder's
// language; the engine adds the ids and the counter.
func (s *Server) appCRes(sc *emulator.AppScreen) (message.AppCRes, error) {
	v := sc.View
	lang := s.cfg.Pages.Language(v.Language, sc.Locale)
	var firstErr error
	t := func(key string, args ...any) string {
		text, err := s.cfg.Pages.Text(lang, key, args...)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return text
	}
	plural := func(key string, n int) string {
		text, err := s.cfg.Pages.Plural(lang, key, n)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return text
	}
	style := v.UI
	if style == scenarios.UIMultiSelect {
		style = scenarios.UISelect
	}
	info := t("sdk.info", v.Amount, v.Currency, v.MerchantName, v.MaskedPAN)
	if v.Amount == "" {
		info = v.MerchantName + ", " + v.MaskedPAN
	}
	if sc.WrongAnswer {
		info = plural("challenge."+style+".wrong", v.AttemptsLeft)
	}
	if sc.UIType == "05" {
		page, err := s.acsHTML(sc, lang, info, t)
		if err != nil {
			return message.AppCRes{}, err
		}
		return message.AppCRes{ACSHTML: base64.RawURLEncoding.EncodeToString([]byte(page))}, firstErr
	}
	why := t("sdk.why.text")
	c := message.AppCRes{
		ChallengeInfoHeader: t("challenge.heading"),
		ChallengeInfoText:   info,
		WhyInfoLabel:        t("sdk.why.label"),
		WhyInfoText:         &why,
		ExpandInfoLabel:     t("sdk.expand.label"),
		ExpandInfoText:      t("sdk.expand.text"),
		IssuerImage:         s.markURLs("issuer"),
		PSImage:             s.markURLs(brandOf(v.Scheme).Style),
	}
	if v.TrustPrompt {
		c.WhitelistingInfoText = t("sdk.trust")
	}
	if sc.WrongAnswer {
		c.ChallengeInfoTextIndicator = "Y"
	}
	switch st := v.Style.(type) {
	case emulator.OTPView:
		c.ChallengeInfoLabel, c.SubmitAuthenticationLabel = t("challenge.otp.label"), t("challenge.otp.submit")
		c.ChallengeAddInfo = t("challenge.otp.hint", st.PassingOTP)
		if st.ResendsLeft > 0 {
			c.ResendInformationLabel = t("challenge.otp.resend")
		}
		if v.Notice == emulator.NoticeCodeSent {
			c.ChallengeInfoText = t("challenge.otp.sent")
		}
	case emulator.PasswordView:
		c.ChallengeInfoLabel, c.SubmitAuthenticationLabel = t("challenge.password.label"), t("challenge.password.submit")
		c.ChallengeAddInfo = t("challenge.password.hint", st.Password)
	case emulator.SelectView:
		c.ChallengeInfoLabel, c.SubmitAuthenticationLabel = t("challenge."+v.UI+".question"), t("challenge.select.submit")
		var keys []string
		for i, choice := range st.Choices {
			key := strconv.Itoa(i + 1)
			c.ChallengeSelectInfo = append(c.ChallengeSelectInfo, message.Choice{key: choice})
			for _, a := range st.Answers {
				if a == choice {
					keys = append(keys, key+" "+choice)
				}
			}
		}
		c.ChallengeAddInfo = t("challenge.select.hint", strings.Join(keys, "; "))
	case emulator.OOBView:
		c.ChallengeInfoText = t("challenge.oob.ask")
		if v.Notice == emulator.NoticeNotApproved {
			c.ChallengeInfoText = t("challenge.oob.notYet")
		}
		c.OOBContinueLabel, c.OOBAppURL, c.OOBAppLabel = t("challenge.oob.continue"), sc.OOBAppURL, t("challenge.oob.open")
		c.ChallengeAddInfo = t("sdk.oob.hint")
	}
	return c, firstErr
}

// markURLs are the URLs of the mark's image at the three densities.
func (s *Server) markURLs(mark string) *message.Images {
	base := s.cfg.Engine.URLs().Public() + emulator.PathACSImages + mark + "-"
	return &message.Images{Medium: base + "medium.png", High: base + "high.png", ExtraHigh: base + "extraHigh.png"}
}

// acsPage is the HTML of an acsUiType 05 challenge: a form that posts to
// the address the SDK intercepts, whose fields come back as
// challengeHTMLDataEntry (entry, choice, action, trust).
var acsPage = template.Must(template.New("acs-html").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{{.Heading}}</title></head>
<body><main><h1>{{.Heading}}</h1><p>{{.Info}}</p>
<form method="post" action="HTTPS://EMV3DS/challenge">
{{if .Label}}<label for="entry">{{.Label}}</label> <input id="entry" name="entry" autocomplete="one-time-code">{{end}}
{{if .Choices}}<fieldset><legend>{{.Question}}</legend>{{range .Choices}}<label><input type="{{$.Input}}" name="choice" value="{{.Key}}"> {{.Text}}</label><br>{{end}}</fieldset>{{end}}
{{if .Trust}}<label><input type="checkbox" name="trust" value="Y"> {{.Trust}}</label><br>{{end}}
{{if .Continue}}<button name="action" value="continue">{{.Continue}}</button>{{else}}<button>{{.Submit}}</button>{{end}}
{{if .Resend}}<button name="action" value="resend">{{.Resend}}</button>{{end}}
<button name="action" value="cancel">{{.Cancel}}</button>
</form><p>{{.Hint}}</p></main></body></html>`))

// acsPageView is what acsPage shows.
type acsPageView struct {
	Lang                            templates.Lang
	Heading, Info, Label, Question  string
	Input                           string
	Choices                         []struct{ Key, Text string }
	Trust, Continue, Submit, Resend string
	Cancel, Hint                    string
}

// acsHTML renders the page of an HTML challenge of screen sc.
func (s *Server) acsHTML(sc *emulator.AppScreen, lang templates.Lang, info string, t func(string, ...any) string) (string, error) {
	v := sc.View
	p := acsPageView{Lang: lang, Heading: t("challenge.heading"), Info: info, Cancel: t("challenge.cancel")}
	if v.TrustPrompt {
		p.Trust = t("sdk.trust")
	}
	switch st := v.Style.(type) {
	case emulator.OTPView:
		p.Label, p.Submit, p.Hint = t("challenge.otp.label"), t("challenge.otp.submit"), t("challenge.otp.hint", st.PassingOTP)
		if st.ResendsLeft > 0 {
			p.Resend = t("challenge.otp.resend")
		}
	case emulator.PasswordView:
		p.Label, p.Submit, p.Hint = t("challenge.password.label"), t("challenge.password.submit"), t("challenge.password.hint", st.Password)
	case emulator.SelectView:
		p.Question, p.Submit, p.Input = t("challenge."+v.UI+".question"), t("challenge.select.submit"), "radio"
		if st.Multi {
			p.Input = "checkbox"
		}
		for i, c := range st.Choices {
			p.Choices = append(p.Choices, struct{ Key, Text string }{strconv.Itoa(i + 1), c})
		}
		p.Hint = t("challenge.select.hint", strings.Join(st.Answers, "; "))
	case emulator.OOBView:
		p.Continue, p.Hint = t("challenge.oob.continue"), t("sdk.oob.hint")
		if !sc.WrongAnswer {
			p.Info = t("challenge.oob.ask")
		}
	}
	var b strings.Builder
	if err := acsPage.Execute(&b, p); err != nil {
		return "", fmt.Errorf("render acsHTML: %w", err)
	}
	return b.String(), nil
}
