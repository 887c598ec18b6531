package web

import (
	"fmt"
	"html/template"
	"net/http"
	"strings"

	"github.com/gorilla/mux"
	qr "github.com/piglig/go-qr"

	"github.com/threeds-sandbox/threeds-sandbox/emulator"
	"github.com/threeds-sandbox/threeds-sandbox/emulator/emv"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// handleApp serves {base}/acs/app/{id}: the simulated banking app of an
// oob challenge. GET shows the purchase with Approve and Decline; POST
// (field action) records the answer, which the challenge page's Continue
// then turns into the result. The id is the capability, as for the
// hostedChallengeUrl: the page is opened on a phone, without a token.
// The page opens in a window of its own (a tab, the phone's browser),
// so nobody may frame it, and only its own form may post its answer.
func (s *Server) handleApp(w http.ResponseWriter, r *http.Request) {
	id := mux.Vars(r)["id"]
	var st emulator.AppState
	var err error
	infoOf(r.Context()).ownWindow = true
	if r.Method == http.MethodPost {
		if err := s.origins.Check(r); err != nil {
			s.writeError(w, r, emv.NewError(emv.CodeCrossSite, emv.EMVAccessDenied,
				"the banking app's answer must come from its own page: "+err.Error(), "Origin"))
			return
		}
		if err := r.ParseForm(); err != nil {
			s.writeError(w, r, formError(err, s.cfg.MaxBodyBytes))
			return
		}
		st, err = s.cfg.Engine.AnswerApp(r.Context(), id, r.PostForm.Get("action"))
	} else {
		st, err = s.cfg.Engine.AppChallenge(r.Context(), id)
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	nonce := respond.Nonce()
	s.page(w, r, http.StatusOK, templates.PageBankApp, nonce, templates.BankApp{
		Lang:         s.language(r, st.Language),
		Nonce:        nonce,
		FormAction:   s.cfg.Engine.URLs().App(st.ThreeDSServerTransID),
		MerchantName: st.MerchantName,
		Amount:       st.Amount,
		Currency:     st.Currency,
		MaskedPAN:    st.MaskedPAN,
		Answer:       st.Answer,
		Final:        st.Final,
		Status:       st.Status,
	})
}

// appStatus is what the oob challenge page watches, by script.
type appStatus struct {
	// Answer is the banking app's answer: approve, decline, or "".
	Answer string `json:"answer"`
	Final  bool   `json:"final"`
}

// handleAppStatus serves GET {base}/acs/app/{id}/status: whether the
// banking app has answered, for the challenge page to continue by
// itself.
func (s *Server) handleAppStatus(w http.ResponseWriter, r *http.Request) {
	st, err := s.cfg.Engine.AppChallenge(r.Context(), mux.Vars(r)["id"])
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	respond.JSON(w, http.StatusOK, appStatus{Answer: st.Answer, Final: st.Final})
}

// qrSVG draws text as a QR code (error correction M) in an inline SVG,
// one path of dark modules with a quiet zone of four.
func qrSVG(text string) (template.HTML, error) {
	code, err := qr.EncodeText(text, qr.Medium)
	if err != nil {
		return "", fmt.Errorf("QR code of %q: %w", text, err)
	}
	const quiet = 4
	n := code.Size()
	var path strings.Builder
	for y := range n {
		for x := range n {
			if code.Module(x, y) {
				fmt.Fprintf(&path, "M%d %dh1v1h-1z", x+quiet, y+quiet)
			}
		}
	}
	side := n + 2*quiet
	return template.HTML(fmt.Sprintf( //nolint:gosec // numbers only
		`<svg class="qr" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img" aria-label="QR code of the banking app link" shape-rendering="crispEdges"><rect width="100%%" height="100%%" fill="#fff"/><path fill="#000" d="%s"/></svg>`,
		side, side, path.String())), nil
}
