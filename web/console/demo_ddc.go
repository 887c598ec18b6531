package console

import (
	"encoding/json"
	"io"
	"net/http"

	"github.com/threeds-sandbox/threeds-sandbox/emulator/message"
	"github.com/threeds-sandbox/threeds-sandbox/templates"
	"github.com/threeds-sandbox/threeds-sandbox/web/respond"
)

// The demo checkout's device data capture, done as a merchant's checkout
// does it at the real service: the page chooses the ddcId, asks its own
// server (the console) for the JWT, which the server signs (the bearer
// token never reaches the page), posts the hidden form into a hidden
// iframe at {base}/V2/ddcCollect, and waits for the notification at its
// callbackUrl ({base}/console/demo/ddc-callback) before the lookup.

// handleDemoDDCJWT serves POST {base}/console/demo/ddc-jwt: the JWT of a
// capture for the session's namespace, {"ddcId": "..."} in, {"jwt":
// "...", "ddcCollectUrl": "..."} out. Only the console's own pages may
// ask.
func (c *Console) handleDemoDDCJWT(w http.ResponseWriter, r *http.Request) {
	fail := func(status int, msg string) {
		respond.JSON(w, status, map[string]string{"error": msg})
	}
	if err := c.cfg.Origins.Check(r); err != nil {
		fail(http.StatusForbidden, "the demo's JWT is for the console's own pages: "+err.Error())
		return
	}
	ns, ok := c.demoNamespace(r)
	if !ok {
		fail(http.StatusUnauthorized, "log in to the console: the token demo is not accepted by this sandbox")
		return
	}
	var req struct {
		DDCID string `json:"ddcId"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1024))
	if err != nil || json.Unmarshal(body, &req) != nil || !message.ValidDDCID(req.DDCID) {
		fail(http.StatusBadRequest, `the body must be {"ddcId":"<a UUID>"}`)
		return
	}
	tok, err := c.cfg.DDCToken(ns, req.DDCID)
	if err != nil {
		c.cfg.Errors(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, map[string]string{"jwt": tok, "ddcCollectUrl": c.cfg.Engine.URLs().DDCCollect()})
}

// demoNamespace is the namespace the demo runs in: the session's, or the
// demo token's when no session is open and the sandbox accepts it.
func (c *Console) demoNamespace(r *http.Request) (string, bool) {
	ns, ok, err := c.Session(r)
	switch {
	case err != nil:
		return "", false
	case ok:
		return ns, true
	}
	id, err := c.cfg.Authority.Identify(DemoToken)
	return id.Namespace, err == nil
}

// handleDemoDDCCallback serves POST {base}/console/demo/ddc-callback, the
// demo's callbackUrl: the capture's iframe lands here with the outcome,
// which the page hands to the demo page (its parent, same origin only).
func (c *Console) handleDemoDDCCallback(w http.ResponseWriter, r *http.Request) {
	nonce := respond.Nonce()
	view := templates.ConsoleNotify{Nonce: nonce, Base: c.base, DDC: true}
	status := http.StatusOK
	if err := r.ParseForm(); err != nil {
		view.Error, status = "The form could not be read.", http.StatusBadRequest
	} else if f := r.PostForm; !message.ValidDDCID(f.Get("ddcId")) {
		view.Error, status = "The form has no ddcId: it is not the capture's notification.", http.StatusBadRequest
	} else {
		view.DDCID, view.DDCStatus, view.CompInd = f.Get("ddcId"), f.Get("status"), f.Get("threeDSCompInd")
		view.ThreeDSServerTransID, view.ErrorCode, view.DDCError = f.Get("threeDsServerTransId"), f.Get("errorCode"), f.Get("error")
	}
	c.render(w, r, status, templates.PageConsoleNotify, nonce, cspOptions{sameOriginFrame: true}, view)
}
